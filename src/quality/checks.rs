//! The checks, each on the values a record holds: its point, where it says it
//! was found, its dates and its elevation. Nothing here reads a view.

use crate::model::{darwin_core, derived};

use super::boundaries::{Area, Boundaries, Point, UNITED_STATES};
use super::flag::{Flag, Flags};

/// How far outside its area a point may be and still count as inside: the
/// boundaries are drawn at 1:50m (countries) and 1:10m (states, counties), so a
/// coast or a border may be a few kilometres off, and a point on a beach or a
/// river bank must not be flagged.
pub const TOLERANCE_KM: f64 = 5.0;

/// The earliest collecting year believed.
pub const EARLIEST_YEAR: i64 = 1750;

/// The highest and lowest elevations believed, in metres.
pub const HIGHEST_M: f64 = 9000.0;
pub const LOWEST_M: f64 = -500.0;

/// A point's flags, and the point when it can be checked further (swapped, when
/// only swapped is it in range).
pub fn coordinates(latitude: Option<&str>, longitude: Option<&str>) -> (Flags, Option<Point>) {
    fn given(s: Option<&str>) -> Option<&str> {
        s.map(str::trim).filter(|s| !s.is_empty())
    }
    let (lat, lon) = match (given(latitude), given(longitude)) {
        (None, None) => return (Flags::NONE, None),
        (Some(lat), Some(lon)) => (decimal(lat), decimal(lon)),
        _ => (None, None),
    };
    let (Some(lat), Some(lon)) = (lat, lon) else {
        return (Flags::of([Flag::CoordinateInvalid]), None);
    };
    if lat.abs() > 90.0 && lat.abs() <= 180.0 && lon.abs() <= 90.0 {
        // GBIF's rule (its CoordinateParseUtils): a latitude out of range whose
        // swap with the longitude is in range was swapped; the point checked
        // further is the swapped one, as GBIF interprets it.
        (
            Flags::of([Flag::PresumedSwappedCoordinate]),
            Some([lat, lon]),
        )
    } else if lat.abs() > 90.0 || lon.abs() > 180.0 {
        (Flags::of([Flag::CoordinateOutOfRange]), None)
    } else if lat == 0.0 && lon == 0.0 {
        (Flags::of([Flag::ZeroCoordinate]), None)
    } else {
        (Flags::NONE, Some([lon, lat]))
    }
}

/// A decimal number of degrees (no exponents, no `inf` or `NaN`).
fn decimal(s: &str) -> Option<f64> {
    let plain = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+'));
    s.parse::<f64>().ok().filter(|v| plain && v.is_finite())
}

/// Where a record says it was found: its country (name, abbreviation), state
/// (name, abbreviation) and county, as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place<'a> {
    pub country: Option<(&'a str, &'a str)>,
    pub state: Option<(&'a str, &'a str)>,
    pub county: Option<&'a str>,
}

/// The ISO 3166-1 numeric code of a country as a record names it.
fn numeric(name: &str, abbr: &str) -> Option<&'static str> {
    let alpha2 = darwin_core::country_code(name, abbr)?;
    celes::Country::from_alpha2(alpha2).ok().map(|c| c.code)
}

/// The flags of a point against the place its record names. A level the
/// boundaries do not cover (a country not drawn; a state or county outside the
/// United States) is not checked.
pub fn place(point: Point, place: Place) -> Flags {
    let b = Boundaries::get();
    let mut flags = Flags::NONE;
    let Some(code) = place.country.and_then(|(name, abbr)| numeric(name, abbr)) else {
        return flags;
    };
    // A point outside the country is checked no further: its state and county
    // would only say the same again.
    let in_country = match b.country(code) {
        Some(country) if !country.near(point, TOLERANCE_KM) => {
            let [lon, lat] = point;
            let presumed = [
                (Flag::PresumedNegatedLatitude, [lon, -lat]),
                (Flag::PresumedNegatedLongitude, [-lon, lat]),
                (Flag::PresumedSwappedCoordinate, [lat, lon]),
            ]
            .into_iter()
            .find(|(_, p)| p[1].abs() <= 90.0 && country.near(*p, TOLERANCE_KM));
            flags.add(presumed.map_or(Flag::CountryCoordinateMismatch, |(f, _)| f));
            false
        }
        _ => true,
    };
    if code != UNITED_STATES {
        return flags;
    }
    let Some((name, abbr)) = place.state else {
        return flags;
    };
    let Some(state) = b.state(name, abbr) else {
        flags.add(Flag::StateUnmatched);
        return flags;
    };
    if in_country && !b.states[state].near(point, TOLERANCE_KM) {
        flags.add(Flag::StateCoordinateMismatch);
    }
    if let Some(county) = place.county {
        let counties = b.counties(state, county);
        if counties.is_empty() {
            flags.add(Flag::CountyUnmatched);
        } else if in_country && !counties.iter().any(|c| c.near(point, TOLERANCE_KM)) {
            flags.add(Flag::CountyCoordinateMismatch);
        }
    }
    flags
}

