//! What the collection holds of a taxon or a place, on its page: how many
//! specimens (a link to their list), their checklist, where they were taken (a
//! map of the same question), and when (its seasons as charts). Every part asks
//! the one question `query::holdings` made, so they agree with each other and
//! with the lists they link to.

use maud::{html, Markup};

use crate::model::endpoint::{API_PREFIX, CHECKLIST_PATH};
use crate::model::Model;
use crate::query::holdings::Seasons;
use crate::query::Params;

use super::chart;
use super::list::href;
use super::map::{self, Markers, MAP_RECORDS};
use super::site::Site;

/// A specimen question and what it finds.
pub struct Holdings {
    pub question: Params,
    pub seasons: Seasons,
}

/// The section: counts, links, map, charts. `checklist`: whether the record
/// holds more than one taxon's specimens (a checklist says which).
pub fn section(site: &Site, holdings: &Holdings, checklist: bool) -> Markup {
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    let q = &holdings.question;
    let total = holdings.seasons.total;
    let geojson = href(&specimens, &map::geojson(q, Model::SpecimenRecord));
    let note = html! {
        @if total > MAP_RECORDS {
            p.note { "The map shows the first " (MAP_RECORDS) " specimens of " (total) "." }
        }
    };
    html! {
        section.holdings aria-labelledby="holdings-heading" {
            h2 id="holdings-heading" { "In the collection" }
            p.count {
                a href=(href(&specimens, q)) {
                    strong { (total) } @if total == 1 { " specimen" } @else { " specimens" }
                }
                @if checklist && total > 0 {
                    " · " a href=(href(CHECKLIST_PATH, q)) { "checklist of their taxa" }
                }
            }
        }
        @if total > 0 {
            (map::map(site, "Where they were taken", "Map of the specimens",
                Markers::Query { geojson: &geojson, records: &specimens }, note))
            (chart::seasons(&holdings.seasons, &|name, value| href(&specimens, &q.with(name, value))))
        }
    }
}
