//! One field of a table for every row, stored by type: numbers in one vector,
//! references as positions, lists as one run of positions, and strings as codes
//! into the column's distinct values (each held once, in one buffer).
//!
//! Rows of boxed values cost a pointer, a tag and an allocation per field per row
//! (2.6 GB beyond the rendered lists at a million specimens); columns cost the
//! values themselves, and a string repeated across rows (a method, a weather, a
//! sex) is stored once. A string's code is also its group: grouping and
//! lowercasing work on the distinct values, not on every row.

use ahash::RandomState;
use hashbrown::HashTable;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::{Model, Type};

use super::value::{OwnedValue, Value};

/// The code or position of a null.
const NULL: u32 = u32::MAX;

/// A null boolean's byte (`false` is 0, `true` 1).
pub const NULL_BOOL: u8 = 2;

/// A value as groups know it: small, copied, hashed without reading text (a
/// string is its code in its column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Null,
    Int(i64),
    Bool(bool),
    Code(u32),
    Ref(Model, u32),
    /// An empty list.
    NoRefs,
}

/// One field's values for every row of a table. A snapshot stores it as it is
/// (`view::prepared`), so a view is loaded by decoding columns, not building them.
/// Equal columns hold the same values in the same layout: a reload keeps the
/// served view's column (and what is built from it) where the new one is equal.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Column {
    /// Integers or instants (`time`), with the rows that are null.
    Int {
        values: Ints,
        nulls: Vec<u64>,
        time: bool,
    },
    /// 0 false, 1 true, 2 null.
    Bool(Vec<u8>),
    Str(Strings),
    /// Positions in `model`'s table; [`NULL`] for none.
    Ref {
        models: RefModels,
        positions: Codes,
    },
    /// Row `r`'s list is `items[starts[r]..starts[r + 1]]`.
    Refs {
        #[serde(with = "model_index")]
        model: Model,
        starts: Vec<u32>,
        items: Vec<u32>,
    },
}

/// Integers, in 2 bytes each when every one fits (years, days), 4 when they
/// fit there (most ids), else 8.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Ints {
    Wide(Vec<i64>),
    Narrow(Vec<i32>),
    Short(Vec<i16>),
}

impl Ints {
    fn get(&self, i: usize) -> i64 {
        match self {
            Ints::Wide(v) => v[i],
            Ints::Narrow(v) => i64::from(v[i]),
            Ints::Short(v) => i64::from(v[i]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Ints::Wide(v) => v.len(),
            Ints::Narrow(v) => v.len(),
            Ints::Short(v) => v.len(),
        }
    }

    fn push(&mut self, n: i64) {
        match self {
            Ints::Wide(v) => v.push(n),
            Ints::Narrow(_) | Ints::Short(_) => unreachable!("columns are narrowed once built"),
        }
    }

    /// Sets integer `i`, back in eight bytes each ([`Column::settle`] narrows
    /// them again).
    fn set(&mut self, i: usize, n: i64) {
        let wide = match self {
            Ints::Wide(v) => return v[i] = n,
            Ints::Narrow(v) => v.iter().map(|&n| i64::from(n)).collect(),
            Ints::Short(v) => v.iter().map(|&n| i64::from(n)).collect(),
        };
        *self = Ints::Wide(wide);
        self.set(i, n)
    }

    /// Where `n` is in ascending integers.
    pub fn binary_search(&self, n: i64) -> Option<usize> {
        match self {
            Ints::Wide(v) => v.binary_search(&n).ok(),
            Ints::Narrow(v) => v.binary_search(&i32::try_from(n).ok()?).ok(),
            Ints::Short(v) => v.binary_search(&i16::try_from(n).ok()?).ok(),
        }
    }

    /// Keeps the integers in 2 or 4 bytes each when they all fit.
    fn narrow(&mut self) {
        if let Ints::Wide(v) = self {
            if v.iter().all(|&n| i16::try_from(n).is_ok()) {
                *self = Ints::Short(v.iter().map(|&n| n as i16).collect());
            } else if v.iter().all(|&n| i32::try_from(n).is_ok()) {
                *self = Ints::Narrow(v.iter().map(|&n| n as i32).collect());
            } else {
                v.shrink_to_fit();
            }
        }
    }
}

/// Codes or positions, one a row, each in as few bytes as the largest needs: a
/// sex, a method or a country in one byte, a species or a locality in two (80 MB
/// less at a million specimens). A null is the width's largest value.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum Codes {
    Bytes(Vec<u8>),
    Pairs(Vec<u16>),
    Words(Vec<u32>),
}

impl Default for Codes {
    fn default() -> Codes {
        Codes::Words(Vec::new())
    }
}

impl Codes {
    fn with_capacity(rows: usize) -> Codes {
        Codes::Words(Vec::with_capacity(rows))
    }

