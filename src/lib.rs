//! # catalogue
//!
//! A read-only JSON API for a natural-history collection, served from an immutable
//! snapshot. Every response is rendered once when a snapshot is loaded; a request
//! only cuts a page out of bytes already in memory.
//!
//! How the modules fit, from input to answer:
//!
//! - [`fixture`] reads Django fixtures (`manage.py dumpdata`) into raw [`records`];
//!   [`database`] reads the same records straight from PostgreSQL or SQLite, and
//!   [`sync`] keeps a snapshot file in step with a database.
//! - [`validate`] checks a collection: errors stop a build, warnings are reported.
//! - [`build`] ties reading and checking together and writes a [`snapshot`], whose
//!   payload goes through the [`codec`].
//! - [`schema`] defines the 15 models, their field tables and the 25 endpoints.
//! - [`view`] turns a snapshot into indexed tables with the [`derived`] values, and
//!   [`render`] writes every list once into one buffer each; [`index`] groups rows
//!   by value so filters look candidates up instead of scanning.
//! - [`query`] decodes query strings and answers list and record requests, with the
//!   [`filter`]s (and `search`), `sort`, [`fields`] projection and [`facets`].
//! - [`http`] serves it all with warp (caching, [`compress`]ion, CORS, operations
//!   endpoints with [`metrics`]); [`reload`] watches the snapshot file and swaps in a
//!   new view; [`cli`] is the command line. [`openapi`] describes the API from the
//!   same field tables and filter definitions.
//! - [`geojson`] answers `format=geojson`; [`dwca`] writes the Darwin Core Archive
//!   (`catalogue export dwca`, `GET /dwca.zip`).
//! - [`generate`] writes a deterministic synthetic collection for tests and benchmarks.

pub mod build;
pub mod cli;
pub mod codec;
pub mod compress;
pub mod database;
pub mod derived;
pub mod dwca;
pub mod facets;
pub mod fields;
pub mod filter;
pub mod fixture;
pub mod generate;
pub mod geojson;
pub mod http;
pub mod index;
pub mod metrics;
pub mod openapi;
pub mod query;
pub mod records;
pub mod reload;
pub mod render;
pub mod schema;
pub mod snapshot;
pub mod sync;
pub mod validate;
pub mod view;
