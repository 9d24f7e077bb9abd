//! The command line: `build`, `inspect`, `serve` (the default), `generate`,
//! `export dwca` and `openapi`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

use crate::export::dwca::{self, Dataset};
use crate::export::openapi;
use crate::html::Site;
use crate::ingest::database_url::Source;
use crate::ingest::{self, database, publisher, synthetic, BuildError};
use crate::model::Model;
use crate::query::Limits;
use crate::serve::reload::{Reloader, Trigger};
use crate::serve::{self, Settings, State};
use crate::snapshot::{self, SnapshotError};
use crate::view::{LoadError, View};

#[derive(Parser)]
#[command(
    name = "catalogue",
    version,
    about = "Serve a natural-history collection as a fast, read-only JSON API"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Build a snapshot from Django fixtures (`manage.py dumpdata` output).
    Build(BuildArgs),
    /// Print a snapshot's format version, checksum and record counts.
    Inspect {
        /// The snapshot file.
        snapshot: PathBuf,
    },
    /// Serve a snapshot over HTTP (what runs when no command is given).
    Serve(ServeArgs),
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
    /// Export a snapshot in another format.
    Export {
        #[command(subcommand)]
        format: Export,
    },
    /// Ask a running server for a path and exit 0 if it answers 200: a health
    /// check for images without curl (the container's HEALTHCHECK).
    Probe {
        /// The server's address; an unspecified one (0.0.0.0, [::]) means this host.
        #[arg(long, env = "CATALOGUE_ADDR", default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The path to ask for.
        #[arg(long, default_value = "/healthz")]
        path: String,
    },
    /// Print the OpenAPI 3.1 description of the API on stdout.
    Openapi {
        /// Describe the cap a server started with `--max-limit N` puts on `limit`.
        #[arg(long)]
        max_limit: Option<usize>,
    },
}

#[derive(Subcommand)]
enum Export {
    /// A Darwin Core Archive (occurrence.txt, meta.xml, eml.xml), as GBIF harvests.
    Dwca {
        /// The snapshot file.
        snapshot: PathBuf,
        /// Where to write the zip (written to a temporary file, then renamed).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        dataset: DatasetArgs,
    },
}

/// What the Darwin Core Archive says of the dataset: a file, and flags over it.
#[derive(Args, Clone, Debug, Default)]
pub struct DatasetArgs {
    /// A JSON file with any of: title, description, publisher, license,
    /// institution_code, collection_code. The flags below override it.
    #[arg(long, env = "CATALOGUE_DATASET_CONFIG")]
    pub dataset_config: Option<PathBuf>,
    /// The dataset's title (eml.xml).
    #[arg(long, env = "CATALOGUE_DATASET_TITLE")]
    pub dataset_title: Option<String>,
    /// The dataset's description (eml.xml abstract).
    #[arg(long, env = "CATALOGUE_DATASET_DESCRIPTION")]
    pub dataset_description: Option<String>,
    /// The organisation that publishes it (eml.xml creator, contact, publisher).
    #[arg(long, env = "CATALOGUE_DATASET_PUBLISHER")]
    pub dataset_publisher: Option<String>,
    /// Its licence, a name or URL (eml.xml intellectualRights).
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
    /// The dataset: the file's values, then the flags given.
    pub fn dataset(&self) -> Result<Dataset, dwca::DwcaError> {
        let mut d = match &self.dataset_config {
            Some(path) => Dataset::from_file(path)?,
            None => Dataset::default(),
        };
        for (flag, value) in [
            (&self.dataset_title, &mut d.title),
            (&self.dataset_description, &mut d.description),
            (&self.dataset_publisher, &mut d.publisher),
            (&self.dataset_license, &mut d.license),
            (&self.institution_code, &mut d.institution_code),
            (&self.collection_code, &mut d.collection_code),
        ] {
            if let Some(v) = flag {
                *value = v.clone();
            }
        }
        Ok(d)
    }
}

