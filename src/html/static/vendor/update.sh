#!/bin/sh
# Refreshes the vendored front-end files from the npm registry at the versions
# package.json pins: installs them in a scratch directory and copies only the
# files the pages serve (and each package's licence). Run from anywhere; commit
# the result. Bump a version in package.json first to upgrade.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$here/package.json" "$scratch/"
(cd "$scratch" && npm install --no-audit --no-fund --ignore-scripts >/dev/null)
n=$scratch/node_modules
cp "$n/leaflet/dist/leaflet.js" "$n/leaflet/dist/leaflet.css" "$n/leaflet/LICENSE" "$here/leaflet/"
cp "$n"/leaflet/dist/images/*.png "$here/leaflet/images/"
cp "$n/leaflet.markercluster/dist/leaflet.markercluster.js" \
   "$n/leaflet.markercluster/dist/MarkerCluster.css" \
   "$n/leaflet.markercluster/dist/MarkerCluster.Default.css" \
   "$n/leaflet.markercluster/MIT-LICENCE.txt" "$here/leaflet.markercluster/"
cp "$n/swagger-ui-dist/swagger-ui-bundle.js" "$n/swagger-ui-dist/swagger-ui.css" \
   "$n/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt" \
   "$n/swagger-ui-dist/LICENSE" "$n/swagger-ui-dist/NOTICE" "$here/swagger-ui-dist/"
cp "$n/openseadragon/build/openseadragon/openseadragon.min.js" "$n/openseadragon/LICENSE.txt" "$here/openseadragon/"
# The maps' basemap: Natural Earth 1:110m (public domain) as world-atlas packs it,
# converted once to GeoJSON land and borders (world-atlas.js), land split at the
# antimeridian (split.js).
(cd "$scratch" && cp "$here/world-atlas.js" "$here/split.js" . && node world-atlas.js) > "$here/world-atlas/world.json"
cp "$n/world-atlas/LICENSE" "$here/world-atlas/"
echo "vendored: $(cd "$n" && for p in leaflet leaflet.markercluster swagger-ui-dist openseadragon world-atlas topojson-client; do printf '%s@%s ' "$p" "$(node -p "require('./$p/package.json').version")"; done)"
