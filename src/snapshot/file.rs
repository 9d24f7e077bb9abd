//! The snapshot file: a fixed header, then the encoded collection and the
//! view's tables, in pieces that each carry their SHA-256.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "CATSNAP\0"
//!      8     4  format version (u32 little-endian)
//!     12     8  created at, microseconds since the Unix epoch (i64 LE)
//!     20     8  payload length in bytes (u64 LE)
//!     28    32  checksum: the SHA-256 of the table of pieces
//!     60     -  payload:
//!                 4  count N of pieces (u32 LE)
//!             N×41  the table of pieces: each one's part (u8), length
//!                   (u64 LE) and SHA-256
//!                 -  the pieces' bytes, one after another
//! ```
//!
//! The pieces of a part follow each other, parts in this order, and a part's
//! bytes are its pieces' one after another:
//!
//! - 0, the records: the `Collection`, bincode-encoded, cut after every
//!   [`RECORDS_PER_PIECE`] records of a model (and after each model);
//! - 1, Wagtail's part: the collection's `Wagtail`;
//! - 2, the dataset's description: the collection's `Dataset`;
//! - 3, the versions: the collection's `History` (before version 11, without
//!   the catalogue numbers of deleted specimens: `history10`; in version 11,
//!   without the dataset's package UUID and major releases: `history11`);
//! - 4, the prepared tables (none where the writer had none): cut at each
//!   table's count of columns and at each column (`view::prepared`);
//! - 5, the records held back (none where nothing is): the collection's
//!   `held` (from version 10; a version 9 file has none).
//!
//! The checksum covers every piece through the table, so that a writer
//! hashes again only the pieces that changed, and a reader checks only the
//! pieces it reads: a reload of the server reads the tables' pieces, and of
//! those only the ones whose hash its view does not hold already.
//!
//! The records are what `inspect`, `sync` and the tests read; the prepared tables
//! (`view::prepared`) are what the server loads: columns as the view holds them,
//! so loading is a few large reads rather than a million records taken apart.
//! Versions 5 to 8 held each part after its length (u64 LE), the tables
//! last without one, and their checksum was the SHA-256 of the payload; they
//! are still read. Version 3 held the records alone, and version 4 columns
//! of codes four bytes wide; both are still read, their view built from the
//! records (the slower path: several seconds at a million specimens).
//! Version 5 had no Wagtail part: its records and tables are read, and its
//! view lists no Wagtail pages. Version 6 had no dataset part: its dataset
//! is the empty one, as if built without `--dataset-config`. Version 7 had
//! no versions: its history is empty, and the next snapshot `sync` writes is
//! version 1. Versions 7 to 10 held the dataset's description of fewer keys
//! (no identifier, associated parties, project, sampling, quality control,
//! logo, nor a person's name parts, address, phone, page or role): it is read
//! by a frozen copy of those keys (`dataset10`), the keys added since empty.
//!
//! The checksum covers the payload only, so the same collection built twice (or from
//! another source) has the same checksum; the creation time lives in the header.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::codec;
use super::dataset10::Dataset10;
use crate::model::dataset::Dataset;
use crate::model::held::Holding;
use crate::model::history::History;
use crate::model::records::{Collection, Edited, Record, RecordsVisitor};
use crate::model::wagtail::Wagtail;
use crate::model::Model;

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

/// A payload's parts.
#[derive(Clone, Copy, Debug)]
pub struct Sections<'a> {
    pub records: &'a [u8],
    /// `None` before version 6.
    pub wagtail: Option<&'a [u8]>,
    /// `None` before version 7.
    pub dataset: Option<&'a [u8]>,
    /// `None` before version 8.
    pub history: Option<&'a [u8]>,
    /// `None` in a version 3 file, or where the writer had no tables to store.
    pub prepared: Option<&'a [u8]>,
    /// `None` where nothing is held back (and before version 10).
    pub held: Option<&'a [u8]>,
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
    bytes: Arc<Vec<u8>>,
    hash: [u8; 32],
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

/// Encodes a collection and its prepared tables (none: none) into a complete
/// snapshot file image.
pub fn encode(
    collection: &Collection,
    created_at: i64,
    prepared: &[Piece],
) -> Result<(Header, Vec<u8>), SnapshotError> {
    let head = encode_head(collection, &collection.history)?;
    let image = assemble(head, prepared, created_at);
    let bytes = image.parts().concat();
    Ok((image.header, bytes))
}

/// The payload's pieces before the prepared tables: the records, Wagtail's,
/// the dataset's and `history`'s (in place of the collection's own), which
/// [`assemble`] completes with the prepared tables (made at the same time,
/// on another core, by `sync`).
pub fn encode_head(
    collection: &Collection,
    history: &History,
) -> Result<Vec<Piece>, SnapshotError> {
    encode_head_beside(collection, history, None)
}

/// The records' pieces of a collection, and the records replaced in place
/// since, of which another collection is made.
#[derive(Clone, Copy)]
pub struct Kept<'a> {
    /// As [`Image::records`] gives them.
    pub records: &'a [Piece],
    pub edited: &'a Edited,
}

