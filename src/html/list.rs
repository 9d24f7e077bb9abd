//! A list as a page: the items as a table (the columns a person scans, where
//! the list says which), the total, paging, the filters in use (each
//! removable), sortable columns, the same query as JSON and GeoJSON, a map where
//! the records have places, and the specimens' seasons as charts.

use maud::{html, Markup};

use crate::model::endpoint::API_PREFIX;
use crate::model::{Endpoint, Filters, Model, Side};
use crate::query::facets::Facets;
use crate::query::holdings::Seasons;
use crate::query::{geojson, sort, Params, OPERATIONS};
use crate::view::{Value, View};

use super::chart;
use super::label_form;
use super::layout::{self, Loads, MAP, MAP_AND_FILTERS};
use super::links::Linker;
use super::map::{self, Markers, MAP_RECORDS};
use super::site::{LabelCodes, Site};
use super::values::{words, RowValue};

/// How many ignored parameters a page names; the rest are counted.
const IGNORED_SHOWN: usize = 20;

/// The most rows a page shows, whatever `limit` asks: a longer answer is paged
/// (the JSON answer still gives every item asked for).
pub const MAX_ROWS: usize = 500;

/// The operation that matches the specimen filters' text without regard to
/// accents, which the specimen list's page asks for unless told otherwise.
pub const UNACCENTED: &str = "unaccented";

/// What the page of `model`'s list asks of `params`: on the specimen lists,
/// the text filters without regard to accents (`unaccented=1`) unless they say
/// otherwise. The page's own links keep the request's parameters (asking the
/// same again); its map, chart and label sheets, which other addresses answer,
/// say it.
pub fn unaccented(model: Model, params: &Params) -> Params {
    match model.policy().filters == Filters::Named && params.get(UNACCENTED).is_none() {
        true => params.with(UNACCENTED, "1"),
        false => params.clone(),
    }
}

/// Whether a parameter shapes the answer rather than chooses records: the list
/// operations but `search` and `unaccented`; `order` is a sort (or `random`) only where the model
/// has no field of that name (a specimen's `order` is its taxonomic order).
fn shaping(model: Model, name: &str) -> bool {
    match name {
        "search" | UNACCENTED => false,
        "order" => model.field_index("order").is_none(),
        _ => OPERATIONS.contains(&name),
    }
}

/// A list's answer, and the request it answers.
pub struct ListPage<'a> {
    pub endpoint: Endpoint,
    /// The request's parameters, less `format`, `limit` at most [`MAX_ROWS`].
    pub params: &'a Params,
    pub total: usize,
    /// The page's records: positions in the model's table.
    pub rows: &'a [usize],
    /// The fields shown (`fields`), in table order; `None`: every field.
    pub columns: Option<Vec<usize>>,
    /// Where stored media paths start, for their links.
    pub media_base: &'a str,
    /// The facets' counts, where asked.
    pub facets: Option<&'a Facets>,
    pub offset: usize,
    pub limit: usize,
    /// The limit the request asked for, when more than a page shows.
    pub clamped_from: Option<usize>,
    /// Why the request was refused, shown above the form.
    pub error: Option<String>,
    /// Parameters the list took no notice of (not its filters), named so a typo shows.
    pub ignored: &'a [String],
    /// Filters given more than once, of which the last value counts.
    pub repeated: &'a [String],
    /// Where the sheets the form prints point their codes.
    pub label_codes: LabelCodes,
    /// When a search finds nothing: what the suggestions make of it, each a
    /// name and the address of its record.
    pub did_you_mean: &'a [(String, String)],
}

/// `path?query`, or `path` when the query is empty.
pub(super) fn href(path: &str, params: &Params) -> String {
    let q = params.to_query();
    match q.is_empty() {
        true => path.to_string(),
        false => format!("{path}?{q}"),
    }
}

/// The question a page asks, not a page of it: its filters and search
/// without `limit` and `offset` (what a feed or a download of it takes).
fn whole_question(params: &Params) -> Params {
    params.without("limit").without("offset")
}

