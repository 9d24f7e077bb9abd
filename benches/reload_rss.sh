#!/usr/bin/env bash
# Swap latency and resident memory across hot reloads of a large snapshot (SWAPS, default 10).
#   usage: benches/reload_rss.sh [SPECIMENS]   (default 100000; needs cargo build --release)
# Two snapshots of different sizes are renamed over the served file in turn; after
# each swap it prints the time from rename to the new view being served, and the
# memory the server holds (RSS plus the memory files its rendered lists live in).
set -euo pipefail
n=${1:-100000}
bin=${CATALOGUE_BIN:-target/release/catalogue}
work=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
for size in "$n" "$((n + 1))"; do
  "$bin" generate --specimens "$size" --seed 1 -o "$work/$size.json" > /dev/null
  "$bin" build "$work/$size.json" -o "$work/$size.bin" > /dev/null
  rm "$work/$size.json"
done
cp "$work/$n.bin" "$work/served.bin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --snapshot "$work/served.bin" --addr "127.0.0.1:$port" 2> "$work/log" &
server=$!
url="http://127.0.0.1:$port/api/v2/specimen-records/?limit=0"
count() { curl -sf "$url" | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["total_count"])' 2>/dev/null || echo 0; }
until [ "$(count)" = "$n" ]; do sleep 0.1; done
rss() { python3 "$(dirname "$0")/memory.py" "$server" | cut -d' ' -f1; }
echo "start: memory $(rss) MB"
for i in $(seq 1 "${SWAPS:-10}"); do
  size=$(( i % 2 == 1 ? n + 1 : n ))
  cp "$work/$size.bin" "$work/.incoming"
  start=$(date +%s%N)
  mv "$work/.incoming" "$work/served.bin"
  until [ "$(count)" = "$size" ]; do sleep 0.02; done
  end=$(date +%s%N)
  sleep 0.5
  echo "swap $i: served after $(( (end - start) / 1000000 )) ms, memory $(rss) MB"
done
grep -c "view swapped" "$work/log" | sed 's/^/swaps logged: /'
