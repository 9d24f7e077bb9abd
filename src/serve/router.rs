//! Routing: warp filters decide what a request asks for (a [`Target`]), with
//! rejections recovered into the API's JSON errors; one handler then answers the
//! target from the view the request loaded, and [`finish`] adds the headers.

use std::convert::Infallible;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use warp::http::{header, HeaderMap, Method};
use warp::path::FullPath;
use warp::{Filter, Rejection};

use crate::export::dwca::Archive;
use crate::model::endpoint::API_PREFIX;
use crate::model::Endpoint;
use crate::query::images::{ImagePlan, ImagesPlan};
use crate::query::plan::Selected;
use crate::query::{ApiError, Page, Params, Plan, RecordPlan};

use super::assets;
use super::metrics::Route;
use super::negotiate::{self, Representation};
use super::pages;
use super::response::{finish, still_fresh, Answer, Media, Request, Response, ALLOW};
use super::root;
use super::state::{Served, State, COMPRESS_BELOW};

/// What a request asks for, as the filters decide it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    List(Endpoint),
    Record(Endpoint, String),
    /// Wagtail's own image list, and one image.
    Images,
    Image(String),
    /// A list or record path without its trailing slash: redirected.
    Unslashed(Route),
    /// `/` and `/api/v2/`: the front page for people, the API root for programs.
    Home,
    /// `/api`, `/api/` and `/api/v2`: redirected to the API root.
    Api,
    /// The API docs viewer.
    Docs,
    /// A file the pages load (`/static/...`).
    Asset,
    Health,
    Ready,
    Metrics,
    OpenApi,
    Archive,
    /// `OPTIONS`, on any path: the CORS preflight.
    Preflight,
    /// A method other than GET, HEAD and OPTIONS.
    NotAllowed,
    /// No route takes the path.
    NotFound,
}

impl Target {
    /// What the rejection of every route means.
    fn refused(rejection: Rejection) -> Target {
        match rejection.find::<NotAllowed>() {
            Some(_) => Target::NotAllowed,
            None => Target::NotFound,
        }
    }

    /// How metrics count the request.
    fn route(&self) -> Route {
        match self {
            Target::List(e) => Route::List(*e),
            Target::Record(e, _) => Route::Record(*e),
            Target::Images => Route::Images,
            Target::Image(_) => Route::Image,
            Target::Unslashed(route) => *route,
            Target::Home | Target::Api | Target::Docs | Target::Asset => Route::Page,
            Target::Health => Route::Health,
            Target::Ready => Route::Ready,
            Target::Metrics => Route::Metrics,
            Target::OpenApi => Route::OpenApi,
            Target::Archive => Route::Archive,
            Target::Preflight | Target::NotAllowed | Target::NotFound => Route::Other,
        }
    }
}

/// Answers that may be larger than this are written as they are sent rather than
/// made whole first (and are not compressed: compression stops at this size).
const STREAM_ABOVE: usize = COMPRESS_BELOW;

/// An expensive answer from the worker threads: made whole, or only chosen.
enum Made {
    Whole(Page),
    Chosen(Selected),
}

/// A path segment naming one of the 25 endpoints (`orders`, `nested-families`).
struct Segment(Endpoint);

impl FromStr for Segment {
    type Err = ();

    fn from_str(s: &str) -> Result<Segment, ()> {
        Endpoint::from_segment(s).map(Segment).ok_or(())
    }
}

/// The rejection of a method the API does not answer, on any path.
#[derive(Debug)]
struct NotAllowed;

impl warp::reject::Reject for NotAllowed {}

/// Passes requests of one method. Any other is not this route's (a 404 rejection,
/// not warp's 405), so an unknown path is 404 whichever methods other routes take.
fn method(m: Method) -> impl Filter<Extract = (), Error = Rejection> + Clone {
    warp::method()
        .and_then(move |got: Method| {
            let matches = got == m;
            async move {
                match matches {
                    true => Ok(()),
                    false => Err(warp::reject::not_found()),
                }
            }
        })
        .untuple_one()
}

