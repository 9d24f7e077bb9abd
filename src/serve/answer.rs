//! An answer before its HTTP headers, said in types: what its body is (parts
//! ready to send, a stream made as it is sent, or not made at all), what kind
//! of document it is, and which caching rule it follows. `response::finish`
//! turns it into headers by matching on these, never on a status or a media type.

use std::sync::Arc;

use bytes::Bytes;
use warp::http::HeaderValue;

use crate::encoding::json::write_str;
use crate::encoding::percent::form_encode;
use crate::html::LabelCodes;
use crate::model::Endpoint;
use crate::query::plan::Selected;
use crate::query::{envelope, geojson, ApiError, Format, Page};
use crate::view::View;

use super::compress::Coding;
use super::media::Media;
use super::memo::Remade;
use super::state::Served;
use super::streams::{Full, Ticket};
use super::work::Work;

/// The media type of pages.
pub const HTML: &str = "text/html; charset=utf-8";

/// Bodies smaller than this are copied into one buffer; larger ones are sent as
/// head, shared slices, tail, in one vectored write, the slices of a memory file
/// sent without a copy (`zero_copy`). (At 64 KiB a 20-item specimen page, 63 KB,
/// was copied: a tenth of the server's time under load.)
const COPY_BELOW: usize = 8 * 1024;

/// Items a streamed answer writes at a time (about 200 KB of specimens).
const STREAM_CHUNK_ITEMS: usize = 64;
/// About how many bytes of a long slice of a list made of fragments are
/// copied at a time ([`Answer::assembled`]): a 500-item page of specimens
/// (1.6 MB) was sent a third faster in pieces of 512 KB than of 128 KB.
const COPY_PIECE: usize = 512 * 1024;
/// When a client refused for want of a share of the streams asks again: about
/// the time a document takes to be read.
const STREAM_RETRY_SECONDS: u32 = 5;

/// What kind of document an answer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Json,
    GeoJson,
    /// A page for people.
    Html,
    /// The Darwin Core Archive, a question's photographs: compressed already.
    Zip,
    /// The dataset's metadata (EML).
    Xml,
    /// The versions' feed, a list question's.
    Atom,
    /// The versions' feed in the IPT's form.
    Rss,
    /// A document of its own media type (a citation in one of its formats).
    Text {
        content_type: &'static str,
    },
    /// Prometheus' text format.
    Metrics,
    /// A label sheet, compressed inside already.
    Pdf,
    /// A label sheet's lines, a list's download, a checklist.
    Csv,
    /// A list's download, one JSON item a line.
    Ndjson,
    /// A file the pages load, maybe in a content coding already.
    Asset {
        content_type: &'static str,
        coding: Coding,
    },
}

impl Kind {
    /// The kind of a list's answer in `format`.
    pub fn of(format: Format) -> Kind {
        match format {
            Format::Json => Kind::Json,
            Format::GeoJson => Kind::GeoJson,
            Format::Ndjson => Kind::Ndjson,
            Format::Csv(_) => Kind::Csv,
            Format::Zip => Kind::Zip,
            Format::Atom => Kind::Atom,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Kind::Json => "application/json",
            Kind::GeoJson => geojson::MEDIA_TYPE,
            Kind::Html => HTML,
            Kind::Zip => "application/zip",
            Kind::Xml => "application/xml; charset=utf-8",
            Kind::Atom => "application/atom+xml; charset=utf-8",
            Kind::Rss => "application/rss+xml; charset=utf-8",
            Kind::Text { content_type } => content_type,
            Kind::Metrics => "text/plain; version=0.0.4; charset=utf-8",
            Kind::Pdf => "application/pdf",
            Kind::Csv => "text/csv; charset=utf-8",
            Kind::Ndjson => "application/x-ndjson",
            Kind::Asset { content_type, .. } => content_type,
        }
    }

    /// Whether a content coding may be applied to the body as it is sent.
    pub fn compressible(self) -> bool {
        !matches!(self, Kind::Zip | Kind::Pdf | Kind::Asset { .. })
    }
}

/// What the body of an answer is.
pub enum Body {
    /// No body, no media type (the preflight's 204).
    Empty,
    /// Parts sent one after another (often head, a shared slice of a rendered
    /// list, tail).
    Parts(Vec<Bytes>),
    /// An endpoint's whole list, whose compressed forms may be ready.
    WholeList(Endpoint, Vec<Bytes>),
    /// Items written as they are sent, after a head.
    Stream(Streamed),
    /// Not made: a HEAD of an answer that costs work, or a request its
    /// `If-None-Match` answers; headers only, without a length.
    Unmade,
}

