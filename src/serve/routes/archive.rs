//! The Darwin Core Archive (`/dwca.zip`): the whole collection's, made once per
//! view by the first request that asks; or a specimen question's, made for the
//! request on the pool, its `eml.xml` naming the question and the snapshot.

use std::sync::Arc;
use std::time::Instant;

use crate::export::dwca::{self, eml_xml, Archive, Scope};
use crate::query::question::Question;
use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::state::{Served, State};
use crate::serve::work::Task;

use super::downloads::file_name;

/// Answers `/dwca.zip`, of the whole collection or of a question.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if params.0.is_empty() {
        return Ok(Job::awaited(whole(ctx.state, ctx.served)));
    }
    let question = Question::parse(params, &[], "/dwca.zip").map_err(|e| Answer::error(&e))?;
    let ignored = question.ignored().to_vec();
    let name = file_name(&ctx.served.view, "specimen-records-dwca", params, "zip");
    let (state, served) = (ctx.state, ctx.served);
    // Its tag is its bytes' digest (they depend on the dataset's settings too).
    Ok(Job::digested(async move {
        of_question(state, served, question, name)
            .await
            .ignoring(&ignored)
    }))
}

/// Answers `/eml.xml`: the whole dataset's metadata, the whole archive's
/// `eml.xml`, as GBIF's IPT serves it beside its archives. Tagged by its bytes'
/// digest, since the dataset's settings make them too.
pub fn eml(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some((name, _)) = params.0.first() {
        let e = ApiError::bad_request(format!(
            "/eml.xml takes no parameters, not {name}: a question's metadata is the \
             eml.xml inside its /dwca.zip"
        ));
        return Err(Answer::error(&e).into());
    }
    let body = eml_xml(
        &ctx.served.view,
        &ctx.state.settings.dataset,
        Scope::Everything,
    );
    let tag = dwca::tag_of(body.as_bytes());
    Ok(Job::ready(Answer::tagged(
        Kind::Xml,
        body.into(),
        tag,
        None,
    )))
}

/// Why an archive could not be made, said to the client (and logged).
fn unmakeable(e: impl std::fmt::Display) -> Answer {
    tracing::error!(error = %e, "cannot make the Darwin Core Archive");
    Answer::error(&ApiError {
        status: 500,
        message: format!("cannot make the Darwin Core Archive: {e}"),
    })
}

/// The whole collection's archive: made once, off the async workers, by the
/// first request that asks (others asking meanwhile wait for the same one).
async fn whole(state: &State, served: &Arc<Served>) -> Answer {
    let made = served
        .archive
        .get_or_try_init(|| {
            let (served, dataset) = (served.clone(), state.settings.dataset.clone());
            async move {
                let started = Instant::now();
                let made =
                    tokio::task::spawn_blocking(move || Archive::new(&served.view, &dataset))
                        .await
                        .map_err(|e| e.to_string())?
                        .map_err(|e| e.to_string())?;
                tracing::info!(
                    bytes = made.bytes.len(),
                    ms = started.elapsed().as_millis() as u64,
                    "Darwin Core Archive made"
                );
                Ok::<_, String>(made)
            }
        })
        .await;
    match made {
        Ok(archive) => Answer::tagged(Kind::Zip, archive.bytes.clone(), archive.etag.clone(), None),
        Err(e) => unmakeable(e),
    }
}

/// A question's archive: its records chosen, then zipped, on the pool.
async fn of_question(
    state: &Arc<State>,
    served: &Arc<Served>,
    question: Question,
    name: String,
) -> Answer {
    let (made, dataset) = (served.clone(), state.settings.dataset.clone());
    let job = move || {
        let view = &made.view;
        let selected = question.plan.select_page(view);
        let scope = Scope::Question {
            query: &question.query,
            positions: selected.positions(),
        };
        Archive::of(view, &dataset, scope)
    };
    match state.work.run(Task::Answer, job).await {
        None => Answer::busy(),
        Some(Ok(archive)) => {
            Answer::tagged(Kind::Zip, archive.bytes, archive.etag, None).named(name)
        }
        Some(Err(e)) => unmakeable(e),
    }
}
