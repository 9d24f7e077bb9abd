//! A payload's parts and pieces: what the writers keep, and the table of
//! pieces a reader checks them by.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::header::{Header, SnapshotError};
use crate::model::records::Collection;

/// Makes a snapshot's prepared tables from its collection: `view::prepared::encode`,
/// passed down by the command line (the view is a layer above the writers).
pub type Prepare = fn(&Collection) -> Vec<Piece>;

/// Makes the prepared tables of each collection `sync` publishes, in turn:
/// `view::prepared::Preparer`, which keeps what it made last and makes again
/// only what changed since (told by the collection's digest).
pub trait Preparing: Send {
    fn prepare(
        &mut self,
        collection: &Collection,
        digest: &crate::model::digest::Digest,
    ) -> Vec<Piece>;
    /// How the last [`Preparing::prepare`] made them.
    fn made(&self) -> Tables;
}

/// How a collection's prepared tables were made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tables {
    /// Every table, from the collection.
    #[default]
    Whole,
    /// The tables made last, with this many specimens' rows made again.
    Remade(usize),
}

/// `whole`, or `remade(2 specimens)`, as `sync`'s log says it.
impl std::fmt::Display for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tables::Whole => f.write_str("whole"),
            Tables::Remade(rows) => write!(f, "remade({rows} specimens)"),
        }
    }
}

/// What a piece of a payload belongs to, in the order the parts follow each
/// other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Records = 0,
    Wagtail = 1,
    Dataset = 2,
    History = 3,
    Prepared = 4,
    Held = 5,
}

impl Part {
    const ALL: [Part; 6] = [
        Part::Records,
        Part::Wagtail,
        Part::Dataset,
        Part::History,
        Part::Prepared,
        Part::Held,
    ];

    fn of(code: u8) -> Option<Part> {
        Part::ALL.get(usize::from(code)).copied()
    }

    /// What the part holds, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Part::Records => "the records",
            Part::Wagtail => "Wagtail's part",
            Part::Dataset => "the dataset's description",
            Part::History => "the versions",
            Part::Prepared => "the prepared tables",
            Part::Held => "the records held back",
        }
    }
}

/// A piece of a payload with its SHA-256, as the table of pieces lists it:
/// what a writer keeps to write again without encoding or hashing it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub part: Part,
    pub(super) bytes: Arc<Vec<u8>>,
    pub(super) hash: [u8; 32],
}

