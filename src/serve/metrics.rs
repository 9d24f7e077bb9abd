//! Counters and gauges for operators, in Prometheus' text format.
//!
//! Everything is a fixed array of atomics, so counting a request takes no lock.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

use crate::model::endpoint::{ARCHIVE_PATH, IMAGES_PATH, OPENAPI_PATH};
use crate::model::Endpoint;
use crate::view::View;

/// What a request was for, as metrics label it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    List(Endpoint),
    Record(Endpoint),
    Health,
    Ready,
    Metrics,
    OpenApi,
    Archive,
    /// The front page, the docs viewer and the pages' files.
    Page,
    /// Wagtail's own image list, and single images.
    Images,
    Image,
    /// The specimen label sheets.
    Labels,
    /// The species checklists.
    Checklist,
    /// GBIF's occurrence search, count and occurrences.
    Gbif,
    Other,
}

/// The statuses counted separately; anything else counts as "other".
const STATUSES: [u16; 11] = [200, 204, 301, 304, 400, 404, 405, 414, 431, 500, 503];
/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.1, 0.5, 2.0,
];

/// The label of each route slot: 25 lists, 25 records, then the rest.
fn route_index(route: Route) -> usize {
    let n = Endpoint::all().len();
    match route {
        Route::List(e) => e.index(),
        Route::Record(e) => n + e.index(),
        Route::Health => 2 * n,
        Route::Ready => 2 * n + 1,
        Route::Metrics => 2 * n + 2,
        Route::OpenApi => 2 * n + 3,
        Route::Archive => 2 * n + 4,
        Route::Page => 2 * n + 5,
        Route::Images => 2 * n + 6,
        Route::Image => 2 * n + 7,
        Route::Labels => 2 * n + 8,
        Route::Checklist => 2 * n + 9,
        Route::Gbif => 2 * n + 10,
        Route::Other => 2 * n + 11,
    }
}

fn route_label(index: usize) -> String {
    let n = Endpoint::all().len();
    match index {
        i if i < n => format!("/api/v2/{}/", Endpoint::all()[i].segment()),
        i if i < 2 * n => format!("/api/v2/{}/{{id}}/", Endpoint::all()[i - n].segment()),
        i if i == 2 * n => "/healthz".into(),
        i if i == 2 * n + 1 => "/readyz".into(),
        i if i == 2 * n + 2 => "/metrics".into(),
        i if i == 2 * n + 3 => OPENAPI_PATH.into(),
        i if i == 2 * n + 4 => ARCHIVE_PATH.into(),
        i if i == 2 * n + 5 => "pages".into(),
        i if i == 2 * n + 6 => IMAGES_PATH.into(),
        i if i == 2 * n + 7 => format!("{IMAGES_PATH}{{id}}/"),
        i if i == 2 * n + 8 => crate::labels::PATH.into(),
        i if i == 2 * n + 9 => crate::model::endpoint::CHECKLIST_PATH.into(),
        i if i == 2 * n + 10 => "/gbif/v1/occurrence/".into(),
        _ => "other".into(),
    }
}

/// Counters of what the server did.
#[derive(Debug)]
pub struct Metrics {
    /// Requests by route and status (the last status slot is "other").
    requests: Vec<AtomicU64>,
    latency_buckets: Vec<AtomicU64>,
    latency_sum_micros: AtomicU64,
    latency_count: AtomicU64,
    bytes_sent: AtomicU64,
    /// Views swapped in after start-up.
    pub reloads: AtomicU64,
    /// Files that failed a check and were not served.
    pub failed_reloads: AtomicU64,
    /// Answers made by filtering, sorting, searching, projecting or counting
    /// facets: the requests that cost work.
    pub worked_answers: AtomicU64,
    /// Bodies compressed for one response (on the work pool), as opposed to
    /// those compressed once per view.
    pub compressed_answers: AtomicU64,
    /// Answers replayed from the memo, neither routed nor made again.
    pub replayed_answers: AtomicU64,
    /// Reloads that found the served collection in the file's header and built
    /// nothing (a touched file, a `sync` that wrote the same collection).
    pub unchanged_reloads: AtomicU64,
    /// When the served view was loaded, in seconds since the Unix epoch.
    pub loaded_at: AtomicI64,
}

impl Default for Metrics {
    fn default() -> Self {
        let routes = 2 * Endpoint::all().len() + 12;
        Metrics {
            requests: (0..routes * (STATUSES.len() + 1))
                .map(|_| AtomicU64::new(0))
                .collect(),
            latency_buckets: (0..BUCKETS.len()).map(|_| AtomicU64::new(0)).collect(),
            latency_sum_micros: AtomicU64::new(0),
            latency_count: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            reloads: AtomicU64::new(0),
            failed_reloads: AtomicU64::new(0),
            worked_answers: AtomicU64::new(0),
            compressed_answers: AtomicU64::new(0),
            replayed_answers: AtomicU64::new(0),
            unchanged_reloads: AtomicU64::new(0),
            loaded_at: AtomicI64::new(0),
        }
    }
}

impl Metrics {
    /// Counts one answered request.
    pub fn observe(&self, route: Route, status: u16, seconds: f64, bytes: u64) {
        let s = STATUSES
            .iter()
            .position(|&x| x == status)
            .unwrap_or(STATUSES.len());
        self.requests[route_index(route) * (STATUSES.len() + 1) + s].fetch_add(1, Relaxed);
        if let Some(b) = BUCKETS.iter().position(|&upper| seconds <= upper) {
            self.latency_buckets[b].fetch_add(1, Relaxed);
        }
        self.latency_sum_micros
            .fetch_add((seconds * 1e6) as u64, Relaxed);
        self.latency_count.fetch_add(1, Relaxed);
        self.bytes_sent.fetch_add(bytes, Relaxed);
    }

    /// The requests counted for a route and status so far.
    pub fn requests(&self, route: Route, status: u16) -> u64 {
        let s = STATUSES
            .iter()
            .position(|&x| x == status)
            .unwrap_or(STATUSES.len());
        self.requests[route_index(route) * (STATUSES.len() + 1) + s].load(Relaxed)
    }

    /// Everything, in Prometheus' text exposition format.
    pub fn render(&self, view: &View) -> String {
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
            let route = route_label(i / slots);
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
            "catalogue_worked_answers_total",
            "counter",
            "List answers and pages made on the threads for answers that cost work (filters, sorts, searches, projections, facets, pages' rows).",
            self.worked_answers.load(Relaxed).to_string(),
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
            self.compressed_answers.load(Relaxed).to_string(),
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
        out
    }
}
