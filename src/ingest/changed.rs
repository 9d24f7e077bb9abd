//! Reading only what changed since the last read: a `sync` tick once the change
//! marker moved.
//!
//! The collection's own models (taxonomy, places, trips, people, specimens) are
//! read row by row: the rows whose `date_modified` is at or after the newest the
//! last read saw, or whose key is above its largest (Django stamps every save and
//! gives every insert a new key), with their links; the table's keys only when its
//! count says rows were deleted (or put back: a row restored with its old key and
//! stamp, which neither condition reads, makes the tick read everything); a link table that moved, whole. When anything
//! else moved (images, pages, tags, Wagtail's tables, the typed image tables of
//! before the service's 0.16), the tick reads everything, as it does every
//! `--full-every`.
//!
//! The rows are typed by the fixture import, as a whole read types them, and
//! replace their records in the last read's collection, so both reads give the
//! same collection (`tests/database.rs` checks it on both engines).

use ahash::AHashSet;
use serde_json::Value;

use super::database::{self, DbError, Link, Marker, Owners, Present, Rows};
use super::database_url::Source;
use super::fixture::Import;
use super::legacy;
use crate::model::records::{Collection, LINK_FIELDS};
use crate::model::validate::Problem;
use crate::model::Model;

/// What changed since a marker; [`Delta::apply`] makes the collection of now.
pub struct Delta {
    /// The marker read with the rows: what the next read starts from.
    pub marker: Marker,
    /// The rows read, for the log.
    pub rows: usize,
    /// The records read again (added or modified), of the moved models.
    fresh: Collection,
    /// The models whose table moved, each with its keys when rows may have
    /// been deleted.
    moved: Vec<(Model, Option<AHashSet<i64>>)>,
    /// The link tables read whole.
    links: Vec<WholeLinks>,
    /// What typing the rows found.
    errors: Vec<Problem>,
}

/// A link table read whole: every list of its field is replaced.
struct WholeLinks {
    model: Model,
    link: Link,
    owners: Owners,
}

/// The most deleted rows of a table whose links are checked by their keys;
/// more are read by a whole read.
const MAX_GONE: usize = 10_000;

/// The most changed rows whose links are read by their keys; more, by the
/// rows' condition.
const MAX_KEYED: usize = 10_000;

/// Whether a model's records are read row by row: each is one row of its
/// table (and its links), typed alone.
fn row_by_row(model: Model) -> bool {
    model.stored()
        && !matches!(
            model,
            Model::Image | Model::Page | Model::Rendition | Model::SpeciesPage
        )
}

/// Reads what changed since `old`, the marker read with `previous`, in one
/// consistent read; `None` when something moved that only a whole read reads.
pub fn read(
    source: &Source,
    old: &Marker,
    previous: &Collection,
) -> Result<Option<Delta>, DbError> {
    let mut delta = None;
    database::in_one_read(source, &mut |rows, at| {
        delta = read_in(rows, at, old, previous)?;
        Ok(())
    })?;
    Ok(delta)
}

/// A moved table's part of the read.
struct Planned<'p> {
    present: &'p Present,
    model: Model,
    /// Whether the table itself moved (else only links did).
    rows: bool,
    /// Per link table, whether it moved.
    links: Vec<bool>,
}

