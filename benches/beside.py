"""A cheap request's latency beside clients looping another: the p99 of
PROBE (wrk, 1 connection, --latency) on a server alone, then while 8 clients
(wrk, 2 threads) loop each LOOP in turn, with how many answers the loops got.
`{n}` in a LOOP is a number of its own each request (1, 2, 3 ...): no answer
is asked twice, so none is replayed from the memo.

usage: python3 benches/beside.py BINARY SNAPSHOT LOOP [LOOP ...]
env:   PROBE (/api/v2/orders/), SECONDS_OF_LOAD (15)

For example, issue 88's row: every change since 1999 at 1M specimens,
    python3 benches/beside.py target/release/catalogue 1m.bin \
        '/api/v2/changes/?since=1999-01-01&offset={n}'
Loopback only; every loop ends by itself. Needs wrk.
"""
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loops import free_port, loop, loops_rate, p99, wait_idle  # noqa: E402


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, snapshot, loops = sys.argv[1], sys.argv[2], sys.argv[3:]
    probe_path = os.environ.get("PROBE", "/api/v2/orders/")
    load = int(os.environ.get("SECONDS_OF_LOAD", "15"))
    port = free_port()
    server = subprocess.Popen(
        [binary, "serve", "--snapshot", snapshot, "--addr", f"127.0.0.1:{port}", "--no-watch"],
        stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if urllib.request.urlopen(base + "/healthz", timeout=5).status == 200:
                    break
            except OSError:
                time.sleep(0.05)
        wait_idle(server.pid)
        for path in loops:
            with urllib.request.urlopen(base + path.replace("{n}", "0"), timeout=120) as r:
                if r.status != 200:
                    sys.exit(f"{path}: {r.status}")
        probe = base + probe_path
        idle, _ = p99(probe, 10)
        print(f"{probe_path} p99 alone: {idle:.2f} ms", flush=True)
        for path in loops:
            looping = loop(base + path, "GET", load + 2)
            time.sleep(1)
            busy, _ = p99(probe, load - 2)
            rate = loops_rate(looping)
            print(f"  beside 8 clients looping {path}: p99 {busy:.2f} ms "
                  f"(the loops: {rate:.0f} answers/s)", flush=True)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
