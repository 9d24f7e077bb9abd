//! Sort orders of one field, built once per field and kept: with them a sorted
//! page is found by looking positions up, not by reading and comparing rows on
//! every request.
//!
//! The order is the one `sort` promises: values ascending (strings by code point,
//! related records by id), nulls last in both directions, ties by ascending
//! position, which is ascending id.

use std::cmp::Ordering;

use super::column::{Column, Key, RefModels};
use super::index::Groups;
use super::value::Value;

/// Rank of a null: after every value, whichever the direction.
const NULL_RANK: u32 = u32::MAX;

/// One field's order over a table's rows.
#[derive(Debug)]
pub struct FieldOrder {
    /// Positions ascending by value, nulls last; equal values by position.
    ascending: Ascending,
    /// The rank of each row's value among the field's distinct values (0 for the
    /// smallest), or [`NULL_RANK`].
    ranks: Ranks,
    /// Where each distinct value's run starts in `ascending`, then where the
    /// non-null values end.
    runs: Runs,
    /// How a row's value is read as the small number [`Ranks::Keys`] is indexed by.
    dense: Dense,
}

/// How a value becomes a small number, one per distinct value, for an order
/// made by counting (no comparison sort, ranks per value rather than per row).
#[derive(Clone, Copy, Debug)]
enum Dense {
    /// The column's own: a string's code, a reference's position.
    Column,
    /// An integer less the column's smallest (a boolean: 0 or 1), where the
    /// integers span few values (years, days, flags).
    Offset(i64),
}

impl Dense {
    fn key(self, column: &Column, pos: usize) -> Option<u32> {
        match self {
            Dense::Column => column.dense_key(pos),
            Dense::Offset(min) => match column.get(pos) {
                Value::Int(v) | Value::Time(v) => Some((v - min) as u32),
                Value::Bool(b) => Some(u32::from(b)),
                _ => None,
            },
        }
    }
}

/// Integers spanning at most this many values per row (or 1,024 on a small
/// table) are ordered by counting: a rank per value, not per row.
const COUNTED_SPAN_PER: usize = 4;

/// How two values of one field compare in every order the API gives (sorts,
/// facets): numbers, instants, strings (by code point), booleans, related records
/// (by id: positions in a table ascend with ids); nulls after every value.
pub fn compare(a: Value, b: Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Greater,
        (_, Value::Null) => Ordering::Less,
        (Value::Int(x), Value::Int(y)) | (Value::Time(x), Value::Time(y)) => x.cmp(&y),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(&y),
        (Value::Ref(_, x), Value::Ref(_, y)) => x.cmp(&y),
        _ => Ordering::Equal,
    }
}

/// The rows in order: a list of their own, or (a grouped field of strings or of
/// references to one model) the groups in value order, whose rows are already
/// listed by position: 4 bytes a row fewer per field.
#[derive(Debug)]
enum Ascending {
    Rows(Vec<u32>),
    /// Positions ascend with the values (ids; instants of records added in
    /// order): the table's positions, shared by every such field.
    Identity,
    /// The key of each rank's group; the nulls' group is [`Key::Null`].
    Groups(Vec<Key>),
}

/// Ranks per row, or, for strings and references, per value: read through the
/// row's code or position (4 bytes a row fewer per field, and the sort itself is a
/// count of each value's rows once the few distinct values are sorted).
#[derive(Debug)]
enum Ranks {
    Rows(Vec<u32>),
    Keys(Vec<u32>),
    /// Each row's own position: rows in position order, each value held once.
    Positions,
}

/// Where each distinct value's run of rows starts in an order, then where the
/// non-null values end: run `r` is `starts[r]..starts[r + 1]`.
#[derive(Debug)]
enum Runs {
    Starts(Vec<u32>),
    /// This many values, each held by one row: run `r` is `r..r + 1` (ids, codes,
    /// instants: 4 bytes a row fewer).
    Single(u32),
}

impl Runs {
    fn of(starts: Vec<u32>) -> Runs {
        match starts.iter().enumerate().all(|(i, &s)| s as usize == i) {
            true => Runs::Single(starts.len() as u32 - 1),
            false => Runs::Starts(starts),
        }
    }

