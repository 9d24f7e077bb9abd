//! Import from Django fixtures: the JSON arrays `manage.py dumpdata` writes.
//!
//! Each file is read whole and parsed into borrowed objects; only the 15 models'
//! `fields` are parsed further, one object at a time, so memory stays near the size
//! of the input. Every problem is collected; the caller decides what stops a build.

use std::collections::BTreeMap;
use std::path::Path;

use ahash::AHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::encoding::time;
use crate::model::records::{Collection, FieldSource};
use crate::model::validate::Problem;
use crate::model::wagtail::{Document, Site, Wagtail};
use crate::model::Model;

use super::legacy::{self, Featured, Parts};

/// What an import read. Most records are read as they come; images, their tags
/// and the site wait for [`Import::finish`], since an image's shape (one model,
/// or the typed tables before the service's 0.16) is known only once all of
/// the source is in.
#[derive(Debug, Default)]
pub struct Import {
    collection: Collection,
    /// Problems that stop the build: JSON that does not parse, wrong types, bad dates.
    errors: Vec<Problem>,
    /// Objects of other models (users, revisions, ...), by label.
    skipped: BTreeMap<String, usize>,
    images: Vec<(i64, Map<String, Value>)>,
    parts: Parts,
    /// taggit's tags by id, and its tagged items: (tag, content type, object).
    tags: AHashMap<i64, String>,
    tagged: Vec<(i64, i64, i64)>,
    /// Django's content types by id, as `app.model`.
    content_types: AHashMap<i64, String>,
    /// Documents, read once their tags are known.
    documents: Vec<(i64, Map<String, Value>)>,
}

