//! The HTTP face: warp routes over the current view.
//!
//! Routing is one function over the path rather than a tree of filters: there are
//! only three kinds of path (list, record, other), and the view decides the rest.

use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use bytes::Bytes;
use warp::http::{header, HeaderValue, Method, Response, StatusCode};
use warp::reply::Reply;
use warp::Filter;

use crate::query::{self, ApiError};
use crate::render::{write_int, write_str};
use crate::schema::Endpoint;
use crate::view::View;

/// The API's prefix.
pub const PREFIX: &str = "/api/v2/";

/// Bodies smaller than this are copied into one buffer; larger ones are sent as
/// head, shared slice, tail.
const COPY_BELOW: usize = 64 * 1024;

/// How the server answers, beyond what the view holds.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The page size when a request gives no `limit`.
    pub default_limit: usize,
    /// The largest `limit` a request may give, if any.
    pub max_limit: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            default_limit: query::DEFAULT_LIMIT,
            max_limit: None,
        }
    }
}

/// What every request reads: the current view (swapped whole on reload), settings
/// and counters.
pub struct Shared {
    pub view: ArcSwap<View>,
    pub settings: Settings,
    pub metrics: Metrics,
}

/// Counters of what the server did, for operators.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Views swapped in after start-up.
    pub reloads: AtomicU64,
    /// Files that failed a check and were not served.
    pub failed_reloads: AtomicU64,
    /// When the served view was loaded, in seconds since the Unix epoch.
    pub loaded_at: AtomicI64,
}

impl Shared {
    pub fn new(view: View, settings: Settings) -> Arc<Shared> {
        let metrics = Metrics::default();
        metrics
            .loaded_at
            .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
        Arc::new(Shared {
            view: ArcSwap::from_pointee(view),
            settings,
            metrics,
        })
    }
}

pub type HttpResponse = warp::reply::Response;

/// The warp filter that answers every request.
pub fn routes(
    shared: Arc<Shared>,
) -> impl Filter<Extract = (HttpResponse,), Error = Infallible> + Clone {
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .map(move |method: Method, path: warp::path::FullPath, raw: String| {
            let response = answer(&shared, &method, path.as_str(), &raw);
            tracing::debug!(%method, path = path.as_str(), query = %raw, status = response.status().as_u16(), "request");
            response
        })
}

/// Serves on a bound listener until `shutdown` resolves, then finishes in-flight requests.
pub async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    warp::serve(routes(shared))
        .incoming(listener)
        .graceful(shutdown)
        .run()
        .await;
}

fn answer(shared: &Shared, method: &Method, path: &str, raw_query: &str) -> HttpResponse {
    if method != Method::GET && method != Method::HEAD {
        let mut r = error(&ApiError {
            status: 405,
            message: format!("method {method} is not allowed: this API is read-only"),
        });
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return not_found();
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let (endpoint, id) = match segments.as_slice() {
        [seg, ""] => (Endpoint::from_segment(seg), None),
        [seg, id, ""] => (Endpoint::from_segment(seg), Some(*id)),
        [seg] | [seg, _] if Endpoint::from_segment(seg).is_some() && !rest.ends_with('/') => {
            return redirect(path, raw_query);
        }
        _ => return not_found(),
    };
    let Some(endpoint) = endpoint else {
        return not_found();
    };
    let params = match query::parse(raw_query) {
        Ok(p) => p,
        Err(e) => return error(&e),
    };
    let view = shared.view.load();
    let result = match id {
        None => query::list(&view, endpoint, &params, &shared.settings)
            .map(|page| envelope(page.total, page.items)),
        Some(id) => query::record(&view, endpoint, id, &params).map(json),
    };
    result.unwrap_or_else(|e| error(&e))
}

/// `{"meta":{"total_count":N},"items":[...]}` around a run of items.
fn envelope(total: usize, items: Bytes) -> HttpResponse {
    let mut head = Vec::with_capacity(48);
    head.extend_from_slice(b"{\"meta\":{\"total_count\":");
    write_int(&mut head, total as i64);
    head.extend_from_slice(b"},\"items\":[");
    const TAIL: &[u8] = b"]}";
    let len = head.len() + items.len() + TAIL.len();
    if len < COPY_BELOW {
        head.extend_from_slice(&items);
        head.extend_from_slice(TAIL);
        return json(Bytes::from(head));
    }
    let chunks = [Bytes::from(head), items, Bytes::from_static(TAIL)];
    let stream = futures_util::stream::iter(chunks.map(Ok::<_, Infallible>));
    let mut r = warp::reply::stream(stream).into_response();
    set_json_headers(&mut r, len);
    r
}

fn set_json_headers(r: &mut HttpResponse, len: usize) {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
}

fn json(body: Bytes) -> HttpResponse {
    let len = body.len();
    let mut r = Response::new(body.into());
    set_json_headers(&mut r, len);
    r
}

/// An error as the API gives it: `{"message": "..."}`.
pub fn error(e: &ApiError) -> HttpResponse {
    let mut body = Vec::with_capacity(e.message.len() + 16);
    body.extend_from_slice(b"{\"message\":");
    write_str(&mut body, &e.message);
    body.push(b'}');
    let mut r = json(Bytes::from(body));
    *r.status_mut() = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r
}

fn not_found() -> HttpResponse {
    error(&ApiError::not_found("Not found."))
}

/// Sends a list or record path without its trailing slash to the slashed path.
fn redirect(path: &str, raw_query: &str) -> HttpResponse {
    let mut location = format!("{path}/");
    if !raw_query.is_empty() {
        location.push('?');
        location.push_str(raw_query);
    }
    let mut r = error(&ApiError {
        status: 301,
        message: format!("moved to {location}"),
    });
    if let Ok(v) = HeaderValue::from_str(&location) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}
