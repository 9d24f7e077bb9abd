//! How a taxon is named on a page: its scientific name (in italics from the
//! genus down, as naturalists write it) with its authority, its common name, and
//! the classification above it as a trail of links.

use maud::{html, Markup};

use crate::model::Model;
use crate::view::{chain, View};

use super::values::{text, url};

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
    let mut up = chain::chain(view, rank, pos);
    up.reverse();
    up
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
