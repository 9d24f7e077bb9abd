//! Load-time indexes that let filters avoid reading every row.
//!
//! [`Groups`]: for one field of a table, the rows that share each value (per
//! related record for a list of references). Fields where most values are distinct
//! (ids, timestamps, free text) are not grouped: a group per row would cost more
//! memory than a scan costs time.
//!
//! [`TextColumn`]: one field's lowercased text for every row in one buffer, so a
//! substring filter is one pass of a substring search over contiguous memory,
//! instead of a visit to every row (two cache misses each).

use std::borrow::Cow;

use ahash::AHashMap;

use super::value::{Row, Value};

/// The rows of a table grouped by one field's value.
#[derive(Debug)]
pub struct Groups {
    /// A value → its group.
    keys: AHashMap<Value, u32>,
    /// Group `g` holds `positions[starts[g]..starts[g + 1]]`.
    starts: Vec<u32>,
    /// Row positions, ascending within each group.
    positions: Vec<u32>,
    /// One row holding each group's value, to read the value back without a copy.
    representatives: Vec<u32>,
}

/// A field's groups while they are built.
#[derive(Default)]
struct Grouping {
    keys: AHashMap<Value, u32>,
    members: Vec<Vec<u32>>,
    representatives: Vec<u32>,
    /// Too many distinct values: no groups for this field.
    abandoned: bool,
}

impl Grouping {
    fn add(&mut self, value: &Value, pos: u32) {
        let g = match self.keys.get(value) {
            Some(&g) => g,
            None => {
                // Cloned once per distinct value, not once per row.
                let g = self.members.len() as u32;
                self.keys.insert(value.clone(), g);
                self.members.push(Vec::new());
                self.representatives.push(pos);
                g
            }
        };
        let group = &mut self.members[g as usize];
        // A list may name the same record twice: one entry is enough.
        if group.last() != Some(&pos) {
            group.push(pos);
        }
    }

