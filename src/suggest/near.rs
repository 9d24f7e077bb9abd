//! Keys within typos of a text: the keys in a trie, walked depth first with a
//! row of the edit distance table per node, kept only in the band where it
//! can still be small, and cut off where no cell of it is.
//!
//! Why a trie of our own and not the `fst` map the names are also in: the
//! walk is the same (the same automaton, the same nodes visited), but reading
//! an `fst` node decodes it, and the walk visits over a thousand nodes a
//! typo: at 1,000,000 generated specimens the `fst` walk took 116-133 us a
//! text at the median and this one 40-62 us (3,000 texts, release build, this
//! machine's two cores). The trie costs about 17 bytes a node.

use std::ops::ControlFlow;

use super::fold::forgiven;
use super::index::{items, Keys};

/// The longest text looked for with typos, in bytes: longer text is looked
/// for whole or by its start only.
pub const NEAR_AT_MOST: usize = 48;

/// How near a key is to what was typed, in typos: as a whole, and at best
/// against a start of it; [`FAR`] for more than was looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nearness {
    pub whole: u8,
    pub begun: u8,
}

/// More typos than were looked for.
pub const FAR: u8 = u8::MAX;

/// What is visited near a text: a key, its items, how near.
pub type NearVisit<'a> = &'a mut dyn FnMut(&[u8], &[u32], Nearness) -> ControlFlow<()>;

/// The most typos looked for (two, from 8 characters): the band of the table
/// the walk keeps is this far either side of the diagonal.
const MOST: usize = 2;
const BAND: usize = 2 * MOST + 1;

/// The first characters of a key, in which at most one typo is looked for:
/// with two forgiven, every key's first two characters are within them, and
/// the walk went on below each. At 1,000,000 generated specimens this cut
/// the median text from 63 to 28 us (3,000 starts and typos of names).
const EARLY: usize = 2;
// The walk's shortcut below a key's first byte counts on it.
const _: () = assert!(EARLY == 2);

/// What `typed` is held as: after three bytes no key holds and before more
/// (UTF-8 never holds 0xFF), so a cell's characters are read without a bound.
const PAD: usize = NEAR_AT_MOST + BAND + 4;
const NONE: u8 = 0xFF;

/// Keys as a trie: nodes in depth-first order, each node's edges together.
#[derive(Default)]
pub struct Trie {
    /// Node `n`'s edges are `bytes[first[n]..first[n + 1]]` (ascending), to
    /// the nodes in `to` at the same places.
    first: Vec<u32>,
    bytes: Vec<u8>,
    to: Vec<u32>,
    /// The items of the key ending at each node, as [`items`] reads them;
    /// `u64::MAX` where none ends.
    ends: Vec<u64>,
    postings: Vec<u32>,
}

impl Trie {
    pub fn build(keys: Keys) -> Trie {
        let grouped = keys.grouped();
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut ends = vec![u64::MAX];
        // Keys come in order: a node's last edge is the only one a later key
        // can share.
        for (key, value) in grouped.iter() {
            let mut node = 0;
            for &b in key {
                node = match children[node].last() {
                    Some(&(last, child)) if last == b => child as usize,
                    _ => {
                        let child = children.len();
                        children.push(Vec::new());
                        ends.push(u64::MAX);
                        children[node].push((b, child as u32));
                        child
                    }
                };
            }
            ends[node] = value;
        }
        let mut trie = Trie {
            first: Vec::with_capacity(children.len() + 1),
            ends,
            postings: grouped.postings,
            ..Trie::default()
        };
        for edges in &children {
            trie.first.push(trie.bytes.len() as u32);
            trie.bytes.extend(edges.iter().map(|e| e.0));
            trie.to.extend(edges.iter().map(|e| e.1));
        }
        trie.first.push(trie.bytes.len() as u32);
        trie
    }

    /// Every key within typos of `typed`, with how near it is: whole within
    /// the typos `typed`'s length forgives plus two (a name longer than what
    /// is typed forgives more; the caller decides), or begun within the typos
    /// `typed`'s length forgives. Keys begun exactly are visited too. In key
    /// order, until `visit` breaks.
    pub fn near(&self, typed: &str, visit: NearVisit<'_>) {
        let typed = typed.as_bytes();
        if typed.len() > NEAR_AT_MOST || self.ends.is_empty() {
            return;
        }
        let near = Near::new(typed);
        let mut key = Vec::with_capacity(64);
        let _ = self.walk(&near, 0, &near.start(), &mut key, visit);
    }

