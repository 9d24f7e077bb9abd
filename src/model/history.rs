//! Versions: what changed from one published snapshot to the next. A snapshot
//! carries its history (the last [`KEPT`] versions, its own last): each
//! version's number, when it was published, its record counts and, per model,
//! the ids added, modified and deleted (`digest` tells them apart). `sync` and
//! `build --previous` make it from the snapshot before; `build` alone starts at
//! version 1.
//!
//! A snapshot's own version has no checksum or time in its history (they would
//! change the payload they describe): its header holds them, and a view fills
//! them in when it loads ([`History::completed`]). So two builds of the same
//! collection, with the same history, still have one checksum.

use serde::{Deserialize, Serialize};

use super::Model;

/// How many versions a snapshot keeps. Each costs its counts (a few dozen
/// bytes) and, for each id it names, 16 bytes (the id and the record's digest;
/// 24 for a modified record's two), in the file and in memory.
pub const KEPT: usize = 1000;

/// The versions a snapshot knows, oldest first; the last is its own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub versions: Vec<Version>,
    /// The UUID (version 4) eml.xml's `packageId` names the dataset by,
    /// where the dataset file's `id` is not one: made once, from the first
    /// version's description, and kept from the second version on
    /// (`model::package_id`). Empty before.
    pub package: String,
    /// The versions that began a major release (a new DOI), ascending:
    /// every other version is a minor step ([`History::release`]).
    pub majors: Vec<u64>,
}

/// A version as GBIF's EML parser reads it from a `packageId`
/// (`.../v<major>.<minor>`): version 1 is 1.0, each next version a minor
/// step, a new DOI a major one (2.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub major: u64,
    pub minor: u64,
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// One published version.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    pub number: u64,
    /// The SHA-256 of the snapshot that published it (zeros for a snapshot's
    /// own version, until loaded).
    pub checksum: [u8; 32],
    /// Microseconds since the Unix epoch (0 for a snapshot's own, until loaded).
    pub published_at: i64,
    /// Each stored model's record count, by label, in `Model::ALL` order.
    pub counts: Vec<(String, u64)>,
    /// What changed since the version before, per model with a change.
    pub changes: Vec<Changes>,
}

/// The ids of one model that a version added, modified and deleted, ascending,
/// with each record's digest (the new one of an added record, the old and the
/// new of a modified one, the old of a deleted one), so that what changed
/// across several versions is exact: a record deleted and added back the same
/// did not change.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// The model's label (`specimens.specimenrecord`).
    pub model: String,
    pub added: Vec<i64>,
    pub modified: Vec<i64>,
    pub deleted: Vec<i64>,
    /// Beside `added`: each record's digest.
    pub added_digests: Vec<u64>,
    /// Beside `modified`: each record's digest before and after.
    pub modified_digests: Vec<(u64, u64)>,
    /// Beside `deleted`: each record's last digest.
    pub deleted_digests: Vec<u64>,
    /// Beside `deleted`, of specimen records: each one's catalogue number
    /// (USI) when it was deleted, so the changes can name its occurrenceID
    /// and its short link can say it is gone. Empty for other models, and for
    /// versions published before snapshot format 11 kept them.
    pub deleted_catalog_numbers: Vec<String>,
}

