//! Areas on a map as GBIF's `geometry` takes them: Well-Known Text `POLYGON` and
//! `MULTIPOLYGON`, longitude before latitude (a ring left open is closed). A point is inside a polygon when it
//! is inside its outer ring and in none of its holes (even-odd), so a ring's
//! direction never turns an area into "everything outside it": a clockwise outer
//! ring is read as the area it draws, and noted. Coordinates are planar degrees;
//! a polygon across the antimeridian is not wrapped (give two polygons).

/// A number as WKT and GBIF's ranges are read here: a sign, digits, a decimal
/// part (`-12`, `3.5`); nothing else (no exponent), so the OpenAPI document's
/// patterns say exactly what is taken.
pub fn plain_number(s: &str) -> Option<f64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, "0"));
    let plain = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if !plain(whole) || !plain(fraction) {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// How many vertices one `geometry` may have, over all its rings, and one
/// request over all its geometries: the cost of a point test grows with them.
pub const MAX_VERTICES: usize = 10_000;

/// A ring: closed (its last vertex is its first), at least four vertices,
/// with its edges indexed by latitude ([`Bands`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    vertices: Vec<[f64; 2]>,
    bands: Bands,
}

/// A ring's edges by latitude: its latitudes cut into bands of equal
/// height, each listing the edges that reach into it, so that a point is
/// tested against the edges of its band rather than against all of them (a
/// ring of 10,000 vertices: a few edges a point, not 10,000). Bands are
/// fewer where the edges are long, so that the lists hold at most
/// [`Bands::ENTRIES_PER_EDGE`] entries an edge: a ring whose every edge
/// crosses every latitude costs every edge a point, as it must.
#[derive(Clone, Debug, Default, PartialEq)]
struct Bands {
    /// The least latitude, and the height of a band.
    south: f64,
    height: f64,
    /// Band `b`'s edges are `edges[starts[b]..starts[b + 1]]`, each the
    /// index of its first vertex.
    starts: Vec<u32>,
    edges: Vec<u32>,
}

impl Bands {
    const ENTRIES_PER_EDGE: usize = 8;

    fn of(vertices: &[[f64; 2]]) -> Bands {
        let edges = vertices.len().saturating_sub(1);
        let (south, north) = vertices
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(s, n), v| {
                (s.min(v[1]), n.max(v[1]))
            });
        if edges == 0 || north.is_nan() || south.is_nan() {
            return Bands::default();
        }
        let mut count = edges.max(1);
        loop {
            let height = ((north - south) / count as f64).max(f64::MIN_POSITIVE);
            let band = |y: f64| (((y - south) / height) as usize).min(count - 1);
            let spans: Vec<(usize, usize)> = (0..edges)
                .map(|i| {
                    let (a, b) = (vertices[i][1], vertices[i + 1][1]);
                    (band(a.min(b)), band(a.max(b)))
                })
                .collect();
            let entries: usize = spans.iter().map(|(lo, hi)| hi - lo + 1).sum();
            if entries > Bands::ENTRIES_PER_EDGE * edges && count > 1 {
                count /= 2;
                continue;
            }
            let mut starts = vec![0u32; count + 1];
            for &(lo, hi) in &spans {
                for b in lo..=hi {
                    starts[b + 1] += 1;
                }
            }
            for b in 0..count {
                starts[b + 1] += starts[b];
            }
            let mut at: Vec<u32> = starts[..count].to_vec();
            let mut list = vec![0u32; entries];
            for (i, &(lo, hi)) in spans.iter().enumerate() {
                for b in lo..=hi {
                    list[at[b] as usize] = i as u32;
                    at[b] += 1;
                }
            }
            return Bands {
                south,
                height,
                starts,
                edges: list,
            };
        }
    }

    /// The edges that may cross latitude `y` (none outside the ring's).
    fn at(&self, y: f64) -> &[u32] {
        let count = self.starts.len().saturating_sub(1);
        if count == 0 || y < self.south || y.is_nan() {
            return &[];
        }
        let b = ((y - self.south) / self.height) as usize;
        if b > count {
            return &[];
        }
        let b = b.min(count - 1);
        &self.edges[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// An outer ring and its holes.
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    pub outer: Ring,
    pub holes: Vec<Ring>,
    /// `[min lon, min lat, max lon, max lat]` of the outer ring.
    pub bounds: [f64; 4],
}

/// One or more polygons: a point is in the area when it is in any of them.
#[derive(Clone, Debug, PartialEq)]
pub struct Area {
    pub polygons: Vec<Polygon>,
    /// What was repaired, for the answer to say (a clockwise outer ring).
    pub notes: Vec<String>,
}

/// Why a text is not an area: what was expected, at which character (from 1).
#[derive(Clone, Debug, PartialEq)]
pub struct WktError {
    pub at: usize,
    pub message: String,
}

impl std::fmt::Display for WktError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at character {}", self.message, self.at)
    }
}

