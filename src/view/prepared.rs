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

use std::sync::Arc;

use serde::Deserialize;

use crate::model::dataset::Dataset;
use crate::model::digest::Digest;
use crate::model::held::Holding;
use crate::model::history::History;
use crate::model::records::Collection;
use crate::model::wagtail::Wagtail;
use crate::model::Model;
use crate::snapshot::{codec, Part, Piece, Pieces, SnapshotError, Tables};

use super::column::Column;
use super::rows;
use super::table::Table;

/// A view's parts before they are indexed and rendered.
pub(super) struct Parts {
    /// In `Model::ALL` order.
    pub tables: Vec<Table>,
    /// Each table's columns' hashes, as the snapshot's pieces hold them
    /// (empty for a snapshot before version 9, or tables made here): what a
    /// reload compares to take a column from the served view unread.
    pub hashes: Vec<Vec<[u8; 32]>>,
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
    /// The records held back (a section of its own too).
    pub held: Vec<Holding>,
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
    let held = std::mem::take(&mut collection.held);
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
        hashes: Vec::new(),
        tags,
        site,
        wagtail,
        dataset,
        history,
        held,
    }
}

/// The prepared tables of a checked collection (a [`crate::snapshot::Prepare`]).
pub fn encode(collection: &Collection) -> Vec<Piece> {
    let parts = parts(collection.clone());
    pieces(&parts.tables, &parts.tags, &parts.site, None)
}

/// The pieces of the tables made last, with which columns of one table
/// were made again since.
struct Reused<'a> {
    pieces: &'a [Piece],
    model: Model,
    changed: &'a [bool],
}

/// The prepared tables' pieces: the count of tables; for each table, the
/// count of its columns, then each column; then the images' tags and the
/// site. One after another they are the bincode of the tables, tags and site
/// as a struct; cut so, a reader takes each column without the others
/// ([`decode_pieces`]). Where `reused` holds the pieces of tables these were
/// remade from, each column not marked changed, and the tags and site, keep
/// their piece (encoded and hashed already).
fn pieces(
    tables: &[Table],
    tags: &[Box<[Box<str>]>],
    site: &str,
    reused: Option<&Reused>,
) -> Vec<Piece> {
    let encoded = |bytes: Result<Vec<u8>, String>| {
        Piece::new(
            Part::Prepared,
            bytes.expect("columns of strings and numbers always encode"),
        )
    };
    let mut pieces = vec![encoded(codec::encode(&(tables.len() as u64)))];
    for table in tables {
        let columns = table.columns();
        pieces.push(encoded(codec::encode(&(columns.len() as u64))));
        for (f, column) in columns.into_iter().enumerate() {
            let keep = reused
                .filter(|k| k.model != table.model || !k.changed[f])
                .and_then(|k| k.pieces.get(pieces.len()));
            pieces.push(match keep {
                Some(piece) => piece.clone(),
                None => encoded(codec::encode(column)),
            });
        }
    }
    pieces.push(match reused.and_then(|k| k.pieces.last()) {
        Some(piece) => piece.clone(),
        None => {
            let mut bytes = codec::encode(&tags);
            if let Ok(bytes) = &mut bytes {
                codec::encode_into(&site, bytes).expect("a string always encodes");
            }
            encoded(bytes)
        }
    });
    pieces
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
    /// The tables' pieces.
    pieces: Vec<Piece>,
}

impl Preparer {
    /// The prepared tables of `collection`, whose digest is `digest`.
    pub fn prepare(&mut self, collection: &Collection, digest: &Digest) -> Vec<Piece> {
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
                pieces: pieces(&parts.tables, &parts.tags, &parts.site, None),
                tables: parts.tables,
                tags: parts.tags,
                site: parts.site,
            }
        });
        let pieces = made.pieces.clone();
        self.last = Some(made);
        pieces
    }

    /// How the last [`Preparer::prepare`] made the tables.
    pub fn made(&self) -> Tables {
        self.made
    }
}

