//! The value of one field of one row: [`Value`] borrows it from a table's
//! columns; [`OwnedValue`] holds it while a row is built or a query compares
//! against it.

use crate::model::Model;

/// One field's value in a row, borrowed from the table that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value<'a> {
    Null,
    Int(i64),
    Bool(bool),
    Str(&'a str),
    /// Microseconds since the Unix epoch.
    Time(i64),
    /// A related record: its model and its position in that model's table.
    Ref(Model, u32),
    Refs(Model, &'a [u32]),
}

impl<'a> Value<'a> {
    /// The text of a string value.
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number of an integer value.
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(n),
            _ => None,
        }
    }

    pub fn owned(self) -> OwnedValue {
        match self {
            Value::Null => OwnedValue::Null,
            Value::Int(n) => OwnedValue::Int(n),
            Value::Bool(b) => OwnedValue::Bool(b),
            Value::Str(s) => OwnedValue::Str(s.into()),
            Value::Time(t) => OwnedValue::Time(t),
            Value::Ref(m, p) => OwnedValue::Ref(m, p),
            Value::Refs(m, ps) => OwnedValue::Refs(m, ps.into()),
        }
    }
}

/// A value that owns its text or list: a row's value while it is built, or the
/// value a query compares rows with.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OwnedValue {
    Null,
    Int(i64),
    Bool(bool),
    Str(Box<str>),
    Time(i64),
    Ref(Model, u32),
    Refs(Model, Box<[u32]>),
}

impl OwnedValue {
    pub(super) fn str(s: &str) -> OwnedValue {
        OwnedValue::Str(s.into())
    }

    /// Takes an owned string without copying it.
    pub(super) fn own(s: String) -> OwnedValue {
        OwnedValue::Str(s.into_boxed_str())
    }

    pub(super) fn opt_own(s: Option<String>) -> OwnedValue {
        s.map_or(OwnedValue::Null, OwnedValue::own)
    }

    pub(super) fn opt_int(n: Option<i64>) -> OwnedValue {
        n.map_or(OwnedValue::Null, OwnedValue::Int)
    }

    pub(super) fn opt_bool(b: Option<bool>) -> OwnedValue {
        b.map_or(OwnedValue::Null, OwnedValue::Bool)
    }

    /// The value, borrowed.
    pub fn as_value(&self) -> Value<'_> {
        match self {
            OwnedValue::Null => Value::Null,
            OwnedValue::Int(n) => Value::Int(*n),
            OwnedValue::Bool(b) => Value::Bool(*b),
            OwnedValue::Str(s) => Value::Str(s),
            OwnedValue::Time(t) => Value::Time(*t),
            OwnedValue::Ref(m, p) => Value::Ref(*m, *p),
            OwnedValue::Refs(m, ps) => Value::Refs(*m, ps),
        }
    }
}

/// A row while it is built: the values of a model's fields, in field-table order
/// (`[0]` is the id).
pub type Row = Vec<OwnedValue>;
