//! Derived values: the fields the API computes from stored ones, and the parsing and
//! printing of instants and dates. Each rule is the existing service's, exactly.

use chrono::{DateTime, Datelike, NaiveDate, Timelike};
use unicode_normalization::UnicodeNormalization;

/// The months, as a specimen stores them.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `M. Last` plus ` Suffix`: how a label names a collector.
pub fn collector_name(first: &str, last: &str, suffix: Option<&str>) -> String {
    let mut s = String::with_capacity(last.len() + 8);
    if let Some(initial) = first.chars().next() {
        s.push(initial);
        s.push_str(". ");
    }
    s.push_str(last);
    if let Some(suffix) = suffix.filter(|x| !x.is_empty()) {
        s.push(' ');
        s.push_str(suffix);
    }
    s
}

/// `First M. Last, Suffix`, the bracketed parts only when present.
pub fn person_full_name(
    first: &str,
    middle: Option<&str>,
    last: &str,
    suffix: Option<&str>,
) -> String {
    let mut s = String::from(first);
    if let Some(m) = middle.filter(|x| !x.is_empty()) {
        s.push(' ');
        s.push_str(m);
        s.push('.');
    }
    s.push(' ');
    s.push_str(last);
    if let Some(suffix) = suffix.filter(|x| !x.is_empty()) {
        s.push_str(", ");
        s.push_str(suffix);
    }
    s
}

/// The word after a county's name: Alaska has boroughs (census areas have none),
/// Louisiana has parishes, everywhere else has counties.
pub fn county_abbr(state_name: &str, county_name: &str) -> &'static str {
    match state_name {
        "Alaska" if county_name.contains("Census") => "",
        "Alaska" => "Boro.",
        "Louisiana" => "Par.",
        _ => "Co.",
    }
}

/// `Name Abbr`, plus ` line` for a boundary between two counties (`A/B`).
pub fn county_full_name(name: &str, abbr: &str) -> String {
    let mut s = String::from(name);
    if !abbr.is_empty() {
        s.push(' ');
        s.push_str(abbr);
    }
    if name.contains('/') {
        s.push_str(" line");
    }
    s
}

/// Django's `slugify`: NFKD, drop what is not ASCII, lowercase, keep word characters,
/// white space and hyphens, fold runs of white space and hyphens into one `-`, and
/// strip `-` and `_` from both ends.
pub fn slugify(value: &str) -> String {
    // Python's `\s` on a str also matches the ASCII separators 0x1c-0x1f.
    let is_space = |c: char| {
        matches!(
            c,
            ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1f'
        )
    };
    let kept = value
        .nfkd()
        .filter(|c| c.is_ascii())
        .map(|c| c.to_ascii_lowercase())
        .filter(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || is_space(c));
    let mut out = String::with_capacity(value.len());
    let mut in_run = false;
    for c in kept {
        if c == '-' || is_space(c) {
            if !in_run {
                out.push('-');
                in_run = true;
            }
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out.trim_matches(|c| c == '-' || c == '_').to_string()
}

/// The three printed forms of a collecting date.
#[derive(Debug, PartialEq, Eq)]
pub struct Dates {
    /// `D-Mon-YYYY`, `Mon YYYY` or `YYYY`.
    pub collected: String,
    /// `D Month YYYY`, `Month YYYY` or `YYYY`.
    pub full: String,
    /// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
    pub numeric: String,
}

/// The number (1-12) of a stored month name, or `None` when it is not one.
pub fn month_number(month: &str) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(month))
        .map(|i| i as u32 + 1)
}

/// Prints a specimen's date by the most precise part set: day (when the month is set
/// too), else month, else the year alone. A null year prints as "".
pub fn dates(day: Option<i64>, month: &str, year: Option<i64>) -> Dates {
    let y = year.map(|y| y.to_string()).unwrap_or_default();
    let y4 = year.map(|y| format!("{y:04}")).unwrap_or_default();
    let mon: String = month.chars().take(3).collect();
    let num = month_number(month);
    let day = day.filter(|&d| d != 0);
    match (day, month.is_empty()) {
        (Some(d), false) => Dates {
            collected: format!("{d}-{mon}-{y}"),
            full: format!("{d} {month} {y}"),
            numeric: match num {
                Some(m) => format!("{y4}-{m:02}-{d:02}"),
                None => y4,
            },
        },
        (_, false) => Dates {
            collected: format!("{mon} {y}"),
            full: format!("{month} {y}"),
            numeric: match num {
                Some(m) => format!("{y4}-{m:02}"),
                None => y4,
            },
        },
        (_, true) => Dates {
            collected: y.clone(),
            full: y,
            numeric: y4,
        },
    }
}

