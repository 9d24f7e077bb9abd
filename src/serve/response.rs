//! An answer, and how it becomes an HTTP response: the same caching, validators,
//! compression and CORS headers for every kind of answer.

use std::convert::Infallible;
use std::sync::Arc;

use futures_util::StreamExt as _;

use bytes::Bytes;
use sha2::{Digest, Sha256};
use warp::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use warp::reply::Reply;

use crate::encoding::hex::hex;
use crate::encoding::json::write_str;
use crate::encoding::percent::form_encode;
use crate::model::Endpoint;
use crate::query::plan::Selected;
use crate::query::{envelope, geojson, ApiError, Format, Page};
use crate::view::render::MEDIA_BASE;
use crate::view::View;

use super::compress::{self, Coding, Effort};
use super::state::{Served, Settings, State, COMPRESS_ABOVE, COMPRESS_BELOW};

/// A response as warp and hyper send it.
pub type Response = warp::reply::Response;

/// The methods the API answers.
pub const ALLOW: &str = "GET, HEAD, OPTIONS";

/// The parameters a list took no notice of (the specimen list ignores what is
/// not its filter, as the service it replaces did), so a typo is seen.
pub const IGNORED_PARAMETERS: HeaderName = HeaderName::from_static("x-ignored-parameters");

/// The media type of pages.
pub const HTML: &str = "text/html; charset=utf-8";

/// Bodies smaller than this are copied into one buffer; larger ones are sent as
/// head, shared slice, tail.
const COPY_BELOW: usize = 64 * 1024;

/// An answer before its HTTP headers.
pub struct Answer {
    pub status: u16,
    /// The body, in parts sent one after another.
    pub parts: Vec<Bytes>,
    pub content_type: &'static str,
    /// A successful answer about the collection: ETag, caching, compression apply.
    pub cacheable: bool,
    pub location: Option<String>,
    /// The whole list of this endpoint: its compressed body may be ready.
    pub whole: Option<Endpoint>,
    /// A tag of its own instead of the one made from the snapshot and the request
    /// (the archive's is its digest).
    pub etag: Option<String>,
    /// Whether a content coding may be applied (not to a zip, compressed already).
    pub compressible: bool,
    /// Where the body's media URLs start, if it holds any: the base goes where
    /// the rendered bytes mark it.
    pub media: Media,
    /// The body was not made (a HEAD of an answer that costs work): headers only,
    /// without a length.
    pub unmeasured: bool,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u32>,
    /// Items made as they are sent, after `parts`.
    pub stream: Option<Streamed>,
    /// The `Content-Encoding` the body is in already (a precompressed asset).
    pub encoded: Option<&'static str>,
    /// A `Cache-Control` of its own instead of `--cache-max-age`'s.
    pub cache_control: Option<&'static str>,
    /// The URL answers in more than one representation (`Vary: Accept`).
    pub negotiated: bool,
    /// `X-Ignored-Parameters`: the request's parameters that changed nothing.
    pub ignored: Option<HeaderValue>,
}

/// The items of a streamed answer, and what follows them.
pub struct Streamed {
    chunks: std::pin::Pin<Box<dyn futures_util::Stream<Item = Bytes> + Send + Sync>>,
    tail: &'static [u8],
    /// The whole body's length, where known before it is made.
    len: Option<usize>,
}

/// Items a streamed answer writes at a time (about 200 KB of specimens).
const STREAM_CHUNK_ITEMS: usize = 64;

/// The start, the end and the media type of a page's answer.
fn frame(format: Format, total: usize, meta: &[u8]) -> (Vec<u8>, &'static [u8], &'static str) {
    match format {
        Format::Json => (
            envelope::envelope_head(total, meta),
            envelope::TAIL,
            "application/json",
        ),
        Format::GeoJson => (
            geojson::head(total, meta),
            geojson::TAIL,
            geojson::MEDIA_TYPE,
        ),
    }
}

impl Answer {
    pub fn json(status: u16, body: Bytes) -> Answer {
        Answer {
            status,
            parts: vec![body],
            content_type: "application/json",
            cacheable: status == 200,
            location: None,
            whole: None,
            etag: None,
            compressible: true,
            media: Media::None,
            unmeasured: false,
            retry_after: None,
            stream: None,
            encoded: None,
            cache_control: None,
            negotiated: false,
            ignored: None,
        }
    }

