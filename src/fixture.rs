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

use crate::derived;
use crate::records::*;
use crate::schema::Model;
use crate::validate::Problem;

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
        let mut f = Fields {
            model,
            pk,
            map: fields,
            errors: &mut self.errors,
        };
        push_record(&mut self.collection, &mut f);
    }
}

/// The `fields` of one object, taken out one by one with their types checked.
struct Fields<'a> {
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

impl Fields<'_> {
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

    fn opt_string(&mut self, field: &str) -> Option<String> {
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

    fn string(&mut self, field: &str) -> String {
        match self.value(field) {
            Some(Value::String(s)) => s,
            None => String::new(),
            Some(v) => {
                self.error(field, format!("expected a string, found {}", describe(&v)));
                String::new()
            }
        }
    }

    fn opt_uint(&mut self, field: &str) -> Option<i64> {
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

    fn opt_bool(&mut self, field: &str) -> Option<bool> {
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

    fn time(&mut self, field: &str) -> i64 {
        match self.value(field) {
            Some(Value::String(s)) => derived::parse_timestamp(&s).unwrap_or_else(|| {
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

    fn checked_date(&mut self, field: &str, s: String) -> String {
        if derived::parse_date(&s).is_none() {
            self.error(field, format!("{s:?} is not a date (YYYY-MM-DD)"));
        }
        s
    }

    fn opt_date(&mut self, field: &str) -> Option<String> {
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

    fn date(&mut self, field: &str) -> String {
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

    fn opt_ref(&mut self, field: &str) -> Option<i64> {
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

    fn reference(&mut self, field: &str) -> i64 {
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

    fn references(&mut self, field: &str) -> Vec<i64> {
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

fn rank(f: &mut Fields, stamps: (i64, i64), parent: Option<&str>) -> Rank {
    Rank {
        id: f.pk,
        date_created: stamps.0,
        date_modified: stamps.1,
        name: f.string("name"),
        common_name: f.opt_string("common_name"),
        authority: f.string("authority"),
        parent: parent.map(|p| f.reference(p)),
    }
}

fn species(f: &mut Fields, stamps: (i64, i64), parent: &str) -> Species {
    Species {
        id: f.pk,
        date_created: stamps.0,
        date_modified: stamps.1,
        name: f.string("name"),
        common_name: f.opt_string("common_name"),
        authority: f.string("authority"),
        parent: f.reference(parent),
        mona: f.opt_string("mona"),
        p3: f.opt_string("p3"),
        ps: f.opt_string("ps"),
    }
}

fn push_record(c: &mut Collection, f: &mut Fields) {
    let (id, created, modified) = (f.pk, f.time("date_created"), f.time("date_modified"));
    let stamps = (created, modified);
    match f.model {
        Model::Order => c.orders.push(rank(f, stamps, None)),
        Model::Family => c.families.push(rank(f, stamps, Some("order"))),
        Model::Subfamily => c.subfamilies.push(rank(f, stamps, Some("family"))),
        Model::Tribe => c.tribes.push(rank(f, stamps, Some("subfamily"))),
        Model::Genus => c.genera.push(rank(f, stamps, Some("tribe"))),
        Model::Species => c.species.push(species(f, stamps, "genus")),
        Model::Subspecies => c.subspecies.push(species(f, stamps, "species")),
        Model::Country => c.countries.push(Country {
            id,
            date_created: created,
            date_modified: modified,
            name: f.string("name"),
            abbr: f.string("abbr"),
        }),
        Model::State => c.states.push(State {
            id,
            date_created: created,
            date_modified: modified,
            name: f.string("name"),
            abbr: f.string("abbr"),
            country: f.reference("country"),
        }),
        Model::County => c.counties.push(County {
            id,
            date_created: created,
            date_modified: modified,
            name: f.string("name"),
            state: f.reference("state"),
        }),
        Model::Locality => c.localities.push(Locality {
            id,
            date_created: created,
            date_modified: modified,
            name: f.opt_string("name"),
            range: f.opt_string("range"),
            town: f.opt_string("town"),
            country: f.opt_ref("country"),
            state: f.opt_ref("state"),
            county: f.opt_ref("county"),
        }),
        Model::Gps => c.gps.push(Gps {
            id,
            date_created: created,
            date_modified: modified,
            latitude: f.opt_string("latitude"),
            longitude: f.opt_string("longitude"),
            elevation: f.string("elevation"),
            locality: f.reference("locality"),
        }),
        Model::CollectingTrip => c.collecting_trips.push(CollectingTrip {
            id,
            date_created: created,
            date_modified: modified,
            name: f.string("name"),
            start_date: f.date("start_date"),
            end_date: f.date("end_date"),
            notes: f.opt_string("notes"),
            states: f.references("states"),
        }),
        Model::Person => c.people.push(Person {
            id,
            date_created: created,
            date_modified: modified,
            first_name: f.string("first_name"),
            middle_initial: f.opt_string("middle_initial"),
            last_name: f.string("last_name"),
            suffix: f.opt_string("suffix"),
        }),
        Model::SpecimenRecord => c.specimen_records.push(SpecimenRecord {
            id,
            date_created: created,
            date_modified: modified,
            usi: f.string("usi"),
            order: f.opt_ref("order"),
            family: f.opt_ref("family"),
            subfamily: f.opt_ref("subfamily"),
            tribe: f.opt_ref("tribe"),
            genus: f.opt_ref("genus"),
            species: f.opt_ref("species"),
            subspecies: f.opt_ref("subspecies"),
            determiner: f.opt_ref("determiner"),
            determined_year: f.opt_uint("determined_year"),
            sex: f.string("sex"),
            stage: f.string("stage"),
            preparer: f.opt_ref("preparer"),
            preparation: f.string("preparation"),
            preparation_date: f.opt_date("preparation_date"),
            labels_printed: f.opt_bool("labels_printed"),
            labeled: f.opt_bool("labeled"),
            photographed: f.opt_bool("photographed"),
            collecting_trip: f.opt_ref("collecting_trip"),
            country: f.opt_ref("country"),
            state: f.opt_ref("state"),
            county: f.opt_ref("county"),
            locality: f.opt_ref("locality"),
            gps: f.opt_ref("gps"),
            day: f.opt_uint("day"),
            month: f.string("month"),
            year: f.opt_uint("year"),
            method: f.string("method"),
            weather: f.string("weather"),
            temperature: f.string("temperature"),
            time_of_day: f.string("time_of_day"),
            habitat: f.string("habitat"),
            notes: f.string("notes"),
            collector: f.references("collector"),
        }),
    }
}
