"""Reads a running server's downloads as their users do, and compares them with
the JSON list of the same question, row by row.

usage: check.py BASE_URL

For each question below: the CSV read with Python's `csv` module and with
`pandas.read_csv` (which must agree cell for cell), every row checked against
the JSON item of the same position by the CSV rule of docs/api.md; the NDJSON
read line by line, each line the JSON item; the specimen list's `columns=dwc`
rows the same specimens in the same order; and the archive of a specimen
question (`/dwca.zip?...`), read by python-dwca-reader, holding exactly the
specimens the list selects, its eml.xml naming the question, following GBIF's
profile by rule and covering exactly its rows (tests/dwca/eml_rules.py).
"""
import csv
import html
import io
import json
import re
import sys
import urllib.parse
import urllib.request
import zipfile

import os

import pandas
from dwca.read import DwCAReader

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "dwca"))
import eml_rules  # noqa: E402  (tests/dwca/eml_rules.py)

BASE = sys.argv[1].rstrip("/")

# Questions of the specimen list; each is also asked of the archive.
SPECIMEN_QUESTIONS = [
    "",
    "family=idae&sort=-year",
    "search=a&fields=_,id,usi,taxon,collector,habitat,notes,year,labeled",
    "country=a&sex=female",
    "year=2019",
]
# Other lists, plain and nested.
LIST_QUESTIONS = [
    ("orders", ""),
    ("species", "sort=-name"),
    ("nested-species", ""),
    ("localities", ""),
    ("people", "fields=_,id,full_name"),
    ("collecting-trips", ""),
    ("species-pages", ""),
]
NAMING = ["binomial", "trinomial", "full_name", "usi", "title", "name", "filter_spec"]
BLOCK = {"address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
         "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
         "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th",
         "tr", "ul"}
TAG = re.compile(r"<([A-Za-z/!?])[^>]*>")

failures = []


def fail(what):
    failures.append(what)
    if len(failures) < 20:
        print("FAIL", what)


def get(path):
    with urllib.request.urlopen(BASE + path, timeout=600) as r:
        return r.read(), r.headers


def plain_text(s):
    def tag(m):
        name = re.match(r"/?([A-Za-z0-9]*)", m.group(0)[1:]).group(1).lower()
        return " " if name in BLOCK else ""
    return " ".join(html.unescape(TAG.sub(tag, s)).split())


def is_rich(s):
    for i, c in enumerate(s):
        if c == "<" and i + 1 < len(s) and (s[i + 1].isascii() and s[i + 1].isalpha() or s[i + 1] == "/") \
                and ">" in s[i + 1:]:
            return True
    return False


def name_of(record):
    for key in NAMING:
        v = record.get(key)
        if isinstance(v, str) and v:
            return v
    return ""


def scalar(v):
    if v is None:
        return ""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return plain_text(v) if is_rich(v) else v
    return str(v)


NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def as_written(cell):
    """A cell as the CSV rule writes it: text a spreadsheet would run as a
    formula (beginning =, +, -, @, a tab or a carriage return, and not a plain
    number) after a single quote (docs/api.md)."""
    if cell and cell[0] in "=+-@\t\r" and not NUMBER.match(cell):
        return "'" + cell
    return cell


def expected_cells(item, header):
    """The cells a row must hold, by column, from the JSON item, as the CSV
    rule writes them."""
    return {column: None if cell is None else as_written(cell)
            for column, cell in json_cells(item, header).items()}


def json_cells(item, header):
    """The cells a row holds, by column, as the JSON item says them."""
    out = {}
    for column in header:
        for suffix in ("_id", "_name"):
            base = column[: -len(suffix)]
            if column.endswith(suffix) and base in item and not base.endswith(("_id",)) \
                    and (isinstance(item[base], (dict, list)) or item[base] is None
                         or (isinstance(item[base], int) and base + "_name" in header)):
                v = item[base]
                if isinstance(v, dict):
                    out[column] = str(v["id"]) if suffix == "_id" else name_of(v)
                elif isinstance(v, list) and all(isinstance(x, dict) for x in v):
                    out[column] = " | ".join(str(x["id"]) if suffix == "_id" else name_of(x) for x in v)
                elif isinstance(v, list):
                    # Ids only in the JSON: their names are not in the item.
                    out[column] = " | ".join(map(str, v)) if suffix == "_id" else None
                elif v is None:
                    out[column] = ""
                else:
                    out[column] = str(v) if suffix == "_id" else None
                break
        else:
            out[column] = scalar(item.get(column))
    return out


