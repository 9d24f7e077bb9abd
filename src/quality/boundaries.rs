//! The boundaries points are tested against, built into the binary
//! (`boundaries/boundaries.json.gz`, converted once by `boundaries/update.sh`):
//! countries from Natural Earth at 1:50m (world-atlas), and the United States'
//! states and counties from the Census Bureau's cartographic boundaries at 1:10m
//! (us-atlas). Read once per process, when a view first asks for its flags.

use std::io::Read;
use std::sync::OnceLock;

use ahash::AHashMap;
use serde::Deserialize;

use super::names;

/// The boundaries as `update.sh` writes them: gzipped JSON.
pub const BUILT_IN: &[u8] = include_bytes!("boundaries/boundaries.json.gz");

/// Coordinates are stored in ten-thousandths of a degree.
const SCALE: f64 = 1e4;

/// Kilometres in a degree of latitude.
const KM_PER_DEGREE: f64 = 111.32;

/// The ISO 3166-1 numeric code of the one country whose states and counties the
/// data has.
pub const UNITED_STATES: &str = "840";

/// A point as GeoJSON orders it: longitude, then latitude, in degrees.
pub type Point = [f64; 2];

/// One area: its code, name, and rings (outer rings and holes alike: a point is
/// inside when it is inside an odd number of them).
#[derive(Debug)]
pub struct Area {
    /// ISO 3166-1 numeric for a country, FIPS for a state or county.
    pub id: String,
    pub name: String,
    /// A state's postal abbreviation.
    pub abbr: String,
    rings: Vec<Ring>,
    /// West, south, east, north.
    bounds: [f64; 4],
}

#[derive(Debug)]
struct Ring {
    points: Vec<[i32; 2]>,
    bounds: [f64; 4],
}

#[derive(Deserialize)]
struct RawArea {
    id: String,
    name: String,
    #[serde(default)]
    abbr: String,
    rings: Vec<Vec<i64>>,
}

#[derive(Deserialize)]
struct Raw {
    countries: Vec<RawArea>,
    states: Vec<RawArea>,
    counties: Vec<RawArea>,
}

fn bounds_of(points: impl Iterator<Item = [f64; 2]>) -> [f64; 4] {
    points.fold(
        [f64::MAX, f64::MAX, f64::MIN, f64::MIN],
        |[w, s, e, n], [x, y]| [w.min(x), s.min(y), e.max(x), n.max(y)],
    )
}

impl Area {
    fn read(raw: RawArea) -> Area {
        let rings: Vec<Ring> = raw
            .rings
            .into_iter()
            .map(|deltas| {
                let (mut x, mut y) = (0i64, 0i64);
                let points: Vec<[i32; 2]> = deltas
                    .chunks_exact(2)
                    .map(|d| {
                        (x, y) = (x + d[0], y + d[1]);
                        [x as i32, y as i32]
                    })
                    .collect();
                let bounds = bounds_of(points.iter().map(|p| degrees(*p)));
                Ring { points, bounds }
            })
            .collect();
        let bounds = bounds_of(rings.iter().flat_map(|r| {
            let [w, s, e, n] = r.bounds;
            [[w, s], [e, n]]
        }));
        Area {
            id: raw.id,
            name: raw.name,
            abbr: raw.abbr,
            rings,
            bounds,
        }
    }

