"""The fifth round of hostile clients, the server's rows (benches/hostile.sh
runs it with ROUND=5, or alone): what one client holds of what all share, the
Host in XML, dates that say a changed file is unchanged, numbers and formulas,
against a server of its own under a limit of 1,024 descriptors.

usage: benches/hostile5.py BINARY [SPECIMENS]   (default 100000; a collection
       of that size is generated and built with its version kept)

  V. `Host: evil&x`: how many of /versions.rss, /versions.atom, DataCite and
     /eml.xml parse as XML (Python's strict parser), and say `Vary: Host`;
  M. a media file replaced by an older copy (`cp -p`), asked with the old
     file's `Last-Modified` as `If-Modified-Since`: the status;
  F. 40 connections of 127.0.0.1 announcing 1 MB forms and sending 10 bytes,
     then 20 forms of 127.0.0.2: their statuses and p99; then 127.0.0.1's
     forms one byte short of their megabyte until refused: how many were held,
     and 127.0.0.2's forms again;
  D. 700 connections of 127.0.0.1 asking for the kept archive and reading
     nothing (receive buffers of 4 KB): what they were answered, a health
     probe of 127.0.0.2's (10 over 5 s: the slowest), and the log's damage
     alarms ("manifest says");
  L. a kept version moved away: /versions.rss asked with its old
     `Last-Modified`: the status;
  N. /versions/01/dwca.zip, /gbif/v1/occurrence/0<key>, version=01,
     accessed=-001-01-01: the statuses;
  C. the sample with `=HYPERLINK(...)`, `@SUM(...)` and `-2+3+cmd` in three
     specimens' text: cells of the specimens' CSV that begin a formula, and
     negative longitudes still written as numbers.
Loopback only; every loop ends by itself.
"""
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

BIN = sys.argv[1]
SPECIMENS = sys.argv[2] if len(sys.argv) > 2 else "100000"
HERE = os.path.dirname(os.path.abspath(__file__))
WORK = tempfile.mkdtemp()
SNAPSHOT = os.path.join(WORK, "served.bin")
fixture = os.path.join(WORK, "c.json")
subprocess.run([BIN, "generate", "--specimens", SPECIMENS, "--seed", "1", "-o", fixture],
               check=True, stdout=subprocess.DEVNULL)
subprocess.run([BIN, "build", fixture, "-o", SNAPSHOT, "--public-url", "http://t"],
               check=True, stdout=subprocess.DEVNULL)
os.remove(fixture)
MEDIA = os.path.join(WORK, "media")
os.mkdir(MEDIA)
with open(os.path.join(MEDIA, "a.jpg"), "wb") as f:
    f.write(b"\xff\xd8first")
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def limited():
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


PORT = free_port()
LOG = os.path.join(WORK, "server.log")
server = subprocess.Popen([BIN, "serve", "--snapshot", SNAPSHOT, "--addr", f"127.0.0.1:{PORT}", "--no-watch",
                           "--drain", "0", "--media-dir", MEDIA],
                          stderr=open(LOG, "w"), preexec_fn=limited)


def connect(source="127.0.0.1", port=None):
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port or PORT))
    return s


def ask(head, body=b"", source="127.0.0.1", timeout=30, port=None):
    """Sends a request, returns (status, headers, body, seconds)."""
    s = connect(source, port)
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
    head_bytes, _, rest = data.partition(b"\r\n\r\n")
    lines = head_bytes.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if len(lines[0].split()) > 1 else 0
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, rest, time.perf_counter() - started


def get(path, source="127.0.0.1", headers="", port=None, host="t"):
    return ask(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{headers}\r\n",
               source=source, port=port)


def post_head(path, length):
    return (f"POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {length}\r\n\r\n")


def wait_healthy(port=None):
    while True:
        try:
            if get("/healthz", port=port)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)


def p99(times):
    times = sorted(times)
    return times[max(0, int(len(times) * 0.99) - 1)] * 1000


wait_healthy()
time.sleep(3)
SEARCH = "/gbif/v1/occurrence/search"

