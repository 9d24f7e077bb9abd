//! The raw records of the collection, as the database holds them.
//!
//! This is the snapshot's payload: no derived value lives here (those are computed
//! when a view is built), so the same collection gives the same bytes whatever it was
//! read from. Instants are microseconds since the Unix epoch, UTC; dates are
//! `YYYY-MM-DD` strings; references are primary keys.

use serde::{Deserialize, Serialize};

/// An order, family, subfamily, tribe or genus: a rank with a name and a parent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Country {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub abbr: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub abbr: String,
    pub country: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct County {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub name: String,
    pub state: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gps {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub latitude: Option<String>,
    pub longitude: Option<String>,
    pub elevation: String,
    pub locality: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Person {
    pub id: i64,
    pub date_created: i64,
    pub date_modified: i64,
    pub first_name: String,
    pub middle_initial: Option<String>,
    pub last_name: String,
    pub suffix: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    pub fn counts(&self) -> Vec<(crate::schema::Model, usize)> {
        use crate::schema::Model;
        Model::ALL.into_iter().map(|m| (m, self.count(m))).collect()
    }

    pub fn count(&self, model: crate::schema::Model) -> usize {
        use crate::schema::Model;
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
    pub fn ids(&self, model: crate::schema::Model) -> Vec<i64> {
        use crate::schema::Model;
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