    /// A page for people (`text/html`).
    pub fn html(status: u16, page: String) -> Answer {
        let mut a = Answer::json(status, Bytes::from(page));
        a.content_type = HTML;
        a
    }

    /// Every thread for expensive answers is busy and the queue is full.
    pub fn busy() -> Answer {
        let mut a = Answer::error(&ApiError {
            status: 503,
            message: "the server is busy with other questions: retry in a second".into(),
        });
        a.retry_after = Some(1);
        a
    }

    /// The answer to a HEAD, or to a request its `If-None-Match` already answers,
    /// without its body: the headers a successful answer of this type has.
    pub fn unmade(content_type: &'static str) -> Answer {
        let mut a = Answer::json(200, Bytes::new());
        a.content_type = content_type;
        a.unmeasured = true;
        a
    }

    pub fn error(e: &ApiError) -> Answer {
        let mut body = Vec::with_capacity(e.message.len() + 16);
        body.extend_from_slice(b"{\"message\":");
        write_str(&mut body, &e.message);
        body.push(b'}');
        let mut a = Answer::json(e.status, Bytes::from(body));
        a.cacheable = false;
        a
    }

    /// The answer, not to be stored by caches (operations, errors).
    pub fn uncached(mut self) -> Answer {
        self.cacheable = false;
        self
    }

    /// Marks an answer about an endpoint, whose items may hold media URLs.
    pub fn with_media(mut self, view: &View, endpoint: Endpoint) -> Answer {
        self.media = Media::of(view, endpoint);
        self
    }

    pub fn not_found() -> Answer {
        Answer::error(&ApiError::not_found("Not found."))
    }

    fn len(&self) -> usize {
        self.parts.iter().map(Bytes::len).sum()
    }

    /// `{"meta":{"total_count":N},"items":[...]}` around a run of items.
    pub fn page(endpoint: Endpoint, page: Page) -> Answer {
        let whole = page.whole;
        let mut a = Answer::items(page);
        a.whole = whole.then_some(endpoint);
        a
    }

    /// [`Answer::page`] for a list that is not one of the endpoints' (Wagtail's images).
    pub fn items(page: Page) -> Answer {
        let (mut head, tail, content_type) = frame(page.format, page.total, &page.meta);
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
        // A shuffled page is another body each time: no tag can name it.
        a.cacheable = !page.shuffled;
        a
    }

    /// A page whose items are written as the client takes them, a chunk at a time:
    /// what it holds in memory is its positions and one chunk. Sent as it is
    /// (never compressed: such answers are over the size compression stops at).
    pub fn streamed(selected: Selected, served: Arc<Served>, work: Arc<State>) -> Answer {
        let (head, tail, content_type) = frame(selected.format(), selected.total, &selected.meta);
        let len = selected
            .exact_len(&served.view)
            .map(|items| head.len() + items + tail.len());
        let (items, shuffled) = (selected.items(), selected.shuffled());
        let source = Arc::new((selected, served));
        // Chunks are written on the threads for expensive answers, like the page
        // they continue: the async workers only pass them on.
        let chunks = futures_util::stream::unfold(0, move |at| {
            let (source, work) = (source.clone(), work.clone());
            async move {
                let end = (at + STREAM_CHUNK_ITEMS).min(items);
                if at >= end {
                    return None;
                }
                let chunk = work
                    .work
                    .more(move || source.0.write(&source.1.view, at..end))
                    .await;
                Some((chunk, end))
            }
        });
        let mut a = Answer::json(200, Bytes::from(head));
        a.content_type = content_type;
        a.compressible = false;
        // A shuffled page is another body each time: no tag can name it.
        a.cacheable = !shuffled;
        a.stream = Some(Streamed {
            chunks: Box::pin(chunks),
            tail,
            len,
        });
        a
    }

