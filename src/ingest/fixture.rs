//! Import from Django fixtures: the JSON arrays `manage.py dumpdata` writes.
//!
//! Each file is read whole and parsed into borrowed objects; only the 15 models'
//! `fields` are parsed further, one object at a time, so memory stays near the size
//! of the input. Every problem is collected; the caller decides what stops a build.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::encoding::time;
use crate::model::records::{Collection, FieldSource};
use crate::model::validate::Problem;
use crate::model::Model;

/// What an import read.
#[derive(Debug, Default)]
pub struct Import {
    pub collection: Collection,
    /// Problems that stop the build: JSON that does not parse, wrong types, bad dates.
    pub errors: Vec<Problem>,
    /// Objects of other models (pages, images, users), by label.
    pub skipped: BTreeMap<String, usize>,
}

#[derive(Deserialize)]
struct Object<'a> {
    model: Option<&'a str>,
    pk: Option<&'a RawValue>,
    #[serde(borrow)]
    fields: Option<&'a RawValue>,
}

impl Import {
    /// Reads one fixture file into this import.
    pub fn read_file(&mut self, path: &Path) {
        match std::fs::read_to_string(path) {
            Ok(text) => self.read_str(&path.display().to_string(), &text),
            Err(e) => self.errors.push(Problem {
                place: path.display().to_string(),
                message: format!("cannot read: {e}"),
            }),
        }
    }

    /// Reads one fixture document; `name` locates its problems.
    pub fn read_str(&mut self, name: &str, text: &str) {
        let objects: Vec<Object> = match serde_json::from_str(text) {
            Ok(o) => o,
            Err(e) => {
                self.errors.push(Problem {
                    place: name.to_string(),
                    message: format!("not a JSON array of fixture objects: {e}"),
                });
                return;
            }
        };
        for (i, object) in objects.into_iter().enumerate() {
            let place = || format!("{name} object #{}", i + 1);
            let Some(label) = object.model else {
                self.errors.push(Problem {
                    place: place(),
                    message: "has no \"model\"".into(),
                });
                continue;
            };
            let Some(model) = Model::from_label(label) else {
                *self.skipped.entry(label.to_string()).or_default() += 1;
                continue;
            };
            let pk = match object
                .pk
                .map(|raw| serde_json::from_str::<Value>(raw.get()))
            {
                Some(Ok(Value::Number(n))) if n.as_i64().is_some() => {
                    n.as_i64().unwrap_or_default()
                }
                other => {
                    let found = match other {
                        Some(Ok(v)) => format!("found {v}"),
                        _ => "it is missing".into(),
                    };
                    self.errors.push(Problem {
                        place: format!("{} ({label})", place()),
                        message: format!("pk must be an integer; {found}"),
                    });
                    continue;
                }
            };
            let fields = match object
                .fields
                .map(|raw| serde_json::from_str::<Map<String, Value>>(raw.get()))
            {
                Some(Ok(map)) => map,
                _ => {
                    self.errors
                        .push(Problem::at(model, pk, "fields", "must be a JSON object"));
                    continue;
                }
            };
            self.push(model, pk, fields);
        }
    }

    /// Adds one record given as a fixture object's `fields` (values as `dumpdata`
    /// types them), checking each field as the fixture import does.
    pub fn push(&mut self, model: Model, pk: i64, fields: Map<String, Value>) {
        let mut f = ObjectFields {
            model,
            pk,
            map: fields,
            errors: &mut self.errors,
        };
        self.collection.read(model, pk, &mut f);
    }
}

/// The `fields` of one object, taken out one by one with their types checked.
struct ObjectFields<'a> {
    model: Model,
    pk: i64,
    map: Map<String, Value>,
    errors: &'a mut Vec<Problem>,
}

fn describe(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

impl ObjectFields<'_> {
    fn error(&mut self, field: &str, message: String) {
        self.errors
            .push(Problem::at(self.model, self.pk, field, message));
    }

    /// The value of a field; a missing field is an error.
    fn value(&mut self, field: &str) -> Option<Value> {
        let v = self.map.remove(field);
        if v.is_none() {
            self.error(field, "is missing".into());
        }
        v
    }

    fn checked_date(&mut self, field: &str, s: String) -> String {
        if time::parse_date(&s).is_none() {
            self.error(field, format!("{s:?} is not a date (YYYY-MM-DD)"));
        }
        s
    }
}

