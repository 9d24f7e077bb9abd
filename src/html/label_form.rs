//! The specimen list's label form (every filter the list takes, sent by GET to the
//! same URL so the address can be shared) and its facet counts, each a link that
//! adds the filter.

use maud::{html, Markup};

use crate::model::endpoint::LABELS_PATH;
use crate::model::vocabulary::{MONTHS, PREPARATIONS, SEXES, STAGES};
use crate::model::{Model, Shape, Type};
use crate::query::facets::{shown, Facets};
use crate::query::filter::{BOOLS, INTS, RELATED};
use crate::query::{filter, form, sort, Params, OPERATIONS};

use super::links::Linker;
use super::site::{LabelCodes, CODES_FROM_REQUEST};
use crate::quality::Flag;
use crate::query::filter::SPECIMEN_TEXT;
use crate::view::View;

/// One control of the form.
enum Control {
    Text,
    Number,
    Date,
    Choice(&'static [&'static str]),
    Boolean,
}

/// Which group of the form a related-record filter goes in, by the specimen
/// field it reads.
fn group_of(field: &str) -> &'static str {
    let ty = Model::SpecimenRecord
        .field_index(field)
        .map(|f| Model::SpecimenRecord.fields()[f].ty);
    match ty {
        Some(Type::Taxon) => "Taxon",
        Some(Type::Embed(m)) if Model::RANKS.contains(&m) => "Taxon",
        Some(Type::Embed(Model::Person) | Type::EmbedMany(Model::Person)) => "People",
        _ => "Place",
    }
}

/// A group of the form: its legend and its controls.
type Group = (&'static str, Vec<(&'static str, Control)>);

/// The form's groups, in order, made once. Every specimen filter is in one (a
/// test checks against the filter tables).
fn groups() -> &'static [Group] {
    static GROUPS: std::sync::OnceLock<Vec<Group>> = std::sync::OnceLock::new();
    GROUPS.get_or_init(make_groups)
}

fn make_groups() -> Vec<Group> {
    let mut out: Vec<(&'static str, Vec<(&'static str, Control)>)> =
        ["Taxon", "Place", "Collected", "People", "Specimen"]
            .into_iter()
            .map(|legend| (legend, Vec::new()))
            .collect();
    let mut add = |legend: &str, name: &'static str, control: Control| {
        if let Some((_, controls)) = out.iter_mut().find(|(l, _)| *l == legend) {
            controls.push((name, control));
        }
    };
    for &(name, field, _) in RELATED {
        add(group_of(field), name, Control::Text);
    }
    add("Collected", "day", Control::Number);
    add("Collected", "month", Control::Choice(&MONTHS));
    add("Collected", "year", Control::Number);
    for &name in SPECIMEN_TEXT {
        add("Collected", name, Control::Text);
    }
    add("People", "determined_year", Control::Number);
    add("Specimen", "usi", Control::Text);
    add("Specimen", "sex", Control::Choice(SEXES));
    add("Specimen", "stage", Control::Choice(STAGES));
    add("Specimen", "preparation", Control::Choice(PREPARATIONS));
    add("Specimen", "preparation_date", Control::Date);
    for &name in BOOLS {
        add("Specimen", name, Control::Boolean);
    }
    add("Specimen", filter::ISSUE, Control::Choice(Flag::choices()));
    out
}

/// A parameter's name as a label.
fn label(name: &str) -> String {
    let mut s = name.replace('_', " ");
    if let Some(first) = s.get(..1) {
        let upper = first.to_uppercase();
        s.replace_range(..1, &upper);
    }
    s
}

