//! Holding back what is wrong and publishing the rest: each record a problem
//! is about is kept as it was last published (or left out where it never
//! was), until the collection checks clean.

use ahash::AHashSet;

use crate::model::records::Collection;
use crate::model::validate::{self, Problem};
use crate::model::Model;

pub use crate::model::held::{holdings, Held, Holding, KeptAs};

/// Whether `model`'s record `id` is the same in `a` as in `b` (both absent
/// included).
fn same(a: &Collection, b: Option<&Collection>, model: Model, id: i64) -> bool {
    let hasher = ahash::RandomState::with_seeds(1, 2, 3, 4);
    let digest = |c: &Collection| c.record(model, id).map(|r| r.digest(&hasher));
    digest(a) == b.and_then(digest)
}

/// The collection to publish and what it holds back, or the problems
/// holding back cannot mend.
pub type HeldBack = Result<(Collection, Vec<Held>), Vec<Problem>>;

/// What to hold back for one problem of `c` (read from the source as
/// `raw`): the record, and how it is kept. A reference to a record deleted
/// since `published` holds the deletion back (deleted in `raw`: a deletion
/// held for one record's problem is held for every record naming it, and
/// none of them is held); of two records sharing what must be unique, the
/// one that differs from its published version (else the problem's own, the
/// later); else the record the problem is about.
fn target(
    raw: &Collection,
    c: &Collection,
    p: &Problem,
    published: Option<&Collection>,
) -> Option<(Model, i64)> {
    let record = p.record?;
    let Some((model, id)) = p.other else {
        return Some(record);
    };
    let there = raw.record(model, id).is_some();
    let was = published.is_some_and(|pc| pc.record(model, id).is_some());
    match (there, was) {
        (false, true) => Some((model, id)),
        (true, _) => {
            let changed = |(m, i): (Model, i64)| !same(c, published, m, i);
            match changed(record) || !changed((model, id)) {
                true => Some(record),
                false => Some((model, id)),
            }
        }
        (false, false) => Some(record),
    }
}

/// Publishes every valid record of `raw`, whose check found `errors`,
/// keeping each invalid one as `published` has it (or leaving out one it
/// lacks), and says what it held back, by model and id. Checks again after
/// each round of holds until nothing is wrong; a problem of no record, or
/// a round that holds back nothing new, leaves nothing publishable: the
/// problems are given back.
pub fn hold_back(
    raw: &Collection,
    errors: &[Problem],
    published: Option<&Collection>,
) -> HeldBack {
    hold_back_checking(raw, errors, published, |c, _| validate::check(c).errors)
}

/// [`hold_back`], where `errors` are all of the specimens `among` names (a
/// `sync` tick that read only edits of specimens, with the specimens held
/// back before among them: [`validate::edit_problems`]): each round checks
/// those and the records held since, not the whole collection. `None` where
/// that cannot tell (a record of another model to hold): the whole
/// [`hold_back`] then, from the whole check's errors.
pub fn hold_back_among(
    raw: &Collection,
    errors: &[Problem],
    published: Option<&Collection>,
    among: &[i64],
) -> Option<HeldBack> {
    let told = std::cell::Cell::new(true);
    let held = hold_back_checking(raw, errors, published, |c, holding| {
        let mut ids = among.to_vec();
        for &(model, id) in holding {
            match model {
                // One left out (never published) is not there to check.
                Model::SpecimenRecord if c.record(model, id).is_some() => ids.push(id),
                Model::SpecimenRecord => {}
                _ => told.set(false),
            }
        }
        let problems = validate::edit_problems(c, &[(Model::SpecimenRecord, ids)]);
        problems.unwrap_or_else(|| {
            told.set(false);
            Vec::new()
        })
    });
    told.get().then_some(held)
}

