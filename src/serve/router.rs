//! The dispatcher: warp reads the request, the route table (`routes::ROUTES`)
//! names what it asks for, the request is read once into an [`Asked`], the
//! route's parse and job answer it from the view the request loaded, and
//! [`finish`] adds the headers; every answer is counted, and kept to replay
//! when the view alone decides it.

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use warp::http::{header, HeaderMap, Method, StatusCode};
use warp::path::FullPath;
use warp::Filter;

use crate::html;
use crate::model::Endpoint;
use crate::query::params::MAX_FORM_BYTES;
use crate::query::ApiError;

use super::answer::{Answer, Caching};
use super::asked::Asked;
use super::forms::RESERVED;
use super::memo::{Key, Remade, Replay};
use super::response::{finish, NotReplayed, Response};
use super::root;
use super::route::{Cost, Ctx, Head, Run};
use super::routes::ROUTES;
use super::routing::{Routed, Routing, Source, Takes};
use super::state::{Served, State};
use super::wire::{self, Parts, Wire};

/// The address of the client a request came from ([`client`](super::origin::client): its
/// connection's, or what a trusted proxy says it forwarded).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub std::net::IpAddr);

/// The warp filter that answers every request.
pub fn routes(state: Arc<State>) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    state.metrics.name_routes(slots().names.clone());
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .and(warp::ext::optional::<Peer>())
        .and(warp::body::stream())
        .then(
            move |method: Method,
                  path: FullPath,
                  raw: String,
                  headers: HeaderMap,
                  peer: Option<Peer>,
                  body| {
                let state = state.clone();
                async move {
                    let started = Instant::now();
                    let table = ROUTES.iter().map(|r| &r.routing);
                    // A form's bytes stay counted in what forms hold until
                    // it is answered: its query and parameters are made of them.
                    let mut held = state.forms.holding(peer.map(|p| p.0));
                    let (routed, form) = match method {
                        Method::POST => {
                            posted(table, path.as_str(), &headers, body, &mut held).await
                        }
                        _ => (Routed::of(table, &method, path.as_str()), Ok(None)),
                    };
                    // One view for the whole request, even if a reload swaps it
                    // meanwhile: a body and its ETag come from the same snapshot.
                    // Taken once a form is read: a slow body holds no view.
                    let served = state.current();
                    let (raw, refused) = match form {
                        Ok(Some(fields)) if raw.is_empty() => (fields, None),
                        Ok(Some(fields)) => (format!("{raw}&{fields}"), None),
                        Ok(None) => (raw, None),
                        Err(e) => (raw, Some(e)),
                    };
                    let path = path.as_str().to_string();
                    let asked = Asked::new(routed, method, path, raw, headers, &served.view)
                        .from(peer.map(|p| p.0));
                    let answer = match (refused, asked.peer) {
                        // What it costs the pool is counted as its client's.
                        (None, Some(client)) => {
                            let answered =
                                unpanicked(&state.metrics, answer(&state, &served, &asked));
                            super::work::CLIENT.scope(client, answered).await
                        }
                        (None, None) => {
                            unpanicked(&state.metrics, answer(&state, &served, &asked)).await
                        }
                        (Some(busy), _) if busy.status == 503 => {
                            Answer::error(&busy).retry_after(1)
                        }
                        (Some(refused), _) => Answer::error(&refused),
                    };
                    let response = respond(&state, &served, &asked, answer, started).await;
                    drop((asked, held));
                    response
                }
            },
        )
        // Only a body taken twice is refused above, which nothing does.
        .or(warp::any().map(|| {
            let mut unread = Response::default();
            *unread.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            unread
        }))
        .unify()
}

/// The answer `making` makes, or, where it panics (a bug), a 500 counted in
/// `catalogue_panicked_requests_total`: the connection answers and stays
/// served, and the stop does not wait for it.
async fn unpanicked(
    metrics: &super::metrics::Metrics,
    making: impl std::future::Future<Output = Answer>,
) -> Answer {
    use std::task::Poll;
    let mut making = std::pin::pin!(making);
    // Each poll in `catch_unwind`; none after a panic.
    let made = std::future::poll_fn(|cx| {
        let polled =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| making.as_mut().poll(cx)));
        match polled {
            Ok(Poll::Ready(answer)) => Poll::Ready(Ok(answer)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        }
    });
    match made.await {
        Ok(answer) => answer,
        Err(panic) => {
            let why = (panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(why, "making an answer panicked: answered 500");
            (metrics.panicked_requests).fetch_add(1, Ordering::Relaxed);
            Answer::error(&ApiError {
                status: 500,
                message: "the server failed to make this answer (a bug, logged): \
                          other requests are answered"
                    .into(),
            })
            .uncached()
        }
    }
}

