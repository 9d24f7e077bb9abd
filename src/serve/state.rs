//! What every request reads: the view being served with what serving it caches,
//! swapped whole on reload, beside the settings and the counters.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use arc_swap::ArcSwap;
use bytes::Bytes;
use warp::http::HeaderValue;

use crate::export::csv;
use crate::export::dwca::Archive;
use crate::model::dataset::Told;
use crate::model::Endpoint;
use crate::query::{self, envelope};
use crate::snapshot::status::{Kind, Status};
use crate::view::View;

use super::compress::{Coding, Compressed, COMPRESS_ABOVE, COMPRESS_BELOW};
use super::memo::Memo;
use super::metrics::Metrics;
use super::settings::Settings;
use super::streams::Streams;
use super::work::Work;

/// A view and what serving it caches. The caches live and die with their view:
/// both are swapped in one store, so a cached body never outlives its view nor
/// answers for another.
pub struct Served {
    pub view: View,
    /// The view's `Last-Modified`, said by every answer that carries a tag.
    pub last_modified: Option<HeaderValue>,
    /// Each endpoint's whole list answer, gzip and brotli, filled in the background
    /// after the view is published (`precompress`).
    compressed: Vec<Compressed>,
    /// The Darwin Core Archive of this view, made on the first request for it.
    pub archive: tokio::sync::OnceCell<Archive>,
    /// The server says of the dataset what the snapshot says (it was told
    /// nothing over it): the version's kept archive and `eml.xml` are then
    /// its own.
    pub as_built: bool,
    /// The whole dataset's `eml.xml` and its tag, made on the first request,
    /// with the site it names as the archive's (`Links::site`).
    pub eml: std::sync::OnceLock<(String, Bytes, String)>,
    /// Each list's CSV rows with every field, written by the first download
    /// that needs them (on the work threads) and kept with the view.
    csv_rows: Vec<std::sync::OnceLock<Arc<csv::Rows>>>,
    /// Another view replaced this one: preparing it further is wasted work (and
    /// keeps its memory longer).
    retired: AtomicBool,
    /// The holds of the streamed answers reading this view, which a reload
    /// revokes once they have kept it too long.
    leases: Mutex<Vec<Weak<Lease>>>,
    /// Answers made from this view, replayed to the requests that ask the same.
    pub memo: Memo,
    /// The versions kept beside the snapshot as last listed, and their
    /// folder's modification time then ([`Served::kept_versions`]).
    kept: Mutex<Option<(SystemTime, Arc<[u64]>)>>,
}

/// A folder changed this recently may change again within the same tick of
/// its modification time: its listing is not kept until it stood still.
const SETTLED: Duration = Duration::from_secs(1);

/// A streamed answer's hold on the view it reads. A client may take minutes to
/// read a large answer, and its socket buffers fill for seconds at a time (so
/// the answer is not asked for its next chunk): the reload that replaced the view
/// revokes the hold from outside (`Served::revoke_leases`), the view is freed at
/// once, and the answer ends at its next chunk.
pub struct Lease(Mutex<Option<Arc<Served>>>);