/// Rejects every method but GET, HEAD and OPTIONS, whatever the path.
fn read_only() -> impl Filter<Extract = (Target,), Error = Rejection> + Clone {
    warp::method().and_then(|m: Method| async move {
        let rejected: Result<Target, Rejection> = match m {
            Method::GET | Method::HEAD | Method::OPTIONS => Err(warp::reject::not_found()),
            _ => Err(warp::reject::custom(NotAllowed)),
        };
        rejected
    })
}

/// Whether the path ends with a slash (warp's path filters match either way).
fn slashed() -> impl Filter<Extract = (bool,), Error = Infallible> + Clone {
    warp::path::full().map(|p: FullPath| p.as_str().ends_with('/'))
}

/// Passes only a path without a trailing slash: the operations' paths are exact.
fn exact() -> impl Filter<Extract = (), Error = Rejection> + Clone {
    slashed()
        .and_then(|slashed| async move {
            if slashed {
                Err(warp::reject::not_found())
            } else {
                Ok(())
            }
        })
        .untuple_one()
}

/// Every route: the preflight on any path, then, for GET and HEAD, the operations
/// and the API's lists and records.
fn targets() -> impl Filter<Extract = (Target,), Error = Rejection> + Clone {
    let operation = |path: &'static str, target: Target| {
        warp::path(path)
            .and(warp::path::end())
            .and(exact())
            .map(move || target.clone())
    };
    let operations = operation("healthz", Target::Health)
        .or(operation("readyz", Target::Ready))
        .unify()
        .or(operation("metrics", Target::Metrics))
        .unify()
        .or(operation("dwca.zip", Target::Archive))
        .unify()
        .or(warp::path!("api" / "v2" / "openapi.json")
            .and(exact())
            .map(|| Target::OpenApi))
        .unify()
        .or(warp::path!("api" / "v2" / "docs")
            .and(exact())
            .map(|| Target::Docs))
        .unify()
        .or(warp::path::end().map(|| Target::Home))
        .unify()
        .or(warp::path!("api" / "v2")
            .and(slashed())
            .map(|slashed| match slashed {
                true => Target::Home,
                false => Target::Api,
            }))
        .unify()
        .or(warp::path!("api").map(|| Target::Api))
        .unify()
        .or(warp::path("static").map(|| Target::Asset))
        .unify();
    let lists = warp::path!("api" / "v2" / Segment)
        .and(slashed())
        .map(|Segment(e), slashed| match slashed {
            true => Target::List(e),
            false => Target::Unslashed(Route::List(e)),
        });
    let records = warp::path!("api" / "v2" / Segment / String)
        .and(slashed())
        .map(|Segment(e), id, slashed| match slashed {
            true => Target::Record(e, id),
            false => Target::Unslashed(Route::Record(e)),
        });
    let images = warp::path!("api" / "v2" / "images")
        .and(slashed())
        .map(|slashed| match slashed {
            true => Target::Images,
            false => Target::Unslashed(Route::Images),
        })
        .or(warp::path!("api" / "v2" / "images" / String)
            .and(slashed())
            .map(|id, slashed| match slashed {
                true => Target::Image(id),
                false => Target::Unslashed(Route::Image),
            }))
        .unify();
    let read = method(Method::GET).or(method(Method::HEAD)).unify();
    method(Method::OPTIONS)
        .map(|| Target::Preflight)
        .or(read.and(
            operations
                .or(images)
                .unify()
                .or(lists)
                .unify()
                .or(records)
                .unify(),
        ))
        .unify()
        .or(read_only())
        .unify()
}

