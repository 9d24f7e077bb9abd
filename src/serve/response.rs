//! How an answer becomes an HTTP response: the same CORS, caching, validator
//! and compression rules for every answer, the guard's refusals included. Work
//! it may cost (compressing a body no one compressed before) is done on the
//! threads for answers that cost work, never on the async workers.

use std::convert::Infallible;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use futures_util::StreamExt as _;
use warp::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use warp::reply::Reply;

use crate::html::{LabelCodes, CODES_FROM_REQUEST};

use super::answer::{Addressed, Answer, Body, Caching, Kind, Modified, Streamed};
use super::asked::Asked;
use super::compress::{self, Coding, Effort, COMPRESS_ABOVE, COMPRESS_BELOW};
use super::media::{self, Media};
use super::memo::Remade;
use super::routing::Routed;
use super::settings::Settings;
use super::state::{Served, State};
use super::wire;
use super::work::Task;

/// A response as warp and hyper send it.
pub type Response = warp::reply::Response;

/// The parameters a list took no notice of (the specimen list ignores what is
/// not its filter, as the service it replaces did), so a typo is seen.
pub const IGNORED_PARAMETERS: HeaderName = HeaderName::from_static("x-ignored-parameters");

/// The specimen filters given more than once: the last value counts, as in the
/// service it replaces (GBIF's search, under `/gbif/`, takes repeats as OR).
pub const REPEATED_PARAMETERS: HeaderName = HeaderName::from_static("x-repeated-parameters");

/// Which labels of a sheet do not fit, even at the smallest size.
pub const LABEL_OVERFLOW: HeaderName = HeaderName::from_static("x-label-overflow");

/// A label sheet whose codes point only at the address it was asked at.
pub const LABEL_WARNING: HeaderName = HeaderName::from_static("x-label-warning");

/// Bodies with media URLs smaller than this take their base at once (in one
/// pass); larger ones a piece at a time as they are sent: with a 255-byte Host,
/// a connection holds a few hundred kilobytes at most.
const SPLICE_AT_ONCE_BELOW: usize = 128 * 1024;

/// Turns an answer into a response: CORS and `nosniff` on every one; validators,
/// caching and compression by the answer's caching rule; media URLs where the
/// body marks them.
pub async fn finish(state: &State, served: &Served, asked: &Asked, answer: Answer) -> Response {
    let from_files = answer.from_files;
    let mut r = made(state, served, asked, answer).await;
    if from_files {
        r.extensions_mut().insert(NotReplayed);
    }
    r
}