def check_list(segment, query, what):
    q = "&" + query if query else ""
    body, _ = get(f"/api/v2/{segment}/?limit=100000000{q}")
    items = json.loads(body)["items"]
    # NDJSON, line by line.
    body, headers = get(f"/api/v2/{segment}/?format=ndjson{q}")
    lines = body.decode("utf-8").split("\n")
    if lines[-1] != "":
        fail(f"{what}: the NDJSON does not end with a newline")
    lines = lines[:-1]
    if len(lines) != len(items):
        fail(f"{what}: {len(lines)} NDJSON lines, {len(items)} items")
    for k, (line, item) in enumerate(zip(lines, items)):
        if json.loads(line) != item:
            fail(f"{what}: NDJSON line {k} is not the item")
    # CSV, with the csv module and with pandas.
    body, headers = get(f"/api/v2/{segment}/?format=csv{q}")
    if not headers["Content-Disposition"].startswith(f'inline; filename="{segment}-'):
        fail(f"{what}: Content-Disposition {headers['Content-Disposition']}")
    text = body.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header, rows = rows[0], rows[1:]
    frame = pandas.read_csv(io.BytesIO(body), dtype=str, keep_default_na=False, encoding="utf-8")
    if list(frame.columns) != header:
        fail(f"{what}: pandas reads other columns")
    if frame.values.tolist() != rows:
        fail(f"{what}: pandas and csv read other cells")
    if len(rows) != len(items):
        fail(f"{what}: {len(rows)} CSV rows, {len(items)} items")
    checked = 0
    for k, (row, item) in enumerate(zip(rows, items)):
        want = expected_cells(item, header)
        for column, cell in zip(header, row):
            if want[column] is not None and want[column] != cell:
                fail(f"{what}: row {k} ({item.get('id')}) {column}: {cell!r}, the JSON says {want[column]!r}")
            checked += 1
    print(f"{what}: {len(items)} items, {checked} CSV cells and {len(lines)} NDJSON lines as the JSON says")
    return items


def occurrence_id(row):
    """The occurrenceID of a row by the default rule: Darwin Core's catalogue
    URN of the dataset's codes, or the catalogue number without an
    institution code."""
    if not row["institutionCode"]:
        return row["catalogNumber"]
    return f"urn:catalog:{row['institutionCode']}:{row['collectionCode']}:{row['catalogNumber']}"


def check_specimens(query):
    what = f"specimen-records?{query}"
    items = check_list("specimen-records", query, what)
    q = "&" + query if query and "fields=" not in query else ""
    if "fields=" in query:
        q = "&" + "&".join(p for p in query.split("&") if not p.startswith("fields="))
    # The Darwin Core columns: the same specimens, in the same order.
    body, _ = get(f"/api/v2/specimen-records/?format=csv&columns=dwc{q}")
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8"), newline="")))
    frame = pandas.read_csv(io.BytesIO(body), dtype=str, keep_default_na=False)
    if [r["catalogNumber"] for r in rows] != [i["usi"] for i in items] \
            or list(frame["catalogNumber"]) != [i["usi"] for i in items]:
        fail(f"{what}: the columns=dwc rows are other specimens")
    for r in rows:
        if r["occurrenceID"] != occurrence_id(r):
            fail(f"{what}: occurrenceID {r['occurrenceID']!r} is not the rule's for {r['catalogNumber']!r}")
            break
    # The archive of the question (its filters and search), read by python-dwca-reader.
    question = "&".join(p for p in q.lstrip("&").split("&") if p and not p.startswith("sort="))
    body, _ = get(f"/dwca.zip?{question}" if question else "/dwca.zip")
    listed, _ = get(f"/api/v2/specimen-records/?limit=100000000&fields=_,usi&{question}")
    want = sorted(i["usi"] for i in json.loads(listed)["items"])
    path = "/tmp/downloads-check.zip"
    with open(path, "wb") as f:
        f.write(body)
    with DwCAReader(path) as archive:
        rows = {row.id: {k.rsplit("/", 1)[-1]: v for k, v in row.data.items()} for row in archive}
        rows = {r["catalogNumber"]: r for r in rows.values()}
        got = sorted(rows)
        eml = zipfile.ZipFile(path).read("eml.xml").decode("utf-8")
    if got != want:
        fail(f"{what}: the archive holds {len(got)} specimens, the list {len(want)}")
    # Its eml.xml follows GBIF's profile and covers exactly its rows.
    for problem in eml_rules.check(eml):
        fail(f"{what}: eml.xml: {problem}")
    covered, expected = eml_rules.coverage(eml), eml_rules.expected_coverage(list(rows.values()))
    if covered != expected:
        fail(f"{what}: eml.xml's coverage {covered}, its rows cover {expected}")
    if question:
        said = html.escape(urllib.parse.urlencode(urllib.parse.parse_qsl(question)), quote=False)
        if f"the filter {said} selects" not in eml and f"the filter {question.replace('&', '&amp;')} selects" not in eml:
            fail(f"{what}: eml.xml does not name the question: {eml}")
    print(f"{what}: the archive holds exactly the {len(want)} specimens the list selects")


for query in SPECIMEN_QUESTIONS:
    check_specimens(query)
for segment, query in LIST_QUESTIONS:
    check_list(segment, query, f"{segment}?{query}")

if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("downloads: every row as the JSON says")
