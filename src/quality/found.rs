//! The flags of every specimen of a view, found once (`View::derived`: the
//! server asks for them on its background thread after a load, or the first
//! question that needs them does) and kept with the view: each record's set, and
//! each flag's records in order, so `issue=` is a lookup like any grouped filter.

use std::borrow::Cow;

use ahash::AHashMap;

use crate::model::Model;
use crate::view::index;
use crate::view::place::Place;
use crate::view::{Derive, Value, View};

use super::boundaries::{Boundaries, Point};
use super::checks::{self, Day};
use super::flag::{Flag, Flags, NO_FLAG};

/// A point that is not where its record says, for the curator's map: the point,
/// a point inside the area its record names, the flag, and how many specimens
/// say both.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub flag: Flag,
    pub point: Point,
    pub stated: Point,
    pub stated_name: String,
    pub specimens: usize,
}

/// What `issue=` asks for: the records with any of some flags, and (`none`) the
/// records with no flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    pub any: Flags,
    pub unflagged: bool,
}

impl Asked {
    /// Reads `issue` values (each a flag's name in any case, or `none`; several
    /// in one value separated by commas). `Err` names the value that is neither.
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Asked, &'a str> {
        let mut asked = Asked::default();
        for value in values.into_iter().flat_map(|v| v.split(',')) {
            let value = value.trim();
            match Flag::named(value) {
                Some(flag) => asked.any.add(flag),
                None if value.eq_ignore_ascii_case(NO_FLAG) => asked.unflagged = true,
                None => return Err(value),
            }
        }
        Ok(asked)
    }
}

/// Every specimen's flags.
#[derive(Debug, Default)]
pub struct Quality {
    /// By specimen position.
    flags: Vec<Flags>,
    /// By flag (`Flag as usize`): its specimens' positions, ascending.
    rows: Vec<Vec<u32>>,
    /// The positions of the specimens without a flag, ascending.
    unflagged: Vec<u32>,
    /// The points outside the area their records name, commonest first.
    pub mismatches: Vec<Mismatch>,
}

impl Derive for Quality {
    fn derive(view: &View) -> Quality {
        Quality::find(view)
    }
}

/// The specimen fields the checks read.
struct Fields {
    gps: usize,
    year: usize,
    month: usize,
    day: usize,
    determined_year: usize,
    taxa: Vec<usize>,
}

fn field(model: Model, name: &str) -> usize {
    model.field_index(name).expect("a field the checks read")
}

fn text(value: Value<'_>) -> &str {
    value.as_str().unwrap_or("")
}

fn int(value: Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(i),
        _ => None,
    }
}

impl Quality {
    /// Checks every specimen of `view`. The checks of a point against its
    /// place are made once per distinct GPS record and place.
    pub fn find(view: &View) -> Quality {
        let specimens = view.table(Model::SpecimenRecord);
        let s = Fields {
            gps: field(Model::SpecimenRecord, "gps"),
            year: field(Model::SpecimenRecord, "year"),
            month: field(Model::SpecimenRecord, "month"),
            day: field(Model::SpecimenRecord, "day"),
            determined_year: field(Model::SpecimenRecord, "determined_year"),
            // The specimen field of each rank is named as the rank is.
            taxa: Model::RANKS
                .iter()
                .map(|rank| field(Model::SpecimenRecord, rank.rank_name().expect("a rank")))
                .collect(),
        };
        let gps = view.table(Model::Gps);
        let (lat, lon, elevation) = (
            field(Model::Gps, "latitude"),
            field(Model::Gps, "longitude"),
            field(Model::Gps, "elevation"),
        );
        let today = today(view.header.created_at);
        // Each GPS record's own flags and point, read once.
        let points: Vec<(Flags, Option<Point>)> = (0..gps.len())
            .map(|p| {
                let (flags, point) =
                    checks::coordinates(gps.get(p, lat).as_str(), gps.get(p, lon).as_str());
                (
                    flags.union(checks::elevation(text(gps.get(p, elevation)))),
                    point,
                )
            })
            .collect();
        let mut places: AHashMap<(u32, Place), Flags> = AHashMap::new();
        let mut flags = Vec::with_capacity(specimens.len());
        for pos in 0..specimens.len() {
            let mut found = checks::dates(
                int(specimens.get(pos, s.year)),
                text(specimens.get(pos, s.month)),
                int(specimens.get(pos, s.day)),
                int(specimens.get(pos, s.determined_year)),
                today,
            );
            if s.taxa
                .iter()
                .all(|&f| matches!(specimens.get(pos, f), Value::Null))
            {
                found.add(Flag::NotIdentified);
            }
            if let Value::Ref(_, g) = specimens.get(pos, s.gps) {
                let (own, point) = points[g as usize];
                found = found.union(own);
                if let Some(point) = point {
                    let place = Place::of_specimen(view, pos);
                    let geographic = *places
                        .entry((g, place))
                        .or_insert_with(|| checks::place(point, named(view, place)));
                    found = found.union(geographic);
                }
            }
            flags.push(found);
        }
        let mut rows = vec![Vec::new(); Flag::ALL.len()];
        let mut unflagged = Vec::new();
        for (pos, f) in flags.iter().enumerate() {
            if f.is_empty() {
                unflagged.push(pos as u32);
            }
            for flag in f.iter() {
                rows[flag as usize].push(pos as u32);
            }
        }
        let mismatches = mismatches(view, &points, &places, &flags, specimens, s.gps);
        Quality {
            flags,
            rows,
            unflagged,
            mismatches,
        }
    }