#[derive(Args)]
struct SyncArgs {
    /// The database: postgres://user:pass@host:port/name or sqlite:///path
    /// (absent or with no value: DATABASE_URL).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    from_db: Option<String>,
    /// The snapshot to keep up to date (a server's --snapshot).
    #[arg(long)]
    snapshot: PathBuf,
    /// How often to read the database: 60s, 5m, 1h, 500ms.
    #[arg(long, default_value = "60s", value_parser = publisher::parse_interval)]
    every: std::time::Duration,
    /// Read the whole collection at least this often, even when the change marker
    /// (row counts, largest keys, newest date_modified) has not moved.
    #[arg(long, default_value = "1h", value_parser = publisher::parse_interval)]
    full_every: std::time::Duration,
}

#[derive(Args)]
struct BuildArgs {
    /// Fixture files, read in order; objects may refer to objects in later files.
    #[arg(required_unless_present = "from_db", conflicts_with = "from_db")]
    fixtures: Vec<PathBuf>,
    /// Read the existing service's database instead: postgres://user:pass@host:port/name
    /// or sqlite:///path (with no value, DATABASE_URL).
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    from_db: Option<String>,
    /// Where to write the snapshot (written to a temporary file, then renamed).
    #[arg(short, long)]
    output: PathBuf,
    /// How many warnings to print (all are counted).
    #[arg(long, default_value_t = 20)]
    show_warnings: usize,
    /// Write nothing, and fail, when there is any warning (an input without
    /// collection records included).
    #[arg(long)]
    strict: bool,
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
    #[arg(long, env = "CATALOGUE_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The page size when a request gives no `limit`.
    #[arg(long, env = "CATALOGUE_DEFAULT_LIMIT", default_value_t = crate::query::DEFAULT_LIMIT)]
    pub default_limit: usize,
    /// The largest `limit` accepted (none when unset).
    #[arg(long, env = "CATALOGUE_MAX_LIMIT")]
    pub max_limit: Option<usize>,
    /// Do not watch the snapshot file for changes (SIGHUP still reloads it).
    /// CATALOGUE_NO_WATCH takes 1/0, yes/no, true/false, on/off.
    #[arg(long, env = "CATALOGUE_NO_WATCH", value_parser = clap::builder::BoolishValueParser::new())]
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
    /// Retry-After.
    #[arg(long, env = "CATALOGUE_QUERY_QUEUE", default_value_t = 64)]
    pub query_queue: usize,
    /// Where media URLs start (`https://cdn.example.org/media/`); by default
    /// `http://<the request's Host>/media/`, as the existing service built them.
    #[arg(long, env = "CATALOGUE_MEDIA_URL", value_parser = parse_media_url)]
    pub media_url: Option<String>,
    /// The map tiles the pages draw under their markers, as a Leaflet URL template
    /// (`https://tile.example.org/{z}/{x}/{y}.png`). None by default: pages then
    /// show markers only and never ask another host for anything.
    #[arg(long, env = "CATALOGUE_MAP_TILES", value_parser = parse_map_tiles)]
    pub map_tiles: Option<String>,
    /// What the maps credit for those tiles, shown as text under the map
    /// (`© OpenStreetMap contributors`, as most tile providers require).
    #[arg(long, env = "CATALOGUE_MAP_ATTRIBUTION", requires = "map_tiles")]
    pub map_attribution: Option<String>,
    /// What `/dwca.zip` says of the dataset.
    #[command(flatten)]
    pub dataset: DatasetArgs,
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

/// Runs the command line.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Serve(ServeCommand::parse_from(["catalogue"]).args));
    let result = match command {
        Command::Build(args) => build_command(&args),
        Command::Inspect { snapshot } => inspect(&snapshot),
        Command::Serve(args) => serve(args),
        Command::Sync(args) => sync(&args),
        Command::Generate {
            specimens,
            seed,
            output,
        } => generate(specimens, seed, &output),
        Command::Export {
            format:
                Export::Dwca {
                    snapshot,
                    output,
                    dataset,
                },
        } => export_dwca(&snapshot, &output, &dataset),
        Command::Probe { addr, path } => probe(addr, &path),
        Command::Openapi { max_limit } => {
            let doc = openapi::document(max_limit);
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("a JSON value prints")
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// One GET with a two-second budget; a status other than 200 is an error.
fn probe(mut addr: SocketAddr, path: &str) -> anyhow::Result<ExitCode> {
    use std::io::{Read, Write};
    use std::time::Duration;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    let budget = Duration::from_secs(2);
    let mut stream = std::net::TcpStream::connect_timeout(&addr, budget)
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_read_timeout(Some(budget))?;
    stream.set_write_timeout(Some(budget))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut head = [0u8; 12];
    stream
        .read_exact(&mut head)
        .with_context(|| format!("{addr} sent no status line"))?;
    match &head {
        b"HTTP/1.1 200" => Ok(ExitCode::SUCCESS),
        other => anyhow::bail!("{addr}{path}: {}", String::from_utf8_lossy(other)),
    }
}

/// `serve`'s flags alone, for running with no command.
#[derive(Parser)]
struct ServeCommand {
    #[command(flatten)]
    args: ServeArgs,
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The database URL of `--from-db`, or `DATABASE_URL` when the flag has no value.
fn database_url(flag: &str) -> anyhow::Result<String> {
    if !flag.is_empty() {
        return Ok(flag.to_string());
    }
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => Ok(url),
        _ => anyhow::bail!("--from-db has no URL and DATABASE_URL is not set"),
    }
}

fn build_command(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let checked = match &args.from_db {
        Some(flag) => {
            let source = Source::parse(&database_url(flag)?)?;
            database::read(&source)?
        }
        None => ingest::from_fixtures(&args.fixtures),
    };
    for (label, n) in &checked.skipped {
        println!("skipped {n} object(s) of {label}");
    }
    for w in checked.warnings.iter().take(args.show_warnings) {
        println!("warning: {w}");
    }
    if checked.warnings.len() > args.show_warnings {
        println!(
            "... and {} more warnings",
            checked.warnings.len() - args.show_warnings
        );
    }
    let empty = checked.is_empty();
    if empty {
        println!(
            "warning: no collection records were found, so the snapshot would publish an \
             empty collection; the catalogue reads the Django apps {} \
             (python manage.py dumpdata taxonomy geography specimens > dump.json)",
            ingest::apps().join(", ")
        );
    }
    let warnings = checked.warnings.len() + usize::from(empty);
    // Errors, where there are any, are said below instead: they stop the build anyway.
    if args.strict && warnings > 0 && checked.errors.is_empty() {
        eprintln!(
            "error: --strict and {warnings} warning(s); nothing was written to {}",
            args.output.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    match ingest::write_snapshot(&checked, &args.output) {
        Ok(header) => {
            for (model, n) in checked.collection.counts() {
                println!("{:>9} {}", n, model.label());
            }
            println!(
                "wrote {} ({warnings} warnings, {} objects skipped), checksum: {}",
                args.output.display(),
                checked.skipped.values().sum::<usize>(),
                header.checksum_hex()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(BuildError::Invalid(errors)) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            eprintln!(
                "{} error(s); nothing was written to {}",
                errors.len(),
                args.output.display()
            );
            Ok(ExitCode::FAILURE)
        }
        Err(e) => Err(e.into()),
    }
}

fn generate(specimens: usize, seed: u64, output: &std::path::Path) -> anyhow::Result<ExitCode> {
    let file = std::fs::File::create(output)
        .with_context(|| format!("cannot create {}", output.display()))?;
    synthetic::write(std::io::BufWriter::new(file), specimens, seed)
        .with_context(|| format!("cannot write {}", output.display()))?;
    println!(
        "wrote {} specimen records to {}",
        specimens,
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn inspect(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let (header, collection) = snapshot::read(path)?;
    let created = chrono::DateTime::from_timestamp_micros(header.created_at)
        .map(|t| t.to_rfc3339())
        .unwrap_or_else(|| header.created_at.to_string());
    println!("format version: {}", header.format_version);
    println!("created at: {created}");
    println!("payload bytes: {}", header.payload_len);
    println!("checksum: {}", header.checksum_hex());
    for model in Model::ALL {
        println!("{}: {}", model.label(), collection.count(model));
    }
    Ok(ExitCode::SUCCESS)
}

fn export_dwca(
    snapshot: &std::path::Path,
    output: &std::path::Path,
    dataset: &DatasetArgs,
) -> anyhow::Result<ExitCode> {
    let dataset = dataset.dataset()?;
    for line in unpublishable(&dataset) {
        eprintln!("warning: {line}");
    }
    let view = View::load(snapshot)?;
    let bytes = dwca::archive(&view, &dataset)?;
    snapshot::write_atomically(output, &bytes)
        .with_context(|| format!("cannot write {}", output.display()))?;
    println!(
        "wrote {} ({} occurrences, {} bytes)",
        output.display(),
        view.table(Model::SpecimenRecord).len(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// What an archive of this dataset lacks that GBIF and other harvesters ask for:
/// for each value not given, its flag (variable, file key) and what goes without it.
fn unpublishable(d: &Dataset) -> Vec<String> {
    [
        (
            &d.title,
            "--dataset-title",
            "CATALOGUE_DATASET_TITLE",
            "title",
            "eml.xml's title is the placeholder \"Specimen records\"",
        ),
        (
            &d.description,
            "--dataset-description",
            "CATALOGUE_DATASET_DESCRIPTION",
            "description",
            "eml.xml has no abstract",
        ),
        (
            &d.publisher,
            "--dataset-publisher",
            "CATALOGUE_DATASET_PUBLISHER",
            "publisher",
            "eml.xml has no creator, contact or publisher",
        ),
        (
            &d.license,
            "--dataset-license",
            "CATALOGUE_DATASET_LICENSE",
            "license",
            "eml.xml has no intellectualRights (GBIF takes CC0 1.0, CC BY 4.0, CC BY-NC 4.0)",
        ),
        (
            &d.institution_code,
            "--institution-code",
            "CATALOGUE_INSTITUTION_CODE",
            "institution_code",
            "every occurrence's institutionCode is empty",
        ),
        (
            &d.collection_code,
            "--collection-code",
            "CATALOGUE_COLLECTION_CODE",
            "collection_code",
            "every occurrence's collectionCode is empty",
        ),
    ]
    .into_iter()
    .filter(|(value, ..)| value.is_empty())
    .map(|(_, flag, variable, key, lacking)| {
        format!("no {flag} ({variable}, or \"{key}\" in --dataset-config): {lacking}")
    })
    .collect()
}

fn sync(args: &SyncArgs) -> anyhow::Result<ExitCode> {
    let url = database_url(args.from_db.as_deref().unwrap_or_default())?;
    let source = Source::parse(&url)?;
    tracing::info!(
        source = %source.describe(),
        snapshot = %args.snapshot.display(),
        every = ?args.every,
        full_every = ?args.full_every,
        "syncing"
    );
    let publisher = publisher::Publisher::new(source, &args.snapshot, args.full_every);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(publisher::run(publisher, args.every, shutdown_signal()));
    Ok(ExitCode::SUCCESS)
}

fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    // A bad dataset file is a mistake to hear about now, not at the first request.
    let dataset = args.dataset.dataset()?;
    // The address is bound before the snapshot loads (seconds, for a large one), so
    // a taken port fails at once; it is listened on once loaded, so until then a
    // connection is refused and a balancer tries another replica without waiting.
    let socket = bound(args.addr).with_context(|| format!("cannot listen on {}", args.addr))?;
    let view = serve::reload::load(&args.snapshot).map_err(|e| unloadable(e, &args.snapshot))?;
    tracing::info!(
        snapshot = %args.snapshot.display(),
        checksum = %view.header.checksum_hex(),
        build_ms = view.build_time.as_millis() as u64,
        rendered_bytes = view.rendered_bytes(),
        counts = %view.describe_counts(),
        "view loaded"
    );
    let settings = Settings {
        limits: Limits {
            default_limit: args.default_limit,
            max_limit: args.max_limit,
        },
        cache_max_age: args.cache_max_age,
        cors_origins: args.cors_origin.clone(),
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        send_timeout: std::time::Duration::from_secs(args.send_timeout),
        dataset,
        media_url: args.media_url.clone(),
        query_threads: args.query_threads,
        query_queue: args.query_queue,
        drain: std::time::Duration::from_secs(args.drain),
        site: Site {
            map_tiles: args.map_tiles.clone(),
            map_attribution: args.map_attribution.clone(),
        },
        ..Settings::default()
    };
    let state = State::new(view, settings);
    let reloader = Reloader::start(state.clone(), &args.snapshot, !args.no_watch)
        .with_context(|| format!("cannot watch {}", args.snapshot.display()))?;
    if !args.no_watch {
        tracing::info!(snapshot = %args.snapshot.display(), "watching the snapshot for changes");
    }
    serve::raise_open_files_limit();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        reload_on_hangup(&reloader);
        let listener = socket
            .listen(BACKLOG)
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        tracing::info!(addr = %args.addr, "serving");
        serve::serve(listener, state, shutdown_signal()).await;
        tracing::info!("stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// Connections the kernel queues for `accept` (what `TcpListener::bind` asks).
const BACKLOG: u32 = 1024;

/// A socket bound to `addr`, not yet listening; address reuse as `bind` sets it.
fn bound(addr: SocketAddr) -> std::io::Result<tokio::net::TcpSocket> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    Ok(socket)
}

/// Why the snapshot to serve cannot be loaded; for a missing file, what to do.
fn unloadable(e: LoadError, path: &std::path::Path) -> anyhow::Error {
    match e {
        LoadError::Snapshot(SnapshotError::Read { cause, .. })
            if cause.kind() == std::io::ErrorKind::NotFound =>
        {
            let from = match path.is_relative() {
                true => std::env::current_dir()
                    .map(|d| format!(" (relative to {})", d.display()))
                    .unwrap_or_default(),
                false => String::new(),
            };
            anyhow::anyhow!(
                "there is no snapshot at {}{from}: give its path with --snapshot or \
                 CATALOGUE_SNAPSHOT, or make one with `catalogue build`",
                path.display()
            )
        }
        e => e.into(),
    }
}

/// SIGHUP reloads the snapshot from the same path.
fn reload_on_hangup(reloader: &Reloader) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let trigger = reloader.trigger();
        match signal(SignalKind::hangup()) {
            Ok(mut hup) => {
                tokio::spawn(async move {
                    while hup.recv().await.is_some() {
                        tracing::info!("SIGHUP: reloading the snapshot");
                        if trigger.send(Trigger::Forced).is_err() {
                            break;
                        }
                    }
                });
            }
            Err(e) => tracing::warn!(error = %e, "cannot listen for SIGHUP"),
        }
    }
    #[cfg(not(unix))]
    let _ = reloader;
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing what is in flight");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_watch_reads_what_people_write() {
        // The only test that sets this variable, so no other reads it meanwhile.
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
        std::env::remove_var("CATALOGUE_NO_WATCH");
        let flag = ServeCommand::try_parse_from(["catalogue", "--no-watch"]).unwrap();
        assert!(flag.args.no_watch);
    }
}
