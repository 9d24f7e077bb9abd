"""The fourth round of hostile clients (benches/hostile.sh runs it with ROUND=4,
or alone): forms, polygon work, echoes, against a watching server of its own.

usage: benches/hostile4.py BINARY [SPECIMENS]   (default 100000; two
       collections of that size are generated, seeds 1 and 2)

  A. one POST whose body arrives at a byte a second, opened before each of 4
     reloads: what the server holds (RSS and memory files) idle, after the 4th
     swap with the 4 bodies still arriving, and once they are gone;
  B. 2,000 connections each sending a 1 MB form one byte short, then a byte a
     second: the peak held, the statuses answered, connections left at 45 s;
  C. `Expect: 100-continue` with `Content-Length: 1000000000`: the first line
     answered, and how soon;
  D. the latency of a search (one probe from 127.0.0.2, distinct requests, on
     the pool) idle, then while 1, 4 and 70 clients of 127.0.0.1 loop POSTs of
     a 10,000-vertex polygon: p50, p99 and refusals;
  E. a 0.9 MB form of unknown parameters: the answer's size;
  F. changes since a date before version 1: the status;
  G. a dataset file whose homepage closes the BibTeX entry and writes
     another, and a DOI with a brace: what `build` says;
  H. a 50 MB title; I. --dataset-config a FIFO (how soon it is refused);
  J. a link to /etc/shadow (whether the error quotes it), and a control
     character in a creator's name;
  K. NUL, SOH and ESC in the records' text: the control bytes left in the
     archive's occurrence.txt and in the CSV download.
Loopback only; every loop ends by itself.
"""
import io
import json
import math
import os
import resource
import selectors
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zipfile

