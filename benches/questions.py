"""Writes a wrk Lua script that asks one kind of question, drawn from hundreds of
distinct requests (fragments, words, fields, directions and offsets), so that
nothing can be answered from a cache of answers: what benches/load.sh's
`questions` mode measures.

    usage: python3 benches/questions.py BASE_URL KIND OUT.lua
    KIND:  filter | search | sort | facet
           | issue (quality flags: one, two, or none, as /api/v2/quality/ counts them)
           | gbif-polygon | gbif-years | gbif-families (GBIF's occurrence search:
             a rectangle of a tenth of the points' extent either way round, a
             range of 1 to 19 years, an OR of two families)
           | suggest (/api/v2/suggest/: 3,000 distinct texts, each a start of 3
             or more characters of a name of the collection, or a name with one
             typo (two from 8 characters): a letter dropped, doubled, changed
             or swapped)

Words, fields and the collection's size are read from the running server (its
OpenAPI document and a sample of its specimens), so the requests fit whatever
collection it serves. Seeded: the same collection gives the same requests.
"""
import collections
import json
import random
import re
import sys
import urllib.parse
import urllib.request

FRAGMENTS = [
    "idae", "inae", "ini", "a", "e", "i", "o", "u", "an", "er", "in", "on", "ar", "ia",
    "us", "es", "is", "ra", "ta", "na", "la", "ma", "li", "ri", "ni", "ph", "ch", "th",
    "op", "ol", "al", "el", "il", "ul", "em", "en", "ac", "ec", "ic", "oc",
]
COUNT = 600


def get(base, path):
    with urllib.request.urlopen(base + path) as r:
        return json.load(r)


def list_parameter(doc, name):
    """The pattern or enum of a specimen-records parameter, from the OpenAPI document."""
    for p in doc["paths"]["/api/v2/specimen-records/"]["get"]["parameters"]:
        if p.get("name") == name:
            return p["schema"]
    raise SystemExit(f"no {name} parameter in the OpenAPI document")


def fields_in(schema):
    """Field names a `sort`/`facet` pattern allows: its first group of names."""
    return re.search(r"\(([A-Za-z_|]+)\)", schema["pattern"]).group(1).split("|")