/// The area a geographic flag says the point is outside of: the country, the
/// state, or (of a county written `A/B`) the first county.
pub fn stated<'b>(place: Place, flag: Flag, b: &'b Boundaries) -> Option<&'b Area> {
    let code = place.country.and_then(|(name, abbr)| numeric(name, abbr))?;
    let state = || place.state.and_then(|(name, abbr)| b.state(name, abbr));
    match flag {
        Flag::StateCoordinateMismatch => state().map(|s| &b.states[s]),
        Flag::CountyCoordinateMismatch => b.counties(state()?, place.county?).into_iter().next(),
        _ => b.country(code),
    }
}

/// A day as (year, month, day).
pub type Day = (i64, u32, u32);

/// The flags of a collecting date given as its three parts (the month's name as
/// the record writes it) and of the year it was determined, against `today`.
pub fn dates(
    year: Option<i64>,
    month: &str,
    day: Option<i64>,
    determined: Option<i64>,
    today: Day,
) -> Flags {
    let mut flags = Flags::NONE;
    let month = derived::month_number(month.trim());
    if let Some(d) = day {
        let last = match (month, year) {
            (Some(2), Some(y)) if !leap(y) => 28,
            (Some(2), _) => 29,
            (Some(4 | 6 | 9 | 11), _) => 30,
            _ => 31,
        };
        if !(1..=last).contains(&d) {
            flags.add(Flag::RecordedDateInvalid);
        }
    }
    if let Some(y) = year {
        // The earliest day the parts allow.
        let earliest = (
            y,
            month.unwrap_or(1),
            day.map_or(1, |d| d.clamp(1, 31) as u32),
        );
        if y < EARLIEST_YEAR || earliest > today {
            flags.add(Flag::RecordedDateUnlikely);
        }
    }
    if let Some(d) = determined {
        if d > today.0 || year.is_some_and(|y| d < y) {
            flags.add(Flag::IdentifiedDateUnlikely);
        }
    }
    flags
}

