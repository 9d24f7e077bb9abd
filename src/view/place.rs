//! Where a specimen was collected, as the records that say it: each region the
//! specimen names, else the one its county, state or locality lies in. The
//! archive's columns and the data labels read the same places.

use crate::model::Model;

use super::{Value, View};

/// The positions of a specimen's country, state, county and locality.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place {
    pub country: Option<u32>,
    pub state: Option<u32>,
    pub county: Option<u32>,
    pub locality: Option<u32>,
}

fn position(value: Value) -> Option<u32> {
    match value {
        Value::Ref(_, p) => Some(p),
        _ => None,
    }
}

impl Place {
    /// The place of the specimen at `pos`; a missing region is taken from the
    /// county, state or locality it lies in.
    pub fn of_specimen(view: &View, pos: usize) -> Place {
        let get = |model: Model, pos: u32, name: &str| {
            let table = view.table(model);
            let field = model.field_index(name).expect("a place field");
            position(table.get(pos as usize, field))
        };
        let own = |name| get(Model::SpecimenRecord, pos as u32, name);
        let locality = own("locality");
        let from_locality = |name| locality.and_then(|p| get(Model::Locality, p, name));
        let county = own("county").or_else(|| from_locality("county"));
        let state = own("state")
            .or_else(|| county.and_then(|c| get(Model::County, c, "state")))
            .or_else(|| from_locality("state"));
        let country = own("country")
            .or_else(|| state.and_then(|s| get(Model::State, s, "country")))
            .or_else(|| from_locality("country"));
        Place {
            country,
            state,
            county,
            locality,
        }
    }
}
