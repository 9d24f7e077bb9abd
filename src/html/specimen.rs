//! A specimen's page reads like its label and its catalogue card: the taxon by
//! name, one sentence for the collecting event ("4 October 2019, Audubon Park,
//! Orleans Par., Louisiana, USA, R. Alvarez, net"), who determined and prepared
//! it, and its photographs.

use maud::{html, Markup};

use crate::model::generalised::Treatment;
use crate::model::Model;
use crate::view::place::Place;
use crate::view::View;

use super::gallery::figure;
use super::taxon;
use super::values::{related, row_label, text, url};

const SPECIMEN: Model = Model::SpecimenRecord;

/// The specimen's taxon: the rank it is identified to, and where.
pub fn taxon_of(view: &View, pos: u32) -> Option<(Model, u32)> {
    related(view, SPECIMEN, pos, "taxon")
}

/// Where it was collected, from the finest place to the country.
fn place(view: &View, pos: u32) -> Vec<String> {
    let p = Place::of_specimen(view, pos as usize);
    let mut out = Vec::new();
    // A generalised locality has no words: it stands for the place withheld.
    if let Some(l) = p.locality.filter(|_| generalised(view, pos).is_none()) {
        out.push(row_label(view, Model::Locality, l).into_owned());
    }
    if let Some(c) = p.county {
        out.push(
            text(view, Model::County, c, "full_name")
                .or_else(|| text(view, Model::County, c, "name"))
                .unwrap_or_default()
                .to_string(),
        );
    }
    for (model, at) in [(Model::State, p.state), (Model::Country, p.country)] {
        if let Some(at) = at {
            out.push(
                text(view, model, at, "name")
                    .unwrap_or_default()
                    .to_string(),
            );
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// What a sensitive place's rule did to the specimen's place, where one
/// covers it (told by its locality's id: `model::generalised`).
pub fn generalised(view: &View, pos: u32) -> Option<Treatment> {
    crate::view::generalised::treatment(view, SPECIMEN, pos)
}

/// The collecting event in one line: date, place, collectors, method.
pub fn event(view: &View, pos: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(date) = text(view, SPECIMEN, pos, "full_date") {
        parts.push(date.to_string());
    }
    parts.extend(place(view, pos));
    if let Some(who) = text(view, SPECIMEN, pos, "collectors") {
        parts.push(who.to_string());
    }
    if let Some(method) = text(view, SPECIMEN, pos, "method") {
        parts.push(method.to_lowercase());
    }
    match parts.is_empty() {
        true => "Where and when it was collected is not recorded.".to_string(),
        false => format!("{}.", parts.join(", ")),
    }
}

/// A word with its first letter in capitals ("spread" to "Spread").
fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A person, linked to their page.
fn person(view: &View, at: (Model, u32)) -> Markup {
    html! { a href=(url(view, at.0, at.1)) { (row_label(view, at.0, at.1)) } }
}

/// The specimen's photographs: the images that record it.
pub fn photographs(view: &View, pos: u32) -> Vec<u32> {
    view.images_naming("specimen_record", (SPECIMEN, pos))
        .to_vec()
}

/// The deep-zoom viewer of the specimen's photographs and its IIIF manifest,
/// hidden until `zoom.js` finds the manifest served (with `--media-dir`).
fn zoom(view: &View, pos: u32) -> Markup {
    let id = view.table(SPECIMEN).id(pos);
    let manifest = format!("/iiif/manifests/{id}");
    html! {
        div #zoom data-manifest=(manifest) hidden {
            h3 { "Zoom in" }
            div #zoom-pages {}
            div #zoom-viewer role="img" aria-label="The photographs, to zoom into" {}
            p.iiif {
                "Its "
                a href=(format!("{manifest}?manifest={manifest}")) type="application/ld+json" { "IIIF manifest" }
                " opens in any IIIF viewer (drag the link into one)."
            }
        }
    }
}

/// The top of the page: taxon, classification, the event, determination and
/// preparation, and the photographs.
pub fn card(view: &View, pos: u32, media_base: &str) -> Markup {
    let identified = taxon_of(view, pos);
    let determiner = related(view, SPECIMEN, pos, "determiner");
    let determined = SPECIMEN
        .field_index("determined_year")
        .and_then(|f| view.table(SPECIMEN).get(pos as usize, f).as_int());
    let preparer = related(view, SPECIMEN, pos, "preparer");
    let preparation = text(view, SPECIMEN, pos, "preparation");
    let prepared = text(view, SPECIMEN, pos, "preparation_date");
    let details: Vec<&str> = ["sex", "stage"]
        .iter()
        .filter_map(|f| text(view, SPECIMEN, pos, f))
        .filter(|s| *s != "unknown")
        .collect();
    let photos = photographs(view, pos);
    html! {
        div.card {
            @match identified {
                Some((rank, at)) => {
                    (taxon::classification(view, &taxon::above(view, rank, at)))
                    p.identified {
                        a href=(url(view, rank, at)) { (taxon::name(view, rank, at)) }
                        @if let Some(common) = text(view, rank, at, "common_name") { " · " (common) }
                    }
                }
                None => p.identified { "Not identified." }
            }
            p.event { (event(view, pos)) }
            @if let Some(t) = generalised(view, pos) { p.generalised { (t.sentence()) } }
            @if !details.is_empty() { p { (details.join(", ")) } }
            @if determiner.is_some() || determined.is_some() {
                p {
                    "Determined"
                    @if let Some(d) = determiner { " by " (person(view, d)) }
                    @if let Some(y) = &determined { " in " (y) }
                    "."
                }
            }
            @if preparation.is_some() || preparer.is_some() {
                p {
                    (preparation.map_or("Prepared".to_string(), capitalised))
                    @if let Some(d) = preparer { " by " (person(view, d)) }
                    @if let Some(d) = prepared { ", " (d) }
                    "."
                }
            }
        }
        @if !photos.is_empty() {
            section.gallery aria-labelledby="photos-heading" {
                h2 id="photos-heading" { "Photographs" }
                div.photos.large {
                    @for &image in &photos { (figure(view, image, media_base, 600)) }
                }
                (zoom(view, pos))
            }
        }
    }
}