# V. The Host in XML.
xml_paths = ["/versions.rss", "/versions.atom", "/api/v2/citation/?format=datacite", "/eml.xml"]
parsed = varied = 0
for path in xml_paths:
    status, headers, body, _ = get(path, host="evil&x")
    try:
        ElementTree.fromstring(body)
        parsed += status == 200
    except ElementTree.ParseError:
        pass
    varied += "host" in headers.get("vary", "").lower()
print(f"V. Host: evil&x: {parsed} of {len(xml_paths)} XML answers well-formed, {varied} say Vary: Host")

# M. A media file replaced by an older copy.
time.sleep(1.1)
_, headers, _, _ = get("/media/a.jpg")
old = headers.get("last-modified", "")
newer = os.path.join(MEDIA, "new.tmp")
with open(newer, "wb") as f:
    f.write(b"\xff\xd8second")
year_ago = time.time() - 365 * 86400
os.utime(newer, (year_ago, year_ago))
os.rename(newer, os.path.join(MEDIA, "a.jpg"))
status, _, body, _ = get("/media/a.jpg", headers=f"If-Modified-Since: {old}\r\n")
print(f"M. a media file replaced by a year-older copy, asked with the old Last-Modified ({old}): "
      f"{status}, {len(body)} bytes")

# F. Forms: one address's slow forms, another address's forms.
announcing = []
for _ in range(40):
    s = connect()
    s.sendall(post_head(SEARCH, 1_000_000).encode() + b"limit=1&a=")
    announcing.append(s)
time.sleep(1)


def other_forms(n=20):
    statuses, times = {}, []
    for _ in range(n):
        status, _, _, took = ask(post_head(SEARCH, 7), b"limit=1", source="127.0.0.2")
        statuses[status] = statuses.get(status, 0) + 1
        times.append(took)
    return statuses, p99(times)


def answered_now(socks):
    n = 0
    for s in socks:
        s.setblocking(False)
        try:
            n += bool(s.recv(64))
        except BlockingIOError:
            pass
        except OSError:
            n += 1
        s.setblocking(True)
    return n


statuses, slowest = other_forms()
print(f"F. 40 forms of 127.0.0.1 announcing 1 MB, 10 bytes sent: {answered_now(announcing)} of them answered "
      f"(refused); 20 forms of 127.0.0.2: {statuses}, p99 {slowest:.1f} ms")
sending, refused_after = [], None
body = b"a=" + b"b" * (1_000_000 - 3)
for i in range(40):
    s = connect()
    s.settimeout(5)
    s.sendall(post_head(SEARCH, 1_000_000).encode() + body)
    s.setblocking(False)
    time.sleep(0.2)
    try:
        first = s.recv(64)
    except BlockingIOError:
        first = b""
    s.setblocking(True)
    if first:
        refused_after = i
        s.close()
        break
    sending.append(s)
statuses, slowest = other_forms()
print(f"F. 127.0.0.1's forms one byte short of 1 MB: {len(sending)} held, the next "
      f"{'refused (' + str(first.split(b' ')[1].decode()) + ')' if refused_after is not None else 'never refused'}; "
      f"20 forms of 127.0.0.2 meanwhile: {statuses}, p99 {slowest:.1f} ms")
for s in announcing + sending:
    s.close()
time.sleep(2)

# D. Idle readers of the kept archive at 1,024 descriptors.
readers = []
for _ in range(700):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind(("127.0.0.1", 0))
    s.connect(("127.0.0.1", PORT))
    s.sendall(b"GET /versions/1/dwca.zip HTTP/1.1\r\nHost: t\r\n\r\n")
    readers.append(s)
time.sleep(2)
probes = []
for _ in range(10):
    try:
        status, _, _, took = ask("GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
                                 source="127.0.0.2", timeout=10)
    except OSError:
        status, took = 0, 10.0
    probes.append((status, took))
    time.sleep(0.5)
answers = {}
for s in readers:
    s.settimeout(1)
    try:
        line = s.recv(12)
        code = line[9:12].decode() or "closed"
    except OSError:
        code = "none"
    answers[code] = answers.get(code, 0) + 1
