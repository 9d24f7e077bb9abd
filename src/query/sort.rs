//! `sort=f1,-f2`: by scalar fields of the item, strings by code point, numbers
//! numerically, nulls last in both directions, ties by ascending id.

use std::cmp::Ordering;

use crate::model::{Model, Shape, Type};
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
        push(&mut keys, self::key(model, shape, key)?);
    }
    Ok(keys)
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

/// Sorts positions by the keys, ties as `ties` says. Only the first `need`
/// positions are wanted: past them the list is cut short, unsorted.
pub fn sort(
    view: &View,
    model: Model,
    keys: &[SortKey],
    ties: Ties,
    positions: &mut Vec<usize>,
    need: usize,
) {
    if keys.is_empty() && matches!(ties, Ties::ById) {
        return;
    }
    let table = view.table(model);
    let cmp = |a: &Value, b: &Value| -> Ordering {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::Str(x), Value::Str(y)) => x.cmp(y),
            (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
            (Value::Time(x), Value::Time(y)) => x.cmp(y),
            (Value::Ref(m, x), Value::Ref(_, y)) => {
                view.table(*m).id(*x).cmp(&view.table(*m).id(*y))
            }
            _ => Ordering::Equal,
        }
    };
    let tie = |p: usize, q: usize| match &ties {
        Ties::ById => p.cmp(&q),
        Ties::Random(random) => random.hash_one(p).cmp(&random.hash_one(q)).then(p.cmp(&q)),
    };
    // Positions are distinct, so the tie-break makes the order total: selecting the
    // first `need` and sorting them is the full sort's prefix.
    let order = |&p: &usize, &q: &usize| {
        let (rp, rq) = (&table.rows[p], &table.rows[q]);
        keys.iter()
            .map(|k| match (&rp[k.field], &rq[k.field]) {
                (Value::Null, Value::Null) => Ordering::Equal,
                (Value::Null, _) => Ordering::Greater,
                (_, Value::Null) => Ordering::Less,
                (a, b) if k.descending => cmp(a, b).reverse(),
                (a, b) => cmp(a, b),
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