    /// The code at `i`, or [`NULL`].
    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            Codes::Bytes(v) => match v[i] {
                u8::MAX => NULL,
                c => u32::from(c),
            },
            Codes::Pairs(v) => match v[i] {
                u16::MAX => NULL,
                c => u32::from(c),
            },
            Codes::Words(v) => v[i],
        }
    }

    fn len(&self) -> usize {
        match self {
            Codes::Bytes(v) => v.len(),
            Codes::Pairs(v) => v.len(),
            Codes::Words(v) => v.len(),
        }
    }

    fn push(&mut self, code: u32) {
        match self {
            Codes::Words(v) => v.push(code),
            _ => unreachable!("columns are narrowed once built"),
        }
    }

    /// The codes in four bytes each, as they are while a column is built.
    fn widen(&mut self) -> &mut Vec<u32> {
        let words = match self {
            Codes::Words(v) => return v,
            Codes::Bytes(v) => v
                .iter()
                .map(|&c| if c == u8::MAX { NULL } else { u32::from(c) })
                .collect(),
            Codes::Pairs(v) => v
                .iter()
                .map(|&c| if c == u16::MAX { NULL } else { u32::from(c) })
                .collect(),
        };
        *self = Codes::Words(words);
        self.widen()
    }

    /// Keeps the codes in the fewest bytes that hold the largest.
    fn narrow(&mut self) {
        let Codes::Words(v) = self else { return };
        let largest = v.iter().filter(|&&c| c != NULL).max().copied().unwrap_or(0);
        if largest < u32::from(u8::MAX) {
            *self = Codes::Bytes(v.iter().map(|&c| c.min(u32::from(u8::MAX)) as u8).collect());
        } else if largest < u32::from(u16::MAX) {
            *self = Codes::Pairs(
                v.iter()
                    .map(|&c| c.min(u32::from(u16::MAX)) as u16)
                    .collect(),
            );
        } else {
            v.shrink_to_fit();
        }
    }

    /// The first code (not a null) at or past `bound`.
    fn first_past(&self, bound: usize) -> Option<u32> {
        (0..self.len())
            .map(|i| self.get(i))
            .find(|&c| c != NULL && c as usize >= bound)
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Codes::Bytes(v) => v.capacity(),
            Codes::Pairs(v) => v.capacity() * 2,
            Codes::Words(v) => v.capacity() * 4,
        }
    }
}

/// The model a reference column points into: one for most fields, one per row
/// for a specimen's taxon (any rank).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub enum RefModels {
    One(#[serde(with = "model_index")] Model),
    /// Per row, the position of its rank in `Model::RANKS`.
    Each(Vec<u8>),
}

/// A string column: per row, a code into the distinct values.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Strings {
    codes: Codes,
    distinct: Distinct,
}

/// Distinct strings in one buffer, in the order they were first seen, with a
/// table that finds a string's code (kept only where the column is grouped, so
/// a filter can turn its value into a group).
#[derive(Default)]
pub struct Distinct {
    text: String,
    /// String `c` is `text[ends[c - 1]..ends[c]]` (from 0 for the first); a
    /// field's distinct strings hold at most 4 GiB between them.
    ends: Vec<u32>,
    lookup: Option<HashTable<u32>>,
    hasher: RandomState,
}

/// The same strings in the same order (codes mean the same), with a lookup
/// or without; the hasher's keys aside.
impl PartialEq for Distinct {
    fn eq(&self, other: &Distinct) -> bool {
        self.ends == other.ends
            && self.text == other.text
            && self.lookup.is_some() == other.lookup.is_some()
    }
}

impl std::fmt::Debug for Distinct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Distinct({} strings)", self.ends.len())
    }
}

/// Stored as its text, its ends and whether it keeps a lookup (rebuilt when
/// read: a hash table's layout depends on its hasher's random keys).
impl Serialize for Distinct {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.text, &self.ends, self.lookup.is_some()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Distinct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Distinct, D::Error> {
        let (text, ends, lookup): (String, Vec<u32>, bool) = Deserialize::deserialize(d)?;
        let mut distinct = Distinct {
            text,
            ends,
            lookup: None,
            hasher: RandomState::default(),
        };
        distinct.check().map_err(serde::de::Error::custom)?;
        if lookup {
            distinct.look_up();
        }
        Ok(distinct)
    }
}

impl Distinct {
    /// Makes the table that finds a string's code (rebuilt when read: a hash
    /// table's layout depends on its hasher's random keys).
    fn look_up(&mut self) {
        let (text, ends, hasher) = (&self.text, &self.ends, &self.hasher);
        let mut table = HashTable::with_capacity(ends.len());
        for code in 0..ends.len() as u32 {
            let hash = hasher.hash_one(nth(text, ends, code));
            table.insert_unique(hash, code, |&c| hasher.hash_one(nth(text, ends, c)));
        }
        self.lookup = Some(table);
    }