/// Parses a stored temperature: `None` for an empty one, an error for one that is
/// not a finite number.
pub fn parse_temperature(s: &str) -> Result<Option<f64>, String> {
    if s.is_empty() {
        return Ok(None);
    }
    match s.trim().parse::<f64>() {
        Ok(t) if t.is_finite() => Ok(Some(t)),
        _ => Err(format!("{s:?} is not a number")),
    }
}

/// `temp_F`: the temperature as an integer when integral, else rounded to one
/// decimal (ties to even on the exact binary value), then `°F`.
pub fn temp_f(t: Option<f64>) -> String {
    match t {
        None => String::new(),
        // `+ 0.0` turns -0 into 0, as Python's int() does.
        Some(t) if t.fract() == 0.0 => format!("{:.0}°F", t + 0.0),
        Some(t) => format!("{t:.1}°F"),
    }
}

/// `temp_C`: (t - 32) * 5 / 9 rounded to one decimal, always one decimal shown.
pub fn temp_c(t: Option<f64>) -> String {
    match t {
        None => String::new(),
        Some(t) => format!("{:.1}°C", (t - 32.0) * 5.0 / 9.0),
    }
}

/// Parses an instant: `YYYY-MM-DD`, `T` or a space, `HH:MM:SS`, up to six fractional
/// digits, then `Z`, an offset (`+HH:MM`, `+HHMM`, `+HH`) or nothing (read as UTC).
/// Returns microseconds since the Unix epoch.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || !(b[10] == b'T' || b[10] == b' ') {
        return None;
    }
    let date = parse_date_parts(&s[..10])?;
    let two = |i: usize| -> Option<u32> {
        let d = b.get(i..i + 2)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| u32::from(d[0] - b'0') * 10 + u32::from(d[1] - b'0'))
    };
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (h, mi, se) = (two(11)?, two(14)?, two(17)?);
    let mut i = 19;
    let mut micros = 0u32;
    if b.get(i) == Some(&b'.') {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || digits > 6 {
            return None;
        }
        let frac = &s[i + 1..i + 1 + digits];
        micros = frac.parse::<u32>().ok()? * 10u32.pow(6 - digits as u32);
        i += 1 + digits;
    }
    let offset_secs: i64 = match &s[i..] {
        "" | "Z" | "z" => 0,
        rest => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let r = rest[1..].replace(':', "");
            if !(r.len() == 2 || r.len() == 4) || !r.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let oh: i64 = r[..2].parse().ok()?;
            let om: i64 = if r.len() == 4 {
                r[2..].parse().ok()?
            } else {
                0
            };
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
    };
    let naive = date.and_hms_micro_opt(h, mi, se, micros)?;
    Some(naive.and_utc().timestamp_micros() - offset_secs * 1_000_000)
}

fn parse_date_parts(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let d = &s[r];
        d.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| d.parse().ok())?
    };
    NaiveDate::from_ymd_opt(digits(0..4)? as i32, digits(5..7)?, digits(8..10)?)
}

/// Checks a `YYYY-MM-DD` calendar date.
pub fn parse_date(s: &str) -> Option<String> {
    parse_date_parts(s).map(|_| s.to_string())
}

