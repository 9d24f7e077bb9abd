//! Two layouts an earlier release wrote under a format number that a later
//! layout kept: read as they were written, never guessed at. A part is read
//! as today's first; only where that fails, as the early layout.
//!
//! - Format 6 before Wagtail's sites were keyed by host and port: each site
//!   began with its id (8e16616's sample). The id is dropped.
//! - Format 11 before the dataset's `occurrence_id`: read by `dataset11`,
//!   with format 11's other description (9365847's sample). It reads as the
//!   default rule (empty), which is what a description without it means.

use serde::Deserialize;

use super::codec;
use crate::model::wagtail::{Document, Placement, Site, Wagtail};

/// Wagtail's part of format 6 as first written.
#[derive(Deserialize)]
struct Wagtail6 {
    sites: Vec<Site6>,
    pages: Vec<Placement>,
    page_types: Vec<(i64, String)>,
    locales: Vec<(i64, String)>,
    documents: Vec<Document>,
}

/// A site of format 6 as first written: with its id.
#[derive(Deserialize)]
struct Site6 {
    #[allow(dead_code)]
    id: i64,
    hostname: String,
    port: i64,
    root_page: i64,
    is_default: bool,
}

/// Decodes Wagtail's part of a format 6 file whose sites carry their ids.
pub fn wagtail6(bytes: &[u8]) -> Result<Wagtail, String> {
    let w: Wagtail6 = codec::decode(bytes)?;
    let mut wagtail = Wagtail {
        sites: (w.sites.into_iter())
            .map(|s| Site {
                hostname: s.hostname,
                port: s.port,
                root_page: s.root_page,
                is_default: s.is_default,
            })
            .collect(),
        pages: w.pages,
        page_types: w.page_types,
        locales: w.locales,
        documents: w.documents,
    };
    wagtail.canonicalise();
    Ok(wagtail)
}
