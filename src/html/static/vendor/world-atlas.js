// Run by update.sh in its scratch directory (where npm installed world-atlas and
// topojson-client): writes the basemap to standard output.
// Converts Natural Earth 1:110m (world-atlas's TopoJSON) into the basemap the
// pages draw under their markers: land as one multipolygon, the borders between
// countries as lines, coordinates to 0.01 degree, every ring that crosses the
// antimeridian split there (`split.js`), so no edge spans the world.
const topojson = require("topojson-client");
const world = require("world-atlas/countries-110m.json");
const { splitPolygons } = require("./split.js");
const round = (c) => (typeof c[0] === "number" ? [Math.round(c[0] * 100) / 100, Math.round(c[1] * 100) / 100] : c.map(round));
const feature = (kind, g) => ({ type: "Feature", properties: { kind }, geometry: { type: g.type, coordinates: round(g.coordinates) } });
const land = topojson.merge(world, world.objects.countries.geometries);
const borders = topojson.mesh(world, world.objects.countries, (a, b) => a !== b);
const split = (f) => ({ ...f, geometry: { type: "MultiPolygon", coordinates: splitPolygons(f.geometry.coordinates) } });
process.stdout.write(JSON.stringify({ type: "FeatureCollection", features: [split(feature("land", land)), feature("border", borders)] }));
