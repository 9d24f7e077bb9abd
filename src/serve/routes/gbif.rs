//! GBIF's occurrence API (`/gbif/v1/occurrence/search`, `.../count`,
//! `.../{key}`). A search is checked and made on the pool, since its names are
//! looked up in the view's Darwin Core columns, built there the first time any
//! search asks; `HEAD` runs the check, not the search.

use bytes::Bytes;

use crate::query::gbif::{self, answer, Codes, Search};
use crate::query::{ApiError, Params};
use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;
use crate::view::View;

/// What a GBIF request asks for.
#[derive(Clone, Copy)]
enum Asks {
    Search,
    Count,
}

/// `/gbif/v1/occurrence/search`.
pub fn search(ctx: Ctx<'_>) -> Parsed<'_> {
    searched(ctx, Asks::Search)
}

/// `/gbif/v1/occurrence/count`.
pub fn count(ctx: Ctx<'_>) -> Parsed<'_> {
    searched(ctx, Asks::Count)
}

/// `/gbif/v1/occurrence/{key}`: one occurrence, which takes no parameters.
pub fn occurrence(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some((name, _)) = params.0.first() {
        return Err(Answer::error(&ApiError::bad_request(format!(
            "an occurrence takes no parameters ({name} given)"
        )))
        .into());
    }
    let pos = gbif::search::specimen(&ctx.served.view, ctx.id()?).map_err(|e| Answer::error(&e))?;
    Ok(Job::pooled(
        Answer::unmade(Kind::Json),
        made(ctx, move |view, codes| Ok(answer::one(view, codes, pos))),
    ))
}

fn searched(ctx: Ctx<'_>, asks: Asks) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let check = {
        let params = params.clone();
        made(ctx, move |view, _| {
            Search::parse(&params, view).map(|_| Vec::new())
        })
    };
    let params: Params = params.clone();
    let run = made(ctx, move |view, codes| {
        let search = Search::parse(&params, view)?;
        let found = search.run(view);
        Ok(match asks {
            Asks::Count => found.count.to_string().into_bytes(),
            Asks::Search => answer::search(view, codes, &search, &found),
        })
    });
    Ok(Job::checked(
        async move {
            match check.await {
                a if a.status == 200 => Answer::unmade(Kind::Json),
                refused => refused,
            }
        },
        run,
    ))
}

/// `make`'s body as the JSON answer, made on the pool.
async fn made<F>(ctx: Ctx<'_>, make: F) -> Answer
where
    F: FnOnce(&View, Codes<'_>) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    let served = ctx.served.clone();
    let dataset = ctx.served.view.dataset.clone();
    let job = move || {
        let codes = Codes {
            institution: &dataset.institution_code,
            collection: &dataset.collection_code,
        };
        make(&served.view, codes)
    };
    match ctx.state.work.run(Task::Answer, job).await {
        Some(Ok(body)) => Answer::json(Bytes::from(body)),
        Some(Err(e)) => Answer::error(&e),
        None => Answer::busy(),
    }
}