impl Piece {
    pub fn new(part: Part, bytes: Vec<u8>) -> Piece {
        Piece {
            part,
            hash: Sha256::digest(&bytes).into(),
            bytes: Arc::new(bytes),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// How many records of a model a piece of the records holds at most: an
/// edit encodes and hashes its piece again, not the model's records.
pub const RECORDS_PER_PIECE: usize = 4096;

/// A piece's entry in the table of pieces: part, length, SHA-256.
pub(super) const ENTRY_LEN: usize = 1 + 8 + 32;

/// A version 9 payload's table of pieces (its contents), read (not yet checked: see
/// [`Contents::check`]).
#[derive(Clone, Debug)]
pub struct Contents {
    /// The SHA-256 of the table's own bytes, count first: what the header's
    /// checksum is.
    sum: [u8; 32],
    pub entries: Vec<Entry>,
}

/// A piece as the table lists it, placed in the payload.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its place in the table, from 0.
    pub index: usize,
    pub part: Part,
    /// Where the piece starts in the payload.
    pub offset: u64,
    pub len: u64,
    pub hash: [u8; 32],
}

impl Entry {
    pub(super) fn range(&self) -> std::ops::Range<usize> {
        self.offset as usize..(self.offset + self.len) as usize
    }

    /// Checks a piece's bytes against its hash; an error names the piece.
    pub(super) fn check(&self, path: &Path, bytes: &[u8]) -> Result<(), SnapshotError> {
        let sum: [u8; 32] = Sha256::digest(bytes).into();
        match sum == self.hash {
            true => Ok(()),
            false => Err(SnapshotError::Piece {
                path: path.to_path_buf(),
                index: self.index,
                part: self.part.name(),
                offset: self.offset,
                len: self.len,
            }),
        }
    }
}

impl Contents {
    /// Reads the table at the start of `payload` (which may be its start
    /// alone), refusing one whose pieces are not in part order or do not
    /// fill the payload exactly.
    pub(super) fn read(path: &Path, payload: &[u8]) -> Result<Contents, SnapshotError> {
        Contents::of_len(path, payload, payload.len() as u64)
    }

    /// [`Contents::read`], of a payload `payload_len` bytes long.
    pub(super) fn of_len(
        path: &Path,
        payload: &[u8],
        payload_len: u64,
    ) -> Result<Contents, SnapshotError> {
        let count = payload
            .get(..4)
            .map(|c| c.try_into().expect("4 bytes"))
            .ok_or_else(|| table_error(path, "is cut short"))?;
        Contents::parse(path, count, &mut &payload[4..], payload_len)
    }

    /// Reads a table of the entries `count` (its first 4 bytes) says from
    /// `table` (what follows the count), of a payload `payload_len` bytes
    /// long: an entry at a time, each checked as it is read (its part, that
    /// it lies within the payload, and that an empty piece's hash is that
    /// of nothing, as every writer's is), so that a table its file's length
    /// allows but whose entries are not a writer's (a crafted file, a file
    /// of holes) costs what was read up to the first wrong entry, not
    /// memory for every entry the count announces.
    pub(super) fn parse(
        path: &Path,
        count: [u8; 4],
        table: &mut impl std::io::Read,
        payload_len: u64,
    ) -> Result<Contents, SnapshotError> {
        let bad = |reason: &str| table_error(path, reason);
        let entries_count = u32::from_le_bytes(count) as usize;
        let table_len = entries_count
            .checked_mul(ENTRY_LEN)
            .and_then(|l| l.checked_add(4))
            .filter(|&l| l as u64 <= payload_len)
            .ok_or_else(|| bad("runs past the payload"))?;
        let empty: [u8; 32] = Sha256::digest(b"").into();
        let mut hasher = Sha256::new();
        hasher.update(count);
        let mut entries: Vec<Entry> = Vec::new();
        let mut offset = table_len as u64;
        let mut entry = [0u8; ENTRY_LEN];
        for index in 0..entries_count {
            table
                .read_exact(&mut entry)
                .map_err(|cause| match cause.kind() {
                    std::io::ErrorKind::UnexpectedEof => bad("is cut short"),
                    _ => SnapshotError::Read {
                        path: path.to_path_buf(),
                        cause,
                    },
                })?;
            hasher.update(entry);
            let part = Part::of(entry[0]).ok_or_else(|| bad("names an unknown part"))?;
            if entries.last().is_some_and(|e: &Entry| e.part > part) {
                return Err(bad("has its parts out of order"));
            }
            let len = u64::from_le_bytes(entry[1..9].try_into().expect("8 bytes"));
            let hash: [u8; 32] = entry[9..].try_into().expect("32 bytes");
            if len == 0 && hash != empty {
                return Err(bad(
                    "names an empty piece whose hash is not that of nothing",
                ));
            }
            entries.push(Entry {
                index,
                part,
                offset,
                len,
                hash,
            });
            offset = offset
                .checked_add(len)
                .filter(|&end| end <= payload_len)
                .ok_or_else(|| bad("runs past the payload"))?;
        }
        if offset != payload_len {
            return Err(bad("leaves bytes of the payload over"));
        }
        Ok(Contents {
            sum: hasher.finalize().into(),
            entries,
        })
    }

    /// Checks the table against the header's checksum.
    pub(super) fn check(&self, path: &Path, header: &Header) -> Result<(), SnapshotError> {
        match self.sum == header.checksum {
            true => Ok(()),
            false => Err(SnapshotError::Checksum {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Where a part's pieces are in the payload (empty where it has none).
    pub(super) fn range(&self, part: Part) -> std::ops::Range<usize> {
        match (self.pieces(part).first(), self.pieces(part).last()) {
            (Some(first), Some(last)) => first.offset as usize..last.range().end,
            _ => 0..0,
        }
    }

    /// The entries of a part's pieces.
    pub fn pieces(&self, part: Part) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.part < part);
        let end = self.entries.partition_point(|e| e.part <= part);
        &self.entries[start..end]
    }
}

/// The table of pieces is wrong: `reason`.
fn table_error(path: &Path, reason: &str) -> SnapshotError {
    SnapshotError::Decode {
        path: path.to_path_buf(),
        reason: format!("the table of pieces {reason}"),
    }
}
