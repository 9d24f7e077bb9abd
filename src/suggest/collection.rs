//! What the collection is found by: every taxon, place and person by each of
//! its names, every specimen by its USI, and how many specimens each has.
//! Derived once per view (built in the background after a load, or by the
//! first suggestion asked before that).

use std::ops::ControlFlow;

use crate::model::Model;
use crate::view::name::scientific_name_field;
use crate::view::{Derive, Value, View};

use super::fold::{fold, word_ends};
use super::index::{Index, Keys};
use super::names::{Found, Gathered, Names, Tier};

/// What `kind=` asks for: a group of lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Taxon,
    Place,
    Person,
    Specimen,
}

impl Kind {
    pub const ALL: [(&'static str, Kind); 4] = [
        ("taxon", Kind::Taxon),
        ("place", Kind::Place),
        ("person", Kind::Person),
        ("specimen", Kind::Specimen),
    ];

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.iter().find(|(n, _)| *n == s).map(|&(_, k)| k)
    }

    /// The kind of a model's records, if they are suggested.
    pub fn of(model: Model) -> Option<Kind> {
        match model {
            m if m.rank_name().is_some() => Some(Kind::Taxon),
            Model::Country | Model::State | Model::County | Model::Locality => Some(Kind::Place),
            Model::Person => Some(Kind::Person),
            Model::SpecimenRecord => Some(Kind::Specimen),
            _ => None,
        }
    }
}

/// The models named, in the order their records are numbered (which breaks
/// ties): the ranks from the highest, the places from the widest, people.
fn named() -> impl Iterator<Item = Model> {
    Model::RANKS.into_iter().rev().chain([
        Model::Country,
        Model::State,
        Model::County,
        Model::Locality,
        Model::Person,
    ])
}

/// The fields each model is named by, the first its label.
fn naming(model: Model) -> Vec<&'static str> {
    if model.rank_name().is_some() {
        return vec![scientific_name_field(model), "common_name"];
    }
    match model {
        Model::Country | Model::State => vec!["name", "abbr"],
        Model::County => vec!["full_name", "name"],
        Model::Locality => vec!["name", "town"],
        Model::Person => vec!["full_name", "collector_name"],
        _ => vec!["name"],
    }
}

/// The specimen fields that count a record's specimens, by its model.
fn counted_by(model: Model) -> Vec<&'static str> {
    match model {
        Model::Country => vec!["country"],
        Model::State => vec!["state"],
        Model::County => vec!["county"],
        Model::Locality => vec!["locality"],
        Model::Person => vec!["collector", "determiner", "preparer"],
        m => m.rank_name().into_iter().collect(),
    }
}

/// A suggested record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggested<'s> {
    pub model: Model,
    pub pos: u32,
    /// Its display name.
    pub label: &'s str,
    /// The name that matched.
    pub matched: &'s str,
    pub count: u32,
    pub tier: Tier,
}

/// The index.
#[derive(Default)]
pub struct Suggestions {
    /// Each named record (a thing of `names`), in [`named`]'s order.
    records: Vec<(Model, u32)>,
    /// Its specimens.
    counts: Vec<u32>,
    /// Its label: its first name.
    labels: Vec<u32>,
    names: Names,
    /// Folded USIs (and each of their words' ends) to specimen positions.
    usis: Index,
}

impl Derive for Suggestions {
    fn derive(view: &View) -> Suggestions {
        Suggestions::build(view)
    }
}

/// A binomial or trinomial with its genus abbreviated, as people write it:
/// `D. plexippus`, and `D. p. megalippe` too for a trinomial.
fn abbreviated(name: &str) -> Vec<String> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let Some(initial) = words.first().and_then(|g| g.chars().next()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if words.len() >= 2 {
        out.push(format!("{initial}. {}", words[1..].join(" ")));
    }
    if let (3, Some(second)) = (words.len(), words.get(1).and_then(|s| s.chars().next())) {
        out.push(format!("{initial}. {second}. {}", words[2]));
    }
    out
}

