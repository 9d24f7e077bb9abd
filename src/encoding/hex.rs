//! Lowercase hexadecimal, for checksums and tags.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The bytes as lowercase hex (a digit at a time, not through `fmt`: every
/// answer's tag is made this way).
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    push_hex(&mut s, bytes);
    s
}

/// Appends the bytes as lowercase hex.
pub fn push_hex(s: &mut String, bytes: &[u8]) {
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_two_lowercase_digits() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }
}
