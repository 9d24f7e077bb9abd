//! The data-quality flags counted (`/api/v2/quality/`, JSON) and the curator's
//! page (`/quality/`, or the same address asked for HTML). Once the view's flags
//! are found (in the background after a load) the answer is made where the
//! request is read; before that, the first ask finds them on the pool.

use bytes::Bytes;

use crate::html;
use crate::quality::{report, Quality};
use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;
use crate::view::View;

/// The counts, as JSON.
pub fn json(ctx: Ctx<'_>) -> Parsed<'_> {
    no_parameters(ctx, false)?;
    // A page is asked for by `Accept` or `format=html`, which never gets here.
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some(format) = params.get("format").filter(|f| *f != "json") {
        let e = ApiError::bad_request(format!("format must be json, not {format:?}"));
        return Err(Answer::error(&e).into());
    }
    made(ctx, Kind::Json, |view| {
        report::json(view.derived::<Quality>())
    })
}

/// The curator's page.
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    no_parameters(ctx, true)?;
    let site = ctx.state.settings.site.clone();
    made(ctx, Kind::Html, move |view| {
        html::quality::page(&site, view).into_bytes()
    })
}

/// The counts take no parameter but `format` (which chose the page or JSON).
fn no_parameters(ctx: Ctx<'_>, page: bool) -> Result<(), Box<Answer>> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let Some((name, _)) = params.without("format").0.into_iter().next() else {
        return Ok(());
    };
    let e = ApiError::bad_request(format!(
        "the quality counts take no parameters ({name} given)"
    ));
    Err(match page {
        true => Answer::html_error(
            e.status,
            html::error(&ctx.served.view, e.status, &e.message),
        ),
        false => Answer::error(&e),
    }
    .into())
}

fn made<F>(ctx: Ctx<'_>, kind: Kind, make: F) -> Parsed<'_>
where
    F: FnOnce(&View) -> Vec<u8> + Send + 'static,
{
    let answer = move |body: Vec<u8>| match kind {
        Kind::Html => Answer::html(String::from_utf8(body).unwrap_or_default()),
        _ => Answer::json(Bytes::from(body)),
    };
    if ctx.served.view.derived_made::<Quality>().is_some() {
        return Ok(Job::ready(answer(make(&ctx.served.view))));
    }
    let (state, served) = (ctx.state, ctx.served.clone());
    Ok(Job::pooled(Answer::unmade(kind), async move {
        match state
            .work
            .run(Task::Answer, move || make(&served.view))
            .await
        {
            Some(body) => answer(body),
            None => Answer::busy(),
        }
    }))
}
