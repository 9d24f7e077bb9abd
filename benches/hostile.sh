#!/usr/bin/env bash
# What hostile clients cost, on a generated collection. First round:
#   1. one request with a sort key repeated 300 times;
#   2. the latency of /api/v2/orders/ (wrk, 1 connection, --latency) while 16
#      clients loop the most expensive question the API takes;
#   3. resident memory while 12 clients read the most expensive answer at 1 KB/s.
# Second round (the probe is the same wrk on /api/v2/orders/):
#   H. a 7,900-byte Host (refused), and RSS while 40 sockets that read nothing
#      ask for the whole insect image list under a 255-byte Host;
#   C. 16 clients loop ~7.8 MB pages with Accept-Encoding: br (compressed per
#      response, on the work pool);
#   F. 16 clients loop the plain specimen list with every facetable field,
#      facet_size=1000;
#   P. 32 clients loop HTML list pages of 500 rows at random offsets, then the
#      same with every facet;
#   L. 8 clients loop label sheets of 2,000 data labels with QR codes (work
#      on the pool, streamed a page at a time);
#   T. RSS before and after the served file is touched and reloaded (SIGHUP);
#   S. three swaps (SIGHUP after a new file) while 4 clients read a streamed
#      answer at 128 KB/s: how long each swap takes to be served, RSS after.
# Third round (the media files' rows are benches/media.sh's; ROUND=3 runs only
# these):
#   Q. the latency of a search (wrk, 1 connection, on the pool) idle, then while
#      96 clients loop sheets of 100,000 data labels with QR codes, and while 16
#      loop /dwca.zip and 16 the archive of a question; the loops' statuses;
#   R. memory while 300 clients read NDJSON downloads of every specimen at about
#      0.03 bytes a second, what they were answered, and how many of their
#      connections are left after 45 s;
#   K. the memo: 2,000 pages asked ten times each, then a flood of 2,000 new
#      keys asked twice (a ready-compressed list under as many Hosts): how many
#      of the 2,000 pages are still replayed; then its bytes, as charged,
#      against the heap it took, filled with 20,000 pages (the growth of what
#      it holds, RSS and memory files, less that of a server without a memo
#      asked the same);
#   D. a server under a descriptor limit of 1,024 holding 2,000 idle
#      connections: how long a health probe waits (the idlest close to make room).
#
# Fourth round (benches/hostile4.py, against a watching server of its own;
# ROUND=4 runs only these): slow form bodies across reloads, 2,000 connections
# of 1 MB forms then a byte a second, a billion bytes announced with
# `Expect: 100-continue`, a search probe while 1, 4 and 70 clients loop
# 10,000-vertex polygons, a 0.9 MB form of unknown names, changes since before
# version 1 (rows A to F); a dataset file that injects BibTeX, a 50 MB title, a
# FIFO, a link to /etc/shadow, controls in names, and controls in the records'
# text (rows G to K, on the bundled sample).
#
# Fifth round (ROUND=5): the server's rows (benches/hostile5.py, against a
# server of its own under a limit of 1,024 descriptors): the Host in XML (V), a
# media file replaced by an older copy asked with its old date (M), one
# address's slow forms beside another's (F), 700 idle readers of a kept archive
# beside a health probe (D), a kept version moved away (L), numbers with
# leading zeros and a day out of range (N), formulas in CSV cells (C); then
# benches/hostile5_files.py: the publishing report with 20,000 records held
# back beside a cheap request (P), and a crafted sparse snapshot's memory (S).
#
#   usage: benches/hostile.sh [SPECIMENS]      (default 100000)
#   env:   SECONDS_OF_LOAD (20), CATALOGUE_BIN (a binary instead of this tree's),
#          ROUND (3: the third round's rows only; 12: the first two's; 4: the
#          fourth's; 5: the fifth's)
# Loopback only; every loop is bounded in time. Installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
load=${SECONDS_OF_LOAD:-20}
command -v wrk > /dev/null || {
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq > /dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq wrk > /dev/null
}
. benches/lib.sh
if [ "${ROUND:-all}" = 4 ]; then
  exec python3 benches/hostile4.py "$bin" "$n"
