"""Asks two builds of catalogue the same requests and compares the answers byte for
byte: what a restructuring or a speed-up must not change.

    usage: python3 benches/compare.py OLD_BINARY NEW_BINARY SNAPSHOT [PATHS_FILE ...]

Both binaries serve SNAPSHOT (on two free loopback ports, no watcher). The requests
are the paths in each PATHS_FILE (one a line, as the conformance corpus's
cases.txt), then a generated set drawn from the served collection itself: every
list with paging, sorts on every sortable field both ways, every facet, filters
with values and fragments taken from real items, searches, `fields`, GeoJSON,
every tenth record, and the pages for people (Accept: text/html). Each request is
asked as JSON, gzip and br where it makes sense. The status, the body and the
headers that describe the answer (type, length, ETag, caching, CORS, Vary,
X-Ignored-Parameters) must be equal. Prints the first differences and a closing
line `N passed, N failed`; exits 1 on any difference.
"""
import collections
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HEADERS = [
    "content-type", "content-length", "etag", "cache-control", "vary",
    "access-control-allow-origin", "x-ignored-parameters", "content-encoding",
    "x-total-count", "content-disposition", "x-label-overflow",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(binary, snapshot, log):
    """Serves the snapshot and waits until its background preparation is done: a
    whole list compressed in the background and one compressed per response differ
    in bytes (not in what they decode to), so both builds are asked when idle."""
    port = free_port()
    proc = subprocess.Popen(
        [binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}", "--no-watch"],
        stdout=subprocess.DEVNULL, stderr=open(log, "w"),
        env={**os.environ, "RUST_LOG": "debug"},
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(6000):
        with open(log) as fh:
            if "whole lists compressed" in fh.read():
                return proc, base
        if proc.poll() is not None:
            sys.exit(f"{binary} exited with {proc.returncode}: see {log}")
        time.sleep(0.1)
    proc.kill()
    sys.exit(f"{binary} did not finish preparing its view: see {log}")


def ask(base, path, headers):
    req = urllib.request.Request(base + path, headers={"Host": "catalogue.test", **headers})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, got, body = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, got, body = e.code, e.headers, e.read()
    return status, {h: got.get(h) for h in HEADERS}, body


def names(schema):
    """The field names a `sort`, `facet` or `fields` pattern admits."""
    import re
    m = re.search(r"\(((?:[A-Za-z_]+\|)+[A-Za-z_]+)\)", schema.get("pattern", ""))
    return m.group(1).split("|") if m else []


def generated(base):
    """Requests drawn from what the collection holds, seeded so both builds get the same."""
    rnd = random.Random(1)
    doc = json.load(urllib.request.urlopen(base + "/api/v2/openapi.json"))
    out = []
    for path, item in sorted(doc["paths"].items()):
        op = item.get("get")
        if not op or "{" in path or not path.startswith("/api/v2/") or path.endswith("/labels/"):
            continue
        params = {p["name"]: p.get("schema", {}) for p in op.get("parameters", []) if "name" in p}
        out += [path, path + "?limit=3&offset=2", path + "?limit=0", path + "?offset=7"]
        for f in names(params.get("sort", {})):
            out += [f"{path}?sort={f}&limit=5", f"{path}?sort=-{f}&limit=5&offset=3"]
        for f in names(params.get("facet", {})):
            out.append(f"{path}?facet={f}&limit=1")
        if "search" in params:
            for word in ["a", "ia", "idae", "zzz", "monarch", "e s"]:
                out.append(f"{path}?search={urllib.request.quote(word)}&limit=4")
        try:
            sample = json.load(urllib.request.urlopen(base + path + "?limit=40"))
        except urllib.error.HTTPError:
            continue
        items = sample.get("items") or sample.get("results") or []
        for it in items[::10]:
            if "id" in it:
                out.append(f"{path}{it['id']}/")
        for name, schema in params.items():
            if name in {"limit", "offset", "sort", "facet", "fields", "search", "format",
                        "facet_size", "order"}:
                continue
            values = [str(it.get(name)) for it in items if isinstance(it.get(name), (str, int))]
            for v in rnd.sample(values, min(2, len(values))):
                frag = v[: max(1, len(v) // 2)]
                out.append(f"{path}?{name}={urllib.request.quote(frag)}&limit=3")
            out.append(f"{path}?{name}=&limit=3")
        out.append(f"{path}?fields=_,id&limit=3")
        if "format" in params:
            out.append(f"{path}?format=geojson&limit=3")
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    old_bin, new_bin, snapshot, *files = sys.argv[1:]
    logs = tempfile.mkdtemp()
    old, old_base = start(old_bin, snapshot, f"{logs}/old.log")
    new, new_base = start(new_bin, snapshot, f"{logs}/new.log")
    try:
        paths = []
        for f in files:
            with open(f) as fh:
                paths += [line.strip() for line in fh if line.strip() and not line.startswith("#")]
        paths += generated(old_base)
        paths = list(dict.fromkeys(paths))
        variants = [
            {},
            {"Accept-Encoding": "gzip"},
            {"Accept-Encoding": "br"},
            {"Accept": "text/html"},
        ]
        passed = failed = 0
        kinds = collections.Counter()
        for path in paths:
            for headers in variants:
                a = ask(old_base, path, headers)
                b = ask(new_base, path, headers)
                if a == b:
                    passed += 1
                    continue
                failed += 1
                what = "status" if a[0] != b[0] else "headers" if a[1] != b[1] else "body"
                keys = ",".join(k for k in a[1] if a[1][k] != b[1].get(k)) if what != "status" else ""
                kinds[(str(headers), what if what != "headers" else f"headers {keys}")] += 1
                if failed <= 10:
                    print(f"differs ({what}): {path} {headers}")
                    if what == "headers":
                        print(f"  old {a[1]}\n  new {b[1]}")
        for (asked, what), count in sorted(kinds.items()):
            print(f"  {count} differ by {what}, asked with {asked}")
        print(f"{len(paths)} paths, {len(variants)} ways each")
        print(f"{passed} passed, {failed} failed")
        sys.exit(1 if failed else 0)
    finally:
        old.kill()
        new.kill()


if __name__ == "__main__":
    main()
