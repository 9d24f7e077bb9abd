//! The command line's arguments, as clap reads them: every command, flag,
//! default and environment variable, and nothing they do.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::html::Site;
use crate::ingest::publisher;
use crate::labels::Template;
use crate::model::dataset::{Dataset, DatasetError, Field, Sensitive, Told};
use crate::query::Limits;
use crate::serve::origin::{PublicUrl, TrustedProxies};
use crate::serve::Settings;
use crate::snapshot::described;

#[derive(Parser)]
#[command(
    name = "catalogue",
    version,
    about = "Serve a natural-history collection as a fast, read-only JSON API"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Build a snapshot from Django fixtures (`manage.py dumpdata` output).
    Build(BuildArgs),
    /// Print a snapshot's format version, checksum and record counts.
    Inspect {
        /// The snapshot file.
        snapshot: PathBuf,
    },
    /// Serve a snapshot over HTTP (what runs when no command is given).
    Serve(Box<ServeArgs>),
    /// Keep a snapshot in step with the database: rebuild every interval, replace
    /// the file only when the collection changed.
    Sync(SyncArgs),
    /// Write a deterministic synthetic collection as Django fixtures.
    Generate {
        /// How many specimen records.
        #[arg(long)]
        specimens: usize,
        /// The seed: the same seed and size give the same file.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the fixture JSON.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Describe the dataset: `dataset init` writes a template to fill in.
    Dataset {
        #[command(subcommand)]
        action: DatasetCommand,
    },
    /// Export a snapshot in another format.
    Export {
        #[command(subcommand)]
        format: Export,
    },
    /// Ask a running server for a path and exit 0 if it answers 200: a health
    /// check for images without curl (the container's HEALTHCHECK).
    Probe {
        /// The server's address; an unspecified one (0.0.0.0, [::]) means this host.
        #[arg(long, env = "CATALOGUE_ADDR", default_value = "127.0.0.1:8080", value_parser = parse_addr)]
        addr: SocketAddr,
        /// The path to ask for.
        #[arg(long, default_value = "/healthz")]
        path: String,
    },
    /// Register the dataset with GBIF through its registry API: `gbif register`.
    Gbif {
        #[command(subcommand)]
        action: GbifCommand,
    },
    /// Print the OpenAPI 3.1 description of the API on stdout.
    Openapi {
        /// Describe the cap a server started with `--max-limit N` puts on `limit`.
        #[arg(long)]
        max_limit: Option<usize>,
    },
}

#[derive(Subcommand)]
pub enum DatasetCommand {
    /// Write a dataset file to fill in (--dataset-config of build, sync, serve
    /// and export dwca): the collection's codes guessed from its USIs, a
    /// description from its coverage, which it also prints.
    Init {
        /// The snapshot to describe.
        snapshot: PathBuf,
        /// Where to write it: JSON, or TOML when the name ends `.toml`.
        #[arg(short, long)]
        output: PathBuf,
    },
}

#[derive(Subcommand)]
pub enum GbifCommand {
    /// Register the dataset with GBIF's registry (API v1), or update it where
    /// the dataset file's `gbif.dataset` names it: its description (type
    /// OCCURRENCE, title, description, licence, language, DOI) and its
    /// endpoints, the archive at <public URL>/dwca.zip (DWC_ARCHIVE) and its
    /// metadata at <public URL>/eml.xml (EML). The keys come from the dataset
    /// file's `gbif` table (api, publishing_organization, installation,
    /// dataset), the account from CATALOGUE_GBIF_USER and
    /// CATALOGUE_GBIF_PASSWORD (docs/gbif-registration.md).
    Register(RegisterArgs),
}

#[derive(Args)]
pub struct RegisterArgs {
    /// The dataset file, with its `gbif` table.
    #[arg(long, env = "CATALOGUE_DATASET_CONFIG")]
    pub dataset_config: PathBuf,
    /// The snapshot served (what it says of the dataset, the file over it).
    #[arg(
        long,
        env = "CATALOGUE_SNAPSHOT",
        default_value = "snapshot/collection.bin"
    )]
    pub snapshot: PathBuf,
    /// The address GBIF reaches the server at (`https://specimens.example.org`):
    /// the endpoints are <URL>/dwca.zip and <URL>/eml.xml.
    #[arg(long, env = "CATALOGUE_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: PublicUrl,
}

