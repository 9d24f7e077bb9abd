//! Filters: the specimen filters of the label-printing form, and exact field filters
//! on the other lists. Matching reads the view's rows and lowercase columns, never
//! the rendered JSON.

use ahash::AHashMap;

use crate::derived;
use crate::query::{ApiError, Params};
use crate::render::Shape;
use crate::schema::{Model, Type};
use crate::validate::{PREPARATIONS, SEXES, STAGES};
use crate::view::{Value, View, SPECIMEN_TEXT};

/// Each search term is a scan of the list: a bound keeps one request cheap.
const MAX_TERMS: usize = 16;

/// One condition on a row.
#[derive(Clone, Debug)]
enum Cond {
    /// A related record's text field contains `term` (lowercase), for any related
    /// record the field holds.
    Related {
        field: usize,
        target: &'static str,
        term: String,
    },
    /// The row's own text field contains `term` (lowercase).
    Contains { field: usize, term: String },
    /// The row's field equals `value`.
    Equals { field: usize, value: Value },
    /// The row's parent has this id.
    ParentId { field: usize, id: i64 },
}

/// All conditions of a request; a row matches when every one holds.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    conds: Vec<Cond>,
    /// Search terms, lowercased: each must occur in some string of the item.
    terms: Vec<String>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.conds.is_empty() && self.terms.is_empty()
    }

    /// Adds the terms of a `search` value: whitespace-separated, case-insensitive.
    pub fn search(&mut self, value: &str) -> Result<(), ApiError> {
        let terms: Vec<String> = value
            .split_whitespace()
            .map(|t| t.to_lowercase().replace('\0', ""))
            .collect();
        if terms.len() > MAX_TERMS {
            return Err(ApiError::bad_request(format!(
                "search takes at most {MAX_TERMS} terms, not {}",
                terms.len()
            )));
        }
        self.terms.extend(terms);
        Ok(())
    }
}

/// Specimen filters matched as case-insensitive substrings of a related record's
/// field: (parameter, specimen field, related record's field).
const RELATED: &[(&str, &str, &str)] = &[
    ("order", "order", "name"),
    ("family", "family", "name"),
    ("subfamily", "subfamily", "name"),
    ("tribe", "tribe", "name"),
    ("genus", "genus", "name"),
    ("species", "species", "name"),
    ("subspecies", "subspecies", "name"),
    ("taxon", "taxon", "name"),
    ("common_name", "taxon", "common_name"),
    ("determiner_lastname", "determiner", "last_name"),
    ("determiner_firstname", "determiner", "first_name"),
    ("preparer_lastname", "preparer", "last_name"),
    ("preparer_firstname", "preparer", "first_name"),
    ("collector_lastname", "collector", "last_name"),
    ("collector_firstname", "collector", "first_name"),
    ("collecting_trip", "collecting_trip", "name"),
    ("country", "country", "name"),
    ("state", "state", "name"),
    ("county", "county", "name"),
    ("locality", "locality", "name"),
    ("gps_lat", "gps", "latitude"),
    ("gps_long", "gps", "longitude"),
    ("elevation", "gps", "elevation"),
];

const BOOLS: &[&str] = &["labels_printed", "labeled", "photographed"];
const INTS: &[&str] = &["determined_year", "day", "year"];

fn spec_field(name: &str) -> usize {
    Model::SpecimenRecord
        .field_index(name)
        .expect("specimen filters name specimen fields")
}

fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "true" | "True" | "1" => Some(true),
        "false" | "False" | "0" => Some(false),
        _ => None,
    }
}

fn choice(name: &str, value: &str, allowed: &[&str]) -> Result<Value, ApiError> {
    allowed
        .iter()
        .find(|c| c.eq_ignore_ascii_case(value))
        .map(|c| Value::Str((*c).into()))
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "{name} must be one of: {}; not {value:?}",
                allowed.join(", ")
            ))
        })
}

