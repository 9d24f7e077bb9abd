//! Wagtail's own image list (`/api/v2/images/`) and one image: a run of the
//! images rendered once, cut on the async workers; any other selection written
//! on the pool.

use crate::query::images::{ImagePlan, ImagesPlan};
use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;

/// The image list.
pub fn list(ctx: Ctx<'_>) -> Parsed<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let plan = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| ImagesPlan::parse(params, &state.settings.limits))
        .map_err(|e| Answer::error(&e))?;
    let head = Answer::unmade(Kind::Json)
        .with_media(asked.media)
        .cacheable(plan.cacheable());
    if !plan.cost().on_pool() {
        let page = Answer::items(plan.run(&served.view));
        return Ok(Job::cheap(head, page.with_media(asked.media)));
    }
    Ok(Job::pooled(head, async move {
        let made = served.clone();
        match state
            .work
            .run(Task::Answer, move || plan.run(&made.view))
            .await
        {
            Some(page) => Answer::items(page).with_media(asked.media),
            None => Answer::busy(),
        }
    }))
}

/// One image.
pub fn one(ctx: Ctx<'_>) -> Parsed<'_> {
    let (asked, id) = (ctx.asked, ctx.id()?);
    let plan = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|p| ImagePlan::parse(id, p))
        .map_err(|e| Answer::error(&e))?;
    let body = plan.run(&ctx.served.view).map_err(|e| Answer::error(&e))?;
    Ok(Job::ready(Answer::json(body).with_media(asked.media)))
}
