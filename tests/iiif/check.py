"""IIIF as IIIF's own tools read it: the bundled sample served with IIIF's
Image API test image as one of its photographs (`--media-dir` alone), and
`iiif-validate.py --version=3.0 --level=2` run against that photograph's
image service, which must pass every test. Then every Collection from the
top one the API root names (`iiif`) down, and every Manifest they hold, is
valid against IIIF's Presentation 3.0 JSON schema and loads in iiif-prezi3;
each canvas is its image service's size (`info.json`); the specimen with the
photograph has its manifest; a document the schema must refuse is refused.

usage: check.py --bin target/release/catalogue --schemas DIR

DIR holds `iiif/67352ccc-d1b0-11e1-89ae-279075081939.png` (the validator's
test image, from the repository zimeon/iiif) and `iiif/iiif_3_0.json`.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

TEST_IMAGE = "67352ccc-d1b0-11e1-89ae-279075081939.png"
# The sample's image 2, a PNG: its original's path under the media folder.
IMAGE_ID = 2
IMAGE_FILE = "original_images/ummz-000001-ventral.png"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port, proc):
    for _ in range(300):
        if proc.poll() is not None:
            sys.exit("the server stopped")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2)
            return
        except OSError:
            time.sleep(0.2)
    sys.exit("the server did not become healthy")


def get(url, accept="application/json"):
    req = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def presentation(base, schema_path):
    import jsonschema
    from iiif_prezi3 import Collection, Manifest

    validator = jsonschema.Draft7Validator(json.load(open(schema_path)))
    broken = {"id": f"{base}/x", "type": "Manifest", "items": []}
    if not list(validator.iter_errors(broken)):
        sys.exit("the schema takes a manifest without a label: the check cannot fail")
    top = get(base + "/")["iiif"]
    todo, seen, manifests = [base + top], set(), []
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        doc = get(url)
        errors = list(validator.iter_errors(doc))
        if errors:
            sys.exit(f"{url}: {errors[0].message}")
        if doc["type"] == "Collection":
            Collection(**doc)
            todo += [item["id"] for item in doc["items"]]
        else:
            Manifest(**doc)
            manifests.append(doc)
            for canvas in doc["items"]:
                body = canvas["items"][0]["items"][0]["body"]
                info = get(body["service"][0]["id"] + "/info.json")
                if (info["width"], info["height"]) != (canvas["width"], canvas["height"]):
                    sys.exit(f"{canvas['id']}: the canvas is not its image's size")
    ids = [m["id"] for m in manifests]
    if f"{base}/iiif/manifests/1" not in ids:
        sys.exit(f"the photographed specimen 1 has no manifest among {ids}")
    print(f"IIIF Presentation 3.0: {len(seen) - len(manifests)} collections and "
          f"{len(manifests)} manifests valid (schema, iiif-prezi3)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--schemas", required=True)
    args = ap.parse_args()
    validator = os.path.join(os.path.dirname(sys.executable), "iiif-validate.py")
    with tempfile.TemporaryDirectory() as work:
        media = os.path.join(work, "media")
        os.makedirs(os.path.join(media, os.path.dirname(IMAGE_FILE)))
        shutil.copy(os.path.join(args.schemas, "iiif", TEST_IMAGE), os.path.join(media, IMAGE_FILE))
        port = free_port()
        log = open(os.path.join(work, "serve.log"), "w")
        proc = subprocess.Popen(
            [args.bin, "serve", "--snapshot", "snapshot/collection.bin", "--addr", f"127.0.0.1:{port}",
             "--no-watch", "--drain", "0", "--media-dir", media],
            stderr=log,
        )
        try:
            wait_healthy(port, proc)
            run = subprocess.run(
                [sys.executable, validator, "-s", f"127.0.0.1:{port}", "-p", "iiif", "-i", str(IMAGE_ID),
                 "--version=3.0", "--level=2"],
                capture_output=True, text=True,
            )
            out = run.stdout + run.stderr
            if run.returncode != 0 or "0 failures" not in out:
                print(out)
                sys.exit("iiif-validator: not every level-2 test passed")
            done = [l for l in out.splitlines() if l.startswith("Done")]
            print("iiif-validator level 2:", done[-1] if done else out.strip().splitlines()[-1])
            presentation(f"http://127.0.0.1:{port}", os.path.join(args.schemas, "iiif", "iiif_3_0.json"))
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
