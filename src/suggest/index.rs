//! Folded names in a finite-state transducer (`fst`): each key leads to the
//! items it names (a record's name, a specimen), found whole or by their
//! start. The keys are gathered as [`Keys`], sorted and grouped once, and
//! the same groups build the trie typos are looked for in (`near`).

use std::ops::ControlFlow;

use fst::{IntoStreamer, Streamer};

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

    /// The keys in order, each once, with their items.
    pub fn grouped(self) -> Grouped {
        let Keys { text, mut keys } = self;
        let slice = |&(s, l, _): &(u32, u32, u32)| &text[s as usize..(s + l) as usize];
        keys.sort_unstable_by(|a, b| slice(a).cmp(slice(b)).then(a.2.cmp(&b.2)));
        keys.dedup_by(|a, b| slice(a) == slice(b) && a.2 == b.2);
        let mut groups = Vec::new();
        let mut postings = Vec::with_capacity(keys.len());
        let mut at = 0;
        while at < keys.len() {
            let (start, len, _) = keys[at];
            let first = postings.len() as u64;
            while at < keys.len()
                && slice(&keys[at]) == &text[start as usize..(start + len) as usize]
            {
                postings.push(keys[at].2);
                at += 1;
            }
            let count = (postings.len() as u64 - first).min(0xFF_FFFF);
            groups.push((start, len, (first << 24) | count));
        }
        Grouped {
            text,
            groups,
            postings,
        }
    }
}

/// Keys in order, each with where its items are in `postings`
/// (`start << 24 | count`).
pub struct Grouped {
    text: Vec<u8>,
    groups: Vec<(u32, u32, u64)>,
    pub postings: Vec<u32>,
}

impl Grouped {
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> {
        self.groups
            .iter()
            .map(|&(s, l, v)| (&self.text[s as usize..(s + l) as usize], v))
    }
}

/// The items a key's value says, in `postings`.
pub fn items(postings: &[u32], value: u64) -> &[u32] {
    let (start, count) = ((value >> 24) as usize, (value & 0xFF_FFFF) as usize);
    &postings[start..start + count]
}

/// The keys in an `fst::Map`, each valued by where its items are.
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
        let grouped = keys.grouped();
        let mut builder = fst::MapBuilder::memory();
        for (key, value) in grouped.iter() {
            builder
                .insert(key, value)
                .expect("keys are inserted once each, in order");
        }
        let map = builder.into_map().into_fst().into_inner();
        Index {
            map: fst::Map::new(map).expect("a map just built reads back"),
            postings: grouped.postings,
        }
    }

    /// The items of exactly `key`.
    pub fn exact(&self, key: &str) -> &[u32] {
        self.map.get(key).map_or(&[], |v| items(&self.postings, v))
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
            if visit(key, items(&self.postings, value)).is_break() {
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
}
