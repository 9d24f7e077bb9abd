//! Facet counts: `facet=family,year` adds, per field, the values the filtered
//! records hold and how many hold each, to `meta.facets`.
//!
//! A scalar field counts its values; a field holding related records counts their
//! names (`name`, or `full_name` for people); `issue`, on the specimens, counts
//! their quality flags. Counts come from the view's rows (or, with no filter,
//! straight from the row groups), never from rendered JSON.

use ahash::AHashMap;

use crate::encoding::json::{write_int, write_str};
use crate::model::{Model, Type};
use crate::quality::{Flag, Quality};
use crate::view::bits::Bits;
use crate::view::order;
use crate::view::render::write_scalar;
use crate::view::{Key, OwnedValue, Value, View};

use super::error::ApiError;
use super::params::Params;

/// Values per facet unless `facet_size` says otherwise.
pub const DEFAULT_SIZE: usize = 30;

/// The most values a facet lists: more is no summary, and each costs bytes made
/// for this request alone.
pub const MAX_SIZE: usize = 1000;

/// The field of a related model whose value names a record in a facet.
fn name_field(model: Model) -> Option<usize> {
    model
        .field_index("name")
        .or_else(|| model.field_index("full_name"))
}

/// Whether a field can be a facet, and so `facet` may name it.
pub fn facetable(ty: Type) -> bool {
    match ty {
        Type::Int | Type::Bool | Type::Str | Type::Time | Type::Date => true,
        Type::Parent(m)
        | Type::Embed(m)
        | Type::EmbedMany(m)
        | Type::RefId(m)
        | Type::RefIds(m) => name_field(m).is_some(),
        Type::Taxon => true,
        // A URL whose base depends on the request: counting stored paths would
        // show values no item holds.
        Type::MediaFile => false,
    }
}

/// What a facet counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum On {
    /// A field's values.
    Field(usize),
    /// The records' quality flags (`facet=issue`, where the list's records
    /// carry them): each flag and how many records have it; records without a
    /// flag are not counted (`issue=none` lists them).
    Issue,
}

/// The facet of the quality flags.
pub const ISSUE: &str = "issue";

/// What a `facet` value names, in order, each once.
pub fn parse(model: Model, params: &Params) -> Result<Vec<On>, ApiError> {
    match params.get("facet").filter(|v| !v.is_empty()) {
        Some(value) => fields(model, value),
        None => Ok(Vec::new()),
    }
}

/// What a comma-separated list of names names, in order, each once.
pub fn fields(model: Model, value: &str) -> Result<Vec<On>, ApiError> {
    let mut out = Vec::new();
    for name in value.split(',') {
        let on = match model.field_index(name) {
            Some(index) if !facetable(model.fields()[index].ty) => {
                return Err(ApiError::bad_request(format!(
                    "cannot facet on '{name}' (its records have no name)"
                )))
            }
            Some(index) => On::Field(index),
            None if name == ISSUE && model.policy().quality => On::Issue,
            None => {
                return Err(ApiError::bad_request(format!(
                    "cannot facet on '{name}' (unknown field)"
                )))
            }
        };
        if !out.contains(&on) {
            out.push(on);
        }
    }
    Ok(out)
}

/// Each flag held by the rows at `positions` (every row when `None`) and how
/// many hold it, commonest first, then in the flags' order.
fn count_flags(view: &View, positions: Option<&[usize]>, size: usize) -> Vec<(OwnedValue, usize)> {
    let n = view.derived::<Quality>().counts(positions);
    let mut counts: Vec<(Flag, usize)> = Flag::ALL.into_iter().zip(n).collect();
    counts.retain(|&(_, n)| n > 0);
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    counts
        .into_iter()
        .take(size)
        .map(|(f, n)| (OwnedValue::Str(f.name().into()), n))
        .collect()
}

/// A filtered set at least 1/DENSE of the rows is counted through the field's
/// groups rather than row by row.
const DENSE: usize = 16;

/// Counts per shown value (a related record's name), for the rows at `positions`
/// (every row when `None`). Related records are counted by position first, so no
/// name is hashed per row, then folded by the name each shows.
fn count<'v>(
    view: &'v View,
    model: Model,
    field: usize,
    positions: Option<&[usize]>,
) -> AHashMap<Value<'v>, usize> {
    let table = view.table(model);
    let column = table.column(field);
    let mut counts: AHashMap<Value, usize> = AHashMap::new();
    let mut related: AHashMap<(Model, u32), usize> = AHashMap::new();
    let mut add = |value: Value<'v>, n: usize| match value {
        Value::Refs(m, ps) => {
            for &p in ps.iter() {
                *related.entry((m, p)).or_default() += n;
            }
        }
        Value::Ref(m, p) => *related.entry((m, p)).or_default() += n,
        v => *counts.entry(v).or_default() += n,
    };
    match (positions, table.groups(field)) {
        (None, Some(groups)) => {
            for (key, n) in groups.sizes() {
                // An empty list has a group of its own; a list's members have theirs.
                if key != Key::NoRefs {
                    add(column.value_of(key), n);
                }
            }
        }
        (None, None) => (0..table.len()).for_each(|p| add(column.get(p), 1)),
        // Many rows: each group's members tested against a bitset of them, which
        // reads the groups in order instead of every row.
        (Some(positions), Some(groups)) if positions.len() >= table.len() / DENSE => {
            let bits = Bits::of(table.len(), positions.iter().map(|&p| p as u32));
            let among = |p: u32| bits.contains(p as usize);
            for (key, n) in groups.sizes_among(among) {
                if n > 0 && key != Key::NoRefs {
                    add(column.value_of(key), n);
                }
            }
        }
        (Some(positions), _) => positions.iter().for_each(|&p| add(column.get(p), 1)),
    }
    for ((m, p), n) in related {
        // `facetable` admits only related models with a name.
        if let Some(f) = name_field(m) {
            *counts.entry(view.table(m).get(p as usize, f)).or_default() += n;
        }
    }
    counts
}

