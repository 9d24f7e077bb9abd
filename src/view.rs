//! The view: one loaded snapshot, indexed and rendered, immutable once built.
//!
//! Building a view turns the snapshot's raw records into tables of rows (one value
//! per field of the model's table, derived values computed here, references turned
//! into positions), then renders every list once. Requests only read it.

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ahash::AHashMap;
use bytes::Bytes;

use crate::compress::{self, Coding, Effort};
use crate::derived;
use crate::dwca;
use crate::geojson;
use crate::index::{Groups, TextColumn};
use crate::records::{self, Collection};
use crate::render::{self, Embeds, List};
use crate::schema::{Endpoint, Model, Type};
use crate::snapshot::{self, Header, SnapshotError};
use crate::validate;

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
    fn str(s: &str) -> Value {
        Value::Str(s.into())
    }

    /// Takes an owned string without copying it.
    fn own(s: String) -> Value {
        Value::Str(s.into_boxed_str())
    }

    fn opt_own(s: Option<String>) -> Value {
        s.map_or(Value::Null, Value::own)
    }

    fn opt_int(n: Option<i64>) -> Value {
        n.map_or(Value::Null, Value::Int)
    }

    fn opt_bool(b: Option<bool>) -> Value {
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
    /// Per field, the rows grouped by value where that pays (see [`Groups`]).
    groups: Vec<Option<Groups>>,
}

impl Table {
    fn new(model: Model, rows: Vec<Row>) -> Table {
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
            groups: Vec::new(),
        }
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
        let mut built = Groups::build(&self.rows, &fields, 4).into_iter();
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

    /// The rows whose own strings contain `term` (lowercase), ascending.
    pub fn find_text(&self, term: &str) -> Vec<u32> {
        self.text.find(term)
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
}

fn id_of(row: &Row) -> i64 {
    match row[0] {
        Value::Int(id) => id,
        _ => unreachable!("the first field of every row is its id"),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error("{path} holds records that fail validation ({count} problems), first: {first}")]
    Invalid {
        path: String,
        count: usize,
        first: validate::Problem,
    },
}

/// A loaded snapshot, ready to serve.
pub struct View {
    pub header: Header,
    tables: Vec<Table>,
    plain: Vec<List>,
    nested: Vec<Option<List>>,
    /// How long building this view took (decode, index, render).
    pub build_time: Duration,
    /// The snapshot's creation time as an HTTP date, for `Last-Modified`.
    pub last_modified: String,
    /// Each endpoint's whole list answer, gzip and brotli, filled in the background
    /// after the view is published (`precompress`).
    compressed: Vec<[OnceLock<Bytes>; 2]>,
    /// The points of GPS and specimen records, for GeoJSON answers and the archive.
    pub points: geojson::Points,
    /// The Darwin Core Archive of this view, made on the first request for it.
    pub archive: tokio::sync::OnceCell<dwca::Archive>,
}

impl View {
    /// Reads, checks and builds the view of the snapshot at `path`.
    pub fn load(path: &Path) -> Result<View, LoadError> {
        let started = Instant::now();
        let (header, collection) = snapshot::read(path)?;
        let mut view =
            View::build(header, collection).map_err(|(count, first)| LoadError::Invalid {
                path: path.display().to_string(),
                count,
                first,
            })?;
        view.build_time = started.elapsed();
        Ok(view)
    }

    /// Builds a view from a decoded collection, refusing one that fails validation.
    pub fn build(
        header: Header,
        collection: Collection,
    ) -> Result<View, (usize, validate::Problem)> {
        let started = Instant::now();
        let report = validate::check(&collection);
        if let Some(first) = report.errors.first() {
            return Err((report.errors.len(), first.clone()));
        }
        let last_modified = derived::http_date(header.created_at);
        let tables = tables(collection);
        let (plain, nested) = render::render_all(&tables).into_lists();
        let points = geojson::Points::build(
            &tables[Model::Gps.index()],
            &tables[Model::SpecimenRecord.index()],
        );
        Ok(View {
            header,
            tables,
            plain: plain.into_iter().map(Option::unwrap_or_default).collect(),
            nested,
            build_time: started.elapsed(),
            last_modified,
            compressed: Endpoint::all().iter().map(|_| Default::default()).collect(),
            points,
            archive: tokio::sync::OnceCell::new(),
        })
    }

