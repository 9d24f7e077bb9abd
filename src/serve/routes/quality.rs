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
    let json = |view: &View| Answer::json(Bytes::from(report::json(view.derived::<Quality>())));
    Ok(Job::from_view(
        ctx,
        found(ctx),
        Answer::unmade(Kind::Json),
        json,
    ))
}

/// The curator's page.
pub fn page(ctx: Ctx<'_>) -> Parsed<'_> {
    no_parameters(ctx, true)?;
    let site = ctx.state.settings.site.clone();
    let page = move |view: &View| Answer::html(html::quality::page(&site, view));
    Ok(Job::from_view(
        ctx,
        found(ctx),
        Answer::unmade(Kind::Html),
        page,
    ))
}

/// Whether the view's flags are found already.
fn found(ctx: Ctx<'_>) -> bool {
    ctx.served.view.derived_made::<Quality>().is_some()
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
