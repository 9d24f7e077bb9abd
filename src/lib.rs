//! # catalogue
//!
//! A read-only JSON API for a natural-history collection, served from an immutable
//! snapshot. Every response is rendered once when a snapshot is loaded; a request
//! only cuts a page out of bytes already in memory.
//!
//! The modules are layers, each importing only from the layers below it
//! (`ARCHITECTURE.md` draws the map and states the invariants; `tests/layers.rs`
//! keeps it true):
//!
//! | layer | module | what it deals with |
//! | --- | --- | --- |
//! | 7 | [`cli`] | the command line |
//! | 6 | [`serve`] | HTTP: routes, responses, compression, metrics, hot reload |
//! | 5 | [`export`], [`html`], [`labels`] | the OpenAPI document and the Darwin Core Archive; the pages for people; specimen label sheets |
//! | 4 | [`query`] | a request's parameters, parsed into a plan, run against a view |
//! | 3 | [`view`], [`ingest`] | a loaded snapshot, indexed and rendered; reading fixtures and databases into a snapshot |
//! | 2 | [`snapshot`] | the file: header, checksum, encoded records |
//! | 1 | [`model`] | the models, their field tables, records, endpoints, rules, validation |
//! | 0 | [`encoding`], [`memfile`] | JSON literals, percent-encoding, instants and dates, hex; bytes in memory files, sent without a copy |

pub mod cli;
pub mod encoding;
pub mod export;
pub mod html;
pub mod ingest;
pub mod labels;
pub mod memfile;
pub mod model;
pub mod query;
pub mod serve;
pub mod snapshot;
pub mod view;
