"""The fifth round's rows on files and the publishing report (benches/hostile.sh
runs it with ROUND=5, or alone): against servers of its own.

usage: benches/hostile5_files.py BINARY [SPECIMENS] [HELD]   (default 100000
       specimens, 20000 of them held back)

  P. a collection synced from SQLite with HELD specimens held back (each a
     duplicate catalogue number): the size of /api/v2/publishing/, and the p99
     of a cheap request (/api/v2/orders/, wrk, 1 connection) idle, then while
     8 clients loop GET /api/v2/publishing/, then 8 loop HEAD on it, then 8
     loop a page of it (?limit=100&offset=5000);
  S. a crafted sparse snapshot (328 MB long, a few KB on disk: a valid header
     and a table of pieces of holes) renamed onto a watching server's file:
     what the server holds (RSS and memory files) before, at its peak while
     it refuses the file, and 2 s after.
Loopback only; every loop ends by itself. Needs wrk. ROWS=M (or P) runs one
row alone.
"""
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

BIN = sys.argv[1]
SPECIMENS = sys.argv[2] if len(sys.argv) > 2 else "100000"
HELD = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from loops import free_port, loop, loops_rate, p99, wait_idle  # noqa: E402
from memory import held  # noqa: E402

WORK = tempfile.mkdtemp()
LOAD = int(os.environ.get("SECONDS_OF_LOAD", "15"))


def serve(snapshot, watch):
    port = free_port()
    args = [BIN, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}"]
    if not watch:
        args.append("--no-watch")
    log = open(os.path.join(WORK, f"server-{port}.log"), "w")
    server = subprocess.Popen(args, stderr=log, stdout=subprocess.DEVNULL)
    server.log_path = log.name
    base = f"http://127.0.0.1:{port}"
    while True:
        try:
            if urllib.request.urlopen(base + "/healthz", timeout=5).status == 200:
                break
        except OSError:
            time.sleep(0.05)
    return server, base


def row_p():
    fixture = os.path.join(WORK, "g.json")
    db = os.path.join(WORK, "g.sqlite3")
    subprocess.run([BIN, "generate", "--specimens", SPECIMENS, "--seed", "1", "-o", fixture],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(HERE, "fixture_to_sqlite.py"), fixture, db],
                   check=True, stdout=subprocess.DEVNULL)
    os.remove(fixture)
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM specimens_specimenrecord ORDER BY id")]
    step = max(1, len(ids) // HELD)
    pairs = [(ids[i - 1], ids[i]) for i in range(1, len(ids), step)][:HELD]
    con.executemany(
        "UPDATE specimens_specimenrecord SET usi = (SELECT usi FROM specimens_specimenrecord "
        "WHERE id = ?) WHERE id = ?", pairs)
    con.commit()
    con.close()
    snapshot = os.path.join(WORK, "held.bin")
    subprocess.run([BIN, "sync", "--once", "--from-db", f"sqlite:///{db}", "--snapshot", snapshot],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server, base = serve(snapshot, watch=False)
    try:
        wait_idle(server.pid)
        body = urllib.request.urlopen(base + "/api/v2/publishing/", timeout=60).read()
        count = int(re.search(rb'"total_count":(\d+)', body).group(1))
        probe = base + "/api/v2/orders/"
        idle, _ = p99(probe, 10)
        print(f"P. {count} records held back, /api/v2/publishing/ {len(body) / 1e6:.1f} MB; "
              f"/api/v2/orders/ p99 idle {idle:.2f} ms", flush=True)
        for what, url, method in [
            ("GET whole", base + "/api/v2/publishing/", "GET"),
            ("HEAD", base + "/api/v2/publishing/", "HEAD"),
            ("GET ?limit=100&offset=5000", base + "/api/v2/publishing/?limit=100&offset=5000", "GET"),
        ]:
            loops = loop(url, method, LOAD + 2)
            time.sleep(1)
            busy, _ = p99(probe, LOAD - 2)
            rate = loops_rate(loops)
            print(f"   beside 8 clients looping {what}: p99 {busy:.2f} ms "
                  f"(the loops: {rate:.0f} answers/s)", flush=True)
    finally:
        server.terminate()
        server.wait()


def row_m():
    fixture = os.path.join(WORK, "m.json")
    snapshot = os.path.join(WORK, "m.bin")
    subprocess.run([BIN, "generate", "--specimens", SPECIMENS, "--seed", "1", "-o", fixture],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([BIN, "build", fixture, "-o", snapshot], check=True, stdout=subprocess.DEVNULL)
    os.remove(fixture)
    server, base = serve(snapshot, watch=True)
    try:
        wait_idle(server.pid)
        before = held(server.pid)[0] // 1024
        # The crafted file: format 11's header naming a payload of the file's
        # length, and a table of pieces whose count fills it, all holes.
        length = 328 << 20
        payload = length - 60
        crafted = os.path.join(WORK, "crafted.bin")
        with open(crafted, "wb") as f:
            f.write(b"CATSNAP\0" + struct.pack("<IQQ", 11, 0, payload) + b"\0" * 32)
            f.write(struct.pack("<I", (payload - 4) // 41))
            f.truncate(length)
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], held(server.pid)[0] // 1024)
                time.sleep(0.02)
        sampler = threading.Thread(target=sample)
        sampler.start()
        os.rename(crafted, snapshot)
        log = server.log_path
        started = time.time()
        while "reload failed" not in open(log).read() and time.time() - started < 60:
            time.sleep(0.05)
        refused_s = time.time() - started
        time.sleep(2)
        done.set()
        sampler.join()
        after = held(server.pid)[0] // 1024
        ok = urllib.request.urlopen(base + "/healthz", timeout=5).status
        print(f"S. a crafted sparse snapshot (328 MB, holes): held {before} MB before, "
              f"{peak[0]} MB at the peak, {after} MB 2 s after it was refused "
              f"({refused_s:.2f} s); /healthz {ok}", flush=True)
    finally:
        server.terminate()
        server.wait()


# ROWS=M (or P) runs one row alone.
try:
    for row, run in (("P", row_p), ("M", row_m)):
        if row in os.environ.get("ROWS", "PM"):
            run()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