/// [`encode_head`], of a collection made as `kept` says: the records' pieces
/// that hold no edited record are kept, not encoded again.
pub fn encode_head_beside(
    collection: &Collection,
    history: &History,
    kept: Option<Kept>,
) -> Result<Vec<Piece>, SnapshotError> {
    let mut cutter = Cutter {
        pieces: Vec::new(),
        kept,
        at: 0,
        failed: None,
    };
    collection.visit_records(&mut cutter);
    if let Some(e) = cutter.failed {
        return Err(SnapshotError::Encode(e));
    }
    let mut pieces = cutter.pieces;
    let encoded = |part, value: Result<Vec<u8>, String>| {
        value
            .map(|bytes| Piece::new(part, bytes))
            .map_err(SnapshotError::Encode)
    };
    pieces.push(encoded(Part::Records, codec::encode(&collection.site))?);
    pieces.push(encoded(Part::Wagtail, codec::encode(&collection.wagtail))?);
    pieces.push(encoded(Part::Dataset, codec::encode(&collection.dataset))?);
    pieces.push(encoded(Part::History, codec::encode(history))?);
    if !collection.held.is_empty() {
        pieces.push(encoded(Part::Held, codec::encode(&collection.held))?);
    }
    Ok(pieces)
}

/// Cuts each model's records into pieces, as the collection encodes them:
/// its count, then each record; keeps a kept piece that holds no edited record.
struct Cutter<'a> {
    pieces: Vec<Piece>,
    /// What there is to keep; none once a model's edits are not found.
    kept: Option<Kept<'a>>,
    /// Where this model's pieces start among the kept ones.
    at: usize,
    failed: Option<String>,
}

impl Cutter<'_> {
    /// The pieces of `records` that hold an edited record, when the rest
    /// can be kept.
    fn edited<T: Record>(&self, model: Model, records: &[T], count: usize) -> Option<Vec<usize>> {
        let kept = self.kept?;
        if self.at + count > kept.records.len() {
            return None;
        }
        let edits = kept.edited.iter().filter(|(m, _)| *m == model);
        edits
            .flat_map(|(_, ids)| ids)
            .map(|id| {
                let at = records.binary_search_by_key(id, Record::id).ok()?;
                Some(at / RECORDS_PER_PIECE)
            })
            .collect()
    }
}

impl RecordsVisitor for Cutter<'_> {
    fn records<T: Record + serde::Serialize>(&mut self, model: Model, records: &[T]) {
        let count = records.len().div_ceil(RECORDS_PER_PIECE).max(1);
        let edited = self.edited(model, records, count);
        let kept = match edited {
            Some(_) => self.kept.map(|k| &k.records[self.at..self.at + count]),
            None => None,
        };
        if kept.is_none() {
            self.kept = None;
        }
        for piece in 0..count {
            let again = edited.as_ref().is_none_or(|e| e.contains(&piece));
            if let (false, Some(kept)) = (again, kept) {
                self.pieces.push(kept[piece].clone());
                continue;
            }
            let mut bytes = Vec::new();
            let first = piece * RECORDS_PER_PIECE;
            let last = records.len().min(first + RECORDS_PER_PIECE);
            let mut encoded = match piece {
                0 => codec::encode_into(&(records.len() as u64), &mut bytes),
                _ => Ok(()),
            };
            for r in &records[first..last] {
                encoded = encoded.and_then(|()| codec::encode_into(r, &mut bytes));
            }
            if let Err(e) = encoded {
                self.failed.get_or_insert(e);
            }
            self.pieces.push(Piece::new(Part::Records, bytes));
        }
        self.at += count;
    }
}

/// A snapshot file as the parts it is written from, one after another: its
/// header, its table of pieces and the pieces. At a million specimens the
/// file is hundreds of megabytes, which `sync` copied twice into fresh
/// buffers to write it whole.
pub struct Image<'a> {
    pub header: Header,
    header_bytes: [u8; HEADER_LEN],
    table: Vec<u8>,
    head: Vec<Piece>,
    prepared: &'a [Piece],
}

impl Image<'_> {
    /// The pieces of its records: what [`encode_head_beside`] keeps.
    pub fn records(&self) -> &[Piece] {
        let records = self.head.partition_point(|p| p.part == Part::Records);
        &self.head[..records]
    }

    /// The file's bytes, in the order they are written.
    pub fn parts(&self) -> Vec<&[u8]> {
        let (before, after) = split(&self.head);
        let pieces = (before.iter().chain(self.prepared).chain(after)).map(Piece::bytes);
        [&self.header_bytes[..], &self.table]
            .into_iter()
            .chain(pieces)
            .collect()
    }
}

/// [`encode_head`]'s pieces before the prepared tables, and after them.
fn split(head: &[Piece]) -> (&[Piece], &[Piece]) {
    head.split_at(head.partition_point(|p| p.part < Part::Prepared))
}

