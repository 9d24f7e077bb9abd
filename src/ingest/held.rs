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
pub fn hold_back(raw: &Collection, errors: &[Problem], published: Option<&Collection>) -> HeldBack {
    hold_back_checking(raw, errors, published, |c, _| validate::check(c).errors)
}

/// [`hold_back`] in place, without copying the collection: `published` (the
/// collection published last) is made the collection to publish, where
/// `raw` was read from the source it was published from by replacing the
/// specimens `among` names in place (a `sync` tick that read only edits of
/// specimens; the specimens held back before are among them) and `errors`
/// are all of them ([`validate::edit_problems`]).
/// Each round checks those and the records held since, not the whole
/// collection; what is not records (the description, the site) is `raw`'s.
/// [`Among::Untold`], with `published`'s records as they were, where that
/// cannot tell (a record to hold that is not a specimen, or not one those
/// records' usis lead to).
pub fn hold_back_among(
    raw: &Collection,
    errors: &[Problem],
    published: &mut Collection,
    among: &[i64],
) -> Among {
    let specimen = |c: &Collection, id: i64| c.record(Model::SpecimenRecord, id).is_some();
    // What holding back may restore: the specimens edited and held, and
    // every specimen holding one of their usis, as published last.
    let usi = |c: &Collection, id: i64| {
        let at = c
            .specimen_records
            .binary_search_by_key(&id, |r| r.id)
            .ok()?;
        Some(c.specimen_records[at].usi.clone())
    };
    let usis: AHashSet<String> = (among.iter())
        .flat_map(|&id| [usi(raw, id), usi(published, id)])
        .flatten()
        .collect();
    let mut related: Vec<i64> = among.to_vec();
    for c in [raw, &*published] {
        let holders = c.specimen_records.iter().filter(|r| usis.contains(&r.usi));
        related.extend(holders.map(|r| r.id));
    }
    related.sort_unstable();
    related.dedup();
    let mut before = Collection::default();
    for &id in &related {
        before.restore(Model::SpecimenRecord, id, Some(published));
    }
    // The specimens read replace those published: the collection read.
    for &id in among {
        published.restore(Model::SpecimenRecord, id, Some(raw));
    }
    debug_assert!(among
        .iter()
        .all(|&id| specimen(published, id) == specimen(raw, id)));
    let told = std::cell::Cell::new(true);
    let may_hold = |model: Model, id: i64| {
        let may = model == Model::SpecimenRecord && related.binary_search(&id).is_ok();
        if !may {
            told.set(false);
        }
        may
    };
    let check = |c: &Collection, holding: &AHashSet<(Model, i64)>| {
        // One left out (never published) is not there to check.
        let ids = (among.iter().copied())
            .chain(holding.iter().map(|&(_, id)| id))
            .filter(|&id| specimen(c, id))
            .collect();
        validate::edit_problems(c, &[(Model::SpecimenRecord, ids)]).unwrap_or_else(|| {
            told.set(false);
            Vec::new()
        })
    };
    let held = hold_back_in(published, raw, errors, Some(&before), may_hold, check);
    if !told.get() {
        for &id in &related {
            published.restore(Model::SpecimenRecord, id, Some(&before));
        }
        return Among::Untold;
    }
    match held {
        Ok(held) => {
            // What is not records is the collection read's.
            published.site.clone_from(&raw.site);
            published.wagtail.clone_from(&raw.wagtail);
            published.dataset.clone_from(&raw.dataset);
            published.history.clone_from(&raw.history);
            Among::Held(held)
        }
        Err(problems) => {
            for &id in &related {
                published.restore(Model::SpecimenRecord, id, Some(&before));
            }
            Among::Unmended(problems)
        }
    }
}

/// What holding back in place came to.
#[derive(Debug)]
pub enum Among {
    /// The collection is the one to publish, holding these back.
    Held(Vec<Held>),
    /// Problems holding back cannot mend; the collection is as it was.
    Unmended(Vec<Problem>),
    /// This cannot tell; the collection is as it was.
    Untold,
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
    let held = hold_back_in(&mut c, raw, errors, published, |_, _| true, check)?;
    Ok((c, held))
}

