//! Every specimen's Darwin Core values as columns, built once per view on first
//! use: what a search in Darwin Core's terms (`query::gbif`) compares, counts and
//! sorts without reading a specimen's records again. The values are the ones the
//! archive writes ([`super::occurrence`]), so a search and a download agree.

use ahash::AHashMap;
use chrono::{Datelike, NaiveDate};

use crate::model::Model;

use crate::view::occurrence::{column, Occurrences, Sink, Term, COLUMNS};
use crate::view::{Derive, Value, View};

/// The text terms kept as columns, in the order of [`Terms::text`].
pub const TEXT: [&str; 15] = [
    "catalogNumber",
    "basisOfRecord",
    "scientificName",
    "order",
    "family",
    "genus",
    "country",
    "countryCode",
    "stateProvince",
    "county",
    "locality",
    "recordedBy",
    "identifiedBy",
    "sex",
    "lifeStage",
];

/// The separator of several collectors in `recordedBy`, as the archive writes it.
pub const PEOPLE_SEPARATOR: &str = " | ";

/// No value, in the number columns.
pub const NO_INT: i32 = i32::MIN;

/// Specimens grouped by a key below some bound (a value's code, a taxon's
/// position): each key's specimens, ascending. What a filter on a value looks up
/// instead of scanning.
#[derive(Debug, Default)]
pub struct Postings {
    /// Key `k`'s specimens are `positions[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    positions: Vec<u32>,
}

impl Postings {
    /// From each specimen's keys (in specimen order), keys below `keys`.
    fn build<'a>(keys: usize, of: impl Fn(usize) -> &'a [u32], specimens: usize) -> Postings {
        let mut starts = vec![0u32; keys + 1];
        for pos in 0..specimens {
            for &k in of(pos) {
                starts[k as usize + 1] += 1;
            }
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; starts[keys] as usize];
        for pos in 0..specimens {
            for &k in of(pos) {
                positions[next[k as usize] as usize] = pos as u32;
                next[k as usize] += 1;
            }
        }
        Postings { starts, positions }
    }

    /// The specimens with key `k`, ascending.
    pub fn get(&self, k: u32) -> &[u32] {
        let k = k as usize;
        match self.starts.get(k + 1) {
            Some(&end) => &self.positions[self.starts[k] as usize..end as usize],
            None => &[],
        }
    }
}

/// The specimens that have a number, in its order: a range of values is a run.
#[derive(Debug, Default)]
pub struct Sorted {
    positions: Vec<u32>,
    keys: Vec<f64>,
}

impl Sorted {
    /// From each specimen's number; NaN is no number.
    fn build(values: impl Iterator<Item = f64>) -> Sorted {
        let mut pairs: Vec<(f64, u32)> = values
            .enumerate()
            .filter(|(_, v)| !v.is_nan())
            .map(|(p, v)| (v, p as u32))
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        Sorted {
            keys: pairs.iter().map(|p| p.0).collect(),
            positions: pairs.into_iter().map(|p| p.1).collect(),
        }
    }

    /// The specimens whose number is within `[lo, hi]`, in the number's order.
    pub fn range(&self, lo: f64, hi: f64) -> &[u32] {
        let from = self.keys.partition_point(|&x| x < lo);
        let to = self.keys.partition_point(|&x| x <= hi);
        &self.positions[from..to.max(from)]
    }
}

/// One text term's values: each specimen's values (none, one, or several for
/// `recordedBy`) as codes into its distinct values.
#[derive(Debug, Default)]
pub struct Coded {
    /// Specimen `i`'s codes are `codes[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    codes: Vec<u32>,
    /// The distinct values as the archive spells them, by code.
    values: Vec<Box<str>>,
    /// The codes of each distinct value, lowercased (two spellings may share one).
    lower: AHashMap<Box<str>, Vec<u32>>,
    /// Each code's place among the values in lowercase order, for sorting.
    ranks: Vec<u32>,
    /// Each code's specimens.
    pub postings: Postings,
}

