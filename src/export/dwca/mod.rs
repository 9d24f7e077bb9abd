//! Darwin Core Archives: the specimen records as GBIF and other biodiversity
//! harvesters read them. One zip with `occurrence.txt` (one tab-separated row per
//! specimen record, [`occurrences`]), `multimedia.txt` (one per specimen
//! photograph, [`multimedia`]), `meta.xml` (their columns as term URIs) and
//! `eml.xml` (the dataset as its publisher describes it, `model::dataset`, with
//! the records' [`coverage`]: [`metadata`]). What each column holds of a
//! specimen is `view::occurrence`'s.
//!
//! The archive is written from a view's rows (derived names and resolved
//! references included), deterministically: the same snapshot and dataset give the
//! same bytes, so replicas give the same archive and the same ETag.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::encoding::hex::hex;
use crate::view::View;

pub mod coverage;
pub mod metadata;
pub mod multimedia;
pub mod occurrences;
pub mod scope;

pub use crate::model::dataset::Dataset;
pub use crate::view::occurrence::COLUMNS;
pub use metadata::{eml_xml, kept_eml_xml, meta_xml};
pub use multimedia::Links;
pub use occurrences::Dialect;
pub use scope::Scope;

/// Why an archive could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DwcaError {
    #[error("cannot write the archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("cannot write the archive: {0}")]
    Io(#[from] std::io::Error),
}

/// An archive as the server sends it: its bytes and a tag naming exactly them,
/// and where its links start (the same view makes other bytes for other links).
#[derive(Clone, Debug)]
pub struct Archive {
    pub bytes: bytes::Bytes,
    /// A strong ETag: the archive's SHA-256, so replicas with the same snapshot and
    /// dataset agree.
    pub etag: String,
    pub links: Links,
}

impl Archive {
    pub fn new(view: &View, links: &Links) -> Result<Archive, DwcaError> {
        Archive::of(view, Scope::Everything, links)
    }

    /// The archive of the records `scope` names.
    pub fn of(view: &View, scope: Scope, links: &Links) -> Result<Archive, DwcaError> {
        let bytes = archive(view, scope, links)?;
        Ok(Archive {
            etag: tag_of(&bytes),
            links: links.clone(),
            bytes: bytes.into(),
        })
    }
}

/// A strong ETag naming exactly `bytes`: the first 16 bytes of their SHA-256.
pub fn tag_of(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("\"{}\"", hex(&Sha256::digest(bytes)[..16]))
}

/// Writes the whole archive of a view into memory.
pub fn archive(view: &View, scope: Scope, links: &Links) -> Result<Vec<u8>, DwcaError> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let mut options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    // Entries carry the snapshot's time, not the clock's: the same input, the same bytes.
    if let Some(t) = chrono::DateTime::from_timestamp_micros(view.header.created_at) {
        use chrono::{Datelike, Timelike};
        let dt = zip::DateTime::from_date_and_time(
            t.year().clamp(1980, 2107) as u16,
            t.month() as u8,
            t.day() as u8,
            t.hour() as u8,
            t.minute() as u8,
            t.second() as u8,
        );
        if let Ok(dt) = dt {
            options = options.last_modified_time(dt);
        }
    }
    zip.start_file("meta.xml", options)?;
    zip.write_all(meta_xml().as_bytes())?;
    zip.start_file("eml.xml", options)?;
    zip.write_all(eml_xml(view, scope, &links.site).as_bytes())?;
    // Over 4 GiB needs Zip64; asking for it always costs a few bytes.
    zip.start_file("occurrence.txt", options.large_file(true))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut zip);
    let positions = match scope {
        Scope::Everything => None,
        Scope::Question { positions, .. } => Some(positions),
    };
    occurrences::write(&mut out, view, &view.dataset, positions)?;
    out.flush()?;
    drop(out);
    zip.start_file("multimedia.txt", options.large_file(true))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut zip);
    multimedia::write(&mut out, view, links, positions)?;
    out.flush()?;
    drop(out);
    Ok(zip.finish()?.into_inner())
}