async fn made(state: &State, served: &Served, asked: &Asked, answer: Answer) -> Response {
    let settings = &state.settings;
    let Answer {
        status,
        kind,
        body,
        caching,
        media,
        marked,
        location,
        retry_after,
        ignored,
        repeated,
        filename,
        overflow,
        codes,
        modified,
        addressed,
        from_files: _,
        remade,
    } = answer;
    // Room for every header a response takes, so none is added by regrowing.
    let mut h = HeaderMap::with_capacity(24);
    let refused = matches!(asked.routed, Routed::Refused(_));
    if refused || state.draining.load(Ordering::Relaxed) {
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    let mut vary = Vary::default();
    cors(settings, asked, &mut h, &mut vary);
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if asked.negotiable() {
        vary.add(Vary::ACCEPT, &mut h);
    }
    if kind == Kind::Html {
        page_policy(settings, &mut h);
    }
    if let Routed::Preflight(takes) | Routed::NotAllowed(takes) = asked.routed {
        h.insert(header::ALLOW, HeaderValue::from_static(takes.allow()));
    }
    if let Some(names) = ignored {
        // Said on a 304 too: the request, not the body, decides it.
        h.insert(IGNORED_PARAMETERS, names);
    }
    if let Some(names) = repeated {
        h.insert(REPEATED_PARAMETERS, names);
    }
    if let Some(name) = filename {
        let value = format!("inline; filename=\"{name}\"");
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(header::CONTENT_DISPOSITION, v);
        }
    }
    if let Some(report) = overflow {
        h.insert(LABEL_OVERFLOW, report);
    }
    if codes == LabelCodes::FromRequest {
        h.insert(LABEL_WARNING, HeaderValue::from_static(CODES_FROM_REQUEST));
    }
    if let Some(seconds) = retry_after {
        h.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    if let Some(l) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        h.insert(header::LOCATION, l);
    }
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Body::Empty = body {
        return response(status, h, None, Vec::new());
    }
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(kind.content_type()),
    );
    // A body written from the view takes the request's media base (the tag and
    // `Vary` still follow the list's `media`: the same request gets the same).
    let base = match media {
        Media::None => None,
        _ if !marked => None,
        _ => asked
            .media_base(settings)
            .map(|b| Bytes::copy_from_slice(b.as_bytes())),
    };
    if let Some(tag) = match &caching {
        Caching::Collection => Some(asked.tag(settings, &served.view)),
        Caching::Own { tag, .. } => Some(tag.as_str()),
        Caching::Uncached => None,
    } {
        vary.add(Vary::ENCODING, &mut h);
        // Media URLs built from the request's Host: a cache must key on it.
        let media_by_host = media == Media::FromHost && settings.media_url.is_none();
        if (media_by_host || addressed == Addressed::ByRequest) && settings.public_url.is_none() {
            vary.add(Vary::HOST, &mut h);
        }
        let cache_control = match &caching {
            Caching::Own {
                cache_control: Some(own),
                ..
            } => Some(HeaderValue::from_static(own)),
            _ => Some(state.cache_control.clone()),
        };
        if let Some(v) = cache_control {
            h.insert(header::CACHE_CONTROL, v);
        }
        let mut unmodified = false;
        let last_modified = match modified {
            Modified::Snapshot => served.last_modified.clone(),
            Modified::At(micros) => settled(micros),
            Modified::Unknown => None,
        };
        if let Some(d) = last_modified {
            unmodified = d.to_str().is_ok_and(|d| asked.unmodified_since(d));
            h.insert(header::LAST_MODIFIED, d);
        }
        if let Ok(v) = HeaderValue::from_str(tag) {
            h.insert(header::ETAG, v);
        }
        if asked.names(tag) || unmodified {
            h.remove(header::CONTENT_TYPE);
            return response(StatusCode::NOT_MODIFIED, h, None, Vec::new());
        }
    }
    if let Kind::Asset { coding, .. } = kind {
        if let Some(token) = coding.token() {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
        }
    }
    // The coding the client takes names the representation (and its tag)
    // whatever the body's size; bodies too small or too large to be worth
    // compressing are sent as they are under it.
    let coding = match caching != Caching::Uncached && kind.compressible() {
        true => asked.coding,
        false => Coding::Identity,
    };
    let mut sent = Sent {
        state,
        asked,
        status,
        coding,
        base,
        ready: None,
    };
    // What a memo needs to make the page again: the base its items took.
    let remade = remade.map(|r| Remade {
        base: sent.base.clone(),
        ..r
    });
    let mut r = match body {
        Body::Empty | Body::Unmade => response(status, h, None, Vec::new()),
        Body::Stream(streamed) => stream(status, h, streamed, sent.base),
        Body::Parts(parts) => sent.parts(h, parts).await,
        Body::WholeList(endpoint, parts) => {
            sent.ready = served.compressed_list(endpoint, coding);
            sent.parts(h, parts).await
        }
    };
    if let Some(remade) = remade {
        r.extensions_mut().insert(remade);
    }
    r
}

/// `Last-Modified` for what changed at `micros`, unless that is within the
/// last second: an HTTP date counts whole seconds, so what changes again in
/// the same second would be read as unmodified by its first date (RFC 9110
/// 8.8.2.2). Without the header, only the tag revalidates it.
fn settled(micros: i64) -> Option<HeaderValue> {
    let now = chrono::Utc::now().timestamp_micros();
    if micros > now - 1_000_000 {
        return None;
    }
    HeaderValue::from_str(&crate::encoding::time::http_date(micros)).ok()
}

/// What sending a body of parts needs besides its headers.
struct Sent<'a> {
    state: &'a State,
    asked: &'a Asked,
    status: StatusCode,
    coding: Coding,
    base: Option<Bytes>,
    /// The body in `coding`, compressed once already.
    ready: Option<Bytes>,
}

