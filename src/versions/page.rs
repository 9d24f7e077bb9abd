//! `/api/v2/versions/` as a page: a table of the versions, newest first, with
//! what each changed and its archive and `eml.xml` where they are served, and
//! the feeds to follow. At a phone's width each version is a card of
//! labelled values, as a list's records are (`table.records`).

use maud::html;

use crate::html::layout::{self, Loads};
use crate::view::View;

use crate::model::endpoint::{FEED_PATH, RSS_PATH};

use super::list::{files, list_name, published};

/// The page of the versions; `kept`, the versions whose files are kept
/// (ascending).
pub fn page(view: &View, kept: &[u64]) -> String {
    let current = view.history.current();
    let history = &view.history;
    layout::page(
        view,
        "Versions",
        layout::crumbs(&[], "Versions"),
        &Loads::default(),
        html! {
            h1 { "Versions" }
            p {
                "The current version is " strong { (history.current()) } ". "
                "Follow new versions in a feed reader: " a href=(FEED_PATH) { "the Atom feed" } ", or "
                a href=(RSS_PATH) { "the RSS feed" } " (as GBIF's IPT writes it)."
            }
            table.versions.records {
                thead { tr { th { "Version" } th { "Published" } th { "Changed" } th { "Records" } th { "Files" } } }
                tbody {
                    @for v in history.versions.iter().rev() {
                        tr {
                            td data-label="Version" { (v.number) }
                            td data-label="Published" { (published(v)) }
                            td data-label="Changed" {
                                @if v.changes.is_empty() { "—" }
                                @for c in &v.changes {
                                    div { (list_name(&c.model)) ": +" (c.added.len()) " ~" (c.modified.len()) " −" (c.deleted.len()) }
                                }
                            }
                            td data-label="Records" { (v.counts.iter().map(|(_, n)| n).sum::<u64>()) }
                            td data-label="Files" {
                                @match files(v, current, kept) {
                                    // One grid item beside its label, on a card.
                                    Some(f) => span {
                                        a href=(f.archive) { "dwca.zip" } " "
                                        a href=(f.eml) { "eml.xml" }
                                    }
                                    None => "not kept",
                                }
                            }
                        }
                    }
                }
            }
        },
    )
}