/// The `size` most held values of a scalar field and their counts, in facet order,
/// counted by the ranks of the field's sort order: a counter per distinct value
/// (every row: the order's run lengths, nothing counted), no hashing of values.
fn count_by_rank<'v>(
    view: &'v View,
    model: Model,
    field: usize,
    positions: Option<&[usize]>,
    size: usize,
) -> Vec<(Value<'v>, usize)> {
    let table = view.table(model);
    let order = table.order(field);
    // Every row: the order's run lengths as they are; a filter: counted.
    let counted: Vec<u32>;
    let (counts, nulls): (&mut dyn Iterator<Item = u32>, usize) = match positions {
        None => (&mut order.value_counts(), order.nulls()),
        Some(positions) => {
            let mut counts = vec![0u32; order.value_counts().len()];
            let mut nulls = 0;
            for &p in positions {
                match order.rank(p) {
                    Some(r) => counts[r as usize] += 1,
                    None => nulls += 1,
                }
            }
            counted = counts;
            (&mut counted.iter().copied(), nulls)
        }
    };
    // The best `size` by count, then by value (rank); the null after any value
    // held as often. A heap of `size` keeps the selection free of a sort of all.
    let mut best: std::collections::BinaryHeap<(std::cmp::Reverse<u32>, u32)> =
        std::collections::BinaryHeap::with_capacity(size + 1);
    for (rank, n) in counts.enumerate() {
        if n == 0 || size == 0 {
            continue;
        }
        // Ranks come in ascending order, so once the heap is full a value held no
        // more often than the worst kept cannot displace it.
        if best.len() == size && best.peek().is_some_and(|worst| n <= worst.0 .0) {
            continue;
        }
        best.push((std::cmp::Reverse(n), rank as u32));
        if best.len() > size {
            best.pop();
        }
    }
    let mut out: Vec<(Value, usize)> = best
        .into_sorted_vec()
        .into_iter()
        .map(|(n, rank)| (table.get(order.holder(rank) as usize, field), n.0 as usize))
        .collect();
    if nulls > 0 {
        let at = out.partition_point(|&(_, n)| n >= nulls);
        if at < size {
            out.insert(at, (Value::Null, nulls));
            out.truncate(size);
        }
    }
    out
}

/// Facet counts as data: what `meta.facets` says, and what a page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facets(pub Vec<Facet>);

/// One field's counts: its values, commonest first, and how many rows hold each.
#[derive(Clone, Debug, PartialEq)]
pub struct Facet {
    pub field: &'static str,
    pub counts: Vec<(OwnedValue, usize)>,
}

impl Facets {
    /// Counts the `size` commonest values of each of `fields` over the rows at
    /// `positions` (all rows when `None`).
    pub fn count(
        view: &View,
        model: Model,
        fields: &[On],
        positions: Option<&[usize]>,
        size: usize,
    ) -> Facets {
        let facets = fields.iter().map(|&on| {
            let field = match on {
                On::Field(field) => field,
                On::Issue => {
                    return Facet {
                        field: ISSUE,
                        counts: count_flags(view, positions, size),
                    }
                }
            };
            let counts = match model.fields()[field].ty {
                Type::Int | Type::Bool | Type::Str | Type::Time | Type::Date => {
                    count_by_rank(view, model, field, positions, size)
                }
                _ => {
                    let mut counts: Vec<(Value, usize)> =
                        count(view, model, field, positions).into_iter().collect();
                    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| order::compare(a.0, b.0)));
                    counts.truncate(size);
                    counts
                }
            };
            Facet {
                field: model.fields()[field].name,
                counts: counts.into_iter().map(|(v, n)| (v.owned(), n)).collect(),
            }
        });
        Facets(facets.collect())
    }

    /// `,"facets":{...}`, as `meta` holds it after `total_count`.
    pub fn write_meta(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b",\"facets\":{");
        for (k, facet) in self.0.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            write_str(out, facet.field);
            out.extend_from_slice(b":[");
            for (i, (value, n)) in facet.counts.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"value\":");
                write_scalar(out, &value.as_value());
                out.extend_from_slice(b",\"count\":");
                write_int(out, *n as i64);
                out.push(b'}');
            }
            out.push(b']');
        }
        out.push(b'}');
    }
}

/// A facet's value as text, as its JSON says it (`None` for null).
pub fn shown(value: &OwnedValue) -> Option<String> {
    match value.as_value() {
        Value::Int(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Str(s) => Some(s.to_string()),
        Value::Time(t) => {
            let mut out = Vec::new();
            crate::encoding::time::write_timestamp(&mut out, t);
            Some(String::from_utf8_lossy(&out).into_owned())
        }
        Value::Null | Value::Ref(..) | Value::Refs(..) => None,
    }
}