/// Holds back in `c` (made from `raw`) what `errors` are of, and what each
/// round's `check` finds then, where `may_hold` lets it.
fn hold_back_in(
    c: &mut Collection,
    raw: &Collection,
    errors: &[Problem],
    published: Option<&Collection>,
    may_hold: impl Fn(Model, i64) -> bool,
    check: impl Fn(&Collection, &AHashSet<(Model, i64)>) -> Vec<Problem>,
) -> Result<Vec<Held>, Vec<Problem>> {
    let mut held: Vec<Held> = Vec::new();
    let mut holding: AHashSet<(Model, i64)> = AHashSet::new();
    let mut problems = errors.to_vec();
    while !problems.is_empty() {
        let mut added = false;
        for p in &problems {
            let Some((model, id)) = target(raw, c, p, published) else {
                return Err(problems);
            };
            if !may_hold(model, id) {
                return Err(problems);
            }
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
        problems = check(c, &holding);
    }
    held.sort_by_key(|h| (h.model, h.id));
    Ok(held)
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

    /// Holding back in place, on the collection published last, comes to
    /// what holding back a copy of the whole collection read does, tick
    /// after tick: an edit beside a record held, a new usi clash among the
    /// edits, the held record mended; and gives back what it cannot tell.
    #[test]
    fn holding_back_in_place_is_holding_back_a_copy() {
        let ids: Vec<i64> = small().specimen_records.iter().map(|r| r.id).collect();
        let mut published = small();
        let mut raw = published.clone();
        let mut held_ids: Vec<i64> = Vec::new();
        type Edit = fn(&mut Collection, &[i64]);
        let ticks: [(&str, Vec<usize>, Edit); 4] = [
            ("a usi taken", vec![5, 3], |c, ids| {
                let usi = c.specimen_records[0].usi.clone();
                c.specimen_records[5].usi = usi;
                c.specimen_records[3].notes = format!("edited {}", ids[3]);
            }),
            ("an edit beside it", vec![7], |c, _| {
                c.specimen_records[7].notes = "beside a held record".into();
            }),
            ("another clash, with a record held", vec![9], |c, _| {
                let usi = c.specimen_records[5].usi.clone();
                c.specimen_records[9].usi = usi;
                c.specimen_records[9].temperature = "warm".into();
            }),
            ("mended", vec![5, 9], |c, _| {
                c.specimen_records[5].usi = "MENDED-000005".into();
                c.specimen_records[9].usi = "MENDED-000009".into();
                c.specimen_records[9].temperature = String::new();
            }),
        ];
        for (case, edited, edit) in ticks {
            edit(&mut raw, &ids);
            let mut among: Vec<i64> = edited.iter().map(|&i| ids[i]).collect();
            among.extend(&held_ids);
            let whole = validate::check(&raw).errors;
            let errors =
                validate::edit_problems(&raw, &[(Model::SpecimenRecord, among.clone())]).unwrap();
            assert_eq!(errors, whole, "{case}");
            if errors.is_empty() {
                published = raw.clone();
                held_ids.clear();
                continue;
            }
            let (copy, copy_held) = hold_back(&raw, &whole, Some(&published)).unwrap();
            let mut in_place = published.clone();
            let Among::Held(held) = hold_back_among(&raw, &errors, &mut in_place, &among) else {
                panic!("{case}: not held in place");
            };
            assert_eq!(held, copy_held, "{case}");
            assert!(in_place == copy, "{case}: another collection");
            held_ids = held.iter().map(|h| h.id).collect();
            published = in_place;
        }
        assert!(held_ids.is_empty());
        // A record left out (never published) stays left out beside an edit.
        let mut raw = published.clone();
        raw.specimen_records[11].temperature = "warm".into();
        let left_out = raw.specimen_records[11].id;
        let mut before = raw.clone();
        before.specimen_records.remove(11);
        raw.specimen_records[7].notes = "beside a record left out".into();
        let among = [raw.specimen_records[7].id, left_out];
        let errors = validate::check(&raw).errors;
        let (copy, copy_held) = hold_back(&raw, &errors, Some(&before)).unwrap();
        let mut in_place = before.clone();
        let Among::Held(held) = hold_back_among(&raw, &errors, &mut in_place, &among) else {
            panic!("left out: not held in place");
        };
        assert_eq!((held.len(), held[0].kept), (1, KeptAs::LeftOut));
        assert_eq!(held, copy_held);
        assert!(in_place == copy);
        // A record to hold that is not a specimen: untold, and the
        // collection as it was.
        let mut raw = published.clone();
        let person = raw.people[0].id;
        raw.specimen_records[2].determiner = Some(person);
        raw.people.remove(0);
        let errors = validate::check(&raw).errors;
        let mut in_place = published.clone();
        let among = [raw.specimen_records[2].id];
        assert!(matches!(
            hold_back_among(&raw, &errors, &mut in_place, &among),
            Among::Untold
        ));
        assert!(in_place == published);
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
