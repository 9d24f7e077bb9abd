//! The HTTP face: warp routes over the current view, served by our own hyper
//! accept loop (for header limits, idle timeouts and a bounded graceful stop).
//!
//! Routing is one function over the path rather than a tree of filters: there are
//! few kinds of path (list, record, operations, other), and the view decides the
//! rest. Every answer then goes through `finish`, which adds caching, compression
//! and CORS headers the same way for all of them.

use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use bytes::Bytes;
use hyper_util::rt::{TokioIo, TokioTimer};
use sha2::{Digest, Sha256};
use warp::http::{header, HeaderMap, HeaderValue, Method, Response, StatusCode};
use warp::reply::Reply;
use warp::Filter;

use crate::compress::{self, Coding, Effort};
use crate::dwca::{Archive, Dataset};
use crate::geojson;
use crate::metrics::{Metrics, Route};
use crate::openapi;
use crate::query::{self, ApiError, Format, Page};
use crate::render::{self, write_str};
use crate::schema::Endpoint;
use crate::snapshot::hex;
use crate::view::View;

/// The API's prefix.
pub const PREFIX: &str = "/api/v2/";
/// Where the Darwin Core Archive of the served view is.
pub const ARCHIVE_PATH: &str = "/dwca.zip";

/// Bodies smaller than this are copied into one buffer; larger ones are sent as
/// head, shared slice, tail.
const COPY_BELOW: usize = 64 * 1024;
/// Bodies smaller than this are not worth compressing.
pub const COMPRESS_ABOVE: usize = 1024;
/// Bodies larger than this are sent as they are: compressing hundreds of megabytes
/// per request would hold a core for seconds.
pub const COMPRESS_BELOW: usize = 8 * 1024 * 1024;
/// The largest request head (request line and headers) accepted.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(10);

const ALLOW: &str = "GET, HEAD, OPTIONS";

/// How the server answers, beyond what the view holds.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The page size when a request gives no `limit`.
    pub default_limit: usize,
    /// The largest `limit` a request may give, if any.
    pub max_limit: Option<usize>,
    /// `Cache-Control: max-age` of successful answers, in seconds.
    pub cache_max_age: u32,
    /// Origins allowed by CORS; empty means any (`*`).
    pub cors_origins: Vec<String>,
    /// How long a connection may sit without sending a complete request head.
    pub idle_timeout: Duration,
    /// What the Darwin Core Archive says of the dataset.
    pub dataset: Dataset,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            default_limit: query::DEFAULT_LIMIT,
            max_limit: None,
            cache_max_age: 60,
            cors_origins: Vec::new(),
            idle_timeout: Duration::from_secs(30),
            dataset: Dataset::default(),
        }
    }
}

/// What every request reads: the current view (swapped whole on reload), settings
/// and counters.
pub struct Shared {
    pub view: ArcSwap<View>,
    pub settings: Settings,
    pub metrics: Metrics,
    /// The OpenAPI document for these settings, rendered once.
    openapi: Bytes,
}

impl Shared {
    pub fn new(view: View, settings: Settings) -> Arc<Shared> {
        let metrics = Metrics::default();
        metrics
            .loaded_at
            .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
        let openapi = serde_json::to_vec(&openapi::document(settings.max_limit))
            .expect("a JSON value serialises");
        Arc::new(Shared {
            view: ArcSwap::from_pointee(view),
            openapi: Bytes::from(openapi),
            settings,
            metrics,
        })
    }
}

pub type HttpResponse = warp::reply::Response;

/// Compresses a view's whole-list answers on a background thread, so the first
/// answer and a swap never wait for it; until then they are compressed per response.
pub fn precompress_in_background(view: Arc<View>) {
    let spawned = std::thread::Builder::new()
        .name("precompress".into())
        .spawn(move || {
            let started = Instant::now();
            view.precompress(COMPRESS_ABOVE, COMPRESS_BELOW);
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "whole lists compressed"
            );
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start compressing whole lists; answers compress per response");
    }
}