/// Whether and how caches may keep an answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caching {
    /// An answer about the collection: tagged from the snapshot and the request,
    /// kept for `--cache-max-age`, compressed for clients that take it.
    Collection,
    /// A tag of its own (the archive's digest, an asset's content), and maybe a
    /// `Cache-Control` of its own.
    Own {
        tag: String,
        cache_control: Option<&'static str>,
    },
    /// Not to be stored: errors, operations, shuffled pages.
    Uncached,
}

/// What an answer's bytes were made from, as `Last-Modified` says it and
/// `If-Modified-Since` is read against it: a 304 only where the date covers
/// every byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modified {
    /// The served snapshot alone: its time.
    Snapshot,
    /// Files (a media file, a kept version's, the versions' folder): when
    /// they last changed, in microseconds since the epoch.
    At(i64),
    /// Something without a time (the clock: a citation's access day): no
    /// `Last-Modified`, and `If-Modified-Since` never answers.
    Unknown,
}

impl Modified {
    /// When a file or folder last changed: the later of its modification and
    /// status change times (a file replaced by one whose modification time is
    /// older, `cp -p` or `rsync -t`, is still newer by the second).
    pub fn of(meta: &std::fs::Metadata) -> Modified {
        use std::os::unix::fs::MetadataExt;
        let micros = |secs: i64, nanos: i64| secs * 1_000_000 + nanos / 1_000;
        let modified = micros(meta.mtime(), meta.mtime_nsec());
        let changed = micros(meta.ctime(), meta.ctime_nsec());
        Modified::At(modified.max(changed))
    }

    /// The later of two: what is made of both changed when either did.
    pub fn or_later(self, micros: i64) -> Modified {
        match self {
            Modified::At(t) => Modified::At(t.max(micros)),
            other => other,
        }
    }
}

/// Where an answer's links start: fixed (`--public-url`, paths), or the
/// request's own address, its Host (a cache must then key on it: `Vary: Host`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addressed {
    Fixed,
    ByRequest,
}

/// The items of a streamed answer, and what follows them.
pub struct Streamed {
    pub(super) head: Bytes,
    /// The chunks; an error ends the body without its last chunk (the view it
    /// reads was replaced too long ago).
    pub(super) chunks: std::pin::Pin<Box<dyn futures_util::Stream<Item = Chunk> + Send + Sync>>,
    pub(super) tail: &'static [u8],
    /// The whole body's length, where known before it is made.
    pub(super) len: Option<usize>,
    /// How many media URLs' markers it holds, where known before it is made:
    /// its length then is known with the request's media base put in too.
    pub(super) markers: Option<usize>,
}

/// A piece of a streamed body, or why the body ends before its end.
pub type Chunk = Result<Bytes, std::io::Error>;

/// An answer before its HTTP headers.
pub struct Answer {
    pub(super) status: u16,
    pub(super) kind: Kind,
    pub(super) body: Body,
    pub(super) caching: Caching,
    /// Where the body's media URLs start, if it holds any: the base goes where
    /// the rendered bytes mark it.
    pub(super) media: Media,
    /// The body may hold media markers. False for a page of a list whose items
    /// in it hold none: nothing to splice, no scan, while `media` still names
    /// the list's base for its tag and `Vary`.
    pub(super) marked: bool,
    pub(super) location: Option<String>,
    /// `Retry-After`, in seconds.
    pub(super) retry_after: Option<u32>,
    /// `X-Ignored-Parameters`: the request's parameters that changed nothing.
    pub(super) ignored: Option<HeaderValue>,
    /// `X-Repeated-Parameters`: the filters given more than once, whose last
    /// value counted.
    pub(super) repeated: Option<HeaderValue>,
    /// `Content-Disposition`'s file name, for a document to keep (a sheet).
    pub(super) filename: Option<String>,
    /// `X-Label-Overflow`: which labels of a sheet do not fit.
    pub(super) overflow: Option<HeaderValue>,
    /// Where a sheet's codes point: `X-Label-Warning` when only at the
    /// request's address.
    pub(super) codes: LabelCodes,
    /// What its `Last-Modified` is the time of.
    pub(super) modified: Modified,
    /// Whether its bytes hold the address it was asked at.
    pub(super) addressed: Addressed,
    /// Read from files the view does not name by their digest, which may
    /// change under it: not replayed, though its route's answers may be.
    pub(super) from_files: bool,
    /// A page of a list made of fragments, as a memo may make it again.
    pub(super) remade: Option<Remade>,
}