/// [`hold_back`], with `check` finding the problems of a collection whose
/// records `holding` are held back.
fn hold_back_checking(
    raw: &Collection,
    errors: &[Problem],
    published: Option<&Collection>,
    check: impl Fn(&Collection, &AHashSet<(Model, i64)>) -> Vec<Problem>,
) -> HeldBack {
    let mut c = raw.clone();
    let mut held: Vec<Held> = Vec::new();
    let mut holding: AHashSet<(Model, i64)> = AHashSet::new();
    let mut problems = errors.to_vec();
    while !problems.is_empty() {
        let mut added = false;
        for p in &problems {
            let Some((model, id)) = target(raw, &c, p, published) else {
                return Err(problems);
            };
            if !holding.insert((model, id)) {
                continue;
            }
            added = true;
            let deletion = p.record != Some((model, id)) && c.record(model, id).is_none();
            let (field, problem, kept) = match deletion {
                true => ("pk".to_string(), p.to_string(), KeptAs::DeletionHeld),
                false => {
                    let was = published.is_some_and(|pc| pc.record(model, id).is_some());
                    let kept = match was {
                        true => KeptAs::Published,
                        false => KeptAs::LeftOut,
                    };
                    let problem = match p.record == Some((model, id)) {
                        true => p.message.clone(),
                        false => p.to_string(),
                    };
                    (p.field().to_string(), problem, kept)
                }
            };
            c.restore(model, id, published);
            held.push(Held {
                model,
                id,
                field,
                problem,
                kept,
            });
        }
        if !added {
            return Err(problems);
        }
        problems = check(&c, &holding);
    }
    held.sort_by_key(|h| (h.model, h.id));
    Ok((c, held))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{fixture, synthetic};

    fn small() -> Collection {
        let mut bytes = Vec::new();
        synthetic::write(&mut bytes, 40, 7).unwrap();
        let mut import = fixture::Import::default();
        import.read_str("synthetic", std::str::from_utf8(&bytes).unwrap());
        let imported = import.finish();
        assert!(imported.errors.is_empty());
        let mut c = imported.collection;
        c.canonicalise();
        assert!(validate::check(&c).errors.is_empty());
        c
    }

    #[test]
    fn a_duplicate_usi_holds_back_the_edited_record() {
        let published = small();
        let mut raw = published.clone();
        let (first, second) = (raw.specimen_records[0].id, raw.specimen_records[5].id);
        raw.specimen_records[5].usi = raw.specimen_records[0].usi.clone();
        raw.specimen_records[3].notes = "a good edit".into();
        let errors = validate::check(&raw).errors;
        assert_eq!(errors.len(), 1);
        let (c, held) = hold_back(&raw, &errors, Some(&published)).unwrap();
        assert_eq!(c.specimen_records[3].notes, "a good edit");
        assert_eq!(c.specimen_records[5], published.specimen_records[5]);
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].model, held[0].id), (Model::SpecimenRecord, second));
        assert_eq!(held[0].field, "usi");
        assert_eq!(held[0].kept, KeptAs::Published);
        assert!(held[0].problem.contains(&raw.specimen_records[0].usi));
        // The first holder edited to the second's usi: the first is held.
        let mut raw = published.clone();
        raw.specimen_records[0].usi = raw.specimen_records[5].usi.clone();
        let errors = validate::check(&raw).errors;
        let (c, held) = hold_back(&raw, &errors, Some(&published)).unwrap();
        assert_eq!(c, published);
        assert_eq!((held[0].model, held[0].id), (Model::SpecimenRecord, first));
    }

    #[test]
    fn a_species_deleted_while_specimens_name_it_stays() {
        let published = small();
        let mut raw = published.clone();
        let named = (raw.specimen_records.iter())
            .find_map(|r| r.species)
            .expect("a specimen names a species");
        raw.species.retain(|s| s.id != named);
        raw.specimen_records[1].notes = "a good edit".into();
        let errors = validate::check(&raw).errors;
        assert!(!errors.is_empty());
        let (c, held) = hold_back(&raw, &errors, Some(&published)).unwrap();
        assert_eq!(c.species, published.species);
        assert_eq!(c.specimen_records[1].notes, "a good edit");
        assert_eq!(held.len(), 1);
        assert_eq!((held[0].model, held[0].id), (Model::Species, named));
        assert_eq!(held[0].kept, KeptAs::DeletionHeld);
        assert!(validate::check(&c).errors.is_empty());
    }

    #[test]
    fn a_deletion_held_holds_back_no_record_naming_it() {
        let mut published = small();
        // Three specimens name one species.
        let named = (published.specimen_records.iter())
            .find_map(|r| r.species)
            .expect("a specimen names a species");
        for r in published.specimen_records.iter_mut().take(3) {
            r.species = Some(named);
        }
        assert!(validate::check(&published).errors.is_empty());
        let naming: Vec<usize> = (0..published.specimen_records.len())
            .filter(|&i| published.specimen_records[i].species == Some(named))
            .collect();
        let mut raw = published.clone();
        raw.species.retain(|s| s.id != named);
        for &i in &naming {
            raw.specimen_records[i].notes = format!("edit {i}");
        }
        let errors = validate::check(&raw).errors;
        assert!(errors.len() >= 3, "{errors:?}");
        let (c, held) = hold_back(&raw, &errors, Some(&published)).unwrap();
        assert_eq!(held.len(), 1, "{held:?}");
        assert_eq!((held[0].model, held[0].id), (Model::Species, named));
        assert_eq!(held[0].kept, KeptAs::DeletionHeld);
        for &i in &naming {
            assert_eq!(c.specimen_records[i].notes, format!("edit {i}"));
        }
        assert!(validate::check(&c).errors.is_empty());
    }

    #[test]
    fn a_bad_record_never_published_is_left_out() {
        let published = small();
        let mut raw = published.clone();
        let mut new = raw.specimen_records[0].clone();
        new.id = raw.specimen_records.last().unwrap().id + 1;
        new.usi = "NEW-000001".into();
        new.temperature = "warm".into();
        raw.specimen_records.push(new);
        let errors = validate::check(&raw).errors;
        assert_eq!(errors.len(), 1);
        for before in [Some(&published), None] {
            let (c, held) = hold_back(&raw, &errors, before).unwrap();
            assert_eq!(c.specimen_records.len(), published.specimen_records.len());
            let mine = held.iter().find(|h| h.field == "temperature").unwrap();
            assert_eq!(mine.kept, KeptAs::LeftOut);
        }
    }

    #[test]
    fn a_problem_without_a_record_publishes_nothing() {
        let published = small();
        let errors = vec![Problem::new(
            "a.json",
            "not a JSON array of fixture objects",
        )];
        let refused = hold_back(&published, &errors, Some(&published)).unwrap_err();
        assert_eq!(refused, errors);
    }
}
