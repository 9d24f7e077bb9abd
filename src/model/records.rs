//! The raw records of the collection, as the database holds them.
//!
//! This is the snapshot's payload: no derived value lives here (those are computed
//! when a view is built), so the same collection gives the same bytes whatever it was
//! read from. Instants are microseconds since the Unix epoch, UTC; dates are
//! `YYYY-MM-DD` strings; references are primary keys.

use serde::{Deserialize, Serialize};

use super::schema::Model;

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

/// Every record of a collection, each model's records ascending by id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Collection {
    pub orders: Vec<Rank>,
    pub families: Vec<Rank>,
    pub subfamilies: Vec<Rank>,
    pub tribes: Vec<Rank>,
    pub genera: Vec<Rank>,
    pub species: Vec<Species>,
    pub subspecies: Vec<Species>,
    pub countries: Vec<Country>,
    pub states: Vec<State>,
    pub counties: Vec<County>,
    pub localities: Vec<Locality>,
    pub gps: Vec<Gps>,
    pub collecting_trips: Vec<CollectingTrip>,
    pub people: Vec<Person>,
    pub specimen_records: Vec<SpecimenRecord>,
}

/// Something with a primary key.
pub trait Keyed {
    fn id(&self) -> i64;
}

macro_rules! keyed {
    ($($t:ty),*) => {$(impl Keyed for $t { fn id(&self) -> i64 { self.id } })*};
}
keyed!(
    Rank,
    Species,
    Country,
    State,
    County,
    Locality,
    Gps,
    CollectingTrip,
    Person,
    SpecimenRecord
);

impl Collection {
    /// Puts records and link lists in the canonical order: ascending ids.
    pub fn canonicalise(&mut self) {
        fn by_id<T: Keyed>(v: &mut [T]) {
            v.sort_by_key(Keyed::id);
        }
        by_id(&mut self.orders);
        by_id(&mut self.families);
        by_id(&mut self.subfamilies);
        by_id(&mut self.tribes);
        by_id(&mut self.genera);
        by_id(&mut self.species);
        by_id(&mut self.subspecies);
        by_id(&mut self.countries);
        by_id(&mut self.states);
        by_id(&mut self.counties);
        by_id(&mut self.localities);
        by_id(&mut self.gps);
        by_id(&mut self.collecting_trips);
        by_id(&mut self.people);
        by_id(&mut self.specimen_records);
        for trip in &mut self.collecting_trips {
            trip.states.sort_unstable();
        }
        for specimen in &mut self.specimen_records {
            specimen.collector.sort_unstable();
        }
    }

    /// The number of records of each model, in `Model::ALL` order.
    pub fn counts(&self) -> Vec<(Model, usize)> {
        Model::ALL.into_iter().map(|m| (m, self.count(m))).collect()
    }

    pub fn count(&self, model: Model) -> usize {
        match model {
            Model::Order => self.orders.len(),
            Model::Family => self.families.len(),
            Model::Subfamily => self.subfamilies.len(),
            Model::Tribe => self.tribes.len(),
            Model::Genus => self.genera.len(),
            Model::Species => self.species.len(),
            Model::Subspecies => self.subspecies.len(),
            Model::Country => self.countries.len(),
            Model::State => self.states.len(),
            Model::County => self.counties.len(),
            Model::Locality => self.localities.len(),
            Model::Gps => self.gps.len(),
            Model::CollectingTrip => self.collecting_trips.len(),
            Model::Person => self.people.len(),
            Model::SpecimenRecord => self.specimen_records.len(),
        }
    }

    /// The ids of a model's records, in stored order.
    pub fn ids(&self, model: Model) -> Vec<i64> {
        fn ids<T: Keyed>(v: &[T]) -> Vec<i64> {
            v.iter().map(Keyed::id).collect()
        }
        match model {
            Model::Order => ids(&self.orders),
            Model::Family => ids(&self.families),
            Model::Subfamily => ids(&self.subfamilies),
            Model::Tribe => ids(&self.tribes),
            Model::Genus => ids(&self.genera),
            Model::Species => ids(&self.species),
            Model::Subspecies => ids(&self.subspecies),
            Model::Country => ids(&self.countries),
            Model::State => ids(&self.states),
            Model::County => ids(&self.counties),
            Model::Locality => ids(&self.localities),
            Model::Gps => ids(&self.gps),
            Model::CollectingTrip => ids(&self.collecting_trips),
            Model::Person => ids(&self.people),
            Model::SpecimenRecord => ids(&self.specimen_records),
        }
    }
}

/// What a stored field holds, as [`Collection::read`] asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    OptText,
    /// A non-negative integer or null (days, years).
    OptCount,
    OptBool,
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
}

/// Where a record's stored fields come from, asked for by name and kind: a fixture
/// object, or a recorder of the columns a database table must have. A source
/// that finds a field missing or of another kind reports it itself and answers
/// with an empty value, so one read finds every problem of a record.
pub trait FieldSource {
    fn text(&mut self, name: &'static str) -> String;
    fn opt_text(&mut self, name: &'static str) -> Option<String>;
    fn opt_count(&mut self, name: &'static str) -> Option<i64>;
    fn opt_bool(&mut self, name: &'static str) -> Option<bool>;
    fn time(&mut self, name: &'static str) -> i64;
    fn date(&mut self, name: &'static str) -> String;
    fn opt_date(&mut self, name: &'static str) -> Option<String>;
    fn reference(&mut self, name: &'static str, target: Model) -> i64;
    fn opt_reference(&mut self, name: &'static str, target: Model) -> Option<i64>;
    fn references(&mut self, name: &'static str, target: Model) -> Vec<i64>;
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
    fn opt_count(&mut self, name: &'static str) -> Option<i64> {
        self.note(name, Kind::OptCount)
    }
    fn opt_bool(&mut self, name: &'static str) -> Option<bool> {
        self.note(name, Kind::OptBool)
    }
    fn time(&mut self, name: &'static str) -> i64 {
        self.note(name, Kind::Time)
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
        let (created, modified) = (f.time("date_created"), f.time("date_modified"));
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
        }
    }
}
