//! Building a snapshot: read a source, check every record, and write the file only
//! when nothing is wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fixture::Import;
use crate::records::Collection;
use crate::snapshot::{self, Header, SnapshotError};
use crate::validate::{self, Problem};

/// A collection read from a source, with everything found on the way.
#[derive(Debug, Default)]
pub struct Checked {
    pub collection: Collection,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    /// Objects of models the catalogue does not publish, by label.
    pub skipped: BTreeMap<String, usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("the collection has {} problem(s); nothing was written", .0.len())]
    Invalid(Vec<Problem>),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
}

/// Reads Django fixture files (in order; later files may hold what earlier ones
/// refer to), puts the records in canonical order and checks them.
pub fn from_fixtures(paths: &[PathBuf]) -> Checked {
    let mut import = Import::default();
    for path in paths {
        import.read_file(path);
    }
    finish(import.collection, import.errors, import.skipped)
}

/// Canonicalises and checks a collection whose parsing found `errors`.
pub fn finish(
    mut collection: Collection,
    mut errors: Vec<Problem>,
    skipped: BTreeMap<String, usize>,
) -> Checked {
    collection.canonicalise();
    let report = validate::check(&collection);
    errors.extend(report.errors);
    Checked {
        collection,
        errors,
        warnings: report.warnings,
        skipped,
    }
}

/// Writes the snapshot of a checked collection, or nothing when it has errors.
pub fn write(checked: &Checked, out: &Path) -> Result<Header, BuildError> {
    if !checked.errors.is_empty() {
        return Err(BuildError::Invalid(checked.errors.clone()));
    }
    let now = chrono::Utc::now().timestamp_micros();
    Ok(snapshot::write(out, &checked.collection, now)?)
}