    /// How many distinct non-null values there are.
    fn distinct(&self) -> u32 {
        match self {
            Runs::Starts(starts) => starts.len() as u32 - 1,
            Runs::Single(n) => *n,
        }
    }

    /// Where run `r` starts (`r` up to the count of values: where they end).
    fn start(&self, r: usize) -> usize {
        match self {
            Runs::Starts(starts) => starts[r] as usize,
            Runs::Single(_) => r,
        }
    }

    /// The run that index `at` of the non-null values is in.
    fn holding(&self, at: usize) -> usize {
        match self {
            Runs::Starts(starts) => starts.partition_point(|&s| s as usize <= at) - 1,
            Runs::Single(_) => at,
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Runs::Starts(starts) => starts.capacity() * 4,
            Runs::Single(_) => 0,
        }
    }
}

/// The smallest integer of an integer column and how many values its integers
/// span, when they span few enough to be counted (see [`COUNTED_SPAN_PER`]).
fn span(column: &Column, rows: usize) -> Option<(i64, usize)> {
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for p in 0..rows {
        if let Value::Int(v) | Value::Time(v) = column.get(p) {
            (min, max) = (min.min(v), max.max(v));
        }
    }
    let span = usize::try_from(max.checked_sub(min)?)
        .ok()?
        .checked_add(1)?;
    (span <= (rows / COUNTED_SPAN_PER).max(1024)).then_some((min, span))
}

/// A field's order with the column it orders and the column's groups.
#[derive(Clone, Copy)]
pub struct Order<'t> {
    order: &'t FieldOrder,
    column: &'t Column,
    groups: Option<&'t Groups>,
    /// The table's positions in order, for an [`Ascending::Identity`] order.
    positions: &'t [u32],
}

impl FieldOrder {
    /// Sorts the rows of `column`, whose groups (if it is grouped) are `groups`.
    pub fn build(column: &Column, rows: usize, groups: Option<&Groups>) -> FieldOrder {
        match column {
            Column::Str(strings) => {
                let distinct = strings.distinct();
                let compare = |a: &u32, b: &u32| distinct.get(*a).cmp(distinct.get(*b));
                let keys = groups.map(|_| Key::Code as fn(u32) -> Key);
                FieldOrder::by_key(rows, distinct.len(), column, Dense::Column, compare, keys)
            }
            Column::Ref { models, .. } => {
                let keys = (0..rows).filter_map(|p| column.dense_key(p)).max();
                let keys = keys.map_or(0, |k| k as usize + 1);
                // A taxon's groups are per rank and position; its order is by position.
                let group_key = match (models, groups) {
                    (RefModels::One(m), Some(_)) => {
                        let m = *m;
                        Some(move |p| Key::Ref(m, p))
                    }
                    _ => None,
                };
                FieldOrder::by_key(rows, keys, column, Dense::Column, u32::cmp, group_key)
            }
            Column::Bool(_) => {
                let group_key = groups.map(|_| |k: u32| Key::Bool(k == 1));
                FieldOrder::by_key(rows, 2, column, Dense::Offset(0), u32::cmp, group_key)
            }
            Column::Int { .. } => match span(column, rows) {
                Some((min, keys)) => {
                    let group_key = groups.map(|_| move |k: u32| Key::Int(min + i64::from(k)));
                    let dense = Dense::Offset(min);
                    FieldOrder::by_key(rows, keys, column, dense, u32::cmp, group_key)
                }
                None => FieldOrder::by_sort(column, rows),
            },
            _ => FieldOrder::by_sort(column, rows),
        }
    }

