//! Routing: warp reads the request, [`Target::of`] names what it asks for, the
//! request is read once into an [`Asked`], one handler answers it from the view
//! the request loaded, and [`finish`] adds the headers.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use warp::http::{header, HeaderMap, Method, StatusCode};
use warp::path::FullPath;
use warp::Filter;

use crate::export::dwca::{Archive, Scope};
use crate::model::endpoint::API_PREFIX;
use crate::model::Endpoint;
use crate::query::images::{ImagePlan, ImagesPlan};
use crate::query::plan::Selected;
use crate::query::question::Question;
use crate::query::{ApiError, Page, Plan, RecordPlan};

use super::answer::{Answer, Kind};
use super::asked::Asked;
use super::assets;
use super::checklist;
use super::compress::COMPRESS_BELOW;
use super::downloads;
use super::gbif;
use super::labels;
use super::media_files;
use super::memo::{Key, Replay};
use super::metrics::Route;
use super::pages;
use super::response::{finish, Response, Uncompressed, ALLOW};
use super::root;
use super::state::{Served, State};
use super::target::Target;
use super::wire::{self, Parts, Wire};

/// Answers that may be larger than this are written as they are sent rather than
/// made whole first (and are not compressed: compression stops at this size).
const STREAM_ABOVE: usize = COMPRESS_BELOW;

/// An expensive answer from the worker threads: made whole, or only chosen.
enum Made {
    Whole(Page),
    Chosen(Selected),
}

/// The warp filter that answers every request.
pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .then(
            move |method: Method, path: FullPath, raw: String, headers: HeaderMap| {
                let state = state.clone();
                async move {
                    let started = Instant::now();
                    // One view for the whole request, even if a reload swaps it
                    // meanwhile: a body and its ETag come from the same snapshot.
                    let served = state.current();
                    let target = Target::of(&method, path.as_str());
                    let path = path.as_str().to_string();
                    let asked = Asked::new(target, method, path, raw, headers, &served.view);
                    let answer = answer(&state, &served, &asked).await;
                    respond(&state, &served, &asked, answer, started).await
                }
            },
        )
}

/// The answer to a request the guard refused before routing, through the same
/// `finish` and counters as every other.
pub async fn refusal(
    state: &State,
    method: Method,
    path: String,
    headers: HeaderMap,
    reason: &'static str,
) -> Response {
    let started = Instant::now();
    let served = state.current();
    let target = Target::Refused(reason);
    let asked = Asked::new(target, method, path, String::new(), headers, &served.view);
    let answer = Answer::error(&ApiError::bad_request(reason));
    respond(state, &served, &asked, answer, started).await
}

/// Finishes an answer, keeps it to replay if the view alone decides it, and
/// counts it.
async fn respond(
    state: &State,
    served: &Served,
    asked: &Asked,
    answer: Answer,
    started: Instant,
) -> Response {
    let response = finish(state, served, asked, answer).await;
    keep(state, served, asked, &response);
    let asked_for = (&asked.method, asked.path.as_str(), asked.raw_query.as_str());
    count(
        state,
        asked_for,
        asked.target.route(),
        response.status(),
        response.headers(),
        started,
    );
    response
}

/// Counts an answer, made or replayed (its length from its headers), and logs
/// its request at debug.
fn count(
    state: &State,
    (method, path, query): (&Method, &str, &str),
    route: Route,
    status: StatusCode,
    headers: &HeaderMap,
    started: Instant,
) {
    let bytes = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .unwrap_or(0);
    let status = status.as_u16();
    let seconds = started.elapsed().as_secs_f64();
    state.metrics.observe(route, status, seconds, bytes);
    tracing::debug!(%method, path, query, status, "request");
}

/// Keeps a response in the view's memo when the view alone decides it (a 200
/// made whole with a strong tag, not a file from the media directory, which
/// may change under it, not said while draining with `Connection: close`) and
/// its request was asked before.
fn keep(state: &State, served: &Served, asked: &Asked, response: &Response) {
    let kept = served.memo.keeps()
        && response.status() == StatusCode::OK
        && response.headers().contains_key(header::ETAG)
        && !matches!(asked.target, Target::MediaFile | Target::Refused(_))
        && response.extensions().get::<Uncompressed>().is_none()
        && !state.draining.load(Ordering::Relaxed);
    let Some(Parts(parts)) = response.extensions().get::<Parts>().filter(|_| kept) else {
        return;
    };
    let Some(key) = Key::of(&asked.method, &asked.path, &asked.raw_query, &asked.headers)
        .filter(|key| served.memo.asked_before(key))
    else {
        return;
    };
    let replay = Replay {
        headers: response.headers().clone(),
        parts: parts.clone(),
        route: asked.target.route(),
    };
    served.memo.keep(&key, replay);
}