fn read_in(
    rows: &mut dyn Rows,
    at: &str,
    old: &Marker,
    previous: &Collection,
) -> Result<Option<Delta>, DbError> {
    let present = database::present_tables(rows, at)?;
    let marker = database::marker_of(rows, at, &present)?;
    if !marker.same_tables(old) {
        return Ok(None);
    }
    // What to read, before reading: a table only a whole read reads stops here.
    let mut plan = Vec::new();
    for p in &present {
        // The typed image tables of before 0.16 also set the species' featured images.
        if legacy::part(p.table.label).is_some() {
            return Ok(None);
        }
        let moved = marker.moved(old, &p.table.name);
        let links: Vec<bool> = p
            .links
            .iter()
            .map(|l| marker.moved(old, &l.table))
            .collect();
        if !moved && !links.contains(&true) {
            continue;
        }
        let Some(model) = Model::from_label(p.table.label).filter(|&m| row_by_row(m)) else {
            return Ok(None);
        };
        let known = |link: &Link| LINK_FIELDS.contains(&(model, link.field));
        if p.links.iter().any(|link| !known(link)) {
            return Ok(None);
        }
        plan.push(Planned {
            present: p,
            model,
            rows: moved,
            links,
        });
    }
    let mut delta = Delta {
        marker: Marker::default(),
        rows: 0,
        fresh: Collection::default(),
        moved: Vec::new(),
        links: Vec::new(),
        errors: Vec::new(),
    };
    let mut import = Import::default();
    for planned in plan {
        let Planned {
            present: p,
            model,
            rows: table_moved,
            links: links_moved,
        } = planned;
        let filter = table_moved.then(|| changed_rows(p, old)).flatten();
        let sql = p.select(rows, filter.as_deref());
        // The changed rows are read before their links, which are then read
        // by the rows' keys: by the rows' condition, the table was read twice.
        // More rows than that are read again after their links, as they come.
        let held = match &filter {
            Some(_) => {
                let mut held: Vec<Vec<Option<String>>> = Vec::new();
                let mut more = false;
                rows.each(&sql, &mut |values| match held.len() < MAX_KEYED {
                    true => held.push(values.collect()),
                    false => more = true,
                })
                .map_err(DbError::reading(at, &p.table.name))?;
                Some(held).filter(|_| !more)
            }
            None => None,
        };
        let keyed = held.as_ref().map(|held| {
            let pk = p.columns.iter().position(|(_, field, _)| *field == "id");
            let keys = held.iter().filter_map(|row| row.get(pk?)?.clone());
            let keys: Vec<String> = keys.filter(|k| k.parse::<i64>().is_ok()).collect();
            match keys.is_empty() {
                true => "IN (NULL)".to_string(),
                false => format!("IN ({})", keys.join(", ")),
            }
        });
        let mut owned: Vec<(&Link, Owners)> = Vec::new();
        let mut whole: Vec<&Link> = Vec::new();
        for (link, moved) in p.links.iter().zip(links_moved) {
            if moved {
                whole.push(link);
                let owners = link.read(rows, at, None)?;
                delta.links.push(WholeLinks {
                    model,
                    link: link.clone(),
                    owners,
                });
            } else if table_moved {
                // The links of the rows read.
                let owners = keyed.clone().or_else(|| {
                    filter.as_ref().map(|f| {
                        format!(
                            "IN (SELECT \"{}\" FROM \"{}\" WHERE {f})",
                            p.table.pk, p.table.name
                        )
                    })
                });
                owned.push((link, link.read(rows, at, owners.as_deref())?));
            }
        }
        if !table_moved {
            continue;
        }
        let mut ids = Vec::new();
        let mut typed = |values: &mut dyn Iterator<Item = Option<String>>| {
            let owners = owned.iter_mut().map(|(l, o)| (l.field, o));
            let (Some(pk), mut fields) = p.fields(values, owners) else {
                return;
            };
            // A link table read whole sets its lists when the delta is applied.
            for link in &whole {
                fields.insert(link.field.to_string(), Value::Array(Vec::new()));
            }
            import.push(p.table.label, pk, fields);
            ids.push(pk);
        };
        match held {
            Some(held) => held.into_iter().for_each(|row| typed(&mut row.into_iter())),
            None => rows
                .each(&sql, &mut typed)
                .map_err(DbError::reading(at, &p.table.name))?,
        }
        delta.rows += ids.len();
        let keys = match filter {
            // Every row was read: those not read are gone, and links left
            // without a row are said as a whole read says them.
            None => {
                for (link, left) in owned {
                    delta.errors.extend(link.orphans(left));
                }
                Some(ids.into_iter().collect())
            }
            Some(_) => {
                let before = previous.ids(model);
                let new = ids.iter().filter(|id| before.binary_search(id).is_err());
                let count = |m: &Marker| m.get(&p.table.name).and_then(|m| m.count);
                let expected = count(old).map(|n| n + new.count() as i64);
                match expected.is_some() && expected == count(&marker) {
                    true => None,
                    false => {
                        let keys = keys(rows, at, p)?;
                        // A row put back (a restore: its old key, its old
                        // stamp) is no row the condition reads: a whole
                        // read publishes it now, whatever its date.
                        let read: AHashSet<i64> = ids.iter().copied().collect();
                        let back = (keys.iter())
                            .any(|k| before.binary_search(k).is_err() && !read.contains(k));
                        if back {
                            return Ok(None);
                        }
                        let gone: Vec<String> = before
                            .iter()
                            .filter(|id| !keys.contains(id))
                            .map(i64::to_string)
                            .collect();
                        if gone.len() > MAX_GONE {
                            return Ok(None);
                        }
                        // Links left behind by rows deleted without them, as a
                        // whole read finds them.
                        for (link, _) in owned.iter().filter(|_| !gone.is_empty()) {
                            let owners = format!("IN ({})", gone.join(", "));
                            let left = link.read(rows, at, Some(&owners))?;
                            delta.errors.extend(link.orphans(left));
                        }
                        Some(keys)
                    }
                }
            }
        };
        delta.moved.push((model, keys));
    }
    let imported = import.finish();
    delta.fresh = imported.collection;
    delta.errors.extend(imported.errors);
    delta.marker = marker;
    Ok(Some(delta))
}

