//! Folded names in a finite-state transducer (`fst`): each key leads to the
//! items it names (a record's name, a specimen), found whole, by their start,
//! or within a few typos by an automaton that walks only the keys that can
//! still come close enough.

use std::ops::ControlFlow;

use fst::{Automaton, IntoStreamer, Streamer};

use super::fold::forgiven;

/// The longest text looked for with typos, in bytes: longer text is looked
/// for whole or by its start only (no name is typed that long with a typo
/// left in it, and the automaton's state grows with it).
pub const NEAR_AT_MOST: usize = 48;

/// Keys and the items they lead to, gathered before an [`Index`] is built.
#[derive(Default)]
pub struct Keys {
    text: Vec<u8>,
    /// (start in `text`, length, item).
    keys: Vec<(u32, u32, u32)>,
}

impl Keys {
    /// `key` (folded) leads to `item`.
    pub fn push(&mut self, key: &str, item: u32) {
        if key.is_empty() {
            return;
        }
        let start = self.text.len() as u32;
        self.text.extend_from_slice(key.as_bytes());
        self.keys.push((start, key.len() as u32, item));
    }
}

/// The keys in an `fst::Map`, each valued by where its items are in
/// `postings`: `start << 24 | count`.
pub struct Index {
    map: fst::Map<Vec<u8>>,
    postings: Vec<u32>,
}

impl Default for Index {
    fn default() -> Index {
        Index::build(Keys::default())
    }
}

/// What is visited: a key and the items it leads to; `Break` stops the walk.
pub type Visit<'a> = &'a mut dyn FnMut(&[u8], &[u32]) -> ControlFlow<()>;

impl Index {
    pub fn build(keys: Keys) -> Index {
        let Keys { text, mut keys } = keys;
        let slice = |&(s, l, _): &(u32, u32, u32)| &text[s as usize..(s + l) as usize];
        keys.sort_unstable_by(|a, b| slice(a).cmp(slice(b)).then(a.2.cmp(&b.2)));
        keys.dedup_by(|a, b| slice(a) == slice(b) && a.2 == b.2);
        let mut builder = fst::MapBuilder::memory();
        let mut postings = Vec::with_capacity(keys.len());
        let mut at = 0;
        while at < keys.len() {
            let key = slice(&keys[at]);
            let start = postings.len() as u64;
            while at < keys.len() && slice(&keys[at]) == key {
                postings.push(keys[at].2);
                at += 1;
            }
            let count = postings.len() as u64 - start;
            builder
                .insert(key, (start << 24) | count.min(0xFF_FFFF))
                .expect("keys are inserted once each, in order");
        }
        let map = builder.into_map().into_fst().into_inner();
        Index {
            map: fst::Map::new(map).expect("a map just built reads back"),
            postings,
        }
    }

    fn items(&self, value: u64) -> &[u32] {
        let (start, count) = ((value >> 24) as usize, (value & 0xFF_FFFF) as usize);
        &self.postings[start..start + count]
    }

    /// The items of exactly `key`.
    pub fn exact(&self, key: &str) -> &[u32] {
        self.map.get(key).map_or(&[], |v| self.items(v))
    }

    /// Every key beginning with `start`, in key order, until `visit` breaks.
    pub fn starting(&self, start: &str, visit: Visit<'_>) {
        let mut end = start.as_bytes().to_vec();
        // Folded text is UTF-8, which never holds 0xFF: the last byte grows.
        if let Some(last) = end.last_mut() {
            *last += 1;
        }
        let mut range = self.map.range().ge(start);
        if !end.is_empty() {
            range = range.lt(&end);
        }
        let mut stream = range.into_stream();
        while let Some((key, value)) = stream.next() {
            if visit(key, self.items(value)).is_break() {
                return;
            }
        }
    }

    /// Every key that can be `typed` with typos: whole within the typos
    /// `typed`'s length forgives plus two (a name longer than what is typed
    /// forgives more; the caller decides), or begun within the typos `typed`'s
    /// length forgives. Not every key visited is near: the caller measures.
    pub fn near(&self, typed: &str, visit: Visit<'_>) {
        let typed = typed.as_bytes();
        if typed.len() > NEAR_AT_MOST {
            return;
        }
        let chars = typed.len();
        let near = Near {
            typed,
            begun: forgiven(chars),
            whole: forgiven(chars + 2),
        };
        let mut stream = self.map.search(near).into_stream();
        while let Some((key, value)) = stream.next() {
            if visit(key, self.items(value)).is_break() {
                return;
            }
        }
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The bytes it holds.
    pub fn heap_bytes(&self) -> usize {
        self.map.as_fst().as_bytes().len() + self.postings.capacity() * 4
    }
}

/// The automaton of keys near `typed`: a row of the edit distances between
/// `typed`'s starts and the key read so far, and the row before it (for
/// swaps).
struct Near<'a> {
    typed: &'a [u8],
    /// Typos forgiven against a start of the key.
    begun: u8,
    /// Typos forgiven against the whole key.
    whole: u8,
}