impl Lease {
    /// The view, unless the hold was revoked.
    pub fn view(&self) -> Option<Arc<Served>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Served {
    /// Serves `view`, keeping up to `replay_budget` bytes of its answers to
    /// replay, saying of its dataset what the server was `told` over the
    /// snapshot's description, in place of `replacing` (the view served
    /// until now, if any).
    ///
    /// Its validators move whenever its answers may: the tag covers the
    /// description said where it is not the snapshot's, and a view whose
    /// snapshot or description is not the replaced one's is `Last-Modified`
    /// later than it, by a second at least (an `If-Modified-Since` of the
    /// old date is answered the new body, not 304), at the moment it is
    /// first said where the description changed.
    pub fn new(
        mut view: View,
        told: &Told,
        replay_budget: usize,
        replacing: Option<&Served>,
    ) -> Served {
        let mut as_built = true;
        if !told.is_empty() {
            let said = told.over(&view.dataset);
            as_built = said == *view.dataset;
            if !as_built {
                let json = serde_json::to_vec(&said).expect("a description is JSON");
                view.redescribed = Some(<sha2::Sha256 as sha2::Digest>::digest(json).into());
            }
            view.dataset = Arc::new(said);
        }
        if let Some(old) = replacing {
            view.last_modified = later_than(&view, &old.view);
        }
        Served {
            last_modified: HeaderValue::from_str(&view.last_modified).ok(),
            view,
            compressed: Endpoint::all().iter().map(|_| Default::default()).collect(),
            archive: tokio::sync::OnceCell::new(),
            as_built,
            eml: std::sync::OnceLock::new(),
            csv_rows: Endpoint::all().iter().map(|_| Default::default()).collect(),
            retired: AtomicBool::new(false),
            leases: Mutex::new(Vec::new()),
            memo: Memo::new(replay_budget),
            kept: Mutex::new(None),
        }
    }

    /// The versions kept in `dir`, ascending: listed again only when the
    /// folder's modification time moved (a version kept, pruned or moved
    /// away renames an entry of it), one `stat` a request otherwise.
    pub fn kept_versions(&self, dir: &std::path::Path) -> Arc<[u64]> {
        let Ok(stamp) = std::fs::metadata(dir).and_then(|m| m.modified()) else {
            return Arc::from([]);
        };
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, numbers)) = &*kept {
            if *at == stamp {
                return Arc::clone(numbers);
            }
        }
        let numbers: Arc<[u64]> = crate::snapshot::kept::numbers(dir).into();
        let settled = stamp.elapsed().is_ok_and(|age| age >= SETTLED);
        *kept = settled.then(|| (stamp, Arc::clone(&numbers)));
        numbers
    }

    /// A hold on this view for a streamed answer.
    pub fn lease(self: &Arc<Served>) -> Arc<Lease> {
        let lease = Arc::new(Lease(Mutex::new(Some(self.clone()))));
        let mut leases = self.leases.lock().unwrap_or_else(|e| e.into_inner());
        leases.retain(|l| l.strong_count() > 0);
        leases.push(Arc::downgrade(&lease));
        lease
    }

    /// Revokes every streamed answer's hold on this view; returns how many
    /// answers still held it.
    pub fn revoke_leases(&self) -> usize {
        let leases = std::mem::take(&mut *self.leases.lock().unwrap_or_else(|e| e.into_inner()));
        leases
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|lease| {
                let held = lease.0.lock().unwrap_or_else(|e| e.into_inner()).take();
                held.is_some()
            })
            .count()
    }

    /// An endpoint's CSV rows with every field, written now if no download
    /// wrote them before (a blocking call: on the work threads only).
    pub fn csv_rows(&self, endpoint: Endpoint) -> Arc<csv::Rows> {
        self.csv_rows[endpoint.index()]
            .get_or_init(|| {
                let started = Instant::now();
                let columns = csv::Columns::new(endpoint.model, None);
                let rows = Arc::new(csv::Rows::render(&self.view, &columns));
                tracing::info!(
                    list = endpoint.segment(),
                    bytes = rows.byte_len(),
                    ms = started.elapsed().as_millis() as u64,
                    "CSV rows written"
                );
                rows
            })
            .clone()
    }

    /// The compressed whole-list answer of an endpoint, once `precompress` made it.
    pub fn compressed_list(&self, endpoint: Endpoint, coding: Coding) -> Option<Bytes> {
        self.compressed[endpoint.index()].get(coding)
    }

    /// Compresses every whole-list answer between `min` and `max` bytes, once.
    pub fn precompress(&self, min: usize, max: usize) {
        for (i, &endpoint) in Endpoint::all().iter().enumerate() {
            // A body with media URLs depends on the request.
            let list = self.view.list(endpoint);
            if list.has_media() {
                continue;
            }
            let head = envelope::envelope_head(list.len(), &[]);
            let len = head.len() + list.byte_len() + envelope::TAIL.len();
            if !(min..max).contains(&len) {
                continue;
            }
            let items = list.run(0, list.len());
            let mut parts: Vec<&[u8]> = vec![&head[..]];
            parts.extend(items.parts().iter().map(|p| &p[..]));
            parts.push(envelope::TAIL);
            self.compressed[i].fill(&parts);
        }
    }
}

