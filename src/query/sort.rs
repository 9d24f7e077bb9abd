//! `sort=f1,-f2`: by scalar fields of the item, strings by code point, numbers
//! numerically, nulls last in both directions, ties by ascending id.

use crate::model::{Model, Shape, Type};
use crate::view::bits::Bits;
use crate::view::order::{self, Order};
use crate::view::{Value, View};

use super::error::ApiError;

/// One key of a sort: a field's position, and its direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortKey {
    pub field: usize,
    pub descending: bool,
}

/// Whether `sort` takes a field of this type: scalars, and parent ids where the
/// shape shows them as ids.
pub fn sortable(ty: Type, shape: Shape) -> bool {
    match ty {
        Type::Int | Type::Bool | Type::Str | Type::Time | Type::Date | Type::MediaFile => true,
        Type::Parent(_) => shape == Shape::Plain,
        Type::RefId(_) => true,
        Type::Embed(_) | Type::EmbedMany(_) | Type::Taxon | Type::RefIds(_) => false,
    }
}

/// Parses a `sort` value (empty: no sort). A field named again adds nothing (the
/// first key on it decides), so the keys are at most the model's fields however
/// long the value.
pub fn parse(model: Model, shape: Shape, value: &str) -> Result<Vec<SortKey>, ApiError> {
    let mut keys = Vec::new();
    if value.is_empty() {
        return Ok(keys);
    }
    for key in value.split(',') {
        let key = self::key(model, shape, key).map_err(|e| {
            ApiError::bad_request(format!(
                "{}; sort takes {} (- before one for descending)",
                e.message,
                sortable_names(model, shape).join(", ")
            ))
        })?;
        push(&mut keys, key);
    }
    Ok(keys)
}

/// The fields `sort` takes, in the item's order.
pub fn sortable_names(model: Model, shape: Shape) -> Vec<&'static str> {
    model
        .fields()
        .iter()
        .filter(|f| sortable(f.ty, shape))
        .map(|f| f.name)
        .collect()
}

/// Adds a key unless its field is already sorted on.
pub fn push(keys: &mut Vec<SortKey>, key: SortKey) {
    if !keys.iter().any(|k| k.field == key.field) {
        keys.push(key);
    }
}

/// One key: a field's name, `-` before it for descending.
pub fn key(model: Model, shape: Shape, key: &str) -> Result<SortKey, ApiError> {
    let (name, descending) = match key.strip_prefix('-') {
        Some(name) => (name, true),
        None => (key, false),
    };
    let field = model.field_index(name).ok_or_else(|| {
        ApiError::bad_request(format!("cannot order by '{name}' (unknown field)"))
    })?;
    if !sortable(model.fields()[field].ty, shape) {
        return Err(ApiError::bad_request(format!(
            "cannot order by '{name}' (not a scalar field)"
        )));
    }
    Ok(SortKey { field, descending })
}

/// How positions the keys leave tied are ordered.
pub enum Ties {
    /// Ascending id (positions are in id order): the stable order.
    ById,
    /// At random (`order=random`): a fresh order each request.
    Random(ahash::RandomState),
}

