//! GBIF's occurrence API (`/gbif/v1/occurrence/search`, `.../count`,
//! `.../{key}`): every answer is work, parsed and made on the work threads
//! (503 when busy), since a search reads the view's Darwin Core columns, built
//! there the first time any search asks.

use std::sync::Arc;

use bytes::Bytes;
use warp::http::Method;

use crate::query::gbif::{self, answer, Codes, Search};
use crate::query::ApiError;

use super::answer::{Answer, Kind};
use super::asked::Asked;
use super::state::{Served, State};
use super::target::Target;

/// Answers a GBIF request.
pub async fn answer(state: &Arc<State>, served: &Arc<Served>, asked: &Asked) -> Answer {
    let params = match &asked.params {
        Ok(params) => params.clone(),
        Err(e) => return Answer::error(e),
    };
    if asked.fresh(&state.settings, &served.view) || asked.method == Method::HEAD {
        return Answer::unmade(Kind::Json);
    }
    state
        .metrics
        .worked_answers
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let made = served.clone();
    let dataset = state.settings.dataset.clone();
    let target = asked.target.clone();
    let job = move || -> Result<Vec<u8>, ApiError> {
        let view = &made.view;
        let codes = Codes {
            institution: &dataset.institution_code,
            collection: &dataset.collection_code,
        };
        match target {
            Target::GbifOccurrence(key) => {
                if let Some((name, _)) = params.0.first() {
                    return Err(ApiError::bad_request(format!(
                        "an occurrence takes no parameters ({name} given)"
                    )));
                }
                let pos = gbif::search::specimen(view, &key)?;
                Ok(answer::one(view, codes, pos))
            }
            Target::GbifCount => {
                let search = Search::parse(&params, view)?;
                Ok(search.run(view).count.to_string().into_bytes())
            }
            _ => {
                let search = Search::parse(&params, view)?;
                let found = search.run(view);
                Ok(answer::search(view, codes, &search, &found))
            }
        }
    };
    match state.work.run(job).await {
        Some(Ok(body)) => Answer::json(Bytes::from(body)),
        Some(Err(e)) => Answer::error(&e),
        None => Answer::busy(),
    }
}