    /// How many specimens were checked.
    pub fn specimens(&self) -> usize {
        self.flags.len()
    }

    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        let rows: usize = self.rows.iter().map(|r| r.capacity() * 4).sum::<usize>()
            + self.unflagged.capacity() * 4;
        let mismatches = self.mismatches.capacity() * std::mem::size_of::<Mismatch>()
            + self
                .mismatches
                .iter()
                .map(|m| m.stated_name.capacity())
                .sum::<usize>();
        self.flags.capacity() * std::mem::size_of::<Flags>() + rows + mismatches
    }

    /// The flags of the specimen at `pos`.
    pub fn of(&self, pos: usize) -> Flags {
        self.flags.get(pos).copied().unwrap_or_default()
    }

    /// How many specimens have `flag`.
    pub fn count(&self, flag: Flag) -> usize {
        self.rows[flag as usize].len()
    }

    /// Each flag (`Flag as usize`) and how many of the specimens at
    /// `positions` have it (every specimen when `None`).
    pub fn counts(&self, positions: Option<&[usize]>) -> [usize; Flag::ALL.len()] {
        match positions {
            None => Flag::ALL.map(|f| self.count(f)),
            Some(positions) => {
                let mut n = [0; Flag::ALL.len()];
                for &p in positions {
                    self.of(p).iter().for_each(|f| n[f as usize] += 1);
                }
                n
            }
        }
    }

    /// How many specimens have no flag.
    pub fn unflagged(&self) -> usize {
        self.unflagged.len()
    }

    /// The lists of the specimens asked for, each ascending (a specimen with
    /// two flags asked for is in both).
    pub fn lists(&self, asked: Asked) -> Vec<&[u32]> {
        let flags = asked.any.iter().map(|f| &self.rows[f as usize][..]);
        let none = asked.unflagged.then_some(&self.unflagged[..]);
        flags.chain(none).collect()
    }

    /// The positions of the specimens asked for, ascending.
    pub fn rows(&self, asked: Asked) -> Cow<'_, [u32]> {
        index::union(self.flags.len(), self.lists(asked))
    }

    /// Whether the specimen at `pos` is one asked for.
    pub fn holds(&self, pos: usize, asked: Asked) -> bool {
        let flags = self.of(pos);
        flags.meets(asked.any) || (asked.unflagged && flags.is_empty())
    }
}

/// The day a snapshot was made (UTC), from its creation time in microseconds.
fn today(created_at: i64) -> Day {
    use chrono::Datelike;
    let at = chrono::DateTime::from_timestamp_micros(created_at).unwrap_or_default();
    (i64::from(at.year()), at.month(), at.day())
}

/// The names of a place's records.
fn named(view: &View, place: Place) -> checks::Place<'_> {
    let get = |model: Model, pos: u32, name: &str| {
        let table = view.table(model);
        text(table.get(pos as usize, field(model, name)))
    };
    checks::Place {
        country: place.country.map(|c| {
            (
                get(Model::Country, c, "name"),
                get(Model::Country, c, "abbr"),
            )
        }),
        state: place
            .state
            .map(|s| (get(Model::State, s, "name"), get(Model::State, s, "abbr"))),
        county: place.county.map(|c| get(Model::County, c, "name")),
    }
}

/// Every point outside the area its records name, with where that area is.
fn mismatches(
    view: &View,
    points: &[(Flags, Option<Point>)],
    places: &AHashMap<(u32, Place), Flags>,
    flags: &[Flags],
    specimens: &crate::view::Table,
    gps: usize,
) -> Vec<Mismatch> {
    let outside = Flags::of(Flag::ALL.into_iter().filter(|f| f.outside()));
    let mut counted: AHashMap<(u32, Place), usize> = AHashMap::new();
    for (pos, f) in flags.iter().enumerate() {
        if !f.meets(outside) {
            continue;
        }
        if let Value::Ref(_, g) = specimens.get(pos, gps) {
            *counted
                .entry((g, Place::of_specimen(view, pos)))
                .or_default() += 1;
        }
    }
    let b = Boundaries::get();
    let mut out: Vec<Mismatch> = counted
        .into_iter()
        .filter_map(|((g, place), specimens)| {
            let point = points[g as usize].1?;
            let found = places.get(&(g, place))?;
            let flag = found.iter().find(|f| f.outside())?;
            let area = checks::stated(named(view, place), flag, b)?;
            Some(Mismatch {
                flag,
                point,
                stated: area.label_point(),
                stated_name: area.name.clone(),
                specimens,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.specimens
            .cmp(&a.specimens)
            .then(a.flag.cmp(&b.flag))
            .then(a.point[0].total_cmp(&b.point[0]))
            .then(a.point[1].total_cmp(&b.point[1]))
    });
    out
}
