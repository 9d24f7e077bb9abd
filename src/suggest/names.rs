//! Names of things (records, or the distinct values of a term), each found by
//! its folded keys, and what typing a text finds among them: each thing once,
//! by the best of its names.

use std::ops::ControlFlow;

use ahash::AHashMap;

use super::fold::{fold, forgiven, keys, sounds, word_ends};
use super::index::{Index, Keys};
use super::near::{Trie, FAR};

/// How well a name matched what was typed; the better sorts first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// The name itself (its words in any order).
    Exact,
    /// The start of the name, or of one of its words.
    Begun,
    /// Heard alike ([`sounds`]: `nefia` for Nephia), as a whole or by a start
    /// of it from one of its words on.
    Sounds { begun: bool },
    /// With typos: fewer first, and at equal typos a whole name before a
    /// name's start.
    Typos { edits: u8, begun: bool },
}

/// A thing found: which, by which of its names, how well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub thing: u32,
    pub name: u32,
    pub tier: Tier,
}

/// Names gathered, then built into [`Names`].
#[derive(Default)]
pub struct Gathered {
    names: Vec<Box<str>>,
    of: Vec<u32>,
    keys: Keys,
    near_keys: Keys,
    sound_keys: Keys,
}

impl Gathered {
    /// Thing `thing` is called `name` (as written; nothing when empty):
    /// found by its words in any order, and within typos from any of its
    /// words on.
    pub fn name(&mut self, thing: u32, name: &str) {
        let folded = fold(name);
        let near = word_ends(&folded).map(str::to_owned).collect();
        self.name_keyed(thing, name, keys(&folded), near);
    }

    /// Thing `thing` is called `name`, found by `keys` (folded), and within
    /// typos by `near`.
    pub fn name_keyed(&mut self, thing: u32, name: &str, keys: Vec<String>, near: Vec<String>) {
        if name.trim().is_empty() || keys.is_empty() {
            return;
        }
        let n = self.names.len() as u32;
        self.names.push(name.into());
        self.of.push(thing);
        for key in keys {
            self.keys.push(&key, n);
        }
        for key in near {
            self.sound_keys.push(&sounds(&key), n);
            self.near_keys.push(&key, n);
        }
    }

    pub fn build(self) -> Names {
        Names {
            index: Index::build(self.keys),
            sounds: Index::build(self.sound_keys),
            near: Trie::build(self.near_keys),
            names: self.names,
            of: self.of,
        }
    }
}

/// Every name, its thing, and the indexes of their keys: every order of
/// their words (whole and begun), and each word on (within typos: fewer keys
/// to walk, since typos and a changed order together are not looked for).
#[derive(Default)]
pub struct Names {
    names: Vec<Box<str>>,
    of: Vec<u32>,
    index: Index,
    /// How each word on sounds ([`sounds`]).
    sounds: Index,
    near: Trie,
}

impl Names {
    /// Name `n` as written.
    pub fn name(&self, n: u32) -> &str {
        &self.names[n as usize]
    }

    /// The first name given to each thing, by thing (things below `things`
    /// without a name have none).
    pub fn first_names(&self, things: usize) -> Vec<Option<u32>> {
        let mut first = vec![None; things];
        for (n, &t) in self.of.iter().enumerate() {
            first[t as usize].get_or_insert(n as u32);
        }
        first
    }

    /// What `typed` (folded) finds among the things `keep` keeps, each thing
    /// once by its best name: the exact and begun names always, the names
    /// that sound alike and those within typos only when fewer than `enough`
    /// things were found without (and, sounding alike, from 4 characters
    /// typed, as typos are).
    pub fn find(&self, typed: &str, keep: &dyn Fn(u32) -> bool, enough: usize) -> Vec<Found> {
        let mut best: AHashMap<u32, Found> = AHashMap::new();
        let offer = |best: &mut AHashMap<u32, Found>, name: u32, tier: Tier| {
            let thing = self.of[name as usize];
            if !keep(thing) {
                return;
            }
            let found = Found { thing, name, tier };
            best.entry(thing)
                .and_modify(|b| {
                    // At equal tiers, the name given first (the label).
                    if (tier, name) < (b.tier, b.name) {
                        *b = found;
                    }
                })
                .or_insert(found);
        };
        self.index.starting(typed, &mut |key, names| {
            let tier = if key == typed.as_bytes() {
                Tier::Exact
            } else {
                Tier::Begun
            };
            for &n in names {
                offer(&mut best, n, tier);
            }
            ControlFlow::Continue(())
        });
        if best.len() < enough && forgiven(typed.chars().count()) > 0 {
            let heard = sounds(typed);
            self.sounds.starting(&heard, &mut |key, names| {
                let begun = key != heard.as_bytes();
                for &n in names {
                    offer(&mut best, n, Tier::Sounds { begun });
                }
                ControlFlow::Continue(())
            });
        }
        if best.len() < enough {
            let typed_chars = typed.chars().count();
            self.near.near(typed, &mut |key, names, near| {
                let key_chars = std::str::from_utf8(key).map_or(key.len(), |k| k.chars().count());
                // As a whole or by a start, whichever has fewer typos (a
                // start is never farther than the whole), the whole at equal
                // typos.
                let whole = (near.whole != FAR
                    && near.whole <= forgiven(typed_chars.max(key_chars)))
                .then_some(Tier::Typos {
                    edits: near.whole,
                    begun: false,
                });
                let begun = (near.begun <= forgiven(typed_chars)).then_some(Tier::Typos {
                    edits: near.begun,
                    begun: true,
                });
                let Some(tier) = whole.into_iter().chain(begun).min() else {
                    return ControlFlow::Continue(());
                };
                for &n in names {
                    offer(&mut best, n, tier);
                }
                ControlFlow::Continue(())
            });
        }
        best.into_values().collect()
    }