    fn walk(
        &self,
        near: &Near,
        node: usize,
        row: &Row,
        key: &mut Vec<u8>,
        visit: NearVisit<'_>,
    ) -> ControlFlow<()> {
        let end = self.ends[node];
        if end != u64::MAX && near.is_match(row) {
            let nearness = Nearness {
                whole: near.whole_of(row),
                begun: row.begun,
            };
            visit(key, items(&self.postings, end), nearness)?;
        }
        let (a, b) = (self.first[node] as usize, self.first[node + 1] as usize);
        // Below the first byte, a key's first two are within one typo of a
        // start of `typed` only if the first is one of typed's first two or
        // the second one of its first three: the others are not read.
        let second = match key.first() {
            Some(&first) if row.read == 1 && !near.begun_at(row) => {
                let p = &near.padded[3..6];
                (first != p[0] && first != p[1]).then_some(p)
            }
            _ => None,
        };
        for (&byte, &child) in self.bytes[a..b].iter().zip(&self.to[a..b]) {
            if second.is_some_and(|p| !p.contains(&byte)) {
                continue;
            }
            let next = near.accept(row, byte);
            if near.can_match(&next) {
                key.push(byte);
                let flow = self.walk(near, child as usize, &next, key, visit);
                key.pop();
                flow?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The bytes it holds.
    pub fn heap_bytes(&self) -> usize {
        self.first.capacity() * 4
            + self.bytes.capacity()
            + self.to.capacity() * 4
            + self.ends.capacity() * 8
            + self.postings.capacity() * 4
    }
}

/// The automaton of keys near `typed`: the edit distances (optimal string
/// alignment: a swap of neighbours is one typo) between the key read so far
/// and `typed`'s starts, kept only in the band where they can still be small
/// (a cell `|i - j|` off the diagonal is at least that: Ukkonen's cut-off).
struct Near {
    len: usize,
    /// `typed[k]` is `padded[k + 3]`.
    padded: [u8; PAD],
    /// Typos forgiven against a start of the key.
    begun: u8,
    /// Typos forgiven against the whole key (at most [`MOST`]).
    whole: u8,
}

/// Row `read` of the table: its cells `read - MOST ..= read + MOST`.
#[derive(Clone, Copy)]
struct Row {
    now: [u8; BAND],
    /// The row before, for swaps.
    before: [u8; BAND],
    /// The key's last byte read.
    last: u8,
    read: u32,
    /// The fewest typos between `typed` and a start of the key so far.
    begun: u8,
}

impl Near {
    fn new(typed: &[u8]) -> Near {
        let mut padded = [NONE; PAD];
        padded[3..3 + typed.len()].copy_from_slice(typed);
        Near {
            len: typed.len(),
            padded,
            begun: forgiven(typed.len()),
            whole: forgiven(typed.len() + 2).min(MOST as u8),
        }
    }

    /// Row 0: `typed`'s starts against nothing.
    fn start(&self) -> Row {
        let mut now = [FAR; BAND];
        for (t, cell) in now.iter_mut().enumerate() {
            // Cell t of row 0 is column t - MOST, whose distance is itself.
            if (MOST..=MOST + self.len).contains(&t) {
                *cell = (t - MOST) as u8;
            }
        }
        Row {
            now,
            before: [FAR; BAND],
            last: NONE,
            read: 0,
            begun: self.len.min(FAR as usize) as u8,
        }
    }

    /// The typos between `typed` and the whole key read, or [`FAR`].
    fn whole_of(&self, row: &Row) -> u8 {
        // Column n is at band index n - read + MOST.
        match (self.len + MOST).checked_sub(row.read as usize) {
            Some(t) if t < BAND => row.now[t],
            _ => FAR,
        }
    }

    /// Whether a start of the key read was near: every key below is.
    fn begun_at(&self, row: &Row) -> bool {
        row.begun <= self.begun
    }

    fn is_match(&self, row: &Row) -> bool {
        row.begun <= self.begun || self.whole_of(row) <= self.whole
    }

    /// Whether a key below can still be near: a start was, or a cell is
    /// within the typos forgiven (cells only grow along a path).
    fn can_match(&self, row: &Row) -> bool {
        let most = match row.read as usize {
            0..=EARLY => self.whole.min(1),
            _ => self.whole,
        };
        row.begun <= self.begun || row.now.iter().any(|&d| d <= most)
    }

    /// The row after reading `byte`.
    fn accept(&self, row: &Row, byte: u8) -> Row {
        let read = row.read as usize + 1;
        let mut now = [FAR; BAND];
        // Cell t is column read - MOST + t: those from column 0 (column 0
        // itself is `read`) to column n.
        let lo = MOST.saturating_sub(read);
        let hi = (self.len + MOST).saturating_sub(read).min(BAND - 1);
        if read <= self.len + MOST {
            let mut t = lo;
            if read <= MOST {
                now[t] = read as u8;
                t += 1;
            }
            while t <= hi {
                // typed[j - 1] and typed[j - 2], padded.
                let here = self.padded[read + t];
                let back = self.padded[read + t - 1];
                // The row before holds column j - 1 at t and column j at
                // t + 1; the one before it, column j - 2 at t.
                let mut d = row.now[t].saturating_add(u8::from(here != byte));
                if t + 1 < BAND {
                    d = d.min(row.now[t + 1].saturating_add(1));
                }
                if t > 0 {
                    d = d.min(now[t - 1].saturating_add(1));
                }
                if here == row.last && back == byte {
                    d = d.min(row.before[t].saturating_add(1));
                }
                now[t] = d;
                t += 1;
            }
        }
        let mut next = Row {
            now,
            before: row.now,
            last: byte,
            read: read as u32,
            begun: row.begun,
        };
        next.begun = next.begun.min(self.whole_of(&next));
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trie(words: &[&str]) -> Trie {
        let mut keys = Keys::default();
        for (i, w) in words.iter().enumerate() {
            keys.push(w, i as u32);
        }
        Trie::build(keys)
    }

    fn near(trie: &Trie, typed: &str) -> Vec<(String, Nearness)> {
        let mut out = Vec::new();
        trie.near(typed, &mut |key, _, nearness| {
            out.push((String::from_utf8_lossy(key).into_owned(), nearness));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn near_keys_are_visited_and_far_ones_are_not() {
        let t = trie(&[
            "danaus",
            "danaus plexippus",
            "dione",
            "limenitis",
            "plexippus",
        ]);
        let keys =
            |typed: &str| -> Vec<String> { near(&t, typed).into_iter().map(|(k, _)| k).collect() };
        // A deleted letter, a swap, a changed letter.
        assert_eq!(keys("danus"), ["danaus", "danaus plexippus"]);
        assert_eq!(keys("dnaaus"), ["danaus", "danaus plexippus"]);
        assert_eq!(keys("limenotis"), ["limenitis"]);
        // Two typos from eight letters.
        assert_eq!(keys("plxeipus"), ["plexippus"]);
        // Too short to forgive anything against a start (begun exactly, it
        // is near), and two typos from a whole name.
        assert_eq!(keys("dio"), ["dione"]);
        assert!(keys("dpo").is_empty());
        assert!(keys("xyzzy").is_empty());
        assert_eq!(
            near(&t, "danus"),
            [
                ("danaus".into(), Nearness { whole: 1, begun: 1 }),
                (
                    "danaus plexippus".into(),
                    Nearness {
                        whole: FAR,
                        begun: 1
                    }
                ),
            ]
        );
    }

    #[test]
    fn a_key_shared_by_items_leads_to_each() {
        let t = trie(&["monarch", "monarch", "viceroy"]);
        let mut found = Vec::new();
        t.near("monrach", &mut |_, items, _| {
            found.extend_from_slice(items);
            ControlFlow::Continue(())
        });
        assert_eq!(found, [0, 1]);
    }

    /// The edits between `a` and `b` (optimal string alignment), as a whole,
    /// at best against a start of `b`, and at best after `b`'s first
    /// [`EARLY`] bytes (against any start of `a`), by the whole table.
    fn distances(a: &[u8], b: &[u8]) -> (usize, usize, usize) {
        let (n, m) = (a.len(), b.len());
        let mut d = vec![vec![0usize; n + 1]; m + 1];
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=m {
            d[i][0] = i;
            for j in 1..=n {
                let mut v = (d[i - 1][j - 1] + usize::from(a[j - 1] != b[i - 1]))
                    .min(d[i - 1][j] + 1)
                    .min(d[i][j - 1] + 1);
                if i > 1 && j > 1 && a[j - 1] == b[i - 2] && a[j - 2] == b[i - 1] {
                    v = v.min(d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        let early = d[EARLY.min(m)].iter().copied().min().unwrap_or(0);
        (d[m][n], (0..=m).map(|i| d[i][n]).min().unwrap_or(0), early)
    }

    proptest::proptest! {
        /// The walk visits exactly the keys the whole table says are near
        /// (with at most one typo in their first bytes), and says how near
        /// as the table does.
        #[test]
        fn near_agrees_with_the_whole_table(
            keys in proptest::collection::vec("[abc ]{0,12}", 1..60),
            typed in "[abc]{1,12}",
        ) {
            let mut gathered = Keys::default();
            for (i, k) in keys.iter().enumerate() {
                gathered.push(k, i as u32);
            }
            let t = Trie::build(gathered);
            let (kb, kw) = (forgiven(typed.len()) as usize, forgiven(typed.len() + 2) as usize);
            let clip = |d: usize| if d <= kw { d as u8 } else { FAR };
            let mut want: Vec<(String, Nearness)> = keys
                .iter()
                .filter(|k| !k.is_empty())
                .filter_map(|k| {
                    let (whole, begun, early) = distances(typed.as_bytes(), k.as_bytes());
                    // At most one typo in a key's first bytes, unless a start
                    // within them was near already.
                    let (_, begun_early, _) =
                        distances(typed.as_bytes(), &k.as_bytes()[..EARLY.min(k.len())]);
                    let cut = k.len() >= EARLY && early > kw.min(1) && begun_early > kb;
                    (!cut && (begun <= kb || whole <= kw))
                        .then(|| (k.clone(), Nearness { whole: clip(whole), begun: clip(begun) }))
                })
                .collect();
            want.sort_by(|a, b| a.0.cmp(&b.0));
            want.dedup();
            let got: Vec<(String, Nearness)> = near(&t, &typed)
                .into_iter()
                .map(|(k, n)| (k, Nearness { whole: clip(n.whole as usize), begun: clip(n.begun as usize) }))
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
