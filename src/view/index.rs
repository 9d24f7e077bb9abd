//! Load-time indexes that let filters avoid reading every row.
//!
//! [`Groups`]: for one field of a table, the rows that share each value (per
//! related record for a list of references). Fields where most values are distinct
//! (ids, timestamps, free text) are not grouped: a group per row would cost more
//! memory than a scan costs time.
//!
//! [`TextColumn`]: a string field's distinct values, lowercased, in one buffer, so
//! a substring filter is one pass of a substring search over contiguous memory
//! (and each value is searched once, however many rows hold it).
//!
//! [`Words`]: each distinct token of the lowercased strings and the rows holding
//! it, so a one-word search scans tokens, not text.

use std::borrow::Cow;

use ahash::AHashMap;

use super::bits::Bits;
use super::column::{Column, Key};

/// The rows of a table grouped by one field's value.
#[derive(Debug)]
pub struct Groups {
    /// A value → its group.
    keys: AHashMap<Key, u32>,
    /// Group `g` holds `positions[starts[g]..starts[g + 1]]`.
    starts: Vec<u32>,
    /// Row positions, ascending within each group.
    positions: Vec<u32>,
    /// One row holding each group's value, to read the value back without a copy.
    representatives: Vec<u32>,
}

/// A field's groups while they are built: each row's group noted as the rows
/// are read, then the rows placed by group in one list sized by their counts
/// (rather than a list a group grown row by row: the index phase at 1M fell
/// from 1.45-1.52 s to 1.02-1.26 s).
#[derive(Default)]
struct Grouping {
    keys: AHashMap<Key, u32>,
    /// How many rows each group holds.
    counts: Vec<u32>,
    /// The row that last joined each group (a list may name a record twice).
    last: Vec<u32>,
    representatives: Vec<u32>,
    /// Each (group, row) in row order.
    joined: Vec<(u32, u32)>,
}

impl Grouping {
    fn add(&mut self, key: Key, pos: u32) {
        let g = match self.keys.get(&key) {
            Some(&g) => g,
            None => {
                let g = self.counts.len() as u32;
                self.keys.insert(key, g);
                self.counts.push(0);
                self.last.push(u32::MAX);
                self.representatives.push(pos);
                g
            }
        };
        if self.last[g as usize] != pos {
            self.last[g as usize] = pos;
            self.counts[g as usize] += 1;
            self.joined.push((g, pos));
        }
    }

    fn len(&self) -> usize {
        self.counts.len()
    }

    fn into_groups(self) -> Groups {
        let mut starts = Vec::with_capacity(self.counts.len() + 1);
        let mut at = 0;
        for &n in &self.counts {
            starts.push(at);
            at += n;
        }
        starts.push(at);
        let mut next = starts.clone();
        let mut positions = vec![0; at as usize];
        for &(g, pos) in &self.joined {
            positions[next[g as usize] as usize] = pos;
            next[g as usize] += 1;
        }
        let mut keys = self.keys;
        keys.shrink_to_fit();
        Groups {
            keys,
            starts,
            positions,
            representatives: self.representatives,
        }
    }
}

