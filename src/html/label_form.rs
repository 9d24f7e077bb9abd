//! The specimen list's label form (every filter the list takes, sent by GET to the
//! same URL so the address can be shared) and its facet counts, each a link that
//! adds the filter.

use maud::{html, Markup};
use serde_json::{Map, Value as Json};

use crate::model::vocabulary::{MONTHS, PREPARATIONS, SEXES, STAGES};
use crate::model::{Model, Shape, Type};
use crate::query::filter::{BOOLS, INTS, RELATED};
use crate::query::{sort, Params};
use crate::view::{Value, View, SPECIMEN_TEXT};

/// The facets the page counts beside the results.
pub const FACETS: &str = "family,year,country,collector,sex,stage";
/// How many values of each the page shows.
pub const FACET_SIZE: usize = 10;

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

/// The form's groups: a legend and its parameters, in order. Every specimen
/// filter is in one (a test checks against the filter tables).
fn groups() -> Vec<(&'static str, Vec<(&'static str, Control)>)> {
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
    let id = format!("f-{name}");
    let value = params.get(name).unwrap_or("");
    html! {
        label for=(id) {
            (label(name))
            @match kind {
                Control::Text => { input id=(id) name=(name) type="text" value=(value); }
                Control::Number => { input id=(id) name=(name) type="number" step="1" value=(value); }
                Control::Date => { input id=(id) name=(name) type="date" value=(value); }
                Control::Choice(choices) => {
                    select id=(id) name=(name) {
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
                    select id=(id) name=(name) {
                        option value="unknown" { "unknown" }
                        option value="true" selected[value == "true" || value == "True" || value == "2" || value == "1"] { "yes" }
                        option value="false" selected[value == "false" || value == "False" || value == "3" || value == "0"] { "no" }
                    }
                }
            }
        }
    }
}

/// The label form: GET to the list's own URL.
pub fn form(path: &str, params: &Params) -> Markup {
    let sortable: Vec<&str> = Model::SpecimenRecord
        .fields()
        .iter()
        .filter(|f| sort::sortable(f.ty, Shape::Plain))
        .map(|f| f.name)
        .collect();
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
                            @for f in &sortable {
                                @if *f != "id" {
                                    option value=(f) selected[current_sort == *f] { (f) }
                                    option value=(format!("-{f}")) selected[current_sort.strip_prefix('-') == Some(*f)] { (f) ", descending" }
                                }
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
                            @for (name, kind) in &controls { (control(params, name, kind)) }
                        }
                    }
                }
            }
            p { button type="submit" { "Show specimens" } " " a href=(path) { "Clear" } }
        }
    }
}

/// The filter that selects records with a facet's value, as parameters to add.
fn facet_filter(view: &View, field: &str, value: &Json) -> Option<Vec<(String, String)>> {
    let text = match value {
        Json::Null => return None,
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let one = |name: &str| Some(vec![(name.to_string(), text.clone())]);
    match field {
        "collector" | "determiner" | "preparer" => {
            // People are counted by full name; the form filters by first and last.
            let people = view.table(Model::Person);
            let (full, first, last) = (
                Model::Person.field_index("full_name")?,
                Model::Person.field_index("first_name")?,
                Model::Person.field_index("last_name")?,
            );
            let row = people
                .rows
                .iter()
                .find(|r| r[full].as_str() == Some(text.as_str()))?;
            let get = |i: usize| match &row[i] {
                Value::Str(s) => s.to_string(),
                _ => String::new(),
            };
            Some(vec![
                (format!("{field}_firstname"), get(first)),
                (format!("{field}_lastname"), get(last)),
            ])
        }
        f if RELATED.iter().any(|r| r.0 == f) => one(f),
        f if INTS.contains(&f) || BOOLS.contains(&f) => one(f),
        "sex" | "stage" | "preparation" | "month" | "usi" => one(field),
        _ => None,
    }
}

/// The list's URL with these filters added, from its first page.
fn adding(path: &str, params: &Params, adds: &[(String, String)]) -> String {
    let mut p = params.without("offset");
    for (k, v) in adds {
        p = p.with(k, v);
    }
    format!("{path}?{}", p.to_query())
}

/// The facet counts, each value a link adding its filter.
pub fn facets(
    view: &View,
    path: &str,
    params: &Params,
    facets: Option<&Map<String, Json>>,
) -> Markup {
    let Some(facets) = facets else {
        return html! {};
    };
    html! {
        section.facets aria-labelledby="facets-heading" {
            h2 id="facets-heading" { "Counts" }
            @for (field, counts) in facets {
                h3 { (label(field)) }
                ul {
                    @for entry in counts.as_array().into_iter().flatten() {
                        @let value = entry.get("value").unwrap_or(&Json::Null);
                        @let n = entry.get("count").cloned().unwrap_or(Json::Null);
                        @let shown = match value { Json::Null => "(none)".to_string(), Json::String(s) => s.clone(), v => v.to_string() };
                        li {
                            @match facet_filter(view, field, value) {
                                Some(adds) => { a href=(adding(path, params, &adds)) { (shown) } }
                                None => { span { (shown) } }
                            }
                            span.count { (n) }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_has_every_specimen_filter() {
        let named: Vec<&str> = groups()
            .into_iter()
            .flat_map(|(_, c)| c.into_iter().map(|(n, _)| n))
            .collect();
        let mut filters: Vec<&str> = RELATED.iter().map(|r| r.0).collect();
        filters.extend(BOOLS);
        filters.extend(INTS);
        filters.extend(SPECIMEN_TEXT);
        filters.extend([
            "usi",
            "sex",
            "stage",
            "preparation",
            "month",
            "preparation_date",
        ]);
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
