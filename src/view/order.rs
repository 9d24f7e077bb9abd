//! Sort orders of one field, built once per field and kept: with them a sorted
//! page is found by looking positions up, not by reading and comparing rows on
//! every request.
//!
//! The order is the one `sort` promises: values ascending (strings by code point,
//! related records by id), nulls last in both directions, ties by ascending
//! position, which is ascending id.

use std::cmp::Ordering;

use super::column::Column;
use super::value::Value;

/// Rank of a null: after every value, whichever the direction.
const NULL_RANK: u32 = u32::MAX;

/// One field's order over a table's rows.
#[derive(Debug)]
pub struct FieldOrder {
    /// Positions ascending by value, nulls last; equal values by position.
    ascending: Vec<u32>,
    /// Per position, the rank of its value among the field's distinct values
    /// (0 for the smallest), or [`NULL_RANK`].
    rank: Vec<u32>,
    /// Where each distinct value's run starts in `ascending`, then where the
    /// non-null values end: run `r` is `ascending[runs[r]..runs[r + 1]]`.
    runs: Vec<u32>,
}

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

impl FieldOrder {
    /// Sorts the rows by `field`.
    pub fn build(column: &Column, rows: usize) -> FieldOrder {
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
        FieldOrder {
            ascending,
            rank,
            runs,
        }
    }

    /// How many rows hold a value (the rest are null).
    fn non_null(&self) -> usize {
        *self.runs.last().unwrap_or(&0) as usize
    }

    /// How many distinct non-null values there are.
    fn distinct(&self) -> u32 {
        self.runs.len() as u32 - 1
    }

    /// The position `i`-th in the order (`i` below the row count).
    pub fn nth(&self, i: usize, descending: bool) -> u32 {
        let non_null = self.non_null();
        if !descending || i >= non_null {
            return self.ascending[i];
        }
        // Descending, values run from the last run to the first, each run still
        // by ascending position.
        let from_end = non_null - 1 - i;
        let run = self.runs.partition_point(|&s| s as usize <= from_end) - 1;
        let (start, end) = (self.runs[run] as usize, self.runs[run + 1] as usize);
        self.ascending[start + (i - (non_null - end))]
    }

    /// The rows in order, one slice per distinct value (ascending positions in
    /// each), the nulls' slice last.
    pub fn runs(&self, descending: bool) -> Box<dyn Iterator<Item = &[u32]> + '_> {
        let slice = |w: &[u32]| &self.ascending[w[0] as usize..w[1] as usize];
        let nulls = std::iter::once(&self.ascending[self.non_null()..]);
        match descending {
            false => Box::new(self.runs.windows(2).map(slice).chain(nulls)),
            true => Box::new(self.runs.windows(2).rev().map(slice).chain(nulls)),
        }
    }

    /// A number that orders `pos` as the order does, ties aside (break them by
    /// position): its value's rank, reversed when descending, nulls last.
    pub fn key(&self, pos: u32, descending: bool) -> u32 {
        match self.rank[pos as usize] {
            NULL_RANK => NULL_RANK,
            r if descending => self.distinct() - 1 - r,
            r => r,
        }
    }

    /// The rank of the value at `pos` (`None` for a null): distinct values are
    /// numbered 0, 1, ... in ascending order.
    pub fn rank(&self, pos: usize) -> Option<u32> {
        Some(self.rank[pos]).filter(|&r| r != NULL_RANK)
    }

    /// How many rows hold the value of each rank, in rank order.
    pub fn value_counts(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.runs.windows(2).map(|w| w[1] - w[0])
    }

    /// How many rows are null.
    pub fn nulls(&self) -> usize {
        self.ascending.len() - self.non_null()
    }

    /// A row holding the value of rank `r`.
    pub fn holder(&self, r: u32) -> u32 {
        self.ascending[self.runs[r as usize] as usize]
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

    #[test]
    fn nulls_last_and_ties_by_position_both_ways() {
        // Positions:            0        1        2     3        4        5
        let c = column(&[Some(2), None, Some(1), Some(2), None, Some(3)]);
        let order = FieldOrder::build(&c, 6);
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
    fn all_null_and_empty() {
        let order = FieldOrder::build(&column(&[None, None]), 2);
        assert_eq!((order.nth(0, true), order.nth(1, true)), (0, 1));
        assert_eq!(order.runs(true).flatten().count(), 2);
        let order = FieldOrder::build(&column(&[]), 0);
        assert_eq!(order.runs(true).flatten().count(), 0);
    }
}