    /// The answer, naming the parameters it ignored (percent-encoded, comma-separated).
    pub fn ignoring(mut self, names: &[String]) -> Answer {
        let mut value = String::new();
        for name in names {
            if !value.is_empty() {
                value.push_str(", ");
            }
            form_encode(&mut value, name);
        }
        self.ignored = (!value.is_empty())
            .then(|| HeaderValue::from_str(&value).ok())
            .flatten();
        self
    }

    /// Sends a path to itself with a trailing slash (a list or record path without
    /// its slash; `/api`, `/api/` and `/api/v2` to the API root), query kept.
    pub fn redirect(path: &str, raw_query: &str) -> Answer {
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
}

/// A strong validator for one representation: the snapshot's checksum and the
/// request, so every replica serving the same snapshot gives the same tag.
/// A body with media URLs also depends on their base.
fn etag(
    settings: &Settings,
    view: &View,
    request: &Request,
    media_base: Option<&str>,
    coding: Coding,
) -> String {
    let mut h = Sha256::new();
    h.update(view.header.checksum);
    h.update(request.path.as_bytes());
    h.update(b"?");
    h.update(request.raw_query.as_bytes());
    if request.html {
        // A page also depends on this build's templates and files, and the tiles.
        h.update(b"\0html ");
        h.update(env!("CARGO_PKG_VERSION"));
        h.update(crate::html::assets::prefix());
        h.update(settings.site.map_tiles.as_deref().unwrap_or_default());
        h.update(b"\0");
        h.update(settings.site.map_attribution.as_deref().unwrap_or_default());
    }
    if let Some(base) = media_base {
        h.update(b"\0");
        h.update(base.as_bytes());
    }
    let digest = h.finalize();
    match coding.token() {
        Some(t) => format!("\"{}-{t}\"", hex(&digest[..16])),
        None => format!("\"{}\"", hex(&digest[..16])),
    }
}

/// The coding a request's `Accept-Encoding` asks for.
fn negotiated(req: &HeaderMap) -> Coding {
    compress::negotiate(
        req.get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    )
}

/// Whether the request's `If-None-Match` names the tag a successful answer to it
/// would carry: then it can be answered 304 without making the answer.
pub fn still_fresh(settings: &Settings, served: &Served, request: &Request, media: Media) -> bool {
    if !request.headers.contains_key(header::IF_NONE_MATCH) {
        return false;
    }
    let base = media.base(settings, request.headers);
    let tag = etag(
        settings,
        &served.view,
        request,
        base.as_deref(),
        negotiated(request.headers),
    );
    none_match(request.headers, &tag)
}

/// Whether the request's `If-None-Match` names this tag (weak comparison, `*`
/// matches), on whichever of its header lines (a list may be split over several).
fn none_match(req: &HeaderMap, tag: &str) -> bool {
    req.get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == tag)
}

/// What `finish` needs to know of the request.
pub struct Request<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub raw_query: &'a str,
    pub headers: &'a HeaderMap,
    /// The answer is a page: its tag differs from the JSON answer's.
    pub html: bool,
}

