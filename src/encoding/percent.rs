//! Percent-encoding, decoded as browsers, Django and Python's `urllib` decode it
//! (the WHATWG URL standard's percent-decode): `%XX` with two hex digits is the
//! byte XX, a `%` not followed by two hex digits stays as it is, and bytes that do
//! not form UTF-8 become U+FFFD. Nothing is refused.

use std::borrow::Cow;

/// Decodes `%XX` escapes, and `+` as a space where `plus_is_space` (form
/// encoding: query strings, not the parts of a URL).
pub fn percent_decode(s: &str, plus_is_space: bool) -> Cow<'_, str> {
    let b = s.as_bytes();
    if !b.iter().any(|&c| c == b'%' || (plus_is_space && c == b'+')) {
        return Cow::Borrowed(s);
    }
    let hex = |c: Option<&u8>| c.and_then(|&c| (c as char).to_digit(16));
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' => match (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// Writes byte `b` as `%XX`.
fn escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(HEX[(b >> 4) as usize] as char);
    out.push(HEX[(b & 15) as usize] as char);
}

/// Encodes a query string's name or value as forms do: unreserved bytes as they
/// are, a space as `+`, every other byte as `%XX`; decoding it gives it back.
pub fn form_encode(out: &mut String, s: &str) {
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => escape(out, b),
        }
    }
}

/// Encodes a value as one segment of a URI or URN: unreserved bytes as they
/// are, every other byte (`:` and `/` included, a space too) as `%XX`, so the
/// value cannot be mistaken for two segments.
pub fn segment_encode(out: &mut String, s: &str) {
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => escape(out, b),
        }
    }
}

/// Encodes an IRI's path as a URI, as Django's `iri_to_uri` does: ASCII
/// letters, digits and the characters URIs allow as they are, every other byte
/// (non-ASCII text, spaces, controls) as `%XX`.
pub fn uri_encode(out: &mut String, s: &str) {
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'/' | b'#' | b'%' | b'[' | b']' | b'=' | b':' | b';' | b'$' | b'&' | b'(' | b')'
            | b'+' | b',' | b'!' | b'?' | b'*' | b'@' | b'\'' | b'~' | b'-' | b'.' | b'_' => {
                out.push(b as char)
            }
            _ => escape(out, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_keeps_only_unreserved_bytes() {
        let mut out = String::new();
        segment_encode(&mut out, "A-1.b_~:/ %é");
        assert_eq!(out, "A-1.b_~%3A%2F%20%25%C3%A9");
    }

    #[test]
    fn iris_become_uris() {
        let mut out = String::new();
        uri_encode(&mut out, "parnassius-clodius-ménétriés/a b?x=1");
        assert_eq!(out, "parnassius-clodius-m%C3%A9n%C3%A9tri%C3%A9s/a%20b?x=1");
    }

    #[test]
    fn decodes_like_a_browser() {
        let d = |s| percent_decode(s, true).into_owned();
        assert_eq!(d("a+b%20c"), "a b c");
        assert_eq!(d("%C3%A9t%c3%a9"), "été");
        assert_eq!(d("100%"), "100%");
        assert_eq!(d("%zz"), "%zz");
        assert_eq!(d("Rhop%aidae"), "Rhop%aidae");
        assert_eq!(d("%4"), "%4");
        assert_eq!(d("%%41"), "%A");
        assert_eq!(d("%FF"), "\u{fffd}");
        assert_eq!(d("%C3"), "\u{fffd}");
        assert_eq!(d("%é"), "%é");
        assert_eq!(d("%00"), "\0");
        assert_eq!(percent_decode("a+b", false), "a+b");
        assert!(matches!(percent_decode("plain", true), Cow::Borrowed(_)));
    }

    #[test]
    fn form_encoding_round_trips() {
        for s in ["a b+c", "été & <x>", "100%", "=?#/", "plain-1.2_~"] {
            let mut e = String::new();
            form_encode(&mut e, s);
            assert!(e.bytes().all(|b| b.is_ascii_graphic()), "{e}");
            assert_eq!(percent_decode(&e, true), s);
        }
        let mut e = String::new();
        form_encode(&mut e, "a b&c");
        assert_eq!(e, "a+b%26c");
    }
}