/// The answer an earlier request that asked the same of the current view was
/// given, counted as every answer is; `None` when there is none to replay.
pub fn replay<B>(state: &State, req: &warp::http::Request<B>) -> Option<Wire> {
    if state.draining.load(Ordering::Relaxed) {
        return None;
    }
    let served = state.peek();
    if served.memo.is_empty() {
        return None;
    }
    let started = Instant::now();
    let uri = req.uri();
    let key = Key::of(
        req.method(),
        uri.path(),
        uri.query().unwrap_or(""),
        req.headers(),
    )?;
    let Replay {
        headers,
        parts,
        route,
    } = served.memo.replay(&key)?;
    state
        .metrics
        .replayed_answers
        .fetch_add(1, Ordering::Relaxed);
    let asked_for = (req.method(), uri.path(), uri.query().unwrap_or(""));
    count(state, asked_for, route, StatusCode::OK, &headers, started);
    Some(wire::replayed(headers, parts))
}

/// Answers what a request asks for.
async fn answer(state: &Arc<State>, served: &Arc<Served>, asked: &Asked) -> Answer {
    let (view, raw) = (&served.view, asked.raw_query.as_str());
    if asked.html() {
        return match &asked.target {
            Target::List(endpoint) => pages::list(state, served, *endpoint, asked).await,
            Target::Record(endpoint, id) => {
                pages::record(state, served, *endpoint, id, asked).await
            }
            Target::Checklist => checklist::answer(state, served, asked).await,
            Target::Home => pages::home(served),
            Target::Docs => pages::docs(served),
            _ => pages::not_found(served, &root::not_found(&asked.path)),
        };
    }
    let params = || asked.params.as_ref().map_err(Clone::clone);
    match &asked.target {
        Target::Preflight => Answer::no_content(),
        Target::NotAllowed => Answer::error(&ApiError {
            status: 405,
            message: format!(
                "method {} is not allowed: this API is read-only ({ALLOW})",
                asked.method
            ),
        }),
        Target::NotFound => Answer::error(&ApiError::not_found(root::not_found(&asked.path))),
        Target::Refused(reason) => Answer::error(&ApiError::bad_request(*reason)),
        Target::Home => Answer::json(root::document()),
        Target::Api => Answer::redirect(API_PREFIX.trim_end_matches('/'), raw),
        // A page whatever the client takes (`html` is always set for it).
        Target::Docs => pages::docs(served),
        Target::Asset => {
            assets::answer(&asked.path, asked.coding).unwrap_or_else(Answer::not_found)
        }
        Target::MediaFile => {
            media_files::answer(state.settings.media_dir.as_deref(), &asked.path).await
        }
        Target::Health => {
            Answer::operation(200, Kind::Json, Bytes::from_static(b"{\"status\":\"ok\"}"))
        }
        Target::Ready if state.draining.load(std::sync::atomic::Ordering::Relaxed) => {
            let body = Bytes::from_static(b"{\"status\":\"draining\"}");
            Answer::operation(503, Kind::Json, body)
        }
        Target::Ready => {
            let body = format!(
                "{{\"status\":\"ready\",\"checksum\":\"{}\"}}",
                view.header.checksum_hex()
            );
            Answer::operation(200, Kind::Json, Bytes::from(body))
        }
        Target::OpenApi => Answer::json(state.openapi.clone()),
        Target::Metrics => {
            let body = Bytes::from(state.metrics.render(view));
            Answer::operation(200, Kind::Metrics, body)
        }
        Target::Archive => match params() {
            Ok(params) if params.0.is_empty() => archive(state, served).await,
            Ok(params) => match Question::parse(params, &[], "/dwca.zip") {
                Ok(question) => {
                    let ignored = question.ignored().to_vec();
                    archive_of(state, served, question, asked)
                        .await
                        .ignoring(&ignored)
                }
                Err(e) => Answer::error(&e),
            },
            Err(e) => Answer::error(&e),
        },
        Target::Unslashed(_) => Answer::redirect(&asked.path, raw),
        Target::List(endpoint) => {
            let plan = match params()
                .and_then(|params| Plan::parse(*endpoint, params, &state.settings.limits))
            {
                Ok(plan) => plan,
                Err(e) => return Answer::error(&e),
            };
            let ignored = plan.ignored().to_vec();
            list(state, served, *endpoint, plan, asked)
                .await
                .ignoring(&ignored)
        }
        Target::Images => images(state, served, asked).await,
        Target::Labels => labels::answer(state, served, asked).await,
        Target::Checklist => checklist::answer(state, served, asked).await,
        Target::GbifSearch | Target::GbifCount | Target::GbifOccurrence(_) => {
            gbif::answer(state, served, asked).await
        }
        Target::Image(id) => match params().and_then(|p| ImagePlan::parse(id, p)) {
            Ok(plan) => match plan.run(view) {
                Ok(body) => Answer::json(body).with_media(asked.media),
                Err(e) => Answer::error(&e),
            },
            Err(e) => Answer::error(&e),
        },
        Target::Record(endpoint, id) => {
            match params().and_then(|params| RecordPlan::parse(*endpoint, id, params)) {
                Ok(plan) => plan
                    .run(view)
                    .map(|body| Answer::json(body).with_media(asked.media))
                    .unwrap_or_else(|e| Answer::error(&e)),
                Err(e) => Answer::error(&e),
            }
        }
    }
}

