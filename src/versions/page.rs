//! `/api/v2/versions/` as a page: a table of the versions, newest first, with
//! what each changed and its archive and `eml.xml` where they are served, and
//! the feeds to follow.

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
            table.versions {
                thead { tr { th { "Version" } th { "Published" } th { "Changed" } th { "Records" } th { "Files" } } }
                tbody {
                    @for v in history.versions.iter().rev() {
                        tr {
                            td { (v.number) }
                            td { (published(v)) }
                            td {
                                @if v.changes.is_empty() { "—" }
                                @for c in &v.changes {
                                    div { (list_name(&c.model)) ": +" (c.added.len()) " ~" (c.modified.len()) " −" (c.deleted.len()) }
                                }
                            }
                            td { (v.counts.iter().map(|(_, n)| n).sum::<u64>()) }
                            td {
                                @match files(v, current, kept) {
                                    Some(f) => {
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
