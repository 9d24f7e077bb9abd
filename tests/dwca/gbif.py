"""Publishing to GBIF without an IPT, as a curator would: the bundled sample
built with its example dataset file (snapshot/dataset.toml), served with its
photographs, its archive read by python-dwca-reader.

usage: gbif.py --bin target/release/catalogue

- `build` without a dataset file warns once, naming the missing keys; with
  `--strict` it fails (on a generated collection, which has no other
  warning) and passes with the file; `dataset init` writes a file `build`
  takes back.
- The archive: core and Simple Multimedia extension; every extension row's
  coreid an occurrence of the core; as many rows as the JSON lists specimen
  photographs; every identifier and reference served (200) by the catalogue
  started with --media-dir on the sample's files.
- eml.xml follows GBIF's profile by rule (eml_rules.py), for the whole archive
  and for the archive of a question, each with the coverage of exactly its
  rows; the licence, creators and contacts are the file's; /eml.xml is the
  whole archive's.
- The front page's footer names the title, the licence and the citation.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
import xml.etree.ElementTree as ET

import eml_rules
from dwca.darwincore.utils import qualname as qn
from dwca.read import DwCAReader

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(ROOT, "snapshot", "collection.json")
DATASET = os.path.join(ROOT, "snapshot", "dataset.toml")
MULTIMEDIA = "http://rs.gbif.org/terms/1.0/Multimedia"
DC = "http://purl.org/dc/terms/"
LICENCES = {
    "CC0-1.0": "http://creativecommons.org/publicdomain/zero/1.0/legalcode",
    "CC-BY-4.0": "http://creativecommons.org/licenses/by/4.0/legalcode",
    "CC-BY-NC-4.0": "http://creativecommons.org/licenses/by-nc/4.0/legalcode",
}

problems = []


def fail(message):
    problems.append(message)
    print("FAIL:", message)


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, accept="*/*"):
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def check_builds(binary, work):
    bare = os.path.join(work, "bare.bin")
    built = run(binary, "build", FIXTURE, "-o", bare)
    said = [l for l in built.stdout.splitlines() if "dataset's description lacks" in l]
    if built.returncode != 0 or len(said) != 1:
        fail(f"build without a dataset file: exit {built.returncode}, {len(said)} warnings about it")
    elif not said[0].startswith("warning: the dataset's description lacks title, description, license, "
                                "publisher, creators, contacts, metadata_providers"):
        fail(f"the warning does not name the keys: {said[0]}")
    # A generated collection without its photographs, which have no other warning.
    generated = os.path.join(work, "generated.json")
    run(binary, "generate", "--specimens", "200", "-o", generated)
    with open(generated, encoding="utf-8") as f:
        objects = [o for o in json.load(f) if not o["model"].startswith("images.")]
    for o in objects:
        if "featured_image" in o["fields"]:
            o["fields"]["featured_image"] = None
    with open(generated, "w", encoding="utf-8") as f:
        json.dump(objects, f)
    strict = os.path.join(work, "strict.bin")
    refused = run(binary, "build", generated, "-o", strict, "--strict")
    if refused.returncode == 0 or os.path.exists(strict):
        fail("build --strict without a dataset file wrote a snapshot")
    taken = run(binary, "build", generated, "-o", strict, "--strict", "--dataset-config", DATASET)
    if taken.returncode != 0:
        fail(f"build --strict with the example dataset file failed: {taken.stdout}{taken.stderr}")
    init = os.path.join(work, "init.json")
    made = run(binary, "dataset", "init", bare, "-o", init)
    if made.returncode != 0 or "orders: Coleoptera, Lepidoptera, Odonata" not in made.stdout:
        fail(f"dataset init: {made.stdout}{made.stderr}")
    again = run(binary, "build", FIXTURE, "-o", os.path.join(work, "init.bin"), "--dataset-config", init)
    if again.returncode != 0:
        fail(f"build does not take what dataset init wrote: {again.stdout}{again.stderr}")
    with open(init) as f:
        if json.load(f)["institution_code"] != "UMMZ":
            fail("dataset init did not guess the institution code from the USIs")
    sample = os.path.join(work, "sample.bin")
    built = run(binary, "build", FIXTURE, "-o", sample, "--dataset-config", DATASET)
    if built.returncode != 0 or "dataset's description lacks" in built.stdout:
        fail(f"build with the example dataset file: {built.stdout}{built.stderr}")
    return sample


def media_dir(work):
    """The sample's photographs and renditions as files (their bytes do not matter)."""
    root = os.path.join(work, "media")
    with open(FIXTURE, encoding="utf-8") as f:
        objects = json.load(f)
    for o in objects:
        if o["model"] in ("images.customimage", "images.customrendition"):
            path = os.path.join(root, o["fields"]["file"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as out:
                out.write(b"\xff\xd8\xff\xe0 not really a JPEG")
    return root


def rows_of(archive):
    with DwCAReader(archive) as dwca:
        if dwca.descriptor.core.type != qn("Occurrence"):
            fail(f"the core is {dwca.descriptor.core.type}")
        types = [e.type for e in dwca.descriptor.extensions]
        if types != [MULTIMEDIA]:
            fail(f"the extensions are {types}, not Simple Multimedia")
        core = {}
        media = []
        for row in dwca:
            core[row.id] = {k.rsplit("/", 1)[-1]: v for k, v in row.data.items()}
            for e in row.extensions:
                media.append((e.core_id, {k.rsplit("/", 1)[-1]: v for k, v in e.data.items()}))
    return core, media


def surname(party):
    """A party's surname as the dataset file's rule has it: `surname`, else
    the name's last word with the lowercase particles before it."""
    if party.get("surname"):
        return party["surname"]
    words = party["name"].split()
    first = len(words) - 1
    while first > 1 and words[first - 1] in ("van", "der", "den", "de", "von", "da", "du", "la", "le"):
        first -= 1
    return " ".join(words[first:])


def check_the_rules_can_fail(text):
    """The rules find what each of these breaks in a good document."""
    for broken, why in [
        (text.replace("<creator>", "<associatedParty>", 1).replace("</creator>", "</associatedParty>", 1), "a party out of order"),
        (text.replace("<maintenanceUpdateFrequency>asNeeded", "<maintenanceUpdateFrequency>sometimes"), "a frequency"),
        (text.replace("<westBoundingCoordinate>", "<westBoundingCoordinate>9"), "a box"),
        (text.replace("licenses/by/4.0", "licenses/by-sa/4.0"), "a licence GBIF does not take"),
        (text.replace("<pubDate>", "<pubDate>on "), "a date"),
    ]:
        if broken == text or not eml_rules.check(broken):
            fail(f"eml_rules.py does not see {why}")


def check_eml(text, what, rows):
    for p in eml_rules.check(text):
        fail(f"{what}: eml.xml: {p}")
    said = eml_rules.coverage(text)
    expected = eml_rules.expected_coverage(list(rows.values()))
    if said != expected:
        fail(f"{what}: coverage {said}, its rows cover {expected}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    binary = os.path.abspath(parser.parse_args().bin)
    with open(DATASET, "rb") as f:
        described = tomllib.load(f)
    with tempfile.TemporaryDirectory() as work:
        sample = check_builds(binary, work)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [binary, "serve", "--snapshot", sample, "--addr", f"127.0.0.1:{port}", "--no-watch",
             "--drain", "0", "--media-dir", media_dir(work)],
            stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    if get(f"{base}/healthz")[0] == 200:
                        break
                except OSError:
                    time.sleep(0.1)
            status, body = get(f"{base}/dwca.zip")
            archive = os.path.join(work, "whole.zip")
            with open(archive, "wb") as f:
                f.write(body)
            core, media = rows_of(archive)
            if len(core) != 8:
                fail(f"{len(core)} occurrences, not 8")
            strays = [c for c, _ in media if c not in core]
            if strays:
                fail(f"multimedia rows whose coreid is no occurrence: {strays}")
            listed = json.loads(get(f"{base}/api/v2/specimen-record-images/?limit=1000")[1])
            # Each photograph's `usi` is its specimen record's id (the service's name).
            photographs = sorted(str(i["usi"]) for i in listed["items"] if i.get("usi"))
            pages = sorted(m["references"].rstrip("/").rsplit("/", 1)[1] for _, m in media)
            if pages != photographs or not media:
                fail(f"multimedia rows of specimens {pages}, the JSON lists photographs of {photographs}")
            for coreid, m in media:
                record = json.loads(get(m["references"], "application/json")[1])
                if record.get("usi") != core[coreid]["catalogNumber"]:
                    fail(f"{coreid}'s photograph refers to {m['references']}, the record of {record.get('usi')}")
            for coreid, m in media:
                for term in ("identifier", "references"):
                    url = m[term]
                    if not url.startswith(base) or get(url)[0] != 200:
                        fail(f"{coreid} {term} {url} is not served")
                if m["license"] != LICENCES[described["license"]].removesuffix("legalcode"):
                    fail(f"{coreid} licence {m['license']}")
                if m["rightsHolder"] != described["publisher"] or m["type"] != "StillImage":
                    fail(f"{coreid}: {m}")
            with DwCAReader(archive) as dwca:
                eml = read(dwca.absolute_temporary_path("eml.xml"))
            check_eml(eml, "the whole archive", core)
            check_the_rules_can_fail(eml)
            if get(f"{base}/eml.xml")[1].decode("utf-8") != eml:
                fail("/eml.xml is not the whole archive's eml.xml")
            dataset = ET.fromstring(eml).find("dataset")
            urls = {u.get("url") for u in dataset.iter("ulink")}
            if urls != {LICENCES[described["license"]]}:
                fail(f"the licence is {urls}, the file's is {described['license']}")
            for tag, key in (("creator", "creators"), ("contact", "contacts"),
                             ("metadataProvider", "metadata_providers")):
                said = [(n.findtext("individualName/surName"), n.findtext("electronicMailAddress"))
                        for n in dataset.findall(tag)]
                wanted = [(surname(p), p.get("email")) for p in described[key]]
                if said != wanted:
                    fail(f"{tag}s {said}, the file's {wanted}")
            # A question's archive: its own rows, its own coverage.
            question = "search=Danaus"
            status, body = get(f"{base}/dwca.zip?{question}")
            part = os.path.join(work, "question.zip")
            with open(part, "wb") as f:
                f.write(body)
            rows, media = rows_of(part)
            listed = json.loads(get(f"{base}/api/v2/specimen-records/?{question}&limit=1000")[1])
            numbers = {r["catalogNumber"] for r in rows.values()}
            if status != 200 or {i["usi"] for i in listed["items"]} != numbers or len(rows) >= len(core):
                fail(f"the question's archive holds {sorted(numbers)}, the list {[i['usi'] for i in listed['items']]}")
            with DwCAReader(part) as dwca:
                eml = read(dwca.absolute_temporary_path("eml.xml"))
            check_eml(eml, f"the archive of {question}", rows)
            if any(c not in rows for c, _ in media):
                fail("the question's photographs are of records it does not hold")
            front = get(f"{base}/", "text/html")[1].decode("utf-8")
            for part in (described["title"], "Creative Commons Attribution (CC-BY) 4.0", "Cite as: van der Berg J, Alvarez R M ("):
                if part not in front:
                    fail(f"the front page does not say {part!r}")
        finally:
            server.terminate()
            server.wait()
    if problems:
        sys.exit(f"{len(problems)} problems")
    print("GBIF publishing: the archive, its photographs and its EML as GBIF takes them")


if __name__ == "__main__":
    main()
