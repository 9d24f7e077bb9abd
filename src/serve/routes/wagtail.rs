//! Wagtail's own `pages` and `documents` endpoints: every answer made on the
//! pool (the page tree is derived there on first use), `HEAD` and
//! revalidations included, so each says what the `GET` says.

use bytes::Bytes;

use crate::query::ApiError;
use crate::serve::answer::Answer;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;
use crate::view::View;
use crate::wagtail::{documents, pages, Tree};

/// A JSON answer made on the pool by `make`, kept by caches unless `cacheable`
/// is false.
fn made<'a>(
    ctx: Ctx<'a>,
    cacheable: bool,
    make: impl FnOnce(&View) -> Result<Vec<u8>, ApiError> + Send + 'static,
) -> Parsed<'a> {
    let (state, served) = (ctx.state, ctx.served);
    Ok(Job::digested(async move {
        let made = served.clone();
        match state.work.run(Task::Answer, move || make(&made.view)).await {
            Some(Ok(body)) => Answer::json(Bytes::from(body)).cacheable(cacheable),
            Some(Err(e)) => Answer::error(&e),
            None => Answer::busy(),
        }
    }))
}

/// The request's parameters, or the answer refusing them.
fn params(ctx: Ctx<'_>) -> Result<crate::query::Params, Box<Answer>> {
    (ctx.asked.params.clone()).map_err(|e| Answer::error(&e).into())
}

/// `/api/v2/pages/`.
pub fn page_list(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = params(ctx)?;
    let cacheable = pages::cacheable(&params);
    made(ctx, cacheable, move |view| {
        pages::list(&params, view.derived::<Tree>())
    })
}

/// `/api/v2/pages/<id>/`.
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    let (params, id) = (params(ctx)?, ctx.id()?.to_string());
    made(ctx, true, move |view| {
        pages::detail(&id, &params, view.derived::<Tree>())
    })
}

/// `/api/v2/pages/find/`: a 302 to the page's item.
pub fn find(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = params(ctx)?;
    let (state, served) = (ctx.state, ctx.served);
    Ok(Job::digested(async move {
        let made = served.clone();
        let job = move || pages::find(&params, made.view.derived::<Tree>());
        match state.work.run(Task::Answer, job).await {
            Some(Ok(location)) => Answer::located(302, location),
            Some(Err(e)) => Answer::error(&e),
            None => Answer::busy(),
        }
    }))
}

/// `/api/v2/documents/`.
pub fn document_list(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = params(ctx)?;
    let cacheable = pages::cacheable(&params);
    made(ctx, cacheable, move |view| {
        documents::list(&params, &view.wagtail.documents, view.derived::<Tree>())
    })
}

/// `/api/v2/documents/<id>/`.
pub fn document(ctx: Ctx<'_>) -> Parsed<'_> {
    let (params, id) = (params(ctx)?, ctx.id()?.to_string());
    made(ctx, true, move |view| {
        documents::detail(
            &id,
            &params,
            &view.wagtail.documents,
            view.derived::<Tree>(),
        )
    })
}
