//! The history kept beside a snapshot: `NAME.history` next to `NAME`, which
//! `sync` writes after every snapshot it publishes. A snapshot lost or damaged
//! is then not the history lost: a `sync` started without a readable snapshot
//! continues the numbering from it rather than starting again at version 1.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "CATHIS12" (`CATHIST\0`: a history as snapshot
//!               formats 8 to 10 hold it; `CATHIS11` as format 11 does;
//!               both still read)
//!      8    32  the checksum of the snapshot it was written beside
//!     40     8  that snapshot's creation time, microseconds (i64 LE)
//!     48     -  the snapshot's history, completed (its own version's checksum
//!               and time filled in), encoded by the codec
//! ```

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::{codec, write_atomically, Header};
use crate::model::history::History;

const MAGIC: &[u8; 8] = b"CATHIS12";
/// The magic of a history kept in format 11's layout.
const MAGIC_V11: &[u8; 8] = b"CATHIS11";
/// The magic of a history kept in format 10's layout.
const MAGIC_V10: &[u8; 8] = b"CATHIST\0";
const HEAD_LEN: usize = 8 + 32 + 8;

/// The history of the snapshot last published at a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptHistory {
    /// The checksum of the snapshot it was kept beside.
    pub checksum: [u8; 32],
    /// When that snapshot was made (microseconds since the Unix epoch).
    pub created_at: i64,
    /// Its versions, its own last, with its checksum and time.
    pub history: History,
}

/// Where the history of the snapshot at `snapshot` is kept.
pub fn path(snapshot: &Path) -> PathBuf {
    let mut name = snapshot.file_name().unwrap_or_default().to_os_string();
    name.push(".history");
    snapshot.with_file_name(name)
}

/// Writes the history of the snapshot `header` heads (`history` as the
/// snapshot holds it) beside it, atomically.
pub fn write(snapshot: &Path, header: &Header, history: &History) -> std::io::Result<()> {
    let history = history.completed(header.checksum, header.created_at);
    let mut bytes = Vec::with_capacity(HEAD_LEN);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&header.checksum);
    bytes.extend_from_slice(&header.created_at.to_le_bytes());
    codec::encode_into(&history, &mut bytes).map_err(std::io::Error::other)?;
    let sum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&sum);
    write_atomically(&path(snapshot), &bytes)
}

/// Reads the history kept beside the snapshot at `snapshot`: `None` where
/// there is none; an error, saying what is wrong, where it does not read.
pub fn read(snapshot: &Path) -> Result<Option<KeptHistory>, String> {
    let at = path(snapshot);
    let bytes = match read_bounded(&at) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", at.display())),
    };
    let damaged = || {
        format!(
            "{} is not a history kept by catalogue sync, or is damaged",
            at.display()
        )
    };
    if bytes.len() < HEAD_LEN + 32
        || ![MAGIC, MAGIC_V11, MAGIC_V10]
            .iter()
            .any(|m| m[..] == bytes[..8])
    {
        return Err(damaged());
    }
    let (kept, sum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(kept)[..] != *sum {
        return Err(damaged());
    }
    let history = match &kept[..8] {
        m if m == MAGIC => codec::decode(&kept[HEAD_LEN..]),
        m if m == MAGIC_V11 => super::history11::decode(&kept[HEAD_LEN..]),
        _ => super::history10::decode(&kept[HEAD_LEN..]),
    };
    let history = history.map_err(|e| format!("{}: {e}", damaged()))?;
    Ok(Some(KeptHistory {
        checksum: kept[8..40].try_into().expect("32 bytes"),
        created_at: i64::from_le_bytes(kept[40..48].try_into().expect("8 bytes")),
        history,
    }))
}

/// The most bytes a history kept beside a snapshot may hold: the last
/// 1,000 versions' changes (`model::history::KEPT`), 16 to 24 bytes for
/// each record a version names; a file larger is refused by its size,
/// before it is read.
pub const MAX_BYTES: u64 = 256 << 20;

/// The bytes of the history at `at`: a regular file (a FIFO, a device or a
/// directory is refused at once, opened without waiting on a writer) of at
/// most [`MAX_BYTES`].
fn read_bounded(at: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let refused = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(at)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(refused(
            "it is not a regular file (a FIFO, a device or a directory): sync keeps a \
             history there, a file; move this away"
                .into(),
        ));
    }
    if metadata.len() > MAX_BYTES {
        return Err(refused(format!(
            "it is {} bytes, more than the {MAX_BYTES} a history kept beside a snapshot holds",
            metadata.len()
        )));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether something that is not a regular file is where the history of
/// the snapshot at `snapshot` is kept (where `sync` would write it).
pub fn not_a_file(snapshot: &Path) -> bool {
    std::fs::metadata(path(snapshot)).is_ok_and(|m| !m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_kept_reads_back_completed_and_a_damaged_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let snapshot = dir.join("collection.bin");
        assert_eq!(path(&snapshot), dir.join("collection.bin.history"));
        assert_eq!(read(&snapshot), Ok(None));
        let history = History::first(Vec::new()).next([7; 32], 5, Vec::new(), Vec::new());
        let header = Header {
            format_version: 9,
            created_at: 11,
            payload_len: 0,
            checksum: [9; 32],
        };
        write(&snapshot, &header, &history).unwrap();
        let kept = read(&snapshot).unwrap().expect("kept");
        assert_eq!((kept.checksum, kept.created_at), ([9; 32], 11));
        assert_eq!(kept.history.current(), 2);
        assert_eq!(kept.history, history.completed([9; 32], 11));
        let mut bytes = std::fs::read(path(&snapshot)).unwrap();
        bytes[HEAD_LEN] ^= 1;
        std::fs::write(path(&snapshot), &bytes).unwrap();
        assert!(read(&snapshot).unwrap_err().contains("is damaged"));
        // A FIFO is refused at once, never waited on; a file larger than a
        // history by its size, unread.
        std::fs::remove_file(path(&snapshot)).unwrap();
        let fifo = std::ffi::CString::new(path(&snapshot).to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(not_a_file(&snapshot));
        let said = read(&snapshot).unwrap_err();
        assert!(said.contains("not a regular file"), "{said}");
        std::fs::remove_file(path(&snapshot)).unwrap();
        let large = std::fs::File::create(path(&snapshot)).unwrap();
        large.set_len(MAX_BYTES + 1).unwrap();
        let said = read(&snapshot).unwrap_err();
        assert!(said.contains("more than the"), "{said}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