/// What `build` and `sync` refuse to publish unless told to, as GBIF's IPT
/// and pipelines would.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct RefuseArgs {
    /// Publish a dataset without a licence (by default refused: GBIF's IPT
    /// blocks its registration, and GBIF then takes it for CC BY 4.0).
    /// CATALOGUE_ALLOW_NO_LICENCE takes 1/0, yes/no, true/false, on/off.
    #[arg(long, env = "CATALOGUE_ALLOW_NO_LICENCE", value_parser = parse_switch)]
    pub allow_no_licence: bool,
    /// Publish a version in which more than half of the occurrenceIDs
    /// published before are gone or new (by default refused, the snapshot
    /// before left as it was: GBIF's pipelines halt indexing such a version).
    /// CATALOGUE_ALLOW_ID_CHURN takes 1/0, yes/no, true/false, on/off.
    #[arg(long, env = "CATALOGUE_ALLOW_ID_CHURN", value_parser = parse_switch)]
    pub allow_id_churn: bool,
}

#[derive(Subcommand)]
pub enum Export {
    /// A Darwin Core Archive (occurrence.txt, meta.xml, eml.xml), as GBIF harvests.
    Dwca {
        /// The snapshot file.
        snapshot: PathBuf,
        /// Where to write the zip (written to a temporary file, then renamed).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        dataset: DatasetArgs,
        #[command(flatten)]
        links: LinkArgs,
    },
}

/// Where an archive's links start: the archive `export dwca` writes, and
/// each version's that `build` and `sync` keep.
#[derive(Args, Clone, Debug, Default)]
pub struct LinkArgs {
    /// The collection's public address (`https://specimens.example.org`):
    /// the photographs' URLs start `<URL>/media/`, their pages `<URL>/api/v2/`.
    /// Without it they are paths, which GBIF cannot follow.
    #[arg(long, env = "CATALOGUE_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<PublicUrl>,
    /// Where media URLs start instead (`https://cdn.example.org/media/`).
    #[arg(long, env = "CATALOGUE_MEDIA_URL", value_parser = parse_media_url)]
    pub media_url: Option<String>,
}

impl LinkArgs {
    /// The links these flags say: `--media-url`, else `<public URL>/media/`,
    /// and the public URL (empty: paths).
    pub fn links(&self) -> crate::export::dwca::Links {
        let site = (self.public_url.as_ref())
            .map(|u| u.as_str().to_string())
            .unwrap_or_default();
        crate::export::dwca::Links {
            media: self
                .media_url
                .clone()
                .unwrap_or_else(|| format!("{site}/media/")),
            site,
        }
    }
}

/// Which versions' archives and `eml.xml` are kept beside the snapshot
/// (`NAME.versions/`), for `serve` to answer at `/versions/N/dwca.zip`.
#[derive(Args, Clone, Debug, Default)]
pub struct KeepArgs {
    /// Keep the newest N versions' archives and eml.xml beside the snapshot
    /// (NAME.versions/), removing older ones; by default every version the
    /// snapshot's history holds (the last 1,000), as GBIF's IPT keeps them.
    #[arg(long, env = "CATALOGUE_KEEP_VERSIONS", value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_versions: Option<u64>,
    /// Where the kept archives' links start.
    #[command(flatten)]
    pub links: LinkArgs,
}

/// Whether the dataset file's `sensitive` rules are applied to what is written.
#[derive(Args, Clone, Debug, Default)]
pub struct PlacesArgs {
    /// Leave the dataset file's `sensitive` rules unapplied: every point,
    /// locality and county as precise as recorded. Only for the curators'
    /// internal server (labels printed with precise data), never a public
    /// one (docs/dataset.md, "Sensitive places").
    #[arg(long)]
    pub precise: bool,
}

impl PlacesArgs {
    /// The rules applied: the dataset file's, none with `--precise` or
    /// without a file.
    pub fn rules(&self, dataset: &DatasetArgs) -> Result<Sensitive, DatasetError> {
        match (&dataset.dataset_config, self.precise) {
            (Some(path), false) => Sensitive::from_file(path),
            _ => Ok(Sensitive::default()),
        }
    }
}

