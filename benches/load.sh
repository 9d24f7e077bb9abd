#!/usr/bin/env bash
# The served speed against nginx serving the very same bytes as static files.
#
#   usage: benches/load.sh [SPECIMENS] [questions|html]     (default 100000)
#   env:   ROUNDS (5), DURATION (5s), CONNECTIONS (32), THREADS (2), KINDS (of questions),
#          OFFSET (of the deep page: SPECIMENS / 2),
#          CATALOGUE_BIN (a catalogue binary to measure instead of building this tree's)
#
# Builds the release binary, generates and builds a collection, starts the server,
# saves three answers as files for nginx, waits until the server is idle (its
# background preparation and compression done), then runs wrk against each URL,
# server and nginx alternating, ROUNDS times. Prints requests/s per round, the median of each
# side and the ratio server / nginx; also build time, time to first answer, and the
# memory the server holds (RSS plus the memory files its rendered lists live in).
#
# With `questions`: no nginx, and no answer replayed (`--replay-budget 0`); instead the
# cold questions, each kind drawn from 600
# distinct requests (benches/questions.py writes the wrk script): a substring filter
# on the family's name (40 fragments), a one-word search (the 60 commonest words),
# a sort on any sortable field either way at offsets up to 50,000, a facet on any
# facetable field; all at random offsets, so no answer repeats often. `KINDS=suggest`
# asks for suggestions of 3,000 distinct starts and typos of the collection's names;
# `KINDS=issue` for the records of one or two quality flags (or of none).
# Each kind's p99 latency (wrk --latency) is the median of the rounds'.
#
# With `html`: no nginx; each URL as JSON and as a page (`Accept: text/html`, what a
# browser sends), alternating, and the ratio page / JSON.
# Installs wrk and nginx from the system's packages when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
mode=${2:-pages}
rounds=${ROUNDS:-5}
duration=${DURATION:-5s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}

missing=()
command -v wrk > /dev/null || missing+=(wrk)
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing ${missing[*]} from the system's packages"
  $sudo apt-get update -qq > /dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" > /dev/null
fi

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

t=$(date +%s%N)
"$bin" generate --specimens "$n" --seed 1 -o "$work/collection.json" > /dev/null
echo "generate $n specimens: $(ms "$t") ms, $(( $(stat -c %s "$work/collection.json") / 1048576 )) MB of fixtures"
t=$(date +%s%N)
/usr/bin/time -f "%M" -o "$work/build.rss" "$bin" build "$work/collection.json" -o "$work/collection.bin" > /dev/null
echo "build: $(ms "$t") ms, peak RSS $(( $(cat "$work/build.rss") / 1024 )) MB, snapshot $(( $(stat -c %s "$work/collection.bin") / 1048576 )) MB"
rm "$work/collection.json"

port=$(free_port)
base="http://127.0.0.1:$port"
t=$(date +%s%N)
# The cold questions are made for each request: none is replayed from the memo
# of answers, which would answer the second asking of each from memory.
replay=()
[ "$mode" = questions ] && replay=(--replay-budget 0)
"$bin" serve --snapshot "$work/collection.bin" --addr "127.0.0.1:$port" --no-watch "${replay[@]}" 2> "$work/server.log" &
server=$!
wait_ready "$base/api/v2/orders/"
echo "first answer: $(ms "$t") ms after start"
rss() { awk -v k="$1:" '$1 == k {print int($2/1024)}' "/proc/$server/status"; }
echo "server memory at start: $(held_mb "$server") MB"