/// What an import read, once finished.
#[derive(Debug)]
pub struct Imported {
    pub collection: Collection,
    pub errors: Vec<Problem>,
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
        let place = path.display().to_string();
        let refused = |message: String| Problem::new(place.clone(), message);
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) => return self.errors.push(refused(format!("cannot read: {e}"))),
        };
        if bytes.starts_with(crate::snapshot::MAGIC) {
            return self.errors.push(refused(format!(
                "is a catalogue snapshot, not a fixture dump: `build` reads what \
                 `manage.py dumpdata` writes. `catalogue inspect {place}` shows the \
                 snapshot; `catalogue serve --snapshot {place}` serves it"
            )));
        }
        match String::from_utf8(bytes) {
            Ok(text) => self.read_str(&place, &text),
            Err(_) => self.errors.push(refused(
                "is not UTF-8 text: `build` reads the JSON `manage.py dumpdata` writes \
                 (a database is read with --from-db)"
                    .into(),
            )),
        }
    }

    /// Reads one fixture document; `name` locates its problems.
    pub fn read_str(&mut self, name: &str, text: &str) {
        let objects: Vec<Object> = match serde_json::from_str(text) {
            Ok(o) => o,
            Err(e) => {
                self.errors.push(Problem::new(
                    name,
                    format!("not a JSON array of fixture objects: {e}"),
                ));
                return;
            }
        };
        for (i, object) in objects.into_iter().enumerate() {
            let place = || format!("{name} object #{}", i + 1);
            let Some(label) = object.model else {
                self.errors.push(Problem::new(place(), "has no \"model\""));
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
                    if wanted(label) {
                        self.errors.push(Problem::new(
                            format!("{} ({label})", place()),
                            format!("pk must be an integer; {found}"),
                        ));
                    }
                    continue;
                }
            };
            if !wanted(label) {
                *self.skipped.entry(label.to_string()).or_default() += 1;
                continue;
            }
            let fields = match object
                .fields
                .map(|raw| serde_json::from_str::<Map<String, Value>>(raw.get()))
            {
                Some(Ok(map)) => map,
                _ => {
                    let record = Model::from_label(label)
                        .filter(|m| m.stored())
                        .map(|m| (m, pk));
                    self.errors.push(Problem {
                        record,
                        ..Problem::new(format!("{label} pk={pk} fields"), "must be a JSON object")
                    });
                    continue;
                }
            };
            self.push(label, pk, fields);
        }
    }

    /// Adds one object given as a fixture object's `fields` (values as `dumpdata`
    /// types them): a record, checked as the fixture import checks it, or what
    /// [`Import::finish`] needs; objects of other models are counted as skipped.
    pub fn push(&mut self, label: &str, pk: i64, mut fields: Map<String, Value>) {
        let int = |key: &str| fields.get(key).and_then(Value::as_i64).unwrap_or(-1);
        match (Model::from_label(label), label) {
            (Some(Model::Image), _) => self.images.push((pk, fields)),
            (Some(model), _) if model.stored() => self.read(model, pk, fields),
            (_, "taggit.tag") => {
                if let Some(Value::String(name)) = fields.remove("name") {
                    self.tags.insert(pk, name);
                }
            }
            (_, "taggit.taggeditem") => {
                let item = (int("tag"), int("content_type"), int("object_id"));
                self.tagged.push(item);
            }
            (_, "contenttypes.contenttype") => {
                let name = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
                let label = format!(
                    "{}.{}",
                    name(fields.get("app_label")),
                    name(fields.get("model"))
                );
                self.content_types.insert(pk, label);
            }
            (_, "wagtailcore.site") => {
                let host = fields.get("hostname").and_then(Value::as_str).unwrap_or("");
                let site = Site {
                    hostname: host.to_string(),
                    port: int("port"),
                    root_page: int("root_page"),
                    is_default: fields.get("is_default_site") == Some(&Value::Bool(true)),
                };
                self.collection.wagtail.sites.push(site);
            }
            (_, "wagtailcore.locale") => {
                let code = fields.get("language_code").and_then(Value::as_str);
                let code = code.unwrap_or_default().to_string();
                self.collection.wagtail.locales.push((pk, code));
            }
            (_, "wagtaildocs.document") => self.documents.push((pk, fields)),
            _ => match legacy::part(label) {
                Some(part) => self.parts.add(part, pk, fields),
                None => *self.skipped.entry(label.to_string()).or_default() += 1,
            },
        }
    }

    /// Notes a problem the source found outside any one object.
    pub fn push_problem(&mut self, problem: Problem) {
        self.errors.push(problem);
    }

    fn read(&mut self, model: Model, pk: i64, fields: Map<String, Value>) {
        let mut f = ObjectFields {
            label: model.label(),
            pk,
            map: fields,
            errors: &mut self.errors,
        };
        self.collection.read(model, pk, &mut f);
    }

    /// A document, its fields checked as a record's are.
    fn document(&mut self, pk: i64, fields: Map<String, Value>, tags: Vec<String>) -> Document {
        let mut f = ObjectFields {
            label: "wagtaildocs.document",
            pk,
            map: fields,
            errors: &mut self.errors,
        };
        Document {
            id: pk,
            title: f.text("title"),
            file: f.text("file"),
            created_at: f.time("created_at"),
            file_size: f.opt_count("file_size"),
            file_hash: f.text("file_hash"),
            collection: f.foreign_id("collection"),
            tags,
        }
    }

    /// The label of each content type a page names. A source without Django's
    /// content types (a dump of some apps only) still types its species pages,
    /// and other pages as plain Wagtail pages.
    fn page_types(&mut self) {
        let wagtail = &mut self.collection.wagtail;
        let species_pages: ahash::AHashSet<i64> =
            self.collection.species_pages.iter().map(|p| p.id).collect();
        let mut types: BTreeMap<i64, String> = BTreeMap::new();
        for page in &wagtail.pages {
            let label = match self.content_types.get(&page.content_type) {
                Some(label) => label.clone(),
                None if species_pages.contains(&page.id) => Model::SpeciesPage.label().into(),
                None => Model::Page.label().into(),
            };
            types.entry(page.content_type).or_insert(label);
        }
        wagtail.page_types = types.into_iter().collect();
    }

    /// Reads the images in the shape the source holds them, with their tags, and
    /// the site.
    pub fn finish(mut self) -> Imported {
        let typed = !self.parts.is_empty();
        let one_model = self
            .images
            .iter()
            .any(|(_, m)| m.contains_key("image_type"));
        if typed && one_model {
            self.errors.push(Problem::new(
                "images",
                "the source holds both images with an image_type (the service's 0.16 \
                 on) and the typed image tables of before (images.insectimage, ...): \
                 publish from one version",
            ));
        }
        let mut tags: AHashMap<i64, Vec<String>> = AHashMap::new();
        let mut document_tags: AHashMap<i64, Vec<String>> = AHashMap::new();
        for (tag, content_type, object) in std::mem::take(&mut self.tagged) {
            let (Some(label), Some(name)) =
                (self.content_types.get(&content_type), self.tags.get(&tag))
            else {
                continue;
            };
            if label == "images.customimage" || legacy::part(label).is_some() {
                tags.entry(object).or_default().push(name.clone());
            } else if label == "wagtaildocs.document" {
                document_tags.entry(object).or_default().push(name.clone());
            }
        }
        for (pk, fields) in std::mem::take(&mut self.documents) {
            let tags = document_tags.remove(&pk).unwrap_or_default();
            let document = self.document(pk, fields, tags);
            self.collection.wagtail.documents.push(document);
        }
        self.page_types();
        let mut featured = Featured::default();
        for (pk, mut fields) in std::mem::take(&mut self.images) {
            if typed && !one_model {
                self.parts
                    .merge(pk, &mut fields, &mut featured, &mut self.errors);
            } else if !one_model {
                self.errors.push(Problem::at(
                    Model::Image,
                    pk,
                    "image_type",
                    "is missing; a dump from before the service's 0.16 needs its typed image \
                     models too (images.baseliveimage, images.specimenrecordimage, \
                     images.insectimage, images.plantimage, images.habitatimage)",
                ));
                continue;
            }
            let names = tags.remove(&pk).unwrap_or_default();
            fields.insert("tags".into(), names.into());
            self.read(Model::Image, pk, fields);
        }
        std::mem::take(&mut self.parts).orphans(&mut self.errors);
        featured.apply(&mut self.collection);
        let wagtail = &mut self.collection.wagtail;
        if wagtail.sites.is_empty() {
            wagtail.sites.extend(wagtail.initial_site());
        }
        self.collection.site = site_root(wagtail);
        Imported {
            collection: self.collection,
            errors: self.errors,
            skipped: self.skipped,
        }
    }
}