/// Turns an answer into a response: CORS on every one; validators, caching and
/// compression on successful answers about the collection.
pub fn finish(
    settings: &Settings,
    served: &Served,
    request: &Request,
    answer: Answer,
    draining: bool,
) -> Response {
    let view = &served.view;
    let (method, req) = (request.method, request.headers);
    let mut h = HeaderMap::new();
    if draining {
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    cors(settings, req, &mut h);
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if answer.negotiated {
        h.append(header::VARY, HeaderValue::from_static("Accept"));
    }
    if answer.content_type == HTML {
        page_policy(settings, &mut h);
    }
    if answer.status == 204 || answer.status == 405 {
        h.insert(header::ALLOW, HeaderValue::from_static(ALLOW));
    }
    if let Some(names) = &answer.ignored {
        // Said on a 304 too: the request, not the body, decides it.
        h.insert(IGNORED_PARAMETERS, names.clone());
    }
    if let Some(seconds) = answer.retry_after {
        h.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
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
        return response(status, h, None, Vec::new());
    }
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    let mut answer = answer;
    let base = answer.media.base(settings, req);
    if let Some(base) = &base {
        answer.parts = with_media_base(answer.parts, base.as_bytes());
    }
    let len = answer.len();
    // The coding the client takes names the representation (and its tag) whatever
    // the body's size, so the tag is known before any work; bodies too small or too
    // large to be worth compressing are sent as they are under it.
    let negotiated = match answer.compressible {
        true => negotiated(req),
        false => Coding::Identity,
    };
    let mut coding = Coding::Identity;
    if answer.cacheable {
        if (COMPRESS_ABOVE..COMPRESS_BELOW).contains(&len) && !answer.unmeasured {
            coding = negotiated;
        }
        let tag = match &answer.etag {
            Some(tag) => tag.clone(),
            None => etag(settings, view, request, base.as_deref(), negotiated),
        };
        h.append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        // Media URLs built from the request's Host: a cache must key on it.
        if answer.media == Media::FromHost && settings.media_url.is_none() {
            h.append(header::VARY, HeaderValue::from_static("Host"));
        }
        let cache_control = answer
            .cache_control
            .map(HeaderValue::from_static)
            .or_else(|| {
                HeaderValue::from_str(&format!("public, max-age={}", settings.cache_max_age)).ok()
            });
        if let Some(v) = cache_control {
            h.insert(header::CACHE_CONTROL, v);
        }
        if let Ok(d) = HeaderValue::from_str(&view.last_modified) {
            h.insert(header::LAST_MODIFIED, d);
        }
        let not_modified = none_match(req, &tag);
        if let Ok(v) = HeaderValue::from_str(&tag) {
            h.insert(header::ETAG, v);
        }
        if not_modified {
            h.remove(header::CONTENT_TYPE);
            return response(StatusCode::NOT_MODIFIED, h, None, Vec::new());
        }
    }
    if let Some(token) = answer.encoded {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
    }
    if answer.unmeasured {
        // A HEAD whose body was not made: the headers it can give without it.
        return response(status, h, None, Vec::new());
    }
    if let Some(streamed) = answer.stream {
        // Media URLs change the length: those go without one (chunked).
        let len = streamed.len.filter(|_| base.is_none());
        let base = base.map(String::into_bytes);
        let head = futures_util::stream::iter(answer.parts);
        let tail = futures_util::stream::once(async move { Bytes::from_static(streamed.tail) });
        let body = head.chain(streamed.chunks).chain(tail).map(move |chunk| {
            Ok::<_, Infallible>(match &base {
                Some(base) => with_media_base(vec![chunk], base).pop().unwrap_or_default(),
                None => chunk,
            })
        });
        let mut r = warp::reply::stream(body).into_response();
        *r.status_mut() = status;
        *r.headers_mut() = one_vary(h);
        if let Some(len) = len {
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        }
        return r;
    }
    if let Some(token) = coding.token() {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        // HEAD gives the headers of the GET without doing the work.
        if method == Method::HEAD {
            return response(status, h, None, Vec::new());
        }
        let ready = answer.whole.and_then(|e| served.compressed_list(e, coding));
        let body = ready.unwrap_or_else(|| {
            let parts: Vec<&[u8]> = answer.parts.iter().map(|b| &b[..]).collect();
            Bytes::from(compress::compress(coding, &parts, Effort::PerResponse))
        });
        return response(status, h, Some(body.len()), vec![body]);
    }
    response(status, h, Some(len), answer.parts)
}

/// What a page may load and do: scripts and styles from this origin only (no
/// inline script, so a value that slipped through escaping could not run), images
/// from here and the map's tile host, requests to this origin only.
fn page_policy(settings: &Settings, h: &mut HeaderMap) {
    let tiles = settings.site.tile_origin().unwrap_or_default();
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: {tiles}; \
         connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; \
         frame-ancestors 'none'"
    );
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
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
            HeaderValue::from_static("ETag, Last-Modified, X-Ignored-Parameters"),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
    }
}

/// The `Vary` values appended along the way, as one header (`Accept, Origin`).
fn one_vary(mut h: HeaderMap) -> HeaderMap {
    let values: Vec<&str> = h
        .get_all(header::VARY)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if values.len() > 1 {
        if let Ok(v) = HeaderValue::from_str(&values.join(", ")) {
            h.insert(header::VARY, v);
        }
    }
    h
}