/// Wagtail's image list: a run of the images rendered once on the async
/// workers; any other selection written on the threads for expensive answers.
async fn images(state: &Arc<State>, served: &Arc<Served>, asked: &Asked) -> Answer {
    let plan = match asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| ImagesPlan::parse(params, &state.settings.limits))
    {
        Ok(plan) => plan,
        Err(e) => return Answer::error(&e),
    };
    if plan.cacheable() && asked.fresh(&state.settings, &served.view) {
        return Answer::unmade(Kind::Json).with_media(asked.media);
    }
    let page = match plan.cost().on_pool() {
        false => Some(plan.run(&served.view)),
        true => {
            state
                .metrics
                .worked_answers
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let made = served.clone();
            state.work.run(move || plan.run(&made.view)).await
        }
    };
    match page {
        Some(page) => Answer::items(page).with_media(asked.media),
        None => Answer::busy(),
    }
}

/// A list's answer to a parsed request: cut from the rendered list, or made on the
/// worker threads (whole, or streamed when large).
async fn list(
    state: &Arc<State>,
    served: &Arc<Served>,
    endpoint: Endpoint,
    plan: Plan,
    asked: &Asked,
) -> Answer {
    if plan.format().download() {
        return downloads::answer(state, served, plan, asked).await;
    }
    let view = &served.view;
    // The tag depends on the request, not on the body: a revalidation, or a
    // HEAD of an answer that costs work, is answered without making it.
    let fresh = plan.cacheable() && asked.fresh(&state.settings, view);
    let on_pool = plan.cost().on_pool();
    if fresh || (asked.method == Method::HEAD && on_pool) {
        return Answer::unmade(Kind::of(plan.format())).with_media(asked.media);
    }
    if !on_pool {
        return Answer::page(endpoint, plan.run(view)).with_media(asked.media);
    }
    state
        .metrics
        .worked_answers
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let made = served.clone();
    let job = move || {
        let selected = plan.select_page(&made.view);
        match selected.size_bound(&made.view) < STREAM_ABOVE {
            true => Made::Whole(selected.into_page(&made.view)),
            false => Made::Chosen(selected),
        }
    };
    let answer = match state.work.run(job).await {
        Some(Made::Whole(page)) => Answer::page(endpoint, page),
        Some(Made::Chosen(selected)) => {
            Answer::streamed(selected, served.clone(), state.work.clone())
        }
        None => return Answer::busy(),
    };
    answer.with_media(asked.media)
}

/// The Darwin Core Archive of a view: made once, off the async workers, by the
/// first request that asks (others asking meanwhile wait for the same one).
async fn archive(state: &State, served: &Arc<Served>) -> Answer {
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
        Err(e) => {
            tracing::error!(error = %e, "cannot make the Darwin Core Archive");
            Answer::error(&ApiError {
                status: 500,
                message: format!("cannot make the Darwin Core Archive: {e}"),
            })
        }
    }
}

/// The Darwin Core Archive of a specimen question: made for the request on the
/// threads for expensive answers (its records chosen, then zipped), named after
/// the snapshot, its `eml.xml` naming the question and the snapshot.
async fn archive_of(
    state: &Arc<State>,
    served: &Arc<Served>,
    question: Question,
    asked: &Asked,
) -> Answer {
    if asked.method == Method::HEAD {
        return Answer::unmade(Kind::Zip).uncached();
    }
    state
        .metrics
        .worked_answers
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
    let name = downloads::file_name(&served.view, "specimen-records-dwca", "zip");
    match state.work.run(job).await {
        None => Answer::busy(),
        Some(Ok(archive)) => {
            Answer::tagged(Kind::Zip, archive.bytes, archive.etag, None).named(name)
        }
        Some(Err(e)) => {
            tracing::error!(error = %e, "cannot make a Darwin Core Archive");
            Answer::error(&ApiError {
                status: 500,
                message: format!("cannot make the Darwin Core Archive: {e}"),
            })
        }
    }
}
