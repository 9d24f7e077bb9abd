//! The API's pages for people: the collection's front page, every list and record
//! as HTML, the specimen label form with its counts, maps, and the API docs viewer.
//!
//! Pages are made from the answers the JSON clients get (the same plan's page,
//! read back), so a page never says something the API does not; the templates
//! are maud's, which escapes every value it writes. Nothing here knows HTTP:
//! `serve` decides when a page is asked for and sends it with its headers.

pub mod assets;
mod chart;
mod front;
mod gallery;
mod holdings;
mod label_form;
pub mod layout;
mod links;
mod list;
mod map;
mod prose;
pub mod quality;
mod record;
mod site;
mod specimen;
mod taxon;
mod values;

pub use front::{docs, home};
pub use holdings::Holdings;
pub use layout::error;
pub use list::{list, unaccented, ListPage, MAX_ROWS};
pub use record::{record, RecordPage};
pub use site::{LabelCodes, Site, CODES_FROM_REQUEST, DOCS_PATH};
