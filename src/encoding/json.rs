//! JSON literals written straight into byte buffers: every item is rendered once at
//! load, and the few bytes made per request (envelopes, facets, errors) use the same
//! writers, so a string is escaped one way everywhere.

use std::io::Write as _;

/// The bytes a JSON string cannot hold as they are: control characters, `"`
/// and `\\`. A table, so the scan between them is one load and test a byte.
const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Whether a JSON string must escape something of `s`.
pub fn needs_escape(s: &str) -> bool {
    first_escaped(s.as_bytes()).is_some()
}

/// Where the first byte a JSON string cannot hold is, eight bytes at a time: a
/// rendered list escapes every string value of every item, and most hold none.
fn first_escaped(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte's high bit set where it is zero (or below `n`); bits above the
    // lowest one set may be borrows, so only the lowest is read.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut words = bytes.chunks_exact(8);
    for (k, word) in words.by_ref().enumerate() {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let found =
            control | zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\')));
        if found != 0 {
            return Some(k * 8 + found.trailing_zeros() as usize / 8);
        }
    }
    let tail = words.remainder();
    let at = bytes.len() - tail.len();
    tail.iter()
        .position(|&b| ESCAPED[b as usize])
        .map(|i| at + i)
}

/// Appends a JSON string literal.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut rest = bytes;
    while let Some(i) = first_escaped(rest) {
        out.extend_from_slice(&rest[..i]);
        let b = rest[i];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => b"",
        };
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.extend_from_slice(escape);
        }
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// Appends an integer (itoa: no formatting machinery, as a rendered list
/// writes millions of them).
pub fn write_int(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_first_escaped_byte_is_found_wherever_it_is() {
        let scan = |b: &[u8]| b.iter().position(|&c| ESCAPED[c as usize]);
        for byte in 0..=255u8 {
            for len in [1, 7, 8, 9, 16, 23] {
                for at in 0..len {
                    // Around it: bytes that are fine, some just above and below the lines.
                    let mut text: Vec<u8> =
                        (0..len).map(|i| b"a ~#]!\x7f\x80\xff"[i % 9]).collect();
                    text[at] = byte;
                    assert_eq!(
                        first_escaped(&text),
                        scan(&text),
                        "{byte:#x} at {at} of {len}"
                    );
                    if at + 1 < len {
                        text[at + 1] = b'"';
                        assert_eq!(
                            first_escaped(&text),
                            scan(&text),
                            "{byte:#x} at {at} before a quote"
                        );
                    }
                }
            }
        }
        assert_eq!(first_escaped(b""), None);
    }

    #[test]
    fn strings_escape_like_json() {
        assert_eq!(s("plain"), "\"plain\"");
        assert_eq!(s("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(s("l1\nl2\tx\r"), r#""l1\nl2\tx\r""#);
        assert_eq!(s("\u{1}\u{1f}"), r#""\u0001\u001f""#);
        assert_eq!(s("°F é 日本"), "\"°F é 日本\"");
        for x in ["a\"b", "\u{0}\u{7f}", "<p data-x=\"1\">", "ü\\n"] {
            let back: String = serde_json::from_str(&s(x)).unwrap();
            assert_eq!(back, x);
        }
    }
}