/// `specimens.specimenrecord +1 ~2 -1, geography.gps ~1`, or `nothing`.
pub fn summary(changes: &[Changes]) -> String {
    if changes.is_empty() {
        return "nothing".into();
    }
    changes
        .iter()
        .map(|c| {
            format!(
                "{} +{} ~{} -{}",
                c.model,
                c.added.len(),
                c.modified.len(),
                c.deleted.len()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl History {
    /// The first version, of a collection with these counts. A snapshot
    /// built without a previous one holds no history: it is version 1, and
    /// the view says so ([`History::completed`]).
    pub fn first(counts: Vec<(String, u64)>) -> History {
        History {
            versions: vec![Version {
                number: 1,
                counts,
                ..Version::default()
            }],
            ..History::default()
        }
    }

    /// The history after this one (the snapshot at `checksum`, published at
    /// `published_at`) with a collection of `counts` published next, `changes`
    /// from it: the last [`KEPT`] versions.
    pub fn next(
        &self,
        checksum: [u8; 32],
        published_at: i64,
        counts: Vec<(String, u64)>,
        changes: Vec<Changes>,
    ) -> History {
        let mut versions = self.completed(checksum, published_at).versions;
        let number = versions.last().map_or(1, |v| v.number + 1);
        versions.push(Version {
            number,
            counts,
            changes,
            ..Version::default()
        });
        let over = versions.len().saturating_sub(KEPT);
        versions.drain(..over);
        History {
            versions,
            package: self.package.clone(),
            majors: self.majors.clone(),
        }
    }

    /// The release of version `number`: a major step at each of
    /// [`History::majors`] (the first version is 1.0), a minor step at every
    /// other version.
    pub fn release(&self, number: u64) -> Release {
        let begun = self.majors.iter().filter(|m| **m <= number);
        let (major, since) = begun.fold((1, 1), |(major, _), m| (major + 1, *m));
        Release {
            major,
            minor: number.saturating_sub(since),
        }
    }

    /// This history with its own (last) version's checksum and time filled in
    /// from the snapshot's header.
    pub fn completed(&self, checksum: [u8; 32], published_at: i64) -> History {
        let mut h = self.clone();
        if let Some(last) = h.versions.last_mut() {
            if last.published_at == 0 {
                (last.checksum, last.published_at) = (checksum, published_at);
            }
        }
        h
    }

    /// The current version's number (1 for a snapshot without a history).
    pub fn current(&self) -> u64 {
        self.versions.last().map_or(1, |v| v.number)
    }

    /// The oldest version kept.
    pub fn oldest(&self) -> u64 {
        self.versions.first().map_or(1, |v| v.number)
    }

    /// The version `number`, if kept.
    pub fn version(&self, number: u64) -> Option<&Version> {
        self.versions.iter().find(|v| v.number == number)
    }

    /// The newest version published at or before `at` (microseconds).
    pub fn at(&self, at: i64) -> Option<u64> {
        self.versions
            .iter()
            .rev()
            .find(|v| v.published_at <= at)
            .map(|v| v.number)
    }

    /// The version that deleted `id` of `model` and after which it was not
    /// added again, if the history holds it.
    pub fn deleted_in(&self, model: Model, id: i64) -> Option<&Version> {
        let label = model.label();
        for v in self.versions.iter().rev() {
            let Some(c) = v.changes.iter().find(|c| c.model == label) else {
                continue;
            };
            if c.added.binary_search(&id).is_ok() || c.modified.binary_search(&id).is_ok() {
                return None;
            }
            if c.deleted.binary_search(&id).is_ok() {
                return Some(v);
            }
        }
        None
    }

    /// The specimen record deleted in a version the history holds, and not
    /// added back, whose catalogue number `matches`: its id and that version
    /// (the newest, where several were).
    pub fn deleted_specimen(&self, matches: impl Fn(&str) -> bool) -> Option<(i64, &Version)> {
        let label = Model::SpecimenRecord.label();
        for v in self.versions.iter().rev() {
            let Some(c) = v.changes.iter().find(|c| c.model == label) else {
                continue;
            };
            let found = (c.deleted.iter().zip(&c.deleted_catalog_numbers))
                .find(|(_, number)| !number.is_empty() && matches(number));
            if let Some((&id, _)) = found {
                if self.deleted_in(Model::SpecimenRecord, id).is_some() {
                    return Some((id, v));
                }
            }
        }
        None
    }

    /// What changed after version `since` up to the current one: per model,
    /// the ids added, modified and deleted, net (a record's state then against
    /// its state now: added then deleted is nothing, deleted and added back the
    /// same is nothing, otherwise modified). `None` when `since` is older than
    /// the history kept.
    pub fn since(&self, since: u64) -> Option<Vec<Changes>> {
        if since + 1 < self.oldest() && since < self.current() {
            return None;
        }
        /// A record's digest then (`None`: absent) and now.
        type Span = (Option<u64>, Option<u64>);
        let mut by_model: Vec<(String, std::collections::BTreeMap<i64, Span>)> = Vec::new();
        // The catalogue numbers of specimen records deleted since.
        let mut numbers = std::collections::BTreeMap::new();
        for v in self.versions.iter().filter(|v| v.number > since) {
            for c in &v.changes {
                let at = match by_model.iter().position(|(m, _)| *m == c.model) {
                    Some(at) => at,
                    None => {
                        by_model.push((c.model.clone(), Default::default()));
                        by_model.len() - 1
                    }
                };
                let ids = &mut by_model[at].1;
                let digest = |list: &[u64], i: usize| list.get(i).copied().unwrap_or(0);
                for (i, &id) in c.added.iter().enumerate() {
                    let now = Some(digest(&c.added_digests, i));
                    ids.entry(id).or_insert((None, None)).1 = now;
                }
                for (i, &id) in c.modified.iter().enumerate() {
                    let (before, after) = c.modified_digests.get(i).copied().unwrap_or((0, 1));
                    ids.entry(id).or_insert((Some(before), None)).1 = Some(after);
                }
                for (i, &id) in c.deleted.iter().enumerate() {
                    let before = Some(digest(&c.deleted_digests, i));
                    ids.entry(id).or_insert((before, None)).1 = None;
                    if let Some(number) = c.deleted_catalog_numbers.get(i) {
                        numbers.insert(id, number.as_str());
                    }
                }
            }
        }
        let mut out: Vec<Changes> = by_model
            .into_iter()
            .map(|(model, ids)| {
                let mut c = Changes {
                    model,
                    ..Changes::default()
                };
                let specimens = c.model == Model::SpecimenRecord.label();
                for (id, span) in ids {
                    match span {
                        (None, Some(_)) => c.added.push(id),
                        (Some(_), None) => {
                            c.deleted.push(id);
                            if specimens {
                                let number = numbers.get(&id).copied().unwrap_or_default();
                                c.deleted_catalog_numbers.push(number.to_string());
                            }
                        }
                        (Some(then), Some(now)) if then != now => c.modified.push(id),
                        _ => {}
                    }
                }
                c
            })
            .filter(|c| !(c.added.is_empty() && c.modified.is_empty() && c.deleted.is_empty()))
            .collect();
        out.sort_by_key(|c| {
            Model::ALL
                .iter()
                .position(|m| m.label() == c.model)
                .unwrap_or(usize::MAX)
        });
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Changes whose records' digests are their ids (a modified record's
    /// goes from its id to its id + 100).
    fn changes(model: &str, added: &[i64], modified: &[i64], deleted: &[i64]) -> Changes {
        Changes {
            model: model.into(),
            added: added.to_vec(),
            modified: modified.to_vec(),
            deleted: deleted.to_vec(),
            added_digests: added.iter().map(|&id| id as u64).collect(),
            modified_digests: modified
                .iter()
                .map(|&id| (id as u64, id as u64 + 100))
                .collect(),
            deleted_digests: deleted.iter().map(|&id| id as u64).collect(),
            deleted_catalog_numbers: deleted.iter().map(|id| format!("CAT-{id}")).collect(),
        }
    }

    /// The ids alone, as `since` gives them.
    fn ids(model: &str, added: &[i64], modified: &[i64], deleted: &[i64]) -> Changes {
        Changes {
            model: model.into(),
            added: added.to_vec(),
            modified: modified.to_vec(),
            deleted: deleted.to_vec(),
            deleted_catalog_numbers: deleted.iter().map(|id| format!("CAT-{id}")).collect(),
            ..Changes::default()
        }
    }

    fn history(versions: Vec<Vec<Changes>>) -> History {
        History {
            versions: versions
                .into_iter()
                .enumerate()
                .map(|(i, changes)| Version {
                    number: i as u64 + 1,
                    published_at: (i as i64 + 1) * 1000,
                    changes,
                    ..Version::default()
                })
                .collect(),
            ..History::default()
        }
    }

    #[test]
    fn releases_step_minor_and_major_where_a_version_began_one() {
        let mut h = history(vec![vec![]; 7]);
        let said = |h: &History| {
            (1..=7)
                .map(|n| h.release(n).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(said(&h), ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]);
        h.majors = vec![3, 6];
        assert_eq!(said(&h), ["1.0", "1.1", "2.0", "2.1", "2.2", "3.0", "3.1"]);
        // A next version keeps the package and the major steps.
        h.package = "p".into();
        let next = h.next([1; 32], 9, Vec::new(), Vec::new());
        assert_eq!(
            (next.package.as_str(), &next.majors[..]),
            ("p", &[3, 6][..])
        );
        assert_eq!(next.release(next.current()).to_string(), "3.2");
    }

    #[test]
    fn changes_since_a_version_are_net() {
        let m = "specimens.specimenrecord";
        let mut back = changes(m, &[4], &[], &[]);
        back.added_digests = vec![44];
        let h = history(vec![
            vec![],
            vec![changes(m, &[10, 11], &[1], &[2, 4])],
            vec![changes(m, &[2], &[10], &[11, 3])],
            vec![back],
        ]);
        // From 1: 10 added (then modified: added); 11 added then deleted:
        // nothing; 2 deleted then added back the same: nothing; 3 deleted;
        // 4 deleted and added back changed: modified.
        assert_eq!(h.since(1), Some(vec![ids(m, &[10], &[1, 4], &[3])]));
        assert_eq!(h.since(2), Some(vec![ids(m, &[2, 4], &[10], &[3, 11])]));
        assert_eq!(h.since(4), Some(vec![]));
        assert_eq!(
            h.deleted_in(Model::SpecimenRecord, 3).map(|v| v.number),
            Some(3)
        );
        assert_eq!(h.deleted_in(Model::SpecimenRecord, 2), None);
        assert_eq!(h.at(2500), Some(2));
        // By catalogue number: 3 is gone since version 3; 2 and 4 came back.
        let found = h.deleted_specimen(|n| n == "CAT-3");
        assert_eq!(found.map(|(id, v)| (id, v.number)), Some((3, 3)));
        assert!(h.deleted_specimen(|n| n == "CAT-2").is_none());
        assert!(h.deleted_specimen(|n| n == "CAT-4").is_none());
    }

    #[test]
    fn only_the_last_versions_are_kept() {
        let mut h = History::first(Vec::new());
        for i in 0..(KEPT + 5) {
            h = h.next([i as u8; 32], i as i64 + 1, Vec::new(), vec![]);
        }
        assert_eq!(h.versions.len(), KEPT);
        assert_eq!((h.oldest(), h.current()), (7, KEPT as u64 + 6));
        assert_eq!(h.since(5), None);
        assert_eq!(h.since(6), Some(vec![]));
    }
}
