//! A digest of every record of a collection, by id: what tells the records a
//! version added, modified and deleted apart without keeping the collection
//! before (`model::history`).

use super::dataset::Dataset;
use super::history::Changes;
use super::records::{Collection, Edited};
use super::Model;

/// How a version's changes name a change of the dataset's description (the
/// title, people, licence... that `eml.xml` says): as a list no model has,
/// with one record, 0 (`/api/v2/changes/` says `{"list": "dataset", "id": 0,
/// "change": "modified"}`).
pub const DATASET: &str = "dataset";

/// A digest of every record by id, per model: what tells inserts, updates and
/// deletes apart between two collections without keeping the old one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Digest(Vec<Vec<(i64, u64)>>);

impl Digest {
    pub fn of(c: &Collection) -> Digest {
        let hasher = ahash::RandomState::with_seeds(1, 2, 3, 4);
        Digest(
            Model::ALL
                .iter()
                .map(|&m| {
                    let mut records: Vec<(i64, u64)> = c
                        .records(m)
                        .iter()
                        .map(|r| (r.id(), r.digest(&hasher)))
                        .collect();
                    records.sort_unstable();
                    records
                })
                .collect(),
        )
    }

    /// The digest of `c`, where this is the digest of a collection that `c`
    /// was made from by replacing the records `edited` names, each id still
    /// its own: only those are hashed. `None` when one is not in both.
    pub fn edited(&self, c: &Collection, edited: &Edited) -> Option<Digest> {
        let hasher = ahash::RandomState::with_seeds(1, 2, 3, 4);
        let mut digest = self.clone();
        for (model, ids) in edited {
            let records = digest.0.get_mut(model.index())?;
            for &id in ids {
                let at = records.binary_search_by_key(&id, |&(id, _)| id).ok()?;
                records[at].1 = c.record(*model, id)?.digest(&hasher);
            }
        }
        Some(digest)
    }

    /// Each stored model's record count, by label.
    pub fn counts(&self) -> Vec<(String, u64)> {
        Model::ALL
            .iter()
            .zip(&self.0)
            .filter(|(m, _)| m.stored())
            .map(|(m, records)| (m.label().to_string(), records.len() as u64))
            .collect()
    }

    /// What changed since `old`, per model with a change (ids ascending),
    /// and the dataset's description where `described` says it changed
    /// (`(before, after)`; see [`DATASET`]).
    pub fn changes_described(&self, old: &Digest, described: (&Dataset, &Dataset)) -> Vec<Changes> {
        let mut changes = self.changes(old);
        let (before, after) = described;
        if before != after {
            let hash = |d: &Dataset| {
                let hasher = ahash::RandomState::with_seeds(1, 2, 3, 4);
                hasher.hash_one(serde_json::to_vec(d).unwrap_or_default())
            };
            changes.push(Changes {
                model: DATASET.into(),
                modified: vec![0],
                modified_digests: vec![(hash(before), hash(after))],
                ..Changes::default()
            });
        }
        changes
    }

    /// What changed since `old`, per model with a change (ids ascending).
    pub fn changes(&self, old: &Digest) -> Vec<Changes> {
        let mut out = Vec::new();
        for (i, model) in Model::ALL.iter().enumerate() {
            let new = &self.0[i];
            let old = old.0.get(i).map(Vec::as_slice).unwrap_or_default();
            let mut c = Changes {
                model: model.label().to_string(),
                ..Changes::default()
            };
            // Both are sorted by id: one merge.
            let (mut a, mut b) = (old.iter().peekable(), new.iter().peekable());
            loop {
                match (a.peek(), b.peek()) {
                    (Some(&&(o, oh)), Some(&&(n, nh))) if o == n => {
                        if oh != nh {
                            c.modified.push(n);
                            c.modified_digests.push((oh, nh));
                        }
                        a.next();
                        b.next();
                    }
                    (Some(&&(o, oh)), Some(&&(n, _))) if o < n => {
                        c.deleted.push(o);
                        c.deleted_digests.push(oh);
                        a.next();
                    }
                    (Some(_), Some(&&(n, nh))) => {
                        c.added.push(n);
                        c.added_digests.push(nh);
                        b.next();
                    }
                    (Some(&&(o, oh)), None) => {
                        c.deleted.push(o);
                        c.deleted_digests.push(oh);
                        a.next();
                    }
                    (None, Some(&&(n, nh))) => {
                        c.added.push(n);
                        c.added_digests.push(nh);
                        b.next();
                    }
                    (None, None) => break,
                }
            }
            if !(c.added.is_empty() && c.modified.is_empty() && c.deleted.is_empty()) {
                out.push(c);
            }
        }
        out
    }
}

/// Names the specimen records `changes` deleted by their catalogue numbers,
/// beside their ids, as `number` finds them (empty where it finds none).
pub fn name_deleted(changes: &mut [Changes], number: impl Fn(i64) -> Option<String>) {
    let label = Model::SpecimenRecord.label();
    for c in changes.iter_mut().filter(|c| c.model == label) {
        c.deleted_catalog_numbers = (c.deleted.iter())
            .map(|&id| number(id).unwrap_or_default())
            .collect();
    }
}

/// The catalogue number of the specimen record `id` of `c`.
pub fn catalog_number(c: &Collection, id: i64) -> Option<String> {
    let at = (c.specimen_records)
        .binary_search_by_key(&id, |r| r.id)
        .ok()?;
    Some(c.specimen_records[at].usi.clone())
}

/// Each stored model's record count, by label.
pub fn counts(c: &Collection) -> Vec<(String, u64)> {
    c.counts()
        .into_iter()
        .map(|(model, n)| (model.label().to_string(), n as u64))
        .collect()
}
