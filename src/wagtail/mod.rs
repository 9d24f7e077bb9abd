//! Wagtail's own `pages` and `documents` endpoints, which the service registers
//! beside its lists: the live pages under the site's root (`pages`: listing,
//! one page, `find/`) and the documents, answered as Wagtail answers them.
//!
//! The feature's room: the page tree derived once per view (`tree`), the
//! `fields` parameter (`fields`), what listings share (`listing`), title search
//! (`search`), and the two endpoints (`pages`, `documents`). Its routes are
//! `serve/routes/wagtail.rs`; its OpenAPI operations are `export::openapi`'s.

pub mod documents;
mod fields;
mod listing;
pub mod pages;
mod search;
pub mod tree;

pub use tree::Tree;

/// Where the endpoints live.
pub const PAGES_PATH: &str = "/api/v2/pages/";
pub const DOCUMENTS_PATH: &str = "/api/v2/documents/";