impl crate::snapshot::Preparing for Preparer {
    fn prepare(&mut self, collection: &Collection, digest: &Digest) -> Vec<Piece> {
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
        let (tables, pieces) = match modified.is_empty() {
            true => (self.tables, self.pieces),
            false => {
                let (tables, changed) =
                    rows::with_specimens_remade(self.tables, collection, &modified);
                let reused = Reused {
                    pieces: &self.pieces,
                    model: Model::SpecimenRecord,
                    changed: &changed,
                };
                let pieces = pieces(&tables, &self.tags, &self.site, Some(&reused));
                (tables, pieces)
            }
        };
        let made = Made {
            digest: digest.clone(),
            tables,
            pieces,
            ..self
        };
        Some((made, modified.len()))
    }
}

/// Reads prepared tables back (without Wagtail's part, which the caller reads
/// from its own section), refusing any that could not have been written by
/// [`encode`]: see [`checked`].
pub(super) fn decode(bytes: &[u8]) -> Result<Parts, String> {
    let read: Read = codec::decode(bytes)?;
    let tables = read
        .tables
        .into_iter()
        .map(|columns| columns.into_iter().map(Arc::new).collect())
        .collect();
    checked(tables, read.tags, read.site, Vec::new(), None)
}

/// The tables a reload replaces, with their columns' hashes.
#[derive(Clone, Copy)]
pub(super) struct Served<'a> {
    pub tables: &'a [Table],
    pub hashes: &'a [Vec<[u8; 32]>],
}

/// Reads the prepared tables of a version 9 snapshot piece by piece (as
/// [`pieces`] cut them), taking from `served` (the tables a reload replaces,
/// with their columns' hashes) every column whose hash is the one held
/// there, unread; the others are read, checked against their hash and
/// decoded on two cores. Says the bytes read.
pub(super) fn decode_pieces(
    pieces: &Pieces,
    served: Option<Served>,
) -> Result<(Parts, usize), SnapshotError> {
    let undecodable = |reason: String| SnapshotError::Decode {
        path: pieces.path().to_path_buf(),
        reason,
    };
    let mut entries = pieces.contents.pieces(Part::Prepared).iter();
    let count = |entries: &mut std::slice::Iter<'_, _>, what: &str| {
        let entry = entries
            .next()
            .ok_or_else(|| undecodable(format!("the prepared tables end before {what}")))?;
        let bytes = pieces.read(std::slice::from_ref(entry))?;
        codec::decode::<u64>(&bytes)
            .map(|n| n as usize)
            .map_err(|e| undecodable(format!("{what}: {e}")))
    };
    let tables = count(&mut entries, "the count of tables")?;
    if tables != Model::ALL.len() {
        return Err(undecodable(format!(
            "{tables} prepared tables, for {} models",
            Model::ALL.len()
        )));
    }
    let mut columns: Vec<Vec<Option<Arc<Column>>>> = Vec::with_capacity(tables);
    let mut hashes = Vec::with_capacity(tables);
    let mut wanted = Vec::new();
    for t in 0..tables {
        let fields = count(&mut entries, "a count of columns")?;
        let (mut table, mut held) = (Vec::new(), Vec::new());
        for f in 0..fields.min(entries.len()) {
            let entry = entries.next().expect("counted");
            let same = served.and_then(|served| {
                let hash = served.hashes.get(t)?.get(f)?;
                (*hash == entry.hash).then(|| served.tables[t].shared_column(f))
            });
            if same.is_none() {
                wanted.push((t, f, entry));
            }
            table.push(same);
            held.push(entry.hash);
        }
        columns.push(table);
        hashes.push(held);
    }
    let rest: Vec<_> = entries.cloned().collect();
    let [tail] = &rest[..] else {
        return Err(undecodable(format!(
            "the prepared tables end with {} pieces, not the tags and site's one",
            rest.len()
        )));
    };
    let bytes = pieces.read(std::slice::from_ref(tail))?;
    let (tags, site): (Vec<Box<[Box<str>]>>, String) =
        codec::decode(&bytes).map_err(|e| undecodable(format!("the tags and site: {e}")))?;
    // The columns to read, on two cores: each read, checked and decoded.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let read: Vec<std::sync::OnceLock<Result<Column, SnapshotError>>> =
        wanted.iter().map(|_| std::sync::OnceLock::new()).collect();
    std::thread::scope(|scope| {
        let work = || loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&(t, f, entry)) = wanted.get(i) else {
                break;
            };
            let column = pieces.read(std::slice::from_ref(entry)).and_then(|bytes| {
                codec::decode(&bytes).map_err(|e| {
                    undecodable(format!("{}'s column {f}: {e}", Model::ALL[t].class_name()))
                })
            });
            let _ = read[i].set(column);
        };
        scope.spawn(work);
        work();
    });
    let mut bytes_read = bytes.len();
    for ((t, f, entry), column) in wanted.iter().zip(read) {
        let column = column.into_inner().expect("every column read")?;
        bytes_read += entry.len as usize;
        columns[*t][*f] = Some(Arc::new(column));
    }
    let columns = columns
        .into_iter()
        .map(|table| {
            table
                .into_iter()
                .map(|c| c.expect("read or kept"))
                .collect()
        })
        .collect();
    let parts = checked(columns, tags, site, hashes, served).map_err(undecodable)?;
    Ok((parts, bytes_read))
}

