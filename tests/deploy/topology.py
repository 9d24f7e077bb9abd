"""The deployment as an operator runs it, on loopback with real processes:
`catalogue sync` publishing a snapshot from a database, two `catalogue serve`
replicas started as the systemd unit starts them (its command line and
environment, on the ports deploy/nginx/catalogue.conf names, as written; only
the snapshot's path and a 2 s drain differ), nginx in front with the shipped
files (its public port and cache path moved) beside Debian's default site, asked
by the shipped server's name, and wrk through nginx the whole time, while the database is edited twice and each replica is restarted in turn.

Passes when wrk saw no socket error and no non-2xx answer, each edit reached both
replicas within two sync intervals and was served through nginx within a second
of the later replica's swap, and both replicas give the same ETag for the same
URL. Prints the numbers the closing note of the deployment issue asks for.

    usage: topology.py --bin target/release/catalogue --db URL [--seconds 40]

URL is sqlite:///path or postgres://user@host:port/name (edited with psql).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from shipped import Nginx, get, replica, replica_ports, wait_until

SYNC_EVERY = 2.0  # seconds, the sync's --every
DRAIN = 2  # seconds, the replicas' --drain


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Database:
    """Edits the database the sync reads, as Django saves: a new date_modified."""

    def __init__(self, url):
        self.url = url

    def edit(self, specimen, notes):
        if self.url.startswith("sqlite:///"):
            db = sqlite3.connect(self.url[len("sqlite:///"):])
            stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
            db.execute(
                "UPDATE specimens_specimenrecord SET notes = ?, date_modified = ? WHERE id = ?",
                (notes, stamp, specimen),
            )
            db.commit()
            db.close()
        else:
            sql = (f"UPDATE specimens_specimenrecord SET notes = '{notes}', "
                   f"date_modified = now() WHERE id = {int(specimen)}")
            subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", self.url, "-c", sql], check=True)


class Topology:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.snapshot = work / "collection.bin"
        self.procs = {}
        self.ports = replica_ports()
        for port in self.ports:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    sys.exit(f"topology: port {port}, a replica's in deploy/nginx/catalogue.conf, is in use")
        self.front = free_port()
        self.nginx = Nginx(work, self.front, binary=args.nginx)

    def start(self, name, argv, log):
        self.procs[name] = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=open(self.work / log, "ab"))

    def start_sync(self):
        self.start("sync", [self.args.bin, "sync", "--from-db", self.args.db, "--snapshot",
                            str(self.snapshot), "--every", f"{int(SYNC_EVERY * 1000)}ms"],
                   "sync.log")

    def start_replica(self, i):
        argv, env = replica(self.args.bin, self.ports[i], self.snapshot, ["--drain", str(DRAIN)])
        self.procs[f"replica{i}"] = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=open(self.work / f"replica{i}.log", "ab"))
        wait_until(f"replica {i} to be ready",
                   lambda: get(f"{self.replica(i)}/readyz", timeout=1)[0] == 200)

    def replica(self, i):
        return f"http://127.0.0.1:{self.ports[i]}"

    def stop(self, name):
        proc = self.procs.pop(name)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        if proc.returncode != 0:
            sys.exit(f"topology: {name} exited with {proc.returncode} after SIGTERM")

    def start_nginx(self):
        self.nginx.start()

    def shutdown(self):
        self.nginx.stop()
        for proc in self.procs.values():
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


WRK_SCRIPT = """
-- Many distinct requests, so that neither side answers from a cache of answers.
local paths = {}
for offset = 0, 40 do
  paths[#paths + 1] = "/api/v2/specimen-records/?limit=5&offset=" .. offset
end
for _, p in ipairs({"/api/v2/orders/", "/api/v2/families/", "/api/v2/people/",
    "/api/v2/specimen-records/?sex=female", "/api/v2/specimen-records/?search=a&limit=3",
    "/api/v2/localities/?order=-name", "/api/v2/gps-coordinates/?format=geojson"}) do
  paths[#paths + 1] = p
end
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
"""


def parse_wrk(out):
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    socket_errors = sum(int(x) for x in m.groups()) if m else 0
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    non_2xx = int(m.group(1)) if m else 0
    return requests, socket_errors, non_2xx


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--seconds", type=int, default=40, help="how long wrk runs")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    args = parser.parse_args()
    args.bin = str(Path(args.bin).resolve())
    work = Path(tempfile.mkdtemp(prefix="topology-"))
    topo = Topology(args, work)
    db = Database(args.db)
    wrk = None
    try:
        topo.start_sync()
        wait_until("the first snapshot", topo.snapshot.exists)
        topo.start_replica(0)
        topo.start_replica(1)
        topo.start_nginx()
        front = f"http://127.0.0.1:{topo.front}"
        named = topo.nginx.headers
        first = json.loads(get(f"{front}/api/v2/specimen-records/?limit=1", headers=named)[2])["items"][0]
        specimen = first["id"]

        (work / "mix.lua").write_text(WRK_SCRIPT)
        started = time.monotonic()
        wrk = subprocess.Popen(["wrk", "-t2", "-c16", f"-d{args.seconds}s", "--timeout", "10s",
                                "-H", f"Host: {named['Host']}", "-s", str(work / "mix.lua"), front],
                               stdout=subprocess.PIPE, text=True)
        time.sleep(3)

        record = f"/api/v2/specimen-records/{specimen}/"

        def reach(edit):
            """Edits the database; seconds until each replica, then nginx, serves
            the edit."""
            notes = f"topology edit {edit} at {time.time():.3f}"
            get(front + record, headers=named)
            db.edit(specimen, notes)
            edited = time.monotonic()
            seen = [None, None, None]
            bases = [(topo.replica(0), None), (topo.replica(1), None), (front, named)]

            def check():
                for i, (base, headers) in enumerate(bases):
                    if seen[i] is None:
                        status, _, body = get(base + record, 1, headers)
                        if status == 200 and json.loads(body).get("notes") == notes:
                            seen[i] = time.monotonic() - edited
                return None not in seen

            wait_until(f"edit {edit} to reach both replicas", check, timeout=30)
            return seen

        reached = [reach(1)]
        restarts = []
        for i in (0, 1):
            t = time.monotonic()
            topo.stop(f"replica{i}")
            topo.start_replica(i)
            restarts.append(time.monotonic() - t)
            time.sleep(2)
        reached.append(reach(2))
        events_done = time.monotonic() - started
        out, _ = wrk.communicate(timeout=args.seconds + 60)
        wrk = None
        if events_done > args.seconds:
            sys.exit(f"topology: the edits and restarts took {events_done:.1f} s, longer than "
                     f"wrk's {args.seconds} s; raise --seconds")
        requests, socket_errors, non_2xx = parse_wrk(out)

        url = "/api/v2/specimen-records/?limit=3&offset=1"
        etags = [get(topo.replica(i) + url)[1].get("ETag") for i in (0, 1)]

        print(f"topology ({args.db.split(':')[0]}): {requests} requests through nginx in "
              f"{args.seconds} s, {socket_errors} socket errors, {non_2xx} non-2xx")
        for n, seen in enumerate(reached, 1):
            print(f"  edit {n} reached replica 1 in {seen[0]:.2f} s, replica 2 in {seen[1]:.2f} s "
                  f"(sync every {SYNC_EVERY:.0f} s), nginx {seen[2] - max(seen[:2]):.2f} s after the later")
        print(f"  restarts (SIGTERM, {DRAIN} s drain, start, ready): "
              + ", ".join(f"{r:.1f} s" for r in restarts))
        print(f"  ETag of {url}: {etags[0]} and {etags[1]}")
        failures = []
        if socket_errors or non_2xx:
            failures.append(f"{socket_errors} socket errors and {non_2xx} non-2xx answers\n{out}")
        if any(s > 2 * SYNC_EVERY for seen in reached for s in seen[:2]):
            failures.append("an edit took longer than two sync intervals to reach a replica")
        if any(seen[2] - max(seen[:2]) > 1.0 for seen in reached):
            failures.append("an edit took longer than a second after the replicas' swap to reach nginx")
        if etags[0] is None or etags[0] != etags[1]:
            failures.append("the replicas' ETags differ")
        if failures:
            sys.exit("topology: " + "; ".join(failures))
    finally:
        if wrk is not None:
            wrk.kill()
        topo.shutdown()
        if os.environ.get("TOPOLOGY_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