impl Coded {
    fn push(&mut self, seen: &mut AHashMap<Box<str>, u32>, values: &[&str]) {
        for &v in values.iter().filter(|v| !v.is_empty()) {
            let code = *seen.entry(v.into()).or_insert_with(|| {
                let code = self.values.len() as u32;
                self.values.push(v.into());
                self.lower
                    .entry(v.to_lowercase().into())
                    .or_default()
                    .push(code);
                code
            });
            self.codes.push(code);
        }
        self.starts.push(self.codes.len() as u32);
    }

    fn finish(&mut self) {
        let specimens = self.starts.len() - 1;
        self.postings = Postings::build(self.values.len(), |pos| self.of(pos), specimens);
        let mut order: Vec<u32> = (0..self.values.len() as u32).collect();
        order.sort_by_cached_key(|&c| (self.values[c as usize].to_lowercase(), c));
        self.ranks = vec![0; order.len()];
        for (rank, code) in order.into_iter().enumerate() {
            self.ranks[code as usize] = rank as u32;
        }
    }

    /// The codes of specimen `pos`.
    pub fn of(&self, pos: usize) -> &[u32] {
        &self.codes[self.starts[pos] as usize..self.starts[pos + 1] as usize]
    }

    /// The codes of the values equal to `value`, ignoring case.
    pub fn find(&self, value: &str) -> &[u32] {
        self.lower
            .get(value.to_lowercase().as_str())
            .map_or(&[], Vec::as_slice)
    }

    /// A code's value, as the archive spells it.
    pub fn value(&self, code: u32) -> &str {
        &self.values[code as usize]
    }

    /// How many distinct values there are (codes are below this).
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// A code's place in the lowercase order of the values.
    pub fn rank(&self, code: u32) -> u32 {
        self.ranks[code as usize]
    }
}

/// The columns. Numbers hold [`NO_INT`] or NaN where a specimen has no value.
#[derive(Debug, Default)]
pub struct Terms {
    /// One column per term of [`TEXT`].
    pub text: Vec<Coded>,
    /// Each specimen's classification: its taxon's position at each rank of
    /// `Model::RANKS` (the specimen's own, else the one above its taxon), or
    /// `u32::MAX`.
    pub ranks: Vec<[u32; 7]>,
    pub year: Vec<i32>,
    pub month: Vec<i32>,
    pub day: Vec<i32>,
    pub latitude: Vec<f64>,
    pub longitude: Vec<f64>,
    /// Metres: the middle of the archive's minimum and maximum elevation.
    pub elevation: Vec<f64>,
    /// The first and last day the event date covers (days from 0001-01-01): a
    /// date names one day, a month all its days, a year all of its.
    pub event: Vec<[i32; 2]>,
    /// When the record last changed (microseconds since 1970).
    pub modified: Vec<i64>,
    /// Per rank, each taxon's specimens.
    pub by_rank: Vec<Postings>,
    /// Per rank, the taxa by their name lowercased (a binomial or trinomial
    /// below the genus), and by that name and their authority.
    pub taxa_named: Vec<AHashMap<Box<str>, Vec<u32>>>,
    pub taxa_authored: Vec<AHashMap<Box<str>, Vec<u32>>>,
    /// The specimens in the order of each number, for ranges: `year`, `month`,
    /// `day`, `latitude`, `longitude` (an area looks at the run of its
    /// longitudes), `elevation`, the event's first day, the day modified.
    pub sorted: Vec<Sorted>,
}

/// The numbers kept in order, by [`Terms::sorted`] index.
pub const SORTED: [&str; 8] = [
    "year",
    "month",
    "day",
    "decimalLatitude",
    "decimalLongitude",
    "elevation",
    "eventDate",
    "modified",
];

/// The day (from 0001-01-01) of an instant in microseconds since 1970.
pub fn day_of(micros: i64) -> f64 {
    const UNIX_EPOCH_DAYS: i64 = 719_163;
    (micros.div_euclid(86_400_000_000) + UNIX_EPOCH_DAYS) as f64
}