impl Groups {
    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        let keys = self.keys.capacity() * (std::mem::size_of::<Key>() + 4 + 1);
        keys + 4
            * (self.starts.capacity() + self.positions.capacity() + self.representatives.capacity())
    }

    /// Groups the rows by each of `fields`, a column at a time; a field gets
    /// `None` when more than one value in `max_distinct_per` rows is distinct (on
    /// tables big enough to matter).
    pub fn by_fields<C: std::ops::Deref<Target = Column>>(
        columns: &[C],
        rows: usize,
        fields: &[usize],
        max_distinct_per: usize,
    ) -> Vec<Option<Groups>> {
        let limit = if rows < 1024 {
            usize::MAX
        } else {
            rows / max_distinct_per
        };
        fields
            .iter()
            .map(|&field| {
                let column: &Column = &columns[field];
                if column.strings().is_some_and(|s| s.distinct().len() > limit) {
                    return None;
                }
                let mut g = Grouping {
                    joined: Vec::with_capacity(rows),
                    ..Grouping::default()
                };
                for pos in 0..rows {
                    column.keys(pos, |key| g.add(key, pos as u32));
                    if g.len() > limit {
                        return None;
                    }
                }
                Some(g.into_groups())
            })
            .collect()
    }

    /// How many groups (distinct values) there are.
    pub fn len(&self) -> usize {
        self.representatives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.representatives.is_empty()
    }

    fn members(&self, group: u32) -> &[u32] {
        let g = group as usize;
        &self.positions[self.starts[g] as usize..self.starts[g + 1] as usize]
    }

    /// Every grouped value with how many rows hold it.
    pub fn sizes(&self) -> impl Iterator<Item = (Key, usize)> + '_ {
        self.keys.iter().map(|(&k, &g)| (k, self.members(g).len()))
    }

    /// Every grouped value with how many of the rows `among` passes hold it: a
    /// walk of the groups' positions (ascending runs, so `among` can be a bitset),
    /// not of the rows.
    pub fn sizes_among<'a>(
        &'a self,
        among: impl Fn(u32) -> bool + 'a,
    ) -> impl Iterator<Item = (Key, usize)> + 'a {
        self.keys.iter().map(move |(&k, &g)| {
            let n = self.members(g).iter().filter(|&&p| among(p)).count();
            (k, n)
        })
    }

    /// The rows whose value has this key (or whose list holds it), ascending.
    pub fn get(&self, key: Key) -> &[u32] {
        self.keys.get(&key).map_or(&[], |&g| self.members(g))
    }

    /// The rows of every group whose value passes `keep`, ascending and distinct.
    /// `keep` is given a row holding the group's value.
    pub fn select(&self, rows: usize, mut keep: impl FnMut(u32) -> bool) -> Cow<'_, [u32]> {
        union(
            rows,
            self.representatives
                .iter()
                .enumerate()
                .filter(|(_, &rep)| keep(rep))
                .map(|(g, _)| self.members(g as u32)),
        )
    }
}

/// The union of ascending lists of row positions (below `rows`), ascending and
/// distinct: one list is borrowed, several are merged through a bitmap of the rows.
pub fn union<'a>(rows: usize, lists: impl IntoIterator<Item = &'a [u32]>) -> Cow<'a, [u32]> {
    union_held(rows, lists.into_iter().map(Held::Listed))
}

/// The rows an index holds for one value: listed, or as bits where most rows
/// hold it.
#[derive(Clone, Copy)]
pub enum Held<'a> {
    Listed(&'a [u32]),
    Bits(&'a Bits),
}

/// [`union`] of rows held either way.
pub fn union_held<'a>(rows: usize, sets: impl IntoIterator<Item = Held<'a>>) -> Cow<'a, [u32]> {
    let mut sets = sets.into_iter().peekable();
    let Some(first) = sets.next() else {
        return Cow::Borrowed(&[]);
    };
    if let (Held::Listed(list), None) = (first, sets.peek()) {
        return Cow::Borrowed(list);
    }
    let mut bits = Bits::none(rows);
    for set in std::iter::once(first).chain(sets) {
        match set {
            Held::Listed(list) => list.iter().for_each(|&p| bits.set(p as usize)),
            Held::Bits(held) => bits.or(held),
        }
    }
    let mut out = Vec::with_capacity(bits.count());
    bits.for_each(|p| out.push(p as u32));
    Cow::Owned(out)
}

/// Lowercased texts (a string field's distinct values), NUL after each, in one
/// buffer; "rows" below are the texts' numbers.
#[derive(Debug, Default)]
pub struct TextColumn {
    text: String,
    /// Row `r` is `text[start(r)..ends[r]]`, where `start(r)` is one past `ends[r - 1]`
    /// (a field's distinct strings hold less than 4 GiB: `column::Distinct`).
    ends: Vec<u32>,
}