    pub fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    /// The rendered list of an endpoint.
    pub fn list(&self, endpoint: Endpoint) -> &List {
        if endpoint.nested {
            if let Some(list) = &self.nested[endpoint.model.index()] {
                return list;
            }
        }
        &self.plain[endpoint.model.index()]
    }

    /// The compressed whole-list answer of an endpoint, once `precompress` made it.
    pub fn compressed_list(&self, endpoint: Endpoint, coding: Coding) -> Option<Bytes> {
        let slot = match coding {
            Coding::Gzip => 0,
            Coding::Brotli => 1,
            Coding::Identity => return None,
        };
        self.compressed[endpoint.index()][slot].get().cloned()
    }

    /// Compresses every whole-list answer between `min` and `max` bytes, once.
    /// Runs off the request path, after the view is published.
    pub fn precompress(&self, min: usize, max: usize) {
        for (i, &endpoint) in Endpoint::all().iter().enumerate() {
            let list = self.list(endpoint);
            let head = render::envelope_head(list.len(), &[]);
            let items = list.run(0, list.len());
            let len = head.len() + items.len() + render::ENVELOPE_TAIL.len();
            if !(min..max).contains(&len) {
                continue;
            }
            let parts = [&head[..], &items[..], render::ENVELOPE_TAIL];
            for (slot, coding) in [Coding::Gzip, Coding::Brotli].into_iter().enumerate() {
                let body = Bytes::from(compress::compress(coding, &parts, Effort::Once));
                let _ = self.compressed[i][slot].set(body);
            }
        }
    }

    /// Record counts by model.
    pub fn counts(&self) -> Vec<(Model, usize)> {
        Model::ALL
            .into_iter()
            .map(|m| (m, self.table(m).rows.len()))
            .collect()
    }

    /// Bytes held by the rendered lists.
    pub fn rendered_bytes(&self) -> usize {
        self.plain.iter().map(List::byte_len).sum::<usize>()
            + self
                .nested
                .iter()
                .flatten()
                .map(List::byte_len)
                .sum::<usize>()
    }
}

impl Embeds for View {
    fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    fn plain(&self, model: Model, pos: u32) -> &[u8] {
        self.plain[model.index()].item(pos as usize)
    }