/// The text column a term is kept in, if it is one of [`TEXT`].
pub fn text_column(term: &str) -> Option<usize> {
    TEXT.iter().position(|t| *t == term)
}

/// What a specimen's terms are while a row of the columns is taken.
struct Capture {
    text: Vec<String>,
    numbers: Vec<Option<f64>>,
}

impl Sink for Capture {
    fn text(&mut self, term: Term, s: &str) {
        let held = &mut self.text[term.index()];
        held.clear();
        held.push_str(s);
    }

    fn int(&mut self, term: Term, n: Option<i64>) {
        self.numbers[term.index()] = n.map(|n| n as f64);
    }

    fn float(&mut self, term: Term, n: Option<f64>) {
        self.numbers[term.index()] = n;
    }
}

/// The days an event date covers, from its year, month and day.
fn event_days(year: Option<f64>, month: Option<f64>, day: Option<f64>) -> [i32; 2] {
    let days =
        |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d).map(|d| d.num_days_from_ce());
    let none = [NO_INT, NO_INT];
    let Some(y) = year.map(|y| y as i32) else {
        return none;
    };
    let span = match (month.map(|m| m as u32), day.map(|d| d as u32)) {
        (Some(m), Some(d)) => days(y, m, d).map(|d| (d, d)),
        (Some(m), None) => days(y, m, 1).zip(
            NaiveDate::from_ymd_opt(y, m, 1)
                .and_then(|first| first.checked_add_months(chrono::Months::new(1)))
                .map(|next| next.num_days_from_ce() - 1),
        ),
        (None, _) => days(y, 1, 1).zip(days(y, 12, 31)),
    };
    span.map_or(none, |(a, b)| [a, b])
}

impl Derive for Terms {
    fn derive(view: &View) -> Terms {
        Terms::build(view)
    }
}

