#!/usr/bin/env bash
# What hostile clients of the media files cost (issue 57's first row), on a
# generated collection served with --media-dir:
#   M. the memory the server holds (RSS and memory files) idle, and its highest
#      while 16 clients loop a 100 MB photograph; the latency of /api/v2/orders/
#      (wrk, 1 connection, --latency) meanwhile;
#   N. links out of the folder, a FIFO and a directory named .jpg, each asked
#      20 times: their statuses, the server's threads after and 12 s later
#      (idle blocking threads end after 10 s), and how long a
#      SIGTERM takes to end the process.
#
#   usage: benches/media.sh [SPECIMENS]        (default 100000)
#   env:   SECONDS_OF_LOAD (20), CATALOGUE_BIN (a binary instead of this tree's)
# Loopback only; every loop is bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
load=${SECONDS_OF_LOAD:-20}
. benches/lib.sh
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill -9 "$server" 2> /dev/null
  # (errexit holds in the trap: a job already ended must not fail the run)
  jobs -p | xargs -r kill 2> /dev/null || true
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
generated_snapshot "$n" "$work/c.bin"
media=$work/media
mkdir -p "$media/original_images" "$media/images/dir.jpg"
head -c 100000000 /dev/urandom > "$media/original_images/big.jpg"
ln -s /etc/passwd "$media/images/passwd.jpg"
ln -s / "$media/images/root.jpg"
mkfifo "$media/images/fifo.jpg"
port=$(free_port)
base="http://127.0.0.1:$port"
"$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$port" --no-watch --media-dir "$media" 2> "$work/server.log" &
server=$!
wait_ready "$base/healthz"
wait_idle "$server"
idle=$(held_mb "$server")
echo "$n specimens; server holds $idle MB idle"

loops=()
for _ in $(seq 16); do
  (end=$((SECONDS + load)); while [ $SECONDS -lt $end ]; do
    curl -s -m $((load + 10)) -o /dev/null "$base/media/original_images/big.jpg"
  done) &
  loops+=($!)
done
peak=0
(sleep 2; wrk -t1 -c1 -d$((load - 4))s --latency "$base/api/v2/orders/" > "$work/probe.txt") &
loops+=($!)
for _ in $(seq $((load * 2))); do
  now=$(held_mb "$server"); [ "$now" -gt "$peak" ] && peak=$now
  sleep 0.5
done
wait "${loops[@]}" 2> /dev/null || true
probe=$(awk '$1 == "50%" {p50=$2} $1 == "99%" {p99=$2} END {print p50 " / " p99}' "$work/probe.txt")
echo "M. 16 clients looping a 100 MB file: held $idle MB idle, highest $peak MB (+$((peak - idle)) MB); orders probe p50 / p99 $probe"

for path in images/passwd.jpg images/root.jpg/etc/passwd.jpg images/fifo.jpg images/dir.jpg; do
  codes=$(for _ in $(seq 20); do curl -s -m 5 -o /dev/null -w '%{http_code} ' "$base/media/$path"; done)
  echo "N. /media/$path x20: $(echo "$codes" | tr -s ' ' '\n' | sed '/^$/d' | sort | uniq -c | awk '{printf "%s x%s ", $2, $1}')"
done
# Idle blocking threads (the file's pieces were read on them) end after tokio's
# 10 s keep-alive; a thread held by a request would still be there.
threads() { awk '$1 == "Threads:" {print $2}' "/proc/$server/status"; }
echo "N. threads after: $(threads); 12 s later: $(sleep 12; threads)"
started=$(date +%s%N)
kill -TERM "$server"
while kill -0 "$server" 2> /dev/null; do
  [ "$(ms "$started")" -gt 30000 ] && break
  sleep 0.05
done
if kill -0 "$server" 2> /dev/null; then
  echo "N. SIGTERM: still running after 30 s"
else
  echo "N. SIGTERM: exited after $(ms "$started") ms"
  server=
fi
