#!/usr/bin/env bash
# What label sheets cost, on a generated collection, with the server idle (its
# background preparation done):
#   A. 10,000 data labels with QR codes (and the same count of QR-sheet and
#      determination labels): seconds to the last byte, median of ROUNDS;
#   B. the sheet of every specimen (the QR sheet, then data labels with codes):
#      seconds, bytes, and resident memory above idle at its highest (sampled
#      every 50 ms while the sheet streams to a client that reads at once).
#
#   usage: benches/labels.sh [SPECIMENS]      (default 100000)
#   env:   ROUNDS (5), CATALOGUE_BIN (a binary instead of this tree's)
# Loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
rounds=${ROUNDS:-5}
. benches/lib.sh
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
generated_snapshot "$n" "$work/c.bin"
port=$(free_port)
base="http://127.0.0.1:$port"
RUST_LOG=info "$bin" serve --snapshot "$work/c.bin" --addr "127.0.0.1:$port" --no-watch 2> "$work/server.log" &
server=$!
until curl -sf -o /dev/null "$base/healthz"; do sleep 0.05; done
rss() { awk '$1 == "VmRSS:" {print int($2/1024)}' "/proc/$server/status"; }
cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# Idle: the sort orders and words built, then no CPU used for a second.
until grep -q 'search words built' "$work/server.log"; do sleep 0.2; done
while :; do
  before=$(cpu); sleep 1
  [ "$(cpu)" = "$before" ] && break
done
labels="$base/api/v2/specimen-records/labels/"
echo "$n specimens; server RSS idle: $(rss) MB"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "A. 10,000 labels, seconds to the last byte (median of $rounds; each round's times):"
for query in "kind=data&qr=true" "kind=qr" "kind=determination"; do
  times=()
  for _ in $(seq "$rounds"); do
    times+=("$(curl -s -o "$work/sheet" -w '%{time_total}' "$labels?$query&limit=10000")")
  done
  printf '   %-22s %s s  (%s)  %s bytes\n' "$query" "$(printf '%s\n' "${times[@]}" | median)" \
    "${times[*]}" "$(stat -c %s "$work/sheet")"
done

echo "B. every specimen's label, streamed: seconds, bytes, RSS above idle at its highest:"
for query in "kind=qr" "kind=data&qr=true"; do
  idle=$(rss)
  peak=$idle
  curl -s -o "$work/sheet" -w '%{time_total}\n' "$labels?$query" > "$work/time" &
  fetch=$!
  while kill -0 "$fetch" 2> /dev/null; do
    now=$(rss); [ "$now" -gt "$peak" ] && peak=$now
    sleep 0.05
  done
  wait "$fetch"
  printf '   %-22s %s s  %s bytes  %s pages  RSS %s -> %s MB (+%s)\n' "$query" "$(cat "$work/time")" \
    "$(stat -c %s "$work/sheet")" "$(grep -ac '/Type /Page$' "$work/sheet" || true)" "$idle" "$peak" $((peak - idle))
done