/// What a streamed document is made of, a piece at a time from the view it
/// reads (a label sheet's pages).
pub trait Pieces: Send + 'static {
    /// The next piece, or `None` after the last.
    fn next(&mut self, view: &View) -> Option<Vec<u8>>;
}

/// The start, the end and the kind of a page's answer.
fn frame(format: Format, total: usize, meta: &[u8]) -> (Vec<u8>, &'static [u8], Kind) {
    match format {
        Format::Json => (
            envelope::envelope_head(total, meta),
            envelope::TAIL,
            Kind::Json,
        ),
        Format::GeoJson => (geojson::head(total, meta), geojson::TAIL, Kind::GeoJson),
        // A download has no envelope (`routes/downloads.rs` streams it).
        download => (Vec::new(), b"", Kind::of(download)),
    }
}

/// Why a streamed answer ends after `written` of its `items`: the view it
/// read was replaced and freed.
fn cut_short(written: usize, items: usize) -> Chunk {
    tracing::warn!(
        written,
        items,
        "a streamed answer was cut: the view it read was replaced and freed"
    );
    Err(std::io::Error::other("the snapshot was replaced meanwhile"))
}

/// Parameter names as a header says them: percent-encoded, comma-separated;
/// `None` for none.
/// Past this many bytes of names, `X-Ignored-Parameters` counts the rest.
const NAMED_BYTES: usize = 1024;

fn named(names: &[String]) -> Option<HeaderValue> {
    let mut value = String::new();
    for (i, name) in names.iter().enumerate() {
        if value.len() >= NAMED_BYTES {
            // A client's text, echoed: a header of a few lines at most.
            value.push_str(&format!(", +{} more", names.len() - i));
            break;
        }
        if !value.is_empty() {
            value.push_str(", ");
        }
        form_encode(&mut value, name);
    }
    (!value.is_empty())
        .then(|| HeaderValue::from_str(&value).ok())
        .flatten()
}

impl Answer {
    fn new(status: u16, kind: Kind, body: Body, caching: Caching) -> Answer {
        Answer {
            status,
            kind,
            body,
            caching,
            media: Media::None,
            marked: true,
            location: None,
            retry_after: None,
            ignored: None,
            repeated: None,
            filename: None,
            overflow: None,
            codes: LabelCodes::Settled,
            modified: Modified::Snapshot,
            addressed: Addressed::Fixed,
            from_files: false,
            remade: None,
        }
    }

    /// A JSON document about the collection (the API root, a record).
    pub fn json(body: Bytes) -> Answer {
        Answer::new(
            200,
            Kind::Json,
            Body::Parts(vec![body]),
            Caching::Collection,
        )
    }

    /// JSON about the collection in parts sent one after another, tagged
    /// from the snapshot and the request, or by `tag` where given.
    pub fn json_parts(parts: Vec<Bytes>, tag: Option<String>) -> Answer {
        let caching = match tag {
            Some(tag) => Caching::Own {
                tag,
                cache_control: None,
            },
            None => Caching::Collection,
        };
        Answer::new(200, Kind::Json, Body::Parts(parts), caching)
    }

    /// A document about the collection of any kind (a checklist as JSON, CSV
    /// or a page).
    pub fn document(kind: Kind, body: Bytes) -> Answer {
        Answer::new(200, kind, Body::Parts(vec![body]), Caching::Collection)
    }

    /// A document of the server's own (health, metrics), never stored by caches.
    pub fn operation(status: u16, kind: Kind, body: Bytes) -> Answer {
        Answer::new(status, kind, Body::Parts(vec![body]), Caching::Uncached)
    }

    /// A document with a tag of its own (the archive, a page's file).
    pub fn tagged(
        kind: Kind,
        body: Bytes,
        tag: String,
        cache_control: Option<&'static str>,
    ) -> Answer {
        let caching = Caching::Own { tag, cache_control };
        Answer::new(200, kind, Body::Parts(vec![body]), caching)
    }