impl KeepArgs {
    /// How `build` and `sync` publish a version: the dataset file names what
    /// GBIF crawls, and the sensitive places' rules each version is kept
    /// under (none with `--precise`).
    pub fn publication(
        &self,
        dataset: &DatasetArgs,
        places: &PlacesArgs,
    ) -> crate::export::publication::Publication {
        let config = dataset.dataset_config.clone();
        crate::export::publication::Publication {
            links: self.links.links(),
            retention: self.keep_versions,
            rules_from: config.clone().filter(|_| !places.precise),
            dataset_config: config,
        }
    }
}

/// What the dataset is said to be: a file, and flags over it.
#[derive(Args, Clone, Debug, Default)]
pub struct DatasetArgs {
    /// The publisher's description of the dataset, JSON or TOML (by extension):
    /// title, description, license, creators, contacts, ... (docs/dataset.md;
    /// `catalogue dataset init` writes one). The flags below override it.
    #[arg(long, env = "CATALOGUE_DATASET_CONFIG")]
    pub dataset_config: Option<PathBuf>,
    /// The dataset's title (eml.xml).
    #[arg(long, env = "CATALOGUE_DATASET_TITLE")]
    pub dataset_title: Option<String>,
    /// The dataset's description (eml.xml abstract).
    #[arg(long, env = "CATALOGUE_DATASET_DESCRIPTION")]
    pub dataset_description: Option<String>,
    /// The organisation that publishes it (eml.xml publisher).
    #[arg(long, env = "CATALOGUE_DATASET_PUBLISHER")]
    pub dataset_publisher: Option<String>,
    /// Its licence: CC0-1.0, CC-BY-4.0 or CC-BY-NC-4.0, or their URL.
    #[arg(long, env = "CATALOGUE_DATASET_LICENSE")]
    pub dataset_license: Option<String>,
    /// institutionCode of every occurrence.
    #[arg(long, env = "CATALOGUE_INSTITUTION_CODE")]
    pub institution_code: Option<String>,
    /// collectionCode of every occurrence.
    #[arg(long, env = "CATALOGUE_COLLECTION_CODE")]
    pub collection_code: Option<String>,
}

impl DatasetArgs {
    /// What these flags tell: the file read and checked, then each value given
    /// (a licence checked as the file's is).
    pub fn told(&self) -> Result<Told, DatasetError> {
        let file = match &self.dataset_config {
            Some(path) => Some(Dataset::from_file(path)?),
            None => None,
        };
        self.over(file)
    }

    /// What these flags tell a command that follows the dataset file
    /// (`sync`, `serve`): [`DatasetArgs::told`], the file read once it
    /// stands still, whole and naming a title ([`described`]).
    pub fn followed(&self) -> anyhow::Result<Told> {
        let file = match &self.dataset_config {
            Some(path) => Some(described::read(path)?.0),
            None => None,
        };
        Ok(self.over(file)?)
    }

    /// `file`, then each value given, checked.
    fn over(&self, file: Option<Dataset>) -> Result<Told, DatasetError> {
        let flags: [(&Option<String>, Field); 6] = [
            (&self.dataset_title, |d| &mut d.title),
            (&self.dataset_description, |d| &mut d.description),
            (&self.dataset_publisher, |d| &mut d.publisher),
            (&self.dataset_license, |d| &mut d.license),
            (&self.institution_code, |d| &mut d.institution_code),
            (&self.collection_code, |d| &mut d.collection_code),
        ];
        let told = Told {
            file,
            values: flags
                .into_iter()
                .filter_map(|(flag, field)| Some((field, flag.clone()?)))
                .collect(),
        };
        told.over(&Dataset::default()).check("--dataset-license")?;
        Ok(told)
    }

    /// The dataset these flags describe on their own (for `build`, `sync` and
    /// `export dwca` of a snapshot that stores none).
    pub fn dataset(&self) -> Result<Dataset, DatasetError> {
        Ok(self.told()?.over(&Dataset::default()))
    }
}

