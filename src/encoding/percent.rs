//! Percent-encoding, as URLs and HTML forms use it.

/// Decodes `%XX` escapes (and, in form encoding, `+` as a space), refusing an
/// escape that is not two hex digits and bytes that are not UTF-8. The error says
/// what is wrong: `has invalid percent-encoding: "%zz"`, `does not decode to UTF-8`.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (
                    b.get(i + 1).and_then(|&c| hex(c)),
                    b.get(i + 2).and_then(|&c| hex(c)),
                ) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => {
                        // Bytes, not a str slice: what follows `%` may be any character.
                        let bad = String::from_utf8_lossy(&b[i..(i + 3).min(b.len())]);
                        return Err(format!("has invalid percent-encoding: {bad:?}"));
                    }
                }
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "does not decode to UTF-8".to_string())
}