/// Appends an instant as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
pub fn write_timestamp(out: &mut Vec<u8>, micros: i64) {
    match DateTime::from_timestamp_micros(micros) {
        Some(t) if (0..=9999).contains(&t.year()) => {
            let n = |out: &mut Vec<u8>, v: u32, width: usize| {
                let mut buf = [b'0'; 6];
                let mut v = v;
                for i in (0..width).rev() {
                    buf[i] = b'0' + (v % 10) as u8;
                    v /= 10;
                }
                out.extend_from_slice(&buf[..width]);
            };
            n(out, t.year() as u32, 4);
            out.push(b'-');
            n(out, t.month(), 2);
            out.push(b'-');
            n(out, t.day(), 2);
            out.push(b'T');
            n(out, t.hour(), 2);
            out.push(b':');
            n(out, t.minute(), 2);
            out.push(b':');
            n(out, t.second(), 2);
            out.push(b'.');
            n(out, t.nanosecond() / 1000, 6);
            out.push(b'Z');
        }
        // Out of the printable range: only a hand-made snapshot gets here.
        _ => out.extend_from_slice(b"0000-01-01T00:00:00.000000Z"),
    }
}

/// A timestamp (microseconds since the epoch) as an HTTP date (RFC 9110 IMF-fixdate).
pub fn http_date(micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(micros)
        .unwrap_or_default()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates() {
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            http_date(1_700_000_000_123_456),
            "Tue, 14 Nov 2023 22:13:20 GMT"
        );
    }

    #[test]
    fn person_names() {
        assert_eq!(collector_name("Megan", "Hart", None), "M. Hart");
        assert_eq!(collector_name("Paul", "Ives", Some("Jr.")), "P. Ives Jr.");
        assert_eq!(collector_name("Émile", "Roy", Some("")), "É. Roy");
        assert_eq!(
            person_full_name("Ann", Some("Q"), "Lee", None),
            "Ann Q. Lee"
        );
        assert_eq!(
            person_full_name("Ann", None, "Lee", Some("III")),
            "Ann Lee, III"
        );
        assert_eq!(
            person_full_name("Ann", Some(""), "Lee", Some("")),
            "Ann Lee"
        );
        assert_eq!(
            person_full_name("Bo", Some("R"), "Lu", Some("Sr.")),
            "Bo R. Lu, Sr."
        );
    }

    #[test]
    fn county_words() {
        assert_eq!(county_abbr("Alaska", "Kenai Peninsula"), "Boro.");
        assert_eq!(county_abbr("Alaska", "Bethel Census Area"), "");
        assert_eq!(county_abbr("Louisiana", "Orleans"), "Par.");
        assert_eq!(county_abbr("Ohio", "Lucas"), "Co.");
        // Only the exact state name counts.
        assert_eq!(county_abbr("alaska", "Kenai"), "Co.");
        assert_eq!(county_full_name("Lucas", "Co."), "Lucas Co.");
        assert_eq!(county_full_name("Lucas/Wood", "Co."), "Lucas/Wood Co. line");
        assert_eq!(
            county_full_name("Bethel Census Area", ""),
            "Bethel Census Area"
        );
        assert_eq!(county_full_name("A/B", ""), "A/B line");
    }

    #[test]
    fn slugs_follow_django() {
        assert_eq!(
            slugify("Upper Peninsula 2019 Trip"),
            "upper-peninsula-2019-trip"
        );
        assert_eq!(slugify("  Hello,  World!  "), "hello-world");
        assert_eq!(slugify("Café Crème"), "cafe-creme");
        assert_eq!(slugify("a - b -- c"), "a-b-c");
        assert_eq!(slugify("_under_score_"), "under_score");
        assert_eq!(slugify("-_-x-_-"), "x");
        assert_eq!(slugify("Łódź 日本 trip"), "odz-trip");
        assert_eq!(slugify("tab\there\nnew"), "tab-here-new");
        assert_eq!(slugify("ﬁne"), "fine");
        assert_eq!(slugify("50% off & more"), "50-off-more");
        assert_eq!(slugify(""), "");
    }

    #[test]
    fn dates_by_precision() {
        let d = dates(Some(5), "October", Some(2010));
        assert_eq!(
            (d.collected.as_str(), d.full.as_str(), d.numeric.as_str()),
            ("5-Oct-2010", "5 October 2010", "2010-10-05")
        );
        let d = dates(None, "May", Some(2009));
        assert_eq!(
            (d.collected.as_str(), d.full.as_str(), d.numeric.as_str()),
            ("May 2009", "May 2009", "2009-05")
        );
        let d = dates(None, "", Some(2012));
        assert_eq!(
            (d.collected.as_str(), d.full.as_str(), d.numeric.as_str()),
            ("2012", "2012", "2012")
        );
        // A day without a month falls back to the year.
        let d = dates(Some(9), "", Some(1999));
        assert_eq!((d.collected.as_str(), d.numeric.as_str()), ("1999", "1999"));
        // A null year prints as "".
        let d = dates(Some(26), "June", None);
        assert_eq!(
            (d.collected.as_str(), d.full.as_str(), d.numeric.as_str()),
            ("26-Jun-", "26 June ", "-06-26")
        );
        let d = dates(None, "", None);
        assert_eq!(
            (d.collected.as_str(), d.full.as_str(), d.numeric.as_str()),
            ("", "", "")
        );
        let d = dates(Some(1), "March", Some(987));
        assert_eq!(d.numeric, "0987-03-01");
    }

    fn temps(s: &str) -> (String, String) {
        let t = parse_temperature(s).unwrap();
        (temp_f(t), temp_c(t))
    }

    #[test]
    fn temperatures_round_half_even_on_the_binary_value() {
        assert_eq!(temps("76"), ("76°F".into(), "24.4°C".into()));
        assert_eq!(temps("76.25"), ("76.2°F".into(), "24.6°C".into()));
        assert_eq!(temps("76.35"), ("76.3°F".into(), "24.6°C".into()));
        assert_eq!(temps("31.95"), ("31.9°F".into(), "-0.0°C".into()));
        assert_eq!(temps("85.5"), ("85.5°F".into(), "29.7°C".into()));
        assert_eq!(temps("32"), ("32°F".into(), "0.0°C".into()));
        assert_eq!(temps("70.0"), ("70°F".into(), "21.1°C".into()));
        assert_eq!(temps("-40"), ("-40°F".into(), "-40.0°C".into()));
        assert_eq!(temps("-0"), ("0°F".into(), "-17.8°C".into()));
        assert_eq!(temps("0.25"), ("0.2°F".into(), "-17.6°C".into()));
        assert_eq!(temps("0.75"), ("0.8°F".into(), "-17.4°C".into()));
        assert_eq!(temps(""), (String::new(), String::new()));
        assert!(parse_temperature("warm").is_err());
        assert!(parse_temperature("NaN").is_err());
        assert!(parse_temperature("inf").is_err());
    }

    #[test]
    fn timestamps_parse_with_any_precision_and_print_with_six_digits() {
        let print = |s: &str| {
            let mut out = Vec::new();
            write_timestamp(&mut out, parse_timestamp(s).unwrap());
            String::from_utf8(out).unwrap()
        };
        assert_eq!(print("2024-11-17T00:37:27Z"), "2024-11-17T00:37:27.000000Z");
        assert_eq!(
            print("2024-11-17T00:37:27.5Z"),
            "2024-11-17T00:37:27.500000Z"
        );
        assert_eq!(
            print("2024-11-17T00:37:27.071Z"),
            "2024-11-17T00:37:27.071000Z"
        );
        assert_eq!(
            print("2024-11-17T00:37:27.123456Z"),
            "2024-11-17T00:37:27.123456Z"
        );
        assert_eq!(
            print("2024-11-17 00:37:27.071+00"),
            "2024-11-17T00:37:27.071000Z"
        );
        assert_eq!(
            print("2024-11-17T02:37:27+02:00"),
            "2024-11-17T00:37:27.000000Z"
        );
        assert_eq!(print("2024-11-17T00:37:27"), "2024-11-17T00:37:27.000000Z");
        for bad in [
            "2024-11-17",
            "2024-13-17T00:00:00Z",
            "2024-02-30T00:00:00Z",
            "2024-11-17T25:00:00Z",
            "2024-11-17T00:00:00.Z",
            "2024-11-17T00:00:00.1234567Z",
            "2024-11-17T00:00:00Q",
            "yesterday",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_must_exist() {
        assert_eq!(parse_date("2016-06-25").as_deref(), Some("2016-06-25"));
        assert_eq!(parse_date("2016-6-25"), None);
        assert_eq!(parse_date("2015-02-29"), None);
        assert_eq!(parse_date("2016-02-29").as_deref(), Some("2016-02-29"));
    }
}