rps() { wrk -t"$threads" -c"$connections" -d"$duration" "$@" | awk '/Requests\/sec/ {print int($2)}'; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

if [ "$mode" = questions ]; then
  echo
  echo "cold questions, $n specimens: wrk -t$threads -c$connections -d$duration, $rounds rounds, requests/s"
  # Steady state: after the background preparation (sort orders, words, the
  # suggestions' index, the quality flags).
  until grep -q 'data-quality flags found' "$work/server.log"; do sleep 0.5; done
  printf '%-8s %-30s %8s %8s %10s\n' kind rounds median p99-ms non-2xx
  for kind in ${KINDS:-filter search sort facet}; do
    python3 benches/questions.py "$base" "$kind" "$work/$kind.lua"
    all=()
    p99=()
    errors=0
    for _ in $(seq 1 "$rounds"); do
      out=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency -s "$work/$kind.lua" "$base")
      all+=("$(awk '/Requests\/sec/ {print int($2)}' <<< "$out")")
      p99+=("$(awk '$1 == "99%" {v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000; printf "%.2f", v}' <<< "$out")")
      errors=$(( errors + $(awk '/Non-2xx/ {print $NF}' <<< "$out" | grep . || echo 0) ))
    done
    p99_median=$(printf '%s\n' "${p99[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf '%-8s %-30s %8s %8s %10s\n' "$kind" "${all[*]}" "$(median "${all[@]}")" "$p99_median" "$errors"
  done
  echo "server memory after the questions: $(held_mb "$server") MB (RSS peak $(rss VmHWM) MB)"
  grep -o 'sort orders and search words built ms=[0-9]*' "$work/server.log" || true
  grep -o 'names indexed for suggestions ms=[0-9]* bytes=[0-9]*' "$work/server.log" || true
  grep -o 'data-quality flags found ms=[0-9]* bytes=[0-9]* flagged=[0-9]*' "$work/server.log" || true
  exit 0
fi

deep=${OFFSET:-$(( n / 2 ))}
if [ "$mode" = html ]; then
  # Steady state: after the background preparation of sort orders and words.
  until grep -q 'sort orders and search words built' "$work/server.log"; do sleep 0.5; done
  names=(page deep filtered record)
  paths=(
    "/api/v2/specimen-records/"
    "/api/v2/specimen-records/?limit=20&offset=$deep"
    "/api/v2/specimen-records/?family=idae&sex=female&limit=20"
    "/api/v2/specimen-records/$(( n / 2 ))/"
  )
  echo
  echo "pages against JSON, wrk -t$threads -c$connections -d$duration, $rounds rounds alternating, requests/s"
  printf '%-9s %-9s %-9s %-26s %-26s %8s %8s %6s\n' what json-B page-B json page json page ratio
  for i in "${!names[@]}"; do
    url="$base${paths[$i]}"
    jb=$(curl -sf "$url" | wc -c); pb=$(curl -sf -H 'Accept: text/html' "$url" | wc -c)
    ours=(); theirs=()
    for _ in $(seq 1 "$rounds"); do
      theirs+=("$(rps "$url")")
      ours+=("$(rps -H 'Accept: text/html' "$url")")
    done
    a=$(median "${ours[@]}"); b=$(median "${theirs[@]}")
    printf '%-9s %-9s %-9s %-26s %-26s %8s %8s %6s\n' "${names[$i]}" "$jb" "$pb" "${theirs[*]}" "${ours[*]}" \
      "$b" "$a" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
  done
  echo "server memory after the load: $(held_mb "$server") MB (RSS peak $(rss VmHWM) MB)"
  for i in "${!names[@]}"; do echo "${names[$i]}: ${paths[$i]}"; done
  exit 0
fi
names=(orders page filtered)
paths=(
  "/api/v2/orders/"
  "/api/v2/specimen-records/?limit=20&offset=$deep"
  "/api/v2/specimen-records/?order=lepidoptera&year=1990&sex=female&limit=20"
)
mkdir -p "$work/www"
for i in "${!names[@]}"; do
  curl -sf "$base${paths[$i]}" -o "$work/www/${names[$i]}.json"
done
chmod -R a+rX "$work/www"

start_nginx "$work/www" application/json

wait_idle "$server"
echo
echo "wrk -t$threads -c$connections -d$duration, $rounds rounds alternating, server idle, requests/s"
printf '%-9s %-14s %-26s %-26s %8s %8s %6s\n' what bytes server nginx server nginx ratio
for i in "${!names[@]}"; do
  ours=(); theirs=()
  for _ in $(seq 1 "$rounds"); do
    ours+=("$(rps "$base${paths[$i]}")")
    theirs+=("$(rps "http://127.0.0.1:$nginx_port/${names[$i]}.json")")
  done
  a=$(median "${ours[@]}"); b=$(median "${theirs[@]}")
  printf '%-9s %-14s %-26s %-26s %8s %8s %6s\n' "${names[$i]}" "$(stat -c %s "$work/www/${names[$i]}.json")" \
    "${ours[*]}" "${theirs[*]}" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
done
echo
echo "server memory after the load: $(held_mb "$server") MB (RSS peak $(rss VmHWM) MB)"
for i in "${!names[@]}"; do echo "${names[$i]}: ${paths[$i]}"; done
