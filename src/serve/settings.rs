//! How the server answers, beyond what the view holds: the command line's
//! choices, read by every layer of `serve` and changed by none.

use std::time::Duration;

use crate::html::{LabelCodes, Site};
use crate::labels::Template;
use crate::model::dataset::Told;
use crate::query::Limits;

use super::origin::{PublicUrl, TrustedProxies};
use super::streams::Share;

/// The largest media file served unless `--media-max-bytes` says otherwise:
/// 256 MiB, well above any photograph.
pub const DEFAULT_MEDIA_MAX_BYTES: u64 = 256 * 1024 * 1024;

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
    /// The least a client waited on must take, in bytes a second over each
    /// `send_timeout` (`--min-send-rate`; zero: any progress will do).
    pub min_send_rate: u64,
    /// What the server was told of the dataset, over each snapshot's own
    /// description (`--dataset-config` and the flags beside it).
    pub dataset: Told,
    /// The dataset file `dataset` was read from (`--dataset-config`), which a
    /// watching server reads again when it changes.
    pub dataset_file: Option<std::path::PathBuf>,
    /// Where every absolute link starts (`--public-url`); `None`: the
    /// request's address (`origin::origin`).
    pub public_url: Option<PublicUrl>,
    /// The peers whose `X-Forwarded-Proto` and `X-Forwarded-Host` are read
    /// (`--trusted-proxy`); every other peer's are removed.
    pub trusted_proxies: TrustedProxies,
    /// Where media URLs start (ending in `/`); `None`: `<origin>/media/`.
    pub media_url: Option<String>,
    /// The media files served under `/media/` (`--media-dir`); `None`: none.
    pub media_dir: Option<std::path::PathBuf>,
    /// The largest media file served (`--media-max-bytes`).
    pub media_max_bytes: u64,
    /// Where the photographs' IIIF tile pyramids are kept (`--tiles-dir`);
    /// `None`: beside `media_dir`, named after it (`media.tiles`).
    pub tiles_dir: Option<std::path::PathBuf>,
    /// Threads making answers that cost work, and how many such requests may wait.
    pub query_threads: usize,
    pub query_queue: usize,
    /// What streamed documents may take together (`--stream-share`,
    /// `--stream-memory`).
    pub stream_share: Share,
    /// After the stop signal, how long the server keeps accepting (failing
    /// `/readyz`, closing each connection after its answer) so that balancers see
    /// it leave before it stops listening. `serve --drain` defaults to 5 s; zero
    /// here stops listening at once.
    pub drain: Duration,
    /// What the pages for people show (`--map-tiles`).
    pub site: Site,
    /// How long a streamed answer may go on reading a view after a reload
    /// replaced it. Past it the answer is cut (its client sees a chunked body
    /// without its end, and can ask again), so the old view is freed and at most
    /// two views stay resident for long; ten seconds is a page of any size at
    /// the speed of a phone, and a fraction of the time a large view takes to build.
    pub view_hold: Duration,
    /// What labels' QR codes say (`--label-url`); `None`: the specimen's short
    /// link on this server, from the request's Host (`labels::Address::Own`).
    pub label_url: Option<Template>,
    /// The most labels one sheet holds.
    pub max_labels: usize,
    /// The versions' archives and `eml.xml` kept beside the snapshot
    /// (`NAME.versions/`, `snapshot::kept`); `None`: none are kept.
    pub versions_dir: Option<std::path::PathBuf>,
    /// Where `sync` says how publishing the snapshot stands
    /// (`snapshot::status`, beside it): shown on `/api/v2/publishing/`.
    pub sync_status: Option<std::path::PathBuf>,
    /// Bytes of answers each view keeps to replay to the same request again
    /// (`--replay-budget`; zero replays nothing).
    pub replay_budget: usize,
}

impl Settings {
    /// Where label sheets' codes point: where the operator said, or only at
    /// the address each sheet is asked at (which the sheets then warn of).
    pub fn label_codes(&self) -> LabelCodes {
        match self.label_url.is_some() || self.public_url.is_some() {
            true => LabelCodes::Settled,
            false => LabelCodes::FromRequest,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limits: Limits::default(),
            cache_max_age: 60,
            cors_origins: Vec::new(),
            idle_timeout: Duration::from_secs(30),
            send_timeout: Duration::from_secs(30),
            min_send_rate: 1024,
            dataset: Told::default(),
            dataset_file: None,
            public_url: None,
            trusted_proxies: TrustedProxies::default(),
            media_url: None,
            media_dir: None,
            media_max_bytes: DEFAULT_MEDIA_MAX_BYTES,
            tiles_dir: None,
            query_threads: super::work::default_threads(),
            query_queue: 64,
            stream_share: Share::default(),
            drain: Duration::ZERO,
            site: Site::default(),
            view_hold: Duration::from_secs(10),
            label_url: None,
            max_labels: crate::labels::DEFAULT_MAX_LABELS,
            replay_budget: super::memo::DEFAULT_BUDGET,
            versions_dir: None,
            sync_status: None,
        }
    }
}