/// How long a form's whole body may take to arrive (a megabyte at 35 KB/s):
/// past it, 408, and the connection is closed.
const FORM_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// What a POST asks: on a route that takes forms, what a GET would with the
/// form's fields after the query's (its body, at most [`MAX_FORM_BYTES`] of
/// `application/x-www-form-urlencoded`, whole within [`FORM_DEADLINE`], its
/// bytes counted in `holding` as they arrive, with a reservation ahead of
/// them); on any other path, nothing allowed.
async fn posted<B, D>(
    table: impl Iterator<Item = &'static Routing>,
    path: &str,
    headers: &HeaderMap,
    body: B,
    holding: &mut super::forms::FormBytes<'_>,
) -> (Routed, Result<Option<String>, ApiError>)
where
    B: futures_util::Stream<Item = Result<D, warp::Error>> + Send,
    D: bytes::Buf,
{
    use futures_util::StreamExt;
    let routed = match Routed::of(table, &Method::GET, path) {
        Routed::Route(m) if m.routing.takes == Takes::QueryOrForm => Routed::Route(m),
        _ => return (Routed::NotAllowed(Takes::Query), Ok(None)),
    };
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| {
            t.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        });
    if !form {
        let e = ApiError {
            status: 415,
            message: "a POST to this path is a form: its body must be \
                      application/x-www-form-urlencoded, the query's parameters as name=value \
                      pairs joined by &"
                .into(),
        };
        return (routed, Err(e));
    }
    let too_long = || ApiError {
        status: 413,
        message: format!("a form may hold at most {MAX_FORM_BYTES} bytes"),
    };
    // A body announced longer is refused before any of it is read: before
    // `100 Continue` is sent to a client that waits for it.
    let announced = (headers.get(header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|n| n > MAX_FORM_BYTES as u64) {
        return (routed, Err(too_long()));
    }
    let busy = || ApiError {
        status: 503,
        message: "the server holds as many forms as it may: ask again in a moment".into(),
    };
    // What may arrive is reserved ahead, up to RESERVED: an announced length
    // is a promise, not bytes held, and counts only as they come.
    let most = announced.map_or(MAX_FORM_BYTES, |n| n as usize);
    let mut counted = most.min(RESERVED);
    if !holding.take(counted) {
        return (routed, Err(busy()));
    }
    let read = async {
        let mut fields = Vec::with_capacity(counted);
        let mut body = std::pin::pin!(body);
        while let Some(piece) = body.next().await {
            let mut piece = piece
                .map_err(|e| ApiError::bad_request(format!("the form could not be read: {e}")))?;
            let length = fields.len() + piece.remaining();
            if length > MAX_FORM_BYTES {
                return Err(too_long());
            }
            if length > counted {
                let ahead = (length + RESERVED).min(most).max(length);
                if !holding.take(ahead - counted) {
                    return Err(busy());
                }
                counted = ahead;
            }
            while piece.has_remaining() {
                let chunk = piece.chunk();
                fields.extend_from_slice(chunk);
                let n = chunk.len();
                piece.advance(n);
            }
        }
        Ok(fields)
    };
    let fields = match tokio::time::timeout(FORM_DEADLINE, read).await {
        Ok(Ok(fields)) => fields,
        Ok(Err(e)) => return (routed, Err(e)),
        Err(_) => {
            let slow = ApiError {
                status: 408,
                message: format!(
                    "the form did not arrive within {} seconds",
                    FORM_DEADLINE.as_secs()
                ),
            };
            return (routed, Err(slow));
        }
    };
    match String::from_utf8(fields) {
        Ok(fields) => (routed, Ok(Some(fields))),
        Err(_) => {
            let e =
                ApiError::bad_request("a form's body must be UTF-8, percent-encoded where needed");
            (routed, Err(e))
        }
    }
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
    let routed = Routed::Refused(reason);
    let asked = Asked::new(routed, method, path, String::new(), headers, &served.view);
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
        slot(&asked.routed),
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
    slot: usize,
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
    state.metrics.observe(slot, status, seconds, bytes);
    tracing::debug!(%method, path, query, status, "request");
}

/// Keeps a response in the view's memo when the view alone decides it (a 200
/// made whole with a strong tag, not a file from the media directory, which
/// may change under it, nor an answer marked [`NotReplayed`], not said while
/// draining with `Connection: close`) and its request was asked before.
fn keep(state: &State, served: &Served, asked: &Asked, response: &Response) {
    let kept = served.memo.keeps()
        && response.status() == StatusCode::OK
        && response.headers().contains_key(header::ETAG)
        && from_view(&asked.routed)
        && response.extensions().get::<NotReplayed>().is_none()
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
        slot: slot(&asked.routed),
    };
    let remade = response.extensions().get::<Remade>();
    served.memo.keep(&key, replay, remade, &served.view);
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
        slot,
    } = served.memo.replay(&key, &served.view)?;
    state
        .metrics
        .replayed_answers
        .fetch_add(1, Ordering::Relaxed);
    let asked_for = (req.method(), uri.path(), uri.query().unwrap_or(""));
    count(state, asked_for, slot, StatusCode::OK, &headers, started);
    Some(wire::replayed(headers, parts))
}

