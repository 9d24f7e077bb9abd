//! One record (`/api/v2/<list>/<id>/`): its rendered JSON, or its page, which
//! for a taxon or a place shows what the collection holds of it (its specimen
//! question, counted on the pool).

use crate::html::{self, Holdings, RecordPage};
use crate::quality::Quality;
use crate::query::holdings::{self, Seasons};
use crate::query::{ApiError, RecordPlan};
use crate::serve::answer::{Answer, Kind};
use crate::serve::media::media_url;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;
use crate::versions;

use super::lists::refused;

/// A record for programs.
pub fn json(ctx: Ctx<'_>) -> Parsed<'_> {
    let (endpoint, id) = (ctx.list()?, ctx.id()?);
    let asked = ctx.asked;
    let plan = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| RecordPlan::parse(endpoint, id, params))
        .map_err(|e| Answer::error(&e))?;
    let view = &ctx.served.view;
    let body = plan.run(view).map_err(|e| {
        // Not found, but deleted in a version the history holds: 410.
        let gone = (e.status == 404)
            .then(|| versions::changes::deleted(view, endpoint.model, id))
            .flatten();
        Answer::error(gone.as_ref().unwrap_or(&e))
    })?;
    Ok(Job::ready(Answer::json(body).with_media(asked.media)))
}

/// A record as a page, written from the view's rows.
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    let (endpoint, id) = (ctx.list()?, ctx.id()?);
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let view = &served.view;
    // The same checks as the JSON answer's (a bad `fields` is refused alike).
    asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|p| RecordPlan::parse(endpoint, id, &p.without("format")))
        .map_err(|e| refused(ctx, &e))?;
    let pos = id
        .parse()
        .ok()
        .and_then(|id| view.table(endpoint.model).position(id))
        .ok_or_else(|| {
            let gone = versions::changes::deleted(view, endpoint.model, id);
            refused(
                ctx,
                gone.as_ref().unwrap_or(&ApiError::not_found("Not found.")),
            )
        })?;
    let media_base = media_url(&state.settings, &asked.headers);
    let origin = crate::serve::origin::origin(state.settings.public_url.as_ref(), &asked.headers);
    let url = format!(
        "{}{}{}/{}/",
        origin.unwrap_or_default(),
        crate::model::endpoint::API_PREFIX,
        endpoint.segment(),
        view.table(endpoint.model).id(pos)
    );
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
                url: &url,
            };
            html::record(&site, view, &page)
        }
    };
    // A specimen's page lists its flags: before the view's are found, on the pool.
    let flags_found = !endpoint.model.policy().quality || view.derived_made::<Quality>().is_some();
    if !holdings::asks_for(endpoint.model) && flags_found {
        return Ok(Job::ready(Answer::html(make()).with_media(asked.media)));
    }
    let head = Answer::unmade(Kind::Html).with_media(asked.media);
    Ok(Job::pooled(head, async move {
        match state.work.run(Task::Answer, make).await {
            Some(made) => Answer::html(made).with_media(asked.media),
            None => refused(ctx, &ApiError::busy()).retry_after(1),
        }
    }))
}
