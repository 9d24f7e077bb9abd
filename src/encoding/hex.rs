//! Lowercase hexadecimal, for checksums and tags.

use std::fmt::Write as _;

/// The bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
