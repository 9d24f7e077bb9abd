"""The archive's metadata against GBIF's and TDWG's own schemas, offline.

usage: eml_schema.py --bin target/release/catalogue [--schemas ../shared/schemas]

The bundled sample is built three times: with its example dataset file
(snapshot/dataset.toml), with the template `catalogue dataset init` writes
(left as written), and with no dataset file. Each is served, and from each
this takes /eml.xml, /dwca.zip and the archive of a question
(/dwca.zip?country=canada); the example one is also exported with
`catalogue export dwca` (no --public-url). Every eml.xml (EML 2.2.0) is
validated against GBIF's EML profile 1.3 (`1.3/eml.xsd`), every meta.xml
against the Darwin Core text schema (`dwc-text/tdwg_dwc_text.xsd`), with
`xmllint --noout --nonet --schema`. It also checks that
- xmllint refuses a document the profile does not allow (an element out of
  the profile's order, a frequency not of its vocabulary), so a pass means
  something;
- the example's introduction, getting started, acknowledgements, bibliography
  and specimen preservation method are where profile 1.3 puts them;
- the dataset's `unknown` update frequency is written as GBIF's `unkown`;
- without creators or metadata providers, the publishing organisation (or
  the institution) stands in, and `build` warns of each;
- the question's archive holds fewer records than the whole, and names its
  own download URL.
It fails when a document does not validate, and when it validated nothing.

The schemas are not in the repository: they are in the shared folder beside
it (`${CATALOGUE_SHARED:-../shared}/schemas`, as .ci/run finds it).
"""
import argparse
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(ROOT, "snapshot", "collection.json")
DATASET = os.path.join(ROOT, "snapshot", "dataset.toml")
PROFILES = ("1.3",)
QUESTION = "country=canada"

problems = []
validated = []


def fail(message):
    problems.append(message)
    print("FAIL:", message)


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def xmllint(schema, text, work):
    """xmllint's verdict on `text` against `schema`: (valid, what it said)."""
    path = os.path.join(work, "checked.xml")
    with open(path, "wb") as f:
        f.write(text)
    said = run("xmllint", "--noout", "--nonet", "--schema", schema, path)
    return said.returncode == 0, (said.stderr or said.stdout).strip()


def validate(schemas, kind, text, what, work):
    targets = ([(f"EML profile {p}", os.path.join(schemas, p, "eml.xsd")) for p in PROFILES]
               if kind == "eml" else
               [("the Darwin Core text schema", os.path.join(schemas, "dwc-text", "tdwg_dwc_text.xsd"))])
    for name, schema in targets:
        valid, said = xmllint(schema, text, work)
        if valid:
            validated.append((what, name))
        else:
            fail(f"{what} does not validate against {name}: {said}")


def members(archive, what):
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as z:
            return {name: z.read(name) for name in z.namelist()}
    except zipfile.BadZipFile:
        fail(f"{what} is not a zip")
        return {}


def rows(files):
    return max(0, len(files.get("occurrence.txt", b"").decode("utf-8").splitlines()) - 1)


def dataset_of(eml):
    return ET.fromstring(eml).find("dataset")


def check_the_schema_can_fail(schemas, eml, work):
    """xmllint refuses what the profile does not allow, in an otherwise valid document."""
    text = eml.decode("utf-8")
    for broken, why in [
        (text.replace("<title", "<gettingStarted><para>First.</para></gettingStarted><title", 1),
         "gettingStarted before the title"),
        (text.replace("<maintenanceUpdateFrequency>unkown<", "<maintenanceUpdateFrequency>sometimes<"),
         "a frequency not of its vocabulary"),
    ]:
        if broken == text:
            fail(f"cannot break the document with {why}: nothing to replace")
            continue
        for p in PROFILES:
            valid, _ = xmllint(os.path.join(schemas, p, "eml.xsd"), broken.encode("utf-8"), work)
            if valid:
                fail(f"EML profile {p} takes a document with {why}")


