#!/usr/bin/env bash
# What a replica needs, per collection size: the numbers behind docs/deployment.md's
# capacity table and the Kubernetes probes and resources.
#
#   usage: benches/capacity.sh [SPECIMENS ...]     (default 10000 100000 1000000)
#   env:   CATALOGUE_BIN (default: this tree's release build)
#
# For each size: the snapshot's size, the time from `serve` starting to its first
# answer, the memory the server holds once serving (after the background
# preparation of sort orders and search words), and the peak while a hot reload
# holds the old and the new view at once (a snapshot one specimen larger is
# renamed over the served file; sampled every 20 ms until the new view is
# prepared too). Memory is resident memory plus the memory files the rendered
# lists live in (benches/memory.py): RSS alone leaves those out. One line per
# size, then, per size, the load's phases (each step's milliseconds, and the rates
# of reading and rendering: the server's `view loaded` line), the user and system
# CPU seconds the server had used at its first answer, its memory against the
# rendered bytes at the first answer, once prepared and at the reload's peak, and
# the machine's own limit for comparison: the seconds two processes take to touch
# as much fresh memory as the server holds (the kernel's cost of new pages swings
# from day to day on a VM, so a load's wall time means little alone).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
. benches/lib.sh
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"; }
trap cleanup EXIT
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
# MB as a multiple of a byte count.
times() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a * 1048576 / b}'; }

printf '%-10s %12s %16s %12s %16s %14s\n' specimens snapshot_MB first_answer_ms memory_MB reload_peak_MB reload_ms
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
  wait_ready "http://127.0.0.1:$port/readyz"
  first=$(ms "$t")
  at_first=$(cpu "$server")
  held_first=$(held_mb "$server")
  prepared() { [ "$(grep -c 'search words built' "$work/log")" -ge "$1" ]; }
  until prepared 1; do sleep 0.1; done
  wait_idle "$server"
  held=$(held_mb "$server")
  rendered=$(grep 'made of fragments rendered' "$work/log" | head -1 | grep -o 'rendered_bytes=[0-9]*' | cut -d= -f2)
  details+=("$n: $(grep -o 'phases=.*rendered_bytes' "$work/log" | head -1 | sed 's/ rendered_bytes$//')")
  cp "$work/$((n + 1)).bin" "$work/.incoming"
  python3 benches/memory.py "$server" --peak > "$work/peak" &
  sampler=$!
  t=$(date +%s%N)
  mv "$work/.incoming" "$work/served.bin"
  until grep -q 'view swapped' "$work/log"; do sleep 0.05; done
  reload=$(ms "$t")
  until prepared 2; do sleep 0.1; done
  wait_idle "$server"
  kill -TERM "$sampler"
  wait "$sampler"
  peak=$(cat "$work/peak")
  details+=("$n: first answer ${first} ms, CPU until then $at_first; memory $held_first MB at the first answer, $held MB once prepared, $peak MB at the reload's peak: $(times "$held_first" "$rendered"), $(times "$held" "$rendered") and $(times "$peak" "$rendered") x the rendered $(( rendered / 1048576 )) MB; two processes touch $held MB in $(touch_s "$held") s")
  printf '%-10s %12s %16s %12s %16s %14s\n' "$n" "$(( $(stat -c %s "$work/$n.bin") / 1048576 ))" \
    "$first" "$held" "$peak" "$reload"
  kill "$server"
  wait "$server" 2> /dev/null || true
  server=
  rm -f "$work"/*.bin
done
printf '%s\n' "${details[@]}"
