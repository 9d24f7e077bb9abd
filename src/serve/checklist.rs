//! The species checklists (`/api/v2/specimen-records/checklist/`): the request
//! is read into a specimen question and a format (JSON, CSV, or the page, which
//! a browser gets as it gets the lists'), and the checklist is counted and
//! written on the threads for expensive answers (503 when busy).

use std::sync::Arc;

use bytes::Bytes;
use warp::http::Method;

use crate::html;
use crate::model::endpoint::{API_PREFIX, CHECKLIST_PATH};
use crate::model::Model;
use crate::query::checklist::{taxon_filters, Checklist, ChecklistRequest, Output};
use crate::query::question::Question;

use super::answer::{Answer, Kind};
use super::asked::Asked;
use super::downloads::file_name;
use super::state::{Served, State};

/// Answers a checklist request.
pub async fn answer(state: &Arc<State>, served: &Arc<Served>, asked: &Asked) -> Answer {
    let parsed = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| ChecklistRequest::parse(params, asked.html()));
    let request = match parsed {
        Ok(request) => request,
        Err(e) if asked.html() => {
            return Answer::html_error(e.status, html::error(&served.view, e.status, &e.message))
        }
        Err(e) => return Answer::error(&e),
    };
    let ignored = request.question.ignored().to_vec();
    let kind = match request.output {
        Output::Json => Kind::Json,
        Output::Csv => Kind::Csv,
        Output::Html => Kind::Html,
    };
    let named = |a: Answer| match request.output {
        Output::Csv => a.named(file_name(&served.view, "checklist", "csv")),
        _ => a,
    };
    if asked.method == Method::HEAD || asked.fresh(&state.settings, &served.view) {
        return named(Answer::unmade(kind)).ignoring(&ignored);
    }
    state
        .metrics
        .worked_answers
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let made = served.clone();
    let output = request.output;
    let job = move || {
        let view = &made.view;
        let selected = request.question.plan.matching(view);
        let checklist = Checklist::of(view, &selected);
        match output {
            Output::Json => checklist.json(),
            Output::Csv => checklist.csv(),
            Output::Html => page(view, &checklist, &request.question).into_bytes(),
        }
    };
    let Some(body) = state.work.run(job).await else {
        return Answer::busy();
    };
    named(Answer::document(kind, Bytes::from(body))).ignoring(&ignored)
}

/// The checklist's page: each taxon linked to the specimen list of its
/// specimens (the question narrowed by its names).
fn page(view: &crate::view::View, checklist: &Checklist, question: &Question) -> String {
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
    let with_format = |format: &str| {
        let q = question.with("format", format).to_query();
        format!("{CHECKLIST_PATH}?{q}")
    };
    html::checklist(
        view,
        &html::ChecklistPage {
            checklist,
            query,
            links: &links,
            csv: &with_format("csv"),
            json: &with_format("json"),
        },
    )
}
