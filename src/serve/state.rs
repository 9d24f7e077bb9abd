//! What every request reads: the view being served with what serving it caches,
//! swapped whole on reload, beside the settings and the counters.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use bytes::Bytes;

use crate::export::dwca::{Archive, Dataset};
use crate::export::openapi;
use crate::html::Site;
use crate::model::Endpoint;
use crate::query::{self, envelope, Limits};
use crate::view::View;

use super::compress::{self, Coding, Effort};
use super::metrics::Metrics;
use super::work::Work;

/// Bodies smaller than this are not worth compressing.
pub const COMPRESS_ABOVE: usize = 1024;
/// Bodies larger than this are sent as they are: compressing hundreds of megabytes
/// per request would hold a core for seconds.
pub const COMPRESS_BELOW: usize = 8 * 1024 * 1024;

/// How the server answers, beyond what the view holds.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Page sizes: the default and the largest accepted.
    pub limits: Limits,
    /// `Cache-Control: max-age` of successful answers, in seconds.
    pub cache_max_age: u32,
    /// Origins allowed by CORS; empty means any (`*`).
    pub cors_origins: Vec<String>,
    /// How long a connection may sit without sending a complete request head.
    pub idle_timeout: Duration,
    /// How long a write may wait for the client to take anything.
    pub send_timeout: Duration,
    /// What the Darwin Core Archive says of the dataset.
    pub dataset: Dataset,
    /// Where media URLs start (ending in `/`); `None`: `http://<Host>/media/`.
    pub media_url: Option<String>,
    /// Threads making answers that cost work, and how many such requests may wait.
    pub query_threads: usize,
    pub query_queue: usize,
    /// After the stop signal, how long the server keeps accepting (failing
    /// `/readyz`, closing each connection after its answer) so that balancers see
    /// it leave before it stops listening. `serve --drain` defaults to 5 s; zero
    /// here stops listening at once.
    pub drain: Duration,
    /// What the pages for people show (`--map-tiles`).
    pub site: Site,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limits: Limits::default(),
            cache_max_age: 60,
            cors_origins: Vec::new(),
            idle_timeout: Duration::from_secs(30),
            send_timeout: Duration::from_secs(30),
            dataset: Dataset::default(),
            media_url: None,
            query_threads: super::work::default_threads(),
            query_queue: 64,
            drain: Duration::ZERO,
            site: Site::default(),
        }
    }
}

/// A view and what serving it caches. The caches live and die with their view:
/// both are swapped in one store, so a cached body never outlives its view nor
/// answers for another.
pub struct Served {
    pub view: View,
    /// Each endpoint's whole list answer, gzip and brotli, filled in the background
    /// after the view is published (`precompress`).
    compressed: Vec<[OnceLock<Bytes>; 2]>,
    /// The Darwin Core Archive of this view, made on the first request for it.
    pub archive: tokio::sync::OnceCell<Archive>,
    /// Another view replaced this one: preparing it further is wasted work (and
    /// keeps its memory longer).
    retired: AtomicBool,
}

impl Served {
    pub fn new(view: View) -> Served {
        Served {
            view,
            compressed: Endpoint::all().iter().map(|_| Default::default()).collect(),
            archive: tokio::sync::OnceCell::new(),
            retired: AtomicBool::new(false),
        }
    }

    /// The compressed whole-list answer of an endpoint, once `precompress` made it.
    pub fn compressed_list(&self, endpoint: Endpoint, coding: Coding) -> Option<Bytes> {
        let slot = match coding {
            Coding::Gzip => 0,
            Coding::Brotli => 1,
            Coding::Identity => return None,
        };
        self.compressed[endpoint.index()][slot].get().cloned()
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
            let items = list.run(0, list.len());
            let len = head.len() + items.len() + envelope::TAIL.len();
            if !(min..max).contains(&len) {
                continue;
            }
            let parts = [&head[..], &items[..], envelope::TAIL];
            for (slot, coding) in [Coding::Gzip, Coding::Brotli].into_iter().enumerate() {
                let body = Bytes::from(compress::compress(coding, &parts, Effort::Once));
                let _ = self.compressed[i][slot].set(body);
            }
        }
    }
}

/// The server's state: the current view (swapped whole on reload), settings and
/// counters.
pub struct State {
    current: ArcSwap<Served>,
    pub settings: Settings,
    pub metrics: Metrics,
    /// The OpenAPI document for these settings, rendered once.
    pub openapi: Bytes,
    /// Set when the server is told to stop: `/readyz` fails, and every answer
    /// says `Connection: close` so no client sends another request on it.
    pub draining: AtomicBool,
    /// Where answers that cost work are made.
    pub work: Work,
}

impl State {
    pub fn new(view: View, settings: Settings) -> Arc<State> {
        let metrics = Metrics::default();
        metrics
            .loaded_at
            .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
        let openapi = serde_json::to_vec(&openapi::document(settings.limits.max_limit))
            .expect("a JSON value serialises");
        let served = Arc::new(Served::new(view));
        prepare_in_background(served.clone());
        std::thread::Builder::new()
            .name("assets".into())
            .spawn(super::assets::prepare)
            .expect("a thread for the pages' files");
        Arc::new(State {
            current: ArcSwap::new(served),
            openapi: Bytes::from(openapi),
            work: Work::new(settings.query_threads, settings.query_queue),
            settings,
            metrics,
            draining: AtomicBool::new(false),
        })
    }

    /// The view being served now, with its caches. A request loads it once, so its
    /// body and its ETag come from the same snapshot.
    pub fn current(&self) -> Arc<Served> {
        self.current.load_full()
    }

    /// Serves `view` from now on; returns the view it replaces.
    pub fn swap(&self, view: View) -> Arc<Served> {
        let served = Arc::new(Served::new(view));
        let old = self.current.swap(served.clone());
        old.retired.store(true, Ordering::Relaxed);
        prepare_in_background(served);
        old
    }
}

/// Builds a view's question indexes (sort orders, search words), then compresses
/// its whole-list answers, on a background thread, so the first answer and a swap
/// never wait for either; until then questions build the index they need and
/// answers are compressed per response.
fn prepare_in_background(served: Arc<Served>) {
    let spawned = std::thread::Builder::new()
        .name("prepare".into())
        .spawn(move || {
            let started = Instant::now();
            let current = || !served.retired.load(Ordering::Relaxed);
            query::prepare(&served.view, current);
            if !current() {
                return;
            }
            tracing::info!(
                ms = started.elapsed().as_millis() as u64,
                "sort orders and search words built"
            );
            let started = Instant::now();
            served.precompress(COMPRESS_ABOVE, COMPRESS_BELOW);
            tracing::debug!(
                ms = started.elapsed().as_millis() as u64,
                "whole lists compressed"
            );
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start preparing the view; questions build their indexes, answers compress per response");
    }
}