/// Prepared tables, refused unless [`encode`] could have written them: a
/// table per model, a column per field, each of its field's type and length,
/// positions within the tables they point into, ids ascending. A column
/// taken from `served` is checked there already, when every table is as
/// long as there.
fn checked(
    tables: Vec<Vec<Arc<Column>>>,
    tags: Vec<Box<[Box<str>]>>,
    site: String,
    hashes: Vec<Vec<[u8; 32]>>,
    served: Option<Served>,
) -> Result<Parts, String> {
    if tables.len() != Model::ALL.len() {
        return Err(format!(
            "{} prepared tables, for {} models",
            tables.len(),
            Model::ALL.len()
        ));
    }
    let lens: Vec<usize> = tables
        .iter()
        .map(|columns| columns.first().map_or(0, |c| c.len()))
        .collect();
    let served = served.filter(|s| s.tables.iter().map(Table::len).eq(lens.iter().copied()));
    let taken = |t: usize, f: usize, column: &Arc<Column>| {
        served.is_some_and(|s| Arc::ptr_eq(column, &s.tables[t].shared_column(f)))
    };
    let mut made = Vec::with_capacity(tables.len());
    for (model, columns) in Model::ALL.into_iter().zip(tables) {
        let fields = model.fields();
        if columns.len() != fields.len() {
            return Err(format!(
                "{}: {} columns for {} fields",
                model.class_name(),
                columns.len(),
                fields.len()
            ));
        }
        let (t, rows) = (model.index(), lens[model.index()]);
        for (f, (column, field)) in columns.iter().zip(fields).enumerate() {
            if taken(t, f, column) {
                continue;
            }
            column
                .check(field.ty, field.nullable, rows, |m| lens[m.index()])
                .map_err(|e| format!("{}.{}: {e}", model.class_name(), field.name))?;
        }
        let ids_taken = columns.first().is_some_and(|ids| taken(t, 0, ids));
        let table = Table::of_shared(model, columns.into());
        let ascending =
            ids_taken || (1..table.len()).all(|p| table.id(p as u32 - 1) < table.id(p as u32));
        if !ascending {
            return Err(format!("{}: ids not ascending", model.class_name()));
        }
        made.push(table);
    }
    let images = made[Model::Image.index()].len();
    if tags.len() != images {
        return Err(format!("tags for {} images, of {images}", tags.len()));
    }
    Ok(Parts {
        tables: made,
        hashes,
        tags,
        site,
        wagtail: Wagtail::default(),
        dataset: Dataset::default(),
        history: History::default(),
        held: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::records::Country;

    /// The pieces one after another are the tables, tags and site as one
    /// struct (what versions 5 to 8 stored, and [`decode`] reads).
    #[test]
    fn the_pieces_joined_are_the_tables_of_a_whole() {
        let collection = Collection {
            countries: (1..=3)
                .map(|id| Country::numbered(id, format!("Country {id}")))
                .collect(),
            site: "http://localhost".into(),
            ..Default::default()
        };
        let pieces = encode(&collection);
        let columns: usize = Model::ALL.iter().map(|m| m.fields().len()).sum();
        assert_eq!(pieces.len(), 1 + Model::ALL.len() + columns + 1);
        let joined: Vec<u8> = pieces.iter().flat_map(|p| p.bytes().to_vec()).collect();
        let parts = decode(&joined).unwrap();
        let made = super::parts(collection);
        assert_eq!(parts.site, made.site);
        assert_eq!(parts.tables.len(), made.tables.len());
        for (read, made) in parts.tables.iter().zip(&made.tables) {
            assert!(read.columns() == made.columns(), "{:?}", made.model);
        }
    }
}
