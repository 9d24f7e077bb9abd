//! Derived values: the fields the API computes from stored ones. Each rule is the
//! existing service's, exactly.

use unicode_normalization::UnicodeNormalization;

use super::vocabulary::MONTHS;

/// `F.M. Last` plus ` Suffix` (the middle initial and its dot only when there
/// is one): how a label names a collector, as the service writes it since 0.13.
pub fn collector_name(
    first: &str,
    middle: Option<&str>,
    last: &str,
    suffix: Option<&str>,
) -> String {
    let mut s = String::with_capacity(last.len() + 8);
    if let Some(initial) = first.chars().next() {
        s.push(initial);
        s.push('.');
    }
    if let Some(m) = middle.filter(|x| !x.is_empty()) {
        s.push_str(m);
        s.push('.');
    }
    s.push(' ');
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn person_names() {
        assert_eq!(collector_name("Megan", None, "Hart", None), "M. Hart");
        assert_eq!(
            collector_name("Megan", Some("E"), "Hart", None),
            "M.E. Hart"
        );
        assert_eq!(
            collector_name("Paul", Some("A"), "Ives", Some("Jr.")),
            "P.A. Ives Jr."
        );
        assert_eq!(
            collector_name("Paul", None, "Ives", Some("Jr.")),
            "P. Ives Jr."
        );
        assert_eq!(collector_name("Émile", Some(""), "Roy", Some("")), "É. Roy");
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
}