/// The server's state: the current view (swapped whole on reload), settings and
/// counters.
pub struct State {
    current: ArcSwap<Served>,
    pub settings: Settings,
    /// `Cache-Control` for the answers that take the settings' age.
    pub cache_control: HeaderValue,
    pub metrics: Metrics,
    /// The OpenAPI document for these settings, rendered once at start.
    pub openapi: Bytes,
    /// Set when the server is told to stop: `/readyz` fails, and every answer
    /// says `Connection: close` so no client sends another request on it.
    pub draining: AtomicBool,
    /// Where answers that cost work are made (shared with the streams that
    /// write a large answer's later chunks).
    pub work: Arc<Work>,
    /// What streamed documents take together.
    pub streams: Arc<Streams>,
    /// Bytes of forms' bodies being read, by every connection together and
    /// by client address.
    pub forms: super::forms::Forms,
    /// The descriptors files held open by answers take.
    pub descriptors: Arc<super::descriptors::Descriptors>,
    /// The photographs' IIIF tile pyramids (with `--media-dir` only).
    pub pyramids: Option<Arc<crate::iiif::pyramid::Pyramids>>,
    /// What the server was told of the dataset: the settings' until the
    /// dataset file is read again ([`State::redescribe`]).
    told: ArcSwap<Told>,
    /// What the server itself found in the way of publishing: its dataset
    /// file refused, a snapshot at its path that does not load.
    troubles: Mutex<Status>,
}

impl State {
    /// The state serving `view`, answering `openapi` as its OpenAPI document
    /// (`serve::state` renders it from the route table); it starts nothing
    /// (see [`State::prepare`]).
    pub fn new(view: View, settings: Settings, openapi: Bytes) -> Arc<State> {
        let metrics = Metrics::default();
        metrics
            .loaded_at
            .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
        let cache_control =
            HeaderValue::from_str(&format!("public, max-age={}", settings.cache_max_age))
                .expect("digits are a header value");
        Arc::new(State {
            cache_control,
            current: ArcSwap::new(Arc::new(Served::new(
                view,
                &settings.dataset,
                settings.replay_budget,
                None,
            ))),
            openapi,
            work: Arc::new(Work::new(settings.query_threads, settings.query_queue)),
            streams: Streams::new(settings.stream_share),
            told: ArcSwap::from_pointee(settings.dataset.clone()),
            troubles: Mutex::new(Status::default()),
            forms: Default::default(),
            descriptors: super::descriptors::Descriptors::new(),
            pyramids: settings.media_dir.as_deref().map(|media| {
                Arc::new(crate::iiif::pyramid::Pyramids::for_media(
                    media,
                    settings.tiles_dir.as_deref(),
                ))
            }),
            settings,
            metrics,
            draining: AtomicBool::new(false),
        })
    }

    /// The view being served, for a moment (no reference count taken: the
    /// memo's lookup, which most often finds nothing, touches no shared count).
    pub fn peek(&self) -> arc_swap::Guard<Arc<Served>> {
        self.current.load()
    }

    /// The view being served now, with its caches. A request loads it once, so its
    /// body and its ETag come from the same snapshot.
    pub fn current(&self) -> Arc<Served> {
        self.current.load_full()
    }

    /// Starts preparing the view being served, in the background (as a swap does
    /// for each new one).
    pub fn prepare(&self) {
        prepare_in_background(self.current());
    }

    /// Serves `view`, an interim copy of the served view that holds less, until
    /// the next [`State::swap`]; returns the view it replaces. Not prepared:
    /// it lives while a reload renders, and a question builds what it needs.
    pub fn make_way(&self, view: View) -> Arc<Served> {
        let served = self.current();
        let old = self.current.swap(Arc::new(Served::new(
            view,
            &self.told.load(),
            self.settings.replay_budget,
            Some(&served),
        )));
        old.retired.store(true, Ordering::Relaxed);
        old
    }

