#!/bin/sh
# Refreshes boundaries.json.gz from the npm registry at the versions package.json
# pins: installs them in a scratch directory, converts them once (boundaries.js)
# and copies their licences. Run from anywhere; commit the result. Bump a version
# in package.json first to upgrade.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$here/package.json" "$here/boundaries.js" "$scratch/"
(cd "$scratch" && npm install --no-audit --no-fund --ignore-scripts >/dev/null)
(cd "$scratch" && node boundaries.js) | gzip -9n > "$here/boundaries.json.gz"
n=$scratch/node_modules
cp "$n/us-atlas/LICENSE" "$here/LICENSE-us-atlas"
cp "$n/world-atlas/LICENSE" "$here/LICENSE-world-atlas"
echo "boundaries: $(cd "$n" && for p in us-atlas world-atlas topojson-client; do printf '%s@%s ' "$p" "$(node -p "require('./$p/package.json').version")"; done)"