impl Ring {
    /// A closed ring of `vertices`, its edges indexed.
    pub fn new(vertices: Vec<[f64; 2]>) -> Ring {
        Ring {
            bands: Bands::of(&vertices),
            vertices,
        }
    }

    pub fn vertices(&self) -> &[[f64; 2]] {
        &self.vertices
    }

    /// Twice the signed area: positive when the ring runs counter-clockwise.
    fn signed_area(&self) -> f64 {
        self.vertices
            .windows(2)
            .map(|w| w[0][0] * w[1][1] - w[1][0] * w[0][1])
            .sum()
    }

    /// The ring run the other way.
    fn reversed(mut self) -> Ring {
        self.vertices.reverse();
        Ring::new(self.vertices)
    }

    /// Whether the point is inside (crossings of a ray to the east are odd),
    /// testing the edges of its latitude's band.
    fn contains(&self, [x, y]: [f64; 2]) -> bool {
        let mut inside = false;
        for &i in self.bands.at(y) {
            let i = i as usize;
            let ([x1, y1], [x2, y2]) = (self.vertices[i], self.vertices[i + 1]);
            if (y1 > y) != (y2 > y) && x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
                inside = !inside;
            }
        }
        inside
    }
}

impl Polygon {
    pub fn contains(&self, point: [f64; 2]) -> bool {
        let [x0, y0, x1, y1] = self.bounds;
        let [x, y] = point;
        x >= x0
            && x <= x1
            && y >= y0
            && y <= y1
            && self.outer.contains(point)
            && !self.holes.iter().any(|h| h.contains(point))
    }
}

impl Area {
    /// Whether the point (longitude, latitude) is in the area.
    pub fn contains(&self, point: [f64; 2]) -> bool {
        self.polygons.iter().any(|p| p.contains(point))
    }

    /// How many vertices its rings have.
    pub fn vertices(&self) -> usize {
        let rings = self
            .polygons
            .iter()
            .flat_map(|p| std::iter::once(&p.outer).chain(&p.holes));
        rings.map(|r| r.vertices.len()).sum()
    }

    /// `[min lon, min lat, max lon, max lat]` of every polygon.
    pub fn bounds(&self) -> [f64; 4] {
        self.polygons.iter().fold(
            [
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ],
            |[a, b, c, d], p| {
                let [x0, y0, x1, y1] = p.bounds;
                [a.min(x0), b.min(y0), c.max(x1), d.max(y1)]
            },
        )
    }

    /// The rectangle of a longitude range and a latitude range, inclusive.
    pub fn rectangle(lon: [f64; 2], lat: [f64; 2]) -> Area {
        let ring = vec![
            [lon[0], lat[0]],
            [lon[1], lat[0]],
            [lon[1], lat[1]],
            [lon[0], lat[1]],
            [lon[0], lat[0]],
        ];
        Area {
            polygons: vec![Polygon {
                outer: Ring::new(ring),
                holes: Vec::new(),
                bounds: [lon[0], lat[0], lon[1], lat[1]],
            }],
            notes: Vec::new(),
        }
    }
}

