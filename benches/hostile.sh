#!/usr/bin/env bash
# What hostile clients cost, on a generated collection (issue rows 1-3):
#   1. one request with a sort key repeated 300 times;
#   2. the latency of /api/v2/orders/ (wrk, 1 connection, --latency) while 16
#      clients loop the most expensive question the API takes;
#   3. resident memory while 12 clients read the most expensive answer at 1 KB/s.
#
#   usage: benches/hostile.sh [SPECIMENS]      (default 100000)
#   env:   SECONDS_OF_LOAD (20), CATALOGUE_BIN (a binary instead of this tree's)
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
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null
  jobs -p | xargs -r kill 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
"$bin" generate --specimens "$n" --seed 1 -o "$work/c.json" > /dev/null
"$bin" build "$work/c.json" -o "$work/c.bin" > /dev/null
rm "$work/c.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
"$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$port" --no-watch 2> "$work/server.log" &
server=$!
until curl -sf -o /dev/null "$base/healthz"; do sleep 0.05; done
rss() { awk -v k="$1:" '$1 == k {print int($2/1024)}' "/proc/$server/status"; }
echo "$n specimens; server RSS idle: $(rss VmRSS) MB"

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
wait_jobs() { for j in $(jobs -p); do [ "$j" = "$server" ] || wait "$j" 2> /dev/null || true; done; }
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
peak=0
for _ in $(seq $((load * 2))); do
  now=$(rss VmRSS); [ "$now" -gt "$peak" ] && peak=$now
  sleep 0.5
done
wait_jobs
echo "3. 12 clients reading the most expensive answer at 1 KB/s: RSS idle $idle MB, highest $peak MB (+$((peak - idle)) MB), peak of the process $(rss VmHWM) MB"