/// The warp filter that answers every request.
pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let target = targets()
        .recover(|rejection| async move { Ok::<_, Infallible>(Target::refused(rejection)) })
        .unify();
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    target
        .and(warp::method())
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .then(
            move |target: Target,
                  method: Method,
                  path: FullPath,
                  raw: String,
                  headers: HeaderMap| {
                let state = state.clone();
                async move {
                    let started = Instant::now();
                    // One view for the whole request, even if a reload swaps it
                    // meanwhile: a body and its ETag come from the same snapshot.
                    let served = state.current();
                    let route = target.route();
                    // The URLs that answer a page or JSON, as the client prefers.
                    let negotiable = matches!(
                        target,
                        Target::List(_) | Target::Record(..) | Target::Home | Target::NotFound
                    );
                    let html = match target {
                        _ if negotiable => {
                            negotiate::representation(&headers, format_of(&raw).as_deref())
                                == Representation::Html
                        }
                        Target::Docs => true,
                        _ => false,
                    };
                    let request = Request {
                        method: &method,
                        path: path.as_str(),
                        raw_query: &raw,
                        headers: &headers,
                        html,
                    };
                    let mut answer = answer(&state, &served, target, &request).await;
                    answer.negotiated = negotiable;
                    let draining = state.draining.load(std::sync::atomic::Ordering::Relaxed);
                    let response = finish(&state.settings, &served, &request, answer, draining);
                    let status = response.status().as_u16();
                    let bytes = response
                        .headers()
                        .get(header::CONTENT_LENGTH)
                        .and_then(|v| v.to_str().ok()?.parse().ok())
                        .unwrap_or(0);
                    state
                        .metrics
                        .observe(route, status, started.elapsed().as_secs_f64(), bytes);
                    tracing::debug!(%method, path = path.as_str(), query = %raw, status, "request");
                    response
                }
            },
        )
}

/// The last `format` value of a query string (decoded only when it may hold one).
fn format_of(raw: &str) -> Option<String> {
    if !raw.contains("format") && !raw.contains('%') {
        return None;
    }
    Params::parse(raw).ok()?.get("format").map(str::to_string)
}

/// Answers what a request asks for.
async fn answer(
    state: &Arc<State>,
    served: &Arc<Served>,
    target: Target,
    request: &Request<'_>,
) -> Answer {
    let (view, raw) = (&served.view, request.raw_query);
    if request.html {
        return match target {
            Target::List(endpoint) => pages::list(state, served, endpoint, request).await,
            Target::Record(endpoint, id) => pages::record(state, served, endpoint, &id, request),
            Target::Home => pages::home(served),
            Target::Docs => pages::docs(served),
            _ => pages::not_found(served, &root::not_found(request.path)),
        };
    }
    match target {
        Target::Preflight => Answer::json(204, Bytes::new()).uncached(),
        Target::NotAllowed => Answer::error(&ApiError {
            status: 405,
            message: format!(
                "method {} is not allowed: this API is read-only ({ALLOW})",
                request.method
            ),
        }),
        Target::NotFound => Answer::error(&ApiError::not_found(root::not_found(request.path))),
        Target::Home => Answer::json(200, root::document()),
        Target::Api => Answer::redirect(API_PREFIX.trim_end_matches('/'), raw),
        // A page whatever the client takes (`html` is always set for it).
        Target::Docs => pages::docs(served),
        Target::Asset => {
            assets::answer(request.path, request.headers).unwrap_or_else(Answer::not_found)
        }
        Target::Health => Answer::json(200, Bytes::from_static(b"{\"status\":\"ok\"}")).uncached(),
        Target::Ready if state.draining.load(std::sync::atomic::Ordering::Relaxed) => {
            Answer::json(503, Bytes::from_static(b"{\"status\":\"draining\"}")).uncached()
        }
        Target::Ready => {
            let body = format!(
                "{{\"status\":\"ready\",\"checksum\":\"{}\"}}",
                view.header.checksum_hex()
            );
            Answer::json(200, Bytes::from(body)).uncached()
        }
        Target::OpenApi => Answer::json(200, state.openapi.clone()),
        Target::Metrics => {
            let mut a = Answer::json(200, Bytes::from(state.metrics.render(view))).uncached();
            a.content_type = "text/plain; version=0.0.4; charset=utf-8";
            a
        }
        Target::Archive => archive(state, served).await,
        Target::Unslashed(_) => Answer::redirect(request.path, raw),
        Target::List(endpoint) => {
            let plan = match Params::parse(raw)
                .and_then(|params| Plan::parse(endpoint, &params, &state.settings.limits))
            {
                Ok(plan) => plan,
                Err(e) => return Answer::error(&e),
            };
            let ignored = plan.ignored().to_vec();
            list(state, served, endpoint, plan, request)
                .await
                .ignoring(&ignored)
        }
        Target::Images => images(state, served, request).await,
        Target::Image(id) => match Params::parse(raw).and_then(|p| ImagePlan::parse(&id, &p)) {
            Ok(plan) => match plan.run(view) {
                Ok(body) => {
                    let mut a = Answer::json(200, body);
                    a.media = Media::Configured;
                    a
                }
                Err(e) => Answer::error(&e),
            },
            Err(e) => Answer::error(&e),
        },
        Target::Record(endpoint, id) => {
            let plan = match Params::parse(raw)
                .and_then(|params| RecordPlan::parse(endpoint, &id, &params))
            {
                Ok(plan) => plan,
                Err(e) => return Answer::error(&e),
            };
            plan.run(view)
                .map(|body| Answer::json(200, body).with_media(&served.view, endpoint))
                .unwrap_or_else(|e| Answer::error(&e))
        }
    }
}

