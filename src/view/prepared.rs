//! A snapshot's prepared tables: the view's columns as the view holds them,
//! written by `build` and `sync` beside the records and read back by
//! [`View::load`](super::View::load).
//!
//! Loading from records decodes a `String` for every text value of every record
//! and then takes the records apart into columns, interning each string again: at
//! a million specimens that was most of the load's CPU time. Stored columns
//! decode as a few large vectors, strings once per distinct value. The records
//! were checked when the snapshot was written; what is read here is checked
//! for its shape ([`Column::check`]), so a wrong file is refused, not rendered.

use serde::{Deserialize, Serialize};

use crate::model::dataset::Dataset;
use crate::model::digest::Digest;
use crate::model::history::History;
use crate::model::records::Collection;
use crate::model::wagtail::Wagtail;
use crate::model::Model;
use crate::snapshot::{codec, Tables};

use super::column::Column;
use super::rows;
use super::table::Table;

/// A view's parts before they are indexed and rendered.
pub(super) struct Parts {
    /// In `Model::ALL` order.
    pub tables: Vec<Table>,
    /// Each image's tags (Wagtail's image list searches them).
    pub tags: Vec<Box<[Box<str>]>>,
    /// The Wagtail site's root URL.
    pub site: String,
    /// Wagtail's page tree, sites and documents (a section of the snapshot of
    /// its own, not a prepared table).
    pub wagtail: Wagtail,
    /// What the publisher says of the dataset (a section of its own too).
    pub dataset: Dataset,
    /// The versions published so far (a section of its own too).
    pub history: History,
}

/// What a snapshot stores, borrowed to be written.
#[derive(Serialize)]
struct Stored<'a> {
    tables: Vec<Vec<&'a Column>>,
    tags: &'a [Box<[Box<str>]>],
    site: &'a str,
}

/// What a snapshot stores, read back.
#[derive(Deserialize)]
struct Read {
    tables: Vec<Vec<Column>>,
    tags: Vec<Box<[Box<str>]>>,
    site: String,
}

/// Takes a collection apart into the view's tables: references become
/// positions, derived values are computed, strings are interned.
pub(super) fn parts(mut collection: Collection) -> Parts {
    // Tables find records by binary search on ascending ids; a snapshot
    // written by `build` is in that order already (and sorting it is a pass).
    collection.canonicalise();
    let site = std::mem::take(&mut collection.site);
    let wagtail = std::mem::take(&mut collection.wagtail);
    let dataset = std::mem::take(&mut collection.dataset);
    let history = std::mem::take(&mut collection.history);
    let tags = collection
        .images
        .iter_mut()
        .map(|i| {
            std::mem::take(&mut i.tags)
                .into_iter()
                .map(Into::into)
                .collect()
        })
        .collect();
    Parts {
        tables: rows::tables(collection),
        tags,
        site,
        wagtail,
        dataset,
        history,
    }
}

/// The prepared tables of a checked collection (a [`crate::snapshot::Prepare`]).
pub fn encode(collection: &Collection) -> Vec<u8> {
    let parts = parts(collection.clone());
    stored(&parts.tables, &parts.tags, &parts.site)
}

fn stored(tables: &[Table], tags: &[Box<[Box<str>]>], site: &str) -> Vec<u8> {
    let stored = Stored {
        tables: tables.iter().map(Table::columns).collect(),
        tags,
        site,
    };
    codec::encode(&stored).expect("columns of strings and numbers always encode")
}

/// The most specimens' rows [`Preparer`] makes again in place; more, and it
/// makes every table.
const REMADE_MOST: usize = 10_000;

/// Prepares the tables of each collection `sync` publishes, keeping the last
/// it made: when the next differs from it only in some specimens' fields (an
/// edit in the admin), only their rows are made again, in place, and the
/// columns settled as building them would leave them. Anything else (records
/// added or deleted, another model changed, the site) makes every table, as
/// [`encode`] does. The bytes are [`encode`]'s either way.
#[derive(Default)]
pub struct Preparer {
    last: Option<Made>,
    /// How the last preparation made the tables.
    made: Tables,
}

/// What the preparer made last, and the digest of the collection it made it
/// of.
struct Made {
    digest: Digest,
    tables: Vec<Table>,
    tags: Vec<Box<[Box<str>]>>,
    site: String,
}

