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

/// Appends a JSON string literal.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|&b| ESCAPED[b as usize]) {
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