/// Whether an object of this label is read (a record, or what images need).
fn wanted(label: &str) -> bool {
    Model::from_label(label).is_some()
        || legacy::part(label).is_some()
        || matches!(
            label,
            "taggit.tag"
                | "taggit.taggeditem"
                | "contenttypes.contenttype"
                | "wagtailcore.site"
                | "wagtailcore.locale"
                | "wagtaildocs.document"
        )
}

/// The root URL of the default Wagtail site (of the only one, when none is
/// marked), as Wagtail writes it: `http://host`, `https://host` on port 443,
/// `http://host:port` on other ports. A source without one (a dump that left
/// `wagtailcore.site` out) gets the site Wagtail's first migration creates,
/// `localhost` on port 80, so a database and its dump give one snapshot.
fn site_root(wagtail: &Wagtail) -> String {
    match wagtail.default_site() {
        Some(site) => site.root_url(),
        None => "http://localhost".into(),
    }
}

/// The `fields` of one object, taken out one by one with their types checked.
struct ObjectFields<'a> {
    /// The Django label of the object's model.
    label: &'static str,
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
        let record = Model::from_label(self.label)
            .filter(|m| m.stored())
            .map(|m| (m, self.pk));
        self.errors.push(Problem {
            record,
            ..Problem::new(format!("{} pk={} {field}", self.label, self.pk), message)
        });
    }

    /// Reads one field: a missing field is an error; null is `None` where the field
    /// may be null and an error elsewhere; `parse` turns a value of the right JSON
    /// type into its field (noting its own problems), or gives it back when the type
    /// is wrong, which is reported as `expected <expected>[ or null], found <value>`.
    fn read<T>(
        &mut self,
        field: &str,
        nullable: bool,
        expected: &str,
        parse: impl FnOnce(&mut Self, Value) -> Result<T, Value>,
    ) -> Option<T> {
        let Some(value) = self.map.remove(field) else {
            self.error(field, "is missing".into());
            return None;
        };
        if value.is_null() && nullable {
            return None;
        }
        match parse(self, value) {
            Ok(t) => Some(t),
            Err(v) => {
                let or_null = if nullable { " or null" } else { "" };
                self.error(
                    field,
                    format!("expected {expected}{or_null}, found {}", describe(&v)),
                );
                None
            }
        }
    }

    fn string(_: &mut Self, v: Value) -> Result<String, Value> {
        match v {
            Value::String(s) => Ok(s),
            v => Err(v),
        }
    }

    fn natural(_: &mut Self, v: Value) -> Result<i64, Value> {
        match v.as_i64() {
            Some(n) if n >= 0 => Ok(n),
            _ => Err(v),
        }
    }

    fn key(_: &mut Self, v: Value) -> Result<i64, Value> {
        v.as_i64().ok_or(v)
    }

    fn flag(_: &mut Self, v: Value) -> Result<bool, Value> {
        v.as_bool().ok_or(v)
    }

    /// An instant; `field` names it in the message when it does not parse.
    fn instant(&mut self, field: &str, v: Value) -> Result<i64, Value> {
        let s = Self::string(self, v)?;
        Ok(time::parse_timestamp(&s).unwrap_or_else(|| {
            self.error(
                field,
                format!("{s:?} is not a timestamp (YYYY-MM-DDTHH:MM:SS[.ffffff]Z)"),
            );
            0
        }))
    }

    /// A `YYYY-MM-DD` date; `field` names it in the message when it is not one.
    fn day(&mut self, field: &str, v: Value) -> Result<String, Value> {
        let s = Self::string(self, v)?;
        if time::parse_date(&s).is_none() {
            self.error(field, format!("{s:?} is not a date (YYYY-MM-DD)"));
        }
        Ok(s)
    }
}