#[derive(Args)]
pub struct SyncArgs {
    /// The database: postgres://user:pass@host:port/name or sqlite:///path
    /// (absent or with no value: DATABASE_URL).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub from_db: Option<String>,
    /// The snapshot to keep up to date (a server's --snapshot).
    #[arg(long)]
    pub snapshot: PathBuf,
    /// How often to read the database: 60s, 5m, 1h, 500ms.
    #[arg(long, default_value = "60s", value_parser = publisher::parse_interval)]
    pub every: std::time::Duration,
    /// Read the whole collection at least this often, even when the change marker
    /// (row counts, largest keys, newest date_modified) has not moved; between
    /// whole reads a tick reads only the rows that changed.
    #[arg(long, default_value = "1h", value_parser = publisher::parse_interval)]
    pub full_every: std::time::Duration,
    /// Run one tick and exit: 0 when every record read is published, 1 when
    /// a record is held back or the tick failed (one line on stderr says which).
    #[arg(long)]
    pub once: bool,
    /// What each snapshot says of the dataset.
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Whether the sensitive places' rules apply.
    #[command(flatten)]
    pub places: PlacesArgs,
    /// Which versions are kept, and their links.
    #[command(flatten)]
    pub keep: KeepArgs,
    /// What is refused unless told otherwise.
    #[command(flatten)]
    pub refuse: RefuseArgs,
}

#[derive(Args)]
pub struct BuildArgs {
    /// Fixture files, read in order; objects may refer to objects in later files.
    #[arg(required_unless_present = "from_db", conflicts_with = "from_db")]
    pub fixtures: Vec<PathBuf>,
    /// Read the existing service's database instead: postgres://user:pass@host:port/name
    /// or sqlite:///path (with no value, DATABASE_URL).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub from_db: Option<String>,
    /// Where to write the snapshot (written to a temporary file, then renamed).
    #[arg(short, long)]
    pub output: PathBuf,
    /// How many warnings to print (all are counted).
    #[arg(long, default_value_t = 20)]
    pub show_warnings: usize,
    /// Write nothing, and fail, when there is any warning (an input without
    /// collection records, or a dataset description without what GBIF
    /// requires, included).
    #[arg(long)]
    pub strict: bool,
    /// Write nothing, and fail, when any record fails validation (as before
    /// records were held back): without it, each invalid record is held back
    /// (kept as --previous has it, or left out) and the rest is written.
    #[arg(long)]
    pub refuse_invalid: bool,
    /// What the snapshot says of the dataset.
    #[command(flatten)]
    pub dataset: DatasetArgs,
    /// Whether the sensitive places' rules apply.
    #[command(flatten)]
    pub places: PlacesArgs,
    /// The snapshot this one follows: the new one is its next version, with
    /// what was added, modified and deleted since (without it, version 1).
    #[arg(long, value_name = "OLD.bin")]
    pub previous: Option<PathBuf>,
    /// Start a new history (version 1) where versions are kept beside the
    /// output: they are moved aside, whole, to NAME.versions.old-<time>/
    /// (never deleted). Without it (or --previous) such a build is refused.
    #[arg(long, conflicts_with = "previous")]
    pub new_history: bool,
    /// Which versions are kept, and their links.
    #[command(flatten)]
    pub keep: KeepArgs,
    /// What is refused unless told otherwise.
    #[command(flatten)]
    pub refuse: RefuseArgs,
}