fi
if [ "${ROUND:-all}" = 5 ]; then
  # The server's rows, then files and the publishing report.
  python3 benches/hostile5.py "$bin" "$n"
  python3 benches/hostile5_files.py "$bin" "$n"
  exit 0
fi
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null
  jobs -p | xargs -r kill 2> /dev/null || true
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
generated_snapshot "$n" "$work/c.bin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$port" --no-watch 2> "$work/server.log" &
server=$!
until curl -sf -o /dev/null "$base/healthz"; do sleep 0.05; done
rss() { awk -v k="$1:" '$1 == k {print int($2/1024)}' "/proc/$server/status"; }
# The highest RSS over the load's length, sampled every half second.
highest_rss() {
  local peak=0 now
  for _ in $(seq $((load * 2))); do
    now=$(rss VmRSS); [ "$now" -gt "$peak" ] && peak=$now
    sleep 0.5
  done
  echo "$peak"
}
echo "$n specimens; server RSS idle: $(rss VmRSS) MB"

wait_jobs() { for j in $(jobs -p); do [ "$j" = "$server" ] || wait "$j" 2> /dev/null || true; done; }
# Rounds one and two (not indented: ROUND=3 skips them).
if [ "${ROUND:-all}" != 3 ]; then

# 1. A sort key repeated 300 times (a 1.8 KB query).
keys=$(python3 -c 'print(",".join(["notes"] * 300))')
echo "1. sort=notes x300: $(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' "$base/api/v2/specimen-records/?sort=$keys")"

# 2. Sixteen clients loop the most expensive question; one probe measures orders.
expensive="/api/v2/specimen-records/?search=a+e+i+o+u+r+s+t+l+n+c+m+d+p+h+g&sort=-notes,usi&facet=family,year,collector,country&limit=100000"
for _ in $(seq 16); do
  (end=$((SECONDS + load)); while [ $SECONDS -lt $end ]; do curl -s -o /dev/null "$base$expensive"; done) &
done
sleep 2
echo "2. /api/v2/orders/ while 16 clients loop the most expensive question:"
wrk -t1 -c1 -d$((load - 4))s --latency "$base/api/v2/orders/" | sed -n '/Latency Distribution/,/99%/p'
wait_jobs

# 3. Twelve clients read the most expensive answer at 1 KB/s.
idle=$(rss VmRSS)
python3 - "$port" "$expensive" "$load" << 'EOF' &
import socket, sys, threading, time
port, path, seconds = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def slow():
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\n\r\n".encode())
    end = time.time() + seconds
    while time.time() < end:
        try:
            if not s.recv(1024):
                break
        except OSError:
            break
        time.sleep(1)
threads = [threading.Thread(target=slow) for _ in range(12)]
for t in threads: t.start()
for t in threads: t.join()
EOF
peak=$(highest_rss)
wait_jobs
echo "3. 12 clients reading the most expensive answer at 1 KB/s: RSS idle $idle MB, highest $peak MB (+$((peak - idle)) MB), peak of the process $(rss VmHWM) MB"

# A probe of /api/v2/orders/ while `clients` loop a curl (its arguments; OFFSET
# in them becomes a random offset each time).
probe_while() {
  local clients=$1 label=$2
  shift 2
  for _ in $(seq "$clients"); do
    (end=$((SECONDS + load)); while [ $SECONDS -lt $end ]; do
      args=(); for a in "$@"; do args+=("${a//OFFSET/$(( (RANDOM * 32768 + RANDOM) % n ))}"); done
      curl -s -o /dev/null "${args[@]}"
    done) &
  done
  sleep 2
  echo "$label: probe p50 / p99 $(wrk -t1 -c1 -d$((load - 4))s --latency "$base/api/v2/orders/" | awk '$1 == "50%" {p50=$2} $1 == "99%" {p99=$2} END {print p50 " / " p99}')"
  wait_jobs
}