    /// Whether every string's end is ascending and falls between characters
    /// (what `nth` slices by).
    fn check(&self) -> Result<(), String> {
        let mut start = 0;
        for &end in &self.ends {
            let end = end as usize;
            if end < start || end > self.text.len() || !self.text.is_char_boundary(end) {
                return Err(format!(
                    "a distinct string ends at {end}, which is not a string's end"
                ));
            }
            start = end;
        }
        Ok(())
    }

    /// How many distinct strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The string with code `code`.
    pub fn get(&self, code: u32) -> &str {
        nth(&self.text, &self.ends, code)
    }

    /// The code of `s`, if some row holds it.
    pub fn code(&self, s: &str) -> Option<u32> {
        let lookup = self.lookup.as_ref()?;
        let hash = self.hasher.hash_one(s);
        lookup.find(hash, |&c| self.get(c) == s).copied()
    }

    /// The code of `s`, adding it when it is new.
    fn intern(&mut self, s: &str) -> Result<u32, &'static str> {
        let hash = self.hasher.hash_one(s);
        let lookup = self.lookup.get_or_insert_with(HashTable::new);
        let (text, ends) = (&self.text, &self.ends);
        if let Some(&code) = lookup.find(hash, |&c| nth(text, ends, c) == s) {
            return Ok(code);
        }
        let code = self.ends.len() as u32;
        let end = u32::try_from(self.text.len() + s.len())
            .map_err(|_| "more than 4 GiB of distinct strings in one field")?;
        self.text.push_str(s);
        self.ends.push(end);
        let (text, ends, hasher) = (&self.text, &self.ends, &self.hasher);
        lookup.insert_unique(hash, code, |&c| hasher.hash_one(nth(text, ends, c)));
        Ok(code)
    }
}

/// String `code` of a buffer and its strings' ends (the first starts at 0).
fn nth<'t>(text: &'t str, ends: &[u32], code: u32) -> &'t str {
    let c = code as usize;
    let start = if c == 0 { 0 } else { ends[c - 1] as usize };
    &text[start..ends[c] as usize]
}

impl Strings {
    /// The code of row `pos`'s string, or `None` for a null.
    pub fn code(&self, pos: usize) -> Option<u32> {
        Some(self.codes.get(pos)).filter(|&c| c != NULL)
    }

    pub fn distinct(&self) -> &Distinct {
        &self.distinct
    }
}

impl Column {
    /// An empty column for a field of this type.
    pub fn new(ty: Type, rows: usize) -> Column {
        match ty {
            Type::Int | Type::Time => Column::Int {
                values: Ints::Wide(Vec::with_capacity(rows)),
                nulls: Vec::new(),
                time: ty == Type::Time,
            },
            Type::Bool => Column::Bool(Vec::with_capacity(rows)),
            Type::Str | Type::Date | Type::MediaFile => Column::Str(Strings {
                codes: Codes::with_capacity(rows),
                distinct: Distinct::default(),
            }),
            Type::Parent(m) | Type::Embed(m) | Type::RefId(m) => Column::Ref {
                models: RefModels::One(m),
                positions: Codes::with_capacity(rows),
            },
            Type::Taxon => Column::Ref {
                models: RefModels::Each(Vec::with_capacity(rows)),
                positions: Codes::with_capacity(rows),
            },
            Type::EmbedMany(m) | Type::RefIds(m) => Column::Refs {
                model: m,
                starts: vec![0],
                items: Vec::new(),
            },
        }
    }

