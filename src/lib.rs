//! # catalogue
//!
//! A read-only JSON API for a natural-history collection, served from an immutable
//! snapshot. Every response is rendered once when a snapshot is loaded; a request
//! only cuts a page out of bytes already in memory.
//!
//! The modules are layers, each importing only from the layers below it:
//! `ARCHITECTURE.md` draws the map, lists the layers and states the invariants,
//! and `tests/layers.rs` keeps it true.

pub mod checklists;
pub mod cli;
pub mod encoding;
pub mod export;
pub mod html;
pub mod iiif;
pub mod ingest;
pub mod labels;
pub mod memfile;
pub mod model;
pub mod quality;
pub mod query;
pub mod serve;
pub mod snapshot;
pub mod suggest;
pub mod versions;
pub mod view;
pub mod wagtail;