#[derive(Clone)]
struct Row {
    now: [u8; NEAR_AT_MOST + 1],
    before: [u8; NEAR_AT_MOST + 1],
    /// The key's last byte read.
    last: u8,
    read: u32,
    /// A start of the key was near: every key below is.
    begun: bool,
}

impl Automaton for Near<'_> {
    type State = Row;

    fn start(&self) -> Row {
        let mut now = [0; NEAR_AT_MOST + 1];
        for (j, d) in now.iter_mut().enumerate().take(self.typed.len() + 1) {
            *d = j.min(u8::MAX as usize) as u8;
        }
        Row {
            now,
            before: now,
            last: 0,
            read: 0,
            begun: self.typed.len() <= self.begun as usize,
        }
    }

    fn is_match(&self, row: &Row) -> bool {
        row.begun || row.now[self.typed.len()] <= self.whole
    }

    fn can_match(&self, row: &Row) -> bool {
        let n = self.typed.len();
        row.begun || row.now[..=n].iter().any(|&d| d <= self.whole)
    }

    fn will_always_match(&self, row: &Row) -> bool {
        row.begun
    }

    fn accept(&self, row: &Row, byte: u8) -> Row {
        if row.begun {
            return row.clone();
        }
        let (typed, n) = (self.typed, self.typed.len());
        let mut next = Row {
            now: [0; NEAR_AT_MOST + 1],
            before: row.now,
            last: byte,
            read: row.read + 1,
            begun: false,
        };
        next.now[0] = row.now[0].saturating_add(1);
        for j in 1..=n {
            let cost = u8::from(typed[j - 1] != byte);
            let mut d = row.now[j - 1]
                .saturating_add(cost)
                .min(row.now[j].saturating_add(1))
                .min(next.now[j - 1].saturating_add(1));
            if row.read > 0 && j > 1 && typed[j - 1] == row.last && typed[j - 2] == byte {
                d = d.min(row.before[j - 2].saturating_add(1));
            }
            next.now[j] = d;
        }
        next.begun = next.now[n] <= self.begun;
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(words: &[&str]) -> Index {
        let mut keys = Keys::default();
        for (i, w) in words.iter().enumerate() {
            keys.push(w, i as u32);
        }
        Index::build(keys)
    }

    fn collect(walk: impl FnOnce(Visit<'_>)) -> Vec<String> {
        let mut out = Vec::new();
        walk(&mut |key, _| {
            out.push(String::from_utf8_lossy(key).into_owned());
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn keys_are_found_whole_and_by_their_start() {
        let ix = index(&["danaus", "danaus plexippus", "plexippus danaus", "dione"]);
        assert_eq!(ix.exact("danaus"), [0]);
        assert!(ix.exact("dana").is_empty());
        assert_eq!(
            collect(|v| ix.starting("dana", v)),
            ["danaus", "danaus plexippus"]
        );
        assert_eq!(collect(|v| ix.starting("x", v)), Vec::<String>::new());
    }

    #[test]
    fn a_key_shared_by_items_leads_to_each() {
        let ix = index(&["monarch", "monarch", "viceroy"]);
        assert_eq!(ix.exact("monarch"), [0, 1]);
    }

    #[test]
    fn near_keys_are_visited_and_far_ones_are_not() {
        let ix = index(&[
            "danaus",
            "danaus plexippus",
            "dione",
            "limenitis",
            "plexippus",
        ]);
        let near = |typed: &str| collect(|v| ix.near(typed, v));
        // A deleted letter, a swap, a changed letter.
        assert_eq!(near("danus"), ["danaus", "danaus plexippus"]);
        assert_eq!(near("dnaaus"), ["danaus", "danaus plexippus"]);
        assert_eq!(near("limenotis"), ["limenitis"]);
        // Two typos from eight letters.
        assert_eq!(near("plxeipus"), ["plexippus"]);
        // Too short to forgive anything against a start (begun exactly, it
        // is near), and two typos from a whole name.
        assert_eq!(near("dio"), ["dione"]);
        assert_eq!(near("dpo"), Vec::<String>::new());
        assert_eq!(near("xyzzy"), Vec::<String>::new());
    }
}