/// The snapshot file of [`encode_head`]'s pieces and the prepared tables',
/// in part order.
pub fn assemble(head: Vec<Piece>, prepared: &[Piece], created_at: i64) -> Image<'_> {
    let (before, after) = split(&head);
    let pieces = before.iter().chain(prepared).chain(after);
    let count = head.len() + prepared.len();
    let mut table = Vec::with_capacity(4 + count * ENTRY_LEN);
    table.extend_from_slice(&(count as u32).to_le_bytes());
    let mut payload_len = 0;
    for piece in pieces {
        table.push(piece.part as u8);
        table.extend_from_slice(&(piece.bytes.len() as u64).to_le_bytes());
        table.extend_from_slice(&piece.hash);
        payload_len += piece.bytes.len();
    }
    let header = Header {
        format_version: FORMAT_VERSION,
        created_at,
        payload_len: (table.len() + payload_len) as u64,
        checksum: Sha256::digest(&table).into(),
    };
    let mut header_bytes = [0; HEADER_LEN];
    let fields: [&[u8]; 5] = [
        MAGIC,
        &header.format_version.to_le_bytes(),
        &header.created_at.to_le_bytes(),
        &header.payload_len.to_le_bytes(),
        &header.checksum,
    ];
    let mut at = 0;
    for field in fields {
        header_bytes[at..at + field.len()].copy_from_slice(field);
        at += field.len();
    }
    Image {
        header,
        header_bytes,
        table,
        head,
        prepared,
    }
}

/// A piece's entry in the table of pieces: part, length, SHA-256.
const ENTRY_LEN: usize = 1 + 8 + 32;

/// Writes a collection and its prepared tables to `path` atomically: a temporary
/// file beside it, then a rename.
pub fn write(
    path: &Path,
    collection: &Collection,
    created_at: i64,
    prepared: &[Piece],
) -> Result<Header, SnapshotError> {
    let head = encode_head(collection, &collection.history)?;
    let image = assemble(head, prepared, created_at);
    write_parts_atomically(path, &image.parts()).map_err(|cause| SnapshotError::Write {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(image.header)
}

/// Writes bytes to a temporary file in the target's directory, syncs it, and renames
/// it over the target, so a reader sees the old file or the new one, never a mix.
/// A target that exists and is not a regular file (`-o /dev/null`, a directory) is
/// refused: the rename would replace it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_parts_atomically(path, &[bytes])
}

/// [`write_atomically`], of the file made of `parts` one after another.
///
/// The file is written unnamed (`O_TMPFILE`) and named only once it is whole
/// and synced, just before the rename: a writer killed while it writes leaves
/// nothing behind. Where the file system has no unnamed files, it is written
/// under a temporary name carrying the writer's process id; such files left
/// by writers that are no longer running are removed by the next write.
pub fn write_parts_atomically(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    if let Ok(target) = std::fs::metadata(path) {
        if !target.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it exists and is not a regular file, which writing would replace: give a file's path",
            ));
        }
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.tmp-");
    remove_stale_temporaries(&dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}", std::process::id()));
    let unnamed = unnamed_file(&dir);
    let named = unnamed.is_err();
    let result = (|| {
        let file = match unnamed {
            Ok(file) => file,
            Err(_) => std::fs::File::create(&tmp)?,
        };
        // Many parts are a few bytes (the pieces of small tables): gathered.
        let file = WritingBehind {
            file,
            written: 0,
            asked: 0,
        };
        let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
        for part in parts {
            file.write_all(part)?;
        }
        let file = file.into_inner().map_err(|e| e.into_error())?.file;
        file.sync_all()?;
        if !named {
            name_unnamed(&file, &tmp)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A file in `dir` with no name, for writing (`O_TMPFILE`): gone with its
/// descriptor unless named by [`name_unnamed`] (through `/proc/self/fd`: where
/// that is not mounted, none is made, and the writer names its file).
fn unnamed_file(dir: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if !Path::new("/proc/self/fd").is_dir() {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    std::fs::OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
}

/// Gives the unnamed `file` the name `tmp` (`linkat` of its descriptor).
fn name_unnamed(file: &std::fs::File, tmp: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::ffi::OsStrExt as _;
    let _ = std::fs::remove_file(tmp);
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = std::ffi::CString::new(tmp.as_os_str().as_bytes())?;
    // SAFETY: two NUL-terminated paths that live across the call.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    match linked {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Removes the files in `dir` named `prefix` and a process id whose process
/// is no longer running: what a writer killed while it wrote under a
/// temporary name left.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = (name.to_str())
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|pid| pid.parse::<libc::pid_t>().ok())
            .filter(|&pid| pid > 0)
        else {
            continue;
        };
        // SAFETY: a signal 0 sends nothing; it asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && std::fs::remove_file(entry.path()).is_ok() {
            tracing::info!(file = %entry.path().display(), "removed the temporary file of a writer that stopped");
        }
    }
}

/// A file that asks the kernel to start writing what was written to disk
/// every few megabytes, so that the `fsync` at the end waits for the last
/// of them, not for all: at a million specimens the two took as long again
/// one after the other.
struct WritingBehind {
    file: std::fs::File,
    written: u64,
    /// Up to where the kernel was asked to start writing.
    asked: u64,
}

impl std::io::Write for WritingBehind {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd as _;
        let n = self.file.write(bytes)?;
        self.written += n as u64;
        if self.written - self.asked >= 8 << 20 {
            // Only a request: where it is refused, the `fsync` writes it.
            // SAFETY: a range of this open file; nothing is read or written
            // through pointers.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.asked as libc::off64_t,
                    (self.written - self.asked) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                )
            };
            self.asked = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
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

/// Checks and decodes a snapshot image's records.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<(Header, Collection), SnapshotError> {
    let header = read_header(path, bytes)?;
    verify(path, &header, bytes)?;
    let sections = sections(path, &header, bytes)?;
    let mut collection: Collection =
        codec::decode(sections.records).map_err(|reason| SnapshotError::Decode {
            path: path.to_path_buf(),
            reason,
        })?;
    if let Some(wagtail) = sections.wagtail {
        collection.wagtail = decode_wagtail(path, header.format_version, wagtail)?;
    }
    if let Some(dataset) = sections.dataset {
        collection.dataset = decode_dataset(path, header.format_version, dataset)?;
    }
    if let Some(history) = sections.history {
        collection.history = decode_history(path, header.format_version, history)?;
    }
    if let Some(held) = sections.held {
        collection.held = decode_held(path, held)?;
    }
    Ok((header, collection))
}