/// Answers what a request asks for: the route's parse finds every refusal,
/// then `HEAD` of work on the pool and a revalidation that names the answer's
/// tag are answered with its headers, and anything else with the answer made.
async fn answer(state: &Arc<State>, served: &Arc<Served>, asked: &Asked) -> Answer {
    let matched = match &asked.routed {
        Routed::Route(matched) => matched,
        Routed::Preflight(_) => return Answer::no_content(),
        Routed::NotAllowed(takes) => {
            return Answer::error(&ApiError {
                status: 405,
                message: format!(
                    "method {} is not allowed: this API is read-only ({})",
                    asked.method,
                    takes.allow()
                ),
            })
        }
        Routed::NotFound => {
            let message = root::not_found(&asked.path);
            return match asked.html() {
                true => Answer::html_error(404, html::error(&served.view, 404, &message)),
                false => Answer::error(&ApiError::not_found(message)),
            };
        }
        Routed::Refused(reason) => return Answer::error(&ApiError::bad_request(*reason)),
    };
    if matched.unslashed {
        return Answer::redirect(&asked.path, &asked.raw_query);
    }
    let route = &ROUTES[matched.route];
    let parse = match (asked.html(), route.page) {
        (true, Some(page)) => page,
        _ => route.json,
    };
    let job = match parse(Ctx {
        state,
        served,
        asked,
    }) {
        Ok(job) => job,
        Err(refusal) => return *refusal,
    };
    let headers_only = asked.method == Method::HEAD && job.cost == Cost::Pool;
    match job.head {
        Head::Known(head)
            if headers_only
                || (head.caching == Caching::Collection
                    && asked.fresh(&state.settings, &served.view)) =>
        {
            return head
        }
        Head::Checked(check) if headers_only || asked.fresh(&state.settings, &served.view) => {
            let head = check.await;
            // A refusal, a HEAD, or a revalidation the head's tag answers; an
            // answer with no tag of the request's is made whatever it names.
            if headers_only || head.status != 200 || head.caching == Caching::Collection {
                return head;
            }
        }
        _ => {}
    }
    match job.run {
        Run::Ready(answer) => answer,
        Run::Later(answer) => answer.await,
    }
}

/// Whether a request's answer is made from the view alone (not refused before
/// routing, not read from files that may change under the server).
fn from_view(routed: &Routed) -> bool {
    match routed {
        Routed::Route(matched) => matched.routing.source == Source::View,
        Routed::Refused(_) => false,
        _ => true,
    }
}

/// The metrics' names for the table's routes: a slot each, a list's route a
/// slot per list, routes of one name sharing it; then "other".
struct Slots {
    names: Vec<String>,
    /// Each route's first slot, and whether it has one per list.
    first: Vec<(usize, bool)>,
}

fn slots() -> &'static Slots {
    static SLOTS: OnceLock<Slots> = OnceLock::new();
    SLOTS.get_or_init(|| {
        let mut names: Vec<String> = Vec::new();
        let mut first = Vec::with_capacity(ROUTES.len());
        for metric in ROUTES.iter().map(|r| r.routing.metric) {
            if metric.contains(LIST) {
                first.push((names.len(), true));
                names.extend(
                    Endpoint::all()
                        .iter()
                        .map(|e| metric.replace(LIST, &e.segment())),
                );
                continue;
            }
            match names.iter().position(|n| n == metric) {
                Some(at) => first.push((at, false)),
                None => {
                    first.push((names.len(), false));
                    names.push(metric.to_string());
                }
            }
        }
        names.push("other".to_string());
        Slots { names, first }
    })
}

/// Where a list's segment goes in a route's metric name.
const LIST: &str = "{list}";

/// The metrics slot a request is counted in.
fn slot(routed: &Routed) -> usize {
    let slots = slots();
    match routed.matched() {
        Some(matched) => match slots.first[matched.route] {
            (first, true) => first + matched.list.map_or(0, Endpoint::index),
            (first, false) => first,
        },
        None => slots.names.len() - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_making_an_answer_is_a_counted_500() {
        let metrics = super::super::metrics::Metrics::default();
        let answered = unpanicked(&metrics, async { Answer::not_found() }).await;
        assert_eq!(answered.status, 404);
        let panicked = unpanicked(&metrics, async {
            let job = tokio::task::spawn_blocking(|| -> Answer { panic!("a bug") });
            job.await
                .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
        })
        .await;
        assert_eq!(panicked.status, 500);
        assert_eq!(panicked.caching, Caching::Uncached);
        assert_eq!(metrics.panicked_requests.load(Ordering::Relaxed), 1);
    }
}
