//! The frame every page shares: head, skip link, site navigation, footer.

use maud::{html, Markup, DOCTYPE};

use crate::model::endpoint::{API_PREFIX, OPENAPI_PATH};
use crate::model::Model;
use crate::view::View;

use super::assets;
use super::site::DOCS_PATH;

/// What a page loads besides the site's style sheet.
#[derive(Default)]
pub struct Loads {
    pub styles: &'static [&'static str],
    pub scripts: &'static [&'static str],
}

/// The map's files: Leaflet, its cluster plugin, and the script that draws.
pub const MAP: Loads = Loads {
    styles: &[
        "vendor/leaflet/leaflet.css",
        "vendor/leaflet.markercluster/MarkerCluster.css",
        "vendor/leaflet.markercluster/MarkerCluster.Default.css",
    ],
    scripts: &[
        "vendor/leaflet/leaflet.js",
        "vendor/leaflet.markercluster/leaflet.markercluster.js",
        "map.js",
    ],
};

/// The deep-zoom viewer's files: OpenSeadragon and the script that opens a
/// specimen's photographs in it.
pub const ZOOM: Loads = Loads {
    styles: &[],
    scripts: &["vendor/openseadragon/openseadragon.min.js", "zoom.js"],
};

/// A specimen's page with a place and photographs: the map's and the viewer's.
pub const MAP_AND_ZOOM: Loads = Loads {
    styles: MAP.styles,
    scripts: &[
        "vendor/leaflet/leaflet.js",
        "vendor/leaflet.markercluster/leaflet.markercluster.js",
        "map.js",
        "vendor/openseadragon/openseadragon.min.js",
        "zoom.js",
    ],
};

/// A list's files with its filters beside it: the map's, and the script that
/// folds the filters away at a phone's width.
pub const MAP_AND_FILTERS: Loads = Loads {
    styles: MAP.styles,
    scripts: &[
        "vendor/leaflet/leaflet.js",
        "vendor/leaflet.markercluster/leaflet.markercluster.js",
        "map.js",
        "fold.js",
    ],
};

/// What else a page's address answers, as its footer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alternates {
    /// The same answer as JSON (`format=json`, `Accept: application/json`).
    Json,
    /// A label sheet's preview: the sheet as PDF or CSV, not JSON.
    Sheet,
}

/// A whole page: `title` in the tab and as the heading's context, `crumbs` above
/// the content; its footer says it is also JSON.
pub fn page(view: &View, title: &str, crumbs: Markup, loads: &Loads, content: Markup) -> String {
    page_of(view, title, crumbs, loads, content, Alternates::Json)
}

/// A whole page whose address also answers `alternates`.
pub fn page_of(
    view: &View,
    title: &str,
    crumbs: Markup,
    loads: &Loads,
    content: Markup,
    alternates: Alternates,
) -> String {
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · catalogue" }
                // No icon: without this, browsers ask for /favicon.ico.
                link rel="icon" href="data:,";
                link rel="stylesheet" href=(assets::url("site.css"));
                @for style in loads.styles { link rel="stylesheet" href=(assets::url(style)); }
            }
            body {
                a.skip href="#content" { "Skip to the content" }
                header.site {
                    a.brand href="/" { "catalogue" }
                    nav aria-label="Site" {
                        ul {
                            li { a href=(specimens) { "Specimens" } }
                            li { a href=(API_PREFIX) { "All lists" } }
                            li { a href=(DOCS_PATH) { "API docs" } }
                            li { a href=(OPENAPI_PATH) { "OpenAPI" } }
                        }
                    }
                }
                main id="content" tabindex="-1" {
                    (crumbs)
                    (content)
                }
                footer.site {
                    (dataset(view))
                    "Snapshot " code { (view.header.checksum_hex()[..12]) }
                    " of " (view.last_modified) "."
                    @match alternates {
                        Alternates::Json => {
                            " Every page is also JSON: add " code { "format=json" }
                            " or ask for " code { "application/json" } "."
                        }
                        Alternates::Sheet => {
                            " This preview's sheet is a PDF (" code { "format=pdf" }
                            ") or CSV (" code { "format=csv" } ")."
                        }
                    }
                }
                @for script in loads.scripts { script src=(assets::url(script)) {} }
            }
        }
    }
    .into_string()
}

/// What the publisher says of the dataset: its title, its licence, how to
/// cite it (nothing of what it was not told).
fn dataset(view: &View) -> Markup {
    let d = &view.dataset;
    let year = chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .map(|t| t.format("%Y").to_string())
        .unwrap_or_default();
    let described = !d.title.trim().is_empty() || !d.publisher.trim().is_empty();
    html! {
        @if described {
            p.dataset {
                cite { (d.title()) }
                @if let Some(licence) = d.licence() {
                    ", licensed " a rel="license" href=(format!("{}/", licence.url().replacen("http://", "https://", 1))) { (licence.title()) }
                }
                "."
            }
            p.citation { "Cite as: " (d.citation(&year, view.history.current(), d.homepage.trim())) }
        }
    }
}

/// The trail from the front page to `here`.
pub fn crumbs(trail: &[(&str, String)], here: &str) -> Markup {
    html! {
        nav aria-label="Breadcrumb" {
            p.crumbs {
                a href="/" { "Collection" }
                @for (text, url) in trail { " › " a href=(url) { (text) } }
                " › " span aria-current="page" { (here) }
            }
        }
    }
}

/// A page saying what went wrong, with the API's message.
pub fn error(view: &View, status: u16, message: &str) -> String {
    let title = match status {
        404 => "Not found",
        410 => "Gone",
        400 => "Bad request",
        503 => "Busy",
        _ => "Error",
    };
    page(
        view,
        title,
        crumbs(&[], title),
        &Loads::default(),
        html! {
            h1 { (title) }
            p.error role="alert" { (message) }
            p { a href="/" { "Back to the collection" } }
        },
    )
}