/// One control, with its label, holding the request's value.
fn control(params: &Params, name: &str, kind: &Control) -> Markup {
    // A filter of many values shows them all, as one list.
    let many = filter::MANY.contains(&name);
    let joined = many.then(|| filter::many(params, name).join(", "));
    let value = joined.as_deref().unwrap_or(params.get(name).unwrap_or(""));
    let hint = many.then_some("one, or several comma-separated");
    html! {
        label for={ "f-" (name) } {
            (label(name))
            @match kind {
                Control::Text => { input id={ "f-" (name) } name=(name) type="text" value=(value) placeholder=[hint]; }
                Control::Number => { input id={ "f-" (name) } name=(name) type="number" step="1" value=(value); }
                Control::Date => { input id={ "f-" (name) } name=(name) type="date" value=(value); }
                Control::Choice(choices) => {
                    select id={ "f-" (name) } name=(name) {
                        option value="" { "any" }
                        @for c in *choices {
                            option value=(c) selected[c.eq_ignore_ascii_case(value)] { (c) }
                        }
                        // A value from the address that is not a choice stays visible.
                        @if !value.is_empty() && !choices.iter().any(|c| c.eq_ignore_ascii_case(value)) {
                            option value=(value) selected { (value) }
                        }
                    }
                }
                Control::Boolean => {
                    // Every spelling the filter reads (`2`, `True`, ...) selects its answer.
                    @let chosen = form::boolean(value).flatten();
                    select id={ "f-" (name) } name=(name) {
                        option value="unknown" { "unknown" }
                        option value="true" selected[chosen == Some(true)] { "yes" }
                        option value="false" selected[chosen == Some(false)] { "no" }
                    }
                }
            }
        }
    }
}

/// The label form: GET to the list's own URL.
pub fn form(path: &str, params: &Params) -> Markup {
    let sortable = sort::sortable_names(Model::SpecimenRecord, Shape::Plain).into_iter();
    let current_sort = params.get("sort").unwrap_or("");
    html! {
        form.filters method="get" action=(path) role="search" aria-label="Specimen filters" {
            fieldset {
                legend { "Search" }
                div.grid {
                    (control(params, "search", &Control::Text))
                    label for="f-sort" {
                        "Sort by"
                        select id="f-sort" name="sort" {
                            option value="" { "id" }
                            @for f in sortable.filter(|f| *f != "id") {
                                option value=(f) selected[current_sort == f] { (f) }
                                option value={ "-" (f) } selected[current_sort.strip_prefix('-') == Some(f)] { (f) ", descending" }
                            }
                        }
                    }
                    label for="f-limit" {
                        "Per page"
                        input id="f-limit" name="limit" type="number" min="0" step="1" value=(params.get("limit").unwrap_or(""));
                    }
                }
            }
            @for (legend, controls) in groups() {
                details open[controls.iter().any(|(n, _)| params.get(n).is_some_and(|v| !v.trim().is_empty() && v != "unknown"))] {
                    summary { (legend) }
                    fieldset {
                        legend.visually-hidden { (legend) }
                        div.grid {
                            @for (name, kind) in controls { (control(params, name, kind)) }
                        }
                    }
                }
            }
            p { button type="submit" { "Show specimens" } " " a href=(path) { "Clear" } }
        }
    }
}

/// A box for a list of specimen numbers too long for an address, POSTed as a
/// form to the list's own path (which answers it as the GET with them).
pub fn numbers(path: &str) -> Markup {
    html! {
        form.numbers method="post" action=(path) aria-label="Specimens by their numbers" {
            label for="f-usi-list" {
                "Specimen numbers (USIs), comma-separated or one a line"
                textarea id="f-usi-list" name="usi" rows="4" {}
            }
            p { button type="submit" { "Show these specimens" } }
        }
    }
}

/// The parameters a facet's links set: the field's own filter, or a person's
/// first and last name (people are counted by full name).
fn facet_names(field: &str) -> Option<Vec<String>> {
    match field {
        f if counts_people(f) => Some(vec![
            format!("{field}_firstname"),
            format!("{field}_lastname"),
        ]),
        f if RELATED.iter().any(|r| r.0 == f)
            || INTS.contains(&f)
            || BOOLS.contains(&f)
            || ["sex", "stage", "preparation", "month", "usi", filter::ISSUE].contains(&f) =>
        {
            Some(vec![f.to_string()])
        }
        _ => None,
    }
}

/// Whether a facet counts people (by full name).
fn counts_people(field: &str) -> bool {
    ["collector", "determiner", "preparer"].contains(&field)
}

/// The first and last names of the people with these full names, found in one
/// pass over the people.
fn people_named<'v>(view: &'v View, full_names: &[&str]) -> Vec<(&'v str, [&'v str; 2])> {
    let [full, first, last] = ["full_name", "first_name", "last_name"]
        .map(|name| Model::Person.field_index(name).expect("a person has names"));
    let people = view.table(Model::Person);
    let text = |p: usize, f: usize| people.get(p, f).as_str().unwrap_or_default();
    (0..people.len())
        .filter(|&p| full_names.contains(&text(p, full)))
        .map(|p| (text(p, full), [text(p, first), text(p, last)]))
        .collect()
}