/// Decodes a snapshot's Wagtail part, as its format wrote it (format 6's
/// first layout too: [`super::early`]).
pub fn decode_wagtail(path: &Path, format: u32, bytes: &[u8]) -> Result<Wagtail, SnapshotError> {
    let decoded = codec::decode(bytes).or_else(|e| match format {
        6 => super::early::wagtail6(bytes).map_err(|_| e),
        _ => Err(e),
    });
    decoded.map_err(|reason| SnapshotError::Decode {
        path: path.to_path_buf(),
        reason: format!("Wagtail's part: {reason}"),
    })
}

/// Decodes a snapshot's dataset part, as its format wrote it: before
/// version 11, the description's keys of then ([`Dataset10`]), the keys added
/// since empty.
pub fn decode_dataset(path: &Path, format: u32, bytes: &[u8]) -> Result<Dataset, SnapshotError> {
    let decoded = match format {
        ..=10 => codec::decode::<Dataset10>(bytes).map(Dataset::from),
        11 => super::dataset11::decode(bytes),
        _ => codec::decode(bytes),
    };
    decoded.map_err(|reason| SnapshotError::Decode {
        path: path.to_path_buf(),
        reason: format!("the dataset's part: {reason}"),
    })
}

/// Decodes a snapshot's versions, as its format holds them.
pub fn decode_history(
    path: &Path,
    format_version: u32,
    bytes: &[u8],
) -> Result<History, SnapshotError> {
    let decoded = match format_version {
        ..=10 => super::history10::decode(bytes),
        11 => super::history11::decode(bytes),
        _ => codec::decode(bytes),
    };
    decoded.map_err(|reason| SnapshotError::Decode {
        path: path.to_path_buf(),
        reason: format!("the versions' part: {reason}"),
    })
}