_, _, metrics, _ = get("/metrics", source="127.0.0.2")
held = next((l.split()[1] for l in metrics.decode().splitlines() if l.startswith("catalogue_held_files ")), "?")
for s in readers:
    s.close()
with open(LOG, encoding="utf-8", errors="replace") as f:
    alarms = sum("manifest says" in line for line in f)
print(f"D. 700 idle readers of the kept archive at 1,024 descriptors: answered {dict(sorted(answers.items()))}, "
      f"files held {held}; /healthz x10: {sum(s == 200 for s, _ in probes)} answered 200, slowest "
      f"{max(t for _, t in probes) * 1000:.1f} ms; damage alarms logged: {alarms}")
time.sleep(2)

# N. Numbers in paths and parameters, and a day out of range.
_, _, found, _ = get("/gbif/v1/occurrence/search?limit=1")
key = json.loads(found)["results"][0]["key"]
said = []
for path in ["/versions/01/dwca.zip", f"/gbif/v1/occurrence/0{key}", "/api/v2/citation/?version=01",
             "/api/v2/citation/?accessed=-001-01-01"]:
    said.append(f"{path} {get(path)[0]}")
print(f"N. {'; '.join(said)}")

# L. A kept version moved away: the feed's old date.
_, headers, _, _ = get("/versions.rss")
old = headers.get("last-modified", "")
shutil.move(SNAPSHOT + ".versions/1", os.path.join(WORK, "moved-away"))
status, headers, _, _ = get("/versions.rss", headers=f"If-Modified-Since: {old}\r\n")
print(f"L. /versions.rss after its kept version was moved away, asked with the old Last-Modified: {status} "
      f"(Last-Modified now {headers.get('last-modified', 'none: changed within the second')})")
server.terminate()
server.wait()

# C. Formulas in the records' text, on the bundled sample.
SAMPLE = os.path.join(os.path.dirname(HERE), "snapshot", "collection.json")
with open(SAMPLE, encoding="utf-8") as f:
    objects = json.load(f)
formulas = ['=HYPERLINK("http://evil.example","x")', "@SUM(1+1)", "-2+3+cmd|' /C calc'!A0"]
specimens = [o for o in objects if o["model"] == "specimens.specimenrecord"]
for o, formula in zip(specimens, formulas):
    o["fields"]["notes"] = formula
dirty = os.path.join(WORK, "formulas.json")
with open(dirty, "w", encoding="utf-8") as f:
    json.dump(objects, f)
dirty_bin = os.path.join(WORK, "formulas.bin")
subprocess.run([BIN, "build", dirty, "-o", dirty_bin], check=True, capture_output=True)
PORT = free_port()
server = subprocess.Popen([BIN, "serve", "--snapshot", dirty_bin, "--addr", f"127.0.0.1:{PORT}", "--no-watch"],
                          stderr=subprocess.DEVNULL)
wait_healthy()


def formula_cells(text):
    import csv
    import io
    return sum(1 for row in csv.reader(io.StringIO(text)) for cell in row if cell[:1] in ("=", "+", "@")
               or (cell[:1] == "-" and not cell.lstrip("-").replace(".", "", 1).isdigit()))


plain = get("/api/v2/specimen-records/?format=csv")[2].decode()
dwc = get("/api/v2/specimen-records/?format=csv&columns=dwc")[2].decode()
gps = get("/api/v2/gps-coordinates/?format=csv")[2].decode()
negative = sum(1 for line in gps.splitlines() for cell in line.split(",") if cell.startswith("-") and
               cell[1:].replace(".", "", 1).isdigit())
print(f"C. {len(formulas)} formulas in specimens' notes: cells beginning a formula in the CSV {formula_cells(plain)}, "
      f"in the Darwin Core CSV {formula_cells(dwc)}; negative coordinates written as numbers: {negative}")
server.terminate()
server.wait()
subprocess.run(["rm", "-rf", WORK], check=True)