impl TextColumn {
    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4
    }

    /// Lowercases and joins one text per row, into buffers sized once (an
    /// ASCII text lowercased byte by byte, without a string of its own).
    pub fn build<'a>(rows: impl Iterator<Item = &'a str> + Clone) -> TextColumn {
        let (count, bytes) = rows
            .clone()
            .fold((0, 0), |(n, b), r| (n + 1, b + r.len() + 1));
        let mut column = TextColumn {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(count),
        };
        for value in rows {
            match value.is_ascii() {
                true => column
                    .text
                    .extend(value.chars().map(|c| c.to_ascii_lowercase())),
                false => column.text.push_str(&value.to_lowercase()),
            }
            let end = u32::try_from(column.text.len());
            column
                .ends
                .push(end.expect("a field's lowercased strings hold less than 4 GiB"));
            column.text.push('\0');
        }
        column.text.shrink_to_fit();
        column
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The lowercased text of row `row`.
    pub fn get(&self, row: usize) -> &str {
        let start = if row == 0 {
            0
        } else {
            self.ends[row - 1] as usize + 1
        };
        &self.text[start..self.ends[row] as usize]
    }

    /// The rows whose text contains `term`, ascending: one substring search over
    /// the buffer. A term that is empty or holds NUL is checked row by row instead.
    pub fn find(&self, term: &str) -> Vec<u32> {
        if term.is_empty() || term.contains('\0') {
            return (0..self.ends.len())
                .filter(|&r| self.get(r).contains(term))
                .map(|r| r as u32)
                .collect();
        }
        let finder = memchr::memmem::Finder::new(term.as_bytes());
        let text = self.text.as_bytes();
        let mut out = Vec::new();
        let (mut from, mut row) = (0, 0);
        while let Some(at) = finder.find(&text[from..]) {
            let end = from + at + term.len();
            // The first row ending at or after the match holds it (a match never
            // spans NUL). Matches come in order, so gallop forward from the last row.
            let mut step = 1;
            while row + step < self.ends.len() && (self.ends[row + step] as usize) < end {
                row += step;
                step *= 2;
            }
            row += self.ends[row..].partition_point(|&e| (e as usize) < end);
            out.push(row as u32);
            from = self.ends[row] as usize + 1;
            if from >= text.len() {
                break;
            }
        }
        out
    }
}

/// The words of a text column: its distinct whitespace-separated tokens, and per
/// token the rows holding it. A term without whitespace can only occur inside one
/// token, so the rows holding it are the rows of the tokens that contain it: one
/// substring search over the distinct tokens (far less text than the column) and a
/// union of their rows, with the same answer as searching the column.
#[derive(Debug, Default)]
pub struct Words {
    /// The distinct tokens, NUL after each.
    dictionary: String,
    /// Where each token starts in `dictionary`, ascending.
    starts: Vec<u32>,
    /// Token `t`'s rows are `rows[row_starts[t]..row_starts[t + 1]]`, ascending,
    /// unless it is one of the `dense`.
    row_starts: Vec<u32>,
    rows: Vec<u32>,
    /// The tokens held by more than one row in [`DENSE_PER`], ascending, with
    /// their rows as bits.
    dense: Vec<(u32, Bits)>,
}

/// A token held by more than one row in this many keeps its rows as a bit a
/// row, less than 4 bytes a row holding it (at a million specimens, a hundred
/// words such as a sex or a method held 13 of the 20 million places).
const DENSE_PER: usize = 32;

