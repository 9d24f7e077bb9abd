//! The integration tests, as one crate: each file of `tests/` is a module of it,
//! so the library and its dependencies are linked into one test binary, not one
//! per file (25 links of a ~235 MB debug binary each, before).
//! `cargo test` runs them all; `cargo test --test integration reload::` one file.

// `serde_json::json!` with the larger items of the media tests.
#![recursion_limit = "256"]

mod build;
mod checklist_area;
mod common;
mod database;
mod docs;
mod downloads;
mod dwca;
mod endpoints;
mod filters;
mod formats;
mod forms;
mod fragments;
mod fuzz_query;
mod gbif;
mod geojson;
mod golden;
mod head;
mod hostile;
mod http;
mod identifiers;
mod iiif;
mod images;
mod indexed;
mod labels;
mod layers;
mod many;
mod media;
mod model;
mod naturalist;
mod old_formats;
mod openapi;
mod origin;
mod pages;
mod paging;
mod people_ids;
mod photographs;
mod published;
mod quality;
mod question_feed;
mod questions;
mod registry;
mod reload;
mod replay;
mod report;
mod sensitive;
mod short;
mod snapshot;
mod startup;
mod stdout;
mod suggest;
mod versions;
mod wagtail;
