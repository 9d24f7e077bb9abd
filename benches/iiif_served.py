"""IIIF's served goals (issue 87) on a 24 MP photograph, measured through
HTTP: the bundled sample served with `serve --media-dir` alone, its image 1
replaced by a generated 6000x4000 JPEG.

1. cold: a fresh server on a media folder with no tiles yet; as soon as it
   answers /healthz, `info.json` (which waits for the pyramid: its time) then
   every tile it lists (each scale factor, each 512 px tile, as OpenSeadragon
   asks them: `x,y,w,h/w,h/0/default.jpg`), each once, 4 at a time over
   keep-alive connections: p50, p99, slowest; the memory it holds after;
2. warm disk: the same server started again (its pyramid on disk), idle,
   then every tile once more, 4 at a time: p99, and the memory the server
   holds (RSS plus memory files, benches/memory.py) idle and after;
3. a tile asked again: wrk (THREADS 2, 32 connections, DURATION 5s) on one
   tile from catalogue and from nginx serving the very same bytes from a file
   (both checked first: 200, identical bytes), ROUNDS (3) in turn.

    python3 benches/iiif_served.py [--bin target/release/catalogue]

Needs Pillow to make the photograph (`pip install pillow`, in a venv), and
wrk and nginx for the third part (skipped without them). Loopback only.
"""
import argparse
import http.client
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loops import free_port, wait_idle  # noqa: E402
from memory import held  # noqa: E402

IMAGE_ID = 1
IMAGE_FILE = "original_images/ummz-000001-dorsal.jpg"


def photograph(path, width=6000, height=4000):
    """A photograph-like JPEG: smooth light under a fine grain the encoder
    must keep (as benches/iiif.rs makes one)."""
    from PIL import Image, ImageChops

    light = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    grain = Image.effect_noise((width, height), 24).convert("RGB")
    ImageChops.add(light, grain, scale=1.2).save(path, quality=90)


def start(bin_, media, port, log):
    env = dict(os.environ, CATALOGUE_ALLOW_NO_LICENCE="1")
    proc = subprocess.Popen(
        [bin_, "serve", "--snapshot", "snapshot/collection.bin", "--media-dir", media,
         "--addr", f"127.0.0.1:{port}", "--no-watch"],
        stderr=open(log, "w"), env=env)
    for _ in range(1000):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return proc
        except OSError:
            time.sleep(0.01)
    proc.kill()
    sys.exit("the server did not answer")


def tiles(info):
    """Every tile's path, as OpenSeadragon asks them of an Image API 3 service."""
    w, h = info["width"], info["height"]
    paths = []
    for t in info["tiles"]:
        size = t["width"]
        for s in t["scaleFactors"]:
            step = size * s
            for y in range(0, h, step):
                for x in range(0, w, step):
                    rw, rh = min(step, w - x), min(step, h - y)
                    sw, sh = -(-rw // s), -(-rh // s)
                    region = "full" if (rw, rh) == (w, h) and x == y == 0 else f"{x},{y},{rw},{rh}"
                    paths.append(f"/iiif/{IMAGE_ID}/{region}/{sw},{sh}/0/default.jpg")
    return paths


def ask_all(port, paths, at_once=4):
    """Asks every path once, `at_once` at a time; returns the latencies in ms."""
    todo = queue.Queue()
    for p in paths:
        todo.put(p)
    took, failed = [], []

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            try:
                path = todo.get_nowait()
            except queue.Empty:
                return
            t0 = time.perf_counter()
            conn.request("GET", path)
            r = conn.getresponse()
            body = r.read()
            took.append((time.perf_counter() - t0) * 1000)
            if r.status != 200 or not body.startswith(b"\xff\xd8"):
                failed.append((path, r.status))

    threads = [threading.Thread(target=worker) for _ in range(at_once)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        sys.exit(f"{len(failed)} tiles failed, e.g. {failed[0]}")
    return sorted(took)


def pct(sorted_ms, p):
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * p / 100))]


def report(what, ms):
    print(f"{what}: {len(ms)} tiles, p50 {pct(ms, 50):.1f} ms, "
          f"p99 {pct(ms, 99):.1f} ms, slowest {ms[-1]:.1f} ms")


def wrk(url, duration, threads):
    out = subprocess.run(["wrk", f"-t{threads}", "-c32", f"-d{duration}", url],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))


def nginx(root, work):
    port = free_port()
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/nginx.error.log;
daemon off;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 10000000;
  default_type image/jpeg;
  server {{ listen 127.0.0.1:{port}; root {root}; }}
}}
""")
    nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen([nginx_bin, "-c", conf, "-p", work])
    for _ in range(500):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    sys.exit("nginx did not answer")


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
        return r.status, r.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/catalogue")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("ROUNDS", 3)))
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    work = tempfile.mkdtemp(prefix="catalogue-iiif-")
    procs = []
    try:
        media = os.path.join(work, "media")
        os.makedirs(os.path.join(media, "original_images"))
        photograph(os.path.join(media, IMAGE_FILE))

        port = free_port()
        procs.append(start(args.bin, media, port, os.path.join(work, "cold.log")))
        t0 = time.perf_counter()
        _, body = get(port, f"/iiif/{IMAGE_ID}/info.json")
        print(f"cold: info.json in {(time.perf_counter() - t0) * 1000:.0f} ms (it waits for the pyramid)")
        info = json.loads(body)
        paths = tiles(info)
        report("cold", ask_all(port, paths))
        cold = procs.pop()
        cold_held = held(cold.pid)[0] // 1024
        cold.terminate()
        cold.wait()

        port = free_port()
        server = start(args.bin, media, port, os.path.join(work, "warm.log"))
        procs.append(server)
        get(port, f"/iiif/{IMAGE_ID}/info.json")
        wait_idle(server.pid)
        idle = held(server.pid)[0] // 1024
        report("warm disk", ask_all(port, paths))
        after = held(server.pid)[0] // 1024
        print(f"memory: {idle} MiB idle (pyramid on disk), {after} MiB after every tile ({after - idle:+}); "
              f"the cold server after cutting it and every tile: {cold_held} MiB ({cold_held - idle:+})")

        if not (shutil.which("wrk") and (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"))):
            print("a tile asked again: skipped (needs wrk and nginx)")
            return
        tile = next(p for p in paths if p.startswith(f"/iiif/{IMAGE_ID}/512,512,"))
        status, ours = get(port, tile)
        root = os.path.join(work, "www")
        stored = root + tile
        os.makedirs(os.path.dirname(stored))
        with open(stored, "wb") as f:
            f.write(ours)
        os.chmod(work, 0o755)
        for d, _, fs in os.walk(work):
            for n in fs + [""]:
                os.chmod(os.path.join(d, n), 0o755)
        proc, nport = nginx(root, work)
        procs.append(proc)
        nstatus, theirs = get(nport, tile)
        if (status, nstatus) != (200, 200) or ours != theirs:
            sys.exit(f"not the same answer: {status} and {nstatus}, {len(ours)} and {len(theirs)} bytes")
        print(f"a tile asked again ({tile}, {len(ours)} bytes), requests a second:")
        duration = os.environ.get("DURATION", "5s")
        threads = os.environ.get("THREADS", "2")
        for r in range(args.rounds):
            c = wrk(f"http://127.0.0.1:{port}{tile}", duration, threads)
            n = wrk(f"http://127.0.0.1:{nport}{tile}", duration, threads)
            print(f"  round {r + 1}: catalogue {c:.0f}, nginx {n:.0f}: {c / n:.2f}x")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