    /// Orders rows whose values are small numbers (`keys` of them, compared by
    /// `cmp`): sorts the numbers rows hold, then places each row in its value's
    /// run, in position order.
    /// With `group_key` (how the column's groups key a value), the order is read
    /// from the groups and no row list is kept.
    fn by_key(
        rows: usize,
        keys: usize,
        column: &Column,
        dense: Dense,
        cmp: impl Fn(&u32, &u32) -> Ordering,
        group_key: Option<impl Fn(u32) -> Key>,
    ) -> FieldOrder {
        let mut count = vec![0u32; keys];
        let mut nulls = 0;
        for p in 0..rows {
            match dense.key(column, p) {
                Some(k) => count[k as usize] += 1,
                None => nulls += 1,
            }
        }
        let mut held: Vec<u32> = (0..keys as u32)
            .filter(|&k| count[k as usize] > 0)
            .collect();
        held.sort_by(&cmp);
        let mut key_rank = vec![NULL_RANK; keys];
        let mut runs = Vec::with_capacity(held.len() + 1);
        let mut at = 0;
        for (r, &k) in held.iter().enumerate() {
            key_rank[k as usize] = r as u32;
            runs.push(at);
            at += count[k as usize];
        }
        runs.push(at);
        if let Some(group_key) = group_key {
            let mut keys: Vec<Key> = held.iter().map(|&k| group_key(k)).collect();
            keys.push(Key::Null);
            return FieldOrder {
                ascending: Ascending::Groups(keys),
                ranks: Ranks::Keys(key_rank),
                runs: Runs::of(runs),
                dense,
            };
        }
        let mut next = runs.clone();
        let mut null_at = at;
        let mut ascending = vec![0u32; rows];
        for p in 0..rows {
            let slot = match dense.key(column, p) {
                Some(k) => &mut next[key_rank[k as usize] as usize],
                None => &mut null_at,
            };
            ascending[*slot as usize] = p as u32;
            *slot += 1;
        }
        debug_assert_eq!(null_at as usize - at as usize, nulls);
        FieldOrder {
            ascending: Ascending::Rows(ascending),
            ranks: Ranks::Keys(key_rank),
            runs: Runs::of(runs),
            dense,
        }
    }

    /// Orders rows by comparing their values.
    fn by_sort(column: &Column, rows: usize) -> FieldOrder {
        let mut ascending: Vec<u32> = (0..rows as u32).collect();
        // Stable: equal values keep ascending positions.
        ascending.sort_by(|&p, &q| compare(column.get(p as usize), column.get(q as usize)));
        let mut rank = vec![NULL_RANK; rows];
        let mut runs = Vec::new();
        let mut previous: Option<Value> = None;
        for (i, &p) in ascending.iter().enumerate() {
            let value = column.get(p as usize);
            if value == Value::Null {
                break;
            }
            if previous.is_none_or(|v| compare(v, value).is_ne()) {
                runs.push(i as u32);
            }
            previous = Some(value);
            rank[p as usize] = runs.len() as u32 - 1;
        }
        let non_null = rank.iter().filter(|&&r| r != NULL_RANK).count();
        runs.push(non_null as u32);
        runs.shrink_to_fit();
        let runs = Runs::of(runs);
        let in_place = ascending.iter().enumerate().all(|(i, &p)| p as usize == i);
        let (ascending, ranks) = match (in_place, &runs) {
            (true, Runs::Single(_)) => (Ascending::Identity, Ranks::Positions),
            (true, Runs::Starts(_)) => (Ascending::Identity, Ranks::Rows(rank)),
            (false, _) => (Ascending::Rows(ascending), Ranks::Rows(rank)),
        };
        FieldOrder {
            ascending,
            ranks,
            runs,
            dense: Dense::Column,
        }
    }

    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        let ascending = match &self.ascending {
            Ascending::Rows(rows) => rows.capacity() * 4,
            Ascending::Identity => 0,
            Ascending::Groups(keys) => keys.capacity() * std::mem::size_of::<Key>(),
        };
        let ranks = match &self.ranks {
            Ranks::Rows(r) | Ranks::Keys(r) => r.capacity() * 4,
            Ranks::Positions => 0,
        };
        ascending + ranks + self.runs.heap_bytes()
    }

    /// Whether the rows in this order are the table's positions in order, read
    /// from a list of them ([`FieldOrder::with`]).
    pub fn is_in_place(&self) -> bool {
        matches!(self.ascending, Ascending::Identity)
    }

    /// This order, read with the column and groups it was built from, and
    /// (when [`FieldOrder::is_in_place`]) the table's positions `0..rows`.
    pub fn with<'t>(
        &'t self,
        column: &'t Column,
        groups: Option<&'t Groups>,
        positions: &'t [u32],
    ) -> Order<'t> {
        Order {
            order: self,
            column,
            groups,
            positions,
        }
    }
}

