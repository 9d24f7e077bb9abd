//! The answers that are pages for people (`html`): a list's plan runs as for
//! JSON, on the same threads by the same rules, and `html` writes its rows; a
//! record's rendered item is read back and written field by field.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::{Map, Value as Json};

use crate::html::{self, ListPage};
use crate::model::Endpoint;
use crate::query::{ApiError, Plan, RecordPlan};

use super::answer::{Answer, Kind};
use super::asked::Asked;
use super::media::{self, media_url};
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

/// The items of a page with their media URLs filled in, read back as objects.
fn read_items(parts: Bytes, base: Option<&str>) -> Vec<Map<String, Json>> {
    let mut json = Vec::with_capacity(parts.len() + 2);
    json.push(b'[');
    json.extend_from_slice(&parts);
    json.push(b']');
    let json = match base {
        Some(base) => media::splice(Bytes::from(json), base.as_bytes()),
        None => Bytes::from(json),
    };
    serde_json::from_slice(&json).unwrap_or_else(|e| {
        tracing::error!(error = %e, "a rendered page does not read back as JSON");
        Vec::new()
    })
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

/// A record as a page.
pub fn record(
    state: &Arc<State>,
    served: &Arc<Served>,
    endpoint: Endpoint,
    id: &str,
    asked: &Asked,
) -> Answer {
    let view = &served.view;
    let made = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|p| RecordPlan::parse(endpoint, id, &p.without("format")))
        .and_then(|plan| plan.run(view));
    let body = match made {
        Ok(body) => body,
        Err(e) => return refused(served, &e),
    };
    let mut items = read_items(body, asked.media_base(&state.settings));
    let (Some(item), Some(pos)) = (
        items.pop(),
        id.parse()
            .ok()
            .and_then(|id| view.table(endpoint.model).position(id)),
    ) else {
        return refused(served, &ApiError::not_found("Not found."));
    };
    Answer::html(html::record(
        &state.settings.site,
        view,
        endpoint,
        pos as usize,
        &item,
    ))
    .with_media(asked.media)
}