/// The filters of `/specimen-records/`: every known parameter with a non-empty
/// value; unknown parameters are ignored, as the label form sends many.
pub fn specimen(params: &Params) -> Result<Filter, ApiError> {
    let mut conds = Vec::new();
    for name in params.names() {
        let Some(value) = params.get(name).filter(|v| !v.is_empty()) else {
            continue;
        };
        if let Some(&(_, field, target)) = RELATED.iter().find(|r| r.0 == name) {
            conds.push(Cond::Related {
                field: spec_field(field),
                target,
                term: value.to_lowercase(),
            });
        } else if SPECIMEN_TEXT.contains(&name) {
            conds.push(Cond::Contains {
                field: spec_field(name),
                term: value.to_lowercase(),
            });
        } else if let Some(v) = exact_specimen(name, value)? {
            conds.push(Cond::Equals {
                field: spec_field(name),
                value: v,
            });
        }
    }
    Ok(Filter {
        conds,
        terms: Vec::new(),
    })
}

fn exact_specimen(name: &str, value: &str) -> Result<Option<Value>, ApiError> {
    let v = match name {
        "usi" => Value::Str(value.into()),
        "sex" => choice(name, value, SEXES)?,
        "stage" => choice(name, value, STAGES)?,
        "preparation" => choice(name, value, PREPARATIONS)?,
        "month" => choice(name, value, &derived::MONTHS)?,
        "preparation_date" => match derived::parse_date(value) {
            Some(d) => Value::Str(d.into()),
            None => {
                return Err(ApiError::bad_request(format!(
                    "preparation_date must be a date (YYYY-MM-DD); not {value:?}"
                )))
            }
        },
        n if INTS.contains(&n) => match value.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => {
                return Err(ApiError::bad_request(format!(
                    "{name} must be an integer; not {value:?}"
                )))
            }
        },
        n if BOOLS.contains(&n) => match parse_bool(value) {
            Some(b) => Value::Bool(b),
            None => {
                return Err(ApiError::bad_request(format!(
                    "{name} must be true or false (also True, False, 1, 0); not {value:?}"
                )))
            }
        },
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// Exact filters on the fields of a plain shape: `?field=value`.
pub fn fields(model: Model, params: &Params) -> Result<Filter, ApiError> {
    let mut conds = Vec::new();
    for name in params.names() {
        let Some(index) = model.field_index(name) else {
            continue;
        };
        let value = params.get(name).unwrap_or_default();
        let field = model.fields()[index];
        let invalid = |expected: &str| {
            ApiError::bad_request(format!(
                "field filter error. {value:?} is not a valid value for {name} (expected {expected})"
            ))
        };
        let cond = match field.ty {
            Type::Int => Cond::Equals {
                field: index,
                value: Value::Int(value.parse().map_err(|_| invalid("an integer"))?),
            },
            Type::Parent(_) => Cond::ParentId {
                field: index,
                id: value.parse().map_err(|_| invalid("an id, an integer"))?,
            },
            Type::Bool => Cond::Equals {
                field: index,
                value: Value::Bool(parse_bool(value).ok_or_else(|| invalid("true or false"))?),
            },
            Type::Str => Cond::Equals {
                field: index,
                value: Value::Str(value.into()),
            },
            Type::Date => Cond::Equals {
                field: index,
                value: Value::Str(
                    derived::parse_date(value)
                        .ok_or_else(|| invalid("a date, YYYY-MM-DD"))?
                        .into(),
                ),
            },
            Type::Time => Cond::Equals {
                field: index,
                value: Value::Time(
                    derived::parse_timestamp(value).ok_or_else(|| invalid("a timestamp"))?,
                ),
            },
            Type::Embed(_) | Type::EmbedMany(_) | Type::Taxon => {
                return Err(ApiError::bad_request(format!(
                    "field filter error. {name} holds embedded records and cannot be filtered on"
                )))
            }
        };
        conds.push(cond);
    }
    Ok(Filter {
        conds,
        terms: Vec::new(),
    })
}

/// Positions of the related records whose field contains a term, per model.
type Sets = AHashMap<Model, Vec<bool>>;

fn related_sets(view: &View, model: Model, field: usize, target: &str, term: &str) -> Sets {
    let targets: Vec<Model> = match model.fields()[field].ty {
        Type::Embed(m) | Type::EmbedMany(m) | Type::Parent(m) => vec![m],
        Type::Taxon => Model::RANKS.to_vec(),
        _ => Vec::new(),
    };
    targets
        .into_iter()
        .map(|m| {
            let table = view.table(m);
            let f = m.field_index(target);
            let set = (0..table.rows.len())
                .map(|pos| {
                    f.and_then(|f| table.lowercase(pos, f))
                        .is_some_and(|s| s.contains(term))
                })
                .collect();
            (m, set)
        })
        .collect()
}

/// Which rows of each (model, shape) have a term in some string of their item.
type Found = AHashMap<(Model, Shape), Vec<bool>>;

/// Marks the rows of `model` whose item, as served in `shape`, holds `term` in one
/// of its own strings or in a record it embeds; embedded models are marked first.
fn find_term(view: &View, model: Model, shape: Shape, term: &str, found: &mut Found) {
    if found.contains_key(&(model, shape)) {
        return;
    }
    let fields = model.fields();
    // For each field: the (model, shape) of the records it embeds in this item.
    let embedded: Vec<Vec<(Model, Shape)>> = fields
        .iter()
        .map(|f| match (f.ty, shape) {
            (Type::Parent(m), Shape::Nested) => {
                vec![(
                    m,
                    if m.has_nested() {
                        Shape::Nested
                    } else {
                        Shape::Plain
                    },
                )]
            }
            (Type::Embed(m) | Type::EmbedMany(m), _) => vec![(m, Shape::Plain)],
            (Type::Taxon, _) => Model::RANKS.iter().map(|&m| (m, Shape::Plain)).collect(),
            _ => Vec::new(),
        })
        .collect();
    for &(m, s) in embedded.iter().flatten() {
        find_term(view, m, s, term, found);
    }
    let table = view.table(model);
    let set = (0..table.rows.len())
        .map(|pos| {
            table.text(pos).contains(term)
                || table.rows[pos].iter().zip(&embedded).any(|(v, targets)| {
                    let hit = |m: &Model, p: &u32| {
                        targets
                            .iter()
                            .find(|(t, _)| t == m)
                            .is_some_and(|key| found[key][*p as usize])
                    };
                    match v {
                        Value::Ref(m, p) => hit(m, p),
                        Value::Refs(m, ps) => ps.iter().any(|p| hit(m, p)),
                        _ => false,
                    }
                })
        })
        .collect();
    found.insert((model, shape), set);
}

/// The positions of the rows of `model` that match every condition and every
/// search term (searched in the item as served in `shape`), ascending.
pub fn matching(view: &View, model: Model, shape: Shape, filter: &Filter) -> Vec<usize> {
    let table = view.table(model);
    let searched: Vec<Vec<bool>> = filter
        .terms
        .iter()
        .map(|term| {
            let mut found = Found::default();
            find_term(view, model, shape, term, &mut found);
            found.remove(&(model, shape)).expect("marked above")
        })
        .collect();
    let sets: Vec<Option<Sets>> = filter
        .conds
        .iter()
        .map(|c| match c {
            Cond::Related {
                field,
                target,
                term,
            } => Some(related_sets(view, model, *field, target, term)),
            _ => None,
        })
        .collect();
    let in_set = |sets: &Sets, m: &Model, p: &u32| sets.get(m).is_some_and(|s| s[*p as usize]);
    (0..table.rows.len())
        .filter(|&pos| searched.iter().all(|set| set[pos]))
        .filter(|&pos| {
            let row = &table.rows[pos];
            filter
                .conds
                .iter()
                .zip(&sets)
                .all(|(cond, sets)| match cond {
                    Cond::Related { field, .. } => {
                        let sets = sets.as_ref().expect("computed above");
                        match &row[*field] {
                            Value::Ref(m, p) => in_set(sets, m, p),
                            Value::Refs(m, ps) => ps.iter().any(|p| in_set(sets, m, p)),
                            _ => false,
                        }
                    }
                    Cond::Contains { field, term } => table
                        .lowercase(pos, *field)
                        .is_some_and(|s| s.contains(term.as_str())),
                    Cond::Equals { field, value } => &row[*field] == value,
                    Cond::ParentId { field, id } => match row[*field] {
                        Value::Ref(m, p) => view.table(m).id(p) == *id,
                        _ => false,
                    },
                })
        })
        .collect()
}