fn leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The flags of an elevation as written (metres, or a range of them).
pub fn elevation(written: &str) -> Flags {
    if written.trim().is_empty() {
        return Flags::NONE;
    }
    match darwin_core::elevation(written) {
        None => Flags::of([Flag::ElevationNonNumeric]),
        Some((low, high)) if high > HIGHEST_M || low < LOWEST_M => {
            Flags::of([Flag::ElevationUnlikely])
        }
        Some(_) => Flags::NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: Day = (2026, 11, 28);

    fn names(flags: Flags) -> Vec<&'static str> {
        flags.iter().map(Flag::name).collect()
    }

    #[test]
    fn coordinates_are_read_or_flagged() {
        let flag = |lat, lon| names(coordinates(lat, lon).0);
        assert_eq!(
            coordinates(Some(" 42.28 "), Some("-83.74")),
            (Flags::NONE, Some([-83.74, 42.28]))
        );
        assert_eq!(coordinates(None, Some(" ")), (Flags::NONE, None));
        assert_eq!(flag(Some("0"), Some("0.0")), ["ZERO_COORDINATE"]);
        assert_eq!(flag(Some("0"), Some("12")), Vec::<&str>::new());
        assert_eq!(flag(Some("1"), Some("-180.5")), ["COORDINATE_OUT_OF_RANGE"]);
        // GBIF's own cases (CoordinateParseUtilsTest): a latitude out of range
        // whose swap is in range is swapped, (-100, 90) to (90, -100); out of
        // range otherwise. A point is [longitude, latitude].
        let swapped = Flags::of([Flag::PresumedSwappedCoordinate]);
        assert_eq!(
            coordinates(Some("100"), Some("40")),
            (swapped, Some([100.0, 40.0]))
        );
        assert_eq!(
            coordinates(Some("-100"), Some("90")),
            (swapped, Some([-100.0, 90.0]))
        );
        assert_eq!(
            coordinates(Some("-90.07"), Some("29.95")),
            (swapped, Some([-90.07, 29.95]))
        );
        for (lat, lon) in [
            ("200", "200"),
            ("-200", "30"),
            ("200", "30"),
            ("91", "91"),
            ("95", "-100"),
        ] {
            assert_eq!(
                flag(Some(lat), Some(lon)),
                ["COORDINATE_OUT_OF_RANGE"],
                "{lat} {lon}"
            );
        }
        // In range as given: never swapped.
        assert_eq!(flag(Some("90"), Some("180")), Vec::<&str>::new());
        assert_eq!(flag(Some("-90"), Some("-180")), Vec::<&str>::new());
        for (lat, lon) in [
            (Some("42°17'N"), Some("83°44'W")),
            (Some("NaN"), Some("1")),
            (Some("1e1"), Some("1")),
            (Some("42.3"), None),
        ] {
            assert_eq!(flag(lat, lon), ["COORDINATE_INVALID"], "{lat:?} {lon:?}");
        }
    }

    #[test]
    fn points_are_checked_against_their_country_state_and_county() {
        let us = Some(("United States of America", "USA"));
        let michigan = Some(("Michigan", "MI"));
        let at = |point, country, state, county| {
            names(place(
                point,
                Place {
                    country,
                    state,
                    county,
                },
            ))
        };
        let ann_arbor = [-83.74, 42.28];
        assert!(at(ann_arbor, us, michigan, Some("Washtenaw")).is_empty());
        assert!(at(ann_arbor, us, Some(("", "MI")), Some("Washtenaw Co.")).is_empty());
        assert!(
            at(ann_arbor, None, michigan, Some("Nowhere")).is_empty(),
            "no country: nothing checked"
        );
        assert_eq!(
            at(ann_arbor, us, michigan, Some("Lucas")),
            ["COUNTY_UNMATCHED"]
        );
        assert_eq!(
            at(ann_arbor, us, michigan, Some("Marquette")),
            ["COUNTY_COORDINATE_MISMATCH"]
        );
        assert_eq!(
            at(ann_arbor, us, michigan, Some("Marquette/Washtenaw")),
            Vec::<&str>::new()
        );
        assert_eq!(
            at(ann_arbor, us, Some(("Ohio", "OH")), None),
            ["STATE_COORDINATE_MISMATCH"]
        );
        assert_eq!(
            at(ann_arbor, us, Some(("Michigana", "")), Some("Washtenaw")),
            ["STATE_UNMATCHED"]
        );
        assert_eq!(
            at([83.74, 42.28], us, michigan, None),
            ["PRESUMED_NEGATED_LONGITUDE"]
        );
        assert_eq!(
            at([-83.74, -42.28], us, michigan, None),
            ["PRESUMED_NEGATED_LATITUDE"]
        );
        assert_eq!(
            at([42.28, -83.74], us, michigan, None),
            ["PRESUMED_SWAPPED_COORDINATE"]
        );
        assert_eq!(
            at([2.35, 48.85], us, michigan, None),
            ["COUNTRY_COORDINATE_MISMATCH"]
        );
        // Outside the United States only the country is checked.
        let costa_rica = Some(("Costa Rica", "CRI"));
        assert!(at(
            [-84.8, 10.3],
            costa_rica,
            Some(("Guanacaste", "G")),
            Some("x")
        )
        .is_empty());
        assert_eq!(
            at([-83.74, 42.28], costa_rica, None, None),
            ["COUNTRY_COORDINATE_MISMATCH"]
        );
        // A point on the shore, just outside the drawn coast, is inside.
        assert!(at([-87.6, 41.88], us, Some(("Illinois", "IL")), Some("Cook")).is_empty());
    }

    #[test]
    fn dates_are_days_that_were() {
        let flag = |y, m, d, det| names(dates(y, m, d, det, TODAY));
        assert!(flag(Some(2024), "February", Some(29), Some(2024)).is_empty());
        assert_eq!(
            flag(Some(2023), "February", Some(29), None),
            ["RECORDED_DATE_INVALID"]
        );
        assert!(flag(None, "February", Some(29), None).is_empty());
        assert_eq!(
            flag(Some(2019), "April", Some(31), None),
            ["RECORDED_DATE_INVALID"]
        );
        assert_eq!(
            flag(Some(2019), "", Some(32), None),
            ["RECORDED_DATE_INVALID"]
        );
        assert_eq!(
            flag(Some(2019), "", Some(0), None),
            ["RECORDED_DATE_INVALID"]
        );
        assert_eq!(flag(Some(1749), "", None, None), ["RECORDED_DATE_UNLIKELY"]);
        assert!(flag(Some(1750), "", None, None).is_empty());
        assert!(flag(Some(2026), "November", Some(28), None).is_empty());
        assert_eq!(
            flag(Some(2026), "November", Some(29), None),
            ["RECORDED_DATE_UNLIKELY"]
        );
        assert_eq!(
            flag(Some(2026), "December", None, None),
            ["RECORDED_DATE_UNLIKELY"]
        );
        assert_eq!(
            flag(Some(2019), "", None, Some(2018)),
            ["IDENTIFIED_DATE_UNLIKELY"]
        );
        assert_eq!(
            flag(None, "", None, Some(2027)),
            ["IDENTIFIED_DATE_UNLIKELY"]
        );
        assert!(flag(Some(2019), "", None, Some(2019)).is_empty());
    }

    #[test]
    fn elevations_are_metres_on_earth() {
        assert!(elevation("").is_empty() && elevation("260").is_empty());
        assert!(elevation("400-550").is_empty() && elevation("-400 m").is_empty());
        assert_eq!(names(elevation("9001")), ["ELEVATION_UNLIKELY"]);
        assert_eq!(names(elevation("-501")), ["ELEVATION_UNLIKELY"]);
        assert_eq!(names(elevation("8000-12000")), ["ELEVATION_UNLIKELY"]);
        assert_eq!(names(elevation("about 300 ft")), ["ELEVATION_NON_NUMERIC"]);
    }
}
