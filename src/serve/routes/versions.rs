//! The versions (`/api/v2/versions/`, its page, `/versions.atom`,
//! `/versions.rss`) and the changes since one (`/api/v2/changes/`): small
//! answers made from the view's history where the request is read. Those
//! linking the versions kept (`NAME.versions/`, which `sync` writes after the
//! snapshot a server may have loaded already) read the folder each time and
//! are tagged by their bytes.

use bytes::Bytes;

use crate::html;
use crate::serve::answer::{Answer, Kind};
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::versions;

/// The versions whose archive and `eml.xml` are kept, ascending.
pub(super) fn kept(ctx: &Ctx<'_>) -> Vec<u64> {
    let dir = ctx.state.settings.versions_dir.as_deref();
    dir.map(crate::snapshot::kept::numbers).unwrap_or_default()
}

/// An answer tagged by its bytes' digest.
fn digested(kind: Kind, body: Vec<u8>) -> Answer {
    let tag = crate::export::dwca::tag_of(&body);
    Answer::tagged(kind, Bytes::from(body), tag, None)
}

/// The versions' list, as JSON.
pub fn list(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let page = versions::list::versions_request(params).map_err(|e| Answer::error(&e))?;
    let body = versions::list::versions_json(&ctx.served.view, page, &kept(&ctx));
    Ok(Job::ready(digested(Kind::Json, body)))
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
    Ok(Job::ready(digested(Kind::Html, page.into_bytes())))
}

/// An answer tagged by its bytes that a cache asks again before each use
/// (`Cache-Control: no-cache`): how publishing stands changes under the view.
fn unstored(kind: Kind, body: Vec<u8>) -> Answer {
    let tag = crate::export::dwca::tag_of(&body);
    Answer::tagged(kind, Bytes::from(body), tag, Some("no-cache"))
}

/// What the snapshot published and held back, as JSON.
pub fn publishing(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    versions::publishing::publishing_request(params).map_err(|e| Answer::error(&e))?;
    let status = ctx.state.publishing();
    let body = versions::publishing::publishing_json(&ctx.served.view, &status);
    Ok(Job::ready(unstored(Kind::Json, body.into_bytes())))
}

/// What the snapshot published and held back, as a page.
pub fn publishing_page(ctx: Ctx<'_>) -> Parsed<'_> {
    let view = &ctx.served.view;
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Err(e) = versions::publishing::publishing_request(&params.without("format")) {
        let page = html::error(view, e.status, &e.message);
        return Err(Answer::html_error(e.status, page).into());
    }
    let page = versions::publishing::page(view, &ctx.state.publishing());
    Ok(Job::ready(unstored(Kind::Html, page.into_bytes())))
}

/// The versions as an Atom feed, its links absolute (so tagged by its own
/// digest: another address, another body).
pub fn feed(ctx: Ctx<'_>) -> Parsed<'_> {
    let origin = feed_origin(&ctx, crate::model::endpoint::FEED_PATH)?;
    let body = versions::feed::atom(&ctx.served.view, &origin, &kept(&ctx));
    Ok(Job::ready(digested(Kind::Atom, body.into_bytes())))
}

/// The versions as RSS in the IPT's form, its links absolute.
pub fn rss(ctx: Ctx<'_>) -> Parsed<'_> {
    let origin = feed_origin(&ctx, crate::model::endpoint::RSS_PATH)?;
    let body = versions::rss::rss(&ctx.served.view, &origin, &kept(&ctx));
    Ok(Job::ready(digested(Kind::Rss, body.into_bytes())))
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
    let body = versions::changes::changes_json(&ctx.served.view, &request)
        .map_err(|e| Answer::error(&e))?;
    Ok(Job::ready(Answer::json(Bytes::from(body))))
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
    Ok(Job::ready(Answer::tagged(
        kind,
        Bytes::from(body),
        tag,
        None,
    )))
}
