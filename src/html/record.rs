//! A record as a page, written from the view's rows: what a reader looks for
//! first (a specimen's card, a taxon's name and classification, a place and
//! where it lies, an image itself), the photographs, what the collection holds
//! of a taxon or a place, the record's place on a map, and then every field,
//! labelled in words, for those who want them.

use maud::{html, Markup};

use crate::model::endpoint::API_PREFIX;
use crate::model::generalised::{Grid, Treatment};
use crate::model::{Endpoint, Model};
use crate::view::{chain, View};

use super::gallery::{figure, gallery};
use super::holdings::{self, Holdings};
use super::layout::{self, Loads, MAP, MAP_AND_ZOOM, ZOOM};
use super::map::{self, Markers};
use super::quality;
use super::site::Site;
use super::specimen;
use super::taxon;
use super::values::{related, row_fields, row_label, text, url, words};

/// The most photographs a taxon's or a place's gallery shows.
const GALLERY: usize = 12;

/// A record's page: which record, where media URLs start, and, for a taxon or a
/// place, what the collection holds of it.
pub struct RecordPage<'a> {
    pub endpoint: Endpoint,
    pub pos: u32,
    pub media_base: &'a str,
    pub holdings: Option<Holdings>,
    /// The page's own address, as a report of a problem names it.
    pub url: &'a str,
}

