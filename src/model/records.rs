//! The raw records of the collection, as the database holds them.
//!
//! This is the snapshot's payload: no derived value lives here (those are computed
//! when a view is built), so the same collection gives the same bytes whatever it was
//! read from. Instants are microseconds since the Unix epoch, UTC; dates are
//! `YYYY-MM-DD` strings; references are primary keys.

use serde::{Deserialize, Serialize};

use super::dataset::Dataset;
use super::held::Holding;
use super::history::History;
use super::schema::Model;
use super::wagtail::{uuid_hex, Placement, Wagtail};

/// An order, family, subfamily, tribe or genus: a rank with a name and a parent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rank {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub common_name: Option<String>,
    pub authority: String,
    /// The parent rank (none for an order).
    pub parent: Option<i64>,
    /// The image the service's site shows for the rank (orders and families,
    /// since 0.16; always none for the other ranks).
    pub featured_image: Option<i64>,
}

/// A species (parent: genus) or subspecies (parent: species).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Species {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub common_name: Option<String>,
    pub authority: String,
    pub parent: i64,
    pub mona: Option<String>,
    pub p3: Option<String>,
    pub ps: Option<String>,
    /// The image the service's site shows for the species (since 0.16; always
    /// none for a subspecies).
    pub featured_image: Option<i64>,
}

/// A stored record: a primary key, and a digest of everything it holds.
pub trait Record {
    fn id(&self) -> i64;
    /// The record's hash under `hasher`: equal records, equal digests.
    fn digest(&self, hasher: &ahash::RandomState) -> u64;
}

macro_rules! record {
    ($($t:ty),*) => {$(impl Record for $t {
        fn id(&self) -> i64 {
            self.id
        }
        fn digest(&self, hasher: &ahash::RandomState) -> u64 {
            hasher.hash_one(self)
        }
    })*};
}
record!(Rank, Species);

