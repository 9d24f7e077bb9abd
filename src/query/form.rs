//! Values read as the existing service's Django forms read them, so the
//! label-printing form (which sends every field as typed, most of them empty) gets
//! the answers Django gave: surrounding whitespace is trimmed, booleans take
//! `NullBooleanSelect`'s spellings, integers may be written as decimals, dates take
//! Django's default input formats, and `limit`/`offset` read as Python's `int()`.

use chrono::{Datelike, NaiveDate};

/// Whitespace as Python's `str.strip()` sees it: Unicode whitespace, and the four
/// ASCII separators (U+001C to U+001F) Rust does not count.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// The value without surrounding whitespace; `None` when nothing is left (a form
/// field left empty, or only spaces: no filter).
pub fn trimmed(value: &str) -> Option<&str> {
    Some(value.trim_matches(is_space)).filter(|v| !v.is_empty())
}

/// A boolean filter: `Some(Some(b))` for a value, `Some(None)` for "no filter"
/// (`unknown`), `None` when the value is not a boolean.
///
/// `true`, `True`, `2` (NullBooleanSelect's spelling) and `1` are true; `false`,
/// `False`, `3` and `0` are false. `1` and `0` are not the select's but Django's
/// NullBooleanField reads them, and earlier catalogue versions documented them.
pub fn boolean(value: &str) -> Option<Option<bool>> {
    match value {
        "unknown" => Some(None),
        "true" | "True" | "2" | "1" => Some(Some(true)),
        "false" | "False" | "3" | "0" => Some(Some(false)),
        _ => None,
    }
}

/// The spellings [`boolean`] accepts, for messages and the OpenAPI document.
pub const BOOLEAN_SPELLINGS: &str =
    "true, True, 2 or 1 for true; false, False, 3 or 0 for false; unknown for no filter";