#[derive(Args, Clone)]
pub struct ServeArgs {
    /// The snapshot to serve.
    #[arg(
        long,
        env = "CATALOGUE_SNAPSHOT",
        default_value = "snapshot/collection.bin"
    )]
    pub snapshot: PathBuf,
    /// The address to listen on.
    #[arg(long, env = "CATALOGUE_ADDR", default_value = "127.0.0.1:8080", value_parser = parse_addr)]
    pub addr: SocketAddr,
    /// Not a flag: the port is part of `--addr`. Said, so `--port` is told so.
    #[arg(long, hide = true, num_args = 0..=1, default_missing_value = "", value_parser = parse_port)]
    pub port: Option<u16>,
    /// The page size when a request gives no `limit`.
    #[arg(long, env = "CATALOGUE_DEFAULT_LIMIT", default_value_t = crate::query::DEFAULT_LIMIT)]
    pub default_limit: usize,
    /// The largest `limit` accepted (none when unset).
    #[arg(long, env = "CATALOGUE_MAX_LIMIT")]
    pub max_limit: Option<usize>,
    /// Do not watch the snapshot file for changes (SIGHUP still reloads it).
    /// CATALOGUE_NO_WATCH takes 1/0, yes/no, true/false, on/off.
    #[arg(long, env = "CATALOGUE_NO_WATCH", value_parser = parse_no_watch)]
    pub no_watch: bool,
    /// `Cache-Control: max-age` of successful answers, in seconds.
    #[arg(long, env = "CATALOGUE_CACHE_MAX_AGE", default_value_t = 60)]
    pub cache_max_age: u32,
    /// Origins allowed by CORS, comma-separated (default: any, `*`).
    #[arg(long, env = "CATALOGUE_CORS_ORIGIN", value_delimiter = ',')]
    pub cors_origin: Vec<String>,
    /// Seconds a connection may take to send a complete request head (idle keep-alive included).
    #[arg(long, env = "CATALOGUE_IDLE_TIMEOUT", default_value_t = 30)]
    pub idle_timeout: u64,
    /// Seconds a send may wait for the client to take anything before the
    /// connection is closed.
    #[arg(long, env = "CATALOGUE_SEND_TIMEOUT", default_value_t = 30)]
    pub send_timeout: u64,
    /// Bytes a second a client must take while the server waits to send it
    /// more, over each --send-timeout: a connection slower than that is
    /// closed (a reader of a byte a second holds its answer no longer than
    /// one such period); 0 takes any progress.
    #[arg(
        long,
        env = "CATALOGUE_MIN_SEND_RATE",
        value_name = "BYTES",
        default_value_t = 1024
    )]
    pub min_send_rate: u64,
    /// Seconds to keep accepting after SIGTERM or Ctrl-C, failing /readyz and
    /// closing each connection after its answer, so balancers take the server out
    /// before it stops listening.
    #[arg(long, env = "CATALOGUE_DRAIN", default_value_t = 5)]
    pub drain: u64,
    /// Threads making answers that cost work (filters, sorts, searches, facets);
    /// the answers cut from rendered lists never wait for them.
    #[arg(long, env = "CATALOGUE_QUERY_THREADS", default_value_t = crate::serve::work::default_threads())]
    pub query_threads: usize,
    /// How many such requests may wait for a thread; past that they get 503 with
    /// Retry-After. A client (by address) takes at most half the threads at
    /// once, its other requests waiting behind each other, this many at most.
    #[arg(long, env = "CATALOGUE_QUERY_QUEUE", default_value_t = 64)]
    pub query_queue: usize,
    /// Units that documents streamed at once may take together (label sheets,
    /// downloads, pages too long to make whole): one each, and one more per
    /// 25,000 labels or rows; one client address takes at most half (behind a
    /// trusted proxy, the address it forwards). Past it, 503 with Retry-After.
    #[arg(
        long,
        env = "CATALOGUE_STREAM_SHARE",
        value_name = "UNITS",
        default_value_t = 64
    )]
    pub stream_share: usize,
    /// MiB that streamed documents' pieces (and long slices' of the specimens,
    /// copied as they are sent) may hold, made and not yet taken by their
    /// clients: past it, new documents get 503 and those under way wait.
    #[arg(
        long,
        env = "CATALOGUE_STREAM_MEMORY",
        value_name = "MIB",
        default_value_t = 64
    )]
    pub stream_memory: usize,
    /// MiB of answers kept per snapshot to replay to a GET that asks the same
    /// again (counting the bytes they own: a slice of a rendered list costs only
    /// its entry); 0 replays nothing.
    #[arg(
        long,
        env = "CATALOGUE_REPLAY_BUDGET",
        value_name = "MIB",
        default_value_t = 16
    )]
    pub replay_budget: usize,
    /// The address people and programs reach this server at
    /// (`https://specimens.example.org`): the start of every absolute link it
    /// writes, media URLs and label codes among them. By default each request's
    /// own address, `http://<Host>` (as the existing service built links), which
    /// a --trusted-proxy may correct.
    #[arg(long, env = "CATALOGUE_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<PublicUrl>,
    /// Proxies whose X-Forwarded-Proto and X-Forwarded-Host say the address a
    /// client asked (TLS ended, another port), by IP address or network
    /// (`127.0.0.1`, `10.0.0.0/8`), repeated or comma-separated; their
    /// X-Forwarded-For names the client whose streamed documents are counted.
    /// Those headers from any other peer are ignored. None by default.
    #[arg(long, env = "CATALOGUE_TRUSTED_PROXY", value_delimiter = ',',
          value_parser = TrustedProxies::parse_one, value_name = "ADDRESS")]
    pub trusted_proxy: Vec<(std::net::IpAddr, u8)>,
    /// Where media URLs start (`https://cdn.example.org/media/`); by default
    /// `<public URL>/media/`, or `http://<the request's Host>/media/` as the
    /// existing service built them.
    #[arg(long, env = "CATALOGUE_MEDIA_URL", value_parser = parse_media_url)]
    pub media_url: Option<String>,
    /// Serves the media files (images and their renditions, as Django's
    /// MEDIA_ROOT holds them) under /media/ from this directory; by default the
    /// server serves none and a web server or CDN does. Only image files are sent.
    #[arg(long, env = "CATALOGUE_MEDIA_DIR", value_name = "DIR")]
    pub media_dir: Option<std::path::PathBuf>,
    /// The largest media file served from --media-dir, in bytes; a larger one
    /// is not found. Files are sent in pieces as the client reads them, so this
    /// bounds what one answer sends, not memory.
    #[arg(long, env = "CATALOGUE_MEDIA_MAX_BYTES", value_name = "BYTES",
          default_value_t = crate::serve::settings::DEFAULT_MEDIA_MAX_BYTES)]
    pub media_max_bytes: u64,
    /// Where the photographs' IIIF tile pyramids are kept: each original of
    /// --media-dir is cut once (at start, in the background, or when first
    /// asked) into tiles at every scale, in a folder named by its file hash.
    /// By default a folder beside the media folder, named after it
    /// (`media.tiles` beside `media`); the server must be able to write it.
    #[arg(
        long,
        env = "CATALOGUE_TILES_DIR",
        value_name = "DIR",
        requires = "media_dir"
    )]
    pub tiles_dir: Option<std::path::PathBuf>,
    /// The map tiles the pages draw under their markers, as a Leaflet URL template
    /// (`https://tile.example.org/{z}/{x}/{y}.png`). None by default: pages then
    /// show markers only and never ask another host for anything.
    #[arg(long, env = "CATALOGUE_MAP_TILES", value_parser = parse_map_tiles)]
    pub map_tiles: Option<String>,
    /// What the maps credit for those tiles, shown as text under the map
    /// (`© OpenStreetMap contributors`, as most tile providers require).
    #[arg(long, env = "CATALOGUE_MAP_ATTRIBUTION", requires = "map_tiles")]
    pub map_attribution: Option<String>,
    /// What a label's QR code says, with {usi}, {usi_lower}, {digits} (the USI's
    /// digits) and {id} filled in (`www.memcollection.com/s/{digits}` is the
    /// service's short address). By default the specimen's short link on this
    /// server, `<public URL>/s/{digits}`, which redirects to its record; or the
    /// record itself, `<public URL>/api/v2/specimen-records/{id}/`, where the USI
    /// has no digits or shares them with another specimen. Without --public-url
    /// the address is the request's, and a sheet says so: labels are permanent.
    #[arg(long, env = "CATALOGUE_LABEL_URL", value_parser = parse_label_url)]
    pub label_url: Option<Template>,
    /// The most labels one sheet holds; a question selecting more is answered 400.
    #[arg(long, env = "CATALOGUE_MAX_LABELS", default_value_t = crate::labels::DEFAULT_MAX_LABELS)]
    pub max_labels: usize,
    /// What `/dwca.zip` says of the dataset.
    #[command(flatten)]
    pub dataset: DatasetArgs,
}