/// A stored record declared once: each field's member, its type and what the
/// readers ask for (`text`, `opt_reference(Model::Person)`, ...: a
/// [`FieldSource`] method, given the field's name). It makes the struct, its
/// `read` (so [`stored_fields`], the fixture and the database readers follow
/// the declaration, in its order) and its [`Record`] implementation. `stamped`
/// records begin with `date_created` and `date_modified`; the parts of a
/// multi-table model have none.
macro_rules! stored {
    (
        $(#[$meta:meta])*
        pub struct $name:ident stamped { $($fields:tt)* }
    ) => {
        stored!(@make [$(#[$meta])*] $name [date_created date_modified] { $($fields)* });
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $($fields:tt)* }
    ) => {
        stored!(@make [$(#[$meta])*] $name [] { $($fields)* });
    };
    (@make [$(#[$meta:meta])*] $name:ident [$($stamp:ident)*] {
        $(
            $(#[$field_meta:meta])*
            pub $field:ident: $ty:ty = $kind:ident $(($($arg:expr),*))?,
        )*
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub struct $name {
            pub id: i64,
            $(pub $stamp: i64,)*
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $name {
            /// Reads the record with primary key `id` from `f`, field by field
            /// in declared order.
            fn read(f: &mut dyn FieldSource, id: i64) -> $name {
                $name {
                    id,
                    $($stamp: f.time(stringify!($stamp)),)*
                    $($field: f.$kind(stringify!($field) $($(, $arg)*)?),)*
                }
            }
        }

        record!($name);
    };
}

stored! {
    pub struct Country stamped {
        pub name: String = text,
        pub abbr: String = text,
    }
}

#[cfg(test)]
impl Country {
    /// A country for a test: `id`, stamped at `id`, named `name`.
    pub fn numbered(id: i64, name: impl Into<String>) -> Country {
        Country {
            id,
            date_created: id,
            date_modified: id,
            name: name.into(),
            abbr: format!("L{id}"),
        }
    }
}

stored! {
    pub struct State stamped {
        pub name: String = text,
        pub abbr: String = text,
        pub country: i64 = reference(Model::Country),
    }
}

stored! {
    pub struct County stamped {
        pub name: String = text,
        pub state: i64 = reference(Model::State),
    }
}

stored! {
    pub struct Locality stamped {
        pub name: Option<String> = opt_text,
        pub range: Option<String> = opt_text,
        pub town: Option<String> = opt_text,
        pub country: Option<i64> = opt_reference(Model::Country),
        pub state: Option<i64> = opt_reference(Model::State),
        pub county: Option<i64> = opt_reference(Model::County),
    }
}

stored! {
    pub struct Gps stamped {
        pub latitude: Option<String> = opt_text,
        pub longitude: Option<String> = opt_text,
        pub elevation: String = text,
        pub locality: i64 = reference(Model::Locality),
    }
}

stored! {
    pub struct CollectingTrip stamped {
        pub name: String = text,
        pub start_date: String = date,
        pub end_date: String = date,
        pub notes: Option<String> = opt_text,
        /// State ids, ascending.
        pub states: Vec<i64> = references(Model::State),
    }
}

stored! {
    pub struct Person stamped {
        pub first_name: String = text,
        pub middle_initial: Option<String> = opt_text,
        pub last_name: String = text,
        pub suffix: Option<String> = opt_text,
    }
}

stored! {
    pub struct SpecimenRecord stamped {
        pub usi: String = text,
        pub order: Option<i64> = opt_reference(Model::Order),
        pub family: Option<i64> = opt_reference(Model::Family),
        pub subfamily: Option<i64> = opt_reference(Model::Subfamily),
        pub tribe: Option<i64> = opt_reference(Model::Tribe),
        pub genus: Option<i64> = opt_reference(Model::Genus),
        pub species: Option<i64> = opt_reference(Model::Species),
        pub subspecies: Option<i64> = opt_reference(Model::Subspecies),
        pub determiner: Option<i64> = opt_reference(Model::Person),
        pub determined_year: Option<i64> = opt_count,
        pub sex: String = text,
        pub stage: String = text,
        pub preparer: Option<i64> = opt_reference(Model::Person),
        pub preparation: String = text,
        pub preparation_date: Option<String> = opt_date,
        pub labels_printed: Option<bool> = opt_bool,
        pub labeled: Option<bool> = opt_bool,
        pub photographed: Option<bool> = opt_bool,
        pub collecting_trip: Option<i64> = opt_reference(Model::CollectingTrip),
        pub country: Option<i64> = opt_reference(Model::Country),
        pub state: Option<i64> = opt_reference(Model::State),
        pub county: Option<i64> = opt_reference(Model::County),
        pub locality: Option<i64> = opt_reference(Model::Locality),
        pub gps: Option<i64> = opt_reference(Model::Gps),
        pub day: Option<i64> = opt_count,
        pub month: String = text,
        pub year: Option<i64> = opt_count,
        pub method: String = text,
        pub weather: String = text,
        pub temperature: String = text,
        pub time_of_day: String = text,
        pub habitat: String = text,
        pub notes: String = text,
        /// Person ids, ascending.
        pub collector: Vec<i64> = references(Model::Person),
    }
}

stored! {
    /// An image: Wagtail's image columns and, since the service's 0.16, the columns
    /// of every kind in one row, with `image_type` saying which kind it is (the
    /// service clears the columns of the other kinds). Older sources' typed tables
    /// are converted into this shape on the way in (`ingest::legacy`).
    pub struct Image stamped {
        pub title: String = text,
        /// The original's path under the media root: `original_images/x.jpg`.
        pub file: String = text,
        pub description: String = text,
        pub width: i64 = count,
        pub height: i64 = count,
        pub created_at: i64 = time,
        pub focal_point_x: Option<i64> = opt_count,
        pub focal_point_y: Option<i64> = opt_count,
        pub focal_point_width: Option<i64> = opt_count,
        pub focal_point_height: Option<i64> = opt_count,
        pub file_size: Option<i64> = opt_count,
        pub file_hash: String = text,
        pub alt_text: String = text,
        pub date: String = date,
        pub notes: String = text,
        /// `specimen`, `insect`, `plant` or `habitat`.
        pub image_type: String = text,
        /// A specimen image's view (`dorsal`, ...); empty for other kinds.
        pub position: String = text,
        pub sex: String = text,
        pub stage: String = text,
        pub status: String = text,
        pub scientific_name: String = text,
        pub common_name: String = text,
        /// A Wagtail collection's id (not published).
        pub collection: i64 = foreign_id,
        /// A user's id (not published).
        pub uploaded_by_user: Option<i64> = opt_foreign_id,
        pub country: Option<i64> = opt_reference(Model::Country),
        pub state: Option<i64> = opt_reference(Model::State),
        pub county: Option<i64> = opt_reference(Model::County),
        pub locality: Option<i64> = opt_reference(Model::Locality),
        pub gps: Option<i64> = opt_reference(Model::Gps),
        pub collecting_trip: Option<i64> = opt_reference(Model::CollectingTrip),
        pub specimen_record: Option<i64> = opt_reference(Model::SpecimenRecord),
        pub species: Option<i64> = opt_reference(Model::Species),
        pub species_page: Option<i64> = opt_reference(Model::SpeciesPage),
        /// Species page ids, ascending.
        pub plant_species_page: Vec<i64> = references(Model::SpeciesPage),
        /// Species page ids, ascending.
        pub habitat_species_page: Vec<i64> = references(Model::SpeciesPage),
        /// The names of the image's tags (taggit), in byte order, each once.
        pub tags: Vec<String> = tags,
    }
}

stored! {
    /// What catalogue serves of a Wagtail page: the live title, and publication.
    pub struct Page {
        pub title: String = text,
        pub slug: String = text,
        pub live: bool = boolean,
        pub first_published_at: Option<i64> = opt_time,
        pub last_published_at: Option<i64> = opt_time,
    }
}

stored! {
    /// A resized copy of an image.
    pub struct Rendition stamped {
        /// How it was made: `max-300x300`.
        pub filter_spec: String = text,
        /// Its path under the media root: `images/x.max-300x300.jpg`.
        pub file: String = text,
        pub width: i64 = count,
        pub height: i64 = count,
        pub focal_point_key: String = text,
        pub image: i64 = reference(Model::Image),
    }
}

stored! {
    /// A species page's own fields; its id is its [`Page`]'s. Rich text is stored
    /// and served as Wagtail stores it.
    pub struct SpeciesPage {
        pub species: Option<i64> = opt_reference(Model::Species),
        pub taxonomy: String = text,
        pub description: String = text,
        pub distribution: String = text,
        pub seasonality: String = text,
        pub habitat: String = text,
        pub food: String = text,
        pub life_cycle: String = text,
    }
}

/// The records a collection had replaced in place, each id still its own:
/// each model's ids.
pub type Edited = [(Model, Vec<i64>)];

/// What [`Collection::visit_records`] hands each model's records to.
pub trait RecordsVisitor {
    fn records<T: Record + Serialize>(&mut self, model: Model, records: &[T]);
}

/// What [`Collection::splice`] did to a model's records.
#[derive(Debug, Default)]
pub struct Spliced {
    /// The ids of the records replaced in place, as they came.
    pub replaced: Vec<i64>,
    /// Whether records were added or dropped.
    pub resized: bool,
}

/// The stored models, each with its records' place in [`Collection`] and their
/// type, in the order a snapshot holds them. The collection's fields, its
/// canonical order, [`Collection::records`] and [`Model::stored`] are made from
/// this list; [`Collection::read`] says what each record's fields are.
macro_rules! collection {
    ($($model:ident => $field:ident: $ty:ty,)*) => {
        /// Every record of a collection, each model's records ascending by id.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        pub struct Collection {
            $(pub $field: Vec<$ty>,)*
            /// The default Wagtail site's root URL (`http://localhost`), which
            /// Wagtail's own endpoints build their `detail_url`s from.
            pub site: String,
            /// The page tree, sites, locales and documents of Wagtail's own
            /// endpoints: a section of its own in a snapshot (see
            /// [`Wagtail`]), so the records of older snapshots still decode.
            #[serde(skip)]
            pub wagtail: Wagtail,
            /// What the publisher says of the dataset (`--dataset-config`): a
            /// section of its own too (format version 7).
            #[serde(skip)]
            pub dataset: Dataset,
            /// The versions published so far, this one last: a section of
            /// its own too (format version 8).
            #[serde(skip)]
            pub history: History,
            /// The records held back, and why: a section of its own too
            /// (format version 10), written only when there are any.
            #[serde(skip)]
            pub held: Vec<Holding>,
        }

        impl Collection {
            /// Every model's records in ascending ids.
            fn sort_by_id(&mut self) {
                $(self.$field.sort_by_key(Record::id);)*
            }

            /// Replaces `model`'s records by `fresh`'s of the same ids, in
            /// place, adds `fresh`'s others, and, given `keys`, drops those
            /// whose id it lacks; the order is made canonical by
            /// [`Collection::canonicalise`]. Says the ids replaced in place,
            /// and whether any record was added or dropped.
            pub fn splice(
                &mut self,
                model: Model,
                fresh: &mut Collection,
                keys: Option<&ahash::AHashSet<i64>>,
            ) -> Spliced {
                let mut spliced = Spliced::default();
                match model {
                    $(Model::$model => {
                        let records = &mut self.$field;
                        let mut added = Vec::new();
                        for r in std::mem::take(&mut fresh.$field) {
                            // Canonical: ascending ids.
                            match records.binary_search_by_key(&r.id(), Record::id) {
                                Ok(at) => {
                                    spliced.replaced.push(r.id());
                                    records[at] = r;
                                }
                                Err(_) => added.push(r),
                            }
                        }
                        if let Some(keys) = keys {
                            let replaced: ahash::AHashSet<i64> =
                                spliced.replaced.iter().copied().collect();
                            let before = records.len();
                            records.retain(|r| keys.contains(&r.id()) || replaced.contains(&r.id()));
                            spliced.resized |= records.len() != before;
                        }
                        spliced.resized |= !added.is_empty();
                        records.extend(added);
                    })*
                    _ => {}
                }
                spliced
            }

            /// Makes `model`'s record `id` what it is in `from`: replaced, or
            /// inserted in canonical id order, or removed where `from` has
            /// none (or there is no `from`). A page's place in the tree
            /// follows it. Says whether the collection changed.
            pub fn restore(&mut self, model: Model, id: i64, from: Option<&Collection>) -> bool {
                let changed = match model {
                    $(Model::$model => {
                        let records = &mut self.$field;
                        let found = records.binary_search_by_key(&id, Record::id);
                        let was = from.and_then(|from| {
                            let at = from.$field.binary_search_by_key(&id, Record::id).ok()?;
                            Some(&from.$field[at])
                        });
                        match (found, was) {
                            (Ok(at), Some(was)) if records[at] == *was => false,
                            (Ok(at), Some(was)) => {
                                records[at] = was.clone();
                                true
                            }
                            (Err(at), Some(was)) => {
                                records.insert(at, was.clone());
                                true
                            }
                            (Ok(at), None) => {
                                records.remove(at);
                                true
                            }
                            (Err(_), None) => false,
                        }
                    })*
                    _ => false,
                };
                if model == Model::Page {
                    let pages = &mut self.wagtail.pages;
                    let found = pages.binary_search_by_key(&id, |p| p.id);
                    let was = from.and_then(|from| {
                        from.wagtail.pages.iter().find(|p| p.id == id)
                    });
                    match (found, was) {
                        (Ok(at), Some(was)) => pages[at] = was.clone(),
                        (Err(at), Some(was)) => pages.insert(at, was.clone()),
                        (Ok(at), None) => {
                            pages.remove(at);
                        }
                        (Err(_), None) => {}
                    }
                }
                changed
            }

            /// Hands each model's records to `visitor`, in the order the
            /// collection encodes its fields (the site follows them).
            pub fn visit_records(&self, visitor: &mut impl RecordsVisitor) {
                $(visitor.records(Model::$model, &self.$field);)*
            }

            /// The record of `model` with `id`, found by its canonical order.
            pub fn record(&self, model: Model, id: i64) -> Option<&dyn Record> {
                match model {
                    $(Model::$model => {
                        let at = self.$field.binary_search_by_key(&id, Record::id).ok()?;
                        Some(&self.$field[at] as &dyn Record)
                    })*
                    _ => None,
                }
            }

            /// A model's records, in stored order (none for the models a view
            /// derives).
            pub fn records(&self, model: Model) -> Vec<&dyn Record> {
                match model {
                    $(Model::$model => self.$field.iter().map(|r| r as &dyn Record).collect(),)*
                    _ => Vec::new(),
                }
            }
        }

        impl Model {
            /// Whether the model's records are stored in a snapshot; the typed
            /// image lists are derived from the images when a view is built.
            pub fn stored(self) -> bool {
                matches!(self, $(Model::$model)|*)
            }
        }
    };
}

collection! {
    Order => orders: Rank,
    Family => families: Rank,
    Subfamily => subfamilies: Rank,
    Tribe => tribes: Rank,
    Genus => genera: Rank,
    Species => species: Species,
    Subspecies => subspecies: Species,
    Country => countries: Country,
    State => states: State,
    County => counties: County,
    Locality => localities: Locality,
    Gps => gps: Gps,
    CollectingTrip => collecting_trips: CollectingTrip,
    Person => people: Person,
    SpecimenRecord => specimen_records: SpecimenRecord,
    Image => images: Image,
    Page => pages: Page,
    Rendition => renditions: Rendition,
    SpeciesPage => species_pages: SpeciesPage,
}

impl Collection {
    /// Puts records and link lists in the canonical order: ascending ids.
    pub fn canonicalise(&mut self) {
        self.sort_by_id();
        self.wagtail.canonicalise();
        for trip in &mut self.collecting_trips {
            trip.states.sort_unstable();
        }
        for specimen in &mut self.specimen_records {
            specimen.collector.sort_unstable();
        }
        for image in &mut self.images {
            image.plant_species_page.sort_unstable();
            image.habitat_species_page.sort_unstable();
            image.tags.sort_unstable();
            image.tags.dedup();
        }
    }

    /// The lists of a many-to-many field of `model` (one of [`LINK_FIELDS`]),
    /// by record id; `None` for any other field.
    pub fn links_mut(&mut self, model: Model, field: &str) -> Option<Vec<(i64, &mut Vec<i64>)>> {
        match (model, field) {
            (Model::CollectingTrip, "states") => Some(
                self.collecting_trips
                    .iter_mut()
                    .map(|r| (r.id, &mut r.states))
                    .collect(),
            ),
            (Model::SpecimenRecord, "collector") => Some(
                self.specimen_records
                    .iter_mut()
                    .map(|r| (r.id, &mut r.collector))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The number of records of each model, in `Model::ALL` order.
    pub fn counts(&self) -> Vec<(Model, usize)> {
        Model::ALL
            .into_iter()
            .filter(|m| m.stored())
            .map(|m| (m, self.count(m)))
            .collect()
    }

    pub fn count(&self, model: Model) -> usize {
        self.records(model).len()
    }

    /// The ids of a model's records, in stored order.
    pub fn ids(&self, model: Model) -> Vec<i64> {
        self.records(model).iter().map(|r| r.id()).collect()
    }
}

/// The many-to-many fields of the collection's own models, which
/// [`Collection::links_mut`] reaches: the collecting trips' states and the
/// specimens' collectors.
pub const LINK_FIELDS: [(Model, &str); 2] = [
    (Model::CollectingTrip, "states"),
    (Model::SpecimenRecord, "collector"),
];

/// What a stored field holds, as [`Collection::read`] asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    OptText,
    /// A non-negative integer (widths, heights).
    Count,
    /// A non-negative integer or null (days, years).
    OptCount,
    Bool,
    OptBool,
    /// An instant or null.
    OptTime,
    /// The id of a record of a table catalogue does not publish (a Wagtail
    /// collection), served as the number; the column is `<name>_id`.
    ForeignId,
    OptForeignId,
    /// An instant (`date_created`, `date_modified`).
    Time,
    /// A `YYYY-MM-DD` date.
    Date,
    OptDate,
    /// The primary key of a record of the model.
    Ref(Model),
    OptRef(Model),
    /// Primary keys of records of the model: a many-to-many link.
    Refs(Model),
    /// A reference the service added in a later version (0.16's
    /// `featured_image`): a source from before it has no such field, which
    /// reads as null.
    AddedRef(Model),
    /// The names of the record's tags, from taggit's tables rather than a
    /// column of the record's own.
    Tags,
}

/// Where a record's stored fields come from, asked for by name and kind: a fixture
/// object, or a recorder of the columns a database table must have. A source
/// that finds a field missing or of another kind reports it itself and answers
/// with an empty value, so one read finds every problem of a record.
pub trait FieldSource {
    fn text(&mut self, name: &'static str) -> String;
    fn opt_text(&mut self, name: &'static str) -> Option<String>;
    fn count(&mut self, name: &'static str) -> i64;
    fn opt_count(&mut self, name: &'static str) -> Option<i64>;
    fn boolean(&mut self, name: &'static str) -> bool;
    fn opt_bool(&mut self, name: &'static str) -> Option<bool>;
    fn time(&mut self, name: &'static str) -> i64;
    fn opt_time(&mut self, name: &'static str) -> Option<i64>;
    fn foreign_id(&mut self, name: &'static str) -> i64;
    fn opt_foreign_id(&mut self, name: &'static str) -> Option<i64>;
    fn date(&mut self, name: &'static str) -> String;
    fn opt_date(&mut self, name: &'static str) -> Option<String>;
    fn reference(&mut self, name: &'static str, target: Model) -> i64;
    fn opt_reference(&mut self, name: &'static str, target: Model) -> Option<i64>;
    fn references(&mut self, name: &'static str, target: Model) -> Vec<i64>;
    fn added_reference(&mut self, name: &'static str, target: Model) -> Option<i64>;
    fn tags(&mut self, name: &'static str) -> Vec<String>;
}

/// A page's place in the tree and its Wagtail fields, read with its record.
fn placement(f: &mut dyn FieldSource, id: i64) -> Placement {
    Placement {
        id,
        path: f.text("path"),
        url_path: f.text("url_path"),
        content_type: f.foreign_id("content_type"),
        locale: f.foreign_id("locale"),
        alias_of: f.opt_foreign_id("alias_of"),
        seo_title: f.text("seo_title"),
        show_in_menus: f.boolean("show_in_menus"),
        search_description: f.text("search_description"),
        translation_key: uuid_hex(&f.text("translation_key")),
    }
}

/// The fields of a page only Wagtail's own endpoints serve (stored in the
/// collection's Wagtail part, not in the page's table).
pub fn placement_fields() -> Vec<(&'static str, Kind)> {
    let mut columns = Columns(Vec::new());
    placement(&mut columns, 0);
    columns.0
}

/// The stored fields of a model, in the order [`Collection::read`] asks for them:
/// what a database table must have.
pub fn stored_fields(model: Model) -> Vec<(&'static str, Kind)> {
    let mut columns = Columns(Vec::new());
    Collection::default().read(model, 0, &mut columns);
    columns.0
}

/// A [`FieldSource`] that answers nothing and notes what is asked.
struct Columns(Vec<(&'static str, Kind)>);

impl Columns {
    fn note<T: Default>(&mut self, name: &'static str, kind: Kind) -> T {
        self.0.push((name, kind));
        T::default()
    }
}

impl FieldSource for Columns {
    fn text(&mut self, name: &'static str) -> String {
        self.note(name, Kind::Text)
    }
    fn opt_text(&mut self, name: &'static str) -> Option<String> {
        self.note(name, Kind::OptText)
    }
    fn count(&mut self, name: &'static str) -> i64 {
        self.note(name, Kind::Count)
    }
    fn opt_count(&mut self, name: &'static str) -> Option<i64> {
        self.note(name, Kind::OptCount)
    }
    fn boolean(&mut self, name: &'static str) -> bool {
        self.note(name, Kind::Bool)
    }
    fn opt_bool(&mut self, name: &'static str) -> Option<bool> {
        self.note(name, Kind::OptBool)
    }
    fn time(&mut self, name: &'static str) -> i64 {
        self.note(name, Kind::Time)
    }
    fn opt_time(&mut self, name: &'static str) -> Option<i64> {
        self.note(name, Kind::OptTime)
    }
    fn foreign_id(&mut self, name: &'static str) -> i64 {
        self.note(name, Kind::ForeignId)
    }
    fn opt_foreign_id(&mut self, name: &'static str) -> Option<i64> {
        self.note(name, Kind::OptForeignId)
    }
    fn date(&mut self, name: &'static str) -> String {
        self.note(name, Kind::Date)
    }
    fn opt_date(&mut self, name: &'static str) -> Option<String> {
        self.note(name, Kind::OptDate)
    }
    fn reference(&mut self, name: &'static str, target: Model) -> i64 {
        self.note(name, Kind::Ref(target))
    }
    fn opt_reference(&mut self, name: &'static str, target: Model) -> Option<i64> {
        self.note(name, Kind::OptRef(target))
    }
    fn references(&mut self, name: &'static str, target: Model) -> Vec<i64> {
        self.note(name, Kind::Refs(target))
    }
    fn added_reference(&mut self, name: &'static str, target: Model) -> Option<i64> {
        self.note(name, Kind::AddedRef(target))
    }
    fn tags(&mut self, name: &'static str) -> Vec<String> {
        self.note(name, Kind::Tags)
    }
}

/// A rank's or a species' stamps: the first fields of any stamped record.
fn stamps(f: &mut dyn FieldSource) -> (i64, i64) {
    (f.time("date_created"), f.time("date_modified"))
}

fn rank(f: &mut dyn FieldSource, id: i64, model: Model) -> Rank {
    let (date_created, date_modified) = stamps(f);
    Rank {
        id,
        date_created,
        date_modified,
        name: f.text("name"),
        common_name: f.opt_text("common_name"),
        authority: f.text("authority"),
        parent: model
            .parent()
            .map(|(name, target)| f.reference(name, target)),
        featured_image: model
            .field_index("featured_image")
            .and_then(|_| f.added_reference("featured_image", Model::Image)),
    }
}

fn species(f: &mut dyn FieldSource, id: i64, model: Model) -> Species {
    let (date_created, date_modified) = stamps(f);
    let (parent, target) = model.parent().expect("a species rank has a parent");
    Species {
        id,
        date_created,
        date_modified,
        name: f.text("name"),
        common_name: f.opt_text("common_name"),
        authority: f.text("authority"),
        parent: f.reference(parent, target),
        mona: f.opt_text("mona"),
        p3: f.opt_text("p3"),
        ps: f.opt_text("ps"),
        featured_image: model
            .field_index("featured_image")
            .and_then(|_| f.added_reference("featured_image", Model::Image)),
    }
}

impl Collection {
    /// Reads one record of `model` with primary key `id` from `f` and adds it.
    ///
    /// Each record's declaration (`stored!`, or `rank` and `species`) says
    /// which fields it stores and of what kind: the fixture import reads
    /// objects through it, and the database reader derives its column list
    /// from it (see [`Columns`]).
    pub fn read(&mut self, model: Model, id: i64, f: &mut dyn FieldSource) {
        let c = self;
        match model {
            Model::Order => c.orders.push(rank(f, id, model)),
            Model::Family => c.families.push(rank(f, id, model)),
            Model::Subfamily => c.subfamilies.push(rank(f, id, model)),
            Model::Tribe => c.tribes.push(rank(f, id, model)),
            Model::Genus => c.genera.push(rank(f, id, model)),
            Model::Species => c.species.push(species(f, id, model)),
            Model::Subspecies => c.subspecies.push(species(f, id, model)),
            Model::Country => c.countries.push(Country::read(f, id)),
            Model::State => c.states.push(State::read(f, id)),
            Model::County => c.counties.push(County::read(f, id)),
            Model::Locality => c.localities.push(Locality::read(f, id)),
            Model::Gps => c.gps.push(Gps::read(f, id)),
            Model::CollectingTrip => c.collecting_trips.push(CollectingTrip::read(f, id)),
            Model::Person => c.people.push(Person::read(f, id)),
            Model::SpecimenRecord => c.specimen_records.push(SpecimenRecord::read(f, id)),
            Model::Image => c.images.push(Image::read(f, id)),
            Model::Page => {
                c.pages.push(Page::read(f, id));
                c.wagtail.pages.push(placement(f, id));
            }
            Model::Rendition => c.renditions.push(Rendition::read(f, id)),
            Model::SpeciesPage => c.species_pages.push(SpeciesPage::read(f, id)),
            // Derived from the images when a view is built; never read.
            Model::SpecimenRecordImage
            | Model::InsectImage
            | Model::PlantImage
            | Model::HabitatImage => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_replaces_inserts_and_removes() {
        let from = Collection {
            countries: vec![Country::numbered(1, "A"), Country::numbered(3, "C")],
            ..Collection::default()
        };
        let mut c = Collection {
            countries: vec![Country::numbered(1, "a"), Country::numbered(4, "D")],
            ..Collection::default()
        };
        assert!(c.restore(Model::Country, 1, Some(&from)));
        assert!(!c.restore(Model::Country, 1, Some(&from)));
        assert!(c.restore(Model::Country, 3, Some(&from)));
        assert!(c.restore(Model::Country, 4, Some(&from)));
        assert!(!c.restore(Model::Country, 5, None));
        assert_eq!(c.countries, from.countries);
        assert!(c.restore(Model::Country, 1, None));
        assert_eq!(c.ids(Model::Country), vec![3]);
    }
}
