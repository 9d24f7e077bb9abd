"""Versions as their readers read them: three versions of the bundled sample
(built with its dataset file, each with `--previous`), served; the Atom feed
read by feedparser, the BibTeX by bibtexparser, the RIS and CSL-JSON by rule.

usage: check.py --bin target/release/catalogue

- /versions.atom parses (no bozo) with one entry per version, newest first,
  the current one linking the archive and /eml.xml;
- /api/v2/citation/?format=bibtex parses into one entry with its title,
  authors, year, version and URL; RIS and CSL-JSON say the same five;
- version=1 is cited as version 1.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import bibtexparser
import feedparser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "snapshot", "collection.json")
DATASET = os.path.join(ROOT, "snapshot", "dataset.toml")

problems = []


def fail(message):
    problems.append(message)
    print("FAIL:", message)


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read().decode("utf-8")


def build(binary, work, name, objects, previous):
    fixture = os.path.join(work, f"{name}.json")
    with open(fixture, "w", encoding="utf-8") as f:
        json.dump(objects, f)
    out = os.path.join(work, f"{name}.bin")
    args = [binary, "build", fixture, "-o", out, "--dataset-config", DATASET]
    if previous:
        args += ["--previous", os.path.join(work, f"{previous}.bin")]
    subprocess.run(args, check=True, capture_output=True)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    binary = os.path.abspath(parser.parse_args().bin)
    with open(FIXTURE, encoding="utf-8") as f:
        v1 = json.load(f)
    v2 = [o for o in v1 if not (o["model"] == "specimens.specimenrecord" and o["pk"] == 8)]
    v3 = json.loads(json.dumps(v2))
    for o in v3:
        if o["model"] == "specimens.specimenrecord" and o["pk"] == 2:
            o["fields"]["notes"] = "Re-mounted."
    with tempfile.TemporaryDirectory() as work:
        build(binary, work, "v1", v1, None)
        build(binary, work, "v2", v2, "v1")
        snapshot = build(binary, work, "v3", v3, "v2")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}",
                                   "--no-watch", "--drain", "0"], stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    get(f"{base}/healthz")
                    break
                except OSError:
                    time.sleep(0.1)
            feed = feedparser.parse(get(f"{base}/versions.atom"))
            if feed.bozo:
                fail(f"the feed does not parse: {feed.bozo_exception}")
            titles = [e.title for e in feed.entries]
            if titles != ["Version 3", "Version 2", "Version 1"]:
                fail(f"the feed's entries are {titles}")
            links = {link.href for link in feed.entries[0].links}
            if f"{base}/dwca.zip" not in links or f"{base}/eml.xml" not in links:
                fail(f"the current entry links {links}")
            if "specimen-records: 0 added, 1 modified, 0 deleted" not in feed.entries[0].summary:
                fail(f"the current entry says {feed.entries[0].summary}")

            bib = bibtexparser.loads(get(f"{base}/api/v2/citation/?format=bibtex"))
            if len(bib.entries) != 1:
                fail(f"{len(bib.entries)} BibTeX entries")
            else:
                entry = bib.entries[0]
                want = {"title": "{Insects of the catalogue sample}", "author": "Alvarez, Rosa M.",
                        "version": "3", "url": "https://catalogue.example.org/"}
                for key, value in want.items():
                    if entry.get(key) != value:
                        fail(f"BibTeX {key}: {entry.get(key)!r}, expected {value!r}")
                if not entry.get("year", "").isdigit():
                    fail(f"BibTeX year {entry.get('year')!r}")
            ris = get(f"{base}/api/v2/citation/?format=ris").splitlines()
            tags = {line[:2]: line[6:] for line in ris if line[2:6] == "  - "}
            for tag, value in (("TY", "DATA"), ("TI", "Insects of the catalogue sample"),
                               ("AU", "Alvarez, Rosa M."), ("ET", "Version 3"),
                               ("UR", "https://catalogue.example.org/")):
                if tags.get(tag) != value:
                    fail(f"RIS {tag}: {tags.get(tag)!r}, expected {value!r}")
            if not tags.get("PY", "").isdigit() or ris[-1] != "ER  - ":
                fail(f"RIS year or end: {ris}")
            csl = json.loads(get(f"{base}/api/v2/citation/?format=csl&version=1"))
            item = csl[0]
            if (item["title"], item["author"], item["version"], item["URL"]) != (
                    "Insects of the catalogue sample", [{"family": "Alvarez", "given": "Rosa M."}], "1",
                    "https://catalogue.example.org/") or len(item["issued"]["date-parts"][0]) != 3:
                fail(f"CSL-JSON: {item}")
        finally:
            server.terminate()
            server.wait()
    if problems:
        sys.exit(f"{len(problems)} problems")
    print("versions: the feed, BibTeX, RIS and CSL-JSON read as their readers read them")


if __name__ == "__main__":
    main()