/// An address to listen on or ask: an IP address and a port. A name is not
/// looked up, and the message says what to write instead.
fn parse_addr(addr: &str) -> Result<SocketAddr, String> {
    if let Ok(parsed) = addr.parse() {
        return Ok(parsed);
    }
    let hint = match addr.rsplit_once(':') {
        Some(("localhost", port)) => format!("write 127.0.0.1:{port} (names are not looked up)"),
        Some((host, port)) if port.parse::<u16>().is_err() => {
            format!("the port after {host:?} must be a number from 0 to 65535")
        }
        Some((host, port)) if host.contains(':') => {
            format!("an IPv6 address goes in brackets: [{host}]:{port}")
        }
        Some(_) => "the host must be an IP address, such as 127.0.0.1 or 0.0.0.0 \
                    (names are not looked up)"
            .to_string(),
        None if addr.parse::<std::net::IpAddr>().is_ok() => format!("add the port: {addr}:8080"),
        None => "write it as IP:PORT".to_string(),
    };
    Err(format!(
        "not an IP:PORT address such as 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080 \
         (--addr, CATALOGUE_ADDR): {hint}"
    ))
}

/// There is no `--port`: whatever is given, say where the port goes.
fn parse_port(_: &str) -> Result<u16, String> {
    Err("there is no --port: the port is part of the address, \
         --addr 127.0.0.1:PORT (or CATALOGUE_ADDR=127.0.0.1:PORT)"
        .to_string())
}

