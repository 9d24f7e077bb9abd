//! The raw records of the collection, as the database holds them.
//!
//! This is the snapshot's payload: no derived value lives here (those are computed
//! when a view is built), so the same collection gives the same bytes whatever it was
//! read from. Instants are microseconds since the Unix epoch, UTC; dates are
//! `YYYY-MM-DD` strings; references are primary keys.

use serde::{Deserialize, Serialize};

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

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Country {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub abbr: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct State {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub abbr: String,
    pub country: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct County {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub state: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Locality {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: Option<String>,
    pub range: Option<String>,
    pub town: Option<String>,
    pub country: Option<i64>,
    pub state: Option<i64>,
    pub county: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Gps {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
    pub elevation: String,
    pub locality: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CollectingTrip {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub start_date: String,
    pub end_date: String,
    pub notes: Option<String>,
    /// State ids, ascending.
    pub states: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Person {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub first_name: String,
    pub middle_initial: Option<String>,
    pub last_name: String,
    pub suffix: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SpecimenRecord {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub usi: String,
    pub order: Option<i64>,
    pub family: Option<i64>,
    pub subfamily: Option<i64>,
    pub tribe: Option<i64>,
    pub genus: Option<i64>,
    pub species: Option<i64>,
    pub subspecies: Option<i64>,
    pub determiner: Option<i64>,
    pub determined_year: Option<i64>,
    pub sex: String,
    pub stage: String,
    pub preparer: Option<i64>,
    pub preparation: String,
    pub preparation_date: Option<String>,
    pub labels_printed: Option<bool>,
    pub labeled: Option<bool>,
    pub photographed: Option<bool>,
    pub collecting_trip: Option<i64>,
    pub country: Option<i64>,
    pub state: Option<i64>,
    pub county: Option<i64>,
    pub locality: Option<i64>,
    pub gps: Option<i64>,
    pub day: Option<i64>,
    pub month: String,
    pub year: Option<i64>,
    pub method: String,
    pub weather: String,
    pub temperature: String,
    pub time_of_day: String,
    pub habitat: String,
    pub notes: String,
    /// Person ids, ascending.
    pub collector: Vec<i64>,
}

/// An image: Wagtail's image columns and, since the service's 0.16, the columns
/// of every kind in one row, with `image_type` saying which kind it is (the
/// service clears the columns of the other kinds). Older sources' typed tables
/// are converted into this shape on the way in (`ingest::legacy`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Image {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub title: String,
    /// The original's path under the media root: `original_images/x.jpg`.
    pub file: String,
    pub description: String,
    pub width: i64,
    pub height: i64,
    pub created_at: i64,
    pub focal_point_x: Option<i64>,
    pub focal_point_y: Option<i64>,
    pub focal_point_width: Option<i64>,
    pub focal_point_height: Option<i64>,
    pub file_size: Option<i64>,
    pub file_hash: String,
    pub alt_text: String,
    pub date: String,
    pub notes: String,
    /// `specimen`, `insect`, `plant` or `habitat`.
    pub image_type: String,
    /// A specimen image's view (`dorsal`, ...); empty for other kinds.
    pub position: String,
    pub sex: String,
    pub stage: String,
    pub status: String,
    pub scientific_name: String,
    pub common_name: String,
    /// A Wagtail collection's id (not published).
    pub collection: i64,
    /// A user's id (not published).
    pub uploaded_by_user: Option<i64>,
    pub country: Option<i64>,
    pub state: Option<i64>,
    pub county: Option<i64>,
    pub locality: Option<i64>,
    pub gps: Option<i64>,
    pub collecting_trip: Option<i64>,
    pub specimen_record: Option<i64>,
    pub species: Option<i64>,
    pub species_page: Option<i64>,
    /// Species page ids, ascending.
    pub plant_species_page: Vec<i64>,
    /// Species page ids, ascending.
    pub habitat_species_page: Vec<i64>,
    /// The names of the image's tags (taggit), in byte order, each once.
    pub tags: Vec<String>,
}

/// What catalogue serves of a Wagtail page: the live title, and publication.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Page {
    pub id: i64,
    pub title: String,
    pub slug: String,
    pub live: bool,
    pub first_published_at: Option<i64>,
    pub last_published_at: Option<i64>,
}

/// A resized copy of an image.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rendition {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    /// How it was made: `max-300x300`.
    pub filter_spec: String,
    /// Its path under the media root: `images/x.max-300x300.jpg`.
    pub file: String,
    pub width: i64,
    pub height: i64,
    pub focal_point_key: String,
    pub image: i64,
}

/// A species page's own fields; its id is its [`Page`]'s. Rich text is stored
/// and served as Wagtail stores it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SpeciesPage {
    pub id: i64,
    pub species: Option<i64>,
    pub taxonomy: String,
    pub description: String,
    pub distribution: String,
    pub seasonality: String,
    pub habitat: String,
    pub food: String,
    pub life_cycle: String,
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
        }

        impl Collection {
            /// Every model's records in ascending ids.
            fn sort_by_id(&mut self) {
                $(self.$field.sort_by_key(Record::id);)*
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
record!(
    Rank,
    Species,
    Country,
    State,
    County,
    Locality,
    Gps,
    CollectingTrip,
    Person,
    SpecimenRecord,
    Image,
    Page,
    Rendition,
    SpeciesPage
);

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

/// The stored fields of a model, in the order [`Collection::read`] asks for them:
/// what a database table must have.
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

fn rank(f: &mut dyn FieldSource, id: i64, stamps: (i64, i64), model: Model) -> Rank {
    Rank {
        id,
        date_created: stamps.0,
        date_modified: stamps.1,
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

fn species(f: &mut dyn FieldSource, id: i64, stamps: (i64, i64), model: Model) -> Species {
    let (parent, target) = model.parent().expect("a species rank has a parent");
    Species {
        id,
        date_created: stamps.0,
        date_modified: stamps.1,
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
    /// This is the one place that says which fields each model stores and of what
    /// kind: the fixture import reads objects through it, and the database reader
    /// derives its column list from it (see [`Columns`]).
    pub fn read(&mut self, model: Model, id: i64, f: &mut dyn FieldSource) {
        let c = self;
        // The parts of a multi-table model have their stamps on the first part.
        let stamped = !matches!(model, Model::Page | Model::SpeciesPage);
        let (created, modified) = match stamped {
            true => (f.time("date_created"), f.time("date_modified")),
            false => (0, 0),
        };
        let stamps = (created, modified);
        match model {
            Model::Order => c.orders.push(rank(f, id, stamps, model)),
            Model::Family => c.families.push(rank(f, id, stamps, model)),
            Model::Subfamily => c.subfamilies.push(rank(f, id, stamps, model)),
            Model::Tribe => c.tribes.push(rank(f, id, stamps, model)),
            Model::Genus => c.genera.push(rank(f, id, stamps, model)),
            Model::Species => c.species.push(species(f, id, stamps, model)),
            Model::Subspecies => c.subspecies.push(species(f, id, stamps, model)),
            Model::Country => c.countries.push(Country {
                id,
                date_created: created,
                date_modified: modified,
                name: f.text("name"),
                abbr: f.text("abbr"),
            }),
            Model::State => c.states.push(State {
                id,
                date_created: created,
                date_modified: modified,
                name: f.text("name"),
                abbr: f.text("abbr"),
                country: f.reference("country", Model::Country),
            }),
            Model::County => c.counties.push(County {
                id,
                date_created: created,
                date_modified: modified,
                name: f.text("name"),
                state: f.reference("state", Model::State),
            }),
            Model::Locality => c.localities.push(Locality {
                id,
                date_created: created,
                date_modified: modified,
                name: f.opt_text("name"),
                range: f.opt_text("range"),
                town: f.opt_text("town"),
                country: f.opt_reference("country", Model::Country),
                state: f.opt_reference("state", Model::State),
                county: f.opt_reference("county", Model::County),
            }),
            Model::Gps => c.gps.push(Gps {
                id,
                date_created: created,
                date_modified: modified,
                latitude: f.opt_text("latitude"),
                longitude: f.opt_text("longitude"),
                elevation: f.text("elevation"),
                locality: f.reference("locality", Model::Locality),
            }),
            Model::CollectingTrip => c.collecting_trips.push(CollectingTrip {
                id,
                date_created: created,
                date_modified: modified,
                name: f.text("name"),
                start_date: f.date("start_date"),
                end_date: f.date("end_date"),
                notes: f.opt_text("notes"),
                states: f.references("states", Model::State),
            }),
            Model::Person => c.people.push(Person {
                id,
                date_created: created,
                date_modified: modified,
                first_name: f.text("first_name"),
                middle_initial: f.opt_text("middle_initial"),
                last_name: f.text("last_name"),
                suffix: f.opt_text("suffix"),
            }),
            Model::SpecimenRecord => c.specimen_records.push(SpecimenRecord {
                id,
                date_created: created,
                date_modified: modified,
                usi: f.text("usi"),
                order: f.opt_reference("order", Model::Order),
                family: f.opt_reference("family", Model::Family),
                subfamily: f.opt_reference("subfamily", Model::Subfamily),
                tribe: f.opt_reference("tribe", Model::Tribe),
                genus: f.opt_reference("genus", Model::Genus),
                species: f.opt_reference("species", Model::Species),
                subspecies: f.opt_reference("subspecies", Model::Subspecies),
                determiner: f.opt_reference("determiner", Model::Person),
                determined_year: f.opt_count("determined_year"),
                sex: f.text("sex"),
                stage: f.text("stage"),
                preparer: f.opt_reference("preparer", Model::Person),
                preparation: f.text("preparation"),
                preparation_date: f.opt_date("preparation_date"),
                labels_printed: f.opt_bool("labels_printed"),
                labeled: f.opt_bool("labeled"),
                photographed: f.opt_bool("photographed"),
                collecting_trip: f.opt_reference("collecting_trip", Model::CollectingTrip),
                country: f.opt_reference("country", Model::Country),
                state: f.opt_reference("state", Model::State),
                county: f.opt_reference("county", Model::County),
                locality: f.opt_reference("locality", Model::Locality),
                gps: f.opt_reference("gps", Model::Gps),
                day: f.opt_count("day"),
                month: f.text("month"),
                year: f.opt_count("year"),
                method: f.text("method"),
                weather: f.text("weather"),
                temperature: f.text("temperature"),
                time_of_day: f.text("time_of_day"),
                habitat: f.text("habitat"),
                notes: f.text("notes"),
                collector: f.references("collector", Model::Person),
            }),
            Model::Image => c.images.push(Image {
                id,
                date_created: created,
                date_modified: modified,
                title: f.text("title"),
                file: f.text("file"),
                description: f.text("description"),
                width: f.count("width"),
                height: f.count("height"),
                created_at: f.time("created_at"),
                focal_point_x: f.opt_count("focal_point_x"),
                focal_point_y: f.opt_count("focal_point_y"),
                focal_point_width: f.opt_count("focal_point_width"),
                focal_point_height: f.opt_count("focal_point_height"),
                file_size: f.opt_count("file_size"),
                file_hash: f.text("file_hash"),
                alt_text: f.text("alt_text"),
                date: f.date("date"),
                notes: f.text("notes"),
                image_type: f.text("image_type"),
                position: f.text("position"),
                sex: f.text("sex"),
                stage: f.text("stage"),
                status: f.text("status"),
                scientific_name: f.text("scientific_name"),
                common_name: f.text("common_name"),
                collection: f.foreign_id("collection"),
                uploaded_by_user: f.opt_foreign_id("uploaded_by_user"),
                country: f.opt_reference("country", Model::Country),
                state: f.opt_reference("state", Model::State),
                county: f.opt_reference("county", Model::County),
                locality: f.opt_reference("locality", Model::Locality),
                gps: f.opt_reference("gps", Model::Gps),
                collecting_trip: f.opt_reference("collecting_trip", Model::CollectingTrip),
                specimen_record: f.opt_reference("specimen_record", Model::SpecimenRecord),
                species: f.opt_reference("species", Model::Species),
                species_page: f.opt_reference("species_page", Model::SpeciesPage),
                plant_species_page: f.references("plant_species_page", Model::SpeciesPage),
                habitat_species_page: f.references("habitat_species_page", Model::SpeciesPage),
                tags: f.tags("tags"),
            }),
            Model::Page => {
                c.pages.push(Page {
                    id,
                    title: f.text("title"),
                    slug: f.text("slug"),
                    live: f.boolean("live"),
                    first_published_at: f.opt_time("first_published_at"),
                    last_published_at: f.opt_time("last_published_at"),
                });
                c.wagtail.pages.push(placement(f, id));
            }
            Model::Rendition => c.renditions.push(Rendition {
                id,
                date_created: created,
                date_modified: modified,
                filter_spec: f.text("filter_spec"),
                file: f.text("file"),
                width: f.count("width"),
                height: f.count("height"),
                focal_point_key: f.text("focal_point_key"),
                image: f.reference("image", Model::Image),
            }),
            Model::SpeciesPage => c.species_pages.push(SpeciesPage {
                id,
                species: f.opt_reference("species", Model::Species),
                taxonomy: f.text("taxonomy"),
                description: f.text("description"),
                distribution: f.text("distribution"),
                seasonality: f.text("seasonality"),
                habitat: f.text("habitat"),
                food: f.text("food"),
                life_cycle: f.text("life_cycle"),
            }),
            // Derived from the images when a view is built; never read.
            Model::SpecimenRecordImage
            | Model::InsectImage
            | Model::PlantImage
            | Model::HabitatImage => {}
        }
    }
}