    /// The bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.index.heap_bytes()
            + self.sounds.heap_bytes()
            + self.near.heap_bytes()
            + self.names.iter().map(|n| n.len() + 16).sum::<usize>()
            + self.of.capacity() * 4
    }
}

/// The best `limit` of `found`, by tier, then `count` (more first), then
/// thing (the order things were numbered in).
pub fn best(mut found: Vec<Found>, count: &dyn Fn(u32) -> u32, limit: usize) -> Vec<Found> {
    let key = |f: &Found| (f.tier, std::cmp::Reverse(count(f.thing)), f.thing);
    if found.len() > limit && limit > 0 {
        found.select_nth_unstable_by_key(limit - 1, key);
        found.truncate(limit);
    }
    found.truncate(limit);
    found.sort_unstable_by_key(key);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[(u32, &str)]) -> Names {
        let mut g = Gathered::default();
        for &(thing, name) in list {
            g.name(thing, name);
        }
        g.build()
    }

    fn found(names: &Names, typed: &str) -> Vec<(u32, String, Tier)> {
        let mut f = names.find(&fold(typed), &|_| true, 10);
        f.sort_by_key(|f| (f.tier, f.thing));
        f.into_iter()
            .map(|f| (f.thing, names.name(f.name).to_owned(), f.tier))
            .collect()
    }

    #[test]
    fn a_thing_is_found_once_by_its_best_name() {
        let n = names(&[
            (0, "Danaus plexippus"),
            (0, "Monarch"),
            (1, "Danaus gilippus"),
        ]);
        assert_eq!(
            found(&n, "danaus plexippus"),
            [(0, "Danaus plexippus".into(), Tier::Exact)]
        );
        assert_eq!(
            found(&n, "plexippus danaus"),
            [(0, "Danaus plexippus".into(), Tier::Exact)]
        );
        assert_eq!(found(&n, "mon"), [(0, "Monarch".into(), Tier::Begun)]);
        assert_eq!(
            found(&n, "dana"),
            [
                (0, "Danaus plexippus".into(), Tier::Begun),
                (1, "Danaus gilippus".into(), Tier::Begun)
            ]
        );
        assert_eq!(
            found(&n, "monrach"),
            [(
                0,
                "Monarch".into(),
                Tier::Typos {
                    edits: 1,
                    begun: false
                }
            )]
        );
    }

    #[test]
    fn a_name_misspelt_as_heard_is_found() {
        let n = names(&[(0, "Nephia"), (1, "Nepheronia"), (2, "Danaus plexippus")]);
        let sounds_like = Tier::Sounds { begun: false };
        assert_eq!(found(&n, "nefia"), [(0, "Nephia".into(), sounds_like)]);
        assert_eq!(found(&n, "Nephya"), [(0, "Nephia".into(), sounds_like)]);
        // Within a typo, as before: found by both, the nearer tier kept.
        assert_eq!(found(&n, "nphia")[0].0, 0);
        assert_eq!(found(&n, "nephea")[0].0, 0);
        // A start heard alike: `plexipus` begins the species' second word.
        assert_eq!(
            found(&n, "plexipu"),
            [(2, "Danaus plexippus".into(), Tier::Sounds { begun: true })]
        );
        // Below 4 characters, nothing is heard alike.
        assert!(found(&n, "nef").is_empty());
    }

    #[test]
    fn a_name_is_as_near_as_its_nearest_start() {
        // `monrach` is two typos from `Monarchs` as a whole (a swap, an `s`)
        // and one from its start `monarch`: one typo, by its start.
        let n = names(&[(0, "Monarchs")]);
        assert_eq!(
            found(&n, "monrach"),
            [(
                0,
                "Monarchs".into(),
                Tier::Typos {
                    edits: 1,
                    begun: true
                }
            )]
        );
    }

    #[test]
    fn typos_are_looked_for_only_when_too_little_is_found_without() {
        let n = names(&[(0, "Dana"), (1, "Danaus")]);
        // `dana` names one thing exactly and begins another: with enough at
        // two, no typos are looked for.
        assert_eq!(n.find("dana", &|_| true, 2).len(), 2);
        // `danu` begins nothing; `dana` and `danaus` are each one typo away.
        assert_eq!(n.find("danu", &|_| true, 10).len(), 2);
        assert_eq!(n.find("danu", &|t| t == 1, 10).len(), 1);
    }

    #[test]
    fn the_best_come_by_tier_then_count() {
        let f = |thing, tier| Found {
            thing,
            name: thing,
            tier,
        };
        let typo = Tier::Typos {
            edits: 1,
            begun: false,
        };
        let all = vec![
            f(0, typo),
            f(1, Tier::Begun),
            f(2, Tier::Begun),
            f(3, Tier::Exact),
        ];
        let counts = [100, 1, 5, 0];
        let order: Vec<u32> = best(all, &|t| counts[t as usize], 3)
            .iter()
            .map(|f| f.thing)
            .collect();
        assert_eq!(order, [3, 2, 1]);
    }
}
