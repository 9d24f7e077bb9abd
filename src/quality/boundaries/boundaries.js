// Run by update.sh in its scratch directory (where npm installed us-atlas,
// world-atlas and topojson-client): writes the boundaries the quality checks
// test points against, as JSON, to standard output.
//
// - countries: Natural Earth 1:50m (world-atlas), by ISO 3166-1 numeric code;
// - states: the Census Bureau's cartographic boundaries at 1:10m (us-atlas),
//   by FIPS code, with their postal abbreviations;
// - counties (and parishes, boroughs, census areas): the same, by FIPS code, the
//   state's code being its first two digits.
//
// Each area is its rings (outer rings and holes alike: a point is inside when
// it is inside an odd number of them), each ring a flat list of coordinates in
// ten-thousandths of a degree, longitude first, each after the first as the
// difference from the one before.
const topojson = require("topojson-client");
const us = require("us-atlas/counties-10m.json");
const world = require("world-atlas/countries-50m.json");

// The postal abbreviations of the states and territories us-atlas draws, by FIPS
// code (USPS Publication 28; FIPS PUB 5-2).
const POSTAL = {
  "01": "AL", "02": "AK", "04": "AZ", "05": "AR", "06": "CA", "08": "CO", "09": "CT",
  "10": "DE", "11": "DC", "12": "FL", "13": "GA", "15": "HI", "16": "ID", "17": "IL",
  "18": "IN", "19": "IA", "20": "KS", "21": "KY", "22": "LA", "23": "ME", "24": "MD",
  "25": "MA", "26": "MI", "27": "MN", "28": "MS", "29": "MO", "30": "MT", "31": "NE",
  "32": "NV", "33": "NH", "34": "NJ", "35": "NM", "36": "NY", "37": "NC", "38": "ND",
  "39": "OH", "40": "OK", "41": "OR", "42": "PA", "44": "RI", "45": "SC", "46": "SD",
  "47": "TN", "48": "TX", "49": "UT", "50": "VT", "51": "VA", "53": "WA", "54": "WV",
  "55": "WI", "56": "WY", "60": "AS", "66": "GU", "69": "MP", "72": "PR", "78": "VI",
};

const rings = (geometry) => {
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
  return polygons.flat().map((ring) => {
    const out = [];
    let [px, py] = [0, 0];
    for (const [lon, lat] of ring) {
      const [x, y] = [Math.round(lon * 1e4), Math.round(lat * 1e4)];
      out.push(x - px, y - py);
      [px, py] = [x, y];
    }
    return out;
  });
};
const areas = (topology, object, extra) =>
  topology.objects[object].geometries
    .filter((g) => g.type && g.id !== undefined)
    .map((g) => ({ id: g.id, name: g.properties.name, ...extra(g), rings: rings(topojson.feature(topology, g).geometry) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

process.stdout.write(
  JSON.stringify({
    countries: areas(world, "countries", () => ({})),
    states: areas(us, "states", (g) => ({ abbr: POSTAL[g.id] || "" })),
    counties: areas(us, "counties", () => ({})),
  }),
);
