#!/usr/bin/env bash
# What a `catalogue sync` tick costs against a SQLite database of SPECIMENS
# specimens, when nothing changed: with the change marker (the default) and when
# every tick reads the whole collection (--full-every no longer than --every, which
# is what every tick did before the marker), and after an edit.
#
#   usage: benches/sync_tick.sh [SPECIMENS]   (default 1000000)
#   env:   TICKS (5), CATALOGUE_BIN (default: this tree's release build)
#
# Prints the milliseconds of each tick from the sync's own log (`ms=`) and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
ticks=${TICKS:-5}
. benches/lib.sh
work=$(mktemp -d)
sync=
cleanup() { [ -n "$sync" ] && kill "$sync" 2> /dev/null; wait 2> /dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$bin" generate --specimens "$n" --seed 1 -o "$work/c.json" > /dev/null
python3 benches/fixture_to_sqlite.py "$work/c.json" "$work/db.sqlite3"
rm "$work/c.json"
echo "$n specimens, SQLite database of $(( $(stat -c %s "$work/db.sqlite3") / 1048576 )) MB"

# Runs sync with the given flags until it has logged `ticks` ticks after the first,
# then prints their milliseconds.
measure() {
  local label=$1 log=$work/$1.log
  shift
  rm -f "$work/snap.bin"
  RUST_LOG=catalogue=debug "$bin" sync --from-db "sqlite:///$work/db.sqlite3" --snapshot "$work/snap.bin" \
    "$@" 2> "$log" &
  sync=$!
  until [ "$(grep -c ' ms=' "$log" || true)" -gt "$ticks" ]; do sleep 0.2; done
  awk '$1 == "VmHWM:" {print int($2/1024)}' "/proc/$sync/status" > "$work/$label.rss"
  kill "$sync"
  wait "$sync" 2> /dev/null || true
  sync=
  local ms
  ms=$(grep -o ' ms=[0-9]*' "$log" | cut -d= -f2 | tail -n "$ticks" | tr '\n' ' ')
  printf '%-34s first %6s ms, then %s ms (peak RSS %s MB)\n' "$label" \
    "$(grep -o ' ms=[0-9]*' "$log" | head -1 | cut -d= -f2)" "$ms" "$(cat "$work/$label.rss")"
}
measure "full read every tick (before)" --every 1s --full-every 1s
measure "change marker (after)" --every 1s

# An edit as Django saves it: the next tick reads and publishes.
rm -f "$work/snap.bin"
RUST_LOG=catalogue=debug "$bin" sync --from-db "sqlite:///$work/db.sqlite3" --snapshot "$work/snap.bin" \
  --every 1s 2> "$work/edit.log" &
sync=$!
until grep -q 'snapshot replaced' "$work/edit.log"; do sleep 0.2; done
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute(
  "UPDATE specimens_specimenrecord SET notes = ?, date_modified = ? WHERE id = 1",
  ("edited", "2030-01-01 00:00:00")); db.commit()' "$work/db.sqlite3"
until [ "$(grep -c 'snapshot replaced' "$work/edit.log")" -ge 2 ]; do sleep 0.2; done
echo "tick after an edit: $(grep 'snapshot replaced' "$work/edit.log" | tail -1 | grep -o ' ms=[0-9]*' | cut -d= -f2) ms"