    fn into_groups(self, rows: usize) -> Groups {
        let mut starts = Vec::with_capacity(self.members.len() + 1);
        let mut positions = Vec::with_capacity(rows);
        for group in self.members {
            starts.push(positions.len() as u32);
            positions.extend(group);
        }
        starts.push(positions.len() as u32);
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
    /// Groups the rows by each of `fields`, in one pass over the rows; a field gets
    /// `None` when more than one value in `max_distinct_per` rows is distinct (on
    /// tables big enough to matter).
    pub fn by_fields(
        rows: &[Row],
        fields: &[usize],
        max_distinct_per: usize,
    ) -> Vec<Option<Groups>> {
        let limit = if rows.len() < 1024 {
            usize::MAX
        } else {
            rows.len() / max_distinct_per
        };
        let mut building: Vec<Grouping> = fields.iter().map(|_| Grouping::default()).collect();
        for (pos, row) in rows.iter().enumerate() {
            let pos = pos as u32;
            for (g, &field) in building.iter_mut().zip(fields) {
                if g.abandoned {
                    continue;
                }
                match &row[field] {
                    Value::Refs(m, ps) if ps.is_empty() => {
                        g.add(&Value::Refs(*m, Box::new([])), pos)
                    }
                    Value::Refs(m, ps) => ps.iter().for_each(|&p| g.add(&Value::Ref(*m, p), pos)),
                    v => g.add(v, pos),
                }
                if g.members.len() > limit {
                    *g = Grouping {
                        abandoned: true,
                        ..Grouping::default()
                    };
                }
            }
        }
        building
            .into_iter()
            .map(|g| (!g.abandoned).then(|| g.into_groups(rows.len())))
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
    pub fn sizes(&self) -> impl Iterator<Item = (&Value, usize)> {
        self.keys.iter().map(|(v, &g)| (v, self.members(g).len()))
    }

    /// Every grouped value with how many of the rows `among` passes hold it: a
    /// walk of the groups' positions (ascending runs, so `among` can be a bitset),
    /// not of the rows.
    pub fn sizes_among(
        &self,
        among: impl Fn(u32) -> bool,
    ) -> impl Iterator<Item = (&Value, usize)> {
        self.keys.iter().map(move |(v, &g)| {
            let n = self.members(g).iter().filter(|&&p| among(p)).count();
            (v, n)
        })
    }

    /// The rows whose value is `value` (or whose list holds it), ascending.
    pub fn get(&self, value: &Value) -> &[u32] {
        self.keys.get(value).map_or(&[], |&g| self.members(g))
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
    let mut lists = lists.into_iter().peekable();
    let Some(first) = lists.next() else {
        return Cow::Borrowed(&[]);
    };
    if lists.peek().is_none() {
        return Cow::Borrowed(first);
    }
    let mut bits = vec![0u64; rows.div_ceil(64)];
    let mut count = 0;
    for list in std::iter::once(first).chain(lists) {
        count += list.len();
        for &p in list {
            bits[p as usize / 64] |= 1 << (p % 64);
        }
    }
    let mut out = Vec::with_capacity(count);
    for (w, &word) in bits.iter().enumerate() {
        let mut word = word;
        while word != 0 {
            out.push((w * 64) as u32 + word.trailing_zeros());
            word &= word - 1;
        }
    }
    Cow::Owned(out)
}

/// Lowercased text of one field (or of a row's search text) for every row, NUL
/// after each row, in one buffer.
#[derive(Debug, Default)]
pub struct TextColumn {
    text: String,
    /// Row `r` is `text[start(r)..ends[r]]`, where `start(r)` is one past `ends[r - 1]`.
    ends: Vec<usize>,
}

impl TextColumn {
    /// Lowercases and joins one text per row.
    pub fn build<'a>(rows: impl IntoIterator<Item = &'a str>) -> TextColumn {
        let mut column = TextColumn::default();
        for value in rows {
            column.text.push_str(&value.to_lowercase());
            column.ends.push(column.text.len());
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
        let start = if row == 0 { 0 } else { self.ends[row - 1] + 1 };
        &self.text[start..self.ends[row]]
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
            while row + step < self.ends.len() && self.ends[row + step] < end {
                row += step;
                step *= 2;
            }
            row += self.ends[row..].partition_point(|&e| e < end);
            out.push(row as u32);
            from = self.ends[row] + 1;
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
    /// Token `t`'s rows are `rows[row_starts[t]..row_starts[t + 1]]`, ascending.
    row_starts: Vec<u32>,
    rows: Vec<u32>,
}

impl Words {
    /// Indexes the tokens of every row of `column`.
    pub fn build(column: &TextColumn) -> Words {
        let mut ids: AHashMap<&str, u32> = AHashMap::new();
        let mut holders: Vec<Vec<u32>> = Vec::new();
        let mut words = Words::default();
        for row in 0..column.len() {
            let text = column.get(row);
            for token in text.split(|c: char| c.is_whitespace() || c == '\0') {
                if token.is_empty() {
                    continue;
                }
                let id = *ids.entry(token).or_insert_with(|| {
                    words.starts.push(words.dictionary.len() as u32);
                    words.dictionary.push_str(token);
                    words.dictionary.push('\0');
                    holders.push(Vec::new());
                    holders.len() as u32 - 1
                });
                let list = &mut holders[id as usize];
                if list.last() != Some(&(row as u32)) {
                    list.push(row as u32);
                }
            }
        }
        words.row_starts.reserve_exact(holders.len() + 1);
        words.rows.reserve_exact(holders.iter().map(Vec::len).sum());
        for list in holders {
            words.row_starts.push(words.rows.len() as u32);
            words.rows.extend(list);
        }
        words.row_starts.push(words.rows.len() as u32);
        words.dictionary.shrink_to_fit();
        words
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
        let holders =
            |t: usize| &self.rows[self.row_starts[t] as usize..self.row_starts[t + 1] as usize];
        Some(union(rows, tokens.into_iter().map(holders)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    #[test]
    fn words_find_what_the_column_finds() {
        let column = TextColumn::build([
            "Pine woods\0near a creek",
            "",
            "creek\0CREEKSIDE  meadow",
            "Prés humides",
            "pine",
        ]);
        let words = Words::build(&column);
        for term in [
            "pine", "creek", "ek", "e", "é", "prés", "ows", "meadow", "zzz", "de\u{a0}",
        ] {
            let want = column.find(term);
            match words.find(term, 5) {
                Some(got) => assert_eq!(*got, want[..], "{term}"),
                None => assert!(term.contains('\u{a0}'), "{term}"),
            }
        }
        assert!(words.find("a creek", 5).is_none());
        assert!(words.find("", 5).is_none());
    }

    fn rows(values: Vec<Value>) -> Vec<Row> {
        values
            .into_iter()
            .map(|v| vec![v].into_boxed_slice())
            .collect()
    }

    fn one(rows: &[Row], max_distinct_per: usize) -> Option<Groups> {
        Groups::by_fields(rows, &[0], max_distinct_per)
            .pop()
            .unwrap()
    }

    #[test]
    fn groups_values_and_list_members() {
        let r = rows(vec![
            Value::Int(7),
            Value::Null,
            Value::Int(7),
            Value::Refs(Model::Person, Box::new([1, 2, 2])),
            Value::Refs(Model::Person, Box::new([2])),
        ]);
        let g = one(&r, 2).unwrap();
        assert_eq!(g.get(&Value::Int(7)), &[0, 2]);
        assert_eq!(g.get(&Value::Null), &[1]);
        assert_eq!(g.get(&Value::Ref(Model::Person, 2)), &[3, 4]);
        assert_eq!(g.get(&Value::Int(8)), &[] as &[u32]);
        assert_eq!(*g.select(r.len(), |rep| rep != 1), [0, 2, 3, 4]);
        assert_eq!(*g.select(r.len(), |rep| rep == 1), [1]);
        assert!(g.select(r.len(), |_| false).is_empty());
    }

    #[test]
    fn unions_are_ascending_and_distinct() {
        let (a, b, c): (&[u32], &[u32], &[u32]) = (&[3, 64, 200], &[0, 3, 65], &[199]);
        assert_eq!(*union(201, [a, b, c]), [0, 3, 64, 65, 199, 200]);
        assert_eq!(*union(201, [b]), [0, 3, 65]);
        assert!(union(201, std::iter::empty()).is_empty());
    }

    #[test]
    fn text_columns_find_rows_by_substring() {
        let c = TextColumn::build(["Ab", "", "xAbAB", "É", "b"]);
        assert_eq!(c.get(0), "ab");
        assert_eq!(c.get(1), "");
        assert_eq!(c.get(3), "é");
        assert_eq!(c.find("ab"), vec![0, 2]);
        assert_eq!(c.find("b"), vec![0, 2, 4]);
        assert_eq!(c.find("é"), vec![3]);
        assert_eq!(c.find("bx"), Vec::<u32>::new());
        assert_eq!(c.find("b\0x"), Vec::<u32>::new());
        assert_eq!(c.find("").len(), 5);
        assert_eq!(TextColumn::build([]).find("a"), Vec::<u32>::new());
    }

    #[test]
    fn refuses_mostly_distinct_fields_on_big_tables() {
        let r = rows((0..5000).map(|i| Value::Int(i % 3000)).collect());
        assert!(one(&r, 4).is_none());
        let r = rows((0..5000).map(|i| Value::Int(i % 100)).collect());
        let g = one(&r, 4).unwrap();
        assert_eq!(g.get(&Value::Int(3)).len(), 50);
    }
}