/// The warp filter that answers every request.
pub fn routes(
    shared: Arc<Shared>,
) -> impl Filter<Extract = (HttpResponse,), Error = Infallible> + Clone {
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::method()
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .and_then(
            move |method: Method, path: warp::path::FullPath, raw: String, headers: HeaderMap| {
                let shared = shared.clone();
                async move {
                    let started = Instant::now();
                    // One view for the whole request, even if a reload swaps it meanwhile:
                    // a body and its ETag come from the same snapshot.
                    let view = shared.view.load_full();
                    let (route, answer) = if path.as_str() == ARCHIVE_PATH
                        && (method == Method::GET || method == Method::HEAD)
                    {
                        (Route::Archive, archive(&shared, &view).await)
                    } else {
                        route(&shared, &view, &method, path.as_str(), &raw)
                    };
                    let request = Request {
                        method: &method,
                        path: path.as_str(),
                        raw_query: &raw,
                        headers: &headers,
                    };
                    let response = finish(&shared.settings, &view, &request, answer);
                    let status = response.status().as_u16();
                    let bytes = response
                        .headers()
                        .get(header::CONTENT_LENGTH)
                        .and_then(|v| v.to_str().ok()?.parse().ok())
                        .unwrap_or(0);
                    shared
                        .metrics
                        .observe(route, status, started.elapsed().as_secs_f64(), bytes);
                    tracing::debug!(%method, path = path.as_str(), query = %raw, status, "request");
                    Ok::<_, Infallible>(response)
                }
            },
        )
}

/// The Darwin Core Archive of a view: made once, off the async workers, by the
/// first request that asks (others asking meanwhile wait for the same one).
async fn archive(shared: &Arc<Shared>, view: &Arc<View>) -> Answer {
    let made = view
        .archive
        .get_or_try_init(|| {
            let (view, dataset) = (view.clone(), shared.settings.dataset.clone());
            async move {
                let started = Instant::now();
                let made = tokio::task::spawn_blocking(move || Archive::new(&view, &dataset))
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
        Ok(archive) => Answer {
            status: 200,
            parts: vec![archive.bytes.clone()],
            content_type: "application/zip",
            cacheable: true,
            location: None,
            whole: None,
            etag: Some(archive.etag.clone()),
            compressible: false,
        },
        Err(e) => {
            tracing::error!(error = %e, "cannot make the Darwin Core Archive");
            Answer::error(&ApiError {
                status: 500,
                message: format!("cannot make the Darwin Core Archive: {e}"),
            })
        }
    }
}

/// Serves on a bound listener until `shutdown` resolves, then stops accepting and
/// gives requests in flight up to ten seconds to finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let idle = shared.settings.idle_timeout;
    let service = warp::service(routes(shared));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait, then go on.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(idle)
            .max_buf_size(MAX_HEAD_BYTES.max(8192) * 2)
            .max_header_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(stream),
                hyper_util::service::TowerToHyperService::new(service.clone()),
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => tracing::warn!("requests still running after {DRAIN:?}; stopping anyway"),
    }
}

/// An answer before its HTTP headers.
struct Answer {
    status: u16,
    /// The body, in parts sent one after another.
    parts: Vec<Bytes>,
    content_type: &'static str,
    /// A successful answer about the collection: ETag, caching, compression apply.
    cacheable: bool,
    location: Option<String>,
    /// The whole list of this endpoint: its compressed body may be ready.
    whole: Option<Endpoint>,
    /// A tag of its own instead of the one made from the snapshot and the request
    /// (the archive's is its digest).
    etag: Option<String>,
    /// Whether a content coding may be applied (not to a zip, compressed already).
    compressible: bool,
}

impl Answer {
    fn json(status: u16, body: Bytes) -> Answer {
        Answer {
            status,
            parts: vec![body],
            content_type: "application/json",
            cacheable: status == 200,
            location: None,
            whole: None,
            etag: None,
            compressible: true,
        }
    }

    fn error(e: &ApiError) -> Answer {
        let mut body = Vec::with_capacity(e.message.len() + 16);
        body.extend_from_slice(b"{\"message\":");
        write_str(&mut body, &e.message);
        body.push(b'}');
        let mut a = Answer::json(e.status, Bytes::from(body));
        a.cacheable = false;
        a
    }

    fn len(&self) -> usize {
        self.parts.iter().map(Bytes::len).sum()
    }
}

fn not_found() -> Answer {
    Answer::error(&ApiError::not_found("Not found."))
}

