//! `/api/v2/versions/` as a page: a table of the versions, newest first, with
//! what each changed, and the feed to follow.

use maud::html;

use crate::html::layout::{self, Loads};
use crate::view::View;

use crate::model::endpoint::FEED_PATH;

use super::list::{list_name, published};

/// The page of the versions.
pub fn page(view: &View) -> String {
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
                "Follow new versions in a feed reader: " a href=(FEED_PATH) { "the Atom feed" } "."
            }
            table.versions {
                thead { tr { th { "Version" } th { "Published" } th { "Changed" } th { "Records" } } }
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
                        }
                    }
                }
            }
        },
    )
}