/// The list's page.
pub fn list(site: &Site, view: &View, page: &ListPage) -> String {
    let e = page.endpoint;
    let path = format!("{API_PREFIX}{}/", e.segment());
    let form = matches!(e.model.policy().side, Side::LabelForm { .. });
    let mappable = geojson::supports(e);
    let title = e.segment();
    let content = html! {
        h1 { (title) }
        p.summary {
            strong { (page.total) } " records"
            @if page.total > 0 && page.limit > 0 && !page.rows.is_empty() {
                ", showing " (page.offset + 1) "–" (page.offset + page.rows.len())
            }
            "."
            " "
            span.formats {
                a href=(href(&path, &page.params.with("format", "json"))) type="application/json" { "JSON" }
                @if mappable {
                    a href=(href(&path, &page.params.with("format", "geojson"))) type="application/geo+json" { "GeoJSON" }
                }
                a href=(href(&path, &whole_question(page.params).with("format", "atom"))) type="application/atom+xml" { "Feed of changes" }
                @if e.model == Model::SpecimenRecord {
                    a href=(href(&path, &whole_question(page.params).with("format", "zip"))) type="application/zip" download { "Download photographs" }
                }
            }
        }
        @if let Some(asked) = page.clamped_from {
            p.note { "A page shows at most " (MAX_ROWS) " rows (" (asked) " were asked for); the JSON answer gives them all." }
        }
        @if let Some(message) = &page.error {
            p.error role="alert" { (message) }
        }
        @if !page.ignored.is_empty() {
            p.note.warning.ignored role="note" {
                "Ignored, as they are not filters of this list: " (page.ignored.iter().take(IGNORED_SHOWN).map(|n| n.chars().take(100).collect::<String>()).collect::<Vec<_>>().join(", "))
                @if page.ignored.len() > IGNORED_SHOWN { " and " (page.ignored.len() - IGNORED_SHOWN) " more" }
            }
        }
        @for name in page.repeated {
            p.note.warning.repeated role="note" {
                (name) " was given more than once: only its last value, "
                q { (page.params.get(name).unwrap_or_default()) }
                ", counts. GBIF's search, " a href="/gbif/v1/occurrence/search" { "/gbif/v1/occurrence/search" }
                ", takes a repeated parameter as any of its values."
            }
        }
        (in_use(e.model, &path, page.params))
        @if form {
            div.layout.with-side {
                details.side open aria-label="Filters and counts" {
                    summary { "Filters, label sheets and counts" }
                    (label_form::form(&path, page.params))
                    (label_form::numbers(&path))
                    (label_form::print_links(&unaccented(e.model, page.params), page.label_codes))
                    (label_form::facets(view, &path, page.params, page.facets))
                }
                div.results { (results(site, view, &path, page, mappable)) }
            }
        } @else {
            (results(site, view, &path, page, mappable))
        }
    };
    let loads = match (mappable, form) {
        (true, true) => MAP_AND_FILTERS,
        (true, false) => MAP,
        (false, _) => Loads::default(),
    };
    layout::page(
        view,
        title.as_str(),
        layout::crumbs(&[("Lists", API_PREFIX.to_string())], &title),
        &loads,
        content,
    )
}

/// The filters and search in use, each with a link that removes it.
fn in_use(model: Model, path: &str, params: &Params) -> Markup {
    let used: Vec<&(String, String)> = params
        .0
        .iter()
        // `unknown` is the form's "no filter" for a boolean; `unaccented` is
        // how the filters match, not one of them.
        .filter(|(k, v)| {
            !shaping(model, k) && k != UNACCENTED && !v.trim().is_empty() && v != "unknown"
        })
        .collect();
    html! {
        @if !used.is_empty() {
            h2.visually-hidden id="in-use" { "Filters in use" }
            ul.chips aria-labelledby="in-use" {
                @for (k, v) in used {
                    li {
                        (k) ": " strong { (v) }
                        a href=(href(path, &params.without(k).without("offset"))) aria-label=(format!("Remove the filter {k}")) title="Remove" { "×" }
                    }
                }
            }
        }
    }
}

/// The map, the table and the paging links.
fn results(site: &Site, view: &View, path: &str, page: &ListPage, mappable: bool) -> Markup {
    let seasons_shown = matches!(page.endpoint.model.policy().side, Side::LabelForm { .. });
    html! {
        @if mappable && page.total > 0 {
            div.list-map { (map(site, path, page)) }
        }
        @if page.rows.is_empty() {
            p { "No records on this page." }
            @if page.total == 0 && !page.did_you_mean.is_empty() {
                p.did-you-mean {
                    "Did you mean "
                    @for (i, (name, url)) in page.did_you_mean.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href=(url) { (name) }
                    }
                    "?"
                }
            }
        } @else {
            (table(view, path, page))
        }
        (paging(path, page))
        @if seasons_shown && page.total > 0 {
            @if let Ok(seasons) = Seasons::count(view, &unaccented(page.endpoint.model, &question(page))) {
                (chart::seasons(&seasons, &|name, value| href(path, &question(page).with(name, value))))
            }
        }
    }
}

/// The page's question: its filters and search, not how it is paged or shaped.
fn question(page: &ListPage) -> Params {
    Params(
        page.params
            .0
            .iter()
            .filter(|(k, _)| !shaping(page.endpoint.model, k))
            .cloned()
            .collect(),
    )
}