impl Suggestions {
    pub fn build(view: &View) -> Suggestions {
        let mut records = Vec::new();
        let mut start = [0u32; Model::ALL.len()];
        for model in named() {
            start[model.index()] = records.len() as u32;
            records.extend((0..view.table(model).len() as u32).map(|p| (model, p)));
        }
        let counts = count(view, &records, &start);
        let mut gathered = Gathered::default();
        for (thing, &(model, pos)) in records.iter().enumerate() {
            let thing = thing as u32;
            for field in naming(model) {
                let Some(name) = view.value(model, pos, field).as_str() else {
                    continue;
                };
                gathered.name(thing, name);
                if matches!(model, Model::Species | Model::Subspecies) && field != "common_name" {
                    for short in abbreviated(name) {
                        let key = fold(&short);
                        gathered.name_keyed(thing, &short, vec![key.clone()], vec![key]);
                    }
                }
            }
        }
        let names = gathered.build();
        let labels = names
            .first_names(records.len())
            .into_iter()
            .map(|n| n.unwrap_or(u32::MAX))
            .collect();
        let specimens = view.table(Model::SpecimenRecord);
        let mut usis = Keys::default();
        if let Some(f) = Model::SpecimenRecord.field_index("usi") {
            for pos in 0..specimens.len() {
                if let Some(usi) = specimens.get(pos, f).as_str() {
                    let folded = fold(usi);
                    for end in word_ends(&folded) {
                        usis.push(end, pos as u32);
                    }
                }
            }
        }
        Suggestions {
            records,
            counts,
            labels,
            names,
            usis: Index::build(usis),
        }
    }

    /// The best `limit` records `typed` finds, of the kinds `kinds` (all
    /// when empty): by tier, then more specimens first, then the order of
    /// [`named`] and of ids (specimens, each one, last at equal counts).
    pub fn find<'v>(
        &'v self,
        view: &'v View,
        typed: &str,
        kinds: &[Kind],
        limit: usize,
    ) -> Vec<Suggested<'v>> {
        let folded = fold(typed);
        if folded.is_empty() || limit == 0 {
            return Vec::new();
        }
        let asks = |kind: Kind| kinds.is_empty() || kinds.contains(&kind);
        let keep = |thing: u32| {
            let (model, _) = self.records[thing as usize];
            Kind::of(model).is_some_and(asks)
        };
        let mut found = self.names.find(&folded, &keep, limit);
        // Specimens: by their USI whole or begun, never with typos (a typo in
        // a number names another specimen).
        let things = self.records.len() as u32;
        if asks(Kind::Specimen) {
            let mut taken = 0;
            self.usis.starting(&folded, &mut |key, positions| {
                let tier = if key == folded.as_bytes() {
                    Tier::Exact
                } else {
                    Tier::Begun
                };
                for &pos in positions {
                    found.push(Found {
                        thing: things + pos,
                        name: u32::MAX,
                        tier,
                    });
                    taken += 1;
                }
                if taken >= limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        }
        found.sort_unstable_by_key(|f| (f.thing, f.tier));
        found.dedup_by_key(|f| f.thing);
        let count = |thing: u32| self.counts.get(thing as usize).copied().unwrap_or(1);
        super::names::best(found, &count, limit)
            .into_iter()
            .map(|f| match self.records.get(f.thing as usize) {
                Some(&(model, pos)) => Suggested {
                    model,
                    pos,
                    label: self.names.name(self.labels[f.thing as usize]),
                    matched: self.names.name(f.name),
                    count: self.counts[f.thing as usize],
                    tier: f.tier,
                },
                None => {
                    let pos = f.thing - things;
                    let usi = view
                        .value(Model::SpecimenRecord, pos, "usi")
                        .as_str()
                        .unwrap_or_default();
                    Suggested {
                        model: Model::SpecimenRecord,
                        pos,
                        label: usi,
                        matched: usi,
                        count: 1,
                        tier: f.tier,
                    }
                }
            })
            .collect()
    }

    /// The bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes()
            + self.usis.heap_bytes()
            + self.records.capacity() * 8
            + (self.counts.capacity() + self.labels.capacity()) * 4
    }
}

/// Each record's specimens: those whose field for its model names it (a
/// person's, each specimen once whatever it did).
fn count(view: &View, records: &[(Model, u32)], start: &[u32]) -> Vec<u32> {
    let mut counts = vec![0u32; records.len()];
    let specimens = view.table(Model::SpecimenRecord);
    for model in named() {
        let fields: Vec<usize> = counted_by(model)
            .iter()
            .filter_map(|f| Model::SpecimenRecord.field_index(f))
            .collect();
        let base = start[model.index()] as usize;
        let mut seen: Vec<u32> = Vec::new();
        for pos in 0..specimens.len() {
            seen.clear();
            for &f in &fields {
                match specimens.get(pos, f) {
                    Value::Ref(m, p) if m == model => seen.push(p),
                    Value::Refs(m, ps) if m == model => seen.extend_from_slice(ps),
                    _ => {}
                }
            }
            seen.sort_unstable();
            seen.dedup();
            for &p in &seen {
                counts[base + p as usize] += 1;
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_genus_is_abbreviated_as_people_write_it() {
        assert_eq!(abbreviated("Danaus plexippus"), ["D. plexippus"]);
        assert_eq!(
            abbreviated("Danaus plexippus megalippe"),
            ["D. plexippus megalippe", "D. p. megalippe"]
        );
        assert!(abbreviated("Danaus").is_empty());
    }
}