BIN = sys.argv[1]
SPECIMENS = sys.argv[2] if len(sys.argv) > 2 else "100000"
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = tempfile.mkdtemp()
SNAPSHOT = os.path.join(WORK, "served.bin")
# The two collections a reload swaps between.
for seed in ("1", "2"):
    fixture = os.path.join(WORK, f"{seed}.json")
    subprocess.run([BIN, "generate", "--specimens", SPECIMENS, "--seed", seed, "-o", fixture],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([BIN, "build", fixture, "-o", os.path.join(WORK, f"{seed}.bin")],
                   check=True, stdout=subprocess.DEVNULL)
    os.remove(fixture)
subprocess.run(["cp", os.path.join(WORK, "1.bin"), SNAPSHOT], check=True)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


PORT = free_port()
server = subprocess.Popen([BIN, "serve", "--snapshot", SNAPSHOT, "--addr", f"127.0.0.1:{PORT}", "--drain", "0"],
                          stderr=subprocess.DEVNULL)


def held_mb():
    out = subprocess.run(["python3", os.path.join(HERE, "memory.py"), str(server.pid)],
                         capture_output=True, text=True).stdout
    return int(float(out.split()[0]))


def connect(source="127.0.0.1"):
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", PORT))
    return s


def ask(head, body=b"", source="127.0.0.1", timeout=60):
    """Sends a request, returns (status, body bytes, seconds)."""
    s = connect(source)
    s.settimeout(timeout)
    started = time.perf_counter()
    s.sendall(head.encode() + body)
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    s.close()
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    status = int(line.split()[1]) if len(line.split()) > 1 else 0
    return status, data.split(b"\r\n\r\n", 1)[-1], time.perf_counter() - started


def get(path, source="127.0.0.1"):
    return ask(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", source=source)


def post_head(path, length, extra=""):
    return (f"POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n{extra}\r\n")


while True:
    try:
        if get("/healthz")[0] == 200:
            break
    except OSError:
        pass
    time.sleep(0.05)
time.sleep(3)
SEARCH = "/gbif/v1/occurrence/search"

# A. Slow bodies across reloads.
idle = held_mb()
slow = []
for i in range(4):
    s = connect()
    s.sendall(post_head(SEARCH, 100).encode() + b"limit=1")
    slow.append(s)
    # The other collection renamed in: the watching server swaps to it.
    copy = SNAPSHOT + ".swap"
    subprocess.run(["cp", os.path.join(WORK, f"{2 - i % 2}.bin"), copy], check=True)
    os.rename(copy, SNAPSHOT)
    time.sleep(8)
after = held_mb()
for s in slow:
    s.close()
time.sleep(3)
print(f"A. 4 slow form bodies across 4 reloads: held idle {idle} MB, after the 4th with the bodies open {after} MB, "
      f"after they closed {held_mb()} MB")

# B. 2,000 connections, a 1 MB form each one byte short, then a byte a second.
body = b"a=" + b"b" * (1_000_000 - 2)
sel = selectors.DefaultSelector()
conns = {}
for i in range(2000):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", PORT))
    conns[s] = {"out": post_head(SEARCH, len(body) + 1).encode() + body, "status": None, "in": b""}
    sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
peak, statuses, started, last_drip = idle, {}, time.time(), 0.0
left_at_45 = None
sampler_stop = False


def sample():
    global peak
    while not sampler_stop:
        peak = max(peak, held_mb())
        time.sleep(0.25)


sampler = threading.Thread(target=sample)
sampler.start()
while time.time() - started < 70 and conns:
    drip = time.time() - last_drip >= 1
    if drip:
        last_drip = time.time()
    for key, events in sel.select(timeout=0.2):
        s = key.fileobj
        c = conns.get(s)
        if c is None:
            continue
        if events & selectors.EVENT_READ:
            try:
                chunk = s.recv(4096)
            except OSError:
                chunk = b""
            c["in"] += chunk
            if not chunk or b"\r\n" in c["in"]:
                line = c["in"].split(b"\r\n", 1)[0].split()
                code = line[1].decode() if len(line) > 1 else "closed"
                statuses[code] = statuses.get(code, 0) + 1
                sel.unregister(s)
                s.close()
                del conns[s]
                continue
        if events & selectors.EVENT_WRITE and c["out"]:
            try:
                n = s.send(c["out"][:65536])
                c["out"] = c["out"][n:]
            except BlockingIOError:
                pass
            except OSError:
                c["out"] = b""
    if drip:
        for s, c in conns.items():
            if not c["out"]:
                try:
                    s.send(b"c")
                except OSError:
                    pass
    if left_at_45 is None and time.time() - started >= 45:
        left_at_45 = len(conns)
sampler_stop = True
sampler.join()
for s in list(conns):
    s.close()
print(f"B. 2,000 connections of 1 MB forms, then a byte a second: held idle {idle} MB, highest {peak} MB "
      f"(+{peak - idle} MB); answered {dict(sorted(statuses.items()))}; "
      f"open at 45 s: {left_at_45 if left_at_45 is not None else len(conns)}")
time.sleep(3)

# C. Expect: 100-continue with a billion bytes announced.
s = connect()
s.settimeout(10)
t = time.perf_counter()
s.sendall(post_head(SEARCH, 1_000_000_000, "Expect: 100-continue\r\n").encode())
first = s.recv(4096).split(b"\r\n", 1)[0].decode()
print(f"C. Expect: 100-continue, Content-Length 1000000000: {first!r} in {(time.perf_counter() - t) * 1000:.1f} ms")
s.close()

# D. A probe's latency while clients loop 10,000-vertex polygons.
ring = [(60 * 1.5 * math.cos(i / 9999 * 2 * math.pi), 60 * math.sin(i / 9999 * 2 * math.pi)) for i in range(9999)]
ring.append(ring[0])
polygon = urllib.parse.urlencode({"geometry": "POLYGON((" + ",".join(f"{x:.6f} {y:.6f}" for x, y in ring) + "))",
                                  "limit": "20"}).encode()


def probe(seconds):
    times, refused, i = [], 0, 0
    end = time.time() + seconds
    while time.time() < end:
        i += 1
        status, _, took = get(f"/api/v2/specimen-records/?search=a&limit=1&offset={i}", source="127.0.0.2")
        times.append(took * 1000)
        refused += status == 503
        time.sleep(0.05)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.99) - 1], refused, len(times)


def loop(stop):
    while not stop.is_set():
        try:
            ask(post_head(SEARCH, len(polygon)), polygon)
        except OSError:
            pass


p50, p99, refused, n = probe(10)
print(f"D. search probe idle: p50 {p50:.1f} ms, p99 {p99:.1f} ms, {refused} of {n} refused")
for clients in (1, 4, 70):
    stop = threading.Event()
    loopers = [threading.Thread(target=loop, args=(stop,)) for _ in range(clients)]
    for t in loopers:
        t.start()
    time.sleep(2)
    p50, p99, refused, n = probe(15)
    stop.set()
    for t in loopers:
        t.join()
    print(f"D. search probe while {clients} client(s) loop a 10,000-vertex polygon: p50 {p50:.1f} ms, "
          f"p99 {p99:.1f} ms, {refused} of {n} refused")
    time.sleep(2)

