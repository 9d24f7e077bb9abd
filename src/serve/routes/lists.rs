//! The lists (`/api/v2/<list>/`): a page cut from the rendered list, or made on
//! the pool (whole, or streamed when large); a download (`downloads`); or, for
//! people, a page of rows written on the pool.

use std::ops::Range;

use bytes::Bytes;

use crate::html::{self, ListPage};
use crate::model::endpoint::API_PREFIX;
use crate::query::plan::Selected;
use crate::query::{ApiError, Format, Page, Params, Plan};
use crate::serve::answer::{Answer, Kind};
use crate::serve::compress::{Coding, COMPRESS_BELOW};
use crate::serve::media::media_url;
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed, Run};
use crate::serve::work::Task;
use crate::suggest::Suggestions;
use crate::versions::question_feed;
use crate::view::View;

use super::{downloads, photographs};

/// Answers that may be larger than this are written as they are sent rather than
/// made whole first (and are not compressed: compression stops at this size).
const STREAM_ABOVE: usize = COMPRESS_BELOW;

/// An expensive answer from the pool: made whole, or only chosen.
enum Made {
    Whole(Page),
    Chosen(Box<Selected>),
}

/// A list for programs.
pub fn json(ctx: Ctx<'_>) -> Parsed<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let endpoint = ctx.list()?;
    let plan = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| Plan::parse(endpoint, params, &state.settings.limits))
        .map_err(|e| Answer::error(&e))?;
    let (ignored, repeated) = (plan.ignored().to_vec(), plan.repeated().to_vec());
    let ignoring = move |a: Answer| a.ignoring(&ignored).repeating(&repeated);
    match plan.format() {
        Format::Zip => return Ok(photographs::answer(ctx, plan).map_answers(ignoring)),
        Format::Atom => return Ok(feed(ctx, plan).map_answers(ignoring)),
        _ => {}
    }
    if plan.format().download() {
        return Ok(downloads::answer(ctx, plan).map_answers(ignoring));
    }
    let (kind, media, cacheable) = (Kind::of(plan.format()), asked.media, plan.cacheable());
    let head = move || Answer::unmade(kind).with_media(media).cacheable(cacheable);
    let assembled = plan.assembled(&served.view);
    // A long slice's length is its items' lengths: where they are not all
    // rendered yet (the view was served moments ago), they are rendered on
    // the pool first, never on the threads that read requests.
    if let Some(items) = assembled.clone() {
        if !served.view.list(endpoint).made_in(items.clone()) {
            let made = served.clone();
            return Ok(Job::made_whole(head(), async move {
                let make = move || made.view.list(endpoint).make_in(items);
                if state.work.run(Task::Answer, make).await.is_none() {
                    return Answer::busy();
                }
                match answered(ctx, plan, head(), assembled).map(|job| job.run) {
                    Ok(Run::Ready(answer)) => answer,
                    Ok(Run::Later(later)) => later.await,
                    Err(refused) => *refused,
                }
            })
            .map_answers(ignoring));
        }
    }
    Ok(answered(ctx, plan, head(), assembled)?.map_answers(ignoring))
}

/// A list's page, as a slice of its rendered items (a long slice of a list
/// made of fragments, its `assembled` items, copied as it is sent), or made
/// on the pool; `head` its headers.
fn answered(ctx: Ctx<'_>, plan: Plan, head: Answer, assembled: Option<Range<usize>>) -> Parsed<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let endpoint = plan.endpoint();
    if let Some(items) = assembled.clone() {
        if let Some(answer) = sent_assembled(ctx, &plan, items) {
            return Ok(Job::cheap(head, answer?.with_media(asked.media)));
        }
    }
    if !plan.cost().on_pool() && assembled.is_none() {
        let page = Answer::page(endpoint, plan.run(&served.view));
        return Ok(Job::cheap(head, page.with_media(asked.media)));
    }
    let made = async move {
        let chosen = served.clone();
        let job = move || {
            let selected = plan.select_page(&chosen.view);
            match selected.size_bound(&chosen.view) < STREAM_ABOVE {
                true => Made::Whole(selected.into_page(&chosen.view)),
                false => Made::Chosen(Box::new(selected)),
            }
        };
        let answer = match state.work.run(Task::Answer, job).await {
            Some(Made::Whole(page)) => Answer::page(endpoint, page),
            Some(Made::Chosen(selected)) => {
                match state.streams.admit(asked.peer, selected.items()) {
                    Ok(ticket) => {
                        Answer::streamed(*selected, served.clone(), state.work.clone(), ticket)
                    }
                    Err(full) => return Answer::streams_full(&full),
                }
            }
            None => return Answer::busy(),
        };
        answer.with_media(asked.media)
    };
    Ok(match assembled {
        Some(_) => Job::made_whole(head, made),
        None => Job::pooled(head, made),
    })
}

