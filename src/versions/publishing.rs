//! What the served snapshot published, and what its publisher held back and
//! why (`/api/v2/publishing/` as JSON, and `/publishing/` as a page): each
//! record held back with a link to it, its rule and value, how it is kept,
//! since which version, and how to fix it; and what stands in the way of
//! publishing now (`problems`: a refused dataset file, failed ticks, a
//! damaged snapshot, as `snapshot::status` says them).

use bytes::Bytes;
use maud::html;
use serde_json::json;

use crate::html::layout::{self, Loads};
use crate::model::endpoint::{API_PREFIX, PUBLISHING_PATH, QUALITY_PAGE_PATH, VERSIONS_PATH};
use crate::model::held::Holding;
use crate::query::{ApiError, Params};
use crate::snapshot::status::Status;
use crate::view::{Derive, View};

use super::list::{json_only, list_name, only, Page};

/// How a curator releases a record held back.
pub const FIX: &str = "Edit the record in the service's admin so that the rule holds; the next publication (sync's next tick) publishes it and takes it off this list.";

/// `/api/v2/publishing/`: takes `format=json`, and `limit` and `offset` as
/// the lists take them; `None` without either: the whole report.
pub fn publishing_request(params: &Params) -> Result<Option<Page>, ApiError> {
    only(
        params,
        &["limit", "offset", "format"],
        "the publishing report",
    )?;
    json_only(params)?;
    match params.get("limit").is_some() || params.get("offset").is_some() {
        true => Page::parse(params).map(Some),
        false => Ok(None),
    }
}

/// `/publishing/`, the page: takes `format` alone.
pub fn page_request(params: &Params) -> Result<(), ApiError> {
    only(params, &["format"], "the publishing report's page")?;
    json_only(params)
}

/// The path of a held record's own item, where its model has a list.
fn url(h: &Holding) -> Option<String> {
    h.model()
        .filter(|m| m.stored())
        .map(|m| format!("{API_PREFIX}{}/{}/", m.path(), h.id))
}

/// When the snapshot was made, RFC 3339 in UTC.
fn published_at(view: &View) -> String {
    chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
        .unwrap_or_default()
}

/// The problems standing, as JSON.
fn problems_json(status: &Status) -> Vec<serde_json::Value> {
    (status.problems.iter())
        .map(|p| {
            json!({
                "kind": p.kind.name(),
                "found_by": p.by,
                "since": p.since,
                "problem": p.said,
            })
        })
        .collect()
}

/// The report as JSON, made once per view: the records held back rendered
/// one after another (each answer a slice of them), the whole report's
/// bytes, and the envelope around them. An answer is its parts, never
/// copied: the whole report for no `limit`, a page's slice of the items
/// otherwise, with what stands in the way of publishing said after the rest
/// (which changes without the view: its envelope is made again when any
/// problem stands).
pub struct Report {
    /// The envelope before the items, through `"held":[`.
    head: Bytes,
    /// The items, comma-separated.
    items: Bytes,
    /// Where each item ends in `items` (its comma excluded).
    ends: Vec<usize>,
    /// The envelope after the items, from `]`.
    tail: Bytes,
    /// How many records are held back.
    count: usize,
    /// The view's version, checksum and publication time, for an envelope
    /// made again (a problem said).
    version: u64,
    checksum: String,
    published_at: String,
}

/// How the envelope is cut around the items.
const HELD: &str = "\"held\":[]";

impl Report {
    /// The envelope, saying `status`, cut around the items.
    fn envelope(&self, count: usize, status: &Status) -> (Bytes, Bytes) {
        envelope(
            self.version,
            &self.checksum,
            &self.published_at,
            count,
            status,
        )
    }