/// Decodes a snapshot's records held back.
pub fn decode_held(path: &Path, bytes: &[u8]) -> Result<Vec<Holding>, SnapshotError> {
    codec::decode(bytes).map_err(|reason| SnapshotError::Decode {
        path: path.to_path_buf(),
        reason: format!("the held-back records' part: {reason}"),
    })
}

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
    fn range(&self) -> std::ops::Range<usize> {
        self.offset as usize..(self.offset + self.len) as usize
    }

    /// Checks a piece's bytes against its hash; an error names the piece.
    fn check(&self, path: &Path, bytes: &[u8]) -> Result<(), SnapshotError> {
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
    fn read(path: &Path, payload: &[u8]) -> Result<Contents, SnapshotError> {
        Contents::of_len(path, payload, payload.len() as u64)
    }

    /// [`Contents::read`], of a payload `payload_len` bytes long.
    fn of_len(path: &Path, payload: &[u8], payload_len: u64) -> Result<Contents, SnapshotError> {
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
    fn parse(
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
    fn check(&self, path: &Path, header: &Header) -> Result<(), SnapshotError> {
        match self.sum == header.checksum {
            true => Ok(()),
            false => Err(SnapshotError::Checksum {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Where a part's pieces are in the payload (empty where it has none).
    fn range(&self, part: Part) -> std::ops::Range<usize> {
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

/// A version 9 snapshot opened to be read piece by piece: its header and
/// table of pieces checked, each piece checked as it is read. What a server
/// reads a snapshot with: the pieces it uses, and of those the ones it does
/// not hold already.
pub struct Pieces {
    path: PathBuf,
    file: std::fs::File,
    pub header: Header,
    pub contents: Contents,
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
        Ok(Some(Pieces {
            path: path.to_path_buf(),
            file,
            header,
            contents,
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
        Ok(bytes)
    }

    /// Reads and checks every piece, one at a time (the memory of the
    /// largest, not of the file): what finds a file damaged in place, whose
    /// header still names the collection served.
    pub fn check_all(&self) -> Result<(), SnapshotError> {
        (self.contents.entries.iter())
            .try_for_each(|e| self.read(std::slice::from_ref(e)).map(drop))
    }
}

/// Where a snapshot image's records and prepared tables are (not checked
/// against the checksum: see [`verify`]).
pub fn sections<'a>(
    path: &Path,
    header: &Header,
    bytes: &'a [u8],
) -> Result<Sections<'a>, SnapshotError> {
    let payload = &bytes[HEADER_LEN..];
    if header.format_version >= 9 {
        let table = Contents::read(path, payload)?;
        let part = |part| {
            let range = table.range(part);
            (!range.is_empty()).then(|| &payload[range])
        };
        return Ok(Sections {
            records: part(Part::Records).unwrap_or_default(),
            wagtail: part(Part::Wagtail),
            dataset: part(Part::Dataset),
            history: part(Part::History),
            prepared: part(Part::Prepared),
            held: part(Part::Held),
        });
    }
    if header.format_version < 4 {
        return Ok(Sections {
            records: payload,
            wagtail: None,
            dataset: None,
            history: None,
            prepared: None,
            held: None,
        });
    }
    // A section: its length (u64 LE), then its bytes; gives it and what follows.
    let section = |bytes: &'a [u8], what: &str| -> Result<(&'a [u8], &'a [u8]), SnapshotError> {
        let end = bytes
            .get(..8)
            .map(|l| u64::from_le_bytes(l.try_into().expect("8 bytes")))
            .and_then(|l| usize::try_from(l).ok())
            .and_then(|l| l.checked_add(8))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| SnapshotError::Decode {
                path: path.to_path_buf(),
                reason: format!("{what} length runs past the payload"),
            })?;
        Ok((&bytes[8..end], &bytes[end..]))
    };
    let (records, rest) = section(payload, "the records'")?;
    let (wagtail, rest) = match header.format_version {
        4 | 5 => (None, rest),
        _ => {
            let (wagtail, rest) = section(rest, "Wagtail's part's")?;
            (Some(wagtail), rest)
        }
    };
    let (dataset, rest) = match header.format_version {
        4..=6 => (None, rest),
        _ => {
            let (dataset, rest) = section(rest, "the dataset's part's")?;
            (Some(dataset), rest)
        }
    };
    let (history, rest) = match header.format_version {
        4..=7 => (None, rest),
        _ => {
            let (history, rest) = section(rest, "the versions' part's")?;
            (Some(history), rest)
        }
    };
    // Version 4's prepared tables are of an older layout: read its records.
    // Version 5's are this version's.
    let tables = header.format_version >= 5;
    Ok(Sections {
        records,
        wagtail,
        dataset,
        history,
        prepared: Some(rest).filter(|p| tables && !p.is_empty()),
        held: None,
    })
}

/// Reads, checks and decodes the snapshot at `path`.
///
/// Only a regular file is read (a FIFO, a device or a socket at the path is
/// refused without blocking on it), and its size must be what its header
/// announces before the payload is read: a link to `/dev/zero` or a file still
/// being written costs a 60-byte read, not memory.
pub fn read(path: &Path) -> Result<(Header, Collection), SnapshotError> {
    let (_, bytes) = read_bytes(path)?;
    decode(path, &bytes)
}

/// Reads the snapshot at `path` whole, its header checked (not yet its
/// checksum: a loader may check it while it decodes), as [`read`] does.
pub fn read_bytes(path: &Path) -> Result<(Header, Vec<u8>), SnapshotError> {
    use std::io::Read as _;
    let (mut file, head, len) = open(path)?;
    let header = check_header(path, &head, len)?;
    let mut bytes = head;
    bytes.reserve_exact(len as usize - HEADER_LEN);
    file.read_to_end(&mut bytes)
        .map_err(|cause| SnapshotError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
    Ok((header, bytes))
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
    use crate::model::dataset::Party;
    use crate::model::records::{placement_fields, stored_fields, Country};
    use crate::model::Model;

    /// A digest of what the payload's layout follows: every model's stored
    /// fields (the records) and served fields (the prepared tables), a
    /// page's Wagtail fields and the dataset's keys.
    fn layout() -> String {
        let mut said = String::new();
        for model in Model::ALL {
            for (name, kind) in stored_fields(model) {
                said += &format!("{} stores {name} {kind:?}\n", model.label());
            }
            for field in model.fields() {
                said += &format!("{} serves {field:?}\n", model.label());
            }
        }
        for (name, kind) in placement_fields() {
            said += &format!("page places {name} {kind:?}\n");
        }
        // Wagtail's part beside the pages (a site's keys changed under
        // format 6 once, unseen).
        let wagtail = Wagtail {
            sites: vec![crate::model::wagtail::Site {
                hostname: String::new(),
                port: 0,
                root_page: 0,
                is_default: false,
            }],
            documents: vec![crate::model::wagtail::Document {
                id: 0,
                title: String::new(),
                file: String::new(),
                created_at: 0,
                file_size: None,
                file_hash: String::new(),
                collection: 0,
                tags: Vec::new(),
            }],
            ..Wagtail::default()
        };
        said += &format!(
            "wagtail {}\n",
            serde_json::to_string(&wagtail).expect("JSON")
        );
        // The dataset's part: its keys, in order (a party's among them).
        let dataset = Dataset {
            creators: vec![Default::default()],
            ..Dataset::default()
        };
        said += &format!(
            "dataset {}\n",
            serde_json::to_string(&dataset).expect("JSON")
        );
        let mut history = History::first(Vec::new());
        history.versions[0].changes.push(Default::default());
        said += &format!(
            "history {}\n",
            serde_json::to_string(&history).expect("JSON")
        );
        let held = crate::model::held::Holding {
            model: String::new(),
            id: 0,
            field: String::new(),
            problem: String::new(),
            kept: String::new(),
            since: 0,
        };
        said += &format!("held {}\n", serde_json::to_string(&held).expect("JSON"));
        crate::encoding::hex::hex(&Sha256::digest(said.as_bytes()))
    }

    /// Forgetting to raise the format version with a new field would let this
    /// build decode an older file's records into the wrong members.
    #[test]
    fn a_changed_layout_has_a_new_format_version() {
        let layout = layout();
        assert_eq!(
            (FORMAT_VERSION, &layout[..16]),
            (12, "981f1ae7c7fb711d"),
            "the records' or the tables' fields changed: raise FORMAT_VERSION, \
             and OLDEST_READ to it unless the older layout keeps a reader, then \
             write the new version and {} here",
            &layout[..16]
        );
    }

    fn sample() -> Collection {
        Collection {
            countries: vec![Country {
                id: 1,
                date_created: 0,
                date_modified: 5,
                name: "Canada".into(),
                abbr: "CAN".into(),
            }],
            wagtail: Wagtail {
                locales: vec![(1, "en".into())],
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The records held back are a part of their own, after the prepared
    /// tables, written only when there are any: they read back, and the
    /// file without them is the one written before there was such a part.
    #[test]
    fn the_held_back_records_are_a_part_after_the_tables() {
        let path = Path::new("held.bin");
        let held = Holding {
            model: "geography.country".into(),
            id: 2,
            field: "name".into(),
            problem: "is wrong".into(),
            kept: "left-out".into(),
            since: 3,
        };
        let c = Collection {
            held: vec![held],
            ..sample()
        };
        let (header, bytes) = encode(&c, 0, &tables()).unwrap();
        let contents = Contents::read(path, &bytes[HEADER_LEN..]).unwrap();
        let parts: Vec<Part> = contents.entries.iter().map(|e| e.part).collect();
        assert_eq!(parts[parts.len() - 2..], [Part::Prepared, Part::Held]);
        let (_, decoded) = decode(path, &bytes).unwrap();
        assert_eq!(decoded, c);
        let sections = sections(path, &header, &bytes).unwrap();
        assert_eq!(sections.prepared, Some(&b"tables"[..]));
        let (_, without) = encode(&sample(), 0, &tables()).unwrap();
        let contents = Contents::read(path, &without[HEADER_LEN..]).unwrap();
        assert!(contents.pieces(Part::Held).is_empty());
        assert_eq!(decode(path, &without).unwrap().1.held, []);
    }

    /// Prepared tables of a piece.
    fn tables() -> Vec<Piece> {
        vec![Piece::new(Part::Prepared, b"tables".to_vec())]
    }

    /// The sample as a file of an older version holds it: no Wagtail part.
    fn sample_without_wagtail() -> Collection {
        Collection {
            wagtail: Wagtail::default(),
            ..sample()
        }
    }

    #[test]
    fn round_trips_and_checksum_ignores_creation_time() {
        let p = Path::new("x.bin");
        let (h1, bytes) = encode(&sample(), 1, &tables()).unwrap();
        let (h2, _) = encode(&sample(), 2, &tables()).unwrap();
        assert_eq!(h1.checksum, h2.checksum);
        let (h, c) = decode(p, &bytes).unwrap();
        assert_eq!(h, h1);
        assert_eq!(c, sample());
        let parts = sections(p, &h, &bytes).unwrap();
        assert_eq!(parts.prepared, Some(&b"tables"[..]));
        assert_eq!(
            decode_wagtail(p, FORMAT_VERSION, parts.wagtail.unwrap()).unwrap(),
            sample().wagtail
        );
        assert_eq!(
            codec::decode::<Collection>(parts.records).unwrap(),
            sample_without_wagtail()
        );
        let (h, bytes) = encode(&sample(), 1, &[]).unwrap();
        assert_eq!(sections(p, &h, &bytes).unwrap().prepared, None);
    }

    /// A format 10 file's dataset part is of the keys of then: it is read,
    /// the keys added since empty.
    #[test]
    fn reads_the_dataset_of_a_version_10_file() {
        use super::super::dataset10::Party10;
        let ada = || Party10 {
            name: "Ada van der Berg".into(),
            organization: "A Museum".into(),
            email: "ada@example.org".into(),
            orcid: "0000-0002-1825-0097".into(),
        };
        let ten = Dataset10 {
            title: "Insects".into(),
            description: "d".into(),
            publisher: "A Museum".into(),
            license: "CC-BY-4.0".into(),
            language: "en".into(),
            homepage: "https://example.org/".into(),
            keywords: vec!["insects".into()],
            citation: String::new(),
            doi: "10.1234/abc".into(),
            institution_code: "AM".into(),
            institution_name: "A Museum".into(),
            collection_code: "Insects".into(),
            collection_name: "Insect Division".into(),
            purpose: "p".into(),
            methods: "m".into(),
            update_frequency: "asNeeded".into(),
            rights_holder: String::new(),
            creators: vec![ada()],
            contacts: vec![ada()],
            metadata_providers: vec![],
        };
        let mut head = encode_head(&sample(), &History::default()).unwrap();
        for piece in head.iter_mut().filter(|p| p.part == Part::Dataset) {
            *piece = Piece::new(Part::Dataset, codec::encode(&ten).unwrap());
        }
        // A version 10 history: no versions, and none of the keys since.
        let none: Vec<u8> = codec::encode(&Vec::<u8>::new()).unwrap();
        for piece in head.iter_mut().filter(|p| p.part == Part::History) {
            *piece = Piece::new(Part::History, none.clone());
        }
        let image = assemble(head, &[], 1);
        let mut bytes = image.parts().concat();
        bytes[8..12].copy_from_slice(&10u32.to_le_bytes());
        let (h, c) = decode(Path::new("x.bin"), &bytes).unwrap();
        let party = Party {
            name: "Ada van der Berg".into(),
            organization: "A Museum".into(),
            email: "ada@example.org".into(),
            orcid: "0000-0002-1825-0097".into(),
            ..Party::default()
        };
        let expected = Dataset {
            title: "Insects".into(),
            description: "d".into(),
            publisher: "A Museum".into(),
            license: "CC-BY-4.0".into(),
            language: "en".into(),
            homepage: "https://example.org/".into(),
            keywords: vec!["insects".into()],
            doi: "10.1234/abc".into(),
            institution_code: "AM".into(),
            institution_name: "A Museum".into(),
            collection_code: "Insects".into(),
            collection_name: "Insect Division".into(),
            purpose: "p".into(),
            methods: "m".into(),
            update_frequency: "asNeeded".into(),
            creators: vec![party.clone()],
            contacts: vec![party],
            ..Dataset::default()
        };
        assert_eq!((h.format_version, &c.dataset), (10, &expected));
        // The same bytes said to be of format 11 do not decode as its dataset.
        bytes[8..12].copy_from_slice(&11u32.to_le_bytes());
        assert!(decode(Path::new("x.bin"), &bytes).is_err());
    }

    #[test]
    fn reads_the_records_of_version_3_4_and_5_files() {
        let p = Path::new("x.bin");
        let payload = codec::encode(&sample()).unwrap();
        let mut bytes = Vec::from(&MAGIC[..]);
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&1i64.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&Sha256::digest(&payload));
        bytes.extend_from_slice(&payload);
        let (h, c) = decode(p, &bytes).unwrap();
        assert_eq!((h.format_version, c), (3, sample_without_wagtail()));
        assert_eq!(sections(p, &h, &bytes).unwrap().prepared, None);
        // Version 4's prepared tables are of another layout: its records are read.
        // Version 5: records, then tables of this version's layout.
        let mut payload = (payload.len() as u64).to_le_bytes().to_vec();
        payload.extend_from_slice(&codec::encode(&sample()).unwrap());
        payload.extend_from_slice(b"tables");
        let mut five = Vec::from(&MAGIC[..]);
        five.extend_from_slice(&5u32.to_le_bytes());
        five.extend_from_slice(&1i64.to_le_bytes());
        five.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        five.extend_from_slice(&Sha256::digest(&payload));
        five.extend_from_slice(&payload);
        let (h5, c5) = decode(p, &five).unwrap();
        assert_eq!((h5.format_version, c5), (5, sample_without_wagtail()));
        let parts = sections(p, &h5, &five).unwrap();
        assert_eq!(
            (parts.wagtail, parts.prepared),
            (None, Some(&b"tables"[..]))
        );
        // Version 4's prepared tables are of another layout: its records are read.
        five[8] = 4;
        let (h4, c4) = decode(p, &five).unwrap();
        assert_eq!((h4.format_version, c4), (4, sample_without_wagtail()));
        assert_eq!(sections(p, &h4, &five).unwrap().prepared, None);
        let mut older = bytes;
        older[8] = 2;
        assert!(matches!(
            decode(p, &older).unwrap_err(),
            SnapshotError::Version { found: 2, .. }
        ));
    }

    #[test]
    fn refuses_truncated_altered_foreign_and_future_files() {
        let p = Path::new("x.bin");
        let (_, bytes) = encode(&sample(), 1, &tables()).unwrap();
        let err = |b: &[u8]| decode(p, b).unwrap_err();
        assert!(matches!(
            err(&bytes[..bytes.len() - 1]),
            SnapshotError::Length { .. }
        ));
        assert!(matches!(err(&bytes[..30]), SnapshotError::Length { .. }));
        // The last piece's last byte: the piece is named.
        let mut altered = bytes.clone();
        *altered.last_mut().unwrap() ^= 1;
        let named = err(&altered);
        assert!(
            matches!(
                named,
                SnapshotError::Piece {
                    part: "the prepared tables",
                    ..
                }
            ),
            "{named}"
        );
        assert!(matches!(
            err(b"[{\"model\": 1}]"),
            SnapshotError::Foreign { .. }
        ));
        // A piece's hash in the table, or a length there.
        let mut altered = bytes.clone();
        altered[HEADER_LEN + 4 + 9 + 3] ^= 1;
        assert!(matches!(err(&altered), SnapshotError::Checksum { .. }));
        let mut altered = bytes.clone();
        altered[HEADER_LEN + 4 + 1] ^= 1;
        assert!(matches!(err(&altered), SnapshotError::Decode { .. }));
        let mut future = bytes.clone();
        future[8] = 13;
        assert!(matches!(
            err(&future),
            SnapshotError::Version { found: 13, .. }
        ));
    }

    /// A file of holes (sparse: a few bytes on disk) whose header and
    /// table's count announce millions of pieces is refused at its first
    /// entry, having read a buffer of it: not the table its length allows.
    #[test]
    fn a_table_of_holes_is_refused_at_its_first_entry() {
        let dir = std::env::temp_dir().join(format!("holes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sparse.bin");
        let len: u64 = 328 << 20;
        let payload_len = len - HEADER_LEN as u64;
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        head.extend_from_slice(&0u64.to_le_bytes());
        head.extend_from_slice(&payload_len.to_le_bytes());
        head.extend_from_slice(&[0; 32]);
        let count = ((payload_len - 4) / ENTRY_LEN as u64) as u32;
        head.extend_from_slice(&count.to_le_bytes());
        std::fs::write(&path, &head).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len)
            .unwrap();
        let said = Pieces::open(&path).err().unwrap().to_string();
        assert!(
            said.contains("names an empty piece whose hash is not that of nothing"),
            "{said}"
        );
        // The same table read from memory: refused at its first entry too.
        let mut read = 0usize;
        struct Counted<'a>(&'a mut usize);
        impl std::io::Read for Counted<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                buf.fill(0);
                *self.0 += buf.len();
                Ok(buf.len())
            }
        }
        let mut zeros = Counted(&mut read);
        let refused = Contents::parse(&path, count.to_le_bytes(), &mut zeros, payload_len);
        assert!(refused.is_err());
        assert_eq!(read, ENTRY_LEN);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A write removes the temporary files of writers no longer running
    /// (which a writer killed before `O_TMPFILE` left), not those of one
    /// that runs, and leaves none of its own.
    #[test]
    fn a_write_removes_the_temporaries_of_stopped_writers() {
        let dir = std::env::temp_dir().join(format!("stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut stopped = std::process::Command::new("true").spawn().unwrap();
        let gone = stopped.id();
        stopped.wait().unwrap();
        std::fs::write(dir.join(format!(".x.bin.tmp-{gone}")), b"left").unwrap();
        // Process 1 runs as long as the system does.
        std::fs::write(dir.join(".x.bin.tmp-1"), b"running").unwrap();
        write_atomically(&dir.join("x.bin"), b"whole").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [".x.bin.tmp-1", "x.bin"]);
        assert_eq!(std::fs::read(dir.join("x.bin")).unwrap(), b"whole");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file read piece by piece: its table checked when it opens, each
    /// piece when it is read, and only then; a piece not read is not checked.
    #[test]
    fn pieces_are_checked_as_they_are_read() {
        let dir = std::env::temp_dir().join(format!("pieces-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.bin");
        let (_, bytes) = encode(&sample(), 1, &tables()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let pieces = Pieces::open(&path).unwrap().expect("version 9");
        pieces.check_all().unwrap();
        let prepared = pieces.contents.pieces(Part::Prepared);
        assert_eq!(pieces.read(prepared).unwrap(), b"tables");
        let wagtail = pieces.read(pieces.contents.pieces(Part::Wagtail)).unwrap();
        assert_eq!(
            decode_wagtail(&path, FORMAT_VERSION, &wagtail).unwrap(),
            sample().wagtail
        );
        // The records' first byte altered: their piece is refused, the
        // tables' still read.
        let records = pieces.contents.pieces(Part::Records)[0].offset as usize;
        let mut altered = bytes.clone();
        altered[HEADER_LEN + records] ^= 1;
        std::fs::write(&path, &altered).unwrap();
        let pieces = Pieces::open(&path).unwrap().expect("version 9");
        let err = pieces.read(pieces.contents.pieces(Part::Records));
        assert!(matches!(
            err,
            Err(SnapshotError::Piece {
                index: 0,
                part: "the records",
                ..
            })
        ));
        assert!(matches!(
            pieces.check_all(),
            Err(SnapshotError::Piece { index: 0, .. })
        ));
        let prepared = pieces.contents.pieces(Part::Prepared);
        assert_eq!(pieces.read(prepared).unwrap(), b"tables");
        // The table's count altered: refused on opening.
        altered[HEADER_LEN] ^= 1;
        std::fs::write(&path, &altered).unwrap();
        assert!(Pieces::open(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The records' pieces of an edited collection, kept where they hold no
    /// edited record, are those its whole encoding makes.
    #[test]
    fn records_pieces_kept_beside_edits_equal_those_encoded_whole() {
        let mut c = sample();
        c.countries = (1..=2 * RECORDS_PER_PIECE as i64 + 5)
            .map(|id| Country::numbered(id, format!("Country {id}")))
            .collect();
        let history = History::default();
        let before = encode_head(&c, &history).unwrap();
        let pieces = before.iter().filter(|p| p.part == Part::Records).count();
        // The empty models' counts, the countries' three pieces, the site.
        assert_eq!(
            pieces,
            Model::ALL.iter().filter(|m| m.stored()).count() + 2 + 1
        );
        let edited = [
            RECORDS_PER_PIECE as i64 + 3,
            2 * RECORDS_PER_PIECE as i64 + 5,
        ];
        for &id in &edited {
            c.countries[id as usize - 1].name = format!("edited {id}");
        }
        let edits = [(Model::Country, edited.to_vec())];
        let kept = Kept {
            records: &before[..pieces],
            edited: &edits,
        };
        let kept = encode_head_beside(&c, &history, Some(kept)).unwrap();
        let whole = encode_head(&c, &history).unwrap();
        assert_eq!(kept, whole);
        let changed = before.iter().zip(&whole).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 2, "the pieces of the two edited countries");
        assert_eq!(
            codec::decode::<Collection>(
                &whole[..pieces]
                    .iter()
                    .flat_map(|p| p.bytes().to_vec())
                    .collect::<Vec<_>>()
            )
            .unwrap(),
            Collection {
                wagtail: Wagtail::default(),
                ..c
            }
        );
    }
}