/// The page `offset..offset + limit` of `candidates` (every row when `None`;
/// otherwise ascending positions) in the keys' order, ties as `ties` says.
///
/// By id, the order is looked up in each key's [`Order`] rather than read
/// from the rows: with every row, the page is found by index; with many
/// candidates, the first key's order is walked value by value, sorting only the
/// ties a value leaves by the other keys, until the page is full; with few, the
/// candidates are ordered by the keys' ranks.
pub fn page(
    view: &View,
    model: Model,
    keys: &[SortKey],
    ties: Ties,
    candidates: Option<Vec<usize>>,
    offset: usize,
    limit: usize,
) -> Vec<usize> {
    let table = view.table(model);
    let rows = table.len();
    let need = offset.saturating_add(limit);
    if let Ties::Random(random) = ties {
        let mut positions = candidates.unwrap_or_else(|| (0..rows).collect());
        shuffle(view, model, keys, &random, &mut positions, need);
        return positions.into_iter().skip(offset).take(limit).collect();
    }
    let Some(first) = keys.first() else {
        return match candidates {
            Some(c) => c.into_iter().skip(offset).take(limit).collect(),
            None => (offset.min(rows)..need.min(rows)).collect(),
        };
    };
    let orders: Vec<(Order, bool)> = keys
        .iter()
        .map(|k| (table.order(k.field), k.descending))
        .collect();
    let order = orders[0].0;
    match candidates {
        None if keys.len() == 1 => (offset.min(rows)..need.min(rows))
            .map(|i| order.nth(i, first.descending) as usize)
            .collect(),
        None => walk(&orders, |_| true, offset, limit),
        Some(c) if c.len().saturating_mul(16) >= rows => {
            let member = Bits::of(rows, c.iter().map(|&p| p as u32));
            let member = |p: u32| member.contains(p as usize);
            walk(&orders, member, offset, limit)
        }
        Some(c) => {
            // Each candidate's ranks, computed once, side by side: the sort then
            // compares slices of one buffer, and equal ranks fall to the position.
            let m = orders.len();
            let ranks: Vec<u32> = c
                .iter()
                .flat_map(|&p| orders.iter().map(move |(o, d)| o.key(p as u32, *d)))
                .collect();
            let of = |i: usize| &ranks[i * m..(i + 1) * m];
            let by_keys = |a: &usize, b: &usize| of(*a).cmp(of(*b)).then(c[*a].cmp(&c[*b]));
            let mut at: Vec<usize> = (0..c.len()).collect();
            if need == 0 {
                return Vec::new();
            }
            if need < at.len() {
                at.select_nth_unstable_by(need - 1, by_keys);
                at.truncate(need);
            }
            at.sort_unstable_by(by_keys);
            at.into_iter()
                .skip(offset)
                .take(limit)
                .map(|i| c[i])
                .collect()
        }
    }
}

/// Walks the first key's order value by value, keeping the members, ordering the
/// ties of each value by the other keys, until `offset + limit` are found.
fn walk(
    orders: &[(Order, bool)],
    member: impl Fn(u32) -> bool,
    offset: usize,
    limit: usize,
) -> Vec<usize> {
    let (first, descending) = orders[0];
    let rest = &orders[1..];
    let mut skip = offset;
    let mut page = Vec::with_capacity(limit.min(1 << 16));
    let mut tied = Vec::new();
    for run in first.runs(descending) {
        if page.len() == limit {
            break;
        }
        tied.clear();
        tied.extend(run.iter().copied().filter(|&p| member(p)));
        if tied.len() <= skip {
            skip -= tied.len();
            continue;
        }
        if !rest.is_empty() && tied.len() > 1 {
            // Stable: ties on every key stay by ascending position.
            tied.sort_by_cached_key(|&p| {
                rest.iter().map(|(o, d)| o.key(p, *d)).collect::<Vec<_>>()
            });
        }
        let take = (limit - page.len()).min(tied.len() - skip);
        page.extend(tied[skip..skip + take].iter().map(|&p| p as usize));
        skip = 0;
    }
    page
}

/// Sorts positions by the keys, ties at random (`order=random`). Only the first
/// `need` positions are wanted: past them the list is cut short, unsorted.
fn shuffle(
    view: &View,
    model: Model,
    keys: &[SortKey],
    random: &ahash::RandomState,
    positions: &mut Vec<usize>,
    need: usize,
) {
    let table = view.table(model);
    let tie = |p: usize, q: usize| random.hash_one(p).cmp(&random.hash_one(q)).then(p.cmp(&q));
    // Positions are distinct, so the tie-break makes the order total: selecting the
    // first `need` and sorting them is the full sort's prefix.
    let order = |&p: &usize, &q: &usize| {
        keys.iter()
            .map(|k| match (table.get(p, k.field), table.get(q, k.field)) {
                // Nulls last both ways.
                (a, b) if k.descending && a != Value::Null && b != Value::Null => {
                    order::compare(a, b).reverse()
                }
                (a, b) => order::compare(a, b),
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| tie(p, q))
    };
    if need == 0 {
        positions.clear();
        return;
    }
    if need < positions.len() {
        positions.select_nth_unstable_by(need - 1, order);
        positions.truncate(need);
    }
    positions.sort_unstable_by(order);
}
