//! The species checklists (`/api/v2/specimen-records/checklist/`): the request
//! is read into a specimen question and a format (JSON, CSV, or the page, which
//! a browser gets as it gets the lists'), and the checklist is counted and
//! written on the threads for expensive answers (503 when busy).

use bytes::Bytes;

use crate::checklists::{page, Checklist, ChecklistRequest, Output};
use crate::html;
use crate::query::{Params, BYTE_ORDER_MARK};

use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;

use super::downloads::file_name;

/// Answers a checklist request.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let (asked, served) = (ctx.asked, ctx.served);
    let parsed = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| ChecklistRequest::parse(params, asked.html()));
    let request = match parsed {
        Ok(request) => request,
        Err(e) if asked.html() => {
            let page = html::error(&served.view, e.status, &e.message);
            return Err(Answer::html_error(e.status, page).into());
        }
        Err(e) => return Err(Answer::error(&e).into()),
    };
    let mut ignored = request.question.ignored().to_vec();
    // `bom` is for the CSV alone.
    let bom = request.bom && request.output == Output::Csv;
    if request.output != Output::Csv && asked.params.as_ref().is_ok_and(|p| p.get("bom").is_some())
    {
        ignored.push("bom".to_string());
    }
    let kind = match request.output {
        Output::Json => Kind::Json,
        Output::Csv => Kind::Csv,
        Output::Html => Kind::Html,
    };
    let name = match request.output {
        Output::Csv => Some(file_name(
            &served.view,
            "checklist",
            asked.params.as_ref().unwrap_or(&Params::default()),
            "csv",
        )),
        _ => None,
    };
    let named = move |a: Answer| match name.clone() {
        Some(name) => a.named(name).ignoring(&ignored),
        None => a.ignoring(&ignored),
    };
    let head = named(Answer::unmade(kind));
    let (state, made) = (ctx.state, served.clone());
    let output = request.output;
    let job = move || {
        let view = &made.view;
        let selected = request.question.plan.matching(view);
        let selected = request.within.select(view, selected);
        let checklist = Checklist::of(view, &selected);
        match output {
            Output::Json => checklist.json(),
            Output::Csv if bom => [BYTE_ORDER_MARK, &checklist.csv()].concat(),
            Output::Csv => checklist.csv(),
            Output::Html => {
                page::of(view, &checklist, &request.question, &request.within.given).into_bytes()
            }
        }
    };
    Ok(Job::pooled(head, async move {
        match state.work.run(Task::Answer, job).await {
            Some(body) => named(Answer::document(kind, Bytes::from(body))),
            None => Answer::busy(),
        }
    }))
}