impl FieldSource for ObjectFields<'_> {
    fn opt_text(&mut self, field: &'static str) -> Option<String> {
        match self.value(field)? {
            Value::Null => None,
            Value::String(s) => Some(s),
            v => {
                self.error(
                    field,
                    format!("expected a string or null, found {}", describe(&v)),
                );
                None
            }
        }
    }

    fn text(&mut self, field: &'static str) -> String {
        match self.value(field) {
            Some(Value::String(s)) => s,
            None => String::new(),
            Some(v) => {
                self.error(field, format!("expected a string, found {}", describe(&v)));
                String::new()
            }
        }
    }

    fn opt_count(&mut self, field: &'static str) -> Option<i64> {
        match self.value(field)? {
            Value::Null => None,
            Value::Number(n) if n.as_i64().is_some_and(|x| x >= 0) => n.as_i64(),
            v => {
                self.error(
                    field,
                    format!(
                        "expected a non-negative integer or null, found {}",
                        describe(&v)
                    ),
                );
                None
            }
        }
    }

    fn opt_bool(&mut self, field: &'static str) -> Option<bool> {
        match self.value(field)? {
            Value::Null => None,
            Value::Bool(b) => Some(b),
            v => {
                self.error(
                    field,
                    format!("expected true, false or null, found {}", describe(&v)),
                );
                None
            }
        }
    }

    fn time(&mut self, field: &'static str) -> i64 {
        match self.value(field) {
            Some(Value::String(s)) => time::parse_timestamp(&s).unwrap_or_else(|| {
                self.error(
                    field,
                    format!("{s:?} is not a timestamp (YYYY-MM-DDTHH:MM:SS[.ffffff]Z)"),
                );
                0
            }),
            None => 0,
            Some(v) => {
                self.error(
                    field,
                    format!("expected a timestamp string, found {}", describe(&v)),
                );
                0
            }
        }
    }

    fn opt_date(&mut self, field: &'static str) -> Option<String> {
        match self.value(field)? {
            Value::Null => None,
            Value::String(s) => Some(self.checked_date(field, s)),
            v => {
                self.error(
                    field,
                    format!("expected a date string or null, found {}", describe(&v)),
                );
                None
            }
        }
    }

    fn date(&mut self, field: &'static str) -> String {
        match self.value(field) {
            Some(Value::String(s)) => self.checked_date(field, s),
            None => String::new(),
            Some(v) => {
                self.error(
                    field,
                    format!("expected a date string, found {}", describe(&v)),
                );
                String::new()
            }
        }
    }

    fn opt_reference(&mut self, field: &'static str, _target: Model) -> Option<i64> {
        match self.value(field)? {
            Value::Null => None,
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            v => {
                self.error(
                    field,
                    format!(
                        "expected a primary key (integer) or null, found {}",
                        describe(&v)
                    ),
                );
                None
            }
        }
    }

    fn reference(&mut self, field: &'static str, _target: Model) -> i64 {
        match self.value(field) {
            Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
            None => 0,
            Some(v) => {
                self.error(
                    field,
                    format!("expected a primary key (integer), found {}", describe(&v)),
                );
                0
            }
        }
    }

    fn references(&mut self, field: &'static str, _target: Model) -> Vec<i64> {
        match self.value(field) {
            Some(Value::Array(items)) => {
                let mut ids = Vec::with_capacity(items.len());
                for item in items {
                    match item.as_i64() {
                        Some(id) => ids.push(id),
                        None => self.error(
                            field,
                            format!("expected a list of primary keys, found {}", describe(&item)),
                        ),
                    }
                }
                ids
            }
            None => Vec::new(),
            Some(v) => {
                self.error(
                    field,
                    format!("expected a list of primary keys, found {}", describe(&v)),
                );
                Vec::new()
            }
        }
    }
}