/// A list question's feed (`format=atom`): the question's records' changes
/// in the versions, made on the pool (it runs the question's filters), its
/// links where it was asked, tagged by its bytes.
fn feed(ctx: Ctx<'_>, plan: Plan) -> Job<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let settings = &state.settings;
    let origin = origin(settings.public_url.as_ref(), &asked.headers).unwrap_or_default();
    let query = (asked.params.as_ref().ok())
        .map(|p| p.given().without("format").to_query())
        .unwrap_or_default();
    let made = served.clone();
    Job::digested(async move {
        let make = move || question_feed::atom(&made.view, &plan, &origin, &query);
        let Some(body) = state.work.run(Task::Answer, make).await else {
            return Answer::busy();
        };
        let tag = crate::export::dwca::tag_of(body.as_bytes());
        Answer::tagged(Kind::Atom, Bytes::from(body), tag, None).addressed()
    })
}

/// A long slice of a list made of fragments (its `items`), copied together
/// as it is sent with the media base put in ([`Answer::assembled`]); `None` when
/// a client that takes compression asks for less than the size compression
/// stops at: it is then made whole on the pool and compressed (and made for a
/// `HEAD` too, so that its headers name the coding, as the slice it replaces
/// did).
fn sent_assembled(
    ctx: Ctx<'_>,
    plan: &Plan,
    items: Range<usize>,
) -> Option<Result<Answer, Answer>> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let endpoint = plan.endpoint();
    let list = served.view.list(endpoint);
    let long = list.run_len(items.clone(), false, None) >= STREAM_ABOVE;
    if !long && asked.coding != Coding::Identity {
        return None;
    }
    let base = (list.has_media_in(items.start, items.end))
        .then(|| asked.media_base(&state.settings))
        .flatten()
        .map(|b| Bytes::copy_from_slice(b.as_bytes()));
    // Its pieces count against the streams' memory; past the size of a page
    // made whole, it is a document too, of one unit of the streams' share
    // however long, as a file would be.
    let ticket = match long {
        true => state.streams.admit(asked.peer, 0),
        false => Ok(state.streams.pieces(asked.peer)),
    };
    let answer = ticket.map(|ticket| {
        let slice = (endpoint, plan.format());
        Answer::assembled(slice, items, served.clone(), base, ticket)
    });
    Some(answer.map_err(|full| Answer::streams_full(&full)))
}

/// A list as a page: at most `html::MAX_ROWS` rows, written from the view's rows;
/// the specimen list counts its facets for the form's side. Always written on
/// the pool: a page's rows are written anew, so it is never a slice of rendered
/// bytes (`Cost::as_page`).
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let endpoint = ctx.list()?;
    // What a form sends: its empty fields are no filter, no limit.
    let params = match &asked.params {
        Ok(p) => p.without("format").given(),
        Err(e) => return Err(refused(ctx, e).into()),
    };
    let mut shown = params.clone();
    // The form's text fields match without regard to accents (`quebec` finds
    // Québec) unless the request says otherwise; the page's map, chart and
    // label sheets then ask the same (`html::unaccented`).
    let params = html::unaccented(endpoint.model, &params);
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
    let label_codes = state.settings.label_codes();
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
                repeated: &[],
                label_codes,
                did_you_mean: &[],
            };
            return Err(
                Answer::html_error(e.status, html::list(&site, &served.view, &page)).into(),
            );
        }
    };
    let cacheable = plan.cacheable();
    let (ignored, repeated) = (plan.ignored().to_vec(), plan.repeated().to_vec());
    debug_assert!(plan.cost().as_page().on_pool());
    let head = Answer::unmade(Kind::Html)
        .with_media(asked.media)
        .cacheable(cacheable);
    let view = served.clone();
    let (shown_ignored, shown_repeated) = (ignored.clone(), repeated.clone());
    let make = move || {
        let (offset, limit, columns) = (plan.offset(), plan.limit(), plan.columns());
        let selected = plan.select_page(&view.view);
        let did_you_mean = match selected.total {
            0 => did_you_mean(&view.view, &shown),
            _ => Vec::new(),
        };
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
            repeated: &shown_repeated,
            label_codes,
            did_you_mean: &did_you_mean,
        };
        html::list(&site, &view.view, &page)
    };
    let job = Job::pooled(head, async move {
        let Some(made) = state.work.run(Task::Answer, make).await else {
            return refused(ctx, &ApiError::busy()).retry_after(1);
        };
        Answer::html(made)
            .with_media(asked.media)
            .cacheable(cacheable)
    });
    Ok(job.map_answers(move |a| a.ignoring(&ignored).repeating(&repeated)))
}

/// How many names a search that finds nothing is offered.
const DID_YOU_MEAN: usize = 5;

/// What the suggestions make of a page's `search` when it finds nothing (a
/// misspelt name, one heard rather than read: `nefia` for Nephia): each
/// suggested record's name and address, best first; none without a search.
fn did_you_mean(view: &View, params: &Params) -> Vec<(String, String)> {
    let Some(typed) = params.get("search").filter(|s| !s.trim().is_empty()) else {
        return Vec::new();
    };
    view.derived::<Suggestions>()
        .find(view, typed, &[], DID_YOU_MEAN)
        .iter()
        .map(|s| {
            let id = view.table(s.model).id(s.pos);
            (
                s.label.to_string(),
                format!("{API_PREFIX}{}/{id}/", s.model.path()),
            )
        })
        .collect()
}

/// A refusal as a page, not to be cached.
pub fn refused(ctx: Ctx<'_>, e: &ApiError) -> Answer {
    Answer::html_error(
        e.status,
        html::error(&ctx.served.view, e.status, &e.message),
    )
}