    fn nested(&self, model: Model, pos: u32) -> &[u8] {
        match &self.nested[model.index()] {
            Some(list) => list.item(pos as usize),
            None => self.plain(model, pos),
        }
    }
}

/// `orders=3 families=4 ...`: a view's record counts on one line, for logs.
pub fn describe_counts(view: &View) -> String {
    view.counts()
        .iter()
        .map(|(m, n)| format!("{}={n}", m.path()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Resolves references to positions while rows are built; a snapshot that passed
/// validation has every target, so a miss is a bug, reported not panicked.
struct Builder {
    tables: Vec<Option<Table>>,
}

impl Builder {
    fn table(&self, model: Model) -> &Table {
        self.tables[model.index()]
            .as_ref()
            .expect("models are built after the models they refer to")
    }

    fn pos(&self, model: Model, id: i64) -> u32 {
        self.table(model)
            .position(id)
            .expect("validation checked every reference")
    }

    fn reference(&self, model: Model, id: i64) -> Value {
        Value::Ref(model, self.pos(model, id))
    }

    fn opt_ref(&self, model: Model, id: Option<i64>) -> Value {
        id.map_or(Value::Null, |id| self.reference(model, id))
    }

    fn str_field(&self, model: Model, pos: u32, field: &str) -> &str {
        let f = model.field_index(field).expect("field exists");
        self.table(model).rows[pos as usize][f]
            .as_str()
            .unwrap_or("")
    }

    fn put(&mut self, model: Model, rows: Vec<Row>) {
        self.tables[model.index()] = Some(Table::new(model, rows));
    }
}

fn rank_rows(b: &Builder, records: Vec<records::Rank>, parent: Option<Model>) -> Vec<Row> {
    records
        .into_iter()
        .map(|r| {
            let mut v = vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::opt_own(r.common_name),
                Value::own(r.authority),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
            ];
            if let (Some(model), Some(id)) = (parent, r.parent) {
                v.push(b.reference(model, id));
            }
            v.into_boxed_slice()
        })
        .collect()
}

fn species_rows(b: &Builder, records: Vec<records::Species>, parent: Model) -> Vec<Row> {
    records
        .into_iter()
        .map(|r| {
            let p = b.pos(parent, r.parent);
            // binomial = genus name + name; trinomial = species binomial + name.
            let stem = match parent {
                Model::Genus => b.str_field(parent, p, "name"),
                _ => b.str_field(parent, p, "binomial"),
            };
            let full = Value::Str(format!("{stem} {}", r.name).into());
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                full,
                Value::opt_own(r.common_name),
                Value::own(r.authority),
                Value::opt_own(r.mona),
                Value::opt_own(r.p3),
                Value::opt_own(r.ps),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                Value::Ref(parent, p),
            ]
            .into_boxed_slice()
        })
        .collect()
}

fn tables(c: Collection) -> Vec<Table> {
    let Collection {
        orders,
        families,
        subfamilies,
        tribes,
        genera,
        species,
        subspecies,
        countries,
        states,
        counties,
        localities,
        gps,
        collecting_trips,
        people,
        specimen_records,
    } = c;
    let mut b = Builder {
        tables: (0..Model::ALL.len()).map(|_| None).collect(),
    };
    let rows = rank_rows(&b, orders, None);
    b.put(Model::Order, rows);
    let rows = rank_rows(&b, families, Some(Model::Order));
    b.put(Model::Family, rows);
    let rows = rank_rows(&b, subfamilies, Some(Model::Family));
    b.put(Model::Subfamily, rows);
    let rows = rank_rows(&b, tribes, Some(Model::Subfamily));
    b.put(Model::Tribe, rows);
    let rows = rank_rows(&b, genera, Some(Model::Tribe));
    b.put(Model::Genus, rows);
    let rows = species_rows(&b, species, Model::Genus);
    b.put(Model::Species, rows);
    let rows = species_rows(&b, subspecies, Model::Species);
    b.put(Model::Subspecies, rows);

    let rows = countries
        .into_iter()
        .map(|r| {
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::own(r.abbr),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::Country, rows);
    let rows = states
        .into_iter()
        .map(|r| {
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::own(r.abbr),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                b.reference(Model::Country, r.country),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::State, rows);
    let rows = counties
        .into_iter()
        .map(|r| {
            let state = b.pos(Model::State, r.state);
            let abbr = derived::county_abbr(b.str_field(Model::State, state, "name"), &r.name);
            let full_name = Value::Str(derived::county_full_name(&r.name, abbr).into());
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::str(abbr),
                full_name,
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                Value::Ref(Model::State, state),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::County, rows);
    let rows = localities
        .into_iter()
        .map(|r| {
            vec![
                Value::Int(r.id),
                Value::opt_own(r.name),
                Value::opt_own(r.range),
                Value::opt_own(r.town),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                b.opt_ref(Model::Country, r.country),
                b.opt_ref(Model::State, r.state),
                b.opt_ref(Model::County, r.county),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::Locality, rows);
    let rows = gps
        .into_iter()
        .map(|r| {
            let meters = Value::Str(format!("{}m", r.elevation).into());
            vec![
                Value::Int(r.id),
                Value::opt_own(r.latitude),
                Value::opt_own(r.longitude),
                Value::own(r.elevation),
                meters,
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
                b.reference(Model::Locality, r.locality),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::Gps, rows);
    let rows = people
        .into_iter()
        .map(|r| {
            let (mi, sx) = (r.middle_initial.as_deref(), r.suffix.as_deref());
            let collector_name = derived::collector_name(&r.first_name, &r.last_name, sx);
            let full_name = derived::person_full_name(&r.first_name, mi, &r.last_name, sx);
            vec![
                Value::Int(r.id),
                Value::own(r.first_name),
                Value::opt_own(r.middle_initial),
                Value::own(r.last_name),
                Value::opt_own(r.suffix),
                Value::Str(collector_name.into()),
                Value::Str(full_name.into()),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::Person, rows);
    let rows = collecting_trips
        .into_iter()
        .map(|r| {
            let mut states: Vec<u32> = r.states.iter().map(|&s| b.pos(Model::State, s)).collect();
            states.sort_by(|&x, &y| {
                let name = |p| b.str_field(Model::State, p, "name");
                name(x).cmp(name(y)).then(
                    b.table(Model::State)
                        .id(x)
                        .cmp(&b.table(Model::State).id(y)),
                )
            });
            let slug = derived::slugify(&r.name);
            vec![
                Value::Int(r.id),
                Value::own(r.name),
                Value::Str(slug.into()),
                Value::Refs(Model::State, states.into()),
                Value::own(r.start_date),
                Value::own(r.end_date),
                Value::opt_own(r.notes),
                Value::Time(r.date_created),
                Value::Time(r.date_modified),
            ]
            .into_boxed_slice()
        })
        .collect();
    b.put(Model::CollectingTrip, rows);
    let rows = specimen_records
        .into_iter()
        .map(|r| specimen_row(&b, r))
        .collect();
    b.put(Model::SpecimenRecord, rows);

    let mut tables: Vec<Table> = b
        .tables
        .into_iter()
        .map(|t| t.expect("every model is built"))
        .collect();
    for table in &mut tables {
        let fields: Vec<usize> = table
            .model
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.ty == Type::Str
                    && (table.model != Model::SpecimenRecord || SPECIMEN_TEXT.contains(&f.name))
            })
            .map(|(i, _)| i)
            .collect();
        table.keep_lowercase(&fields);
        table.keep_search_text();
        table.keep_groups();
    }
    tables
}

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

fn specimen_row(b: &Builder, r: records::SpecimenRecord) -> Row {
    use Model::*;
    let taxon = [
        (Subspecies, r.subspecies),
        (Species, r.species),
        (Genus, r.genus),
        (Tribe, r.tribe),
        (Subfamily, r.subfamily),
        (Family, r.family),
        (Order, r.order),
    ]
    .into_iter()
    .find_map(|(m, id)| id.map(|id| b.reference(m, id)))
    .unwrap_or(Value::Null);
    let people = b.table(Person);
    let mut collectors: Vec<u32> = r.collector.iter().map(|&p| b.pos(Person, p)).collect();
    collectors.sort_by(|&x, &y| {
        let key = |p: u32| {
            (
                b.str_field(Person, p, "last_name"),
                b.str_field(Person, p, "first_name"),
                people.id(p),
            )
        };
        key(x).cmp(&key(y))
    });
    let names: Vec<&str> = collectors
        .iter()
        .map(|&p| b.str_field(Person, p, "collector_name"))
        .collect();
    let dates = derived::dates(r.day, &r.month, r.year);
    // Validation rejected a temperature that is not a number.
    let t = derived::parse_temperature(&r.temperature).unwrap_or(None);
    vec![
        Value::Int(r.id),
        Value::own(r.usi),
        b.opt_ref(Order, r.order),
        b.opt_ref(Family, r.family),
        b.opt_ref(Subfamily, r.subfamily),
        b.opt_ref(Tribe, r.tribe),
        b.opt_ref(Genus, r.genus),
        b.opt_ref(Species, r.species),
        b.opt_ref(Subspecies, r.subspecies),
        taxon,
        b.opt_ref(Person, r.determiner),
        Value::opt_int(r.determined_year),
        Value::own(r.sex),
        Value::own(r.stage),
        b.opt_ref(Person, r.preparer),
        Value::own(r.preparation),
        Value::opt_own(r.preparation_date),
        Value::opt_bool(r.labels_printed),
        Value::opt_bool(r.labeled),
        Value::opt_bool(r.photographed),
        Value::Bool(r.species.is_some()),
        b.opt_ref(CollectingTrip, r.collecting_trip),
        b.opt_ref(Country, r.country),
        b.opt_ref(State, r.state),
        b.opt_ref(County, r.county),
        b.opt_ref(Locality, r.locality),
        b.opt_ref(Gps, r.gps),
        Value::opt_int(r.day),
        Value::own(r.month),
        Value::opt_int(r.year),
        Value::Str(dates.collected.into()),
        Value::Str(dates.full.into()),
        Value::Str(dates.numeric.into()),
        Value::Refs(Person, collectors.into()),
        Value::Str(names.join(", ").into()),
        Value::own(r.method),
        Value::own(r.weather),
        Value::own(r.temperature),
        Value::Str(derived::temp_f(t).into()),
        Value::Str(derived::temp_c(t).into()),
        Value::own(r.time_of_day),
        Value::own(r.habitat),
        Value::own(r.notes),
        Value::Time(r.date_created),
        Value::Time(r.date_modified),
    ]
    .into_boxed_slice()
}
