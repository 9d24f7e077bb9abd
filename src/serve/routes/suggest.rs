//! Suggestions as one types (`/api/v2/suggest/`) and GBIF's
//! (`/gbif/v1/species/suggest`, `/gbif/v1/occurrence/search/{term}`). Once
//! the view's index is built (in the background after a load) an answer is
//! a few microseconds and made where the request is read; before that, the
//! first asks build it on the pool.

use bytes::Bytes;

use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::suggest::gbif::{self, SpeciesRequest, TermNames, TermRequest};
use crate::suggest::{self, SuggestRequest, Suggestions};
use crate::view::View;

/// `/api/v2/suggest/`.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let request = parse(ctx, SuggestRequest::parse)?;
    let ready = ctx.served.view.derived_made::<Suggestions>().is_some();
    made(ctx, ready, move |view| suggest::json(view, &request))
}

/// `/gbif/v1/species/suggest`.
pub fn species(ctx: Ctx<'_>) -> Parsed<'_> {
    let request = parse(ctx, SpeciesRequest::parse)?;
    let ready = ctx.served.view.derived_made::<Suggestions>().is_some();
    made(ctx, ready, move |view| gbif::species(view, &request))
}

/// `/gbif/v1/occurrence/search/{term}`: 404 for a term whose values are not
/// suggested.
pub fn term(ctx: Ctx<'_>) -> Parsed<'_> {
    let term = ctx.id()?;
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let request = match TermRequest::parse(term, params) {
        Some(request) => request.map_err(|e| Answer::error(&e))?,
        None => {
            return Err(Answer::error(&ApiError::not_found(format!(
                "no suggestions for {term:?}: values are suggested for {}",
                gbif::TERMS.join(", ")
            )))
            .into())
        }
    };
    let view = &ctx.served.view;
    let ready = match request.term {
        "catalogNumber" => view.derived_made::<Suggestions>().is_some(),
        _ => view.derived_made::<TermNames>().is_some(),
    };
    made(ctx, ready, move |view| gbif::term_values(view, &request))
}

fn parse<'a, T>(
    ctx: Ctx<'a>,
    read: impl FnOnce(&crate::query::Params) -> Result<T, ApiError>,
) -> Result<T, Box<Answer>> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    read(params).map_err(|e| Answer::error(&e).into())
}

/// The JSON `make` writes: made now when its index is `ready`, else on the
/// pool, which builds the index.
fn made<F>(ctx: Ctx<'_>, ready: bool, make: F) -> Parsed<'_>
where
    F: FnOnce(&View) -> Vec<u8> + Send + 'static,
{
    let json = move |view: &View| Answer::json(Bytes::from(make(view)));
    Ok(Job::from_view(ctx, ready, Answer::unmade(Kind::Json), json))
}