/// What a record of `model` is, in words ("Specimen record").
fn kind(model: Model) -> String {
    let mut out = String::new();
    for c in model.class_name().chars() {
        if c.is_ascii_uppercase() && out.ends_with(|p: char| p.is_ascii_lowercase()) {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Images whose `field` names the record: up to [`GALLERY`], those `keep` takes.
fn images_of(view: &View, field: &str, of: (Model, u32), keep: impl Fn(u32) -> bool) -> Vec<u32> {
    view.images_naming(field, of)
        .iter()
        .copied()
        .filter(|&p| keep(p))
        .take(GALLERY)
        .collect()
}

/// Whether the image at `pos` is a photograph of a live insect.
fn live_insect(view: &View, pos: u32) -> bool {
    text(view, Model::Image, pos, "image_type") == Some("insect")
}

/// A taxon's photographs: its featured image, else the live-insect photographs
/// of the species under it (down the ranks' groups, stopping at [`GALLERY`]).
fn taxon_photos(view: &View, rank: Model, pos: u32) -> Vec<u32> {
    if let Some((_, image)) = related(view, rank, pos, "featured_image") {
        return vec![image];
    }
    chain::species_under(view, rank, pos)
        .into_iter()
        .flat_map(|species| view.images_naming("species", (Model::Species, species)))
        .copied()
        .filter(|&p| live_insect(view, p))
        .take(GALLERY)
        .collect()
}

/// What heads the page of a record of `model`: its heading and what comes first.
fn lead(view: &View, model: Model, pos: u32, media_base: &str) -> (Markup, Markup) {
    let title = row_label(view, model, pos);
    match model {
        Model::SpecimenRecord => (html! { (title) }, specimen::card(view, pos, media_base)),
        rank if rank.rank_name().is_some() => (
            html! { (taxon::name(view, rank, pos)) },
            html! {
                p.rank {
                    (words(rank.rank_name().unwrap_or_default()))
                    @if let Some(common) = text(view, rank, pos, "common_name") { " · " (common) }
                }
                (taxon::classification(view, &taxon::above(view, rank, pos)))
                (gallery(view, "Photographs", &taxon_photos(view, rank, pos), media_base))
            },
        ),
        Model::Country | Model::State | Model::County | Model::Locality => {
            let within = chain::chain(view, model, pos);
            let field = match model {
                Model::Country => "country",
                Model::State => "state",
                Model::County => "county",
                _ => "locality",
            };
            let photos = images_of(view, field, (model, pos), |_| true);
            (
                html! { (title) },
                html! {
                    @if !within.is_empty() {
                        p.within {
                            "In "
                            @for (i, &(m, p)) in within.iter().enumerate() {
                                @if i > 0 { ", " }
                                a href=(url(view, m, p)) { (row_label(view, m, p)) }
                            }
                            "."
                        }
                    }
                    (gallery(view, "Photographs taken here", &photos, media_base))
                },
            )
        }
        Model::Image => (html! { (title) }, figure(view, pos, media_base, 800)),
        _ => (html! { (title) }, html! {}),
    }
}

/// A person's identifiers, as the dataset file's `people` gives them (by
/// the person's id, or their full name): links to their ORCID and Wikidata
/// records; nothing where it gives none.
fn identifiers(view: &View, pos: u32) -> Markup {
    let table = view.table(Model::Person);
    let id = table.id(pos);
    let name = Model::Person
        .field_index("full_name")
        .and_then(|f| table.get(pos as usize, f).as_str())
        .unwrap_or_default()
        .trim();
    let given = view.dataset.people.iter().find(|p| match p.person {
        Some(person) => person == id,
        None => !name.is_empty() && p.name.trim() == name,
    });
    let Some(person) = given else {
        return html! {};
    };
    html! {
        p.identifiers {
            "Identifiers: "
            @if let (Some(id), Some(url)) = (person.orcid_id(), person.orcid_url()) {
                "ORCID " a href=(url) rel="me" { (id) }
                @if person.wikidata_id().is_some() { ", " }
            }
            @if let (Some(id), Some(url)) = (person.wikidata_id(), person.wikidata_url()) {
                "Wikidata " a href=(url) rel="me" { (id) }
            }
            " (as the archive's recordedByID and identifiedByID give them)."
        }
    }
}

/// Where a reader reports a problem with the record (the dataset's
/// `report_url`, else a `mailto:` to its contact), with its USI where it has
/// one; `None` without either.
fn report_link(view: &View, model: Model, pos: u32, url: &str) -> Option<String> {
    let table = view.table(model);
    let usi = (model.field_index("usi"))
        .and_then(|f| table.get(pos as usize, f).as_str())
        .unwrap_or_default();
    let reported = crate::model::dataset::Reported {
        usi,
        id: table.id(pos),
        version: view.history.current(),
        url,
    };
    view.dataset.report_link(&reported)
}

/// The page of the record at `page.pos` of `page.endpoint`'s model.
pub fn record(site: &Site, view: &View, page: &RecordPage) -> String {
    let model = page.endpoint.model;
    let pos = page.pos;
    let segment = page.endpoint.segment();
    let list = format!("{API_PREFIX}{segment}/");
    let id = view.table(model).id(pos);
    let title = match model.rank_name() {
        Some(_) => taxon::scientific(view, model, pos).to_string(),
        None => row_label(view, model, pos).into_owned(),
    };
    let (heading, first) = lead(view, model, pos, page.media_base);
    let point = match page.holdings {
        Some(_) => None,
        None => view.points.get(model, pos as usize),
    };
    let records = format!("{API_PREFIX}{}/", model.path());
    // A point a sensitive place's rule put on a grid is drawn as its cell.
    let cell = match model {
        Model::SpecimenRecord => crate::view::generalised::treatment(view, model, pos),
        Model::Gps => Treatment::of_id(view.table(model).id(pos)),
        _ => None,
    }
    .and_then(|t| match t {
        Treatment::Grid(g) => Some(g),
        Treatment::Withhold => None,
    });
    let checklist = model != Model::Subspecies;
    let content = html! {
        h1 { (heading) }
        p.summary {
            (kind(model)) " " (id) ". "
            span.formats { a href="?format=json" type="application/json" { "JSON" } }
        }
        (first)
        @if model == Model::Person {
            (identifiers(view, pos))
        }
        @if let Some(holdings) = &page.holdings {
            (holdings::section(site, holdings, checklist))
        }
        @if let (Some([lng, lat]), Some(grid)) = (point, cell) {
            (map::map(site, "Place", "Map of the grid cell the record's place is given as",
                Markers::Drawn { features: &cell_feature(grid, lat, lng) },
                html! { p { "Within the " (grid.text()) "° grid cell centred on " (lat) ", " (lng) "." } }))
        } @else if let Some([lng, lat]) = point {
            (map::map(site, "Place", "Map of the record's place",
                Markers::Point { lat, lng, id, records: &records },
                html! { p { (lat) ", " (lng) } }))
        }
        @if model.policy().quality {
            (quality::section(view, pos as usize))
        }
        details.all-fields open[model != Model::SpecimenRecord && page.holdings.is_none()] {
            summary { h2 { "Every field" } }
            (row_fields(view, model, pos as usize, page.media_base))
        }
        @if let Some(link) = report_link(view, model, pos, page.url) {
            p.report { a href=(link) rel="nofollow" { "Report a problem with this record" } }
        }
    };
    let with_map = point.is_some() || page.holdings.as_ref().is_some_and(|h| h.seasons.total > 0);
    // A specimen's photographs open in the deep-zoom viewer.
    let zoom = model == Model::SpecimenRecord && !specimen::photographs(view, pos).is_empty();
    let loads = match (with_map, zoom) {
        (true, true) => MAP_AND_ZOOM,
        (true, false) => MAP,
        (false, true) => ZOOM,
        (false, false) => Loads::default(),
    };
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

/// A grid cell as a GeoJSON feature collection of its outline, for the map.
fn cell_feature(grid: Grid, lat: f64, lng: f64) -> String {
    let half = 0.5 / 10f64.powi(grid.decimals() as i32);
    let (s, n, w, e) = (lat - half, lat + half, lng - half, lng + half);
    serde_json::json!({
        "type": "FeatureCollection",
        "features": [{
            "type": "Feature",
            "properties": {"kind": "cell", "label": format!("{}° grid cell", grid.text())},
            "geometry": {"type": "Polygon", "coordinates": [[[w, s], [e, s], [e, n], [w, n], [w, s]]]},
        }],
    })
    .to_string()
}
