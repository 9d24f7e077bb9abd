//! Getting a collection in: read Django fixtures or the existing service's database,
//! check every record, and write a snapshot only when nothing is wrong; keep a
//! snapshot in step with a database ([`publisher`]); make synthetic collections
//! for tests and benchmarks ([`synthetic`]); generalise sensitive places
//! ([`sensitive`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::model::records::{Collection, Edited};
use crate::model::validate::{self, Problem};
use crate::model::Model;
use crate::snapshot::{self, Header, SnapshotError};

pub mod changed;
pub mod database;
pub mod database_url;
pub mod fixture;
pub mod held;
pub mod legacy;
pub mod publisher;
pub mod sensitive;
pub mod synthetic;

use fixture::Import;

/// A collection read from a source, with everything found on the way.
#[derive(Debug, Default)]
pub struct Checked {
    pub collection: Collection,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    /// Objects of models the catalogue does not publish, by label.
    pub skipped: BTreeMap<String, usize>,
}

impl Checked {
    /// Whether no record of any model was read: the input was a dump of other apps
    /// (or of none), and a snapshot of it would publish an empty collection.
    pub fn is_empty(&self) -> bool {
        self.collection.counts().iter().all(|&(_, n)| n == 0)
    }
}

/// The Django apps whose models the catalogue reads, the collection's first, then
/// the images' and pages', and the two the images' tags come from: what to dump.
pub fn apps() -> Vec<&'static str> {
    let mut apps: Vec<&'static str> = Vec::new();
    for model in Model::ALL {
        let app = model.label().split('.').next().unwrap_or_default();
        if !apps.contains(&app) {
            apps.push(app);
        }
    }
    apps.sort_by_key(|app| !matches!(*app, "taxonomy" | "geography" | "specimens"));
    apps.extend(["taggit", "contenttypes"]);
    apps
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
    let imported = import.finish();
    check(imported.collection, imported.errors, imported.skipped)
}

/// Canonicalises and checks a collection whose parsing found `errors`.
pub fn check(
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

/// [`check`], of a collection made from one whose errors were all of the
/// records `edited` names, by replacing those records (a `sync` tick that
/// read only edits, the records it held back among them): where
/// [`validate::edit_problems`] can tell, only those records are checked and
/// no warnings are gathered (`sync` does not show them).
pub fn check_edits(
    mut collection: Collection,
    errors: Vec<Problem>,
    edited: Option<&Edited>,
) -> Checked {
    if let Some(edited) = edited.filter(|_| errors.is_empty()) {
        collection.canonicalise();
        if let Some(errors) = validate::edit_problems(&collection, edited) {
            debug_assert_eq!(errors.len(), validate::check(&collection).errors.len());
            return Checked {
                collection,
                errors,
                ..Checked::default()
            };
        }
    }
    check(collection, errors, Default::default())
}

/// Writes the snapshot of a checked collection with the tables `prepare` makes
/// of it, or nothing when it has errors.
pub fn write_snapshot(
    checked: &Checked,
    out: &Path,
    prepare: snapshot::Prepare,
) -> Result<Header, BuildError> {
    if !checked.errors.is_empty() {
        return Err(BuildError::Invalid(checked.errors.clone()));
    }
    let now = chrono::Utc::now().timestamp_micros();
    let prepared = prepare(&checked.collection);
    Ok(snapshot::write(out, &checked.collection, now, &prepared)?)
}
