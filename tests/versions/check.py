"""Versions as their readers read them: three versions of the bundled sample
(built with its dataset file, each with `--previous`), served; the Atom feed
and the IPT-style RSS read by feedparser, the BibTeX by bibtexparser, the RIS
and CSL-JSON by rule.

usage: check.py --bin target/release/catalogue

- /versions.atom parses (no bozo) with one entry per version, newest first,
  each linking the archive and eml.xml it published (kept beside the
  snapshot: /versions/N/dwca.zip), which answer the bytes /dwca.zip and
  /eml.xml served while the version was current;
- /versions.rss parses as RSS 2.0 with one item per version, titled as the
  IPT titles them (`<title> - Version N`), with the IPT's ipt:dwca and
  ipt:eml naming the same files, and a pubDate;
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


def get_bytes(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.read()


def build(binary, work, name, objects, previous, base):
    """Builds a version to its own file, after `previous`'s (whose kept
    versions it carries), its kept archive linking at `base`."""
    fixture = os.path.join(work, f"{name}.json")
    with open(fixture, "w", encoding="utf-8") as f:
        json.dump(objects, f)
    out = os.path.join(work, f"{name}.bin")
    args = [binary, "build", fixture, "-o", out, "--dataset-config", DATASET, "--public-url", base]
    if previous:
        args += ["--previous", os.path.join(work, f"{previous}.bin")]
    subprocess.run(args, check=True, capture_output=True)
    return out


def serve(binary, snapshot, port):
    server = subprocess.Popen([binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}",
                               "--no-watch", "--drain", "0"], stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            get(f"http://127.0.0.1:{port}/healthz")
            return server
        except OSError:
            time.sleep(0.1)
    return server


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
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        # What /dwca.zip and /eml.xml served while each version was current.
        served = {}
        for n, (name, objects, previous) in enumerate(
                [("v1", v1, None), ("v2", v2, "v1"), ("v3", v3, "v2")], start=1):
            snapshot = build(binary, work, name, objects, previous, base)
            server = serve(binary, snapshot, port)
            try:
                served[n] = (get_bytes(f"{base}/dwca.zip"), get_bytes(f"{base}/eml.xml"))
            finally:
                server.terminate()
                server.wait()
        server = serve(binary, snapshot, port)
        try:
            feed = feedparser.parse(get(f"{base}/versions.atom"))
            if feed.bozo:
                fail(f"the feed does not parse: {feed.bozo_exception}")
            titles = [e.title for e in feed.entries]
            if titles != ["Version 3", "Version 2", "Version 1"]:
                fail(f"the feed's entries are {titles}")
            for entry, n in zip(feed.entries, [3, 2, 1]):
                links = {link.rel: link.href for link in entry.links}
                want = {"enclosure": f"{base}/versions/{n}/dwca.zip",
                        "describedby": f"{base}/versions/{n}/eml.xml"}
                if {rel: links.get(rel) for rel in want} != want:
                    fail(f"version {n}'s entry links {links}")
                elif (get_bytes(want["enclosure"]), get_bytes(want["describedby"])) != served[n]:
                    fail(f"version {n}'s kept archive or eml.xml is not what it served")
            rss = feedparser.parse(get(f"{base}/versions.rss"))
            if rss.bozo or rss.version != "rss20":
                fail(f"the RSS does not parse as RSS 2.0: {rss.version} {rss.get('bozo_exception')}")
            items = [(e.title, e.get("ipt_dwca"), e.get("ipt_eml"), bool(e.get("published_parsed")))
                     for e in rss.entries]
            want = [(f"Insects of the catalogue sample - Version {n}", f"{base}/versions/{n}/dwca.zip",
                     f"{base}/versions/{n}/eml.xml", True) for n in (3, 2, 1)]
            if items != want:
                fail(f"the RSS items are {items}, expected {want}")
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
    print("versions: the Atom and RSS feeds, each version's kept archive, BibTeX, RIS and CSL-JSON "
          "read as their readers read them")


if __name__ == "__main__":
    main()
