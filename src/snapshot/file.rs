//! The snapshot file: a fixed header, then the encoded collection.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "CATSNAP\0"
//!      8     4  format version (u32 little-endian)
//!     12     8  created at, microseconds since the Unix epoch (i64 LE)
//!     20     8  payload length in bytes (u64 LE)
//!     28    32  SHA-256 of the payload
//!     60     -  payload: the `Collection`, bincode-encoded
//! ```
//!
//! The checksum covers the payload only, so the same collection built twice (or from
//! another source) has the same checksum; the creation time lives in the header.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::codec;
use crate::model::records::Collection;

pub const MAGIC: &[u8; 8] = b"CATSNAP\0";
pub const FORMAT_VERSION: u32 = 3;
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
    #[error("{path} is snapshot format version {found}, this catalogue reads version {FORMAT_VERSION}; rebuild it with this version's `catalogue build`")]
    Version { path: PathBuf, found: u32 },
    #[error("{path} is truncated or has trailing bytes: the header announces a {expected}-byte payload, the file holds {found}")]
    Length {
        path: PathBuf,
        expected: u64,
        found: u64,
    },
    #[error("{path} is damaged or altered: its payload does not match the checksum in its header")]
    Checksum { path: PathBuf },
    #[error("{path} has a payload that does not decode: {reason}")]
    Decode { path: PathBuf, reason: String },
    #[error("cannot encode the collection: {0}")]
    Encode(String),
    #[error("{path} is {kind}, not a snapshot file: only a regular file is read")]
    NotAFile { path: PathBuf, kind: &'static str },
}

/// Encodes a collection into a complete snapshot file image.
pub fn encode(
    collection: &Collection,
    created_at: i64,
) -> Result<(Header, Vec<u8>), SnapshotError> {
    let payload = codec::encode(collection).map_err(SnapshotError::Encode)?;
    let header = Header {
        format_version: FORMAT_VERSION,
        created_at,
        payload_len: payload.len() as u64,
        checksum: Sha256::digest(&payload).into(),
    };
    let mut file = Vec::with_capacity(HEADER_LEN + payload.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&header.format_version.to_le_bytes());
    file.extend_from_slice(&header.created_at.to_le_bytes());
    file.extend_from_slice(&header.payload_len.to_le_bytes());
    file.extend_from_slice(&header.checksum);
    file.extend_from_slice(&payload);
    Ok((header, file))
}

/// Writes a collection to `path` atomically: a temporary file beside it, then a rename.
pub fn write(
    path: &Path,
    collection: &Collection,
    created_at: i64,
) -> Result<Header, SnapshotError> {
    let (header, bytes) = encode(collection, created_at)?;
    write_atomically(path, &bytes).map_err(|cause| SnapshotError::Write {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(header)
}

/// Writes bytes to a temporary file in the target's directory, syncs it, and renames
/// it over the target, so a reader sees the old file or the new one, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Parses and checks a header against the bytes that follow it.
pub fn read_header(path: &Path, bytes: &[u8]) -> Result<Header, SnapshotError> {
    check_header(path, bytes, bytes.len() as u64)
}

/// Parses the header at the start of `bytes` and checks it against a file of
/// `file_len` bytes.
fn check_header(path: &Path, bytes: &[u8], file_len: u64) -> Result<Header, SnapshotError> {
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
    if format_version != FORMAT_VERSION {
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

/// Checks and decodes a snapshot image.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<(Header, Collection), SnapshotError> {
    let header = read_header(path, bytes)?;
    let payload = &bytes[HEADER_LEN..];
    let sum: [u8; 32] = Sha256::digest(payload).into();
    if sum != header.checksum {
        return Err(SnapshotError::Checksum {
            path: path.to_path_buf(),
        });
    }
    let collection = codec::decode(payload).map_err(|reason| SnapshotError::Decode {
        path: path.to_path_buf(),
        reason,
    })?;
    Ok((header, collection))
}

/// Reads, checks and decodes the snapshot at `path`.
///
/// Only a regular file is read (a FIFO, a device or a socket at the path is
/// refused without blocking on it), and its size must be what its header
/// announces before the payload is read: a link to `/dev/zero` or a file still
/// being written costs a 60-byte read, not memory.
pub fn read(path: &Path) -> Result<(Header, Collection), SnapshotError> {
    use std::io::Read as _;
    let (mut file, head, len) = open(path)?;
    let mut bytes = head;
    bytes.reserve_exact(len as usize - HEADER_LEN);
    file.read_to_end(&mut bytes)
        .map_err(|cause| SnapshotError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
    decode(path, &bytes)
}

/// The header of the snapshot at `path`, checked against the file's size, read
/// without the payload: what a reload compares before building anything.
pub fn peek(path: &Path) -> Result<Header, SnapshotError> {
    let (_, head, len) = open(path)?;
    check_header(path, &head, len)
}

/// Opens the snapshot at `path`: the open file past its header, the header's
/// bytes (checked against the file's size) and the file's size.
fn open(path: &Path) -> Result<(std::fs::File, Vec<u8>, u64), SnapshotError> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let failed = |cause| SnapshotError::Read {
        path: path.to_path_buf(),
        cause,
    };
    // Non-blocking, so that opening a FIFO does not wait for a writer.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(failed)?;
    let metadata = file.metadata().map_err(failed)?;
    if !metadata.is_file() {
        return Err(SnapshotError::NotAFile {
            path: path.to_path_buf(),
            kind: file_kind(&metadata.file_type()),
        });
    }
    let mut head = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut head)
        .map_err(failed)?;
    check_header(path, &head, metadata.len())?;
    Ok((file, head, metadata.len()))
}

/// What a file that is not a regular file is, for the message.
fn file_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    match kind {
        k if k.is_dir() => "a directory",
        k if k.is_fifo() => "a FIFO",
        k if k.is_socket() => "a socket",
        k if k.is_char_device() || k.is_block_device() => "a device",
        _ => "not a regular file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::records::Country;

    fn sample() -> Collection {
        Collection {
            countries: vec![Country {
                id: 1,
                date_created: 0,
                date_modified: 5,
                name: "Canada".into(),
                abbr: "CAN".into(),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn round_trips_and_checksum_ignores_creation_time() {
        let p = Path::new("x.bin");
        let (h1, bytes) = encode(&sample(), 1).unwrap();
        let (h2, _) = encode(&sample(), 2).unwrap();
        assert_eq!(h1.checksum, h2.checksum);
        let (h, c) = decode(p, &bytes).unwrap();
        assert_eq!(h, h1);
        assert_eq!(c, sample());
    }

    #[test]
    fn refuses_truncated_altered_foreign_and_future_files() {
        let p = Path::new("x.bin");
        let (_, bytes) = encode(&sample(), 1).unwrap();
        let err = |b: &[u8]| decode(p, b).unwrap_err();
        assert!(matches!(
            err(&bytes[..bytes.len() - 1]),
            SnapshotError::Length { .. }
        ));
        assert!(matches!(err(&bytes[..30]), SnapshotError::Length { .. }));
        let mut altered = bytes.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert!(matches!(err(&altered), SnapshotError::Checksum { .. }));
        assert!(matches!(
            err(b"[{\"model\": 1}]"),
            SnapshotError::Foreign { .. }
        ));
        let mut future = bytes.clone();
        future[8] = 9;
        assert!(matches!(
            err(&future),
            SnapshotError::Version { found: 9, .. }
        ));
    }
}