# H. A Host of 7,900 bytes, then 40 long-Host sockets that read nothing.
long=$(python3 -c 'print("h" * 7900)')
echo "H. Host of 7,900 bytes: $(curl -s -o /dev/null -w '%{http_code}' -H "Host: $long" "$base/api/v2/insect-images/?limit=100000")"
idle=$(rss VmRSS)
python3 - "$port" "$load" << 'EOF' &
import socket, sys, time
port, seconds = int(sys.argv[1]), int(sys.argv[2])
host = ("h" * 63 + ".") * 3 + "h" * 60 + ":80"  # 255 bytes
socks = []
for _ in range(40):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(f"GET /api/v2/insect-images/?limit=100000 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    socks.append(s)
time.sleep(seconds)
EOF
peak=$(highest_rss)
wait_jobs
echo "H. 40 sockets reading nothing, 255-byte Host, whole insect image list: RSS idle $idle MB, highest $peak MB (+$((peak - idle)) MB)"

# C. Pages of about 7.8 MB at random offsets (none compressed before), brotli.
per_item=$(( $(curl -s "$base/api/v2/specimen-records/?limit=100" | wc -c) / 100 ))
big=$(( 7800000 / per_item ))
probe_while 16 "C. 16 clients looping $big-item pages with Accept-Encoding: br" \
  -H 'Accept-Encoding: br' "$base/api/v2/specimen-records/?limit=$big&offset=OFFSET"

# F. Every facetable field of the specimen list, facet_size=1000, no filter.
facets=$(python3 - "$base" << 'EOF'
import json, sys, urllib.error, urllib.request
base = sys.argv[1]
item = json.load(urllib.request.urlopen(f"{base}/api/v2/specimen-records/?limit=1"))["items"][0]
ok = []
for field in item:
    try:
        urllib.request.urlopen(f"{base}/api/v2/specimen-records/?limit=0&facet={field}")
        ok.append(field)
    except urllib.error.HTTPError:
        pass
print(",".join(ok))
EOF
)
probe_while 16 "F. 16 clients looping every facet ($facets), facet_size=1000" \
  "$base/api/v2/specimen-records/?facet=$facets&facet_size=1000"

# P. HTML pages of 500 rows at random offsets, without and with every facet.
probe_while 32 "P. 32 clients looping HTML pages of 500 rows" \
  -H 'Accept: text/html' "$base/api/v2/specimen-records/?limit=500&offset=OFFSET"
probe_while 32 "P. 32 clients looping HTML pages of 500 rows with every facet" \
  -H 'Accept: text/html' "$base/api/v2/specimen-records/?limit=500&offset=OFFSET&facet=$facets"

# L. Label sheets: made on the pool a page at a time, never on the async workers.
probe_while 8 "L. 8 clients looping sheets of 2,000 data labels with codes" \
  "$base/api/v2/specimen-records/labels/?kind=data&qr=true&limit=2000&offset=OFFSET"

# T. The served file touched and reloaded: nothing may be built.
sleep 2
before=$(rss VmRSS)
for _ in 1 2 3; do touch "$work/c.bin"; kill -HUP "$server"; sleep 1; done
echo "T. touched and reloaded three times: RSS $before -> $(rss VmRSS) MB"

# S. Three swaps while slow clients read streamed answers.
one_view=$(rss VmRSS)
for seed in 2 3 4; do
  "$bin" generate --specimens "$n" --seed "$seed" -o "$work/s.json" > /dev/null
  "$bin" build "$work/s.json" -o "$work/s$seed.bin" > /dev/null
done
rm -f "$work/s.json"
for _ in 1 2 3 4; do
  curl -s --limit-rate 128k -o /dev/null "$base/api/v2/specimen-records/?limit=100000&sort=id" &
done
sleep 1
for seed in 2 3 4; do
  old=$(curl -s "$base/readyz")
  cp "$work/s$seed.bin" "$work/c.bin.new" && mv "$work/c.bin.new" "$work/c.bin"
  started=$(date +%s.%N)
  kill -HUP "$server"
  while [ "$(curl -s "$base/readyz")" = "$old" ]; do sleep 0.05; done
  echo "S. swap $((seed - 1)) served after $(python3 -c "print(round($(date +%s.%N) - $started, 2))") s, RSS $(rss VmRSS) MB"
  sleep 3
done
sleep 12
echo "S. after three swaps with slow readers: RSS $(rss VmRSS) MB (one view: $one_view MB)"
for j in $(jobs -p); do [ "$j" = "$server" ] || kill "$j" 2> /dev/null || true; done
wait_jobs
fi # rounds one and two
[ "${ROUND:-all}" = 12 ] && exit 0

# Q. A search on the pool while streams and archives are asked for: each at
# another offset, so none is replayed.
cat > "$work/search.lua" << 'EOF'
n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/api/v2/specimen-records/?search=ana&limit=20&offset=" .. n)
end
EOF
search_while() {
  local clients=$1 label=$2 url=${3:-} loops= probe answered=
  # The loops are wrk's connections (a curl started per request took more of
  # the two cores than the server did).
  if [ "$clients" -gt 0 ]; then
    wrk -t2 -c"$clients" -d${load}s --timeout 30s "$url" > "$work/loops.txt" 2>&1 &
    loops=$!
  fi
  sleep 2
  probe=$(wrk -t1 -c1 -d$((load - 4))s --latency -s "$work/search.lua" "$base" | awk '$1 == "50%" {p50=$2} $1 == "99%" {p99=$2} END {print p50 " / " p99}')
  if [ -n "$loops" ]; then
    wait "$loops" || true
    answered="; the loops: $(awk '/requests in/ {n = $1} /Non-2xx/ {refused = $5} END {print n - refused " answered 2xx, " refused + 0 " not (503)"}' "$work/loops.txt")"
  fi
  echo "$label: search p50 / p99 $probe$answered"
}
search_while 0 "Q. idle"
search_while 96 "Q. 96 clients looping sheets of 100,000 data labels with codes" \
  "$base/api/v2/specimen-records/labels/?kind=data&qr=true&limit=100000"
search_while 16 "Q. 16 clients looping /dwca.zip" "$base/dwca.zip"
search_while 16 "Q. 16 clients looping the archive of a question" "$base/dwca.zip?search=a"

# R. 300 slow readers of NDJSON downloads of every specimen; memory as the
# server holds it (RSS and memory files), its peak sampled every 20 ms.
sleep 2
idle=$(held_mb "$server")
python3 benches/memory.py "$server" --peak > "$work/peak.txt" &
sampler=$!
python3 - "$port" > "$work/slow.txt" << 'EOF' &
import socket, subprocess, sys, time
port = int(sys.argv[1])
socks = []
for _ in range(300):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/v2/specimen-records/?format=ndjson HTTP/1.1\r\nHost: t\r\n\r\n")
    socks.append(s)
# The status line, then one byte each every 30 s: about 0.03 bytes a second.
statuses = {}
for s in socks:
    got = s.recv(12)
    status = got[9:12].decode() or "none"
    statuses[status] = statuses.get(status, 0) + 1
def established():
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                         capture_output=True, text=True).stdout
    return len(out.splitlines())
