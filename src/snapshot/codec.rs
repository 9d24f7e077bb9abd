//! The payload codec: bincode 2 with its serde support, kept behind these two
//! functions because bincode is unmaintained and its 3.0.0 release is empty.

use serde::{de::DeserializeOwned, Serialize};

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
}

/// Encodes a value to bytes.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    bincode::serde::encode_to_vec(value, config()).map_err(|e| e.to_string())
}

/// Encodes a value at the end of `bytes`.
pub fn encode_into<T: Serialize>(value: &T, bytes: &mut Vec<u8>) -> Result<(), String> {
    bincode::serde::encode_into_std_write(value, bytes, config())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Decodes a value that must fill `bytes` exactly.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, used) =
        bincode::serde::decode_from_slice(bytes, config()).map_err(|e| e.to_string())?;
    if used != bytes.len() {
        return Err(format!(
            "{} bytes left over after the payload",
            bytes.len() - used
        ));
    }
    Ok(value)
}
