"""pygbif, GBIF's own Python client, pointed at catalogue by changing only its
base URL: searches with a range, an OR of two families, a polygon, facets with
facetMincount, paging across the end, `count` and `get` of one key, each compared with
the same question asked of the JSON list (/api/v2/specimen-records/): the same
specimens and the same counts. Runs on the bundled sample and on a generated
collection.

    python tests/gbif/check.py --bin target/release/catalogue
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import warnings

from pygbif import occurrences, species

LIST = "/api/v2/specimen-records/"


def fail(message):
    raise SystemExit(f"gbif check: {message}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=60) as r:
        return json.load(r)


def listed(base, query):
    """The ids the JSON list gives for a question, all of them."""
    body = get(base, f"{LIST}?{query}&limit=100000&fields=_,id")
    return {i["id"] for i in body["items"]}


def searched(**kwargs):
    """Every key pygbif's search gives, paging as a client does (300 a page)."""
    keys, offset = [], 0
    while True:
        page = occurrences.search(limit=300, offset=offset, **kwargs)
        keys += [o["key"] for o in page["results"]]
        if page["endOfRecords"]:
            return page["count"], keys
        offset += 300


def same(what, got, want):
    if got != want:
        fail(f"{what}: got {sorted(got)[:20]}... ({len(got)}), the JSON list gives {sorted(want)[:20]}... ({len(want)})")
    if not want:
        fail(f"{what}: the question finds nothing, which proves little")
    print(f"  {what}: {len(want)} specimens, as the JSON list")


def inside(ring, x, y):
    """Even-odd point in a ring of (lon, lat)."""
    hit = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:]):
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            hit = not hit
    return hit