impl<'t> Order<'t> {
    /// How many rows hold a value (the rest are null).
    fn non_null(&self) -> usize {
        let runs = &self.order.runs;
        runs.start(runs.distinct() as usize)
    }

    /// How many distinct non-null values there are.
    fn distinct(&self) -> u32 {
        self.order.runs.distinct()
    }

    /// The rows of run `r` (of rank `r`; the nulls when `r` is the count of
    /// distinct values), ascending.
    fn run(&self, r: usize) -> &'t [u32] {
        let runs = &self.order.runs;
        let rows = match &self.order.ascending {
            Ascending::Rows(rows) => rows,
            Ascending::Identity => self.positions,
            Ascending::Groups(keys) => {
                let groups = self.groups;
                return groups
                    .expect("an order read from groups is read with them")
                    .get(keys[r]);
            }
        };
        match r < self.distinct() as usize {
            true => &rows[runs.start(r)..runs.start(r + 1)],
            false => &rows[self.non_null()..],
        }
    }

    /// The position `i`-th in the order (`i` below the row count).
    pub fn nth(&self, i: usize, descending: bool) -> u32 {
        let runs = &self.order.runs;
        let non_null = self.non_null();
        if i >= non_null {
            return self.run(self.distinct() as usize)[i - non_null];
        }
        match (descending, &self.order.ascending) {
            (false, Ascending::Rows(rows)) => return rows[i],
            (false, Ascending::Identity) => return i as u32,
            _ => {}
        }
        // Descending, values run from the last run to the first, each run still
        // by ascending position.
        let at = if descending { non_null - 1 - i } else { i };
        let run = runs.holding(at);
        let (start, end) = (runs.start(run), runs.start(run + 1));
        let within = if descending {
            i - (non_null - end)
        } else {
            i - start
        };
        self.run(run)[within]
    }

    /// The rows in order, one slice per distinct value (ascending positions in
    /// each), the nulls' slice last.
    pub fn runs(&self, descending: bool) -> Box<dyn Iterator<Item = &'t [u32]> + 't> {
        let this = *self;
        let values = self.distinct() as usize;
        let nulls = std::iter::once(this.run(values));
        match descending {
            false => Box::new((0..values).map(move |r| this.run(r)).chain(nulls)),
            true => Box::new((0..values).rev().map(move |r| this.run(r)).chain(nulls)),
        }
    }

    /// A number that orders `pos` as the order does, ties aside (break them by
    /// position): its value's rank, reversed when descending, nulls last.
    pub fn key(&self, pos: u32, descending: bool) -> u32 {
        match self.rank(pos as usize) {
            None => NULL_RANK,
            Some(r) if descending => self.distinct() - 1 - r,
            Some(r) => r,
        }
    }

    /// The rank of the value at `pos` (`None` for a null): distinct values are
    /// numbered 0, 1, ... in ascending order.
    pub fn rank(&self, pos: usize) -> Option<u32> {
        let rank = match &self.order.ranks {
            Ranks::Rows(ranks) => ranks[pos],
            Ranks::Keys(ranks) => ranks[self.order.dense.key(self.column, pos)? as usize],
            Ranks::Positions if pos < self.non_null() => pos as u32,
            Ranks::Positions => NULL_RANK,
        };
        Some(rank).filter(|&r| r != NULL_RANK)
    }

    /// How many rows hold the value of each rank, in rank order.
    pub fn value_counts(&self) -> impl ExactSizeIterator<Item = u32> + 't {
        let runs = &self.order.runs;
        (0..runs.distinct() as usize).map(move |r| (runs.start(r + 1) - runs.start(r)) as u32)
    }

    /// How many rows are null.
    pub fn nulls(&self) -> usize {
        self.run(self.distinct() as usize).len()
    }

    /// A row holding the value of rank `r`.
    pub fn holder(&self, r: u32) -> u32 {
        self.run(r as usize)[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::value::OwnedValue;

    fn column(values: &[Option<i64>]) -> Column {
        let mut c = Column::new(crate::model::Type::Int, values.len());
        for v in values {
            let v = v.map_or(OwnedValue::Null, OwnedValue::Int);
            c.push(&v, true).unwrap();
        }
        c
    }

    /// The positions of the tables these tests order.
    const POSITIONS: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

    /// Integers already in position order, or each held once, keep no list of
    /// rows, ranks or runs they do not need, and order as any other.
    #[test]
    fn orders_in_place_or_of_single_values() {
        let cases: [(&[Option<i64>], bool, bool); 5] = [
            (&[Some(1), Some(2), Some(3), Some(5)], true, true),
            (&[Some(1), Some(2), None, None], true, true),
            (&[Some(1), Some(1), Some(2), None], true, false),
            (&[Some(9), Some(1), None, Some(2)], false, true),
            (&[Some(9), Some(1), Some(9), None], false, false),
        ];
        for (values, in_place, single) in cases {
            let c = column(values);
            let n = values.len();
            let built = FieldOrder::by_sort(&c, n);
            assert_eq!(built.is_in_place(), in_place, "{values:?}");
            assert_eq!(matches!(built.runs, Runs::Single(_)), single, "{values:?}");
            assert_eq!(matches!(built.ranks, Ranks::Positions), in_place && single);
            let order = built.with(&c, None, &POSITIONS[..n]);
            // Nulls last both ways, ties by position.
            let by = |d: bool| {
                let mut p: Vec<u32> = (0..n as u32).collect();
                p.sort_by_key(|&p| match values[p as usize] {
                    Some(v) => (0, if d { -v } else { v }),
                    None => (1, 0),
                });
                p
            };
            for d in [false, true] {
                let nth: Vec<u32> = (0..n).map(|i| order.nth(i, d)).collect();
                assert_eq!(nth, by(d), "{values:?} descending {d}");
                let runs: Vec<u32> = order.runs(d).flatten().copied().collect();
                assert_eq!(runs, by(d), "{values:?} descending {d}");
                let keys: Vec<u32> = (0..n as u32).map(|p| order.key(p, d)).collect();
                let mut sorted = keys.clone();
                sorted.sort();
                assert_eq!(
                    by(d).iter().map(|&p| keys[p as usize]).collect::<Vec<_>>(),
                    sorted
                );
            }
            let nulls = values.iter().filter(|v| v.is_none()).count();
            assert_eq!(order.nulls(), nulls);
            assert_eq!(order.value_counts().sum::<u32>() as usize, n - nulls);
        }
    }

    #[test]
    fn nulls_last_and_ties_by_position_both_ways() {
        // Positions:            0        1        2     3        4        5
        let c = column(&[Some(2), None, Some(1), Some(2), None, Some(3)]);
        let built = FieldOrder::build(&c, 6, None);
        let order = built.with(&c, None, &POSITIONS[..6]);
        let up: Vec<u32> = (0..6).map(|i| order.nth(i, false)).collect();
        let down: Vec<u32> = (0..6).map(|i| order.nth(i, true)).collect();
        assert_eq!(up, [2, 0, 3, 5, 1, 4]);
        assert_eq!(down, [5, 0, 3, 2, 1, 4]);
        let flat = |d| order.runs(d).flatten().copied().collect::<Vec<u32>>();
        assert_eq!((flat(false), flat(true)), (up, down));
        let keys: Vec<u32> = (0..6).map(|p| order.key(p, true)).collect();
        assert_eq!(keys, [1, NULL_RANK, 2, 1, NULL_RANK, 0]);
    }

    #[test]
    fn integers_of_a_wide_span_are_compared() {
        let c = column(&[Some(i64::MAX), Some(0), Some(i64::MIN), None]);
        let built = FieldOrder::build(&c, 4, None);
        assert!(matches!(built.ranks, Ranks::Rows(_)));
        let order = built.with(&c, None, &POSITIONS[..4]);
        let up: Vec<u32> = (0..4).map(|i| order.nth(i, false)).collect();
        assert_eq!(up, [2, 1, 0, 3]);
    }

    #[test]
    fn all_null_and_empty() {
        let c = column(&[None, None]);
        let built = FieldOrder::build(&c, 2, None);
        let order = built.with(&c, None, &POSITIONS[..2]);
        assert_eq!((order.nth(0, true), order.nth(1, true)), (0, 1));
        assert_eq!(order.runs(true).flatten().count(), 2);
        let c = column(&[]);
        let built = FieldOrder::build(&c, 0, None);
        let order = built.with(&c, None, &POSITIONS[..0]);
        assert_eq!(order.runs(true).flatten().count(), 0);
    }

    /// Strings, references, booleans and integers of a small span are ordered
    /// by counting (`by_key`): the same order, runs and ranks as comparing every
    /// row (`by_sort`).
    #[test]
    fn counted_orders_are_the_compared_ones() {
        let mut text = Column::new(crate::model::Type::Str, 9);
        for v in ["b", "", "é", "B", "b", "a", "", "z", "é"] {
            text.push(&OwnedValue::str(v), true).unwrap();
        }
        text.push(&OwnedValue::Null, true).unwrap();
        let mut refs = Column::new(crate::model::Type::Taxon, 6);
        for v in [
            OwnedValue::Ref(crate::model::Model::Genus, 4),
            OwnedValue::Null,
            OwnedValue::Ref(crate::model::Model::Species, 1),
            OwnedValue::Ref(crate::model::Model::Genus, 1),
            OwnedValue::Ref(crate::model::Model::Order, 9),
            OwnedValue::Null,
        ] {
            refs.push(&v, true).unwrap();
        }
        let mut people = Column::new(crate::model::Type::RefId(crate::model::Model::Person), 5);
        for v in [Some(3), None, Some(0), Some(3), Some(1)] {
            let v = v.map_or(OwnedValue::Null, |p| {
                OwnedValue::Ref(crate::model::Model::Person, p)
            });
            people.push(&v, true).unwrap();
        }
        let years = column(&[
            Some(1999),
            None,
            Some(1996),
            Some(1999),
            Some(2000),
            Some(1996),
            None,
        ]);
        let signed = column(&[Some(-1), Some(-4), None, Some(0), Some(-1)]);
        let mut flags = Column::new(crate::model::Type::Bool, 6);
        for v in [Some(true), None, Some(false), Some(true), None, Some(false)] {
            flags
                .push(&v.map_or(OwnedValue::Null, OwnedValue::Bool), true)
                .unwrap();
        }
        for (c, rows) in [
            (&text, 10),
            (&refs, 6),
            (&people, 5),
            (&years, 7),
            (&signed, 5),
            (&flags, 6),
        ] {
            let groups = Groups::by_fields(&[c], rows, &[0], 1).pop().unwrap();
            assert!(groups.is_some());
            let compared = FieldOrder::by_sort(c, rows);
            let b = compared.with(c, None, &POSITIONS[..rows]);
            for grouped in [None, groups.as_ref()] {
                let counted = FieldOrder::build(c, rows, grouped);
                assert!(matches!(counted.ranks, Ranks::Keys(_)));
                let a = counted.with(c, grouped, &POSITIONS[..rows]);
                for d in [false, true] {
                    let flat = |o: Order| o.runs(d).map(<[u32]>::to_vec).collect::<Vec<_>>();
                    assert_eq!(flat(a), flat(b));
                    let nth = |o: Order| (0..rows).map(|i| o.nth(i, d)).collect::<Vec<_>>();
                    assert_eq!(nth(a), nth(b));
                    assert_eq!(
                        (0..rows as u32).map(|p| a.key(p, d)).collect::<Vec<_>>(),
                        (0..rows as u32).map(|p| b.key(p, d)).collect::<Vec<_>>()
                    );
                }
                assert_eq!(a.nulls(), b.nulls());
                let holders = |o: Order| (0..o.distinct()).map(|r| o.holder(r)).collect::<Vec<_>>();
                assert_eq!(holders(a), holders(b));
            }
        }
    }
}
