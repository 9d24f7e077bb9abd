//! What a set of specimen records covers, as `eml.xml` says it: the box their
//! points lie in, the first and last day they were collected, and the orders and
//! families they belong to. The whole collection's is derived once per view;
//! a question's is computed over the records it selects.

use chrono::NaiveDate;

use crate::model::{derived, Model};
use crate::view::occurrence::Occurrences;
use crate::view::{Derive, Value, View};

/// The extent of some specimen records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    /// West, east, north, south (degrees), when any record has a point.
    pub bounds: Option<[f64; 4]>,
    /// The first and last collecting days, when any record has a year.
    pub dates: Option<(NaiveDate, NaiveDate)>,
    /// The orders present, by name, ascending.
    pub orders: Vec<String>,
    /// The families present, by name, ascending.
    pub families: Vec<String>,
}

/// `Model::RANKS` positions of the ranks covered.
const FAMILY: usize = 5;
const ORDER: usize = 6;

impl Coverage {
    /// The coverage of the specimens at `positions` (all when `None`).
    pub fn of(view: &View, positions: Option<&[usize]>) -> Coverage {
        let specimens = view.table(Model::SpecimenRecord);
        let all: Vec<usize>;
        let positions = match positions {
            Some(p) => p,
            None => {
                all = (0..specimens.len()).collect();
                &all
            }
        };
        let field = |name| Model::SpecimenRecord.field_index(name).expect(name);
        let (year, month, day) = (field("year"), field("month"), field("day"));
        let occurrences = Occurrences::new(view, &view.dataset);
        let mut bounds: Option<[f64; 4]> = None;
        let mut dates: Option<(NaiveDate, NaiveDate)> = None;
        let orders = view.table(Model::Order).len();
        let mut seen = vec![false; orders + view.table(Model::Family).len()];
        for &pos in positions {
            if let Some([lon, lat]) = view.points.get(Model::SpecimenRecord, pos) {
                let b = bounds.get_or_insert([lon, lon, lat, lat]);
                *b = [b[0].min(lon), b[1].max(lon), b[2].max(lat), b[3].min(lat)];
            }
            let int = |f| match specimens.get(pos, f) {
                Value::Int(n) => Some(n),
                _ => None,
            };
            let named_month = specimens.get(pos, month);
            let month = named_month.as_str().and_then(derived::month_number);
            if let Some(span) = int(year).and_then(|y| days(y, month, int(day))) {
                let d = dates.get_or_insert(span);
                *d = (d.0.min(span.0), d.1.max(span.1));
            }
            let r = occurrences.ranks(pos);
            if let Some(seen) = seen.get_mut(r[ORDER] as usize) {
                *seen = true;
            }
            if let Some(seen) = seen.get_mut(orders.saturating_add(r[FAMILY] as usize)) {
                *seen = true;
            }
        }
        let names = |model: Model, seen: &[bool]| {
            let mut names: Vec<String> = seen
                .iter()
                .enumerate()
                .filter(|(_, s)| **s)
                .filter_map(|(p, _)| {
                    Some(view.value(model, p as u32, "name").as_str()?.to_string())
                })
                .filter(|n| !n.is_empty())
                .collect();
            names.sort();
            names.dedup();
            names
        };
        Coverage {
            bounds,
            dates,
            orders: names(Model::Order, &seen[..orders]),
            families: names(Model::Family, &seen[orders..]),
        }
    }
}

/// The days a collecting date may mean: the day itself, or its whole month or
/// year where the record gives no day or month (a day past the month's end
/// counts as the month).
fn days(year: i64, month: Option<u32>, day: Option<i64>) -> Option<(NaiveDate, NaiveDate)> {
    let year = i32::try_from(year).ok()?;
    let Some(month) = month else {
        return Some((
            NaiveDate::from_ymd_opt(year, 1, 1)?,
            NaiveDate::from_ymd_opt(year, 12, 31)?,
        ));
    };
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let last = first
        .checked_add_months(chrono::Months::new(1))?
        .pred_opt()?;
    let on = day
        .and_then(|d| u32::try_from(d).ok())
        .and_then(|d| NaiveDate::from_ymd_opt(year, month, d));
    Some(on.map_or((first, last), |d| (d, d)))
}

/// The whole collection's coverage, once per view.
impl Derive for Coverage {
    fn derive(view: &View) -> Coverage {
        Coverage::of(view, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_means_its_day_month_or_year() {
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        assert_eq!(
            days(2019, Some(10), Some(4)),
            Some((d(2019, 10, 4), d(2019, 10, 4)))
        );
        assert_eq!(
            days(2018, Some(8), None),
            Some((d(2018, 8, 1), d(2018, 8, 31)))
        );
        assert_eq!(
            days(2024, Some(2), Some(30)),
            Some((d(2024, 2, 1), d(2024, 2, 29)))
        );
        assert_eq!(
            days(2020, None, Some(3)),
            Some((d(2020, 1, 1), d(2020, 12, 31)))
        );
    }
}
