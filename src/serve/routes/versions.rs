//! The versions (`/api/v2/versions/`, its page, `/versions.atom`,
//! `/versions.rss`) and the changes since one (`/api/v2/changes/`): small
//! answers made from the view's history where the request is read. Those
//! linking the versions kept (`NAME.versions/`, which `sync` writes after the
//! snapshot a server may have loaded already) list the folder again when
//! it changed (`Served::kept_versions`) and are tagged by their bytes.

use std::sync::Arc;

use bytes::Bytes;

use crate::html;
use crate::serve::answer::{Answer, Kind, Modified};
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;
use crate::snapshot::status::Status;
use crate::versions;
use crate::versions::publishing::Report;
use crate::view::View;

/// The versions whose archive and `eml.xml` are kept, ascending.
pub(super) fn kept(ctx: &Ctx<'_>) -> Arc<[u64]> {
    let dir = ctx.state.settings.versions_dir.as_deref();
    dir.map_or_else(|| Arc::from([]), |d| ctx.served.kept_versions(d))
}

/// When what an answer linking the versions kept is made from last changed:
/// the snapshot, or the versions' folder (a version kept, pruned or moved
/// away), whichever is later.
fn kept_modified(ctx: &Ctx<'_>) -> Modified {
    let snapshot = ctx.served.view.header.created_at;
    let dir = ctx.state.settings.versions_dir.as_deref();
    match dir.and_then(|d| std::fs::metadata(d).ok()) {
        Some(meta) => Modified::of(&meta).or_later(snapshot),
        None => Modified::Snapshot,
    }
}

/// An answer linking the versions kept, tagged by its bytes' digest.
fn digested(ctx: &Ctx<'_>, kind: Kind, body: Vec<u8>) -> Answer {
    let tag = crate::export::dwca::tag_of(&body);
    Answer::tagged(kind, Bytes::from(body), tag, None).modified(kept_modified(ctx))
}

/// The versions' list, as JSON.
pub fn list(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let page = versions::list::versions_request(params).map_err(|e| Answer::error(&e))?;
    let body = versions::list::versions_json(&ctx.served.view, page, &kept(&ctx));
    Ok(Job::ready(digested(&ctx, Kind::Json, body)))
}

/// The versions' list, as a page.
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    let view = &ctx.served.view;
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Err(e) = versions::list::versions_request(&params.without("format")) {
        let page = html::error(view, e.status, &e.message);
        return Err(Answer::html_error(e.status, page).into());
    }
    let page = versions::page::page(view, &kept(&ctx));
    Ok(Job::ready(digested(&ctx, Kind::Html, page.into_bytes())))
}

/// What the snapshot published and held back, as JSON: sliced from the
/// report made once per view ([`Report`]), on the pool the first time when
/// it is large. How publishing stands (`ctx.state.publishing()`) changes
/// without the view: the answer is tagged by it too, dated only while
/// nothing stands in the way, and asked again by a cache before each use
/// (`Cache-Control: no-cache`).
pub fn publishing(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let page = versions::publishing::publishing_request(params).map_err(|e| Answer::error(&e))?;
    let status = ctx.state.publishing();
    let view = &ctx.served.view;
    let mut said = ctx.asked.tag(&ctx.state.settings, view).to_string();
    said.push_str(&serde_json::to_string(&status).unwrap_or_default());
    let tag = crate::export::dwca::tag_of(said.as_bytes());
    let modified = status_modified(&status);
    let ready = view.held.len() < POOLED_ABOVE || view.derived_made::<Report>().is_some();
    let head = unstored_parts(Vec::new(), tag.clone(), modified);
    let make = move |view: &View| {
        let parts = view.derived::<Report>().parts(page, &status);
        unstored_parts(parts, tag, modified)
    };
    Ok(Job::from_view(ctx, ready, head, make))
}

/// When what a publishing answer says last changed: the snapshot's time
/// while nothing stands in the way; else none (a problem comes and goes
/// without the view).
fn status_modified(status: &Status) -> Modified {
    match *status == Status::default() {
        true => Modified::Snapshot,
        false => Modified::Unknown,
    }
}

/// A JSON answer of `parts` tagged `tag`, which a cache asks again before
/// each use.
fn unstored_parts(parts: Vec<Bytes>, tag: String, modified: Modified) -> Answer {
    Answer::json_parts(parts, Some(tag))
        .cache_control("no-cache")
        .modified(modified)
}