    /// Says what `told` says of the dataset over each snapshot's own
    /// description from the next view served on ([`State::swap`]).
    pub fn redescribe(&self, told: Told) {
        self.told.store(Arc::new(told));
    }

    /// What the server says of the dataset over each snapshot's own.
    pub fn told(&self) -> Arc<Told> {
        self.told.load_full()
    }

    /// Says `said` of a problem of `kind` the server found (or, `None`,
    /// that it no longer stands).
    pub fn trouble(&self, kind: Kind, said: Option<String>) {
        let mut troubles = self.troubles.lock().unwrap_or_else(|e| e.into_inner());
        match said {
            Some(said) => troubles.found(kind, "serve", said),
            None => troubles.cleared(kind),
        };
    }

    /// How publishing stands: what the server found, then what `sync` says
    /// beside the snapshot (read now: it changes under the server).
    pub fn publishing(&self) -> Status {
        let own = self
            .troubles
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match &self.settings.sync_status {
            Some(file) => own.and(crate::snapshot::status::read(file)),
            None => own,
        }
    }

    /// Serves `view` from now on; returns the view it replaces.
    pub fn swap(&self, view: View) -> Arc<Served> {
        let served = Arc::new(Served::new(
            view,
            &self.told.load(),
            self.settings.replay_budget,
            Some(&self.current()),
        ));
        let old = self.current.swap(served.clone());
        old.retired.store(true, Ordering::Relaxed);
        prepare_in_background(served);
        old
    }
}

/// The `Last-Modified` of `view`, which replaces `old`: `old`'s where both
/// answer alike (the same snapshot, the same description said over it);
/// else its snapshot's creation, or now where only the description said
/// changed, and always a second after `old`'s at least.
fn later_than(view: &View, old: &View) -> String {
    use crate::encoding::time::{http_date, parse_http_date};
    if (view.header.checksum, view.redescribed) == (old.header.checksum, old.redescribed) {
        return old.last_modified.clone();
    }
    let own = match view.header.checksum == old.header.checksum {
        true => chrono::Utc::now().timestamp(),
        false => view.header.created_at.div_euclid(1_000_000),
    };
    let after = parse_http_date(&old.last_modified).map_or(own, |old| old + 1);
    http_date(own.max(after).saturating_mul(1_000_000))
}

/// Renders the rest of a view's lists made of fragments (their segments not
/// yet asked for), then builds its question indexes (sort orders, search words), its
/// suggestions' index and its data-quality flags, then compresses
/// its whole-list answers, on a background thread, so the first answer and a swap
/// never wait for either; until then questions build the index they need and
/// answers are compressed per response.
fn prepare_in_background(served: Arc<Served>) {
    let spawned = std::thread::Builder::new()
        .name("prepare".into())
        .spawn(move || {
            let started = Instant::now();
            let current = || !served.retired.load(Ordering::Relaxed);
            let segments = served.view.render_rest(&current);
            if !current() {
                return;
            }
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                segments,
                rendered_bytes = served.view.rendered_bytes(),
                own_bytes = served.view.own_bytes(),
                "lists made of fragments rendered"
            );
            let started = Instant::now();
            query::prepare(&served.view, current);
            if !current() {
                return;
            }
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                "sort orders and search words built"
            );
            let started = Instant::now();
            let suggestions = served.view.derived::<crate::suggest::Suggestions>();
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                bytes = suggestions.heap_bytes() as u64,
                "names indexed for suggestions"
            );
            if !current() {
                return;
            }
            // Each format of the current version's citation, made once.
            served
                .view
                .derived::<crate::versions::citation::Citations>();
            let started = Instant::now();
            let quality = served.view.derived::<crate::quality::Quality>();
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                bytes = quality.heap_bytes() as u64,
                flagged = (quality.specimens() - quality.unflagged()) as u64,
                "data-quality flags found"
            );
            if !current() {
                return;
            }
            let started = Instant::now();
            served.precompress(COMPRESS_ABOVE, COMPRESS_BELOW);
            super::memory::give_back();
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "whole lists compressed"
            );
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start preparing the view; questions build their indexes, answers compress per response");
    }
}
