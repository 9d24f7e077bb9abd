//! What changed, and when: the versions a snapshot's history holds
//! (`/api/v2/versions/` as JSON and a page, [`list`] and [`page`];
//! `/versions.atom`, [`feed`]; `/versions.rss` in the IPT's form, [`rss`];
//! each with the version's kept archive and `eml.xml`), the records added, modified and deleted since
//! a version, and whether a record that is not found was deleted (410 Gone:
//! [`changes`]); a list question's records changed by the versions, as
//! Atom ([`question_feed`]); how to cite a version ([`citation`]) and DataCite's metadata of it
//! ([`datacite`]). The history itself is `model::history`'s; this room answers
//! questions of it.

pub mod changes;
pub mod citation;
pub mod datacite;
pub mod feed;
pub mod list;
pub mod page;
pub mod publishing;
pub mod question_feed;
pub mod rss;