/// How many records held back make the report work for the pool.
const POOLED_ABOVE: usize = 1000;

/// What the snapshot published and held back, as a page: on the pool when
/// many are held back.
pub fn publishing_page(ctx: Ctx<'_>) -> Parsed<'_> {
    let view = &ctx.served.view;
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Err(e) = versions::publishing::page_request(&params.without("format")) {
        let page = html::error(view, e.status, &e.message);
        return Err(Answer::html_error(e.status, page).into());
    }
    let status = ctx.state.publishing();
    let modified = status_modified(&status);
    let make = move |view: &View| {
        let page = versions::publishing::page(view, &status).into_bytes();
        let tag = crate::export::dwca::tag_of(&page);
        Answer::tagged(Kind::Html, Bytes::from(page), tag, Some("no-cache")).modified(modified)
    };
    if view.held.len() < POOLED_ABOVE {
        return Ok(Job::ready(make(view)));
    }
    // Tagged by its bytes: `HEAD` and a revalidation make it too.
    let (state, served) = (ctx.state, ctx.served.clone());
    Ok(Job::digested(async move {
        let made = state.work.run(Task::Answer, move || make(&served.view));
        made.await.unwrap_or_else(Answer::busy)
    }))
}

/// The versions as an Atom feed, its links absolute (so tagged by its own
/// digest: another address, another body).
pub fn feed(ctx: Ctx<'_>) -> Parsed<'_> {
    let origin = feed_origin(&ctx, crate::model::endpoint::FEED_PATH)?;
    let body = versions::feed::atom(&ctx.served.view, &origin, &kept(&ctx));
    Ok(Job::ready(
        digested(&ctx, Kind::Atom, body.into_bytes()).addressed(),
    ))
}

/// The versions as RSS in the IPT's form, its links absolute.
pub fn rss(ctx: Ctx<'_>) -> Parsed<'_> {
    let origin = feed_origin(&ctx, crate::model::endpoint::RSS_PATH)?;
    let body = versions::rss::rss(&ctx.served.view, &origin, &kept(&ctx));
    Ok(Job::ready(
        digested(&ctx, Kind::Rss, body.into_bytes()).addressed(),
    ))
}

/// Where a feed's links start; a feed takes no parameters.
fn feed_origin(ctx: &Ctx<'_>, path: &str) -> Result<String, Box<Answer>> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some((name, _)) = params.0.first() {
        let e =
            crate::query::ApiError::bad_request(format!("{path} takes no parameters, not {name}"));
        return Err(Answer::error(&e).into());
    }
    let settings = &ctx.state.settings;
    Ok(origin(settings.public_url.as_ref(), &ctx.asked.headers).unwrap_or_default())
}

/// What changed since a version.
pub fn changes(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let request = versions::changes::changes_request(params).map_err(|e| Answer::error(&e))?;
    let history = &ctx.served.view.history;
    let since =
        versions::changes::resolve(history, &request.since).map_err(|e| Answer::error(&e))?;
    let ready = versions::changes::cheap(history, since);
    let make = move |view: &View| match versions::changes::changes_json(view, since, request.page) {
        Ok(body) => Answer::json(Bytes::from(body)),
        Err(e) => Answer::error(&e),
    };
    Ok(Job::from_view(ctx, ready, Answer::unmade(Kind::Json), make))
}

/// How to cite a version, in the format asked (tagged by its own digest: the
/// link may be the address it was asked at).
pub fn citation(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let request = versions::citation::citation_request(params).map_err(|e| Answer::error(&e))?;
    let settings = &ctx.state.settings;
    let origin = origin(settings.public_url.as_ref(), &ctx.asked.headers).unwrap_or_default();
    let today = chrono::Utc::now().date_naive();
    let body = versions::citation::citation(&ctx.served.view, request, &origin, today)
        .map_err(|e| Answer::error(&e))?;
    let tag = crate::export::dwca::tag_of(body.as_bytes());
    let kind = Kind::Text {
        content_type: request.style.content_type(),
    };
    // Without `accessed`, the day the request is answered is in it.
    let modified = match request.accessed {
        Some(_) => Modified::Snapshot,
        None => Modified::Unknown,
    };
    let answer = Answer::tagged(kind, Bytes::from(body), tag, None);
    Ok(Job::ready(answer.modified(modified).addressed()))
}