impl Preparer {
    /// The prepared tables of `collection`, whose digest is `digest`.
    pub fn prepare(&mut self, collection: &Collection, digest: &Digest) -> Vec<u8> {
        let made = self
            .last
            .take()
            .and_then(|last| last.remade(collection, digest));
        self.made = made
            .as_ref()
            .map_or(Tables::Whole, |&(_, rows)| Tables::Remade(rows));
        let made = made.map(|(made, _)| made).unwrap_or_else(|| {
            let parts = parts(collection.clone());
            Made {
                digest: digest.clone(),
                tables: parts.tables,
                tags: parts.tags,
                site: parts.site,
            }
        });
        let bytes = stored(&made.tables, &made.tags, &made.site);
        self.last = Some(made);
        bytes
    }

    /// How the last [`Preparer::prepare`] made the tables.
    pub fn made(&self) -> Tables {
        self.made
    }
}

impl crate::snapshot::Preparing for Preparer {
    fn prepare(&mut self, collection: &Collection, digest: &Digest) -> Vec<u8> {
        Preparer::prepare(self, collection, digest)
    }

    fn made(&self) -> Tables {
        self.made
    }
}

impl Made {
    /// These tables made `collection`'s in place, if it differs from what
    /// they were made of only in some specimens' fields; and how many
    /// specimens' rows were made again.
    fn remade(self, collection: &Collection, digest: &Digest) -> Option<(Made, usize)> {
        if collection.site != self.site {
            return None;
        }
        let changes = digest.changes(&self.digest);
        let specimens = Model::SpecimenRecord.label();
        let mut modified = Vec::new();
        for change in &changes {
            let only_edits = change.added.is_empty() && change.deleted.is_empty();
            if change.model != specimens || !only_edits {
                return None;
            }
            modified.extend_from_slice(&change.modified);
        }
        if modified.len() > REMADE_MOST {
            return None;
        }
        let tables = match modified.is_empty() {
            true => self.tables,
            false => rows::with_specimens_remade(self.tables, collection, &modified),
        };
        let made = Made {
            digest: digest.clone(),
            tables,
            ..self
        };
        Some((made, modified.len()))
    }
}

/// Reads prepared tables back (without Wagtail's part, which the caller reads
/// from its own section), refusing any that could not have been written by
/// [`encode`]: a table per model, a column per field, each of its field's type
/// and length, positions within the tables they point into, ids ascending.
pub(super) fn decode(bytes: &[u8]) -> Result<Parts, String> {
    let read: Read = codec::decode(bytes)?;
    if read.tables.len() != Model::ALL.len() {
        return Err(format!(
            "{} prepared tables, for {} models",
            read.tables.len(),
            Model::ALL.len()
        ));
    }
    let lens: Vec<usize> = read
        .tables
        .iter()
        .map(|columns| columns.first().map_or(0, Column::len))
        .collect();
    let mut tables = Vec::with_capacity(read.tables.len());
    for (model, columns) in Model::ALL.into_iter().zip(read.tables) {
        let fields = model.fields();
        if columns.len() != fields.len() {
            return Err(format!(
                "{}: {} columns for {} fields",
                model.class_name(),
                columns.len(),
                fields.len()
            ));
        }
        let rows = lens[model.index()];
        for (column, field) in columns.iter().zip(fields) {
            column
                .check(field.ty, field.nullable, rows, |m| lens[m.index()])
                .map_err(|e| format!("{}.{}: {e}", model.class_name(), field.name))?;
        }
        let table = Table::from_columns(model, columns);
        let ascending = (1..table.len()).all(|p| table.id(p as u32 - 1) < table.id(p as u32));
        if !ascending {
            return Err(format!("{}: ids not ascending", model.class_name()));
        }
        tables.push(table);
    }
    let images = tables[Model::Image.index()].len();
    if read.tags.len() != images {
        return Err(format!("tags for {} images, of {images}", read.tags.len()));
    }
    Ok(Parts {
        tables,
        tags: read.tags,
        site: read.site,
        wagtail: Wagtail::default(),
        dataset: Dataset::default(),
        history: History::default(),
    })
}