# E. A form of unknown parameters.
unknown = "&".join(f"unknown{i:06}=1" for i in range(60_000))[:900_000].rsplit("&", 1)[0].encode()
status, answer, _ = ask(post_head(SEARCH, len(unknown)), unknown)
print(f"E. a {len(unknown):,}-byte form of unknown parameters: {status}, {len(answer):,} bytes answered")

# F. Changes since a date before version 1.
status, answer, _ = get("/api/v2/changes/?since=1999-01-01&limit=1")
print(f"F. changes since 1999-01-01: {status} {answer[:80]!r}")
server.terminate()
server.wait()

# G-K. The dataset file and the records' text as an attacker writes them, on
# the bundled sample (what is refused or escaped does not depend on its size).
SAMPLE = os.path.join(os.path.dirname(HERE), "snapshot", "collection.json")


def build_with(dataset, fixture=SAMPLE):
    """Builds with --dataset-config `dataset`: (exit code, last line said, seconds)."""
    out = os.path.join(WORK, "case.bin")
    t = time.perf_counter()
    try:
        r = subprocess.run([BIN, "build", fixture, "-o", out, "--dataset-config", dataset],
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return None, "still running at 30 s", 30.0
    said = (r.stderr.strip().splitlines() or [""])[-1]
    return r.returncode, said, time.perf_counter() - t


def written(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def row(letter, what, case):
    code, said, seconds = case
    shown = said if len(said) <= 200 else said[:200] + f"... ({len(said):,} characters)"
    print(f"{letter}. {what}: exit {code} in {seconds * 1000:.0f} ms: {shown}")


injected = "https://h.example/}}\n@misc{injected, title={Written by an attacker}}"
row("G", "homepage closing the BibTeX entry",
    build_with(written("homepage.json", json.dumps({"title": "T", "homepage": injected}))))
row("G", "doi with a brace",
    build_with(written("doi.json", json.dumps({"title": "T", "doi": "10.1234/a}b"}))))
row("H", "a 50 MB title", build_with(written("title.json", json.dumps({"title": "x" * 50_000_000}))))
fifo = os.path.join(WORK, "fifo.toml")
os.mkfifo(fifo)
row("I", "--dataset-config a FIFO", build_with(fifo))
secret = written("secret.txt", "SECRET-FIRST-LINE: not a dataset file\n")
link = os.path.join(WORK, "link.toml")
os.symlink("/etc/shadow" if os.access("/etc/shadow", os.R_OK) else secret, link)
code, said, seconds = build_with(link)
quoted = "root:" in said or "SECRET" in said
row("J", f"--dataset-config a link to {os.readlink(link)} (content quoted: {quoted})", (code, said, seconds))
row("J", "a control character in a creator's name",
    build_with(written("controls.json", json.dumps({"title": "T", "creators": [{"name": "Ada\u0001 Lovelace"}]}))))

# K. NUL and C0 controls in the records' text: what the archive and the CSV carry.
with open(SAMPLE, encoding="utf-8") as f:
    objects = json.load(f)
for o in objects:
    fields = o["fields"]
    for key in ("notes", "habitat", "first_name", "last_name", "name", "locality"):
        if isinstance(fields.get(key), str) and fields[key]:
            fields[key] = fields[key][:3] + "\u0000\u0001\u001b" + fields[key][3:]
dirty = written("controls.json", json.dumps(objects))
dirty_bin = os.path.join(WORK, "controls.bin")
subprocess.run([BIN, "build", dirty, "-o", dirty_bin], check=True, capture_output=True)
PORT = free_port()
server = subprocess.Popen([BIN, "serve", "--snapshot", dirty_bin, "--addr", f"127.0.0.1:{PORT}"],
                          stderr=subprocess.DEVNULL)


def healthy():
    try:
        return get("/healthz")[0] == 200
    except OSError:
        return False


while not healthy():
    time.sleep(0.05)


def controls(data):
    return sum(1 for b in data if b < 0x20 and b not in (0x09, 0x0A, 0x0D))


_, archive, _ = get("/dwca.zip")
occurrences = zipfile.ZipFile(io.BytesIO(archive)).read("occurrence.txt")
_, csv_body, _ = get("/api/v2/specimen-records/?format=csv&columns=dwc&limit=1000")
print(f"K. NUL, SOH and ESC put in {sum(1 for o in objects for v in o['fields'].values() if isinstance(v, str) and chr(1) in v)} "
      f"record values: control bytes in occurrence.txt {controls(occurrences)}, in the CSV {controls(csv_body)}")
server.terminate()
server.wait()
subprocess.run(["rm", "-rf", WORK], check=True)
