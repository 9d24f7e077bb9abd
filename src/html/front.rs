//! The front page (the collection at a glance) and the API docs viewer.

use maud::html;

use crate::model::endpoint::{
    API_PREFIX, ARCHIVE_PATH, EML_PATH, FEED_PATH, OPENAPI_PATH, PUBLISHING_PAGE_PATH,
    SUGGEST_PATH, VERSIONS_PATH,
};
use crate::model::Endpoint;
use crate::model::Model;
use crate::view::View;

use super::layout::{self, Loads};
use super::site::DOCS_PATH;

/// Why Swagger UI: it runs from files (no inline script, so the page keeps its
/// Content-Security-Policy), reads OpenAPI 3.1, and can send a request to this
/// same origin from the page.
const DOCS: Loads = Loads {
    styles: &["vendor/swagger-ui-dist/swagger-ui.css"],
    scripts: &["vendor/swagger-ui-dist/swagger-ui-bundle.js", "docs.js"],
};

/// The front page's script: its search box suggests as one types.
const FRONT: Loads = Loads {
    styles: &[],
    scripts: &["suggest.js"],
};

/// `/` and `/api/v2/`: a search box, every list with its count, the snapshot,
/// the documents.
pub fn home(view: &View) -> String {
    let created = chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M UTC")
        .to_string();
    let lists: Vec<(Endpoint, String, usize)> = Endpoint::all()
        .iter()
        .map(|&e| {
            (
                e,
                format!("{API_PREFIX}{}/", e.segment()),
                view.list(e).len(),
            )
        })
        .collect();
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    layout::page(
        view,
        "The collection",
        html! {},
        &FRONT,
        html! {
            h1 { "The collection" }
            p.summary {
                "Snapshot " code { (view.header.checksum_hex()) } ", built " (created) "."
            }
            // Without script, a search of the specimen list; with it, a
            // combobox whose options open their records.
            form.find method="get" action=(specimens) role="search" {
                label for="find" { "Find a taxon, place, person or specimen" }
                div.combo {
                    input #find type="search" name="search" autocomplete="off"
                        role="combobox" aria-autocomplete="list" aria-expanded="false"
                        aria-controls="find-options";
                    ul #find-options role="listbox" aria-label="Suggestions" hidden
                        data-source=(SUGGEST_PATH) {}
                }
                button type="submit" { "Search specimens" }
            }
            h2 { "Lists" }
            ul.counts {
                @for (e, url, n) in &lists {
                    @if !e.nested {
                        li { a href=(url) { (e.segment()) } " — " (n) }
                    }
                }
            }
            h2 { "Nested lists" }
            p.note { "The same records with their parents embedded whole." }
            ul.counts {
                @for (e, url, n) in &lists {
                    @if e.nested {
                        li { a href=(url) { (e.segment()) } " — " (n) }
                    }
                }
            }
            h2 { "Documents" }
            ul {
                li { a href=(DOCS_PATH) { "API documentation" } " (the OpenAPI document in Swagger UI)" }
                li { a href=(OPENAPI_PATH) { "OpenAPI document" } " (JSON)" }
                li { a href=(ARCHIVE_PATH) { "Darwin Core Archive" } " of the specimen records (zip)" }
                li { a href=(EML_PATH) { "The dataset's metadata" } " (EML, as GBIF reads it)" }
                li { a href=(VERSIONS_PATH) { "Versions" } " (version " (view.history.current()) "), and " a href=(FEED_PATH) { "their feed" } " (Atom)" }
                li { a href=(PUBLISHING_PAGE_PATH) { "Publishing" } " (" (view.held.len()) " record(s) held back)" }
            }
        },
    )
}

/// `/api/v2/docs`: Swagger UI on the served OpenAPI document.
pub fn docs(view: &View) -> String {
    layout::page(
        view,
        "API documentation",
        layout::crumbs(&[], "API documentation"),
        &DOCS,
        html! {
            h1 { "API documentation" }
            noscript { p { "The viewer needs JavaScript; the document itself is at "
                a href=(OPENAPI_PATH) { (OPENAPI_PATH) } "." } }
            div id="swagger-ui" data-spec=(OPENAPI_PATH) {}
        },
    )
}
