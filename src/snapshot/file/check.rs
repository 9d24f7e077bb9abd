//! A snapshot checked against its checksum: whole, or opened to be read
//! piece by piece, each piece checked as it is read.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::header::{check_header, Header, SnapshotError, HEADER_LEN};
use super::open::{open, read_bytes};
use super::pieces::{Contents, Entry};
use crate::snapshot::stamp::FileStamp;

/// Checks a snapshot image's payload against the checksum in its header:
/// from version 9, its table of pieces, and every piece against the table.
pub fn verify(path: &Path, header: &Header, bytes: &[u8]) -> Result<(), SnapshotError> {
    let payload = &bytes[HEADER_LEN..];
    if header.format_version >= 9 {
        let table = Contents::read(path, payload)?;
        table.check(path, header)?;
        return table
            .entries
            .iter()
            .try_for_each(|e| e.check(path, &payload[e.range()]));
    }
    let sum: [u8; 32] = Sha256::digest(payload).into();
    if sum != header.checksum {
        return Err(SnapshotError::Checksum {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// A version 9 snapshot opened to be read piece by piece: its header and
/// table of pieces checked, each piece checked as it is read. What a server
/// reads a snapshot with: the pieces it uses, and of those the ones it does
/// not hold already.
pub struct Pieces {
    path: PathBuf,
    file: std::fs::File,
    pub header: Header,
    pub contents: Contents,
    /// The file read (as it was opened).
    stamp: Option<FileStamp>,
    /// By entry, whether its piece was read and found sound.
    sound: Mutex<Vec<bool>>,
}

/// The pieces of a file read and found sound, and which file that was: what
/// is left to check of it ([`check_unread`]).
#[derive(Clone, Debug)]
pub struct PiecesRead {
    stamp: Option<FileStamp>,
    sound: Vec<bool>,
}

impl Pieces {
    /// Opens the snapshot at `path` (as [`read`] does) and reads and checks
    /// its table of pieces; `None` for a file of a version before 9.
    pub fn open(path: &Path) -> Result<Option<Pieces>, SnapshotError> {
        use std::io::Read as _;
        let (mut file, head, len) = open(path)?;
        let header = check_header(path, &head, len)?;
        if header.format_version < 9 {
            return Ok(None);
        }
        let failed = |cause| SnapshotError::Read {
            path: path.to_path_buf(),
            cause,
        };
        let mut count = [0; 4];
        file.read_exact(&mut count).map_err(failed)?;
        // Read through a buffer an entry at a time (the pieces are then
        // read at their offsets, wherever the file's position is).
        let mut table = std::io::BufReader::with_capacity(1 << 16, &mut file);
        let contents = Contents::parse(path, count, &mut table, header.payload_len)?;
        contents.check(path, &header)?;
        let stamp = file.metadata().ok().map(|m| FileStamp::of_metadata(&m));
        let sound = Mutex::new(vec![false; contents.entries.len()]);
        Ok(Some(Pieces {
            path: path.to_path_buf(),
            file,
            header,
            contents,
            stamp,
            sound,
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the bytes of the pieces `entries` (one after another in the
    /// payload), each checked against its hash.
    pub fn read(&self, entries: &[Entry]) -> Result<Vec<u8>, SnapshotError> {
        use std::os::unix::fs::FileExt as _;
        let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
            return Ok(Vec::new());
        };
        let start = first.offset;
        let mut bytes = vec![0; (last.offset + last.len - start) as usize];
        self.file
            .read_exact_at(&mut bytes, HEADER_LEN as u64 + start)
            .map_err(|cause| SnapshotError::Read {
                path: self.path.clone(),
                cause,
            })?;
        for e in entries {
            let at = (e.offset - start) as usize;
            e.check(&self.path, &bytes[at..at + e.len as usize])?;
        }
        let mut sound = self.sound.lock().unwrap_or_else(|e| e.into_inner());
        entries.iter().for_each(|e| sound[e.index] = true);
        Ok(bytes)
    }

    /// The pieces read so far and found sound.
    pub fn read_so_far(&self) -> PiecesRead {
        let sound = self.sound.lock().unwrap_or_else(|e| e.into_inner());
        PiecesRead {
            stamp: self.stamp,
            sound: sound.clone(),
        }
    }

    /// Reads and checks every piece, one at a time (the memory of the
    /// largest, not of the file): what finds a file damaged in place, whose
    /// header still names the collection served.
    pub fn check_all(&self) -> Result<(), SnapshotError> {
        self.check_but(|_| false)
    }

    /// Reads and checks every piece `skipped` does not name, one at a time.
    fn check_but(&self, skipped: impl Fn(&Entry) -> bool) -> Result<(), SnapshotError> {
        (self.contents.entries.iter())
            .filter(|e| !skipped(e))
            .try_for_each(|e| self.read(std::slice::from_ref(e)).map(drop))
    }
}

/// Checks the snapshot at `path` as [`check`] does, but for the pieces
/// `read` found sound when it is the file they were read from, unchanged
/// (what a reload checks once its view is served: the pieces it did not read).
pub fn check_unread(path: &Path, read: Option<&PiecesRead>) -> Result<(), SnapshotError> {
    let Some(read) = read else { return check(path) };
    match Pieces::open(path)? {
        Some(pieces) if pieces.stamp.is_some() && pieces.stamp == read.stamp => {
            let sound = |e: &Entry| read.sound.get(e.index).copied().unwrap_or(false);
            pieces.check_but(sound)
        }
        _ => check(path),
    }
}

/// Checks the snapshot at `path` whole: every piece against its hash (a
/// piece at a time), or, before version 9, the payload against the checksum.
pub fn check(path: &Path) -> Result<(), SnapshotError> {
    match Pieces::open(path)? {
        Some(pieces) => pieces.check_all(),
        None => {
            let (header, bytes) = read_bytes(path)?;
            verify(path, &header, &bytes)
        }
    }
}