time.sleep(30)
for s in socks:
    s.recv(1)
time.sleep(15)
print(" ".join(f"{n} {s}" for s, n in sorted(statuses.items())), f"; connections left after 45 s: {established()}")
EOF
slow=$!
wait "$slow" 2> /dev/null || true
kill -TERM "$sampler"; wait "$sampler" 2> /dev/null || true
peak=$(cut -d' ' -f1 "$work/peak.txt")
echo "R. 300 slow readers of NDJSON downloads: held (RSS + memory files) idle $idle MB, highest $peak MB (+$((peak - idle)) MB); answered $(cat "$work/slow.txt")"

# K. The memo against a flood of new keys, and its bytes against its heap.
# Two more servers for the heap: one with the default budget, one without a memo.
fresh_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$fresh_port" --no-watch --drain 0 2> "$work/fresh.log" &
fresh=$!
bare_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$bare_port" --no-watch --drain 0 --replay-budget 0 2> "$work/bare.log" &
bare=$!
until curl -sf -o /dev/null "http://127.0.0.1:$bare_port/healthz" && curl -sf -o /dev/null "http://127.0.0.1:$fresh_port/healthz"; do sleep 0.05; done
wait_idle "$fresh"
wait_idle "$bare"
python3 - "$port" "$server" "$fresh_port" "$fresh" "$bare_port" "$bare" << 'EOF'
import http.client, sys
port, pid = int(sys.argv[1]), sys.argv[2]
fresh_port, fresh, bare_port, bare = int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6]
def metric(name, port=port):
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("GET", "/metrics")
    for line in c.getresponse().read().decode().splitlines():
        if line.startswith(name + " "):
            return int(float(line.split()[1]))
    return 0
