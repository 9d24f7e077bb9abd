//! A record as a page: every field, related records as links (embedded ones field
//! by field), and its place on a map where it has one.

use maud::html;
use serde_json::{Map, Value as Json};

use crate::model::endpoint::API_PREFIX;
use crate::model::Endpoint;
use crate::view::View;

use super::layout::{self, Loads, MAP};
use super::values::{fields, label};
use super::Site;

/// The page of the record at `pos` of `endpoint`'s model, from its item.
pub fn record(
    site: &Site,
    view: &View,
    endpoint: Endpoint,
    pos: usize,
    item: &Map<String, Json>,
) -> String {
    let model = endpoint.model;
    let list = format!("{API_PREFIX}{}/", endpoint.segment());
    let id = item.get("id").cloned().unwrap_or(Json::Null);
    let title = label(item);
    let point = view.points.get(model, pos);
    let records = format!("{API_PREFIX}{}/", model.path());
    let content = html! {
        h1 { (title) }
        p.summary {
            (model.class_name()) " " (id) ". "
            span.formats { a href="?format=json" type="application/json" { "JSON" } }
        }
        @if let Some([lng, lat]) = point {
            section aria-labelledby="map-heading" {
                h2 id="map-heading" { "Place" }
                p { (lat) ", " (lng) }
                div.map id="map" role="region" aria-label="Map of the record's place"
                    data-lat=(lat) data-lng=(lng) data-id=(id) data-records=(records)
                    data-tiles=[site.map_tiles.as_deref()]
                data-attribution=[site.map_attribution.as_deref()] {}
                p.note id="map-status" aria-live="polite" {
                    @if site.map_tiles.is_none() { "No map tiles are configured (--map-tiles): the marker only." }
                }
            }
        }
        h2 { "Fields" }
        (fields(Some((model, endpoint.shape())), item))
    };
    let loads = match point {
        Some(_) => MAP,
        None => Loads::default(),
    };
    let segment = endpoint.segment();
    layout::page(
        view,
        &title,
        layout::crumbs(
            &[("Lists", API_PREFIX.to_string()), (&segment, list)],
            &title,
        ),
        &loads,
        content,
    )
}