/// The values [`facet_names`] take to select the records holding a facet's
/// value (`shown`, as its JSON says it); `people` holds the names of the people
/// the facet counts.
fn facet_values(shown: &str, people: &[(&str, [&str; 2])], field: &str) -> Option<Vec<String>> {
    if !counts_people(field) {
        return Some(vec![shown.to_string()]);
    }
    let (_, names) = people.iter().find(|(full, _)| *full == shown)?;
    Some(names.map(str::to_string).to_vec())
}

/// The parameters of a list page that are not its question: a sheet holds
/// every specimen the question selects, not one page of them.
const NOT_THE_QUESTION: [&str; 6] = ["limit", "offset", "format", "facet", "facet_size", "fields"];

/// Links to the label sheets of the form's question, a kind each, and its
/// preview; and, where the operator has not said the public address, a warning
/// that the codes point at the address the sheet is asked at.
pub fn print_links(params: &Params, codes: LabelCodes) -> Markup {
    // A sheet refuses a name the specimen list does not know, which a page
    // only ignores: the links carry the question alone.
    let mut question = params.given();
    question
        .0
        .retain(|(k, _)| filter::is_specimen_filter(k) || OPERATIONS.contains(&k.as_str()));
    for name in NOT_THE_QUESTION {
        question = question.without(name);
    }
    let link = |kind: &str, format: Option<&str>| {
        let mut p = question.with("kind", kind);
        if let Some(f) = format {
            p = p.with("format", f);
        }
        format!("{LABELS_PATH}?{}", p.to_query())
    };
    html! {
        nav.print aria-label="Print labels" {
            h2 { "Print labels" }
            p {
                a href=(link("qr", None)) type="application/pdf" { "QR sheet" } " · "
                a href=(link("data", None)) type="application/pdf" { "data" } " · "
                a href=(link("determination", None)) type="application/pdf" { "determination" }
                " (PDF) · "
                a href=(link("data", Some("html"))) { "preview" } " · "
                a href=(link("data", Some("csv"))) type="text/csv" { "CSV" }
            }
            @if codes == LabelCodes::FromRequest {
                p.note.warning role="note" { (CODES_FROM_REQUEST) }
            }
        }
    }
}

/// The facet counts, each value a link adding its filter (from the first page).
pub fn facets(view: &View, path: &str, params: &Params, facets: Option<&Facets>) -> Markup {
    let Some(facets) = facets else {
        return html! {};
    };
    html! {
        section.facets aria-labelledby="facets-heading" {
            h2 id="facets-heading" { "Counts" }
            @for facet in &facets.0 {
                @let field = facet.field;
                @let names = facet_names(field).unwrap_or_default();
                @let names: Vec<&str> = names.iter().map(String::as_str).collect();
                @let linker = Linker::new(path, params, &names);
                @let values: Vec<(Option<String>, usize)> = facet.counts.iter().map(|(v, n)| (shown(v), *n)).collect();
                @let texts: Vec<&str> = values.iter().filter_map(|(v, _)| v.as_deref()).collect();
                @let people = if counts_people(field) { people_named(view, &texts) } else { Vec::new() };
                h3 { (label(field)) }
                ul {
                    @for (value, n) in &values {
                        li {
                            @match value.as_deref().and_then(|v| facet_values(v, &people, field)).filter(|_| !names.is_empty()) {
                                Some(selects) => {
                                    @let pairs: Vec<(&str, &str)> = names.iter().copied().zip(selects.iter().map(String::as_str)).collect();
                                    a href=(linker.link(&pairs)) { (value.as_deref().unwrap_or(NONE)) }
                                }
                                None => { span { (value.as_deref().unwrap_or(NONE)) } }
                            }
                            span.count { (n) }
                        }
                    }
                }
            }
        }
    }
}

/// How a facet shows records without a value.
const NONE: &str = "(none)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_has_every_specimen_filter() {
        let named: Vec<&str> = groups()
            .iter()
            .flat_map(|(_, c)| c.iter().map(|&(n, _)| n))
            .collect();
        let filters: Vec<&str> = crate::query::filter::specimen_filters().collect();
        for f in &filters {
            assert!(named.contains(f), "the form lacks {f}");
        }
        assert_eq!(
            named.len(),
            filters.len(),
            "a control for something that is no filter"
        );
    }
}