/// The condition of the rows that changed since `old`, or `None` for every
/// row (a table without `date_modified`, or that was empty).
fn changed_rows(p: &Present, old: &Marker) -> Option<String> {
    let mark = old.get(&p.table.name)?;
    let (true, Some(newest), Some(max_key)) = (p.stamped(), mark.newest, mark.max_key) else {
        return None;
    };
    Some(format!(
        "\"date_modified\" >= '{}' OR \"{}\" > {max_key}",
        newest.replace('\'', "''"),
        p.table.pk
    ))
}

/// Every key of the table.
fn keys(rows: &mut dyn Rows, at: &str, p: &Present) -> Result<AHashSet<i64>, DbError> {
    let mut keys = AHashSet::new();
    let sql = format!(
        "SELECT {} FROM \"{}\"",
        rows.as_text(p.table.pk),
        p.table.name
    );
    rows.each(&sql, &mut |values| {
        if let Some(Some(key)) = values.next() {
            keys.extend(key.parse::<i64>().ok());
        }
    })
    .map_err(DbError::reading(at, &p.table.name))?;
    Ok(keys)
}

/// What [`Delta::apply`] made of a collection.
pub struct Applied {
    /// What the rows' typing and the links found wrong.
    pub errors: Vec<Problem>,
    /// The records replaced in place, by model, when that is all that
    /// changed (no record added or deleted, no link table read whole): what
    /// lets a tick check and digest only those.
    pub edited: Option<Vec<(Model, Vec<i64>)>>,
    /// The specimen records dropped, each id with its catalogue number,
    /// ascending: what a version's changes name them by once they are gone.
    pub deleted_catalog_numbers: Vec<(i64, String)>,
}

impl Delta {
    /// Makes `c`, the collection read with the delta's starting marker, the
    /// collection of now (not yet in canonical order).
    pub fn apply(mut self, c: &mut Collection) -> Applied {
        let deleted_catalog_numbers = (self.moved.iter())
            .filter(|(model, _)| *model == Model::SpecimenRecord)
            .filter_map(|(_, keys)| keys.as_ref())
            .flat_map(|keys| {
                (c.specimen_records.iter())
                    .filter(|r| !keys.contains(&r.id))
                    .map(|r| (r.id, r.usi.clone()))
            })
            .collect();
        let mut edited = Some(Vec::new());
        for (model, keys) in &self.moved {
            let spliced = c.splice(*model, &mut self.fresh, keys.as_ref());
            edited = edited.filter(|_| !spliced.resized).map(|mut edited| {
                edited.push((*model, spliced.replaced));
                edited
            });
        }
        if !self.links.is_empty() {
            edited = None;
        }
        let mut errors = self.errors;
        for WholeLinks {
            model,
            link,
            mut owners,
        } in self.links
        {
            for (id, list) in c.links_mut(model, link.field).into_iter().flatten() {
                *list = owners.remove(&id).unwrap_or_default();
            }
            // Link rows whose owner is not there, as a whole read says them.
            errors.extend(link.orphans(owners));
        }
        Applied {
            errors,
            edited,
            deleted_catalog_numbers,
        }
    }
}
