//! The versions (`/api/v2/versions/`, its page, `/versions.atom`,
//! `/versions.rss`) and the changes since one (`/api/v2/changes/`): small
//! answers made from the view's history where the request is read. Those
//! linking the versions kept (`NAME.versions/`, which `sync` writes after the
//! snapshot a server may have loaded already) read the folder each time and
//! are tagged by their bytes.

use bytes::Bytes;

use crate::html;
use crate::serve::answer::{Answer, Caching, Kind};
use crate::snapshot::status::Status;
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::versions;
use crate::versions::publishing::Report;
use crate::view::View;

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

/// The tag of how publishing stands, as `status` says it, answered at
/// `ctx`: the view's tag for the request where nothing stands in the way,
/// else with the problems' too (they change without the view).
fn publishing_tag(ctx: &Ctx<'_>, status: &Status) -> String {
    let tag = ctx.asked.tag(&ctx.state.settings, &ctx.served.view);
    match status.problems.is_empty() {
        true => tag.to_string(),
        false => {
            let said = serde_json::to_string(status).expect("a status is JSON");
            crate::export::dwca::tag_of(format!("{tag}{said}").as_bytes())
        }
    }
}

/// `answer`, tagged `tag`, which a cache asks again before each use
/// (`Cache-Control: no-cache`): how publishing stands changes under the
/// view, from the dataset file and the sync beside the snapshot.
fn unstored(mut answer: Answer, tag: String) -> Answer {
    answer.caching = Caching::Own {
        tag,
        cache_control: Some("no-cache"),
    };
    answer
}

/// What the snapshot published and held back, as JSON: sliced from the
/// report made once per view ([`Report`]), on the pool the first time when
/// it is large; with what stands in the way of publishing
/// (`State::publishing`), which also tags it.
pub fn publishing(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let page = versions::publishing::publishing_request(params).map_err(|e| Answer::error(&e))?;
    let status = ctx.state.publishing();
    let view = &ctx.served.view;
    let tag = publishing_tag(&ctx, &status);
    let ready = view.held.len() < POOLED_ABOVE || view.derived_made::<Report>().is_some();
    let head = unstored(Answer::json_parts(Vec::new(), None), tag.clone());
    let make = move |view: &View| {
        let report = view.derived::<Report>();
        unstored(Answer::json_parts(report.parts(page, &status), None), tag)
    };
    Ok(Job::from_view(ctx, ready, head, make))
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
    let tag = publishing_tag(&ctx, &status);
    let ready = view.held.len() < POOLED_ABOVE;
    let head = unstored(Answer::unmade(Kind::Html), tag.clone());
    let make = move |view: &View| {
        unstored(Answer::html(versions::publishing::page(view, &status)), tag)
    };
    Ok(Job::from_view(ctx, ready, head, make))
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