impl Sent<'_> {
    /// Sends the parts: compressed where worth it (on the threads for expensive
    /// answers, or ready), else as they are, the media base spliced in.
    async fn parts(mut self, mut h: HeaderMap, mut parts: Vec<Bytes>) -> Response {
        let mut len: usize = parts.iter().map(Bytes::len).sum();
        // A small body takes its base at once, in one pass; a larger one as it
        // is sent, so that a long base cannot multiply it in memory.
        if let Some(base) = self.base.take_if(|_| len < SPLICE_AT_ONCE_BELOW) {
            parts = parts.into_iter().map(|p| media::splice(p, &base)).collect();
            len = parts.iter().map(Bytes::len).sum();
        }
        // The length once the base is in: its markers counted here below the
        // size compression stops at, above it on the threads for answers that
        // cost work (a million specimens are gigabytes to scan); when all are
        // busy, the body goes chunked.
        let spliced = match &self.base {
            None => Some(len),
            Some(base) if len < COMPRESS_BELOW => Some(media::spliced_len(&parts, base)),
            Some(base) => {
                let (parts, base) = (parts.clone(), base.clone());
                let count = move || media::spliced_len(&parts, &base);
                self.state.work.run(Task::Measure, count).await
            }
        };
        let worth = spliced.is_some_and(|l| (COMPRESS_ABOVE..COMPRESS_BELOW).contains(&l));
        let mut busy = false;
        if let (Some(token), true) = (self.coding.token(), worth) {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(token));
            // HEAD gives the headers of the GET without doing the work.
            if self.asked.method == Method::HEAD {
                return response(self.status, h, None, Vec::new());
            }
            let compressed = match self.ready {
                Some(ready) => Some(ready),
                None => self.compress(&parts, len).await,
            };
            match compressed {
                Some(body) => return response(self.status, h, Some(body.len()), vec![body]),
                // Every thread is busy and the queue full: sent as it is, under
                // the same tag (as a body too small to compress is).
                None => {
                    h.remove(header::CONTENT_ENCODING);
                    busy = true;
                }
            }
        }
        let Some(base) = self.base else {
            let mut r = response(self.status, h, Some(len), parts);
            if busy {
                // Not the answer the next such request should get.
                r.extensions_mut().insert(NotReplayed);
            }
            return r;
        };
        let pieces = media::spliced_pieces(parts, base).map(Ok::<_, Infallible>);
        let mut r = warp::reply::stream(futures_util::stream::iter(pieces)).into_response();
        *r.status_mut() = self.status;
        *r.headers_mut() = h;
        if let Some(total) = spliced {
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(total));
        }
        r
    }

    /// The parts, media base spliced in, compressed on the threads for answers
    /// that cost work; `None` when all are busy and the queue is full.
    async fn compress(&self, parts: &[Bytes], len: usize) -> Option<Bytes> {
        let (coding, base, parts) = (self.coding, self.base.clone(), parts.to_vec());
        let job = move || {
            Bytes::from(compress::encode(coding, Effort::PerResponse, len, |w| {
                // A part at a time, as it is spliced: the coders' output
                // depends on how their input is cut.
                parts.into_iter().try_for_each(|p| match &base {
                    Some(base) => w.write_all(&media::splice(p, base)),
                    None => w.write_all(&p),
                })
            }))
        };
        self.state.work.run(Task::Compress, job).await
    }
}