impl Terms {
    /// Reads every specimen of the view through the archive's terms.
    pub fn build(view: &View) -> Terms {
        let specimens = view.table(Model::SpecimenRecord);
        let n = specimens.len();
        let occurrences = Occurrences::new(view, &view.dataset);
        let mut t = Terms {
            text: (0..TEXT.len()).map(|_| Coded::default()).collect(),
            ..Terms::default()
        };
        let mut seen: Vec<AHashMap<Box<str>, u32>> = vec![AHashMap::new(); TEXT.len()];
        for coded in &mut t.text {
            coded.starts.reserve(n + 1);
            coded.starts.push(0);
        }
        let text_at: Vec<usize> = TEXT.iter().map(|term| column(term)).collect();
        let number = |term| column(term);
        let (year, month, day) = (number("year"), number("month"), number("day"));
        let (lat, lon) = (number("decimalLatitude"), number("decimalLongitude"));
        let (low, high) = (
            number("minimumElevationInMeters"),
            number("maximumElevationInMeters"),
        );
        let modified = Model::SpecimenRecord
            .field_index("date_modified")
            .expect("a specimen has date_modified");
        let mut capture = Capture {
            text: vec![String::new(); COLUMNS.len()],
            numbers: vec![None; COLUMNS.len()],
        };
        for pos in 0..n {
            occurrences.terms(pos, &mut capture);
            for (i, &at) in text_at.iter().enumerate() {
                let value = capture.text[at].as_str();
                match TEXT[i] {
                    "recordedBy" => {
                        let people: Vec<&str> = value.split(PEOPLE_SEPARATOR).collect();
                        t.text[i].push(&mut seen[i], &people);
                    }
                    _ => t.text[i].push(&mut seen[i], &[value]),
                }
            }
            let int = |at: usize| capture.numbers[at].map_or(NO_INT, |v| v as i32);
            t.year.push(int(year));
            t.month.push(int(month));
            t.day.push(int(day));
            let float = |at: usize| capture.numbers[at].unwrap_or(f64::NAN);
            t.latitude.push(float(lat));
            t.longitude.push(float(lon));
            t.elevation.push((float(low) + float(high)) / 2.0);
            t.event.push(event_days(
                capture.numbers[year],
                capture.numbers[month],
                capture.numbers[day],
            ));
            t.modified.push(match specimens.get(pos, modified) {
                Value::Time(micros) => micros,
                _ => i64::MIN,
            });
            t.ranks.push(occurrences.ranks(pos));
        }
        for coded in &mut t.text {
            coded.finish();
        }
        t.by_rank = (0..7)
            .map(|r| {
                let taxa = view.table(Model::RANKS[r]).len();
                let ranks = &t.ranks;
                let keys: Vec<[u32; 1]> = ranks.iter().map(|k| [k[r]]).collect();
                let none: &[u32] = &[];
                Postings::build(
                    taxa,
                    |pos| match keys[pos][0] {
                        u32::MAX => none,
                        _ => &keys[pos],
                    },
                    n,
                )
            })
            .collect();
        for rank in Model::RANKS {
            let table = view.table(rank);
            let name = match rank {
                Model::Species => "binomial",
                Model::Subspecies => "trinomial",
                _ => "name",
            };
            let name = rank.field_index(name).expect("a taxon has a name");
            let author = rank
                .field_index("authority")
                .expect("a taxon has an authority");
            let (mut named, mut authored) = (AHashMap::new(), AHashMap::new());
            for pos in 0..table.len() {
                let n = table.get(pos, name).as_str().unwrap_or("").to_lowercase();
                let a = table.get(pos, author).as_str().unwrap_or("").to_lowercase();
                let with: Box<str> = format!("{n} {a}").into();
                authored
                    .entry(with)
                    .or_insert_with(Vec::new)
                    .push(pos as u32);
                named
                    .entry(n.into_boxed_str())
                    .or_insert_with(Vec::new)
                    .push(pos as u32);
            }
            t.taxa_named.push(named);
            t.taxa_authored.push(authored);
        }
        let int = |v: &i32| if *v == NO_INT { f64::NAN } else { *v as f64 };
        t.sorted = vec![
            Sorted::build(t.year.iter().map(int)),
            Sorted::build(t.month.iter().map(int)),
            Sorted::build(t.day.iter().map(int)),
            Sorted::build(t.latitude.iter().copied()),
            Sorted::build(t.longitude.iter().copied()),
            Sorted::build(t.elevation.iter().copied()),
            Sorted::build(t.event.iter().map(|e| int(&e[0]))),
            Sorted::build(t.modified.iter().map(|&m| match m {
                i64::MIN => f64::NAN,
                m => day_of(m),
            })),
        ];
        t
    }

    /// The numbers of [`SORTED`]'s `term`, in order.
    pub fn sorted(&self, term: &str) -> &Sorted {
        &self.sorted[SORTED
            .iter()
            .position(|t| *t == term)
            .expect("a sorted term")]
    }

    /// The column of a text term of [`TEXT`].
    pub fn coded(&self, term: &str) -> &Coded {
        &self.text[text_column(term).expect("a text term")]
    }

    pub fn len(&self) -> usize {
        self.year.len()
    }

    pub fn is_empty(&self) -> bool {
        self.year.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_covers_the_days_it_names() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap().num_days_from_ce();
        assert_eq!(
            event_days(Some(2019.0), Some(6.0), Some(4.0)),
            [day(2019, 6, 4), day(2019, 6, 4)]
        );
        assert_eq!(
            event_days(Some(2020.0), Some(2.0), None),
            [day(2020, 2, 1), day(2020, 2, 29)]
        );
        assert_eq!(
            event_days(Some(2019.0), Some(12.0), None),
            [day(2019, 12, 1), day(2019, 12, 31)]
        );
        assert_eq!(
            event_days(Some(1990.0), None, Some(3.0)),
            [day(1990, 1, 1), day(1990, 12, 31)]
        );
        assert_eq!(event_days(None, Some(3.0), None), [NO_INT, NO_INT]);
    }
}
