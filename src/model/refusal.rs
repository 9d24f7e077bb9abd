//! What GBIF would refuse, which `build` and `sync` refuse unless told to
//! publish it anyway: a dataset without a licence (GBIF's IPT blocks its
//! registration; `--allow-no-licence`), and a version that drops or makes anew
//! more than half of the occurrenceIDs published before ([`Turnover`]: GBIF's
//! pipelines halt a dataset's indexing when more than half of its identifiers
//! are new, the records all taken for others and the old ones deleted;
//! `--allow-id-churn`).

use std::collections::HashSet;

use super::dataset::Dataset;
use super::records::Collection;

/// What a publisher was told to publish anyway (`--allow-no-licence`,
/// `--allow-id-churn`); by default nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allowed {
    pub no_licence: bool,
    pub id_churn: bool,
}

impl Allowed {
    /// Everything: what a library caller that refuses nothing gets.
    pub const ALL: Allowed = Allowed {
        no_licence: true,
        id_churn: true,
    };
}

/// Why `dataset` is not published without `--allow-no-licence`: it has no
/// licence. `None` where it has one.
pub fn unlicensed(dataset: &Dataset) -> Option<String> {
    dataset.licence().is_none().then(|| {
        "the dataset has no licence (`license` in --dataset-config, or \
         --dataset-license): GBIF's IPT refuses to register such a dataset, and GBIF then \
         takes it for CC BY 4.0; write CC0-1.0, CC-BY-4.0 or CC-BY-NC-4.0, or publish it \
         without one with --allow-no-licence (CATALOGUE_ALLOW_NO_LICENCE=1)"
            .to_string()
    })
}

/// What publishing one collection after another does to the occurrenceIDs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Turnover {
    /// How many occurrenceIDs the version before published.
    pub before: usize,
    /// How many of them the next does not publish...
    pub gone: usize,
    /// ... and how many it publishes that the one before did not.
    pub new: usize,
    /// One of each, for the message.
    pub gone_example: Option<String>,
    pub new_example: Option<String>,
}

/// The occurrenceIDs of specimens of these catalogue numbers, as `dataset` makes them.
fn ids<'a>(numbers: impl Iterator<Item = &'a str>, dataset: &Dataset) -> HashSet<String> {
    let rule = dataset.occurrence_ids();
    numbers.map(|usi| rule.of(usi)).collect()
}

impl Turnover {
    /// From `before` (published, described by its own dataset) to `after`.
    pub fn between(before: &Collection, after: &Collection) -> Turnover {
        let numbers = |c: &Collection| -> Vec<String> {
            c.specimen_records.iter().map(|r| r.usi.clone()).collect()
        };
        Turnover::of(
            (&numbers(before), &before.dataset),
            (&numbers(after), &after.dataset),
        )
    }

    /// From the specimens of catalogue numbers `before.0`, described by
    /// `before.1`, to those of `after`.
    pub fn of(before: (&[String], &Dataset), after: (&[String], &Dataset)) -> Turnover {
        let was = ids(before.0.iter().map(String::as_str), before.1);
        let is = ids(after.0.iter().map(String::as_str), after.1);
        let first = |set: &HashSet<String>, other: &HashSet<String>| {
            let mut only: Vec<&String> = set.difference(other).collect();
            only.sort();
            (only.len(), only.first().map(|s| s.to_string()))
        };
        let (gone, gone_example) = first(&was, &is);
        let (new, new_example) = first(&is, &was);
        Turnover {
            before: was.len(),
            gone,
            new,
            gone_example,
            new_example,
        }
    }

    /// Whether more than half of the occurrenceIDs published before are gone,
    /// or more than that many are new (a first version changes nothing).
    pub fn churns(&self) -> bool {
        self.before > 0 && (self.gone * 2 > self.before || self.new * 2 > self.before)
    }

    /// The refusal, in words: how many, an example, and what to do.
    pub fn refusal(&self) -> String {
        let example = |what: &str, id: &Option<String>| match id {
            Some(id) => format!(" ({what} {id})"),
            None => String::new(),
        };
        format!(
            "{} of the {} occurrenceIDs published before are gone{} and {} are new{}: \
             GBIF halts indexing a dataset when more than half of its identifiers change, \
             and would take every record for a new one; nothing was published. Restore the \
             records' catalogue numbers and the dataset file's occurrence_id, \
             institution_code and collection_code, or publish anyway with --allow-id-churn \
             (CATALOGUE_ALLOW_ID_CHURN=1)",
            self.gone,
            self.before,
            example("such as", &self.gone_example),
            self.new,
            example("such as", &self.new_example),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collection(usis: &[&str]) -> (Vec<String>, Dataset) {
        (
            usis.iter().map(|u| u.to_string()).collect(),
            Dataset::default(),
        )
    }

    fn between(a: &(Vec<String>, Dataset), b: &(Vec<String>, Dataset)) -> Turnover {
        Turnover::of((&a.0, &a.1), (&b.0, &b.1))
    }

    #[test]
    fn more_than_half_gone_or_new_churns() {
        let before = collection(&["A-1", "A-2", "A-3", "A-4"]);
        let half = collection(&["A-1", "A-2", "B-3", "B-4"]);
        let t = between(&before, &half);
        assert_eq!((t.before, t.gone, t.new), (4, 2, 2));
        assert!(!t.churns(), "half is not more than half");
        let most = collection(&["A-1", "B-2", "B-3", "B-4"]);
        let t = between(&before, &most);
        assert!(t.churns());
        assert_eq!(t.gone_example.as_deref(), Some("A-2"));
        let said = t.refusal();
        assert!(said.starts_with("3 of the 4 occurrenceIDs published before are gone (such as A-2) and 3 are new (such as B-2)"), "{said}");
        // A new rule changes every identifier, the records the same.
        let mut renamed = before.clone();
        renamed.1.institution_code = "UMMZ".into();
        renamed.1.occurrence_id =
            "urn:catalog:{institution_code}:{collection_code}:{catalog_number}".into();
        let t = between(&before, &renamed);
        assert_eq!((t.gone, t.new), (4, 4));
        assert!(t.churns());
        // Nothing published before: nothing to churn.
        assert!(!between(&collection(&[]), &before).churns());
    }
}