def ask(paths, headers=lambda i: {}, port=port):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for i, p in enumerate(paths):
        c.request("GET", p, headers=headers(i))
        c.getresponse().read()
sys.path.insert(0, "benches")
import memory
def held_mib(pid):
    """MiB held: RSS and memory files (benches/memory.py)."""
    return memory.held(int(pid))[0] / 1024
hot = [f"/api/v2/specimen-records/?limit=1&offset={i}" for i in range(2000)]
ask(hot * 10)
held = metric("catalogue_replay_answers")
flood = ["/api/v2/orders/"] * 4000
ask(flood, lambda i: {"Host": f"h{i // 2}.example", "Accept-Encoding": "br"})
before = metric("catalogue_replayed_answers_total")
ask(hot)
replayed = metric("catalogue_replayed_answers_total") - before
print(f"K. after a flood of 2,000 new keys asked twice: {replayed} of 2,000 pages asked ten times replayed ({held} answers held before)")
fill = [f"/api/v2/specimen-records/?limit=10&offset={i}" for i in range(2000, 22000)]
fill = [p for p in fill for _ in range(2)]
before = held_mib(fresh), held_mib(bare)
ask(fill, port=fresh_port)
ask(fill, port=bare_port)
grown, bare_grown = held_mib(fresh) - before[0], held_mib(bare) - before[1]
charged = metric('catalogue_replay_bytes', fresh_port) / 2**20
print(f"K. a fresh server asked 20,000 pages twice: {metric('catalogue_replay_answers', fresh_port)} answers kept, charged "
      f"{charged:.1f} MiB; held (RSS + memory files) +{grown:.1f} MiB, without a memo +{bare_grown:.1f} MiB: "
      f"the memo {(grown - bare_grown) / charged:.2f}x its charge")
EOF
kill "$fresh" "$bare"; wait "$fresh" "$bare" 2> /dev/null || true

# D. Out of descriptors: 2,000 idle connections to a server limited to 1,024.
dport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sh -c "ulimit -n 1024 && exec '$bin' serve --snapshot '$work/c.bin' --addr 127.0.0.1:$dport --no-watch --drain 0" 2> "$work/limited.log" &
limited=$!
until curl -sf -o /dev/null "http://127.0.0.1:$dport/healthz"; do sleep 0.05; done
python3 - "$dport" << 'EOF'
import socket, sys, time
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2000)]
time.sleep(1)
started = time.monotonic()
probe = socket.create_connection(("127.0.0.1", port))
probe.settimeout(10)
probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
try:
    answer = probe.recv(64).split(b"\r\n")[0].decode()
except OSError as e:
    answer = f"nothing ({e})"
print(f"D. 2,000 idle connections under a descriptor limit of 1,024: probe {answer} after {time.monotonic() - started:.3f} s")
EOF
kill "$limited"; wait "$limited" 2> /dev/null || true

# The fourth round, with a server of its own.
if [ "${ROUND:-all}" = all ]; then
  kill "$server"; wait "$server" 2> /dev/null || true; server=
  python3 benches/hostile4.py "$bin" "$n"
  python3 benches/hostile5.py "$bin" "$n"
fi