/// Wagtail's image list: a run of the images rendered once on the async
/// workers; any other selection written on the threads for expensive answers.
async fn images(state: &Arc<State>, served: &Arc<Served>, request: &Request<'_>) -> Answer {
    let plan = match Params::parse(request.raw_query)
        .and_then(|params| ImagesPlan::parse(&params, &state.settings.limits))
    {
        Ok(plan) => plan,
        Err(e) => return Answer::error(&e),
    };
    let media = Media::Configured;
    if plan.cacheable() && still_fresh(&state.settings, served, request, media) {
        let mut a = Answer::unmade("application/json");
        a.media = media;
        return a;
    }
    let page = match plan.is_a_slice() {
        true => Some(plan.run(&served.view)),
        false => {
            state
                .metrics
                .worked_answers
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let made = served.clone();
            state.work.run(move || plan.run(&made.view)).await
        }
    };
    match page {
        Some(page) => {
            let mut a = Answer::items(page);
            a.media = media;
            a
        }
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
    request: &Request<'_>,
) -> Answer {
    let view = &served.view;
    let media = Media::of(view, endpoint);
    // The tag depends on the request, not on the body: a revalidation, or a
    // HEAD of an answer that costs work, is answered without making it.
    let fresh = plan.cacheable() && still_fresh(&state.settings, served, request, media);
    let head = *request.method == Method::HEAD && !plan.is_cheap();
    if fresh || head {
        return Answer::unmade(plan.media_type()).with_media(view, endpoint);
    }
    if plan.is_cheap() {
        return Answer::page(endpoint, plan.run(view)).with_media(view, endpoint);
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
    match state.work.run(job).await {
        Some(Made::Whole(page)) => Answer::page(endpoint, page).with_media(view, endpoint),
        Some(Made::Chosen(selected)) => {
            Answer::streamed(selected, served.clone(), state.clone()).with_media(view, endpoint)
        }
        None => Answer::busy(),
    }
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
        Ok(archive) => {
            let mut a = Answer::json(200, archive.bytes.clone());
            a.content_type = "application/zip";
            a.etag = Some(archive.etag.clone());
            a.compressible = false;
            a
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot make the Darwin Core Archive");
            Answer::error(&ApiError {
                status: 500,
                message: format!("cannot make the Darwin Core Archive: {e}"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn target_of(path: &str) -> Target {
        warp::test::request()
            .path(path)
            .filter(&targets())
            .await
            .unwrap_or_else(Target::refused)
    }

    #[tokio::test]
    async fn paths_name_their_targets() {
        assert_eq!(target_of("/").await, Target::Home);
        assert_eq!(target_of("/api/v2/").await, Target::Home);
        assert_eq!(target_of("/api/v2").await, Target::Api);
        assert_eq!(target_of("/api/").await, Target::Api);
        assert_eq!(target_of("/api").await, Target::Api);
        assert_eq!(target_of("/api/v1").await, Target::NotFound);
        assert_eq!(target_of("/api/v2/docs").await, Target::Docs);
        assert_eq!(target_of("/static/abc/site.css").await, Target::Asset);
        assert_eq!(
            target_of("/api/v2/orders/").await,
            Target::List(Endpoint::from_segment("orders").unwrap())
        );
    }
}