/// A streamed answer: its head, its chunks as the threads write them, its tail;
/// each chunk with the media base spliced in. Without a length where a base
/// changes it (chunked).
fn stream(status: StatusCode, h: HeaderMap, streamed: Streamed, base: Option<Bytes>) -> Response {
    let Streamed {
        head,
        chunks,
        tail,
        len,
        markers,
    } = streamed;
    // Each marker becomes the base.
    let len = match &base {
        None => len,
        Some(base) => len.zip(markers).map(|(len, m)| len - m + m * base.len()),
    };
    let body = futures_util::stream::once(async move { Ok(head) })
        .chain(chunks)
        .chain(futures_util::stream::once(async move {
            Ok(Bytes::from_static(tail))
        }))
        .map(move |chunk| match &base {
            Some(base) => chunk.map(|c| media::splice(c, base)),
            None => chunk,
        });
    let mut r = warp::reply::stream(body).into_response();
    *r.status_mut() = status;
    *r.headers_mut() = h;
    if let Some(len) = len {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    r
}

/// The one inline style a page may hold: the style element OpenSeadragon
/// (the deep-zoom viewer) adds, by its content's SHA-256.
const VIEWER_STYLE: &str = "'sha256-9xTiqzfwFaL2SGb1rmr8gysEwVVjIvqWAgmZgqFqpEE='";

/// What a page may load and do: scripts and styles from this origin only (no
/// inline script, so a value that slipped through escaping could not run; no
/// inline style but the viewer's own), images from here and the map's tile
/// host, requests to this origin only.
fn page_policy(settings: &Settings, h: &mut HeaderMap) {
    let tiles = settings.site.tile_origin().unwrap_or_default();
    let csp = format!(
        "default-src 'none'; script-src 'self'; style-src 'self' {VIEWER_STYLE}; img-src 'self' data: {tiles}; \
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

/// `Access-Control-Allow-Origin` and what a script may read on every answer; what
/// a request may send (methods, headers, for how long) on a preflight only, the
/// one answer browsers read it from.
fn cors(settings: &Settings, asked: &Asked, h: &mut HeaderMap, vary: &mut Vary) {
    let req = &asked.headers;
    let origin = if settings.cors_origins.is_empty() {
        Some(HeaderValue::from_static("*"))
    } else {
        vary.add(Vary::ORIGIN, h);
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
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(
                "ETag, Last-Modified, X-Ignored-Parameters, X-Repeated-Parameters, X-Label-Overflow, X-Label-Warning, Content-Disposition",
            ),
        );
        if let Routed::Preflight(takes) = asked.routed {
            h.insert(
                header::ACCESS_CONTROL_ALLOW_METHODS,
                HeaderValue::from_static(takes.allow()),
            );
            let wanted = req.get(header::ACCESS_CONTROL_REQUEST_HEADERS).cloned();
            h.insert(
                header::ACCESS_CONTROL_ALLOW_HEADERS,
                wanted.unwrap_or_else(|| {
                    HeaderValue::from_static("If-None-Match, If-Modified-Since, Accept-Encoding")
                }),
            );
            h.insert(
                header::ACCESS_CONTROL_MAX_AGE,
                HeaderValue::from_static("86400"),
            );
        }
    }
}

/// What an answer varies by, said in one `Vary` header (`Accept, Origin`) however
/// many the steps of `finish` add: each step sets the whole value from a table.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Vary(u8);

impl Vary {
    const ORIGIN: Vary = Vary(1);
    const ACCEPT: Vary = Vary(2);
    const ENCODING: Vary = Vary(4);
    const HOST: Vary = Vary(8);
    /// Each set's value, its names in the order above.
    const VALUES: [&'static str; 16] = [
        "",
        "Origin",
        "Accept",
        "Origin, Accept",
        "Accept-Encoding",
        "Origin, Accept-Encoding",
        "Accept, Accept-Encoding",
        "Origin, Accept, Accept-Encoding",
        "Host",
        "Origin, Host",
        "Accept, Host",
        "Origin, Accept, Host",
        "Accept-Encoding, Host",
        "Origin, Accept-Encoding, Host",
        "Accept, Accept-Encoding, Host",
        "Origin, Accept, Accept-Encoding, Host",
    ];

    /// Adds `what` and says the whole set in `h`.
    fn add(&mut self, what: Vary, h: &mut HeaderMap) {
        self.0 |= what.0;
        let value = Self::VALUES[usize::from(self.0)];
        h.insert(header::VARY, HeaderValue::from_static(value));
    }
}

/// Marks an answer not to replay though its route's may be: one sent
/// uncompressed to a client that takes a coding because every thread was busy
/// (correct under its tag, but not what the next such request should get), or
/// one read from files the view does not name by their digest.
#[derive(Clone, Copy)]
pub struct NotReplayed;

/// Builds the response: a body of known length is its parts, written with the
/// head in one call (`wire`); without a length, they are streamed in order.
fn response(
    status: StatusCode,
    headers: HeaderMap,
    len: Option<usize>,
    mut parts: Vec<Bytes>,
) -> Response {
    let mut r = match (parts.len(), len) {
        (0, _) | (1, None) => warp::http::Response::new(parts.pop().unwrap_or_default().into()),
        (_, Some(_)) => {
            // The empty body is not allocated (a `Bytes` one would be boxed).
            let mut r = warp::http::Response::default();
            r.extensions_mut().insert(wire::Parts(parts));
            r
        }
        (_, None) => {
            let stream = futures_util::stream::iter(parts.into_iter().map(Ok::<_, Infallible>));
            warp::reply::stream(stream).into_response()
        }
    };
    *r.status_mut() = status;
    *r.headers_mut() = headers;
    if let Some(len) = len {
        r.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vary_says_each_set_in_one_value() {
        let names = ["Origin", "Accept", "Accept-Encoding", "Host"];
        for bits in 0..16u8 {
            let want: Vec<&str> = (0..4)
                .filter(|i| bits & (1 << i) != 0)
                .map(|i| names[i])
                .collect();
            assert_eq!(
                Vary::VALUES[usize::from(bits)],
                want.join(", "),
                "{bits:04b}"
            );
        }
        let mut h = HeaderMap::new();
        let mut vary = Vary::default();
        vary.add(Vary::ACCEPT, &mut h);
        vary.add(Vary::ENCODING, &mut h);
        vary.add(Vary::ACCEPT, &mut h);
        let said: Vec<_> = h.get_all(header::VARY).iter().collect();
        assert_eq!(said, ["Accept, Accept-Encoding"]);
    }

    /// The memo keys a request on exactly the headers an answer can vary by: a
    /// header added to `Vary` must be added to its key, or another request's
    /// answer would be replayed. The forwarded pair come only from a trusted
    /// proxy, and are keyed without being said.
    #[test]
    fn the_memo_keys_on_what_answers_vary_by() {
        let mut varied: Vec<String> = Vary::VALUES[Vary::VALUES.len() - 1]
            .split(", ")
            .map(|n| n.to_ascii_lowercase())
            .chain(["x-forwarded-proto".into(), "x-forwarded-host".into()])
            .collect();
        let mut keyed: Vec<String> = super::super::memo::ASKED_BY
            .iter()
            .map(|n| n.as_str().to_string())
            .collect();
        varied.sort();
        keyed.sort();
        assert_eq!(varied, keyed);
    }
}