/// An integer, also written as a decimal (`1.0`, `2019.5`), truncated toward zero
/// as the existing service did; a sign may lead.
pub fn integer(value: &str) -> Option<i64> {
    let (negative, digits) = match value.as_bytes().first()? {
        b'-' => (true, &value[1..]),
        b'+' => (false, &value[1..]),
        _ => (false, value),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !all_digits(whole) || !all_digits(fraction) {
        return None;
    }
    // More digits than an i64 holds is a number no record has: the largest
    // (the filter then matches nothing, as no collection holds such a day).
    let magnitude: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().unwrap_or(i64::MAX)
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Django's default `DATE_INPUT_FORMATS`: `2006-10-25`, `10/25/2006`, `10/25/06`,
/// `Oct 25 2006`, `Oct 25, 2006`, `25 Oct 2006`, `25 Oct, 2006`, `October 25 2006`,
/// `October 25, 2006`, `25 October 2006`, `25 October, 2006`.
const DATE_FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%m/%d/%Y",
    "%m/%d/%y",
    "%b %d %Y",
    "%b %d, %Y",
    "%d %b %Y",
    "%d %b, %Y",
    "%B %d %Y",
    "%B %d, %Y",
    "%d %B %Y",
    "%d %B, %Y",
];

/// A date in one of Django's default input formats, as `YYYY-MM-DD`.
pub fn date(value: &str) -> Option<String> {
    DATE_FORMATS
        .iter()
        .filter(|f| !f.contains("%Y") || four_digit_year(value, f))
        .find_map(|f| {
            let d = NaiveDate::parse_from_str(value, f).ok()?;
            // Python reads `%y` 69 as 1969, chrono as 2069 (both agree elsewhere).
            match f.contains("%y") && d.year() == 2069 {
                true => d.with_year(1969),
                false => Some(d),
            }
        })
        .map(|d| d.format("%Y-%m-%d").to_string())
}

/// Python's `%Y` reads exactly four digits (chrono's reads any number, which would
/// take `12/23/13` for the year 13 before `%y` had its turn).
fn four_digit_year(value: &str, format: &str) -> bool {
    let b = value.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if format.starts_with("%Y") {
        digits(0..4) && !digits(4..5)
    } else {
        let n = b.len();
        n >= 4 && digits(n - 4..n) && !(n >= 5 && digits(n - 5..n - 4))
    }
}

/// A count as Python's `int()` reads it (`limit`, `offset`): surrounding
/// whitespace, a sign, digits with single underscores between them. `None` when
/// it is not an integer; a negative one is given as such for the caller to refuse.
pub fn python_int(value: &str) -> Option<i128> {
    let v = value.trim_matches(is_space);
    let (negative, digits) = match v.as_bytes().first()? {
        b'-' => (true, &v[1..]),
        b'+' => (false, &v[1..]),
        _ => (false, v),
    };
    // One pass, checking and reading together; more digits than fit is still
    // "everything".
    let mut n: i128 = 0;
    // Set at the start too: a leading underscore is refused like a doubled one.
    let mut after_underscore = true;
    for b in digits.bytes() {
        match b {
            b'0'..=b'9' => {
                n = n.saturating_mul(10).saturating_add(i128::from(b - b'0'));
                after_underscore = false;
            }
            b'_' if !after_underscore => after_underscore = true,
            _ => return None,
        }
    }
    // No digits at all, or a trailing underscore.
    if after_underscore {
        return None;
    }
    Some(if negative { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_as_python_strips() {
        assert_eq!(trimmed(" Rhopaidae "), Some("Rhopaidae"));
        assert_eq!(trimmed("\tand"), Some("and"));
        assert_eq!(trimmed("   "), None);
        assert_eq!(trimmed(""), None);
        assert_eq!(trimmed("\u{1f}x\u{a0}"), Some("x"));
    }

    #[test]
    fn booleans_take_the_selects_spellings() {
        assert_eq!(boolean("unknown"), Some(None));
        for t in ["true", "True", "2", "1"] {
            assert_eq!(boolean(t), Some(Some(true)), "{t}");
        }
        for f in ["false", "False", "3", "0"] {
            assert_eq!(boolean(f), Some(Some(false)), "{f}");
        }
        for bad in ["yes", "TRUE", "4", "t"] {
            assert_eq!(boolean(bad), None, "{bad}");
        }
    }

    #[test]
    fn integers_may_be_decimals_and_truncate() {
        assert_eq!(integer("15"), Some(15));
        assert_eq!(integer("1.0"), Some(1));
        assert_eq!(integer("2019.5"), Some(2019));
        assert_eq!(integer("-2.9"), Some(-2));
        assert_eq!(integer("+7"), Some(7));
        assert_eq!(integer(".5"), Some(0));
        assert_eq!(integer("3."), Some(3));
        assert_eq!(integer("-7113946596545542182112250"), Some(-i64::MAX));
        for bad in ["", ".", "-", "1e3", "1.2.3", "a", "1,5", "--1"] {
            assert_eq!(integer(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_in_djangos_input_formats() {
        for (input, date_) in [
            ("2013-12-23", "2013-12-23"),
            ("12/23/2013", "2013-12-23"),
            ("12/23/13", "2013-12-23"),
            ("1/5/2013", "2013-01-05"),
            ("Dec 23 2013", "2013-12-23"),
            ("Dec 23, 2013", "2013-12-23"),
            ("23 Dec 2013", "2013-12-23"),
            ("23 Dec, 2013", "2013-12-23"),
            ("December 23 2013", "2013-12-23"),
            ("December 23, 2013", "2013-12-23"),
            ("23 December 2013", "2013-12-23"),
            ("23 December, 2013", "2013-12-23"),
            ("01/01/69", "1969-01-01"),
        ] {
            assert_eq!(date(input).as_deref(), Some(date_), "{input}");
        }
        for bad in ["2013-02-30", "23/12/2013", "yesterday", "2013-12"] {
            assert_eq!(date(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_read_as_python_int() {
        assert_eq!(python_int("2"), Some(2));
        assert_eq!(python_int("+2"), Some(2));
        assert_eq!(python_int(" 2\t"), Some(2));
        assert_eq!(python_int("-1"), Some(-1));
        assert_eq!(python_int("1_000"), Some(1000));
        assert_eq!(python_int("007"), Some(7));
        assert_eq!(python_int("0"), Some(0));
        assert_eq!(python_int("1_2_3"), Some(123));
        let many = "9".repeat(41);
        assert_eq!(python_int(&many), Some(i128::MAX));
        assert_eq!(python_int(&format!("-{many}")), Some(-i128::MAX));
        assert_eq!(python_int("\u{0662}"), None, "only ASCII digits");
        for bad in ["", " ", "1.5", "abc", "1__0", "_1", "1_", "+", "0x10"] {
            assert_eq!(python_int(bad), None, "{bad}");
        }
    }
}