/// `--no-watch`, or CATALOGUE_NO_WATCH set to one of the words people write.
fn parse_no_watch(value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "yes" | "y" | "true" | "on" => Ok(true),
        "0" | "no" | "n" | "false" | "off" => Ok(false),
        _ => Err(
            "CATALOGUE_NO_WATCH (--no-watch) takes 1 or 0, yes or no, true or false, \
             on or off"
                .to_string(),
        ),
    }
}

/// A switch given by its environment variable: the words people write.
fn parse_switch(value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "yes" | "y" | "true" | "on" => Ok(true),
        "0" | "no" | "n" | "false" | "off" => Ok(false),
        _ => Err("takes 1 or 0, yes or no, true or false, on or off".to_string()),
    }
}

fn parse_public_url(url: &str) -> Result<PublicUrl, String> {
    PublicUrl::parse(url)
}

fn parse_label_url(template: &str) -> Result<Template, String> {
    Template::parse(template).map_err(|e| e.to_string())
}

/// A media base URL: absolute (`http://` or `https://`) or a path from the root,
/// given a trailing `/` when it has none.
fn parse_media_url(url: &str) -> Result<String, String> {
    let absolute = url.starts_with("http://") || url.starts_with("https://");
    if !absolute && !url.starts_with('/') {
        return Err(format!(
            "{url:?} is not an http(s) URL or a path from the root, like https://cdn.example.org/media/"
        ));
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(format!("{url:?} holds spaces or control characters"));
    }
    Ok(if url.ends_with('/') {
        url.to_string()
    } else {
        format!("{url}/")
    })
}

/// A tile URL template: http(s), with `{z}`, `{x}` and `{y}`.
fn parse_map_tiles(url: &str) -> Result<String, String> {
    let web = url.starts_with("http://") || url.starts_with("https://");
    let placed = ["{z}", "{x}", "{y}"].iter().all(|p| url.contains(p));
    if !web || !placed {
        return Err(format!(
            "{url:?} is not a tile URL template: http(s), with {{z}}, {{x}} and {{y}}, \
             like https://tile.example.org/{{z}}/{{x}}/{{y}}.png"
        ));
    }
    if url
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\'' || c == ';')
    {
        return Err(format!(
            "{url:?} holds spaces, quotes, semicolons or control characters"
        ));
    }
    Ok(url.to_string())
}

/// `serve`'s flags alone, for running with no command.
#[derive(Parser)]
pub struct ServeCommand {
    #[command(flatten)]
    pub args: ServeArgs,
}

