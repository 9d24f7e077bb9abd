//! Instants and calendar dates: how the collection's timestamps and dates are read
//! (fixtures, databases, filters) and written (JSON items, HTTP headers).

use chrono::{DateTime, Datelike, NaiveDate, Timelike};

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

/// A `YYYY-MM-DD` calendar day of the years 1 to 9999 (four digits, no sign:
/// `-001-01-01` and `0000-01-01` are no days).
pub fn parse_day(s: &str) -> Option<NaiveDate> {
    parse_date_parts(s).filter(|d| d.year() >= 1)
}

/// Checks a `YYYY-MM-DD` calendar date.
pub fn parse_date(s: &str) -> Option<String> {
    parse_date_parts(s).map(|_| s.to_string())
}

/// Appends an instant as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
pub fn write_timestamp(out: &mut Vec<u8>, micros: i64) {
    // Read as a plain date and time: each getter of a `DateTime` (eight here)
    // converts it from UTC again.
    match DateTime::from_timestamp_micros(micros).map(|t| t.naive_utc()) {
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

/// The seconds since the epoch an HTTP date names, in any of the three forms
/// RFC 9110 (5.6.7) has recipients take: IMF-fixdate (`Sun, 06 Nov 1994
/// 08:49:37 GMT`), RFC 850's (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime's
/// (`Sun Nov  6 08:49:37 1994`).
pub fn parse_http_date(text: &str) -> Option<i64> {
    let text = text.trim();
    let parsed = chrono::NaiveDateTime::parse_from_str(text, "%a, %d %b %Y %H:%M:%S GMT")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%A, %d-%b-%y %H:%M:%S GMT"))
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(text, "%a %b %e %H:%M:%S %Y"))
        .ok()?;
    Some(parsed.and_utc().timestamp())
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

    #[test]
    fn http_dates_in_the_three_forms() {
        let t = Some(784111777);
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), t);
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), t);
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), t);
        for wrong in [
            "",
            "yesterday",
            "06 Nov 1994 08:49:37",
            "Sun, 06 Nov 1994 25:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(wrong), None, "{wrong}");
        }
    }
}
