//! Counters and gauges for operators, in Prometheus' text format.
//!
//! Everything is a fixed array of atomics, so counting a request takes no lock.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::sync::OnceLock;

use crate::view::View;

use super::descriptors::Descriptors;
use super::memo::Memo;
use super::streams::Streams;
use super::work::{Task, Work};

/// The statuses counted separately; anything else counts as "other".
const STATUSES: [u16; 11] = [200, 204, 301, 304, 400, 404, 405, 414, 431, 500, 503];
/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.1, 0.5, 2.0,
];

/// The most routes metrics tell apart (the table's names, each list's own).
pub const ROUTE_SLOTS: usize = 128;

/// Counters of what the server did.
#[derive(Debug)]
pub struct Metrics {
    /// Requests by route and status (the last status slot is "other").
    requests: Vec<AtomicU64>,
    latency_buckets: Vec<AtomicU64>,
    latency_sum_micros: AtomicU64,
    latency_count: AtomicU64,
    bytes_sent: AtomicU64,
    /// The name of each route slot, as the route table says them.
    routes: OnceLock<Vec<String>>,
    /// Views swapped in after start-up.
    pub reloads: AtomicU64,
    /// Files that failed a check and were not served.
    pub failed_reloads: AtomicU64,
    /// Changes of the watched file found to damage a piece of it.
    pub damaged_snapshots: AtomicU64,
    /// Kept versions' files found not to be what their manifest says, or
    /// of another history, and not served as the version.
    pub damaged_kept_files: AtomicU64,
    /// Answers replayed from the memo, neither routed nor made again.
    pub replayed_answers: AtomicU64,
    /// Reloads that found the served collection in the file's header and built
    /// nothing (a touched file, a `sync` that wrote the same collection).
    pub unchanged_reloads: AtomicU64,
    /// When the served view was loaded, in seconds since the Unix epoch.
    pub loaded_at: AtomicI64,
    /// Requests whose making panicked (each answered 500).
    pub panicked_requests: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            requests: (0..ROUTE_SLOTS * (STATUSES.len() + 1))
                .map(|_| AtomicU64::new(0))
                .collect(),
            latency_buckets: (0..BUCKETS.len()).map(|_| AtomicU64::new(0)).collect(),
            latency_sum_micros: AtomicU64::new(0),
            latency_count: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            routes: OnceLock::new(),
            reloads: AtomicU64::new(0),
            failed_reloads: AtomicU64::new(0),
            damaged_snapshots: AtomicU64::new(0),
            damaged_kept_files: AtomicU64::new(0),
            replayed_answers: AtomicU64::new(0),
            unchanged_reloads: AtomicU64::new(0),
            loaded_at: AtomicI64::new(0),
            panicked_requests: AtomicU64::new(0),
        }
    }
}

impl Metrics {
    /// Names the route slots, once: `names[slot]` is how a slot is labelled.
    pub fn name_routes(&self, names: Vec<String>) {
        assert!(names.len() <= ROUTE_SLOTS, "more routes than metrics count");
        let _ = self.routes.set(names);
    }

    /// Counts one answered request, of the route in `slot`.
    pub fn observe(&self, slot: usize, status: u16, seconds: f64, bytes: u64) {
        let s = STATUSES
            .iter()
            .position(|&x| x == status)
            .unwrap_or(STATUSES.len());
        self.requests[slot * (STATUSES.len() + 1) + s].fetch_add(1, Relaxed);
        if let Some(b) = BUCKETS.iter().position(|&upper| seconds <= upper) {
            self.latency_buckets[b].fetch_add(1, Relaxed);
        }
        self.latency_sum_micros
            .fetch_add((seconds * 1e6) as u64, Relaxed);
        self.latency_count.fetch_add(1, Relaxed);
        self.bytes_sent.fetch_add(bytes, Relaxed);
    }

    /// The requests counted for a route slot and status so far.
    pub fn requests(&self, slot: usize, status: u16) -> u64 {
        let s = STATUSES
            .iter()
            .position(|&x| x == status)
            .unwrap_or(STATUSES.len());
        self.requests[slot * (STATUSES.len() + 1) + s].load(Relaxed)
    }

