//! GBIF's occurrence API (`/gbif/v1/occurrence/search`, `.../count`,
//! `.../{key}`). A search is checked and made on the pool, since its names are
//! looked up in the view's Darwin Core columns, built there the first time any
//! search asks; `HEAD` runs the check, not the search.

use bytes::Bytes;

use crate::model::dataset::Dataset;
use crate::query::gbif::{self, answer, Search};
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
    let (view, key) = (&ctx.served.view, ctx.id()?);
    let pos = gbif::search::specimen(view, key).map_err(|e| {
        Answer::error(&crate::versions::changes::deleted_occurrence(view, key).unwrap_or(e))
    })?;
    Ok(Job::pooled(
        Answer::unmade(Kind::Json),
        made(ctx, move |view, dataset| {
            Ok(answer::one(view, dataset, pos))
        }),
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
    let run = made(ctx, move |view, dataset| {
        let search = Search::parse(&params, view)?;
        let found = search.run(view);
        Ok(match asks {
            Asks::Count => found.count.to_string().into_bytes(),
            Asks::Search => answer::search(view, dataset, &search, &found),
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
    F: FnOnce(&View, &Dataset) -> Result<Vec<u8>, ApiError> + Send + 'static,
{
    let served = ctx.served.clone();
    let dataset = ctx.served.view.dataset.clone();
    let job = move || make(&served.view, &dataset);
    match ctx.state.work.run(Task::Answer, job).await {
        Some(Ok(body)) => Answer::json(Bytes::from(body)),
        Some(Err(e)) => Answer::error(&e),
        None => Answer::busy(),
    }
}