    /// Whether `p` is inside the area.
    pub fn contains(&self, p: Point) -> bool {
        if !within(self.bounds, p, 0.0) {
            return false;
        }
        let [x, y] = [p[0] * SCALE, p[1] * SCALE];
        let mut inside = false;
        for ring in self.rings.iter().filter(|r| within(r.bounds, p, 0.0)) {
            let pts = &ring.points;
            let mut j = pts.len().wrapping_sub(1);
            for i in 0..pts.len() {
                let ([xi, yi], [xj, yj]) = (pts[i].map(f64::from), pts[j].map(f64::from));
                if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                    inside = !inside;
                }
                j = i;
            }
        }
        inside
    }

    /// Whether `p` is inside the area or within `km` of its boundary.
    pub fn near(&self, p: Point, km: f64) -> bool {
        let margin = km / KM_PER_DEGREE / p[1].to_radians().cos().max(0.05);
        if !within(self.bounds, p, margin) {
            return false;
        }
        self.contains(p) || self.distance_km(p, margin) <= km
    }

    /// The distance in kilometres from `p` to the nearest edge among the rings
    /// within `margin` degrees of it (infinite when none is).
    fn distance_km(&self, p: Point, margin: f64) -> f64 {
        let cos = p[1].to_radians().cos();
        let local = |q: [f64; 2]| [(q[0] - p[0]) * cos, q[1] - p[1]];
        let mut nearest = f64::INFINITY;
        for ring in self.rings.iter().filter(|r| within(r.bounds, p, margin)) {
            let pts = &ring.points;
            for w in pts.windows(2) {
                let (a, b) = (local(degrees(w[0])), local(degrees(w[1])));
                let d = [b[0] - a[0], b[1] - a[1]];
                let len = d[0] * d[0] + d[1] * d[1];
                let t = match len {
                    0.0 => 0.0,
                    _ => (-(a[0] * d[0] + a[1] * d[1]) / len).clamp(0.0, 1.0),
                };
                let c = [a[0] + t * d[0], a[1] + t * d[1]];
                nearest = nearest.min(c[0] * c[0] + c[1] * c[1]);
            }
        }
        nearest.sqrt() * KM_PER_DEGREE
    }

    /// A point inside the area, for a map: the middle of its largest ring's
    /// bounds when that is inside, else the ring's first point.
    pub fn label_point(&self) -> Point {
        let area = |r: &&Ring| (r.bounds[2] - r.bounds[0]) * (r.bounds[3] - r.bounds[1]);
        let Some(ring) = self.rings.iter().max_by(|a, b| area(a).total_cmp(&area(b))) else {
            return [0.0, 0.0];
        };
        let [w, s, e, n] = ring.bounds;
        let middle = [(w + e) / 2.0, (s + n) / 2.0];
        match self.contains(middle) {
            true => middle,
            false => degrees(ring.points[0]),
        }
    }

    /// How many points its rings hold.
    pub fn points(&self) -> usize {
        self.rings.iter().map(|r| r.points.len()).sum()
    }
}

fn degrees(p: [i32; 2]) -> Point {
    [f64::from(p[0]) / SCALE, f64::from(p[1]) / SCALE]
}

fn within([w, s, e, n]: [f64; 4], p: Point, margin: f64) -> bool {
    p[0] >= w - margin && p[0] <= e + margin && p[1] >= s - margin && p[1] <= n + margin
}

/// Every area, and the ways records name them.
#[derive(Debug)]
pub struct Boundaries {
    pub countries: Vec<Area>,
    pub states: Vec<Area>,
    pub counties: Vec<Area>,
    /// Countries by ISO 3166-1 numeric code.
    country_by_code: AHashMap<String, usize>,
    /// The United States' states by name key and by abbreviation key.
    state_by_key: AHashMap<String, usize>,
    /// Counties by (state position, name key).
    county_by_key: AHashMap<(usize, String), Vec<usize>>,
}

