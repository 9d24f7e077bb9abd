//! A snapshot's payload read: where its parts are, as its format lays them
//! out, and each part decoded.

use std::path::Path;

use super::check::verify;
use super::header::{read_header, Header, SnapshotError, HEADER_LEN};
use super::open::read_bytes;
use super::pieces::{Contents, Part};
use crate::model::dataset::Dataset;
use crate::model::held::Holding;
use crate::model::history::History;
use crate::model::records::Collection;
use crate::model::wagtail::Wagtail;
use crate::snapshot::codec;
use crate::snapshot::dataset10::Dataset10;

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
/// first layout too: [`crate::snapshot::early`]).
pub fn decode_wagtail(path: &Path, format: u32, bytes: &[u8]) -> Result<Wagtail, SnapshotError> {
    let decoded = codec::decode(bytes).or_else(|e| match format {
        6 => crate::snapshot::early::wagtail6(bytes).map_err(|_| e),
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
        11 => crate::snapshot::dataset11::decode(bytes),
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
        ..=10 => crate::snapshot::history10::decode(bytes),
        11 => crate::snapshot::history11::decode(bytes),
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
