//! A checklist's page: the taxa a specimen question holds, each row a link to
//! the specimens of that taxon (the question narrowed by the taxon's names), and
//! the same checklist as CSV and JSON.

use maud::html;

use crate::html::layout::{self, Loads};
use crate::model::endpoint::{API_PREFIX, CHECKLIST_PATH};
use crate::model::Model;
use crate::query::question::Question;
use crate::view::View;

use super::{rank_name, taxon_filters, Checklist, CLASSIFICATION, GEOMETRY};

/// What the page shows besides the checklist.
pub struct ChecklistPage<'a> {
    pub checklist: &'a Checklist<'a>,
    /// The question, as a query string (empty for every specimen).
    pub query: &'a str,
    /// For each taxon, in order: the specimen list's URL of its specimens.
    pub links: &'a [String],
    /// The areas (WKT) the specimens were collected in, where asked.
    pub areas: &'a [String],
    /// The same checklist as CSV and as JSON.
    pub csv: &'a str,
    pub json: &'a str,
}

/// The checklist page.
pub fn checklist_page(view: &View, p: &ChecklistPage) -> String {
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    let c = p.checklist;
    let title = "Species checklist";
    let all = match p.query.is_empty() {
        true => specimens.clone(),
        false => format!("{specimens}?{}", p.query),
    };
    let content = html! {
        h1 { (title) }
        p.summary {
            (c.taxa.len()) (if c.taxa.len() == 1 { " taxon in " } else { " taxa in " })
            a href=(all) { (c.specimens) (if c.specimens == 1 { " specimen" } else { " specimens" }) }
            @if c.without_taxon > 0 { " (" (c.without_taxon) " without a taxon)" }
            @if !p.query.is_empty() { " selected by " code { (p.query) } }
            @if !p.areas.is_empty() {
                ", collected within " (p.areas.len()) (if p.areas.len() == 1 { " area" } else { " areas" })
                " (" code.geometry { (p.areas.iter().map(|a| a.chars().take(200).collect::<String>()).collect::<Vec<_>>().join("; ")) } ")"
            }
            ". "
            a href=(p.csv) type="text/csv" { "Download as CSV" } " · "
            a href=(p.json) type="application/json" { "JSON" }
        }
        div.table-wrap {
            table.checklist {
                thead {
                    tr {
                        th scope="col" { "Taxon" }
                        th scope="col" { "Rank" }
                        th scope="col" { "Specimens" }
                        th scope="col" { "Years" }
                        th scope="col" { "Localities" }
                        @for rank in &CLASSIFICATION[..5] { th scope="col" { (rank_name(*rank)) } }
                    }
                }
                tbody {
                    @for (taxon, link) in c.taxa.iter().zip(p.links) {
                        tr {
                            th scope="row" {
                                a href=(link) { i { (taxon.names.scientific_name) } }
                                @if !taxon.names.authority.is_empty() { " " (taxon.names.authority) }
                                @if !taxon.names.common_name.is_empty() { br; small { (taxon.names.common_name) } }
                            }
                            td { (rank_name(taxon.names.rank)) }
                            td.number { (taxon.specimens) }
                            td {
                                @match (taxon.first_year, taxon.last_year) {
                                    (Some(f), Some(l)) if f == l => { (f) }
                                    (Some(f), Some(l)) => { (f) "–" (l) }
                                    _ => { "—" }
                                }
                            }
                            td.number { (taxon.localities) }
                            @for name in &taxon.names.classification[..5] {
                                td { (name.as_deref().unwrap_or("—")) }
                            }
                        }
                    }
                }
            }
        }
    };
    layout::page(
        view,
        title,
        layout::crumbs(&[("Specimens", specimens)], "Checklist"),
        &Loads::default(),
        content,
    )
}

/// The checklist's page: each taxon linked to the specimen list of its
/// specimens (the question narrowed by its names).
pub fn of(view: &View, checklist: &Checklist, question: &Question, areas: &[String]) -> String {
    let (query, question) = (&question.query, &question.params);
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    let links: Vec<String> = checklist
        .taxa
        .iter()
        .map(|taxon| {
            let narrowed = taxon_filters(taxon)
                .iter()
                .fold(question.clone(), |q, (name, value)| q.with(name, value));
            format!("{specimens}?{}", narrowed.to_query())
        })
        .collect();
    // The CSV and JSON of the same checklist: its areas too.
    let mut own = question.clone();
    own.0
        .extend(areas.iter().map(|a| (GEOMETRY.to_string(), a.clone())));
    let with_format = |format: &str| {
        let q = own.with("format", format).to_query();
        format!("{CHECKLIST_PATH}?{q}")
    };
    checklist_page(
        view,
        &ChecklistPage {
            checklist,
            query,
            links: &links,
            areas,
            csv: &with_format("csv"),
            json: &with_format("json"),
        },
    )
}