impl Boundaries {
    /// The built-in boundaries, read on first use.
    pub fn get() -> &'static Boundaries {
        static BOUNDARIES: OnceLock<Boundaries> = OnceLock::new();
        BOUNDARIES.get_or_init(|| Boundaries::read(BUILT_IN))
    }

    /// Reads boundaries as `update.sh` writes them ([`BUILT_IN`]).
    pub fn read(gzipped: &[u8]) -> Boundaries {
        let mut json = Vec::new();
        flate2::read::GzDecoder::new(gzipped)
            .read_to_end(&mut json)
            .expect("the built-in boundaries are gzip");
        let raw: Raw = serde_json::from_slice(&json).expect("the built-in boundaries are JSON");
        let areas = |raw: Vec<RawArea>| raw.into_iter().map(Area::read).collect::<Vec<_>>();
        let (countries, states, counties) =
            (areas(raw.countries), areas(raw.states), areas(raw.counties));
        let country_by_code = countries
            .iter()
            .enumerate()
            .map(|(i, a)| (a.id.clone(), i))
            .collect();
        let mut state_by_key = AHashMap::new();
        for (i, s) in states.iter().enumerate() {
            state_by_key.insert(names::key(&s.name), i);
            if !s.abbr.is_empty() {
                state_by_key.insert(names::key(&s.abbr), i);
            }
        }
        let state_by_fips: AHashMap<&str, usize> = states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let mut county_by_key: AHashMap<(usize, String), Vec<usize>> = AHashMap::new();
        for (i, c) in counties.iter().enumerate() {
            if let Some(&state) = c.id.get(..2).and_then(|f| state_by_fips.get(f)) {
                county_by_key
                    .entry((state, names::key(&c.name)))
                    .or_default()
                    .push(i);
            }
        }
        Boundaries {
            countries,
            states,
            counties,
            country_by_code,
            state_by_key,
            county_by_key,
        }
    }

    /// The country with this ISO 3166-1 numeric code.
    pub fn country(&self, numeric: &str) -> Option<&Area> {
        self.country_by_code
            .get(numeric)
            .map(|&i| &self.countries[i])
    }

    /// The position of the United States' state a record names by its name or
    /// its abbreviation.
    pub fn state(&self, name: &str, abbr: &str) -> Option<usize> {
        [name, abbr]
            .into_iter()
            .filter(|n| !n.trim().is_empty())
            .find_map(|n| self.state_by_key.get(&names::key(n)).copied())
    }

    /// The counties of the state at `state` a record's county names (`A/B`:
    /// either).
    pub fn counties(&self, state: usize, name: &str) -> Vec<&Area> {
        names::county_keys(name)
            .into_iter()
            .flat_map(|k| self.county_by_key.get(&(state, k)).into_iter().flatten())
            .map(|&i| &self.counties[i])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fall_in_their_areas() {
        let b = Boundaries::get();
        let us = b.country(UNITED_STATES).expect("the United States");
        let canada = b.country("124").expect("Canada");
        let ann_arbor = [-83.74, 42.28];
        assert!(us.contains(ann_arbor) && !canada.contains(ann_arbor));
        // Windsor, Ontario: across the river from Detroit, within 5 km of the US.
        let windsor = [-83.03, 42.30];
        assert!(canada.contains(windsor) && !us.contains(windsor));
        assert!(us.near(windsor, 5.0) && !us.near([-81.0, 43.0], 5.0));
        let michigan = b.state("Michigan", "").expect("Michigan");
        assert_eq!(b.state("", "MI"), Some(michigan));
        assert_eq!(b.state("michigan", "xx"), Some(michigan));
        assert!(b.states[michigan].contains(ann_arbor));
        let washtenaw = b.counties(michigan, "Washtenaw County");
        assert_eq!(washtenaw.len(), 1);
        assert!(washtenaw[0].contains(ann_arbor));
        let arizona = b.state("Arizona", "AZ").expect("Arizona");
        assert_eq!(b.counties(arizona, "Pima/Santa Cruz").len(), 2);
        let alaska = b.state("Alaska", "AK").expect("Alaska");
        assert_eq!(b.counties(alaska, "Fairbanks N. Star").len(), 1);
        assert_eq!(b.counties(alaska, "Yukon-Koyukuk Census Area").len(), 1);
        let louisiana = b.state("Louisiana", "LA").expect("Louisiana");
        assert_eq!(b.counties(louisiana, "Orleans Parish").len(), 1);
        assert!(b.counties(louisiana, "Nowhere").is_empty());
        for area in [us, &b.states[michigan], washtenaw[0]] {
            assert!(area.contains(area.label_point()), "{}", area.name);
        }
    }
}