def check(base):
    every = get(base, f"{LIST}?limit=100000")["items"]
    total = len(every)

    # A range: the union of the years the JSON list is asked for one by one.
    years = sorted({i["year"] for i in every if i.get("year")})
    lo, hi = years[len(years) // 4], years[3 * len(years) // 4]
    count, keys = searched(year=f"{lo},{hi}")
    want = set().union(*(listed(base, f"year={y}") for y in years if lo <= y <= hi))
    same(f"year={lo},{hi}", set(keys), want)
    if count != len(keys):
        fail(f"year range: count {count} but {len(keys)} results")

    # An OR of two families (pygbif sends a list as the parameter repeated).
    families = sorted({i["family"]["name"] for i in every if i.get("family")},
                      key=lambda f: -sum(1 for i in every if (i.get("family") or {}).get("name") == f))
    a, b = families[0], families[1]
    count, keys = searched(family=[a, b.upper()])
    want = {i["id"] for i in every if (i.get("family") or {}).get("name") in (a, b)}
    same(f"family={a} OR {b}", set(keys), want)

    # A polygon around part of the points, given clockwise: the area it draws.
    geo = get(base, f"{LIST}?format=geojson&limit=100000")
    points = [(f["geometry"]["coordinates"], f["properties"]["id"]) for f in geo["features"] if f.get("geometry")]
    xs = sorted(p[0][0] for p in points)
    ys = sorted(p[0][1] for p in points)
    x0, x1 = xs[len(xs) // 5], xs[4 * len(xs) // 5]
    y0, y1 = ys[len(ys) // 5], ys[4 * len(ys) // 5]
    ring = [(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)]
    wkt = "POLYGON((" + ", ".join(f"{x} {y}" for x, y in ring) + "))"
    page = occurrences.search(geometry=wkt, limit=300)
    count, keys = searched(geometry=wkt)
    want = {i for (x, y), i in points if inside(ring, x, y)}
    same("a clockwise polygon", set(keys), want)
    if not any("clockwise" in n for n in page.get("notes", [])):
        fail(f"a clockwise polygon is not noted: {page.get('notes')}")

    # occurrences.count, whose module keeps its own base URL: the whole, a
    # year and the georeferenced records, against the JSON list.
    counted = occurrences.count()
    if counted != total:
        fail(f"occurrences.count(): {counted} of {total}")
    counted = occurrences.count(year=lo)
    if counted != len(listed(base, f"year={lo}")):
        fail(f"occurrences.count(year={lo}): {counted} against {len(listed(base, f'year={lo}'))}")
    counted = occurrences.count(isGeoreferenced=True)
    if counted != len(points):
        fail(f"occurrences.count(isGeoreferenced=True): {counted} against {len(points)} points")
    print(f"  count: {total} in all, year={lo}, {len(points)} georeferenced")

    # Facets with facetMincount: the JSON list's facet counts, those at least 2.
    page = occurrences.search(facet=["sex", "country"], facetMincount=2, limit=0)
    if page["results"] or page["count"] != total:
        fail(f"limit=0: {len(page['results'])} results, count {page['count']} of {total}")
    facets = {f["field"]: {c["name"]: c["count"] for c in f["counts"]} for f in page["facets"]}
    meta = get(base, f"{LIST}?facet=sex&limit=0")["meta"]["facets"]["sex"]
    want = {}
    for entry in meta:
        value, n = (entry["value"], entry["count"]) if isinstance(entry, dict) else entry
        if value and n >= 2:
            want[str(value)] = n
    if facets.get("SEX") != dict(list(want.items())[:10]) and facets.get("SEX") != want:
        fail(f"facet sex: {facets.get('SEX')} against the list's {want}")
    print(f"  facet sex, facetMincount=2: {facets['SEX']}")
    if "COUNTRY" not in facets:
        fail(f"facet country missing: {page['facets']}")

    # Paging across the end.
    page = occurrences.search(offset=total - 2, limit=5)
    ids = sorted(i["id"] for i in every)
    if [o["key"] for o in page["results"]] != ids[-2:] or not page["endOfRecords"]:
        fail(f"offset {total - 2}: {[o['key'] for o in page['results']]}, endOfRecords {page['endOfRecords']}")
    print(f"  offset {total - 2}, limit 5: the last 2 keys, endOfRecords")

    # One key: the record the JSON list gives.
    record = every[len(every) // 2]
    o = occurrences.get(key=record["id"])
    if o["key"] != record["id"] or o["catalogNumber"] != record["usi"]:
        fail(f"get {record['id']}: {o}")
    if record.get("year") and o.get("year") != record["year"]:
        fail(f"get {record['id']}: year {o.get('year')} against {record['year']}")
    print(f"  get({record['id']}): {o['catalogNumber']}")

    # Name suggestions: each species found by its binomial, by its start, and
    # with a letter dropped, as pygbif's name_suggest asks (limit=100).
    binomials = sorted({i["species"]["binomial"] for i in every if i.get("species")})
    for name in binomials[:: max(1, len(binomials) // 25)]:
        for typed in (name, name[: len(name) - 3], name[:2] + name[3:]):
            found = [u["canonicalName"] for u in species.name_suggest(q=typed)]
            if name not in found[:10]:
                fail(f"name_suggest({typed!r}) does not suggest {name!r} in its first 10: {found[:10]}")
        usage = species.name_suggest(q=name, rank="species", limit=1)
        if [u["rank"] for u in usage] != ["SPECIES"] or usage[0]["canonicalName"] != name:
            fail(f"name_suggest({name!r}, rank='species'): {usage}")
    print(f"  name_suggest: {len(binomials[:: max(1, len(binomials) // 25)])} species by name, start and typo")


def serve(binary, snapshot, work):
    port = free_port()
    log = open(os.path.join(work, f"server-{port}.log"), "w")
    proc = subprocess.Popen(
        [binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}", "--no-watch", "--drain", "0"],
        stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=2)
            return proc, base
        except OSError:
            time.sleep(0.1)
    proc.kill()
    fail(f"the server on {snapshot} did not start")


def point_pygbif_at(base):
    """The one change a GBIF client needs: its base URL, which each pygbif
    module keeps its own copy of (docs/gbif.md's recipe, word for word)."""
    for module in list(sys.modules.values()):
        if module.__name__.startswith("pygbif") and hasattr(module, "gbif_baseurl"):
            module.gbif_baseurl = base + "/gbif/v1/"
    for name in ("pygbif.occurrences.search", "pygbif.occurrences.count", "pygbif.occurrences.get",
                 "pygbif.species.name_suggest"):
        if sys.modules[name].gbif_baseurl != base + "/gbif/v1/":
            fail(f"{name} still asks {sys.modules[name].gbif_baseurl}")


def main():
    # name_suggest warns that GBIF's backbone is outdated: not this server's.
    warnings.simplefilter("ignore", DeprecationWarning)
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp()
    generated = os.path.join(work, "generated.bin")
    subprocess.run([args.bin, "generate", "--specimens", "2500", "--seed", "3", "-o", generated + ".json"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([args.bin, "build", generated + ".json", "-o", generated],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for name, snapshot in [("the bundled sample", "snapshot/collection.bin"), ("2,500 generated specimens", generated)]:
        proc, base = serve(args.bin, snapshot, work)
        try:
            print(f"pygbif against {name}:")
            point_pygbif_at(base)
            check(base)
        finally:
            proc.kill()
    print("gbif check: pygbif's answers equal the JSON list's")


if __name__ == "__main__":
    main()
