#!/usr/bin/env bash
# Downloads against nginx serving the very same bytes as a static file, and the
# checklists' rate.
#
#   usage: benches/downloads.sh [SPECIMENS]     (default 100000)
#   env:   ROUNDS (5), CLIENTS (8), DURATION (5s), CONNECTIONS (32), THREADS (2),
#          CATALOGUE_BIN (a catalogue binary to measure instead of building this tree's)
#
# Generates and builds a collection, starts the server, saves the CSV of every
# specimen as a file for nginx, then:
#   1. the CSV of every specimen taken whole by one client, server and nginx
#      alternating, ROUNDS times: MB/s of each (median) and their ratio;
#   2. RSS while CLIENTS clients download it at once: idle, peak (sampled every
#      10 ms) and peak - idle;
#   3. a broad filter's checklist (every specimen of an order), made anew for
#      each request: wrk requests/s.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
rounds=${ROUNDS:-5}
clients=${CLIENTS:-8}
duration=${DURATION:-5s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}

. benches/lib.sh
work=$(mktemp -d)
chmod 755 "$work"
server=
nginx_pid=
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2> /dev/null
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT

generated_snapshot "$n" "$work/collection.bin"
port=$(free_port)
base="http://127.0.0.1:$port"
"$bin" serve --snapshot "$work/collection.bin" --addr "127.0.0.1:$port" --no-watch 2> "$work/server.log" &
server=$!
until curl -sf -o /dev/null "$base/readyz"; do sleep 0.05; done
# The background preparation (sort orders, search words) done, as it is soon
# after a start.
sleep 5
rss() { awk -v k="$1:" '$1 == k {print int($2/1024)}' "/proc/$server/status"; }

csv="/api/v2/specimen-records/?format=csv"
mkdir -p "$work/www"
curl -sf "$base$csv" -o "$work/www/specimens.csv"
chmod -R a+rX "$work/www"
bytes=$(stat -c %s "$work/www/specimens.csv")
start_nginx "$work/www" text/csv
cmp <(curl -sf "http://127.0.0.1:$nginx_port/specimens.csv") <(curl -sf "$base$csv") \
  || { echo "the server's CSV and nginx's file differ"; exit 1; }

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
mbps() { curl -sf -o /dev/null -w '%{speed_download}' "$1" | awk '{print int($1/1048576)}'; }
echo "the CSV of every specimen ($n): $(( bytes / 1048576 )) MB, one client, $rounds rounds alternating, MB/s"
ours=(); theirs=()
for _ in $(seq "$rounds"); do
  ours+=("$(mbps "$base$csv")")
  theirs+=("$(mbps "http://127.0.0.1:$nginx_port/specimens.csv")")
done
o=$(median "${ours[@]}"); t=$(median "${theirs[@]}")
echo "  server: ${ours[*]} (median $o)"
echo "  nginx:  ${theirs[*]} (median $t)"
echo "  ratio:  $(awk -v o="$o" -v t="$t" 'BEGIN {printf "%.2f", o / t}')"

idle=$(rss VmRSS)
peak=$idle
pids=()
for _ in $(seq "$clients"); do
  curl -sf -o /dev/null "$base$csv" &
  pids+=($!)
done
while kill -0 "${pids[@]}" 2> /dev/null; do
  now=$(rss VmRSS)
  [ "$now" -gt "$peak" ] && peak=$now
  sleep 0.01
done
wait "${pids[@]}"
echo "RSS with $clients clients downloading it: idle $idle MB, peak $peak MB, +$(( peak - idle )) MB"

checklist="/api/v2/specimen-records/checklist/?order=a"
echo "checklist of a broad filter ($checklist: $(curl -sf "$base$checklist" | python3 -c 'import json,sys; m=json.load(sys.stdin)["meta"]; print(m["specimens"], "specimens,", m["total_count"], "taxa")'))"
rps=$(wrk -t"$threads" -c"$connections" -d"$duration" "$base$checklist" | awk '/Requests\/sec/ {print int($2)}')
echo "  wrk -t$threads -c$connections -d$duration: $rps requests/s"