    /// Appends a row's value; `Err` names what the column cannot hold (row
    /// building and the field tables are written apart: this keeps them in step).
    pub fn push(&mut self, value: &OwnedValue, nullable: bool) -> Result<(), &'static str> {
        if *value == OwnedValue::Null && !nullable {
            return Err("a null in a field that is not nullable");
        }
        match (self, value) {
            (Column::Int { values, time, .. }, OwnedValue::Int(n) | OwnedValue::Time(n))
                if *time == matches!(value, OwnedValue::Time(_)) =>
            {
                values.push(*n)
            }
            (Column::Int { values, nulls, .. }, OwnedValue::Null) => {
                let row = values.len();
                nulls.resize(row / 64 + 1, 0);
                nulls[row / 64] |= 1 << (row % 64);
                values.push(0);
            }
            (Column::Bool(values), OwnedValue::Bool(b)) => values.push(u8::from(*b)),
            (Column::Bool(values), OwnedValue::Null) => values.push(NULL_BOOL),
            (Column::Str(s), OwnedValue::Str(text)) => {
                let code = s.distinct.intern(text)?;
                s.codes.push(code)
            }
            (Column::Str(s), OwnedValue::Null) => s.codes.push(NULL),
            (Column::Ref { models, positions }, OwnedValue::Ref(m, p)) => {
                let rank = models.rank(*m)?;
                if let (RefModels::Each(each), Some(rank)) = (models, rank) {
                    each.push(rank);
                }
                positions.push(*p)
            }
            (Column::Ref { models, positions }, OwnedValue::Null) => {
                if let RefModels::Each(each) = models {
                    each.push(0);
                }
                positions.push(NULL)
            }
            (
                Column::Refs {
                    model,
                    starts,
                    items,
                },
                OwnedValue::Refs(m, ps),
            ) if m == model => {
                items.extend_from_slice(ps);
                starts.push(items.len() as u32);
            }
            _ => return Err("a value of another type"),
        }
        Ok(())
    }

    /// Frees what building needed and reading does not: spare capacity, and the
    /// string lookup of a column that will not be grouped (more distinct values
    /// than `max_distinct`).
    pub fn finish(&mut self, max_distinct: usize) {
        match self {
            Column::Int { values, nulls, .. } => {
                values.narrow();
                nulls.shrink_to_fit();
            }
            Column::Bool(values) => values.shrink_to_fit(),
            Column::Str(s) => {
                s.codes.narrow();
                s.distinct.text.shrink_to_fit();
                s.distinct.ends.shrink_to_fit();
                if s.distinct.len() > max_distinct {
                    s.distinct.lookup = None;
                }
            }
            Column::Ref { models, positions } => {
                positions.narrow();
                if let RefModels::Each(each) = models {
                    each.shrink_to_fit();
                }
            }
            Column::Refs { starts, items, .. } => {
                starts.shrink_to_fit();
                items.shrink_to_fit();
            }
        }
    }

    /// How many rows the column holds.
    pub fn len(&self) -> usize {
        match self {
            Column::Int { values, .. } => values.len(),
            Column::Bool(values) => values.len(),
            Column::Str(s) => s.codes.len(),
            Column::Ref { positions, .. } => positions.len(),
            Column::Refs { starts, .. } => starts.len().saturating_sub(1),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `pos`'s value.
    pub fn get(&self, pos: usize) -> Value<'_> {
        match self {
            Column::Int {
                values,
                nulls,
                time,
            } => {
                if nulls
                    .get(pos / 64)
                    .is_some_and(|w| w & (1 << (pos % 64)) != 0)
                {
                    Value::Null
                } else if *time {
                    Value::Time(values.get(pos))
                } else {
                    Value::Int(values.get(pos))
                }
            }
            Column::Bool(values) => match values[pos] {
                0 => Value::Bool(false),
                1 => Value::Bool(true),
                _ => Value::Null,
            },
            Column::Str(s) => match s.codes.get(pos) {
                NULL => Value::Null,
                c => Value::Str(s.distinct.get(c)),
            },
            Column::Ref { models, positions } => match positions.get(pos) {
                NULL => Value::Null,
                p => Value::Ref(models.at(pos), p),
            },
            Column::Refs {
                model,
                starts,
                items,
            } => Value::Refs(
                *model,
                &items[starts[pos] as usize..starts[pos + 1] as usize],
            ),
        }
    }

    /// The keys row `pos` is grouped under: its value's, or each member's of a
    /// list ([`Key::NoRefs`] for an empty one).
    pub fn keys(&self, pos: usize, mut each: impl FnMut(Key)) {
        match self {
            Column::Str(s) => each(s.code(pos).map_or(Key::Null, Key::Code)),
            Column::Refs {
                model,
                starts,
                items,
            } => {
                let list = &items[starts[pos] as usize..starts[pos + 1] as usize];
                if list.is_empty() {
                    each(Key::NoRefs)
                }
                for &p in list {
                    each(Key::Ref(*model, p))
                }
            }
            _ => each(self.key_of(self.get(pos)).unwrap_or(Key::Null)),
        }
    }

    /// The key of a value as this column groups it; `None` when no row can hold
    /// it (a string no row has, a list with members).
    pub fn key_of(&self, value: Value) -> Option<Key> {
        Some(match value {
            Value::Null => Key::Null,
            Value::Int(n) | Value::Time(n) => Key::Int(n),
            Value::Bool(b) => Key::Bool(b),
            Value::Str(s) => match self {
                Column::Str(strings) => Key::Code(strings.distinct.code(s)?),
                _ => return None,
            },
            Value::Ref(m, p) => Key::Ref(m, p),
            Value::Refs(_, []) => Key::NoRefs,
            Value::Refs(..) => return None,
        })
    }

    /// The value a key stands for in this column.
    pub fn value_of(&self, key: Key) -> Value<'_> {
        match (key, self) {
            (Key::Null, _) => Value::Null,
            (Key::Int(n), Column::Int { time: true, .. }) => Value::Time(n),
            (Key::Int(n), _) => Value::Int(n),
            (Key::Bool(b), _) => Value::Bool(b),
            (Key::Code(c), Column::Str(s)) => Value::Str(s.distinct.get(c)),
            (Key::Code(_), _) => unreachable!("only string columns have codes"),
            (Key::Ref(m, p), _) => Value::Ref(m, p),
            (Key::NoRefs, Column::Refs { model, .. }) => Value::Refs(*model, &[]),
            (Key::NoRefs, _) => Value::Null,
        }
    }

    /// A small number standing for row `pos`'s value, one per distinct value: a
    /// string's code or a reference's position (`None` for a null or another
    /// kind of column).
    pub fn dense_key(&self, pos: usize) -> Option<u32> {
        match self {
            Column::Str(s) => s.code(pos),
            Column::Ref { positions, .. } => Some(positions.get(pos)).filter(|&p| p != NULL),
            _ => None,
        }
    }

    /// The bytes it holds, for reports.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Column::Int { values, nulls, .. } => {
                let values = match values {
                    Ints::Wide(v) => v.capacity() * 8,
                    Ints::Narrow(v) => v.capacity() * 4,
                    Ints::Short(v) => v.capacity() * 2,
                };
                values + nulls.capacity() * 8
            }
            Column::Bool(v) => v.capacity(),
            Column::Str(s) => {
                let d = &s.distinct;
                let lookup = d.lookup.as_ref().map_or(0, |t| t.capacity() * 4);
                s.codes.heap_bytes() + d.text.capacity() + d.ends.capacity() * 4 + lookup
            }
            Column::Ref { positions, models } => {
                let each = match models {
                    RefModels::Each(each) => each.capacity(),
                    RefModels::One(_) => 0,
                };
                positions.heap_bytes() + each
            }
            Column::Refs { starts, items, .. } => (starts.capacity() + items.capacity()) * 4,
        }
    }

    /// The strings of a string column.
    pub fn strings(&self) -> Option<&Strings> {
        match self {
            Column::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integers of an integer column without nulls (a table's ids).
    pub fn ints(&self) -> Option<&Ints> {
        match self {
            Column::Int { values, nulls, .. } if nulls.is_empty() => Some(values),
            _ => None,
        }
    }
}

/// A built column changed in place, for `sync`, whose next collection often
/// differs from the last in a few rows (`prepared::Preparer`): the rows set
/// again, then the column settled into exactly what building it from its rows
/// would have made (the same layout, so the same bytes in the snapshot).
impl Column {
    /// Sets row `pos` to `value` (as [`Column::push`] would have stored it),
    /// saying whether it was another; [`Column::settle`] must follow before
    /// the column is read.
    pub fn set(
        &mut self,
        pos: usize,
        value: &OwnedValue,
        nullable: bool,
    ) -> Result<bool, &'static str> {
        if self.get(pos) == value.as_value() {
            return Ok(false);
        }
        if *value == OwnedValue::Null && !nullable {
            return Err("a null in a field that is not nullable");
        }
        match (self, value) {
            (
                Column::Int {
                    values,
                    nulls,
                    time,
                },
                value,
            ) => {
                let n = match value {
                    OwnedValue::Int(n) if !*time => *n,
                    OwnedValue::Time(n) if *time => *n,
                    OwnedValue::Null => 0,
                    _ => return Err("a value of another type"),
                };
                values.set(pos, n);
                let (word, bit) = (pos / 64, 1u64 << (pos % 64));
                if *value == OwnedValue::Null {
                    if nulls.len() <= word {
                        nulls.resize(word + 1, 0);
                    }
                    nulls[word] |= bit;
                } else if let Some(w) = nulls.get_mut(word) {
                    *w &= !bit;
                }
                // As built: the words up to the last row that is null.
                while nulls.last() == Some(&0) {
                    nulls.pop();
                }
            }
            (Column::Bool(values), OwnedValue::Bool(b)) => values[pos] = u8::from(*b),
            (Column::Bool(values), OwnedValue::Null) => values[pos] = 2,
            (Column::Str(s), OwnedValue::Str(text)) => {
                // A column of many distinct values keeps no lookup: made for
                // the change, dropped again when it settles.
                if s.distinct.lookup.is_none() {
                    s.distinct.look_up();
                }
                let code = s.distinct.intern(text)?;
                s.codes.widen()[pos] = code;
            }
            (Column::Str(s), OwnedValue::Null) => s.codes.widen()[pos] = NULL,
            (Column::Ref { models, positions }, OwnedValue::Ref(m, p)) => {
                let rank = models.rank(*m)?;
                if let (RefModels::Each(each), Some(rank)) = (models, rank) {
                    each[pos] = rank;
                }
                positions.widen()[pos] = *p;
            }
            (Column::Ref { models, positions }, OwnedValue::Null) => {
                if let RefModels::Each(each) = models {
                    each[pos] = 0;
                }
                positions.widen()[pos] = NULL;
            }
            (
                Column::Refs {
                    model,
                    starts,
                    items,
                },
                OwnedValue::Refs(m, ps),
            ) if m == model => {
                let (start, end) = (starts[pos] as usize, starts[pos + 1] as usize);
                items.splice(start..end, ps.iter().copied());
                let (added, removed) = (ps.len() as u32, (end - start) as u32);
                for s in &mut starts[pos + 1..] {
                    *s = *s + added - removed;
                }
            }
            _ => return Err("a value of another type"),
        }
        Ok(true)
    }

    /// After [`Column::set`]: strings numbered again in the order rows first
    /// hold them (those no row holds dropped), then narrowed and trimmed as
    /// [`Column::finish`] does a built column.
    pub fn settle(&mut self, max_distinct: usize) {
        if let Column::Str(s) = self {
            s.renumber();
            if s.distinct.lookup.is_none() && s.distinct.len() <= max_distinct {
                s.distinct.look_up();
            }
        }
        self.finish(max_distinct);
    }
}

impl Strings {
    /// Numbers the strings in the order the rows first hold them, as
    /// building the column does, leaving out those no row holds.
    fn renumber(&mut self) {
        let codes = self.codes.widen();
        let mut new = vec![NULL; self.distinct.len()];
        let mut next = 0u32;
        let mut same = true;
        for &c in codes.iter().filter(|&&c| c != NULL) {
            if new[c as usize] == NULL {
                same &= c == next;
                new[c as usize] = next;
                next += 1;
            }
        }
        if same && next as usize == new.len() {
            return;
        }
        let mut old = vec![0u32; next as usize];
        for (was, &now) in new.iter().enumerate().filter(|(_, &now)| now != NULL) {
            old[now as usize] = was as u32;
        }
        let mut text = String::with_capacity(self.distinct.text.len());
        let mut ends = Vec::with_capacity(old.len());
        for &was in &old {
            text.push_str(self.distinct.get(was));
            ends.push(text.len() as u32);
        }
        for c in codes.iter_mut().filter(|c| **c != NULL) {
            *c = new[*c as usize];
        }
        let looked_up = self.distinct.lookup.is_some();
        self.distinct.text = text;
        self.distinct.ends = ends;
        self.distinct.lookup = None;
        if looked_up {
            self.distinct.look_up();
        }
    }
}

impl RefModels {
    /// What a reference to `m` stores beside its position: nothing in a
    /// column of one model (which must be `m`), `m`'s place among the ranks in
    /// a taxon's.
    fn rank(&self, m: Model) -> Result<Option<u8>, &'static str> {
        let rank = Model::RANKS.iter().position(|&r| r == m);
        match (self, rank) {
            (RefModels::One(one), _) if *one == m => Ok(None),
            (RefModels::Each(_), Some(rank)) => Ok(Some(rank as u8)),
            _ => Err("a reference to another model"),
        }
    }

    fn at(&self, pos: usize) -> Model {
        match self {
            RefModels::One(m) => *m,
            RefModels::Each(each) => Model::RANKS[each[pos] as usize],
        }
    }
}

