// Splits a multipolygon's rings where they cross the antimeridian, so that a map
// never draws an edge across the world (Fiji, Chukotka, Wrangel Island) and
// Antarctica closes along the pole rather than along its coast's last parallel.
// Coordinates are [longitude, latitude], already rounded to 0.01 degree; the
// points made on the meridian are rounded alike. Run by world-atlas.js; alone,
// `node split.js < world.json > split.json` splits a basemap already converted.
const round = (x) => Math.round(x * 100) / 100;

// Where the segment a -> b (which spans more than 180 degrees as written, so
// crosses the antimeridian) meets it: the meridian a leaves by, and the latitude.
function crossing(a, b) {
  const unwrapped = b[0] > a[0] ? b[0] - 360 : b[0] + 360;
  const edge = Math.abs(a[0]) === 180 ? a[0] : unwrapped > a[0] ? 180 : -180;
  const t = unwrapped === a[0] ? 0 : (edge - a[0]) / (unwrapped - a[0]);
  return [edge, round(a[1] + t * (b[1] - a[1]))];
}

function push(piece, p) {
  const last = piece[piece.length - 1];
  if (!last || last[0] !== p[0] || last[1] !== p[1]) piece.push(p);
}

// One closed ring as the rings it makes on either side of the antimeridian.
function splitRing(ring) {
  const pieces = [];
  let piece = [ring[0]];
  for (let k = 0; k + 1 < ring.length; k++) {
    const [a, b] = [ring[k], ring[k + 1]];
    if (Math.abs(b[0] - a[0]) > 180) {
      const [edge, lat] = crossing(a, b);
      push(piece, [edge, lat]);
      pieces.push(piece);
      piece = [[-edge, lat]];
    }
    push(piece, b);
  }
  if (pieces.length === 0) return [ring];
  // The ring's last piece and its first are one, on the same side.
  const joined = piece.slice();
  for (const p of pieces[0].slice(1)) push(joined, p);
  pieces[0] = joined;
  if (pieces.length === 1) {
    // Crossed once: a ring around a pole, closed along it (a quarter of the
    // world a segment).
    const ring = pieces[0];
    const [start, end] = [ring[0], ring[ring.length - 1]];
    const pole = ring.reduce((s, p) => s + p[1], 0) < 0 ? -90 : 90;
    push(ring, [end[0], pole]);
    for (let lon = end[0] - 90 * Math.sign(end[0]); Math.abs(lon) < 180; lon -= 90 * Math.sign(end[0])) {
      push(ring, [lon, pole]);
    }
    push(ring, [start[0], pole]);
    push(ring, start);
    return [ring];
  }
  // Crossed twice (the basemap's rings cross at most so): two rings, each
  // closed along the meridian.
  return pieces.map((p) => {
    const ring = p.slice();
    push(ring, ring[0]);
    return ring;
  });
}

// Whether point p is inside the ring (even-odd rule).
function inside(p, ring) {
  let within = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [a, b] = [ring[i], ring[j]];
    if (a[1] > p[1] !== b[1] > p[1] && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0]) {
      within = !within;
    }
  }
  return within;
}

function splitPolygons(polygons) {
  const out = [];
  for (const [outer, ...holes] of polygons) {
    const parts = splitRing(outer).map((r) => [r]);
    // Each hole (a lake, an inland sea: none crosses the antimeridian) stays
    // with the part it lies in.
    for (const hole of holes) {
      (parts.find(([r]) => inside(hole[0], r)) || parts[0]).push(hole);
    }
    out.push(...parts);
  }
  return out;
}

module.exports = { splitPolygons };

if (require.main === module) {
  const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
  for (const f of input.features) {
    if (f.geometry.type === "MultiPolygon") f.geometry.coordinates = splitPolygons(f.geometry.coordinates);
  }
  process.stdout.write(JSON.stringify(input));
}
