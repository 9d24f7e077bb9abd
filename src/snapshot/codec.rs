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

/// Decodes a value that must fill `bytes` exactly, allocating no more
/// than `bytes` can make ([`decode_limited`]).
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, used) = decode_limited(bytes)?;
    if used != bytes.len() {
        return Err(format!(
            "{} bytes left over after the payload",
            bytes.len() - used
        ));
    }
    Ok(value)
}

/// What each encoded byte may make in memory at most, as bincode counts
/// it: a varint's one byte is up to a `u128`'s 16, a string's bytes are
/// themselves.
const MADE_PER_BYTE: usize = 16;

/// Decodes a value from the start of `bytes`, with bincode's limit on what
/// it makes set from their length: a length read from the bytes (a
/// string's, a byte array's) that they cannot hold is refused before
/// anything is allocated for it, rather than allocated (a crafted length
/// asks for terabytes, and the process aborts) then found short. The limit
/// is a type's constant: the least power of two at least
/// [`MADE_PER_BYTE`] times the bytes' length, which a value they encode
/// never reaches.
fn decode_limited<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), String> {
    fn with<T: DeserializeOwned, const LIMIT: usize>(bytes: &[u8]) -> Result<(T, usize), String> {
        bincode::serde::decode_from_slice(bytes, bincode::config::standard().with_limit::<LIMIT>())
            .map_err(|e| match e {
                bincode::error::DecodeError::LimitExceeded => {
                    "a length in it is more than its bytes can hold".to_string()
                }
                e => e.to_string(),
            })
    }
    let made = bytes
        .len()
        .saturating_mul(MADE_PER_BYTE)
        .max(1 << 16)
        .next_power_of_two();
    macro_rules! limits {
        ($($bits:literal)*) => {
            match made.trailing_zeros() {
                $($bits => with::<T, { 1usize << $bits }>(bytes),)*
                _ => bincode::serde::decode_from_slice(bytes, config()).map_err(|e| e.to_string()),
            }
        };
    }
    limits!(16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_within_the_limit() {
        let value: (Vec<u64>, Vec<Option<String>>, String) =
            (vec![u64::MAX, 0, 1], vec![None; 5000], "x".repeat(70_000));
        let bytes = encode(&value).unwrap();
        assert_eq!(
            decode::<(Vec<u64>, Vec<Option<String>>, String)>(&bytes).unwrap(),
            value
        );
        let zeros = encode(&vec![0u64; 100_000]).unwrap();
        assert_eq!(decode::<Vec<u64>>(&zeros).unwrap().len(), 100_000);
    }

    /// A string announcing more bytes than there are is refused before
    /// they are allocated (a terabyte's allocation would abort).
    #[test]
    fn a_length_the_bytes_cannot_hold_is_refused_without_allocating() {
        let mut bytes = Vec::new();
        // bincode's varint: 253, then a u64 (LE).
        bytes.push(253);
        bytes.extend_from_slice(&(1u64 << 40).to_le_bytes());
        bytes.extend_from_slice(b"short");
        let said = decode::<String>(&bytes).unwrap_err();
        assert!(said.contains("more than its bytes can hold"), "{said}");
    }
}
