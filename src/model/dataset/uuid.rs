//! UUIDs as a dataset's identifier is written.

/// 16 bytes as a UUID is written (`8-4-4-4-12` lowercase hex digits).
pub fn uuid_text(bytes: &[u8; 16]) -> String {
    let hex = crate::encoding::hex::hex(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A random UUID (version 4), from the system's random source.
pub fn random_uuid() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Ok(uuid_text(&bytes))
}
