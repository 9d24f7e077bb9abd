//! What the served snapshot published, and what its publisher held back and
//! why (`/api/v2/publishing/` as JSON, and `/publishing/` as a page): each
//! record held back with a link to it, its rule and value, how it is kept,
//! since which version, and how to fix it; and what stands in the way of
//! publishing now (`problems`: a refused dataset file, failed ticks, a
//! damaged snapshot, as `snapshot::status` says them).

use maud::html;
use serde_json::json;

use crate::html::layout::{self, Loads};
use crate::model::endpoint::{API_PREFIX, PUBLISHING_PATH, QUALITY_PAGE_PATH, VERSIONS_PATH};
use crate::model::held::Holding;
use crate::snapshot::status::Status;
use crate::query::{ApiError, Params};
use crate::view::View;

use super::list::{json_only, list_name, only};

/// How a curator releases a record held back.
pub const FIX: &str = "Edit the record in the service's admin so that the rule holds; the next publication (sync's next tick) publishes it and takes it off this list.";

/// `/api/v2/publishing/`: takes `format=json` alone.
pub fn publishing_request(params: &Params) -> Result<(), ApiError> {
    only(params, &["format"], "the publishing report")?;
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

/// The report as JSON, with the problems `status` says.
pub fn publishing_json(view: &View, status: &Status) -> String {
    let held: Vec<serde_json::Value> = (view.held.iter())
        .map(|h| {
            json!({
                "list": list_name(&h.model),
                "id": h.id,
                "url": url(h),
                "field": h.field,
                "problem": h.problem,
                "kept": h.kept,
                "since_version": h.since,
            })
        })
        .collect();
    json!({
        "version": view.history.current(),
        "checksum": view.header.checksum_hex(),
        "published_at": published_at(view),
        "total_count": held.len(),
        "held": held,
        "fix": FIX,
        "problems": problems_json(status),
        "failed_ticks": status.failed_ticks,
    })
    .to_string()
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
