//! A collection encoded into pieces and written whole: the pieces nothing
//! changed kept, the file assembled from its parts in order.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::header::{Header, SnapshotError, FORMAT_VERSION, HEADER_LEN, MAGIC};
use super::pieces::{Part, Piece, ENTRY_LEN, RECORDS_PER_PIECE};
use crate::model::history::History;
use crate::model::records::{Collection, Edited, Record, RecordsVisitor};
use crate::model::Model;
use crate::snapshot::atomic::write_parts_atomically;
use crate::snapshot::codec;

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