impl Words {
    /// Indexes the tokens of every row: `columns` are the lowercased distinct
    /// values of each string field, and `code(i, row)` the value of `columns[i]`
    /// that `row` holds. Each value is split once, however many rows hold it.
    pub fn build(
        rows: usize,
        columns: &[&TextColumn],
        code: impl Fn(usize, usize) -> Option<u32>,
    ) -> Words {
        let mut ids: AHashMap<&str, u32> = AHashMap::new();
        let mut words = Words::default();
        // Per column, each value's tokens: `tokens[starts[c]..starts[c + 1]]`.
        let split: Vec<(Vec<u32>, Vec<u32>)> = columns
            .iter()
            .map(|column| {
                let (mut starts, mut tokens) = (vec![0], Vec::new());
                for value in 0..column.len() {
                    for token in column
                        .get(value)
                        .split(|c: char| c.is_whitespace() || c == '\0')
                    {
                        if token.is_empty() {
                            continue;
                        }
                        let id = *ids.entry(token).or_insert_with(|| {
                            words.starts.push(words.dictionary.len() as u32);
                            words.dictionary.push_str(token);
                            words.dictionary.push('\0');
                            words.starts.len() as u32 - 1
                        });
                        if !tokens[starts[value] as usize..].contains(&id) {
                            tokens.push(id);
                        }
                    }
                    starts.push(tokens.len() as u32);
                }
                (starts, tokens)
            })
            .collect();
        // Every (row, token) pair, each token once a row, in row order. Walked
        // twice, to count each token's rows and then to place them, rather than
        // a list a token grown by pushing (a million small lists at 1M specimens).
        let tokens = words.starts.len();
        let each = |f: &mut dyn FnMut(u32, usize)| {
            let mut last = vec![u32::MAX; tokens];
            for row in 0..rows as u32 {
                for (i, (starts, held)) in split.iter().enumerate() {
                    let Some(c) = code(i, row as usize) else {
                        continue;
                    };
                    for &t in &held[starts[c as usize] as usize..starts[c as usize + 1] as usize] {
                        if last[t as usize] != row {
                            last[t as usize] = row;
                            f(row, t as usize);
                        }
                    }
                }
            }
        };
        let mut count = vec![0u32; tokens];
        each(&mut |_, t| count[t] += 1);
        // Where each listed token's next row goes, or (with `DENSE` set) which of
        // the dense tokens it is.
        const DENSE: u32 = 1 << 31;
        words.row_starts.reserve_exact(tokens + 1);
        let mut next = count;
        let mut listed = 0;
        for (t, n) in next.iter_mut().enumerate() {
            words.row_starts.push(listed);
            if *n as usize > rows / DENSE_PER {
                *n = DENSE | words.dense.len() as u32;
                words.dense.push((t as u32, Bits::none(rows)));
            } else {
                (*n, listed) = (listed, listed + *n);
                assert!(listed < DENSE, "more than 2^31 words of rows");
            }
        }
        words.rows = vec![0; listed as usize];
        each(&mut |row, t| match next[t] {
            n if n & DENSE != 0 => words.dense[(n & !DENSE) as usize].1.set(row as usize),
            n => {
                words.rows[n as usize] = row;
                next[t] += 1;
            }
        });
        words.row_starts.push(listed);
        words.dictionary.shrink_to_fit();
        words
    }

    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        let dense: usize = self.dense.iter().map(|(_, b)| 4 + b.heap_bytes()).sum();
        self.dictionary.capacity()
            + 4 * (self.starts.capacity() + self.row_starts.capacity() + self.rows.capacity())
            + dense
    }

    /// The rows whose text contains `term`, ascending; `None` when the term is not
    /// one these words can answer (empty, or holding whitespace or NUL).
    pub fn find(&self, term: &str, rows: usize) -> Option<Cow<'_, [u32]>> {
        if term.is_empty() || term.chars().any(|c| c.is_whitespace() || c == '\0') {
            return None;
        }
        let mut tokens = Vec::new();
        for at in memchr::memmem::find_iter(self.dictionary.as_bytes(), term.as_bytes()) {
            let token = self.starts.partition_point(|&s| s as usize <= at) - 1;
            if tokens.last() != Some(&token) {
                tokens.push(token);
            }
        }
        let held = |t: usize| match self.dense.binary_search_by_key(&(t as u32), |(t, _)| *t) {
            Ok(at) => Held::Bits(&self.dense[at].1),
            Err(_) => Held::Listed(
                &self.rows[self.row_starts[t] as usize..self.row_starts[t + 1] as usize],
            ),
        };
        Some(union_held(rows, tokens.into_iter().map(held)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Model, Type};
    use crate::view::value::OwnedValue;

    #[test]
    fn words_find_what_the_column_finds() {
        // Two fields' distinct values, and which value of each the five rows hold.
        let a =
            TextColumn::build(["Pine woods", "creek", "Prés humides", "pine", "x\0y"].into_iter());
        let b = TextColumn::build(["near a creek", "CREEKSIDE  meadow"].into_iter());
        let held: [[Option<u32>; 2]; 5] = [
            [Some(0), Some(0)],
            [None, None],
            [Some(1), Some(1)],
            [Some(2), None],
            [Some(3), None],
        ];
        let words = Words::build(5, &[&a, &b], |i, row| held[row][i]);
        for term in [
            "pine", "creek", "ek", "e", "é", "prés", "ows", "meadow", "zzz", "de\u{a0}", "y",
        ] {
            let want: Vec<u32> = (0..5u32)
                .filter(|&r| {
                    held[r as usize]
                        .iter()
                        .zip([&a, &b])
                        .any(|(c, col)| c.is_some_and(|c| col.get(c as usize).contains(term)))
                })
                .collect();
            match words.find(term, 5) {
                Some(got) => assert_eq!(*got, want[..], "{term}"),
                None => assert!(term.contains('\u{a0}'), "{term}"),
            }
        }
        assert!(words.find("a creek", 5).is_none());
        assert!(words.find("", 5).is_none());
        // 64 rows: the tokens of `a` are held by 12 or 13 rows each (kept as
        // bits), those of `b` by one (kept as a list).
        let words = Words::build(64, &[&a, &b], |i, row| match i {
            0 => Some(row as u32 % 5),
            _ => (row == 7).then_some(1),
        });
        assert!(!words.dense.is_empty() && !words.rows.is_empty());
        for term in ["pine", "creek", "meadow", "e", "zzz"] {
            let want: Vec<u32> = (0..64u32)
                .filter(|&r| {
                    a.get(r as usize % 5).contains(term) || (r == 7 && b.get(1).contains(term))
                })
                .collect();
            assert_eq!(*words.find(term, 64).unwrap(), want[..], "{term}");
        }
    }

    fn column(ty: Type, values: Vec<OwnedValue>) -> Column {
        let mut c = Column::new(ty, values.len());
        for v in &values {
            c.push(v, true).unwrap();
        }
        c
    }

    fn one(c: &Column, rows: usize, max_distinct_per: usize) -> Option<Groups> {
        Groups::by_fields(&[c], rows, &[0], max_distinct_per)
            .pop()
            .unwrap()
    }

    #[test]
    fn groups_values_and_list_members() {
        let ints = column(
            Type::Int,
            vec![OwnedValue::Int(7), OwnedValue::Null, OwnedValue::Int(7)],
        );
        let g = one(&ints, 3, 2).unwrap();
        assert_eq!(g.get(Key::Int(7)), &[0, 2]);
        assert_eq!(g.get(Key::Null), &[1]);
        assert_eq!(g.get(Key::Int(8)), &[] as &[u32]);
        assert_eq!(*g.select(3, |rep| rep != 1), [0, 2]);
        assert_eq!(*g.select(3, |rep| rep == 1), [1]);
        assert!(g.select(3, |_| false).is_empty());
        let lists = column(
            Type::RefIds(Model::Person),
            vec![
                OwnedValue::Refs(Model::Person, Box::new([1, 2, 2])),
                OwnedValue::Refs(Model::Person, Box::new([2])),
                OwnedValue::Refs(Model::Person, Box::new([])),
            ],
        );
        let g = one(&lists, 3, 2).unwrap();
        assert_eq!(g.get(Key::Ref(Model::Person, 2)), &[0, 1]);
        assert_eq!(g.get(Key::Ref(Model::Person, 1)), &[0]);
        assert_eq!(g.get(Key::NoRefs), &[2]);
    }

    #[test]
    fn unions_are_ascending_and_distinct() {
        let (a, b, c): (&[u32], &[u32], &[u32]) = (&[3, 64, 200], &[0, 3, 65], &[199]);
        assert_eq!(*union(201, [a, b, c]), [0, 3, 64, 65, 199, 200]);
        assert_eq!(*union(201, [b]), [0, 3, 65]);
        assert!(union(201, std::iter::empty()).is_empty());
        // Rows held as bits join the listed ones; bits alone are read out too.
        let bits = Bits::of(201, [5, 64, 199]);
        let held = [Held::Listed(a), Held::Bits(&bits), Held::Listed(b)];
        assert_eq!(*union_held(201, held), [0, 3, 5, 64, 65, 199, 200]);
        assert_eq!(*union_held(201, [Held::Bits(&bits)]), [5, 64, 199]);
    }

    #[test]
    fn text_columns_find_rows_by_substring() {
        let c = TextColumn::build(["Ab", "", "xAbAB", "É", "b"].into_iter());
        assert_eq!(c.get(0), "ab");
        assert_eq!(c.get(1), "");
        assert_eq!(c.get(3), "é");
        assert_eq!(c.find("ab"), vec![0, 2]);
        assert_eq!(c.find("b"), vec![0, 2, 4]);
        assert_eq!(c.find("é"), vec![3]);
        assert_eq!(c.find("bx"), Vec::<u32>::new());
        assert_eq!(c.find("b\0x"), Vec::<u32>::new());
        assert_eq!(c.find("").len(), 5);
        assert_eq!(
            TextColumn::build([].into_iter()).find("a"),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn refuses_mostly_distinct_fields_on_big_tables() {
        let c = column(
            Type::Int,
            (0..5000).map(|i| OwnedValue::Int(i % 3000)).collect(),
        );
        assert!(one(&c, 5000, 4).is_none());
        let c = column(
            Type::Int,
            (0..5000).map(|i| OwnedValue::Int(i % 100)).collect(),
        );
        let g = one(&c, 5000, 4).unwrap();
        assert_eq!(g.get(Key::Int(3)).len(), 50);
        let text = (0..5000).map(|i| OwnedValue::Str(format!("v{}", i % 3000).into()));
        assert!(one(&column(Type::Str, text.collect()), 5000, 4).is_none());
    }
}
