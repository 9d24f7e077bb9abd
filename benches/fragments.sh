#!/usr/bin/env bash
# Two catalogue binaries side by side on one snapshot, with nginx serving the
# very same bytes from files: what each holds and how soon it answers, then
# pages of the specimen list and a nested list, each server against nginx.
#
#   usage: benches/fragments.sh SPECIMENS BEFORE_BIN [SNAPSHOT]
#   env:   ROUNDS (3), DURATION (5s), CONNECTIONS (32), THREADS (2),
#          CATALOGUE_BIN (the binary measured after BEFORE_BIN: this tree's
#          release build by default)
#
# Each server is first started alone on the snapshot (built by this tree's
# binary from a generated collection unless given): the milliseconds to its
# first answer, and, once idle, what it holds (RSS plus the memory files its
# rendered lists live in). Then both servers and nginx run at once (the
# servers with one public URL, so their media URLs are alike); every URL
# must be the same bytes from all three (200 each) before wrk asks it of each
# in turn, ROUNDS times. The whole list (`limit` = SPECIMENS) is asked over
# 2 connections: each answer is hundreds of MB.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: benches/fragments.sh SPECIMENS BEFORE_BIN [SNAPSHOT]}
before=${2:?usage: benches/fragments.sh SPECIMENS BEFORE_BIN [SNAPSHOT]}
rounds=${ROUNDS:-3}
duration=${DURATION:-5s}
connections=${CONNECTIONS:-32}
threads=${THREADS:-2}
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] && command -v wrk > /dev/null || {
  echo "needs wrk and nginx (apt-get install wrk nginx-light)" >&2
  exit 2
}

. benches/lib.sh
after=$bin
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  wait 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT

snapshot=${3:-}
if [ -z "$snapshot" ]; then
  snapshot=$work/collection.bin
  generated_snapshot "$n" "$snapshot"
fi

# Starts BIN on the snapshot at PORT; sets `started` to its pid.
start() {
  "$1" serve --snapshot "$snapshot" --addr "127.0.0.1:$2" --no-watch \
    --public-url http://catalogue.test 2> "$work/$2.log" &
  started=$!
  pids+=("$started")
}

echo "$n specimens, $(basename "$before") (before) and $(basename "$after") (after)"
for which in before after; do
  port=$(free_port)
  t=$(date +%s%N)
  start "${!which}" "$port"
  wait_ready "http://127.0.0.1:$port/api/v2/orders/"
  ready=$(ms "$t")
  wait_idle "$started"
  echo "$which: first answer ${ready} ms; held idle $(held_mb "$started") MB"
  kill "$started"
  wait "$started" 2> /dev/null || true
done

deep=$(( n / 2 ))
names=(deep-20 nested-20 page-500 whole)
paths=(
  "/api/v2/specimen-records/?limit=20&offset=$deep"
  "/api/v2/nested-species/?limit=20&offset=100"
  "/api/v2/specimen-records/?limit=500&offset=$deep"
  "/api/v2/specimen-records/?limit=$n"
)
b_port=$(free_port)
a_port=$(free_port)
start "$before" "$b_port"
start "$after" "$a_port"
wait_ready "http://127.0.0.1:$b_port/api/v2/orders/"
wait_ready "http://127.0.0.1:$a_port/api/v2/orders/"

mkdir -p "$work/www"
for i in "${!names[@]}"; do
  curl -sf "http://127.0.0.1:$a_port${paths[$i]}" -o "$work/www/${names[$i]}.json"
  curl -sf "http://127.0.0.1:$b_port${paths[$i]}" -o "$work/before.json"
  cmp -s "$work/before.json" "$work/www/${names[$i]}.json" || {
    echo "${paths[$i]}: the two servers answer different bytes" >&2
    exit 1
  }
done
rm "$work/before.json"
chmod -R a+rX "$work/www"
start_nginx "$work/www" application/json
pids+=("$nginx_pid")
until curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/deep-20.json"; do sleep 0.05; done
for i in "${!names[@]}"; do
  curl -sf "http://127.0.0.1:$nginx_port/${names[$i]}.json" | cmp -s - "$work/www/${names[$i]}.json" || {
    echo "nginx answers other bytes for ${names[$i]}" >&2
    exit 1
  }
done
wait_idle "${pids[-3]}"
wait_idle "${pids[-2]}"

rps() { wrk -t"$threads" -c"$1" -d"$duration" "$2" | awk '/Requests\/sec/ {printf "%.1f", $2}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo
echo "wrk -t$threads -d$duration, $rounds rounds, each URL of before, after and nginx in turn, requests/s"
printf '%-10s %-11s %-22s %-22s %-22s %7s %7s\n' what bytes before after nginx before after
for i in "${!names[@]}"; do
  c=$connections
  [ "${names[$i]}" = whole ] && c=2
  b=(); a=(); x=()
  for _ in $(seq 1 "$rounds"); do
    b+=("$(rps "$c" "http://127.0.0.1:$b_port${paths[$i]}")")
    a+=("$(rps "$c" "http://127.0.0.1:$a_port${paths[$i]}")")
    x+=("$(rps "$c" "http://127.0.0.1:$nginx_port/${names[$i]}.json")")
  done
  mb=$(median "${b[@]}"); ma=$(median "${a[@]}"); mx=$(median "${x[@]}")
  printf '%-10s %-11s %-22s %-22s %-22s %7s %7s\n' "${names[$i]}" "$(stat -c %s "$work/www/${names[$i]}.json")" \
    "${b[*]}" "${a[*]}" "${x[*]}" "$(ratio "$mb" "$mx")" "$(ratio "$ma" "$mx")"
done
echo "(the last two columns: each server's median over nginx's)"
for i in "${!names[@]}"; do echo "${names[$i]}: ${paths[$i]}"; done
