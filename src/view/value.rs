//! The value of one field of one row.

use crate::model::Model;

/// One field's value in a row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Null,
    Int(i64),
    Bool(bool),
    Str(Box<str>),
    /// Microseconds since the Unix epoch.
    Time(i64),
    /// A related record: its model and its position in that model's table.
    Ref(Model, u32),
    Refs(Model, Box<[u32]>),
}

impl Value {
    pub(super) fn str(s: &str) -> Value {
        Value::Str(s.into())
    }

    /// Takes an owned string without copying it.
    pub(super) fn own(s: String) -> Value {
        Value::Str(s.into_boxed_str())
    }

    pub(super) fn opt_own(s: Option<String>) -> Value {
        s.map_or(Value::Null, Value::own)
    }

    pub(super) fn opt_int(n: Option<i64>) -> Value {
        n.map_or(Value::Null, Value::Int)
    }

    pub(super) fn opt_bool(b: Option<bool>) -> Value {
        b.map_or(Value::Null, Value::Bool)
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A row: the values of a model's fields, in field-table order (`[0]` is the id).
pub type Row = Box<[Value]>;