def serve_and_check(binary, snapshot, what, schemas, work, expect):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}", "--no-watch", "--drain", "0"],
        stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                if get(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        status, eml = get(f"{base}/eml.xml")
        if status != 200:
            fail(f"{what}: /eml.xml answered {status}")
            return None
        validate(schemas, "eml", eml, f"{what}: /eml.xml", work)
        status, whole = get(f"{base}/dwca.zip")
        files = members(whole, f"{what}: /dwca.zip") if status == 200 else {}
        if status != 200 or "eml.xml" not in files or "meta.xml" not in files:
            fail(f"{what}: /dwca.zip answered {status} with {sorted(files)}")
            return None
        if files["eml.xml"] != eml:
            fail(f"{what}: /eml.xml is not the archive's eml.xml")
        validate(schemas, "eml", files["eml.xml"], f"{what}: /dwca.zip's eml.xml", work)
        validate(schemas, "meta", files["meta.xml"], f"{what}: /dwca.zip's meta.xml", work)
        status, part = get(f"{base}/dwca.zip?{QUESTION}")
        asked = members(part, f"{what}: /dwca.zip?{QUESTION}") if status == 200 else {}
        if status != 200 or "eml.xml" not in asked or "meta.xml" not in asked:
            fail(f"{what}: /dwca.zip?{QUESTION} answered {status} with {sorted(asked)}")
            return eml
        if not 0 < rows(asked) < rows(files):
            fail(f"{what}: the question's archive holds {rows(asked)} records, the whole {rows(files)}")
        validate(schemas, "eml", asked["eml.xml"], f"{what}: /dwca.zip?{QUESTION}'s eml.xml", work)
        validate(schemas, "meta", asked["meta.xml"], f"{what}: /dwca.zip?{QUESTION}'s meta.xml", work)
        urls = [u.text for u in ET.fromstring(asked["eml.xml"]).iter("url") if u.get("function") == "download"]
        if urls != [f"{base}/dwca.zip?{QUESTION}"]:
            fail(f"{what}: the question's eml.xml names its download as {urls}")
        check_parties(dataset_of(eml), what, expect)
        return eml
    finally:
        server.terminate()
        server.wait()


def check_parties(dataset, what, expect):
    """Who each required party is, and the update frequency as GBIF spells it."""
    for tag in ("creator", "metadataProvider", "contact"):
        said = [n.findtext("individualName/surName") or n.findtext("organizationName") for n in dataset.findall(tag)]
        # None: whoever stands in, one party with a name.
        if said != expect[tag] and not (expect[tag] is None and len(said) == 1 and said[0]):
            fail(f"{what}: {tag} {said}, not {expect[tag]}")
    frequency = dataset.findtext("maintenance/maintenanceUpdateFrequency")
    if expect["frequency"] is not None and frequency != expect["frequency"]:
        fail(f"{what}: maintenanceUpdateFrequency {frequency!r}, not {expect['frequency']!r}")


def check_every_key(eml):
    """The example dataset file's keys, each where GBIF's profile puts it."""
    root = ET.fromstring(eml)
    dataset = dataset_of(eml)
    said = {
        "packageId": root.get("packageId"),
        "associatedParty role": [p.findtext("role") for p in dataset.findall("associatedParty")],
        "creator given names": [c.findtext("individualName/givenName") for c in dataset.findall("creator")],
        "position": dataset.findtext("creator[2]/positionName"),
        "city": dataset.findtext("creator[2]/address/city"),
        "phone": dataset.findtext("creator[2]/phone"),
        "onlineUrl": dataset.findtext("creator[2]/onlineUrl"),
        "creator children": [c.tag for c in dataset.find("creator[2]")],
        "project id": dataset.find("project").get("id"),
        "project title": dataset.findtext("project/title"),
        "personnel": (dataset.findtext("project/personnel/individualName/surName"),
                      dataset.findtext("project/personnel/role")),
        "funding": dataset.findtext("project/funding/para"),
        "study area": dataset.findtext("project/studyAreaDescription/descriptor/descriptorValue"),
        "study extent": dataset.findtext("methods/sampling/studyExtent/description/para"),
        "sampling": dataset.findtext("methods/sampling/samplingDescription/para"),
        "quality control": dataset.findtext("methods/qualityControl/description/para"),
        "logo": root.findtext("additionalMetadata/metadata/gbif/resourceLogoUrl"),
        "alternateIdentifiers": [a.text for a in dataset.findall("alternateIdentifier")][:1],
        "citation identifier": root.find("additionalMetadata/metadata/gbif/citation").get("identifier"),
        "citation": root.findtext("additionalMetadata/metadata/gbif/citation")[:29],
        "introduction": (dataset.findtext("introduction/para") or "")[:26],
        "gettingStarted": (dataset.findtext("gettingStarted/para") or "")[:20],
        "acknowledgements": dataset.findtext("acknowledgements/para"),
        "bibliography": [c.text[:20] for c in root.findall("additionalMetadata/metadata/gbif/bibliography/citation")],
        "specimenPreservationMethod": root.findtext("additionalMetadata/metadata/gbif/specimenPreservationMethod"),
    }
    expected = {
        "packageId": "6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c/v1.0",
        "associatedParty role": ["publisher", "curator"],
        "creator given names": ["Jan", "Rosa M."],
        "position": "Collections Manager",
        "city": "Ann Arbor",
        "phone": "+1 734 555 0100",
        "onlineUrl": "https://catalogue.example.org/people/alvarez",
        "creator children": ["individualName", "organizationName", "positionName", "address", "phone",
                             "electronicMailAddress", "onlineUrl", "userId"],
        "project id": "GLIS-2020",
        "project title": "Great Lakes insect survey",
        "personnel": ("van der Berg", "principalInvestigator"),
        "funding": "The Catalogue Sample Foundation, grant 42.",
        "study area": "The shores of Lake Huron and Lake Erie.",
        "study extent": "Michigan and Ontario, 1950 to 2020.",
        "sampling": "Light traps and hand nets on collecting trips.",
        "quality control": "Each label read twice; places checked against the country's boundaries; "
                           "names against the catalogue's checklist.",
        "logo": "https://catalogue.example.org/static/logo.png",
        "alternateIdentifiers": ["https://doi.org/10.15468/cat-sample"],
        "citation identifier": "https://doi.org/10.15468/cat-sample.v1",
        "citation": "van der Berg J, Alvarez R M (",
        "introduction": "The insects of a made-up m",
        "gettingStarted": "Download the archive",
        "acknowledgements": "The curators who read every label twice.",
        "bibliography": ["Alvarez R M, van der"],
        "specimenPreservationMethod": "pinned",
    }
    for key, value in expected.items():
        if said[key] != value:
            fail(f"the example dataset file: {key} is {said[key]!r}, not {value!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    shared = os.environ.get("CATALOGUE_SHARED", os.path.join(ROOT, "..", "shared"))
    parser.add_argument("--schemas", default=os.path.join(shared, "schemas"))
    args = parser.parse_args()
    binary = os.path.abspath(args.bin)
    schemas = os.path.abspath(args.schemas)
    if shutil.which("xmllint") is None:
        sys.exit("eml_schema.py: xmllint is missing (apt-get install libxml2-utils)")
    for p in PROFILES:
        if not os.path.exists(os.path.join(schemas, p, "eml.xsd")):
            sys.exit(f"eml_schema.py: {schemas}/{p}/eml.xsd is missing: give --schemas or CATALOGUE_SHARED")
    with tempfile.TemporaryDirectory() as work:
        bare = os.path.join(work, "bare.bin")
        built = run(binary, "build", FIXTURE, "-o", bare, "--allow-no-licence")
        if built.returncode != 0:
            sys.exit(f"build without a dataset file: {built.stdout}{built.stderr}")
        for key in ("creators", "metadata_providers", "contacts"):
            if f"{key}: eml.xml names the publishing organisation as its" not in built.stdout:
                fail(f"build without a dataset file does not warn that the organisation stands for {key}")
        template = os.path.join(work, "template.toml")
        made = run(binary, "dataset", "init", bare, "-o", template)
        if made.returncode != 0:
            sys.exit(f"dataset init: {made.stdout}{made.stderr}")
        from_template = os.path.join(work, "template.bin")
        built = run(binary, "build", FIXTURE, "-o", from_template, "--dataset-config", template,
                    "--allow-no-licence")
        if built.returncode != 0:
            sys.exit(f"build with the template: {built.stdout}{built.stderr}")
        example = os.path.join(work, "example.bin")
        built = run(binary, "build", FIXTURE, "-o", example, "--dataset-config", DATASET)
        if built.returncode != 0:
            sys.exit(f"build with the example dataset file: {built.stdout}{built.stderr}")
        # The template (its keys are another part's to change) names no one:
        # whoever stands in, one party. With no file, there is no one to name.
        nobody = "Publisher not stated"
        cases = [
            ("the example dataset file", example,
             {"creator": ["van der Berg", "Alvarez"], "metadataProvider": ["Alvarez"], "contact": ["Brooks"], "frequency": "asNeeded"}),
            ("the template dataset init writes", from_template,
             {"creator": None, "metadataProvider": None, "contact": None, "frequency": None}),
            ("no dataset file", bare,
             {"creator": [nobody], "metadataProvider": [nobody], "contact": [nobody], "frequency": "unkown"}),
        ]
        emls = {}
        for what, snapshot, expect in cases:
            emls[what] = serve_and_check(binary, snapshot, what, schemas, work, expect)
        if emls["the example dataset file"]:
            check_every_key(emls["the example dataset file"])
        if emls["no dataset file"]:
            check_the_schema_can_fail(schemas, emls["no dataset file"], work)
        exported = os.path.join(work, "exported.zip")
        run(binary, "export", "dwca", example, "-o", exported)
        with open(exported, "rb") as f:
            files = members(f.read(), "the exported archive")
        for name, kind in (("eml.xml", "eml"), ("meta.xml", "meta")):
            if name in files:
                validate(schemas, kind, files[name], f"export dwca's {name}", work)
            else:
                fail(f"export dwca wrote no {name}")
    if not validated:
        fail("nothing was validated")
    if problems:
        sys.exit(f"{len(problems)} problems ({len(validated)} documents valid)")
    print(f"EML and meta.xml against the schemas: {len(validated)} validations passed "
          f"(EML profile {' and '.join(PROFILES)}, the Darwin Core text schema)")


if __name__ == "__main__":
    main()