/// Builds the response: one part is a plain body, several are streamed in order
/// (the middle one a shared slice of a rendered list) with an exact length.
fn response(
    status: StatusCode,
    headers: HeaderMap,
    len: Option<usize>,
    mut parts: Vec<Bytes>,
) -> Response {
    let mut r = if parts.len() > 1 {
        let stream = futures_util::stream::iter(parts.into_iter().map(Ok::<_, Infallible>));
        warp::reply::stream(stream).into_response()
    } else {
        warp::http::Response::new(parts.pop().unwrap_or_default().into())
    };
    *r.status_mut() = status;
    *r.headers_mut() = one_vary(headers);
    if let Some(len) = len {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    r
}

/// Where the media URLs of an answer start, if it holds any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    None,
    /// As the service's own lists build them: [`media_url`].
    FromHost,
    /// As Wagtail's own endpoints write them (`/api/v2/images/`'s
    /// `download_url`): `--media-url`, else `/media/`, whatever the Host.
    Configured,
}

impl Media {
    /// What the items of an endpoint hold in this view (a specimen's only
    /// where a taxon it embeds has a featured image).
    pub fn of(view: &View, endpoint: Endpoint) -> Media {
        match view.list(endpoint).has_media() {
            true => Media::FromHost,
            false => Media::None,
        }
    }

    /// The base, as JSON string content, to go where the rendered bytes mark it.
    pub(super) fn base(self, settings: &Settings, req: &HeaderMap) -> Option<String> {
        match self {
            Media::None => None,
            Media::FromHost => Some(media_base(settings, req)),
            Media::Configured => {
                let url = settings.media_url.as_deref().unwrap_or("/media/");
                Some(json_content(url))
            }
        }
    }
}

/// Where media URLs start: `--media-url`, else `http://<Host>/media/` as the
/// existing service built it from the request (`/media/` when a request names no
/// host).
pub(super) fn media_url(settings: &Settings, req: &HeaderMap) -> String {
    match &settings.media_url {
        Some(url) => url.clone(),
        None => match req.get(header::HOST).and_then(|h| h.to_str().ok()) {
            Some(host) => format!("http://{host}/media/"),
            None => "/media/".to_string(),
        },
    }
}

/// [`media_url`] as JSON string content, to go where the rendered bytes mark it.
pub(super) fn media_base(settings: &Settings, req: &HeaderMap) -> String {
    json_content(&media_url(settings, req))
}

/// A string as it stands between a JSON string's quotes.
fn json_content(s: &str) -> String {
    let mut quoted = Vec::with_capacity(s.len() + 2);
    write_str(&mut quoted, s);
    String::from_utf8_lossy(&quoted[1..quoted.len() - 1]).into_owned()
}

/// The parts with every media base marker replaced by `base`.
pub(super) fn with_media_base(parts: Vec<Bytes>, base: &[u8]) -> Vec<Bytes> {
    parts
        .into_iter()
        .map(|part| {
            let mut markers = memchr::memchr_iter(MEDIA_BASE, &part).peekable();
            if markers.peek().is_none() {
                return part;
            }
            // Found with memchr and copied a run at a time: a featured image puts
            // a dozen markers in an item, and a byte-by-byte split cost a third
            // of a page's throughput.
            let mut out = Vec::with_capacity(part.len() + 16 * base.len());
            let mut from = 0;
            for at in markers {
                out.extend_from_slice(&part[from..at]);
                out.extend_from_slice(base);
                from = at + 1;
            }
            out.extend_from_slice(&part[from..]);
            Bytes::from(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_media_base_goes_at_every_marker() {
        let m = MEDIA_BASE as char;
        let parts = vec![
            Bytes::from(format!("{m}a{m}{m}b{m}")),
            Bytes::from_static(b"no marker"),
            Bytes::from(format!("\"{m}x.jpg\"")),
        ];
        let out = with_media_base(parts, b"http://h/media/");
        assert_eq!(
            out,
            [
                "http://h/media/ahttp://h/media/http://h/media/bhttp://h/media/",
                "no marker",
                "\"http://h/media/x.jpg\"",
            ]
            .map(|s| Bytes::from(s.to_string()))
        );
    }
}
