//! Where records are on the map: GPS records, and specimen records through their
//! GPS record. Coordinates are stored as text (the existing service's schema), so
//! each GPS record's point is parsed once when a view is built; GeoJSON answers and
//! the Darwin Core Archive only look it up.

use crate::model::{Model, Type};

use super::table::Table;
use super::value::Value;

/// A point as GeoJSON orders it: longitude, then latitude (WGS 84 degrees).
pub type Point = [f64; 2];

/// Reads a latitude and longitude given as decimal degrees: `None` when either is
/// missing, not a finite number, or outside -90..=90 / -180..=180.
pub fn point(latitude: Option<&str>, longitude: Option<&str>) -> Option<Point> {
    let degrees = |s: &str, max: f64| {
        let s = s.trim();
        // `f64::from_str` also takes "inf", "NaN" and exponents: only decimals here.
        let decimal = !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+'));
        let v: f64 = s.parse().ok().filter(|_| decimal)?;
        (v.is_finite() && v.abs() <= max).then_some(v)
    };
    Some([degrees(longitude?, 180.0)?, degrees(latitude?, 90.0)?])
}

/// Where the records of the models with points are, built once per view: each
/// GPS record's point, each row's GPS record that has one, and the positions that
/// have one (what an unfiltered, unsorted GeoJSON page is cut from).
#[derive(Debug, Default)]
pub struct Points {
    /// Each GPS record's point.
    gps: Vec<Option<Point>>,
    /// By model index: each row's GPS record with a point ([`NONE`] for none),
    /// for the models that have points.
    rows: Vec<Option<Vec<u32>>>,
    /// By model index: the positions that have a point, ascending.
    located: Vec<Vec<u32>>,
}

/// No GPS record, or one without a point.
const NONE: u32 = u32::MAX;

/// Whether a model's records have points: GPS records, and every model with a
/// `gps` field (specimen records, the images taken in the field).
pub fn has_points(model: Model) -> bool {
    model == Model::Gps || gps_field(model).is_some()
}

fn gps_field(model: Model) -> Option<usize> {
    let f = model.field_index("gps")?;
    matches!(
        model.fields()[f].ty,
        Type::Embed(Model::Gps) | Type::RefId(Model::Gps)
    )
    .then_some(f)
}

impl Points {
    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        let rows: usize = self.rows.iter().flatten().map(|r| r.capacity() * 4).sum();
        let located: usize = self.located.iter().map(|l| l.capacity() * 4).sum();
        self.gps.capacity() * std::mem::size_of::<Option<Point>>() + rows + located
    }

    /// Reads every GPS record's coordinates, and gives every record with a GPS
    /// record its point. `tables` are by model index.
    pub fn locate(tables: &[Table]) -> Points {
        let gps = &tables[Model::Gps.index()];
        let (lat, lon) = (
            Model::Gps
                .field_index("latitude")
                .expect("GPS has a latitude"),
            Model::Gps
                .field_index("longitude")
                .expect("GPS has a longitude"),
        );
        let own: Vec<Option<Point>> = (0..gps.len())
            .map(|p| point(gps.get(p, lat).as_str(), gps.get(p, lon).as_str()))
            .collect();
        let mut rows: Vec<Option<Vec<u32>>> = tables.iter().map(|_| None).collect();
        for table in tables {
            let Some(field) = gps_field(table.model) else {
                continue;
            };
            let theirs = (0..table.len())
                .map(|pos| match table.get(pos, field) {
                    Value::Ref(Model::Gps, p) if own[p as usize].is_some() => p,
                    _ => NONE,
                })
                .collect();
            rows[table.model.index()] = Some(theirs);
        }
        rows[Model::Gps.index()] = Some(
            (0..own.len() as u32)
                .map(|p| if own[p as usize].is_some() { p } else { NONE })
                .collect(),
        );
        let located = rows
            .iter()
            .map(|gps| {
                (0..gps.as_ref().map_or(0, Vec::len) as u32)
                    .filter(|&pos| gps.as_ref().is_some_and(|g| g[pos as usize] != NONE))
                    .collect()
            })
            .collect();
        Points {
            gps: own,
            rows,
            located,
        }
    }

    /// The point of the record at `pos`, if it has one.
    pub fn get(&self, model: Model, pos: usize) -> Option<Point> {
        let gps = *self.rows.get(model.index())?.as_ref()?.get(pos)?;
        self.gps.get(gps as usize).copied().flatten()
    }

    /// The positions of a model's records that have a point, ascending.
    pub fn located(&self, model: Model) -> &[u32] {
        self.located.get(model.index()).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decimal_degrees() {
        assert_eq!(
            point(Some("38.849500"), Some("-84.866328")),
            Some([-84.866328, 38.8495])
        );
        assert_eq!(point(Some(" 0 "), Some("+180")), Some([180.0, 0.0]));
        for (lat, lon) in [
            (None, Some("1")),
            (Some("1"), None),
            (Some(""), Some("1")),
            (Some("90.5"), Some("1")),
            (Some("1"), Some("-180.01")),
            (Some("NaN"), Some("1")),
            (Some("inf"), Some("1")),
            (Some("1e1"), Some("1")),
            (Some("38°50'N"), Some("84°W")),
        ] {
            assert_eq!(point(lat, lon), None, "{lat:?} {lon:?}");
        }
    }
}