    /// How many records are held back.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The answer's parts: the whole report (`page` `None`), or the items
    /// `page` asks for; `status` said as `problems` and `failed_ticks`.
    pub fn parts(&self, page: Option<Page>, status: &Status) -> Vec<Bytes> {
        let (head, tail) = match *status == Status::default() {
            true => (self.head.clone(), self.tail.clone()),
            false => self.envelope(self.count, status),
        };
        let items = match page {
            None => self.items.clone(),
            Some(page) => {
                let first = page.offset.min(self.count);
                let last = page.offset.saturating_add(page.limit).min(self.count);
                match first < last {
                    true => {
                        let start = match first {
                            0 => 0,
                            n => self.ends[n - 1] + 1,
                        };
                        self.items.slice(start..self.ends[last - 1])
                    }
                    false => Bytes::new(),
                }
            }
        };
        vec![head, items, tail]
    }
}

/// The report's envelope around an empty `held`, cut there.
fn envelope(
    version: u64,
    checksum: &str,
    published_at: &str,
    count: usize,
    status: &Status,
) -> (Bytes, Bytes) {
    let text = json!({
        "version": version,
        "checksum": checksum,
        "published_at": published_at,
        "total_count": count,
        "held": [],
        "fix": FIX,
        "problems": problems_json(status),
        "failed_ticks": status.failed_ticks,
    })
    .to_string();
    let at = text
        .find(HELD)
        .expect("the envelope holds the items' array");
    let open = at + HELD.len() - 1;
    let bytes = Bytes::from(text);
    (bytes.slice(..open), bytes.slice(open..))
}

impl Derive for Report {
    fn derive(view: &View) -> Report {
        let mut items = Vec::new();
        let mut ends = Vec::with_capacity(view.held.len());
        for (i, h) in view.held.iter().enumerate() {
            if i > 0 {
                items.push(b',');
            }
            let item = json!({
                "list": list_name(&h.model),
                "id": h.id,
                "url": url(h),
                "field": h.field,
                "problem": h.problem,
                "kept": h.kept,
                "since_version": h.since,
            });
            serde_json::to_writer(&mut items, &item).expect("JSON is written to memory");
            ends.push(items.len());
        }
        let (version, checksum, published_at) = (
            view.history.current(),
            view.header.checksum_hex(),
            published_at(view),
        );
        let count = ends.len();
        let (head, tail) = envelope(version, &checksum, &published_at, count, &Status::default());
        Report {
            head,
            items: Bytes::from(items),
            ends,
            tail,
            count,
            version,
            checksum,
            published_at,
        }
    }
}

/// The report as a page, with the problems `status` says.
pub fn page(view: &View, status: &Status) -> String {
    let held = &view.held;
    layout::page(
        view,
        "Publishing",
        layout::crumbs(&[], "Publishing"),
        &Loads::default(),
        html! {
            h1 { "Publishing" }
            p.summary {
                "Version " a href=(VERSIONS_PATH) { (view.history.current()) }
                ", published " (published_at(view)) ". "
                span.formats { a href=(PUBLISHING_PATH) type="application/json" { "JSON" } }
            }
            @if !status.problems.is_empty() {
                h2 { "In the way of publishing" }
                ul.problems {
                    @for p in &status.problems {
                        li { strong { (p.kind.name()) } " (found by " (p.by) ", since " (p.since) "): " (p.said) }
                    }
                }
            }
            @if held.is_empty() {
                p { "Every record read was published: nothing is held back." }
            } @else {
                p {
                    (held.len()) " record(s) held back: each fails a rule, and is served as it was "
                    "last published (or not at all, where it never was) while every other record is "
                    "published. " (FIX)
                }
                div.table-wrap {
                    table.held {
                        thead { tr {
                            th scope="col" { "Record" } th scope="col" { "Field" }
                            th scope="col" { "Problem" } th scope="col" { "Kept" }
                            th scope="col" { "Since version" }
                        } }
                        tbody {
                            @for h in held.iter() {
                                tr {
                                    td {
                                        @match url(h) {
                                            Some(url) => a href=(url) { (list_name(&h.model)) " " (h.id) },
                                            None => { (h.model) " " (h.id) },
                                        }
                                    }
                                    td { code { (h.field) } }
                                    td { (h.problem) }
                                    td { (h.kept().map_or("", |k| k.meaning())) }
                                    td { (h.since) }
                                }
                            }
                        }
                    }
                }
            }
            p { "What is checked in each specimen besides: " a href=(QUALITY_PAGE_PATH) { "data quality" } "." }
        },
    )
}