    /// A file sent in pieces as the client reads them, with its length and a
    /// tag of its own (a media file).
    pub fn file(
        kind: Kind,
        chunks: std::pin::Pin<Box<dyn futures_util::Stream<Item = Chunk> + Send + Sync>>,
        len: u64,
        tag: String,
        cache_control: &'static str,
    ) -> Answer {
        let streamed = Streamed {
            head: Bytes::new(),
            chunks,
            tail: b"",
            len: usize::try_from(len).ok(),
            markers: Some(0),
        };
        let caching = Caching::Own {
            tag,
            cache_control: Some(cache_control),
        };
        Answer::new(200, kind, Body::Stream(streamed), caching)
    }

    /// A page for people about the collection.
    pub fn html(page: String) -> Answer {
        Answer::new(
            200,
            Kind::Html,
            Body::Parts(vec![Bytes::from(page)]),
            Caching::Collection,
        )
    }

    /// A page for people saying why a request was refused.
    pub fn html_error(status: u16, page: String) -> Answer {
        let body = Body::Parts(vec![Bytes::from(page)]);
        Answer::new(status, Kind::Html, body, Caching::Uncached)
    }

    /// The preflight's answer: headers only.
    pub fn no_content() -> Answer {
        Answer::new(204, Kind::Json, Body::Empty, Caching::Uncached)
    }

    /// Every thread for expensive answers is busy and the queue is full.
    pub fn busy() -> Answer {
        Answer::error(&ApiError::busy()).retry_after(1)
    }

    /// A streamed document refused: the share documents take together is full.
    pub fn streams_full(full: &Full) -> Answer {
        Answer::error(&full.error()).retry_after(STREAM_RETRY_SECONDS)
    }

    /// The answer to a HEAD, or to a request its `If-None-Match` already answers,
    /// without its body: the headers a successful answer of this kind has.
    pub fn unmade(kind: Kind) -> Answer {
        Answer::new(200, kind, Body::Unmade, Caching::Collection)
    }

    pub fn error(e: &ApiError) -> Answer {
        let mut body = Vec::with_capacity(e.message.len() + 16);
        body.extend_from_slice(b"{\"message\":");
        write_str(&mut body, &e.message);
        body.push(b'}');
        Answer::operation(e.status, Kind::Json, Bytes::from(body))
    }

    pub fn not_found() -> Answer {
        Answer::error(&ApiError::not_found("Not found."))
    }

    /// The answer, saying when to ask again (`Retry-After`, seconds).
    pub fn retry_after(mut self, seconds: u32) -> Answer {
        self.retry_after = Some(seconds);
        self
    }

    /// Marks a body written from the view, whose items may hold media URLs.
    pub fn with_media(mut self, media: Media) -> Answer {
        self.media = media;
        self
    }

    /// The answer, made from what changed at `modified` (not the snapshot).
    pub fn modified(mut self, modified: Modified) -> Answer {
        self.modified = modified;
        self
    }

    /// The answer, its bytes holding the address it was asked at where no
    /// `--public-url` says it (`Vary: Host`).
    pub fn addressed(mut self) -> Answer {
        self.addressed = Addressed::ByRequest;
        self
    }

    /// The answer, read from files the view does not name by their digest
    /// (which may change under it): never replayed from the memo.
    pub fn read_from_files(mut self) -> Answer {
        self.from_files = true;
        self
    }

    /// The answer, not to be stored by caches (a shuffled page, a refused form).
    pub fn uncached(mut self) -> Answer {
        self.caching = Caching::Uncached;
        self
    }

    /// `{"meta":{"total_count":N},"items":[...]}` around a run of items; the
    /// endpoint's whole list when the page is.
    pub fn page(endpoint: Endpoint, page: Page) -> Answer {
        let whole = page.whole;
        let items = page.remade.clone();
        let (mut a, (head, tail)) = Answer::framed(page);
        if let (true, Body::Parts(parts)) = (whole, &mut a.body) {
            a.body = Body::WholeList(endpoint, std::mem::take(parts));
        }
        a.remade = items.map(|items| Remade {
            endpoint,
            items,
            head,
            tail,
            base: None,
        });
        a
    }

    /// [`Answer::page`] for a list that is not one of the endpoints' (Wagtail's images).
    pub fn items(page: Page) -> Answer {
        Answer::framed(page).0
    }

