//! How a taxon is named on a page: its scientific name (in italics from the
//! genus down, as naturalists write it) with its authority, its common name, and
//! the classification above it as a trail of links.

use maud::{html, Markup};

use crate::model::endpoint::API_PREFIX;
use crate::model::Model;
use crate::view::{Value, View};

/// A text field of a record, when it holds text.
pub fn text<'v>(view: &'v View, model: Model, pos: u32, name: &str) -> Option<&'v str> {
    let f = model.field_index(name)?;
    view.table(model)
        .get(pos as usize, f)
        .as_str()
        .filter(|s| !s.trim().is_empty())
}

/// The record a field of the record at `pos` relates to.
pub fn related(view: &View, model: Model, pos: u32, name: &str) -> Option<(Model, u32)> {
    let f = model.field_index(name)?;
    match view.table(model).get(pos as usize, f) {
        Value::Ref(m, p) => Some((m, p)),
        _ => None,
    }
}

/// A record's page.
pub fn url(view: &View, model: Model, pos: u32) -> String {
    format!(
        "{API_PREFIX}{}/{}/",
        model.path(),
        view.table(model).id(pos)
    )
}

/// Whether names of this rank are written in italics.
fn italic(rank: Model) -> bool {
    matches!(rank, Model::Genus | Model::Species | Model::Subspecies)
}

/// The scientific name of a taxon: binomial or trinomial where it has one.
pub fn scientific(view: &View, rank: Model, pos: u32) -> &str {
    text(view, rank, pos, "trinomial")
        .or_else(|| text(view, rank, pos, "binomial"))
        .or_else(|| text(view, rank, pos, "name"))
        .unwrap_or("")
}

/// The name as a naturalist writes it: italics from the genus down, then the
/// authority in roman.
pub fn name(view: &View, rank: Model, pos: u32) -> Markup {
    let name = scientific(view, rank, pos);
    html! {
        span.taxon-name {
            @if italic(rank) { i { (name) } } @else { (name) }
            @if let Some(authority) = text(view, rank, pos, "authority") {
                " " span.authority { (authority) }
            }
        }
    }
}

/// The taxa above this one, from the order down (not this one).
pub fn above(view: &View, rank: Model, pos: u32) -> Vec<(Model, u32)> {
    let mut out = Vec::new();
    let mut at = (rank, pos);
    while let Some((key, _)) = at.0.parent() {
        match related(view, at.0, at.1, key) {
            Some(up) => {
                out.push(up);
                at = up;
            }
            None => break,
        }
    }
    out.reverse();
    out
}

/// The classification above a taxon as a trail of links, each with its rank.
pub fn classification(view: &View, chain: &[(Model, u32)]) -> Markup {
    html! {
        @if !chain.is_empty() {
            nav.classification aria-label="Classification" {
                ol {
                    @for &(rank, pos) in chain {
                        li {
                            span.rank { (rank.rank_name().unwrap_or_default()) " " }
                            a href=(url(view, rank, pos)) {
                                @if italic(rank) { i { (scientific(view, rank, pos)) } } @else { (scientific(view, rank, pos)) }
                            }
                        }
                    }
                }
            }
        }
    }
}