/// Decides what a request is and answers it.
fn route(
    shared: &Shared,
    view: &View,
    method: &Method,
    path: &str,
    raw_query: &str,
) -> (Route, Answer) {
    if method == Method::OPTIONS {
        let mut a = Answer::json(204, Bytes::new());
        a.cacheable = false;
        return (Route::Other, a);
    }
    if method != Method::GET && method != Method::HEAD {
        return (
            Route::Other,
            Answer::error(&ApiError {
                status: 405,
                message: format!("method {method} is not allowed: this API is read-only ({ALLOW})"),
            }),
        );
    }
    match path {
        "/healthz" => {
            return (
                Route::Health,
                uncached(Answer::json(
                    200,
                    Bytes::from_static(b"{\"status\":\"ok\"}"),
                )),
            )
        }
        "/readyz" => {
            let body = format!(
                "{{\"status\":\"ready\",\"checksum\":\"{}\"}}",
                view.header.checksum_hex()
            );
            return (Route::Ready, uncached(Answer::json(200, Bytes::from(body))));
        }
        "/api/v2/openapi.json" => {
            return (Route::OpenApi, Answer::json(200, shared.openapi.clone()));
        }
        "/metrics" => {
            let text = shared.metrics.render(view);
            let mut a = uncached(Answer::json(200, Bytes::from(text)));
            a.content_type = "text/plain; version=0.0.4; charset=utf-8";
            return (Route::Metrics, a);
        }
        _ => {}
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return (Route::Other, not_found());
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let (endpoint, id) = match segments.as_slice() {
        [seg, ""] => (Endpoint::from_segment(seg), None),
        [seg, id, ""] => (Endpoint::from_segment(seg), Some(*id)),
        [seg] | [seg, _] if !rest.ends_with('/') => match Endpoint::from_segment(seg) {
            Some(e) => return (Route::List(e), redirect(path, raw_query)),
            None => return (Route::Other, not_found()),
        },
        _ => return (Route::Other, not_found()),
    };
    let Some(endpoint) = endpoint else {
        return (Route::Other, not_found());
    };
    let route = if id.is_some() {
        Route::Record(endpoint)
    } else {
        Route::List(endpoint)
    };
    let params = match query::parse(raw_query) {
        Ok(p) => p,
        Err(e) => return (route, Answer::error(&e)),
    };
    let answer = match id {
        None => query::list(view, endpoint, &params, &shared.settings)
            .map(|page| envelope(endpoint, page)),
        Some(id) => query::record(view, endpoint, id, &params).map(|b| Answer::json(200, b)),
    };
    (route, answer.unwrap_or_else(|e| Answer::error(&e)))
}

fn uncached(mut a: Answer) -> Answer {
    a.cacheable = false;
    a
}

/// `{"meta":{"total_count":N},"items":[...]}` around a run of items.
fn envelope(endpoint: Endpoint, page: Page) -> Answer {
    let (mut head, tail, content_type) = match page.format {
        Format::Json => (
            render::envelope_head(page.total, &page.meta),
            render::ENVELOPE_TAIL,
            "application/json",
        ),
        Format::GeoJson => (
            geojson::head(page.total, &page.meta),
            geojson::TAIL,
            geojson::MEDIA_TYPE,
        ),
    };
    let mut a = if head.len() + page.items.len() + tail.len() < COPY_BELOW {
        head.extend_from_slice(&page.items);
        head.extend_from_slice(tail);
        Answer::json(200, Bytes::from(head))
    } else {
        let mut a = Answer::json(200, Bytes::from(head));
        a.parts.push(page.items);
        a.parts.push(Bytes::from_static(tail));
        a
    };
    a.content_type = content_type;
    a.whole = page.whole.then_some(endpoint);
    a
}

/// Sends a list or record path without its trailing slash to the slashed path.
fn redirect(path: &str, raw_query: &str) -> Answer {
    let mut location = format!("{path}/");
    if !raw_query.is_empty() {
        location.push('?');
        location.push_str(raw_query);
    }
    let mut a = Answer::error(&ApiError {
        status: 301,
        message: format!("moved to {location}"),
    });
    a.location = Some(location);
    a
}

/// A strong validator for one representation: the snapshot's checksum and the
/// request, so every replica serving the same snapshot gives the same tag.
fn etag(view: &View, path: &str, raw_query: &str, coding: Coding) -> String {
    let mut h = Sha256::new();
    h.update(view.header.checksum);
    h.update(path.as_bytes());
    h.update(b"?");
    h.update(raw_query.as_bytes());
    let digest = h.finalize();
    match coding.token() {
        Some(t) => format!("\"{}-{t}\"", hex(&digest[..16])),
        None => format!("\"{}\"", hex(&digest[..16])),
    }
}

/// Whether an `If-None-Match` value names this tag (weak comparison, `*` matches).
fn none_match(header: Option<&HeaderValue>, tag: &str) -> bool {
    let Some(value) = header.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    value
        .split(',')
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// Turns an answer into a response: CORS on every one; validators, caching and
/// compression on successful answers about the collection.
/// What `finish` needs to know of the request.
struct Request<'a> {
    method: &'a Method,
    path: &'a str,
    raw_query: &'a str,
    headers: &'a HeaderMap,
}

fn finish(settings: &Settings, view: &View, request: &Request, answer: Answer) -> HttpResponse {
    let (method, req) = (request.method, request.headers);
    let mut h = HeaderMap::new();
    cors(settings, req, &mut h);
    if answer.status == 204 || answer.status == 405 {
        h.insert(header::ALLOW, HeaderValue::from_static(ALLOW));
    }
    if let Some(l) = answer
        .location
        .as_deref()
        .and_then(|l| HeaderValue::from_str(l).ok())
    {
        h.insert(header::LOCATION, l);
    }
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if answer.status == 204 {
        return build(status, h, None, Vec::new());
    }
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    let len = answer.len();
    let mut coding = Coding::Identity;
    if answer.cacheable {
        if answer.compressible && (COMPRESS_ABOVE..COMPRESS_BELOW).contains(&len) {
            coding = compress::negotiate(
                req.get(header::ACCEPT_ENCODING)
                    .and_then(|v| v.to_str().ok()),
            );
        }
        let tag = match &answer.etag {
            Some(tag) => tag.clone(),
            None => etag(view, request.path, request.raw_query, coding),
        };
        h.append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        if let Ok(v) = HeaderValue::from_str(&format!("public, max-age={}", settings.cache_max_age))
        {
            h.insert(header::CACHE_CONTROL, v);
        }
        if let Ok(d) = HeaderValue::from_str(&view.last_modified) {
            h.insert(header::LAST_MODIFIED, d);
        }
        let not_modified = none_match(req.get(header::IF_NONE_MATCH), &tag);
        if let Ok(v) = HeaderValue::from_str(&tag) {
            h.insert(header::ETAG, v);
        }
        if not_modified {
            h.remove(header::CONTENT_TYPE);
            return build(StatusCode::NOT_MODIFIED, h, None, Vec::new());
        }
    }
    if let Some(token) = coding.token() {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        // HEAD gives the headers of the GET without doing the work.
        if method == Method::HEAD {
            return build(status, h, None, Vec::new());
        }
        let ready = answer.whole.and_then(|e| view.compressed_list(e, coding));
        let body = ready.unwrap_or_else(|| {
            let parts: Vec<&[u8]> = answer.parts.iter().map(|b| &b[..]).collect();
            Bytes::from(compress::compress(coding, &parts, Effort::PerResponse))
        });
        return build(status, h, Some(body.len()), vec![body]);
    }
    build(status, h, Some(len), answer.parts)
}

fn cors(settings: &Settings, req: &HeaderMap, h: &mut HeaderMap) {
    let origin = if settings.cors_origins.is_empty() {
        Some(HeaderValue::from_static("*"))
    } else {
        h.append(header::VARY, HeaderValue::from_static("Origin"));
        req.get(header::ORIGIN)
            .filter(|o| {
                settings
                    .cors_origins
                    .iter()
                    .any(|allowed| o.as_bytes() == allowed.as_bytes())
            })
            .cloned()
    };
    if let Some(origin) = origin {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOW),
        );
        let asked = req.get(header::ACCESS_CONTROL_REQUEST_HEADERS).cloned();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            asked.unwrap_or_else(|| HeaderValue::from_static("If-None-Match, Accept-Encoding")),
        );
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("ETag, Last-Modified"),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
    }
}

/// Builds the response: one part is a plain body, several are streamed in order
/// (the middle one a shared slice of a rendered list) with an exact length.
fn build(
    status: StatusCode,
    headers: HeaderMap,
    len: Option<usize>,
    mut parts: Vec<Bytes>,
) -> HttpResponse {
    let mut r = if parts.len() > 1 {
        let stream = futures_util::stream::iter(parts.into_iter().map(Ok::<_, Infallible>));
        warp::reply::stream(stream).into_response()
    } else {
        Response::new(parts.pop().unwrap_or_default().into())
    };
    *r.status_mut() = status;
    *r.headers_mut() = headers;
    if let Some(len) = len {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    r
}