    /// [`Answer::items`], and the lengths of the envelope before and after
    /// the items.
    fn framed(page: Page) -> (Answer, (usize, usize)) {
        let (mut head, tail, kind) = frame(page.format, page.total, &page.meta);
        let lengths = (head.len(), tail.len());
        let len = head.len() + page.items.len() + tail.len();
        let parts = if len < COPY_BELOW {
            head.reserve_exact(len - head.len());
            page.items
                .parts()
                .iter()
                .for_each(|p| head.extend_from_slice(p));
            head.extend_from_slice(tail);
            vec![Bytes::from(head)]
        } else {
            let mut parts = Vec::with_capacity(page.items.parts().len() + 2);
            parts.push(Bytes::from(head));
            parts.extend(page.items.into_parts());
            parts.push(Bytes::from_static(tail));
            parts
        };
        let mut a = Answer::new(200, kind, Body::Parts(parts), Caching::Collection);
        a.marked = page.media;
        // A shuffled page is another body each time: no tag can name it.
        let a = match page.shuffled {
            true => a.uncached(),
            false => a,
        };
        (a, lengths)
    }

    /// A page whose items are written as the client takes them, a chunk at a time
    /// on the threads for expensive answers (the async workers only pass them
    /// on): what it holds in memory is its positions and one chunk. Sent as it is
    /// (never compressed: such answers are over the size compression stops at).
    /// It holds its view by a lease (`state::Lease`) that a reload revokes once the view was
    /// replaced `Settings::view_hold` ago: the answer is then cut, so a slow
    /// reader never keeps an old view resident for long.
    pub fn streamed(
        selected: Selected,
        served: Arc<Served>,
        work: Arc<Work>,
        ticket: Ticket,
    ) -> Answer {
        let (head, tail, kind) = frame(selected.format(), selected.total, &selected.meta);
        let len = selected
            .exact_len(&served.view)
            .map(|items| head.len() + items + tail.len());
        let markers = selected.markers(&served.view);
        let (items, shuffled) = (selected.items(), selected.shuffled());
        let source = Arc::new((selected, served.lease(), ticket));
        drop(served);
        let chunks = futures_util::stream::unfold(0, move |at| {
            let (source, work) = (source.clone(), work.clone());
            async move {
                let end = (at + STREAM_CHUNK_ITEMS).min(items);
                if at >= end {
                    return None;
                }
                let Some(served) = source.1.view() else {
                    return Some((cut_short(at, items), items));
                };
                source.2.room().await;
                let made = source.clone();
                let chunk = work.more(move || made.0.write(&served.view, at..end)).await;
                Some((Ok(source.2.hold(chunk)), end))
            }
        });
        let body = Body::Stream(Streamed {
            head: Bytes::from(head),
            chunks: Box::pin(chunks),
            tail,
            len,
            markers,
        });
        let a = Answer::new(200, kind, body, Caching::Collection);
        match shuffled {
            true => a.uncached(),
            false => a,
        }
    }

    /// Items `items` of `endpoint`'s list (a list made of fragments), a long
    /// slice of it as `format` frames it, copied as the client takes it: a
    /// piece of about [`COPY_PIECE`] bytes at a time, on the async workers as a
    /// slice of a rendered list was spliced, with the media `base` put in as
    /// the pieces are copied (one copy). Its length is known from its items'
    /// lengths and markers. It holds its view by a lease, as
    /// [`Answer::streamed`] does, and its pieces count against the streams'
    /// memory under its `ticket`.
    pub fn assembled(
        (endpoint, format): (Endpoint, Format),
        items: std::ops::Range<usize>,
        served: Arc<Served>,
        base: Option<Bytes>,
        ticket: Ticket,
    ) -> Answer {
        let list = served.view.list(endpoint);
        let (head, tail, kind) = frame(format, list.len(), &[]);
        let len = head.len() + list.run_len(items.clone(), false, base.as_deref()) + tail.len();
        let source = Arc::new((served.lease(), ticket, base));
        drop(served);
        let chunks = futures_util::stream::unfold(items.start, move |at| {
            let (source, first, end) = (source.clone(), items.start, items.end);
            async move {
                if at >= end {
                    return None;
                }
                let Some(served) = source.0.view() else {
                    return Some((cut_short(at - first, end - first), end));
                };
                source.1.room().await;
                let list = served.view.list(endpoint);
                let (mut to, mut bytes) = (at, 0);
                while to < end && bytes < COPY_PIECE {
                    bytes += list.item_len(to) + 1;
                    to += 1;
                }
                let (after_comma, base) = (at > first, source.2.as_deref());
                let mut piece = Vec::with_capacity(list.run_len(at..to, after_comma, base));
                list.write_run(at..to, after_comma, base, &mut piece);
                Some((Ok(source.1.hold(piece)), to))
            }
        });
        let body = Body::Stream(Streamed {
            head: Bytes::from(head),
            chunks: Box::pin(chunks),
            tail,
            len: Some(len),
            markers: None,
        });
        let mut a = Answer::new(200, kind, body, Caching::Collection);
        // The base is in already.
        a.marked = false;
        a
    }

