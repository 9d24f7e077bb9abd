//! A model's table: its rows, ascending by id, with what finds them fast (an id
//! index, row groups, lowercased text columns, sort orders).

use std::sync::OnceLock;

use ahash::AHashMap;

use crate::model::{Model, Type};

use super::index::{Groups, TextColumn, Words};
use super::order::FieldOrder;
use super::value::{Row, Value};

/// The specimen's own text fields that filters match case-insensitively.
pub const SPECIMEN_TEXT: &[&str] = &[
    "full_date",
    "method",
    "weather",
    "temperature",
    "time_of_day",
    "habitat",
    "notes",
];

/// The records of one model, ascending by id.
#[derive(Debug)]
pub struct Table {
    pub model: Model,
    pub rows: Vec<Row>,
    index: AHashMap<i64, u32>,
    /// Lowercased text of the string fields filters match case-insensitively.
    lower: Vec<Option<TextColumn>>,
    /// Per row, the lowercased string values of its own fields (timestamps aside),
    /// NUL-separated: what `search` looks in, besides embedded records.
    text: TextColumn,
    /// The words of `text`, built the first time a search needs them.
    words: OnceLock<Words>,
    /// Per field, the rows grouped by value where that pays (see [`Groups`]).
    groups: Vec<Option<Groups>>,
    /// Per field, its sort order, built the first time it is asked for: a view
    /// is served before any is built, and only the fields someone sorts on cost
    /// memory (8 bytes a row each).
    orders: Box<[OnceLock<FieldOrder>]>,
}

