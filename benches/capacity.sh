#!/usr/bin/env bash
# What a replica needs, per collection size: the numbers behind docs/deployment.md's
# capacity table and the Kubernetes probes and resources.
#
#   usage: benches/capacity.sh [SPECIMENS ...]     (default 10000 100000 1000000)
#   env:   CATALOGUE_BIN (default: this tree's release build)
#
# For each size: the snapshot's size, the time from `serve` starting to its first
# answer, resident memory once serving (after the background preparation of sort
# orders and search words), and the peak while a hot reload holds the old and the
# new view at once (a snapshot one specimen larger is renamed over the served
# file; read once the new view is prepared too). One line per size.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
. benches/lib.sh
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"; }
trap cleanup EXIT
mb() { awk -v k="$1:" '$1 == k {print int($2/1024)}' "/proc/$server/status"; }
total() { curl -sf "http://127.0.0.1:$1/api/v2/specimen-records/?limit=0" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["total_count"])' 2> /dev/null || echo 0; }

printf '%-10s %12s %16s %12s %16s %14s\n' specimens snapshot_MB first_answer_ms RSS_MB reload_peak_MB reload_ms
for n in "${sizes[@]}"; do
  for size in "$n" "$((n + 1))"; do
    "$bin" generate --specimens "$size" --seed 1 -o "$work/c.json" > /dev/null
    "$bin" build "$work/c.json" -o "$work/$size.bin" > /dev/null
    rm "$work/c.json"
  done
  cp "$work/$n.bin" "$work/served.bin"
  port=$(free_port)
  t=$(date +%s%N)
  "$bin" serve --snapshot "$work/served.bin" --addr "127.0.0.1:$port" --drain 0 2> "$work/log" &
  server=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do sleep 0.02; done
  first=$(ms "$t")
  prepared() { [ "$(grep -c 'search words built' "$work/log")" -ge "$1" ]; }
  until prepared 1; do sleep 0.1; done
  rss=$(mb VmRSS)
  cp "$work/$((n + 1)).bin" "$work/.incoming"
  t=$(date +%s%N)
  mv "$work/.incoming" "$work/served.bin"
  until [ "$(total "$port")" = "$((n + 1))" ]; do sleep 0.05; done
  reload=$(ms "$t")
  until prepared 2; do sleep 0.1; done
  printf '%-10s %12s %16s %12s %16s %14s\n' "$n" "$(( $(stat -c %s "$work/$n.bin") / 1048576 ))" \
    "$first" "$rss" "$(mb VmHWM)" "$reload"
  kill "$server"
  wait "$server" 2> /dev/null || true
  server=
  rm -f "$work"/*.bin
done
