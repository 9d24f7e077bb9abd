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
# file; read once the new view is prepared too). One line per size, then, per size,
# the load's phases (each step's milliseconds, and the rates of reading and
# rendering: the server's `view loaded` line), the user and system CPU seconds the
# server had used at its first answer, its resident memory against the rendered
# bytes, and the machine's own limit for comparison: the seconds two processes
# take to touch as much fresh memory as the server holds (the kernel's cost of new
# pages swings from day to day on a VM, so a load's wall time means little alone).
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
# User and system CPU seconds of a process (fields 14 and 15 of /proc/PID/stat).
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "user=%.2fs sys=%.2fs", $14/hz, $15/hz}' "/proc/$1/stat"; }
# Seconds two processes take to write one byte in every page of MB fresh MiB between them.
touch_s() {
  local t
  t=$(date +%s%N)
  for _ in 1 2; do
    python3 -c 'import sys; b = bytearray(int(sys.argv[1]) << 19); b[::4096] = b"\1" * len(range(0, len(b), 4096))' "$1" &
  done
  wait
  awk -v ns="$(( $(date +%s%N) - t ))" 'BEGIN {printf "%.2f", ns / 1e9}'
}
details=()
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
  at_first=$(cpu "$server")
  prepared() { [ "$(grep -c 'search words built' "$work/log")" -ge "$1" ]; }
  until prepared 1; do sleep 0.1; done
  rss=$(mb VmRSS)
  rendered=$(grep -o 'rendered_bytes=[0-9]*' "$work/log" | head -1 | cut -d= -f2)
  details+=("$n: $(grep -o 'phases=.*rendered_bytes' "$work/log" | head -1 | sed 's/ rendered_bytes$//')")
  details+=("$n: first answer ${first} ms, CPU until then $at_first; RSS ${rss} MB = $(awk -v r="$rss" -v b="$rendered" 'BEGIN {printf "%.2f", r * 1048576 / b}') x the rendered $(( rendered / 1048576 )) MB; two processes touch ${rss} MB in $(touch_s "$rss") s")
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
printf '%s\n' "${details[@]}"