impl Table {
    pub(super) fn new(model: Model, rows: Vec<Row>) -> Table {
        let index = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (id_of(r), i as u32))
            .collect();
        Table {
            model,
            rows,
            index,
            lower: Vec::new(),
            text: TextColumn::default(),
            words: OnceLock::new(),
            groups: Vec::new(),
            orders: model.fields().iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The rows in `field`'s order, built on first use (another caller asking
    /// meanwhile waits for the same build).
    pub fn order(&self, field: usize) -> &FieldOrder {
        self.orders[field].get_or_init(|| FieldOrder::build(&self.rows, field))
    }

    /// The words of the search text, built on first use.
    pub fn words(&self) -> &Words {
        self.words.get_or_init(|| Words::build(&self.text))
    }

    /// Builds the indexes filters and search use: lowercased text columns of the
    /// string fields filters match, the search text of every row, row groups.
    pub(super) fn index(&mut self) {
        let model = self.model;
        let fields: Vec<usize> = model
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.ty == Type::Str
                    && (model != Model::SpecimenRecord || SPECIMEN_TEXT.contains(&f.name))
            })
            .map(|(i, _)| i)
            .collect();
        self.keep_lowercase(&fields);
        self.keep_search_text();
        self.keep_groups();
    }

    /// Builds the search text of every row.
    fn keep_search_text(&mut self) {
        let texts: Vec<String> = self
            .rows
            .iter()
            .map(|row| {
                let mut t = String::new();
                for v in row.iter() {
                    if let Value::Str(s) = v {
                        t.push_str(s);
                        t.push('\0');
                    }
                }
                t
            })
            .collect();
        self.text = TextColumn::build(texts.iter().map(String::as_str));
    }

    /// Groups the rows by every field a filter can name, except those that are
    /// (nearly) unique per row: ids, timestamps, free text.
    fn keep_groups(&mut self) {
        let fields: Vec<usize> = self
            .model
            .fields()
            .iter()
            .enumerate()
            .filter(|(f, field)| *f > 0 && field.ty != Type::Time)
            .map(|(f, _)| f)
            .collect();
        let mut built = Groups::by_fields(&self.rows, &fields, 4).into_iter();
        self.groups = (0..self.model.fields().len()).map(|_| None).collect();
        for (&f, groups) in fields.iter().zip(&mut built) {
            self.groups[f] = groups;
        }
    }

    /// The rows grouped by `field`'s value, when that field is grouped.
    pub fn groups(&self, field: usize) -> Option<&Groups> {
        self.groups.get(field).and_then(Option::as_ref)
    }

    /// The search text of the row at `pos`: its own strings, lowercased, NUL-separated.
    pub fn text(&self, pos: usize) -> &str {
        self.text.get(pos)
    }

    /// The rows whose own strings contain `term` (lowercase), ascending: from the
    /// words when the term is one word, else by searching the whole text.
    pub fn find_text(&self, term: &str) -> Vec<u32> {
        match self.words().find(term, self.rows.len()) {
            Some(rows) => rows.into_owned(),
            None => self.text.find(term),
        }
    }

    /// The id of the row at `pos`.
    pub fn id(&self, pos: u32) -> i64 {
        id_of(&self.rows[pos as usize])
    }

    /// The position of the record with this id.
    pub fn position(&self, id: i64) -> Option<u32> {
        self.index.get(&id).copied()
    }

    /// Keeps a lowercased copy of these string fields.
    fn keep_lowercase(&mut self, fields: &[usize]) {
        self.lower = (0..self.model.fields().len()).map(|_| None).collect();
        for &f in fields {
            let values = self.rows.iter().map(|r| r[f].as_str().unwrap_or(""));
            self.lower[f] = Some(TextColumn::build(values));
        }
    }

    /// The lowercased text of a string field, or `None` when the value is not a string.
    pub fn lowercase(&self, pos: usize, field: usize) -> Option<std::borrow::Cow<'_, str>> {
        let value = self.rows[pos][field].as_str()?;
        match self.lower.get(field).and_then(Option::as_ref) {
            Some(column) => Some(column.get(pos).into()),
            None => Some(value.to_lowercase().into()),
        }
    }

    /// The rows whose string `field` contains `term` (lowercase), ascending; `None`
    /// when the field's lowercased text is not kept.
    pub fn find(&self, field: usize, term: &str) -> Option<Vec<u32>> {
        let column = self.lower.get(field).and_then(Option::as_ref)?;
        let mut rows = column.find(term);
        if term.is_empty() {
            // The empty text of a null is not a string that contains "".
            rows.retain(|&r| self.rows[r as usize][field].as_str().is_some());
        }
        Some(rows)
    }

    /// Checks that every row holds what the model's field table says, in length
    /// and in the type of each value: row building and the field tables are
    /// written apart, and this is what keeps them in step.
    pub fn conforms(&self) -> Result<(), String> {
        let fields = self.model.fields();
        for row in &self.rows {
            if row.len() != fields.len() {
                return Err(format!(
                    "{} row id={} has {} values for {} fields",
                    self.model.class_name(),
                    id_of(row),
                    row.len(),
                    fields.len()
                ));
            }
            for (field, value) in fields.iter().zip(row.iter()) {
                if !holds(field.ty, field.nullable, value) {
                    return Err(format!(
                        "{} row id={} field {} ({:?}{}) holds {value:?}",
                        self.model.class_name(),
                        id_of(row),
                        field.name,
                        field.ty,
                        if field.nullable { ", nullable" } else { "" }
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Whether a value is one a field of this type holds.
fn holds(ty: Type, nullable: bool, value: &Value) -> bool {
    match (ty, value) {
        (_, Value::Null) => nullable,
        (Type::Int, Value::Int(_))
        | (Type::Bool, Value::Bool(_))
        | (Type::Str | Type::Date | Type::MediaFile, Value::Str(_))
        | (Type::Time, Value::Time(_)) => true,
        (Type::Parent(m) | Type::Embed(m), Value::Ref(r, _)) => m == *r,
        (Type::EmbedMany(m) | Type::RefIds(m), Value::Refs(r, _)) => m == *r,
        (Type::RefId(m), Value::Ref(r, _)) => m == *r,
        (Type::Taxon, Value::Ref(r, _)) => Model::RANKS.contains(r),
        _ => false,
    }
}

fn id_of(row: &Row) -> i64 {
    match row[0] {
        Value::Int(id) => id,
        _ => unreachable!("the first field of every row is its id"),
    }
}