/// Reads a `POLYGON` or `MULTIPOLYGON`.
pub fn parse(text: &str) -> Result<Area, WktError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        vertices: 0,
    };
    p.space();
    let word = p.word();
    let polygons = match word.to_ascii_uppercase().as_str() {
        "POLYGON" => vec![p.polygon()?],
        "MULTIPOLYGON" => {
            p.expect(b'(')?;
            let mut out = vec![p.polygon()?];
            while p.comma() {
                out.push(p.polygon()?);
            }
            p.expect(b')')?;
            out
        }
        "" => return Err(p.error("expected POLYGON or MULTIPOLYGON")),
        other => {
            return Err(WktError {
                at: 1,
                message: format!("{other} is not an area: expected POLYGON or MULTIPOLYGON"),
            })
        }
    };
    p.space();
    if p.i < p.s.len() {
        return Err(p.error("expected the end of the geometry"));
    }
    let mut notes = Vec::new();
    let mut area = Area {
        polygons: Vec::new(),
        notes: Vec::new(),
    };
    for (i, mut polygon) in polygons.into_iter().enumerate() {
        if polygon.outer.signed_area() < 0.0 {
            polygon.outer = polygon.outer.reversed();
            notes.push(format!(
                "the outer ring of polygon {} runs clockwise: it is read as the area it draws, not as everything outside it",
                i + 1
            ));
        }
        area.polygons.push(polygon);
    }
    area.notes = notes;
    Ok(area)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    vertices: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> WktError {
        let found = match self.s.get(self.i) {
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.s[self.i..]);
                format!(", found '{}'", rest.chars().next().unwrap_or(' '))
            }
            None => ", found the end".to_string(),
        };
        WktError {
            at: String::from_utf8_lossy(&self.s[..self.i]).chars().count() + 1,
            message: format!("{message}{found}"),
        }
    }

    fn space(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn word(&mut self) -> String {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_alphabetic) {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn expect(&mut self, c: u8) -> Result<(), WktError> {
        self.space();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", c as char)))
        }
    }

    fn comma(&mut self) -> bool {
        self.space();
        if self.s.get(self.i) == Some(&b',') {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self, what: &str, range: f64) -> Result<f64, WktError> {
        self.space();
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'))
        {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        match plain_number(text) {
            Some(v) if v.abs() <= range => Ok(v),
            Some(_) => {
                self.i = start;
                Err(self.error(&format!("a {what} between -{range} and {range}")))
            }
            None => {
                self.i = start;
                Err(self.error(&format!("expected a {what}")))
            }
        }
    }

    fn ring(&mut self) -> Result<Ring, WktError> {
        self.expect(b'(')?;
        let start = self.i;
        let mut points = Vec::new();
        loop {
            let lon = self.number("longitude", 180.0)?;
            let lat = self.number("latitude", 90.0)?;
            points.push([lon, lat]);
            self.vertices += 1;
            if self.vertices > MAX_VERTICES {
                return Err(self.error(&format!("a geometry has at most {MAX_VERTICES} vertices")));
            }
            if !self.comma() {
                break;
            }
        }
        self.expect(b')')?;
        let at = String::from_utf8_lossy(&self.s[..start]).chars().count();
        // A ring left open is closed by its first vertex.
        if points.first() != points.last() {
            points.push(points[0]);
        }
        if points.len() < 4 {
            return Err(WktError {
                at,
                message: format!(
                    "a ring has at least four vertices, its last the same as its first; this one has {}",
                    points.len()
                ),
            });
        }
        Ok(Ring::new(points))
    }

    fn polygon(&mut self) -> Result<Polygon, WktError> {
        self.expect(b'(')?;
        let outer = self.ring()?;
        let mut holes = Vec::new();
        while self.comma() {
            holes.push(self.ring()?);
        }
        self.expect(b')')?;
        let bounds = outer.vertices.iter().fold(
            [
                f64::INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NEG_INFINITY,
            ],
            |[a, b, c, d], &[x, y]| [a.min(x), b.min(y), c.max(x), d.max(y)],
        );
        Ok(Polygon {
            outer,
            holes,
            bounds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: &str = "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))";

    #[test]
    fn a_ring_left_open_is_closed() {
        let open = parse("POLYGON((0 0, 10 0, 10 10, 0 10))").unwrap();
        assert_eq!(open, parse(SQUARE).unwrap());
    }

    #[test]
    fn a_square_holds_what_it_draws() {
        let area = parse(SQUARE).unwrap();
        assert!(area.notes.is_empty());
        assert!(area.contains([5.0, 5.0]));
        assert!(!area.contains([15.0, 5.0]));
        assert!(!area.contains([-0.1, 5.0]));
    }

    #[test]
    fn a_clockwise_ring_is_the_area_it_draws_and_is_noted() {
        let area = parse("polygon ((0 0, 0 10, 10 10, 10 0, 0 0))").unwrap();
        assert!(area.contains([5.0, 5.0]));
        assert!(!area.contains([50.0, 50.0]));
        assert_eq!(area.notes.len(), 1);
        assert!(area.notes[0].contains("clockwise"), "{:?}", area.notes);
    }

    #[test]
    fn holes_and_several_polygons() {
        let area =
            parse("MULTIPOLYGON(((0 0,10 0,10 10,0 10,0 0),(4 4,6 4,6 6,4 6,4 4)),((20 20,30 20,30 30,20 30,20 20)))")
                .unwrap();
        assert!(area.contains([2.0, 2.0]));
        assert!(!area.contains([5.0, 5.0]), "in the hole");
        assert!(area.contains([25.0, 25.0]));
        assert!(!area.contains([15.0, 15.0]));
        assert_eq!(area.bounds(), [0.0, 0.0, 30.0, 30.0]);
    }

    #[test]
    fn errors_say_where() {
        let e = parse("POLYGON((0 0, 10 0, 10 x, 0 10, 0 0))").unwrap_err();
        assert_eq!(e.at, 24, "{e}");
        assert!(
            e.message.starts_with("expected a latitude, found 'x'"),
            "{e}"
        );
        let e = parse("POLYGON((0 0, 10 0, 10 10, 0 0)").unwrap_err();
        assert!(e.message.starts_with("expected ')'"), "{e}");
        assert_eq!(e.at, 32, "the end of the text");
        let e = parse("POLYGON((0 0, 10 0, 0 0))").unwrap_err();
        assert!(e.message.contains("at least four vertices"), "{e}");
        let e = parse("POLYGON((0 0, 1e1 0, 10 10, 0 0))").unwrap_err();
        assert!(
            e.message.starts_with("expected a latitude, found 'e'"),
            "{e}"
        );
        let e = parse("POINT(1 2)").unwrap_err();
        assert!(e.message.contains("POINT is not an area"), "{e}");
        let e = parse("POLYGON((0 0, 200 0, 10 10, 0 0))").unwrap_err();
        assert!(e.message.contains("longitude between -180 and 180"), "{e}");
        let e = parse(&format!("{SQUARE} x")).unwrap_err();
        assert!(e.message.contains("end of the geometry"), "{e}");
    }

    /// The banded test answers as a test of every edge, on rings small and
    /// large, simple and crossing themselves (stars whose every edge spans
    /// the ring's latitudes), for points inside, outside, on band edges and
    /// beyond the ring's latitudes.
    #[test]
    fn the_banded_test_is_the_test_of_every_edge() {
        fn every_edge(v: &[[f64; 2]], [x, y]: [f64; 2]) -> bool {
            let mut inside = false;
            for w in v.windows(2) {
                let ([x1, y1], [x2, y2]) = (w[0], w[1]);
                if (y1 > y) != (y2 > y) && x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
                    inside = !inside;
                }
            }
            inside
        }
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut tested, mut inside) = (0, 0);
        for case in 0..120 {
            let n = [3, 10, 100, 1000, 5000][case % 5];
            let star = case % 3 == 0;
            let mut v: Vec<[f64; 2]> = (0..n)
                .map(|i| {
                    let turns = if star { 7.0 } else { 1.0 };
                    let a = i as f64 / n as f64 * std::f64::consts::TAU * turns;
                    let r = if star { 40.0 } else { 20.0 + 20.0 * next() };
                    [r * a.cos(), (r * a.sin()).clamp(-89.0, 89.0)]
                })
                .collect();
            v.push(v[0]);
            let ring = Ring::new(v.clone());
            for k in 0..500 {
                let p = match k % 4 {
                    // On a vertex's latitude: a band's edge, often.
                    0 => [next() * 100.0 - 50.0, v[k % v.len()][1]],
                    _ => [next() * 100.0 - 50.0, next() * 100.0 - 50.0],
                };
                let want = every_edge(&v, p);
                assert_eq!(ring.contains(p), want, "case {case}, point {p:?}");
                tested += 1;
                inside += usize::from(want);
            }
        }
        assert!(
            inside > tested / 10 && inside < tested * 9 / 10,
            "{inside} of {tested}"
        );
    }
}