/// The map of the page's query: the records of every page, to a bound.
fn map(site: &Site, path: &str, page: &ListPage) -> Markup {
    let query = map::geojson(
        &unaccented(page.endpoint.model, &question(page)),
        page.endpoint.model,
    );
    let records = format!("{API_PREFIX}{}/", page.endpoint.model.path());
    let geojson = href(path, &query);
    let note = html! {
        @if page.total > MAP_RECORDS {
            p.note { "The map shows the first " (MAP_RECORDS) " records of " (page.total) "." }
        }
    };
    map::map(
        site,
        "Map",
        "Map of the records",
        Markers::Query {
            geojson: &geojson,
            records: &records,
        },
        note,
    )
}

/// The records as a table, from the view's rows: a column per field shown;
/// sortable fields' headers sort.
fn table(view: &View, path: &str, page: &ListPage) -> Markup {
    let e = page.endpoint;
    let shape = e.shape();
    let fields = e.model.fields();
    let scanned = e
        .model
        .policy()
        .page_columns
        .filter(|_| page.params.get("fields").is_none());
    let columns: Vec<usize> = match (&page.columns, scanned) {
        (Some(asked), _) => asked.clone(),
        (None, Some(names)) => names
            .split(',')
            .filter_map(|n| e.model.field_index(n))
            .collect(),
        (None, None) => (0..fields.len()).collect(),
    };
    // Every field, one click away from the fields a person scans.
    let every = scanned.map(|_| {
        let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
        href(path, &page.params.with("fields", &names.join(",")))
    });
    let rows = view.table(e.model);
    let current = page
        .params
        .get("sort")
        .and_then(|s| s.split(',').next())
        .unwrap_or("");
    let sorting = Linker::new(path, page.params, &["sort"]);
    html! {
        @if let Some(every) = every {
            p.note.columns { "The table shows " (columns.len()) " of the " (fields.len()) " fields. " a href=(every) { "Show every field" } }
        }
        div.table-wrap {
            table.records {
                caption.visually-hidden { (e.segment()) ", " (page.total) " records" }
                thead {
                    tr {
                        @for &c in &columns {
                            @let name = fields[c].name;
                            @let sortable = sort::sortable(fields[c].ty, shape);
                            @let (aria, next, arrow) = match current {
                                c if c == name => ("ascending", format!("-{name}"), " ▲"),
                                c if c.strip_prefix('-') == Some(name) => ("descending", name.to_string(), " ▼"),
                                _ => ("none", name.to_string(), ""),
                            };
                            th scope="col" aria-sort=[(aria != "none").then_some(aria)] {
                                @if sortable {
                                    a href=(sorting.link(&[("sort", &next)])) { (words(name)) (arrow) }
                                } @else { (words(name)) }
                            }
                        }
                    }
                }
                tbody {
                    @for &pos in page.rows {
                        tr {
                            @for &c in &columns {
                                @let value = rows.get(pos, c);
                                @let label = words(fields[c].name);
                                @if c == 0 {
                                    td.num data-label=(label) { a href=(format!("{path}{}/", view.table(e.model).id(pos as u32))) { (RowValue { view, ty: fields[c].ty, value, media_base: page.media_base }) } }
                                } @else if fields[c].name == "usi" {
                                    td.nowrap data-label=(label) { (RowValue { view, ty: fields[c].ty, value, media_base: page.media_base }) }
                                } @else if matches!(value, Value::Int(_)) {
                                    td.num data-label=(label) { (RowValue { view, ty: fields[c].ty, value, media_base: page.media_base }) }
                                } @else {
                                    td data-label=(label) { (RowValue { view, ty: fields[c].ty, value, media_base: page.media_base }) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// First, previous, next and last, where they lead somewhere.
fn paging(path: &str, page: &ListPage) -> Markup {
    let (offset, limit, total) = (page.offset, page.limit, page.total);
    if limit == 0 || total <= limit && offset == 0 {
        return html! {};
    }
    let at = |o: usize| {
        href(
            path,
            &page
                .params
                .with("offset", &o.to_string())
                .with("limit", &limit.to_string()),
        )
    };
    let last = (total.saturating_sub(1) / limit) * limit;
    html! {
        nav.pages aria-label="Pages" {
            ul {
                @if offset > 0 {
                    li { a rel="first" href=(at(0)) { "« First" } }
                    li { a rel="prev" href=(at(offset.saturating_sub(limit))) { "‹ Previous" } }
                }
                li { "Page " (offset / limit + 1) " of " (total.div_ceil(limit).max(1)) }
                @if offset + limit < total {
                    li { a rel="next" href=(at(offset + limit)) { "Next ›" } }
                    li { a rel="last" href=(at(last)) { "Last »" } }
                }
            }
        }
    }
}