    /// How publishing stands (`/api/v2/publishing/`'s `problems`), in
    /// Prometheus' text format: each kind of problem standing (1) or not
    /// (0), and `sync`'s failed ticks.
    pub fn render_publishing(status: &crate::snapshot::status::Status) -> String {
        use crate::snapshot::status::Kind;
        let mut w = String::with_capacity(512);
        let _ = writeln!(
            w,
            "# HELP catalogue_publishing_problem Whether a problem of each kind stands in the way of publishing (/api/v2/publishing/): alert when 1.\n# TYPE catalogue_publishing_problem gauge"
        );
        for kind in Kind::ALL {
            let _ = writeln!(
                w,
                "catalogue_publishing_problem{{kind=\"{}\"}} {}",
                kind.name(),
                u8::from(status.has(kind))
            );
        }
        let _ = writeln!(
            w,
            "# HELP catalogue_sync_failed_ticks_total Ticks of the sync writing the served snapshot that failed, as it says beside the snapshot.\n# TYPE catalogue_sync_failed_ticks_total counter\ncatalogue_sync_failed_ticks_total {}",
            status.failed_ticks
        );
        w
    }

    /// Everything, in Prometheus' text exposition format (with what the pool
    /// ran, from `work`, what documents take, from `streams`, and what the
    /// view's `memo` holds).
    pub fn render(
        &self,
        view: &View,
        memo: &Memo,
        work: &Work,
        streams: &Streams,
        descriptors: &Descriptors,
    ) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let w = &mut out;
        let _ = writeln!(
            w,
            "# HELP catalogue_requests_total Requests answered, by route and status."
        );
        let _ = writeln!(w, "# TYPE catalogue_requests_total counter");
        let slots = STATUSES.len() + 1;
        for (i, c) in self.requests.iter().enumerate() {
            let n = c.load(Relaxed);
            if n == 0 {
                continue;
            }
            let status = STATUSES
                .get(i % slots)
                .map_or("other".to_string(), u16::to_string);
            let route = self
                .routes
                .get()
                .and_then(|names| names.get(i / slots))
                .map_or("other", String::as_str);
            let _ = writeln!(
                w,
                "catalogue_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        let _ = writeln!(
            w,
            "# HELP catalogue_request_duration_seconds Time to answer a request."
        );
        let _ = writeln!(w, "# TYPE catalogue_request_duration_seconds histogram");
        let mut cumulative = 0;
        for (upper, c) in BUCKETS.iter().zip(&self.latency_buckets) {
            cumulative += c.load(Relaxed);
            let _ = writeln!(
                w,
                "catalogue_request_duration_seconds_bucket{{le=\"{upper}\"}} {cumulative}"
            );
        }
        let count = self.latency_count.load(Relaxed);
        let _ = writeln!(
            w,
            "catalogue_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let sum = self.latency_sum_micros.load(Relaxed) as f64 / 1e6;
        let _ = writeln!(w, "catalogue_request_duration_seconds_sum {sum}");
        let _ = writeln!(w, "catalogue_request_duration_seconds_count {count}");
        let gauge = |w: &mut String, name: &str, kind: &str, help: &str, value: String| {
            let _ = writeln!(
                w,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        gauge(
            w,
            "catalogue_response_bytes_total",
            "counter",
            "Body bytes sent.",
            self.bytes_sent.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_reloads_total",
            "counter",
            "Snapshots swapped in after start-up.",
            self.reloads.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_reload_failures_total",
            "counter",
            "Snapshot files refused by a reload.",
            self.failed_reloads.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_damaged_snapshots_total",
            "counter",
            "Changes of the watched snapshot file whose pieces were checked and found damaged (the served view kept; a restart would refuse the file).",
            self.damaged_snapshots.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_damaged_kept_files_total",
            "counter",
            "Kept versions' files asked for and found not to be the bytes their manifest names, or their folder another history's: not served as the version (410).",
            self.damaged_kept_files.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_worked_answers_total",
            "counter",
            "Jobs run on the threads for answers that cost work: answers (filters, sorts, searches, projections, facets, pages' rows, downloads, sheets, checklists, GBIF searches) and the checks of their parameters against the snapshot.",
            work.ran(Task::Answer).to_string(),
        );
        gauge(
            w,
            "catalogue_worked_documents_total",
            "counter",
            "Documents begun on their own threads: label sheets laid out, downloads' and archives' records chosen.",
            work.ran(Task::Document).to_string(),
        );
        let (units, held) = streams.in_use();
        gauge(
            w,
            "catalogue_streamed_units",
            "gauge",
            "Units of the share that documents being streamed take now (--stream-share).",
            units.to_string(),
        );
        gauge(
            w,
            "catalogue_streamed_bytes_held",
            "gauge",
            "Bytes of streamed documents' pieces made and not yet taken by their clients (--stream-memory).",
            held.to_string(),
        );
        gauge(
            w,
            "catalogue_unchanged_reloads_total",
            "counter",
            "Reloads whose file held the served collection (by its header): nothing built.",
            self.unchanged_reloads.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_compressed_answers_total",
            "counter",
            "Answers compressed for one response, on the threads for answers that cost work.",
            work.ran(Task::Compress).to_string(),
        );
        gauge(
            w,
            "catalogue_replayed_answers_total",
            "counter",
            "Answers replayed: a GET that asked what an earlier one asked of the same view, answered without being routed or made again.",
            self.replayed_answers.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_panicked_requests_total",
            "counter",
            "Requests whose answer panicked while it was made: each answered 500 (and counted under its route's 500s); a bug to report.",
            self.panicked_requests.load(Relaxed).to_string(),
        );
        let (refused, exhausted) = descriptors.refusals();
        gauge(
            w,
            "catalogue_held_files",
            "gauge",
            "Files held open by answers being sent (media files, kept archives): descriptors of their share (a quarter of the open files limit, half of it per client address).",
            descriptors.in_use().to_string(),
        );
        gauge(
            w,
            "catalogue_held_files_refused_total",
            "counter",
            "Answers of files refused with 503 because the files' share of descriptors, or their client's half of it, was taken.",
            refused.to_string(),
        );
        gauge(
            w,
            "catalogue_descriptors_out_total",
            "counter",
            "Files (media, kept versions) not opened because the process or the system had no descriptor left (EMFILE, ENFILE): each answered 503 with Retry-After.",
            exhausted.to_string(),
        );
        let (kept, held) = memo.held();
        gauge(
            w,
            "catalogue_replay_answers",
            "gauge",
            "Answers the served view's memo holds to replay.",
            kept.to_string(),
        );
        gauge(
            w,
            "catalogue_replay_bytes",
            "gauge",
            "What the served view's memo holds on the heap, as charged to --replay-budget.",
            held.to_string(),
        );
        gauge(
            w,
            "catalogue_snapshot_loaded_at_seconds",
            "gauge",
            "When the served snapshot was loaded (Unix time).",
            self.loaded_at.load(Relaxed).to_string(),
        );
        gauge(
            w,
            "catalogue_snapshot_created_at_seconds",
            "gauge",
            "When the served snapshot was built (Unix time).",
            (view.header.created_at / 1_000_000).to_string(),
        );
        let age = chrono::Utc::now().timestamp_micros() - view.header.created_at;
        gauge(
            w,
            "catalogue_snapshot_age_seconds",
            "gauge",
            "Seconds since the served snapshot was built: how long since the last publication (alert when sync should have published).",
            (age.max(0) / 1_000_000).to_string(),
        );
        gauge(
            w,
            "catalogue_held_back_records",
            "gauge",
            "Records the served snapshot's publisher held back because they fail validation (/api/v2/publishing/): alert when above 0.",
            view.held.len().to_string(),
        );
        gauge(
            w,
            "catalogue_snapshot_version",
            "gauge",
            "The version of the collection the served snapshot publishes (/api/v2/versions/).",
            view.history.current().to_string(),
        );
        let _ = writeln!(
            w,
            "# HELP catalogue_snapshot_info The served snapshot's checksum and format version."
        );
        let _ = writeln!(w, "# TYPE catalogue_snapshot_info gauge");
        let _ = writeln!(
            w,
            "catalogue_snapshot_info{{checksum=\"{}\",format_version=\"{}\"}} 1",
            view.header.checksum_hex(),
            view.header.format_version
        );
        let _ = writeln!(
            w,
            "# HELP catalogue_snapshot_records Records in the served snapshot, by model."
        );
        let _ = writeln!(w, "# TYPE catalogue_snapshot_records gauge");
        for (model, n) in view.counts() {
            let _ = writeln!(
                w,
                "catalogue_snapshot_records{{model=\"{}\"}} {n}",
                model.label()
            );
        }
        let _ = writeln!(
            w,
            "# HELP catalogue_rendered_bytes Bytes of JSON rendered for the served view."
        );
        let _ = writeln!(w, "# TYPE catalogue_rendered_bytes gauge");
        let _ = writeln!(w, "catalogue_rendered_bytes {}", view.rendered_bytes());
        let _ = writeln!(
            w,
            "# HELP catalogue_rendered_own_bytes Bytes the rendered lists hold: items' own bytes, without the shared fragments items made of them refer to."
        );
        let _ = writeln!(w, "# TYPE catalogue_rendered_own_bytes gauge");
        let _ = writeln!(w, "catalogue_rendered_own_bytes {}", view.own_bytes());
        let _ = writeln!(
            w,
            "# HELP catalogue_rendered_fragment_bytes Bytes of the shared fragments (embedded records' items, rendered once) that items made of fragments refer to."
        );
        let _ = writeln!(w, "# TYPE catalogue_rendered_fragment_bytes gauge");
        let _ = writeln!(
            w,
            "catalogue_rendered_fragment_bytes {}",
            view.fragment_bytes()
        );
        out
    }
}
