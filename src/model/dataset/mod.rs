//! The dataset as its publisher describes it, once: title, licence, people,
//! codes. Written in a file (`--dataset-config`, JSON or TOML by its extension),
//! checked when read, stored in the snapshot by `build` and `sync`, and said by
//! the archive's `eml.xml`, `/eml.xml` and every page's footer.
//!
//! `description` is the description itself and what it says (its struct and
//! its serde), `rules` the shapes and vocabularies its values take, `check`
//! the description checked against them, `file` the file it is read from,
//! `names` how a person's name is split, `people` the
//! identifiers of the collection's people (`recordedByID`), `report` where a
//! problem with a record is reported, `citation` the text a version is
//! cited by, `uuid` the identifiers made for it, `told` what a command was told
//! over it, `sensitive` the rules that generalise sensitive places (read
//! apart: the description never holds them).

mod check;
mod citation;
mod description;
mod file;
mod names;
mod people;
mod report;
mod rules;
mod sensitive;
mod told;
mod uuid;

pub use check::DatasetError;
pub use description::{Address, Dataset, Party, Project, Sampling};
pub(super) use file::read_bounded;
pub use file::MAX_FILE_BYTES;
pub use people::{is_wikidata, Person, ORCID_URL, WIKIDATA_URL};
pub use report::Reported;
pub use rules::{Doi, License, RESERVED, ROLES, UPDATE_FREQUENCIES};
pub use sensitive::{Rule, Sensitive};
pub use told::{Field, Told};
pub use uuid::{random_uuid, uuid_text};
