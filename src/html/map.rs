//! A map on a page: the element `map.js` draws into, with where its markers come
//! from, and what it draws under them: the operator's tiles (`--map-tiles`), else
//! the land and borders this server ships (Natural Earth, public domain), so a
//! map shows the world without asking another host for anything.

use maud::{html, Markup};

use crate::model::Model;
use crate::query::Params;

use super::assets;
use super::site::Site;

/// The basemap's file among the assets.
const BASEMAP: &str = "vendor/world-atlas/world.json";

/// The most records a map fetches (as GeoJSON, for the page's question).
pub const MAP_RECORDS: usize = 10_000;

/// The GeoJSON question of a map of `model`'s records that `question` finds: the
/// fields a marker shows, to [`MAP_RECORDS`].
pub fn geojson(question: &Params, model: Model) -> Params {
    question
        .with("format", "geojson")
        .with("fields", model.policy().map_fields)
        .with("limit", &MAP_RECORDS.to_string())
}

/// Where a map's markers come from.
pub enum Markers<'a> {
    /// One record's place.
    Point {
        lat: f64,
        lng: f64,
        id: i64,
        /// The records' pages, which a marker links to by id.
        records: &'a str,
    },
    /// The GeoJSON answer of a list's query.
    Query { geojson: &'a str, records: &'a str },
    /// Features drawn as they are, not clustered (a GeoJSON feature collection:
    /// points with a `kind` and a `label`, and lines).
    Drawn { features: &'a str },
}

/// The map section: a heading, the map, and a line that says what it shows.
pub fn map(site: &Site, heading: &str, label: &str, markers: Markers, note: Markup) -> Markup {
    let basemap = site.map_tiles.is_none().then(|| assets::url(BASEMAP));
    let (lat, lng, id, geojson, records, features) = match markers {
        Markers::Point {
            lat,
            lng,
            id,
            records,
        } => (Some(lat), Some(lng), Some(id), None, records, None),
        Markers::Query { geojson, records } => (None, None, None, Some(geojson), records, None),
        Markers::Drawn { features } => (None, None, None, None, "", Some(features)),
    };
    html! {
        section aria-labelledby="map-heading" {
            h2 id="map-heading" { (heading) }
            (note)
            div.map id="map" role="region" aria-label=(label)
                data-lat=[lat] data-lng=[lng] data-id=[id] data-geojson=[geojson]
                data-features=[features]
                data-records=(records)
                data-basemap=[basemap]
                data-tiles=[site.map_tiles.as_deref()]
                data-attribution=[site.map_attribution.as_deref()] {}
            p.note id="map-status" aria-live="polite" {}
            @if site.map_tiles.is_none() {
                p.note.credit { "Land and borders: Natural Earth, 1:110m (public domain)." }
            }
        }
    }
}