impl ServeArgs {
    /// How the server answers, from these flags and the dataset they name.
    pub fn settings(&self, dataset: Told) -> Settings {
        Settings {
            limits: Limits {
                default_limit: self.default_limit,
                max_limit: self.max_limit,
            },
            cache_max_age: self.cache_max_age,
            cors_origins: self.cors_origin.clone(),
            idle_timeout: std::time::Duration::from_secs(self.idle_timeout),
            send_timeout: std::time::Duration::from_secs(self.send_timeout),
            min_send_rate: self.min_send_rate,
            dataset,
            dataset_file: self.dataset.dataset_config.clone(),
            public_url: self.public_url.clone(),
            trusted_proxies: TrustedProxies::new(self.trusted_proxy.clone()),
            media_url: self.media_url.clone(),
            media_dir: self.media_dir.clone(),
            media_max_bytes: self.media_max_bytes,
            tiles_dir: self.tiles_dir.clone(),
            query_threads: self.query_threads,
            query_queue: self.query_queue,
            stream_share: crate::serve::streams::Share {
                units: self.stream_share,
                memory: self.stream_memory.saturating_mul(1 << 20),
            },
            drain: std::time::Duration::from_secs(self.drain),
            site: Site {
                map_tiles: self.map_tiles.clone(),
                map_attribution: self.map_attribution.clone(),
            },
            label_url: self.label_url.clone(),
            max_labels: self.max_labels,
            replay_budget: self.replay_budget.saturating_mul(1 << 20),
            versions_dir: Some(crate::snapshot::kept::path(&self.snapshot)),
            sync_status: Some(crate::snapshot::status::path(&self.snapshot)),
            ..Settings::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held by every test that parses `serve`'s flags: one of them sets
    /// CATALOGUE_NO_WATCH, which the others would read meanwhile.
    static ENV: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn no_watch_reads_what_people_write() {
        let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
        for (value, meant) in [
            ("1", true),
            ("yes", true),
            ("on", true),
            ("True", true),
            ("0", false),
            ("no", false),
            ("off", false),
            ("false", false),
        ] {
            std::env::set_var("CATALOGUE_NO_WATCH", value);
            let parsed = ServeCommand::try_parse_from(["catalogue"]).map(|c| c.args.no_watch);
            assert_eq!(parsed.ok(), Some(meant), "CATALOGUE_NO_WATCH={value}");
        }
        std::env::set_var("CATALOGUE_NO_WATCH", "maybe");
        let refused = ServeCommand::try_parse_from(["catalogue"]).err().unwrap();
        std::env::remove_var("CATALOGUE_NO_WATCH");
        assert_eq!(
            refused.to_string().lines().next().unwrap(),
            "error: invalid value 'maybe' for '--no-watch': CATALOGUE_NO_WATCH (--no-watch) \
             takes 1 or 0, yes or no, true or false, on or off"
        );
        let flag = ServeCommand::try_parse_from(["catalogue", "--no-watch"]).unwrap();
        assert!(flag.args.no_watch);
    }

    /// What `serve` says to a flag it refuses: its first line.
    fn refusal(args: &[&str]) -> String {
        let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = vec!["catalogue"];
        all.extend(args);
        let e = ServeCommand::try_parse_from(all).err().expect("refused");
        e.to_string().lines().next().unwrap().to_string()
    }

    #[test]
    fn an_address_refused_says_what_to_write() {
        let said = |addr: &str| refusal(&["--addr", addr]);
        let form = "not an IP:PORT address such as 127.0.0.1:8080, 0.0.0.0:8080 or \
                    [::1]:8080 (--addr, CATALOGUE_ADDR)";
        assert_eq!(
            said("localhost:19002"),
            format!(
                "error: invalid value 'localhost:19002' for '--addr <ADDR>': {form}: \
                 write 127.0.0.1:19002 (names are not looked up)"
            )
        );
        assert_eq!(
            said("0.0.0.0"),
            format!("error: invalid value '0.0.0.0' for '--addr <ADDR>': {form}: add the port: 0.0.0.0:8080")
        );
        assert!(said("::1:80").ends_with("an IPv6 address goes in brackets: [::1]:80"));
        assert!(said("1.2.3.4:http")
            .ends_with("the port after \"1.2.3.4\" must be a number from 0 to 65535"));
        assert!(said("example.org:80").ends_with("the host must be an IP address, such as 127.0.0.1 or 0.0.0.0 (names are not looked up)"));
        let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
        for fine in ["127.0.0.1:19002", "0.0.0.0:80", "[::1]:8080"] {
            let parsed = ServeCommand::try_parse_from(["catalogue", "--addr", fine]);
            assert_eq!(
                parsed.map(|c| c.args.addr.to_string()).ok().as_deref(),
                Some(fine)
            );
        }
    }

    #[test]
    fn port_is_told_where_the_port_goes() {
        let told = "there is no --port: the port is part of the address, \
                    --addr 127.0.0.1:PORT (or CATALOGUE_ADDR=127.0.0.1:PORT)";
        assert_eq!(
            refusal(&["--port", "8080"]),
            format!("error: invalid value '8080' for '--port [<PORT>]': {told}")
        );
        assert!(refusal(&["--port"]).ends_with(told));
    }
}
