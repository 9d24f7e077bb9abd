//! GBIF's occurrence search over this collection (`/gbif/v1/occurrence/...`), so
//! that a GBIF client works by changing only its base URL: [`wkt`] reads areas,
//! [`search`] parses a search's parameters and runs it against the view's
//! Darwin Core columns, [`answer`] writes GBIF's response shapes.

pub mod answer;
pub mod search;
pub mod terms;
pub mod wkt;

pub use search::{Found, Search};
