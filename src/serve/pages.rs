//! The answers that are pages for people (`html`): a list's plan runs as for
//! JSON, on the same threads by the same rules, and `html` writes its rows; a
//! record's page is written from its row.

use std::sync::Arc;

use crate::html::{self, Holdings, ListPage, RecordPage};
use crate::model::Endpoint;
use crate::query::holdings::{self, Seasons};
use crate::query::{ApiError, Plan, RecordPlan};

use super::answer::{Answer, Kind};
use super::asked::Asked;
use super::media::media_url;
use super::state::{Served, State};

/// The front page.
pub fn home(served: &Served) -> Answer {
    Answer::html(html::home(&served.view))
}

/// The API docs viewer.
pub fn docs(served: &Served) -> Answer {
    Answer::html(html::docs(&served.view))
}

/// A path no route takes, as a page saying what the JSON answer says.
pub fn not_found(served: &Served, message: &str) -> Answer {
    Answer::html_error(404, html::error(&served.view, 404, message))
}

/// An error page, not to be cached.
fn refused(served: &Served, e: &ApiError) -> Answer {
    Answer::html_error(e.status, html::error(&served.view, e.status, &e.message))
}

/// A list as a page: at most `html::MAX_ROWS` rows, written from the view's rows;
/// the specimen list counts its facets for the form's side. Always written on
/// the threads for answers that cost work: a page's rows are written anew, so
/// it is never a slice of rendered bytes (`Cost::as_page`).
pub async fn list(
    state: &Arc<State>,
    served: &Arc<Served>,
    endpoint: Endpoint,
    asked: &Asked,
) -> Answer {
    // What a form sends: its empty fields are no filter, no limit.
    let params = match &asked.params {
        Ok(p) => p.without("format").given(),
        Err(e) => return refused(served, e),
    };
    let mut shown = params.clone();
    let mut clamped_from = None;
    let plan = Plan::parse(endpoint, &params, &state.settings.limits)
        .and_then(|plan| plan.for_page(&params, html::MAX_ROWS))
        .map(|(plan, clamped)| {
            if clamped.is_some() {
                shown = shown.with("limit", &html::MAX_ROWS.to_string());
            }
            clamped_from = clamped;
            plan
        });
    let base = media_url(&state.settings, &asked.headers);
    let site = state.settings.site.clone();
    let plan = match plan {
        Ok(plan) => plan,
        // A refused form is shown again with its message, so it can be corrected.
        Err(e) => {
            let page = ListPage {
                endpoint,
                params: &shown,
                total: 0,
                rows: &[],
                columns: None,
                media_base: &base,
                facets: None,
                offset: 0,
                limit: 0,
                clamped_from: None,
                error: Some(e.message.clone()),
                ignored: &[],
            };
            return Answer::html_error(e.status, html::list(&site, &served.view, &page));
        }
    };
    let cacheable = plan.cacheable();
    let ignored = plan.ignored().to_vec();
    if cacheable && asked.fresh(&state.settings, &served.view) {
        return Answer::unmade(Kind::Html)
            .with_media(asked.media)
            .ignoring(&ignored);
    }
    debug_assert!(plan.cost().as_page().on_pool());
    state
        .metrics
        .worked_answers
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let view = served.clone();
    let shown_ignored = ignored.clone();
    let make = move || {
        let (offset, limit, columns) = (plan.offset(), plan.limit(), plan.columns());
        let selected = plan.select_page(&view.view);
        let page = ListPage {
            endpoint,
            params: &shown,
            total: selected.total,
            rows: selected.positions(),
            columns,
            media_base: &base,
            facets: selected.facets.as_ref(),
            offset,
            limit,
            clamped_from,
            error: None,
            ignored: &shown_ignored,
        };
        html::list(&site, &view.view, &page)
    };
    let Some(made) = state.work.run(make).await else {
        return refused(served, &ApiError::busy()).retry_after(1);
    };
    let a = Answer::html(made).with_media(asked.media);
    match cacheable {
        true => a.ignoring(&ignored),
        false => a.uncached().ignoring(&ignored),
    }
}

/// A record as a page, written from the view's rows; a taxon's or a place's
/// with what the collection holds of it (its specimen question, counted), which
/// costs work, so those are made on the work pool like a list's page.
pub async fn record(
    state: &Arc<State>,
    served: &Arc<Served>,
    endpoint: Endpoint,
    id: &str,
    asked: &Asked,
) -> Answer {
    let view = &served.view;
    // The same checks as the JSON answer's (a bad `fields` is refused alike).
    let checked = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|p| RecordPlan::parse(endpoint, id, &p.without("format")));
    if let Err(e) = checked {
        return refused(served, &e);
    }
    let Some(pos) = id
        .parse()
        .ok()
        .and_then(|id| view.table(endpoint.model).position(id))
    else {
        return refused(served, &ApiError::not_found("Not found."));
    };
    let media_base = media_url(&state.settings, &asked.headers);
    let site = state.settings.site.clone();
    let make = {
        let served = served.clone();
        move || {
            let view = &served.view;
            let holdings = holdings::question(view, endpoint.model, pos).and_then(|question| {
                let seasons = Seasons::count(view, &question).ok()?;
                Some(Holdings { question, seasons })
            });
            let page = RecordPage {
                endpoint,
                pos,
                media_base: &media_base,
                holdings,
            };
            html::record(&site, view, &page)
        }
    };
    let made = match holdings::asks_for(endpoint.model) {
        true => match state.work.run(make).await {
            Some(made) => made,
            None => return refused(served, &ApiError::busy()).retry_after(1),
        },
        false => make(),
    };
    Answer::html(made).with_media(asked.media)
}
