"""How long an edit takes to be served: `catalogue sync --every 1s` keeping a
snapshot in step with a SQLite database of SPECIMENS generated specimens (or a
PostgreSQL one, `--postgres`, on a throwaway cluster of the system's binaries
loaded from that SQLite database), and a server watching the snapshot. Each round edits one specimen by SQL, stamped as
Django stamps it, and asks the server for it every 10 ms until it answers the
new value.

    usage: python3 benches/freshness.py [SPECIMENS] [--rounds N] [--bin PATH]
           (default 100000 specimens, 5 rounds, target/release/catalogue)
           python3 benches/freshness.py --fixture snapshot/collection.json
           (the bundled sample, or any fixture, instead of a generated one)
           --db PATH keeps the SQLite database there, and uses it when it is
           there (a million specimens take minutes to generate and load)
           --postgres: the same rows in PostgreSQL

Prints each round's milliseconds from the commit to the new value served and
their median; the unchanged ticks' milliseconds (the sync's own `ms=`); what
the last edit's tick spent reading, preparing, encoding and writing, and the server's
reload (its phases, as its log says them); the server's
memory (RSS plus memory files, benches/memory.py) idle and at its peak during
the rounds; and the sync's peak RSS.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from memory import held

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""
    except OSError:
        return None, b""


def wait_idle(pid):
    """Until the process used under 2% of a core for two seconds."""
    def ticks():
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    before = ticks()
    while True:
        time.sleep(2)
        after = ticks()
        if after - before <= 4:
            return
        before = after


class Postgres:
    """A throwaway cluster (run as `postgres` when root) with the service's tables
    (tests/database/postgres.sql) and the rows of a SQLite database."""

    def __init__(self, work, sqlite_db):
        bindir = max(Path("/usr/lib/postgresql").glob("*/bin"))
        self.bin, self.dir, self.port = bindir, work / "pg", free_port()
        self.dir.mkdir()
        root = os.getuid() == 0
        if root:
            work.chmod(0o755)
            subprocess.run(["chown", "postgres", str(self.dir)], check=True)
        self.prefix = ["runuser", "-u", "postgres", "--"] if root else []
        data = self.dir / "data"
        self.run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                 "--no-sync")
        self.run("pg_ctl", "-D", str(data), "-l", str(self.dir / "log"), "-w", "-o",
                 f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                 "start")
        self.psql("postgres", "-c", "CREATE DATABASE museum")
        self.psql("museum", "-f", str(ROOT / "tests/database/postgres.sql"))
        src = sqlite3.connect(sqlite_db)
        tables = [t for (t,) in src.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        # The columns both have (the SQLite tables have a few the service's
        # PostgreSQL tables lack).
        listed = subprocess.run(self.prefix + [str(bindir / "psql"), "-At", "-h", "127.0.0.1",
                                 "-p", str(self.port), "-U", "postgres", "-d", "museum", "-c",
                                 ("SELECT table_name || ' ' || column_name FROM "
                                  "information_schema.columns WHERE table_schema = 'public'")],
                                check=True, capture_output=True, text=True).stdout.split()
        has = set(zip(listed[0::2], listed[1::2]))
        for table in tables:
            names = [c for (_, c, *_) in src.execute(f'PRAGMA table_info("{table}")')
                     if (table, c) in has]
            columns = ", ".join(f'"{c}"' for c in names)
            cur = src.execute(f'SELECT {columns} FROM "{table}"')
            # PostgreSQL's CSV: strings quoted, NULL unquoted and empty.
            def field(v):
                if v is None:
                    return ""
                if isinstance(v, str):
                    return '"' + v.replace('"', '""') + '"'
                return str(v)
            rows = "".join(",".join(map(field, row)) + "\n" for row in cur)
            subprocess.run(self.prefix + [str(bindir / "psql"), "-q", "-h", "127.0.0.1", "-p",
                            str(self.port), "-U", "postgres", "-d", "museum", "-v",
                            "ON_ERROR_STOP=1", "-c",
                            f'COPY "{table}" ({columns}) FROM STDIN WITH (FORMAT csv)'],
                           input=rows.encode(), check=True,
                           env=dict(os.environ, PGTZ="UTC"))
        self.psql("museum", "-c", "VACUUM ANALYZE")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/museum"

    def run(self, program, *args):
        subprocess.run(self.prefix + [str(self.bin / program), *args], check=True,
                       stdout=subprocess.DEVNULL)

    def psql(self, db, *args):
        self.run("psql", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                 "-d", db, "-v", "ON_ERROR_STOP=1", *args)

    def edit(self, specimen, value):
        """The edit as Django saves it, committed when psql returns."""
        literal = value.replace("'", "''")
        self.psql("museum", "-c", f"UPDATE specimens_specimenrecord SET notes = '{literal}', "
                  f"date_modified = now() WHERE id = {specimen}")

    def stop(self):
        self.run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "stop")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("specimens", nargs="?", type=int, default=100000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--bin", default=str(ROOT / "target/release/catalogue"))
    p.add_argument("--fixture")
    p.add_argument("--db")
    p.add_argument("--postgres", action="store_true")
    p.add_argument("--held", action="store_true",
                   help="hold a record back first (a temperature that is no number), "
                        "and keep it held through the rounds")
    a = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="freshness-"))
    fixture, snap = work / "c.json", work / "snap.bin"
    db = Path(a.db) if a.db else work / "db.sqlite3"
    if not db.exists():
        if a.fixture:
            fixture = Path(a.fixture)
        else:
            subprocess.run([a.bin, "generate", "--specimens", str(a.specimens), "--seed", "1",
                            "-o", str(fixture)], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, str(ROOT / "benches/fixture_to_sqlite.py"),
                        str(fixture), str(db)], check=True, stdout=subprocess.DEVNULL)
    conn = sqlite3.connect(db)
    specimens = conn.execute("SELECT COUNT(*) FROM specimens_specimenrecord").fetchone()[0]
    pg = Postgres(work, db) if a.postgres else None
    url = pg.url if pg else f"sqlite:///{db}"
    env = dict(os.environ, RUST_LOG="catalogue=debug")
    sync_log = open(work / "sync.log", "w")  # noqa: SIM115 (the sync writes it until the end)
    sync = subprocess.Popen([a.bin, "sync", "--from-db", url, "--snapshot",
                             str(snap), "--every", "1s"], env=env, stderr=sync_log,
                            stdout=subprocess.DEVNULL)
    server = None
    try:
        while not snap.exists():
            time.sleep(0.1)
        port = free_port()
        server_log = open(work / "server.log", "w")  # noqa: SIM115 (as the sync's)
        server = subprocess.Popen([a.bin, "serve", "--snapshot", str(snap), "--addr",
                                   f"127.0.0.1:{port}"], stderr=server_log,
                                  stdout=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        while get(f"{base}/api/v2/")[0] != 200:
            time.sleep(0.05)
        wait_idle(server.pid)
        idle = held(server.pid)[0] // 1024
        peak = [idle]
        stop = []

        def sample():
            while not stop:
                try:
                    peak[0] = max(peak[0], held(server.pid)[0] // 1024)
                except OSError:
                    pass
                time.sleep(0.02)
        sampler = threading.Thread(target=sample)
        sampler.start()
        (specimen,) = conn.execute(
            "SELECT id FROM specimens_specimenrecord ORDER BY id LIMIT 1 OFFSET ?",
            (specimens // 2,)).fetchone()
        url = f"{base}/api/v2/specimen-records/{specimen}/"
        if a.held:
            (bad,) = conn.execute(
                "SELECT id FROM specimens_specimenrecord ORDER BY id LIMIT 1 OFFSET ?",
                (specimens // 3,)).fetchone()
            stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
            if pg:
                pg.psql("museum", "-c", "UPDATE specimens_specimenrecord SET temperature = "
                        f"'warm', date_modified = now() WHERE id = {bad}")
            else:
                conn.execute("UPDATE specimens_specimenrecord SET temperature = 'warm', "
                             "date_modified = ? WHERE id = ?", (stamp, bad))
                conn.commit()
            while "held back: specimens.specimenrecord" not in (work / "sync.log").read_text():
                time.sleep(0.1)
            wait_idle(server.pid)
            time.sleep(1.5)
        rounds = []
        first_commit = time.time()
        for r in range(a.rounds):
            value = f"Fresh edit {r} at {time.time_ns()}"
            if pg:
                pg.edit(specimen, value)
            else:
                # Django keeps naive UTC text in SQLite.
                stamp = datetime.datetime.now(datetime.UTC).strftime(
                    "%Y-%m-%d %H:%M:%S.%f")
                conn.execute("UPDATE specimens_specimenrecord SET notes = ?, date_modified = ? "
                             "WHERE id = ?", (value, stamp, specimen))
                conn.commit()
            committed = time.monotonic()
            while True:
                status, body = get(url)
                if status == 200 and json.loads(body).get("notes") == value:
                    break
                if time.monotonic() - committed > 120:
                    sys.exit(f"round {r}: the edit was not served within 120 s")
                time.sleep(0.01)
            rounds.append((time.monotonic() - committed) * 1000)
            # Between rounds: the server idle again, ticks unchanged.
            wait_idle(server.pid)
            time.sleep(1.5)
        stop.append(1)
        sampler.join()
        with open(f"/proc/{sync.pid}/status") as f:
            sync_peak = next(int(line.split()[1]) // 1024 for line in f
                             if line.startswith("VmHWM:"))
    finally:
        for child in (server, sync):
            if child:
                child.terminate()
                child.wait()
        if pg:
            pg.stop()
    log = (work / "sync.log").read_text()
    unmoved = [int(m) for m in re.findall(r"unmoved ms=(\d+)", log)]
    published = re.findall(
        r"published read_ms=(\d+) prepare_ms=(\d+) encode_ms=(\d+) write_ms=(\d+)", log)
    records = re.findall(r"snapshot replaced.* records=(\S+(?: records\))?)", log)
    print(f"{specimens} specimens, {'PostgreSQL' if pg else 'SQLite'}"
          + (", a record held back" if a.held else ""))
    print("commit to served, ms: " + " ".join(f"{ms:.0f}" for ms in rounds)
          + f" (median {statistics.median(rounds):.0f})")
    if unmoved:
        print(f"unchanged ticks, ms: median {statistics.median(unmoved)}, max {max(unmoved)}"
              f" ({len(unmoved)} ticks)")
        # The slow ones, and when: before the first round (the database
        # settling after its load) or during the rounds.
        slow = []
        for stamp, ms in re.findall(r"^(\S+Z) DEBUG .*unmoved ms=(\d+)", log, re.M):
            if int(ms) > 50:
                at = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
                slow.append(f"{ms} ms at {at - first_commit:+.1f} s")
        if slow:
            print(f"unchanged ticks over 50 ms (seconds from the first round's commit): "
                  + ", ".join(slow))
    if published:
        read, prepare, encode, write = published[-1]
        print(f"last edit's tick: read {read} ms, prepare {prepare} ms, encode {encode} ms, "
              f"write {write} ms" + (f", records {records[-1]}" if records else ""))
    swaps = re.findall(r"build_ms=(\d+) phases=(.*?) counts=", (work / "server.log").read_text())
    if swaps:
        build, phases = swaps[-1]
        print(f"last swap: built in {build} ms: {phases}")
    print(f"server memory: idle {idle} MiB, peak during the rounds {peak[0]} MiB "
          f"({peak[0] / idle:.2f}x); sync's peak RSS {sync_peak} MiB")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
