//! The front page (`/`, and `/api/v2/` for people), the API root document
//! (`/api/v2/` for programs), its redirects, and the API docs viewer.

use crate::html;
use crate::model::endpoint::API_PREFIX;
use crate::serve::answer::Answer;
use crate::serve::root;
use crate::serve::route::{Ctx, Job, Parsed};

/// The API root for programs: every list's URL.
pub fn root(_: Ctx<'_>) -> Parsed<'_> {
    Ok(Job::ready(Answer::json(root::document())))
}

/// The front page for people.
pub fn front(ctx: Ctx<'_>) -> Parsed<'_> {
    Ok(Job::ready(Answer::html(html::home(&ctx.served.view))))
}

/// `/api`, `/api/` and `/api/v2`: redirected to the API root, query kept.
pub fn api(ctx: Ctx<'_>) -> Parsed<'_> {
    let to = API_PREFIX.trim_end_matches('/');
    Ok(Job::ready(Answer::redirect(to, &ctx.asked.raw_query)))
}

/// The API docs viewer: a page whatever the client takes.
pub fn docs(ctx: Ctx<'_>) -> Parsed<'_> {
    Ok(Job::ready(Answer::html(html::docs(&ctx.served.view))))
}
