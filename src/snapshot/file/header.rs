//! The header of a snapshot file, and what can be wrong with a file.

use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"CATSNAP\0";
pub const FORMAT_VERSION: u32 = 12;
/// The oldest format read: its payload is the records alone.
pub const OLDEST_READ: u32 = 3;
pub const HEADER_LEN: usize = 60;

/// What the header says about a snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub format_version: u32,
    pub created_at: i64,
    pub payload_len: u64,
    pub checksum: [u8; 32],
}

impl Header {
    /// The checksum as lowercase hex.
    pub fn checksum_hex(&self) -> String {
        crate::encoding::hex::hex(&self.checksum)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    // `cause`, not `source`: the message already says it, and a source would be
    // said again by error chains (`cannot read x: No such file: No such file`).
    #[error("cannot read {path}: {cause}")]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot write {path}: {cause}")]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "{path} is not a catalogue snapshot (no CATSNAP header); build one with `catalogue build`"
    )]
    Foreign { path: PathBuf },
    #[error("{path} is snapshot format version {found}, {}: this catalogue reads versions {OLDEST_READ} to {FORMAT_VERSION}; rebuild it from its source with this version's `catalogue build`", match found < &OLDEST_READ { true => "a format too old to read", false => "a format newer than this catalogue" })]
    Version { path: PathBuf, found: u32 },
    #[error("{path} is truncated or has trailing bytes: the header announces a {expected}-byte payload, the file holds {found}")]
    Length {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{path} is damaged or altered: its payload does not match the checksum in its header")]
    Checksum { path: PathBuf },
    #[error("{path} is damaged or altered: piece {index} ({part}, {len} bytes at byte {offset} of the payload) does not match its SHA-256 in the table of pieces")]
    Piece {
        path: PathBuf,
        /// Its place in the table of pieces, from 0.
        index: usize,
        part: &'static str,
        offset: u64,
        len: u64,
    },
    #[error("{path} has a payload that does not decode ({reason}): its checksum holds, so an earlier release wrote it in a layout of its format too old to read; rebuild it from its source with this version's `catalogue build`")]
    Decode { path: PathBuf, reason: String },
    #[error("cannot encode the collection: {0}")]
    Encode(String),
    #[error("{path} is {kind}, not a snapshot file: only a regular file is read")]
    NotAFile { path: PathBuf, kind: &'static str },
}

/// Parses and checks a header against the bytes that follow it.
pub fn read_header(path: &Path, bytes: &[u8]) -> Result<Header, SnapshotError> {
    check_header(path, bytes, bytes.len() as u64)
}

/// Parses the header at the start of `bytes` and checks it against a file of
/// `file_len` bytes.
pub(super) fn check_header(
    path: &Path,
    bytes: &[u8],
    file_len: u64,
) -> Result<Header, SnapshotError> {
    // An empty file, or the start of the magic, is a snapshot still being written.
    if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
        return Err(SnapshotError::Length {
            path: path.to_path_buf(),
            expected: HEADER_LEN as u64,
            found: bytes.len() as u64,
        });
    }
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(SnapshotError::Foreign {
            path: path.to_path_buf(),
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(SnapshotError::Length {
            path: path.to_path_buf(),
            expected: HEADER_LEN as u64,
            found: bytes.len() as u64,
        });
    }
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    let format_version = u32_at(8);
    if !(OLDEST_READ..=FORMAT_VERSION).contains(&format_version) {
        return Err(SnapshotError::Version {
            path: path.to_path_buf(),
            found: format_version,
        });
    }
    let header = Header {
        format_version,
        created_at: u64_at(12) as i64,
        payload_len: u64_at(20),
        checksum: bytes[28..60].try_into().unwrap(),
    };
    let found = file_len.saturating_sub(HEADER_LEN as u64);
    if found != header.payload_len {
        return Err(SnapshotError::Length {
            path: path.to_path_buf(),
            expected: header.payload_len,
            found,
        });
    }
    Ok(header)
}