    /// A document written a piece at a time on the threads for expensive
    /// answers, after `head`: what it holds in memory is the source's state and
    /// one piece. Like [`Answer::streamed`], it holds its view by a lease, and is
    /// cut when a reload revokes it. Never stored by caches: it is made anew for
    /// each request.
    pub fn pieces(
        kind: Kind,
        head: Vec<u8>,
        source: impl Pieces,
        served: Arc<Served>,
        work: Arc<Work>,
        ticket: Ticket,
    ) -> Answer {
        let source = Arc::new((std::sync::Mutex::new(source), served.lease(), ticket));
        drop(served);
        let chunks = futures_util::stream::unfold(false, move |ended| {
            let (source, work) = (source.clone(), work.clone());
            async move {
                if ended {
                    return None;
                }
                let Some(served) = source.1.view() else {
                    tracing::warn!("a document was cut: the view it read was replaced and freed");
                    let cut = std::io::Error::other("the snapshot was replaced meanwhile");
                    return Some((Err(cut), true));
                };
                source.2.room().await;
                let made = source.clone();
                let piece = work
                    .more(move || {
                        let mut source = made.0.lock().unwrap_or_else(|e| e.into_inner());
                        source.next(&served.view)
                    })
                    .await;
                piece.map(|p| (Ok(source.2.hold(p)), false))
            }
        });
        let body = Body::Stream(Streamed {
            head: Bytes::from(head),
            chunks: Box::pin(chunks),
            tail: b"",
            len: None,
            markers: None,
        });
        Answer::new(200, kind, body, Caching::Uncached)
    }

    /// The answer, tagged from the snapshot and the request when `cacheable`
    /// (a download made a piece at a time is the same bytes for the same
    /// request and snapshot), else not to be stored (`order=random`).
    /// The answer, with a `Cache-Control` of its own where it has a tag of
    /// its own (a cache asks again before each use of a `no-cache` one).
    pub fn cache_control(mut self, value: &'static str) -> Answer {
        if let Caching::Own { cache_control, .. } = &mut self.caching {
            *cache_control = Some(value);
        }
        self
    }

    pub fn cacheable(mut self, cacheable: bool) -> Answer {
        self.caching = match cacheable {
            true => Caching::Collection,
            false => Caching::Uncached,
        };
        self
    }

    /// The answer, a document to keep under `name` (`Content-Disposition`).
    pub fn named(mut self, name: String) -> Answer {
        self.filename = Some(name);
        self
    }

    /// The answer, saying which labels of its sheet do not fit.
    pub fn overflowing(mut self, report: Option<HeaderValue>) -> Answer {
        self.overflow = report;
        self
    }

    /// A sheet whose codes point where `codes` says.
    pub fn coded(mut self, codes: LabelCodes) -> Answer {
        self.codes = codes;
        self
    }

    /// The answer, naming the parameters it ignored.
    pub fn ignoring(mut self, names: &[String]) -> Answer {
        self.ignored = named(names);
        self
    }

    /// The answer, naming the filters given more than once.
    pub fn repeating(mut self, names: &[String]) -> Answer {
        self.repeated = named(names);
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
        Answer::located(301, location)
    }

    /// A redirect (`status` 301, 302, ...) to `location`, saying where in its
    /// body too.
    pub fn located(status: u16, location: String) -> Answer {
        let mut a = Answer::error(&ApiError {
            status,
            message: format!("moved to {location}"),
        });
        a.location = Some(location);
        a
    }
}