impl Column {
    /// Whether a decoded column can be read as `ty`'s values for `rows` rows:
    /// its kind, its length, no null unless `nullable`, and every code and
    /// position in range (`len` says how many rows a model's table has). A snapshot's checksum guards against
    /// damage, not against a writer that got a column wrong; this keeps such a
    /// file from panicking a render instead of being refused.
    pub fn check(
        &self,
        ty: Type,
        nullable: bool,
        rows: usize,
        len: impl Fn(Model) -> usize,
    ) -> Result<(), String> {
        self.check_shape(ty, rows, len)?;
        if !nullable && (0..rows).any(|p| self.get(p) == Value::Null) {
            return Err("a null in a field that is not nullable".into());
        }
        Ok(())
    }

    fn check_shape(
        &self,
        ty: Type,
        rows: usize,
        len: impl Fn(Model) -> usize,
    ) -> Result<(), String> {
        let length = |n: usize| {
            (n == rows)
                .then_some(())
                .ok_or_else(|| format!("{n} values for {rows} rows"))
        };
        let within = |values: &[u32], bound: usize, what: &str| match values
            .iter()
            .find(|&&v| v != NULL && v as usize >= bound)
        {
            Some(v) => Err(format!("{what} {v} of {bound}")),
            None => Ok(()),
        };
        let codes_within = |codes: &Codes, bound: usize, what: &str| match codes.first_past(bound) {
            Some(v) => Err(format!("{what} {v} of {bound}")),
            None => Ok(()),
        };
        match (self, ty) {
            (
                Column::Int {
                    values,
                    nulls,
                    time,
                },
                Type::Int | Type::Time,
            ) => {
                length(values.len())?;
                if *time != (ty == Type::Time) || nulls.len() > rows / 64 + 1 {
                    return Err("integers of another kind".into());
                }
                Ok(())
            }
            (Column::Bool(values), Type::Bool) => {
                length(values.len())?;
                match values.iter().find(|&&b| b > 2) {
                    Some(b) => Err(format!("a boolean stored as {b}")),
                    None => Ok(()),
                }
            }
            (Column::Str(s), Type::Str | Type::Date | Type::MediaFile) => {
                length(s.codes.len())?;
                codes_within(&s.codes, s.distinct.len(), "string code")
            }
            (Column::Ref { models, positions }, _) => {
                length(positions.len())?;
                match (models, ty) {
                    (RefModels::One(m), Type::Parent(t) | Type::Embed(t) | Type::RefId(t))
                        if *m == t =>
                    {
                        codes_within(positions, len(*m), "position")
                    }
                    (RefModels::Each(ranks), Type::Taxon) => {
                        length(ranks.len())?;
                        for (i, &rank) in ranks.iter().enumerate() {
                            let p = positions.get(i);
                            let Some(&m) = Model::RANKS.get(rank as usize) else {
                                return Err(format!("rank {rank}"));
                            };
                            within(&[p], len(m), "position")?;
                        }
                        Ok(())
                    }
                    _ => Err("references to another model".into()),
                }
            }
            (
                Column::Refs {
                    model,
                    starts,
                    items,
                },
                Type::EmbedMany(t) | Type::RefIds(t),
            ) if *model == t => {
                length(starts.len().saturating_sub(1))?;
                let ascending = starts.first() == Some(&0)
                    && starts.windows(2).all(|w| w[0] <= w[1])
                    && starts.last().map(|&l| l as usize) == Some(items.len());
                if !ascending {
                    return Err("lists that do not follow one another".into());
                }
                within(items, len(*model), "position")
            }
            _ => Err(format!("a column that cannot hold {ty:?}")),
        }
    }
}