def main(base, kind, out):
    rng = random.Random(1)
    total = get(base, "/api/v2/specimen-records/?limit=0")["meta"]["total_count"]
    deep = min(50_000, total // 2)
    paths = []
    if kind == "filter":
        for _ in range(COUNT):
            paths.append(f"/api/v2/specimen-records/?family={rng.choice(FRAGMENTS)}"
                         f"&offset={rng.randrange(0, 1000)}&limit=20")
    elif kind == "search":
        sample = get(base, "/api/v2/specimen-records/?limit=2000")["items"]
        words = collections.Counter()
        for item in sample:
            for field in ("habitat", "notes", "method", "weather", "collectors", "full_date"):
                words.update(w.lower() for w in re.findall(r"[A-Za-z]{4,}", str(item.get(field) or "")))
        common = [w for w, _ in words.most_common(60)]
        for _ in range(COUNT):
            paths.append(f"/api/v2/specimen-records/?search={rng.choice(common)}"
                         f"&offset={rng.randrange(0, 200)}&limit=20")
    elif kind in ("sort", "facet"):
        doc = get(base, "/api/v2/openapi.json")
        fields = fields_in(list_parameter(doc, kind))
        if not fields:
            raise SystemExit(f"no {kind} fields found in the OpenAPI document")
        for _ in range(COUNT):
            field = rng.choice(fields)
            if kind == "sort":
                sign = rng.choice(["", "-"])
                paths.append(f"/api/v2/specimen-records/?sort={sign}{field}"
                             f"&offset={rng.randrange(0, deep + 1)}&limit=20")
            else:
                paths.append(f"/api/v2/specimen-records/?facet={field}"
                             f"&offset={rng.randrange(0, 1000)}&limit=20")
    elif kind == "issue":
        # The quality flags the collection has (one, two of them, or none),
        # each with its own page of records.
        held = [f["name"] for f in get(base, "/api/v2/quality/")["flags"] if f["count"] > 0] + ["none"]
        for _ in range(COUNT):
            flags = rng.sample(held, rng.choice([1, 1, 2]) if len(held) > 1 else 1)
            asked = "&".join(f"issue={f}" for f in flags)
            paths.append(f"/api/v2/specimen-records/?{asked}"
                         f"&offset={rng.randrange(0, 1000)}&limit=20")
    elif kind.startswith("gbif-"):
        # GBIF's occurrence search; one request first, so the search columns are
        # built before the clock starts.
        search = "/gbif/v1/occurrence/search"
        first = get(base, f"{search}?limit=300&hasCoordinate=true")
        points = [(o["decimalLongitude"], o["decimalLatitude"]) for o in first["results"]]
        x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
        y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
        families = sorted({o["family"] for o in get(base, f"{search}?limit=300")["results"] if "family" in o})
        for _ in range(COUNT):
            page = f"offset={rng.randrange(0, 200)}&limit=20"
            if kind == "gbif-polygon":
                # A rectangle of a tenth of the points' extent, anywhere in it,
                # given clockwise or counter-clockwise.
                w, h = (x1 - x0) * 0.316, (y1 - y0) * 0.316
                a, b = x0 + rng.random() * (x1 - x0 - w), y0 + rng.random() * (y1 - y0 - h)
                ring = [(a, b), (a + w, b), (a + w, b + h), (a, b + h), (a, b)]
                if rng.random() < 0.5:
                    ring.reverse()
                wkt = "POLYGON((" + ",".join(f"{x:.4f} {y:.4f}" for x, y in ring) + "))"
                paths.append(f"{search}?geometry={urllib.parse.quote(wkt)}&{page}")
            elif kind == "gbif-years":
                start = rng.randrange(1950, 2020)
                paths.append(f"{search}?year={start},{start + rng.randrange(1, 20)}&{page}")
            elif kind == "gbif-families":
                a, b = rng.sample(families, 2)
                paths.append(f"{search}?family={urllib.parse.quote(a)}&family={urllib.parse.quote(b)}&{page}")
            else:
                raise SystemExit(f"unknown kind {kind!r}")
    elif kind == "suggest":
        names = set()
        for segment, field in [("genera", "name"), ("species", "binomial"), ("species", "common_name"),
                               ("localities", "name"), ("localities", "town"), ("counties", "name"),
                               ("states", "name"), ("people", "full_name"), ("families", "name")]:
            for item in get(base, f"/api/v2/{segment}/?limit=100000")["items"]:
                if item.get(field):
                    names.add(item[field])
        names = sorted(names)
        texts = set()
        while len(texts) < 3000:
            name = rng.choice(names)
            if rng.random() < 0.5 and len(name) > 3:
                texts.add(name[:rng.randrange(3, len(name))])
                continue
            typos = 2 if len(name) >= 8 and rng.random() < 0.5 else 1
            for _ in range(typos):
                at, op = rng.randrange(len(name)), rng.randrange(4)
                name = (name[:at] + name[at + 1:] if op == 0 else
                        name[:at] + name[at] + name[at:] if op == 1 else
                        name[:at] + rng.choice("aeiourstln") + name[at + 1:] if op == 2 else
                        name[:at] + name[at + 1:at + 2] + name[at] + name[at + 2:])
            texts.add(name)
        paths = [f"/api/v2/suggest/?q={urllib.parse.quote(t)}" for t in sorted(texts)]
        rng.shuffle(paths)
    else:
        raise SystemExit(f"unknown kind {kind!r}")
    lua = ["-- Generated by benches/questions.py: " + kind, "local paths = {"]
    lua += [f"  {json.dumps(p)}," for p in paths]
    lua += ["}",
            "local n = 0",
            "function setup(thread) thread:set('start', math.random(#paths)) end",
            "function init(args) n = start or 0 end",
            "function request()",
            "  n = n + 1",
            "  return wrk.format('GET', paths[(n % #paths) + 1])",
            "end"]
    open(out, "w").write("\n".join(lua) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