const TEXT: &str = "a string";
const NATURAL: &str = "a non-negative integer";
const BOOLEAN: &str = "true, false";
const TIMESTAMP: &str = "a timestamp string";
const DATE: &str = "a date string";
const KEY: &str = "a primary key (integer)";

impl FieldSource for ObjectFields<'_> {
    fn text(&mut self, field: &'static str) -> String {
        self.read(field, false, TEXT, Self::string)
            .unwrap_or_default()
    }

    fn opt_text(&mut self, field: &'static str) -> Option<String> {
        self.read(field, true, TEXT, Self::string)
    }

    fn count(&mut self, field: &'static str) -> i64 {
        self.read(field, false, NATURAL, Self::natural)
            .unwrap_or_default()
    }

    fn opt_count(&mut self, field: &'static str) -> Option<i64> {
        self.read(field, true, NATURAL, Self::natural)
    }

    fn boolean(&mut self, field: &'static str) -> bool {
        self.read(field, false, "true or false", Self::flag)
            .unwrap_or_default()
    }

    fn opt_bool(&mut self, field: &'static str) -> Option<bool> {
        self.read(field, true, BOOLEAN, Self::flag)
    }

    fn time(&mut self, field: &'static str) -> i64 {
        self.read(field, false, TIMESTAMP, |s, v| s.instant(field, v))
            .unwrap_or_default()
    }

    fn opt_time(&mut self, field: &'static str) -> Option<i64> {
        self.read(field, true, TIMESTAMP, |s, v| s.instant(field, v))
    }

    fn date(&mut self, field: &'static str) -> String {
        self.read(field, false, DATE, |s, v| s.day(field, v))
            .unwrap_or_default()
    }

    fn opt_date(&mut self, field: &'static str) -> Option<String> {
        self.read(field, true, DATE, |s, v| s.day(field, v))
    }

    fn foreign_id(&mut self, field: &'static str) -> i64 {
        self.read(field, false, KEY, Self::key).unwrap_or_default()
    }

    fn opt_foreign_id(&mut self, field: &'static str) -> Option<i64> {
        self.read(field, true, KEY, Self::key)
    }

    fn reference(&mut self, field: &'static str, _target: Model) -> i64 {
        self.foreign_id(field)
    }

    fn opt_reference(&mut self, field: &'static str, _target: Model) -> Option<i64> {
        self.opt_foreign_id(field)
    }

    fn references(&mut self, field: &'static str, _target: Model) -> Vec<i64> {
        let expected = "a list of primary keys";
        let items = self.read(field, false, expected, |_, v| match v {
            Value::Array(items) => Ok(items),
            v => Err(v),
        });
        let mut ids = Vec::new();
        for item in items.unwrap_or_default() {
            match item.as_i64() {
                Some(id) => ids.push(id),
                None => self.error(
                    field,
                    format!("expected {expected}, found {}", describe(&item)),
                ),
            }
        }
        ids
    }

    fn added_reference(&mut self, field: &'static str, target: Model) -> Option<i64> {
        match self.map.contains_key(field) {
            true => self.opt_reference(field, target),
            false => None,
        }
    }

    fn tags(&mut self, field: &'static str) -> Vec<String> {
        if !self.map.contains_key(field) {
            return Vec::new();
        }
        let expected = "a list of tag names";
        let items = self.read(field, false, expected, |_, v| match v {
            Value::Array(items) => Ok(items),
            v => Err(v),
        });
        let mut names = Vec::new();
        for item in items.unwrap_or_default() {
            match item {
                Value::String(name) => names.push(name),
                other => self.error(
                    field,
                    format!("expected {expected}, found {}", describe(&other)),
                ),
            }
        }
        names
    }
}
