//! What every request reads: the view being served with what serving it caches,
//! swapped whole on reload, beside the settings and the counters.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use bytes::Bytes;

use crate::export::dwca::Archive;
use crate::export::openapi;
use crate::model::Endpoint;
use crate::query::{self, envelope};
use crate::view::View;

use super::compress::{Coding, Compressed, COMPRESS_ABOVE, COMPRESS_BELOW};
use super::metrics::Metrics;
use super::settings::Settings;
use super::work::Work;

/// A view and what serving it caches. The caches live and die with their view:
/// both are swapped in one store, so a cached body never outlives its view nor
/// answers for another.
pub struct Served {
    pub view: View,
    /// Each endpoint's whole list answer, gzip and brotli, filled in the background
    /// after the view is published (`precompress`).
    compressed: Vec<Compressed>,
    /// The Darwin Core Archive of this view, made on the first request for it.
    pub archive: tokio::sync::OnceCell<Archive>,
    /// Another view replaced this one: preparing it further is wasted work (and
    /// keeps its memory longer).
    retired: AtomicBool,
    /// When another view replaced this one.
    retired_at: OnceLock<Instant>,
}

impl Served {
    pub fn new(view: View) -> Served {
        Served {
            view,
            compressed: Endpoint::all().iter().map(|_| Default::default()).collect(),
            archive: tokio::sync::OnceCell::new(),
            retired: AtomicBool::new(false),
            retired_at: OnceLock::new(),
        }
    }

    /// How long ago another view replaced this one, if one has.
    pub fn retired_for(&self) -> Option<Duration> {
        self.retired_at.get().map(Instant::elapsed)
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
            let items = list.run(0, list.len());
            let len = head.len() + items.len() + envelope::TAIL.len();
            if !(min..max).contains(&len) {
                continue;
            }
            self.compressed[i].fill(&[&head[..], &items[..], envelope::TAIL]);
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
    /// Where answers that cost work are made (shared with the streams that
    /// write a large answer's later chunks).
    pub work: Arc<Work>,
}

impl State {
    /// The state serving `view`; it starts nothing (see [`State::prepare`]).
    pub fn new(view: View, settings: Settings) -> Arc<State> {
        let metrics = Metrics::default();
        metrics
            .loaded_at
            .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
        let openapi = serde_json::to_vec(&openapi::document(settings.limits.max_limit))
            .expect("a JSON value serialises");
        Arc::new(State {
            current: ArcSwap::new(Arc::new(Served::new(view))),
            openapi: Bytes::from(openapi),
            work: Arc::new(Work::new(settings.query_threads, settings.query_queue)),
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

    /// Starts preparing the view being served, in the background (as a swap does
    /// for each new one).
    pub fn prepare(&self) {
        prepare_in_background(self.current());
    }

    /// Serves `view` from now on; returns the view it replaces.
    pub fn swap(&self, view: View) -> Arc<Served> {
        let served = Arc::new(Served::new(view));
        let old = self.current.swap(served.clone());
        old.retired.store(true, Ordering::Relaxed);
        let _ = old.retired_at.set(Instant::now());
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