/// A model in a stored column: its place in `Model::ALL`.
mod model_index {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    use crate::model::Model;

    pub fn serialize<S: Serializer>(model: &Model, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(model.index() as u8)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Model, D::Error> {
        let i = u8::deserialize(d)?;
        Model::ALL
            .get(usize::from(i))
            .copied()
            .ok_or_else(|| D::Error::custom(format!("model {i} does not exist")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_held_once_and_read_back() {
        let mut c = Column::new(Type::Str, 4);
        for v in ["moth", "", "moth", "Moth"] {
            c.push(&OwnedValue::str(v), false).unwrap();
        }
        c.push(&OwnedValue::Null, true).unwrap();
        assert!(c.push(&OwnedValue::Null, false).is_err());
        assert!(c.push(&OwnedValue::Int(1), true).is_err());
        let got: Vec<Value> = (0..5).map(|p| c.get(p)).collect();
        assert_eq!(
            got,
            [
                Value::Str("moth"),
                Value::Str(""),
                Value::Str("moth"),
                Value::Str("Moth"),
                Value::Null
            ]
        );
        let s = c.strings().unwrap();
        assert_eq!(s.distinct().len(), 3);
        assert_eq!(c.key_of(Value::Str("moth")), Some(Key::Code(0)));
        assert_eq!(c.key_of(Value::Str("bee")), None);
        assert_eq!(c.value_of(Key::Code(2)), Value::Str("Moth"));
        c.finish(2);
        assert_eq!(
            c.key_of(Value::Str("moth")),
            None,
            "no lookup past the limit"
        );
        assert_eq!(c.get(3), Value::Str("Moth"));
    }

    #[test]
    fn numbers_references_and_lists_keep_nulls_and_models() {
        let mut ints = Column::new(Type::Time, 3);
        for v in [OwnedValue::Time(-5), OwnedValue::Null, OwnedValue::Time(7)] {
            ints.push(&v, true).unwrap();
        }
        assert!(ints.push(&OwnedValue::Int(1), true).is_err());
        assert_eq!(
            (0..3).map(|p| ints.get(p)).collect::<Vec<_>>(),
            [Value::Time(-5), Value::Null, Value::Time(7)]
        );
        let mut taxa = Column::new(Type::Taxon, 2);
        taxa.push(&OwnedValue::Ref(Model::Genus, 3), true).unwrap();
        taxa.push(&OwnedValue::Null, true).unwrap();
        assert!(taxa.push(&OwnedValue::Ref(Model::Person, 1), true).is_err());
        assert_eq!(taxa.get(0), Value::Ref(Model::Genus, 3));
        assert_eq!(taxa.get(1), Value::Null);
        let mut lists = Column::new(Type::RefIds(Model::Person), 2);
        lists
            .push(&OwnedValue::Refs(Model::Person, Box::new([4, 9])), false)
            .unwrap();
        lists
            .push(&OwnedValue::Refs(Model::Person, Box::new([])), false)
            .unwrap();
        assert_eq!(lists.get(0), Value::Refs(Model::Person, &[4, 9]));
        let mut keys = Vec::new();
        lists.keys(0, |k| keys.push(k));
        lists.keys(1, |k| keys.push(k));
        assert_eq!(
            keys,
            [
                Key::Ref(Model::Person, 4),
                Key::Ref(Model::Person, 9),
                Key::NoRefs
            ]
        );
        let mut bools = Column::new(Type::Bool, 2);
        bools.push(&OwnedValue::Bool(true), true).unwrap();
        bools.push(&OwnedValue::Null, true).unwrap();
        assert_eq!(bools.get(0), Value::Bool(true));
        assert_eq!(bools.get(1), Value::Null);
    }

    /// Codes and positions shrink to a byte or two where the largest fits, and
    /// read back the same, nulls included.
    #[test]
    fn codes_take_the_fewest_bytes_that_hold_them() {
        for (distinct, width) in [(1, 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4)] {
            let mut c = Column::new(Type::Str, distinct + 1);
            let mut refs = Column::new(Type::RefId(Model::Person), distinct + 1);
            for v in 0..distinct {
                c.push(&OwnedValue::str(&v.to_string()), true).unwrap();
                refs.push(&OwnedValue::Ref(Model::Person, v as u32), true)
                    .unwrap();
            }
            c.push(&OwnedValue::Null, true).unwrap();
            refs.push(&OwnedValue::Null, true).unwrap();
            c.finish(usize::MAX);
            refs.finish(usize::MAX);
            let (Column::Str(s), Column::Ref { positions, .. }) = (&c, &refs) else {
                unreachable!()
            };
            assert_eq!(s.codes.heap_bytes(), width * (distinct + 1), "{distinct}");
            assert_eq!(positions.heap_bytes(), width * (distinct + 1), "{distinct}");
            for v in [0, distinct / 2, distinct - 1] {
                assert_eq!(c.get(v), Value::Str(&v.to_string()));
                assert_eq!(refs.get(v), Value::Ref(Model::Person, v as u32));
            }
            assert_eq!(
                (c.get(distinct), refs.get(distinct)),
                (Value::Null, Value::Null)
            );
            let bound = |_| distinct;
            assert_eq!(
                refs.check(Type::RefId(Model::Person), true, distinct + 1, bound),
                Ok(())
            );
            let short = |_| distinct - 1;
            assert!(refs
                .check(Type::RefId(Model::Person), true, distinct + 1, short)
                .is_err());
        }
    }

    #[test]
    fn a_stored_column_is_checked_against_its_field() {
        let mut c = Column::new(Type::Str, 2);
        c.push(&OwnedValue::str("moth"), false).unwrap();
        c.push(&OwnedValue::Null, true).unwrap();
        let len = |_| 3;
        assert_eq!(c.check(Type::Str, true, 2, len), Ok(()));
        assert!(c
            .check(Type::Str, false, 2, len)
            .unwrap_err()
            .contains("a null"));
        assert!(c
            .check(Type::Str, true, 3, len)
            .unwrap_err()
            .contains("2 values for 3 rows"));
        assert!(c
            .check(Type::Int, true, 2, len)
            .unwrap_err()
            .contains("cannot hold"));
        if let Column::Str(Strings {
            codes: Codes::Words(codes),
            ..
        }) = &mut c
        {
            codes[0] = 1;
        }
        assert!(c
            .check(Type::Str, true, 2, len)
            .unwrap_err()
            .contains("string code 1 of 1"));
        let mut refs = Column::new(Type::Parent(Model::Order), 1);
        refs.push(&OwnedValue::Ref(Model::Order, 3), false).unwrap();
        assert!(refs
            .check(Type::Parent(Model::Order), false, 1, len)
            .unwrap_err()
            .contains("position 3 of 3"));
        assert!(refs
            .check(Type::Parent(Model::Family), false, 1, len)
            .is_err());
        let bytes = crate::snapshot::codec::encode(&refs).unwrap();
        let back: Column = crate::snapshot::codec::decode(&bytes).unwrap();
        assert_eq!(back.get(0), Value::Ref(Model::Order, 3));
    }

    #[test]
    fn integers_are_kept_in_the_fewest_bytes_that_hold_them_all() {
        // Values, and the bytes each is kept in.
        for (values, width) in [
            (vec![-7, 3, 1999], 2),
            (vec![-32_768, 3, 32_767], 2),
            (vec![-7, 3, 40_000], 4),
            (vec![-7, 3, 2_000_000_000], 4),
            (vec![-7, 3, 1 << 40], 8),
        ] {
            let mut c = Column::new(Type::Int, values.len());
            for &v in &values {
                c.push(&OwnedValue::Int(v), false).unwrap();
            }
            c.finish(usize::MAX);
            let read: Vec<Value> = (0..values.len()).map(|p| c.get(p)).collect();
            let want: Vec<Value> = values.iter().map(|&v| Value::Int(v)).collect();
            assert_eq!(read, want);
            let ints = c.ints().unwrap();
            let kept = match ints {
                Ints::Short(_) => 2,
                Ints::Narrow(_) => 4,
                Ints::Wide(_) => 8,
            };
            assert_eq!(kept, width, "{values:?}");
            assert_eq!(ints.binary_search(3), Some(1));
            assert_eq!(ints.binary_search(values[2]), Some(2));
            assert_eq!(ints.binary_search(1 << 40), (width == 8).then_some(2));
            assert_eq!(ints.binary_search(4), None);
        }
    }
}
