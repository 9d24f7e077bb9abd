//! What the commands other than `serve` do: build, inspect, generate, export,
//! sync and probe, and the logging they share.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;

use crate::export::dwca;
use crate::export::publication::{keeper, Restart};
use crate::ingest::database_url::Source;
use crate::ingest::{self, database, held, publisher, synthetic, BuildError};
use crate::model::dataset::Dataset;
use crate::model::refusal::unlicensed;
use crate::model::Model;
use crate::snapshot;
use crate::view::{prepared, View};

use super::args::{BuildArgs, DatasetArgs, SyncArgs};
use super::serving::shutdown_signal;

/// One GET with a two-second budget; a status other than 200 is an error.
pub(super) fn probe(mut addr: SocketAddr, path: &str) -> anyhow::Result<ExitCode> {
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

pub(super) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"))
        // The HTTP client's trace says the registry's Authorization header:
        // never logged, whatever RUST_LOG asks.
        .add_directive("ureq=warn".parse().expect("a directive"))
        .add_directive("ureq_proto=warn".parse().expect("a directive"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The database URL of `--from-db`, or `DATABASE_URL` when the flag has no value.
pub(super) fn database_url(flag: &str) -> anyhow::Result<String> {
    if !flag.is_empty() {
        return Ok(flag.to_string());
    }
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => Ok(url),
        _ => anyhow::bail!("--from-db has no URL and DATABASE_URL is not set"),
    }
}

pub(super) fn build_command(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    // A history is started again only when asked: before anything is read.
    let restart = Restart::of(&args.output, args.previous.is_some(), args.new_history)?;
    // A bad dataset file is said before the collection is read.
    let dataset = args.dataset.dataset()?;
    let rules = args.places.rules(&args.dataset)?;
    if let Some(refused) = unlicensed(&dataset).filter(|_| !args.refuse.allow_no_licence) {
        eprintln!(
            "error: {refused}; nothing was written to {}",
            args.output.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut checked = match &args.from_db {
        Some(flag) => {
            let source = Source::parse(&database_url(flag)?)?;
            database::read(&source)?
        }
        None => ingest::from_fixtures(&args.fixtures),
    };
    let undescribed = unpublishable(&dataset);
    checked.collection.dataset = dataset;
    // Invalid records held back, unless refused (--refuse-invalid, --strict).
    let mut held = Vec::new();
    if !checked.errors.is_empty() && !args.refuse_invalid && !args.strict {
        let previous = match &args.previous {
            Some(path) => Some(snapshot::read(path).map(|(_, c)| c).with_context(|| {
                format!("cannot read the previous snapshot {}", path.display())
            })?),
            None => None,
        };
        if let Ok((mut collection, h)) =
            held::hold_back(&checked.collection, &checked.errors, previous.as_ref())
        {
            // Held since the version this build writes, or since the
            // previous snapshot says.
            let (before, next) = match &previous {
                Some(p) => (&p.held[..], p.history.current() + 1),
                None => (&[][..], 1),
            };
            collection.held = held::holdings(&h, before, next);
            checked.collection = collection;
            checked.errors.clear();
            held = h;
        }
    }
    for h in &held {
        say!("held back: {}", h.describe())?;
    }
    // Sensitive places generalised before anything compares or writes the
    // records: the snapshot never holds what the rules hide.
    if checked.errors.is_empty() && !rules.is_empty() {
        match ingest::sensitive::apply(&mut checked.collection, &rules) {
            Ok(generalised) => say!("{generalised}")?,
            Err(e) => {
                eprintln!(
                    "error: {e}; nothing was written to {}",
                    args.output.display()
                );
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let mut renamed = None;
    // The version a build after --previous publishes, where it is a new one.
    let mut published = None;
    if let Some(previous) = &args.previous {
        let followed = follow(&mut checked.collection, previous)?;
        if let Some(turnover) = followed.turnover.filter(|t| t.churns()) {
            if !args.refuse.allow_id_churn {
                eprintln!(
                    "error: version {}: {}; {} is left as it was",
                    followed.version,
                    turnover.refusal(),
                    args.output.display()
                );
                return Ok(ExitCode::FAILURE);
            }
            say!(
                "warning: published anyway (--allow-id-churn): {}",
                turnover.refusal()
            )?;
        }
        say!("version {}: {}", followed.version, followed.changes)?;
        renamed = followed.renamed;
        published = followed.new.then_some(followed.version);
    }
    if let Some(line) = &renamed {
        say!("warning: {line}")?;
    }
    for (label, n) in &checked.skipped {
        say!("skipped {n} object(s) of {label}")?;
    }
    for w in checked.warnings.iter().take(args.show_warnings) {
        say!("warning: {w}")?;
    }
    if checked.warnings.len() > args.show_warnings {
        say!(
            "... and {} more warnings",
            checked.warnings.len() - args.show_warnings
        )?;
    }
    let empty = checked.is_empty();
    if empty {
        say!(
            "warning: no collection records were found, so the snapshot would publish an \
             empty collection; the catalogue reads the Django apps {} \
             (python manage.py dumpdata taxonomy geography specimens > dump.json)",
            ingest::apps().join(", ")
        )?;
    }
    if let Some(line) = &undescribed {
        say!("warning: {line}")?;
    }
    let warnings = checked.warnings.len()
        + usize::from(empty)
        + usize::from(undescribed.is_some())
        + usize::from(renamed.is_some());
    // Errors, where there are any, are said below instead: they stop the build anyway.
    if args.strict && warnings > 0 && checked.errors.is_empty() {
        eprintln!(
            "error: --strict and {warnings} warning(s); nothing was written to {}",
            args.output.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    let publication = args.keep.publication(&args.dataset, &args.places);
    let previous = args.previous.as_deref();
    let written = match publication.write(&checked, &args.output, restart, previous, published) {
        Ok(written) => written,
        Err(e) => match e.downcast::<BuildError>() {
            Ok(BuildError::Invalid(errors)) => {
                for e in &errors {
                    eprintln!("error: {e}");
                }
                eprintln!(
                    "{} error(s); nothing was written to {}",
                    errors.len(),
                    args.output.display()
                );
                return Ok(ExitCode::FAILURE);
            }
            Ok(e) => return Err(e.into()),
            Err(e) => return Err(e),
        },
    };
    // Said before the counts and the checksum, which stay last.
    if args.keep.links.public_url.is_none() {
        say!("warning: {UNLINKED}")?;
    }
    for line in &written.said {
        say!("{line}")?;
    }
    for (model, n) in checked.collection.counts() {
        say!("{:>9} {}", n, model.label())?;
    }
    let held = match held.len() {
        0 => String::new(),
        n => format!(", {n} record(s) held back"),
    };
    say!(
        "wrote {} ({warnings} warnings, {} objects skipped{held}), checksum: {}",
        args.output.display(),
        checked.skipped.values().sum::<usize>(),
        written.header.checksum_hex()
    )?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn generate(
    specimens: usize,
    seed: u64,
    output: &std::path::Path,
) -> anyhow::Result<ExitCode> {
    let file = std::fs::File::create(output)
        .with_context(|| format!("cannot create {}", output.display()))?;
    synthetic::write(std::io::BufWriter::new(file), specimens, seed)
        .with_context(|| format!("cannot write {}", output.display()))?;
    say!(
        "wrote {} specimen records to {}",
        specimens,
        output.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn inspect(path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let (header, bytes) = snapshot::read_bytes(path)?;
    let (_, collection) = snapshot::decode(path, &bytes)?;
    let prepared = snapshot::sections(path, &header, &bytes)?.prepared;
    let created = chrono::DateTime::from_timestamp_micros(header.created_at)
        .map(|t| t.to_rfc3339())
        .unwrap_or_else(|| header.created_at.to_string());
    say!("format version: {}", header.format_version)?;
    say!("created at: {created}")?;
    say!("payload bytes: {}", header.payload_len)?;
    say!("checksum: {}", header.checksum_hex())?;
    say!("version: {}", collection.history.current())?;
    say!("held back: {}", collection.held.len())?;
    for h in &collection.held {
        say!(
            "  {} pk={} {}: {} ({}, since version {})",
            h.model,
            h.id,
            h.field,
            h.problem,
            h.kept,
            h.since
        )?;
    }
    // Without them (format version 3) a server builds its view from the records.
    say!("prepared tables bytes: {}", prepared.map_or(0, <[u8]>::len))?;
    for model in Model::ALL {
        say!("{}: {}", model.label(), collection.count(model))?;
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn export_dwca(
    snapshot: &std::path::Path,
    output: &std::path::Path,
    dataset: &DatasetArgs,
    links: &dwca::Links,
) -> anyhow::Result<ExitCode> {
    let told = dataset.told()?;
    if links.site.is_empty() && links.media.starts_with('/') {
        eprintln!(
            "warning: no --public-url (CATALOGUE_PUBLIC_URL): the photographs' URLs in \
             multimedia.txt are paths ({}...), which GBIF cannot fetch",
            links.media
        );
    }
    let mut view = View::load(snapshot)?;
    view.dataset = Arc::new(told.over(&view.dataset));
    if let Some(line) = unpublishable(&view.dataset) {
        eprintln!("warning: {line}");
    }
    let bytes = dwca::archive(&view, dwca::Scope::Everything, links)?;
    snapshot::write_atomically(output, &bytes)
        .with_context(|| format!("cannot write {}", output.display()))?;
    say!(
        "wrote {} ({} occurrences, {} bytes)",
        output.display(),
        view.table(Model::SpecimenRecord).len(),
        bytes.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What is said when a kept archive's links are paths.
const UNLINKED: &str = "no --public-url (CATALOGUE_PUBLIC_URL): the kept archive's \
     links (its photographs' URLs, eml.xml's download URL) are paths, which GBIF \
     cannot follow; /dwca.zip then makes its archive for the address it is asked at";

/// What following a previous snapshot made of a build.
struct Followed {
    version: u64,
    /// What changed, in a line.
    changes: String,
    /// Why the records' occurrenceIDs changed, if they did.
    renamed: Option<String>,
    /// Whether it is a new version (something changed).
    new: bool,
    /// What it does to the occurrenceIDs published before, where it is new.
    turnover: Option<crate::model::refusal::Turnover>,
}

/// Makes `collection` the version after the snapshot at `previous`: its
/// history, with what changed; the same version when nothing did. Says which
/// version, and what changed.
fn follow(
    collection: &mut crate::model::records::Collection,
    previous: &std::path::Path,
) -> anyhow::Result<Followed> {
    use crate::model::digest::{self, Digest};
    use crate::model::history::{self, History};
    let (header, old) = snapshot::read(previous)
        .with_context(|| format!("cannot read the previous snapshot {}", previous.display()))?;
    collection.history = old.history.clone();
    let prepared = prepared::encode(collection);
    let (same, _) = snapshot::encode(collection, header.created_at, &prepared)?;
    if same.checksum == header.checksum {
        let kept = History::completed(&old.history, header.checksum, header.created_at);
        return Ok(Followed {
            version: kept.current(),
            changes: "nothing changed".into(),
            renamed: None,
            new: false,
            turnover: None,
        });
    }
    let renamed = collection.dataset.renames_occurrences(&old.dataset);
    let turnover = crate::model::refusal::Turnover::between(&old, collection);
    let described = (&old.dataset, &collection.dataset);
    let mut changes = Digest::of(collection).changes_described(&Digest::of(&old), described);
    digest::name_deleted(&mut changes, |id| digest::catalog_number(&old, id));
    let base = match old.history.versions.is_empty() {
        true => History::first(digest::counts(&old)),
        false => old.history,
    };
    let said = history::summary(&changes);
    collection.history = base.next(
        header.checksum,
        header.created_at,
        digest::counts(collection),
        changes,
    );
    crate::model::package_id::follow(&mut collection.history, &old.dataset, &collection.dataset);
    Ok(Followed {
        version: collection.history.current(),
        changes: said,
        renamed,
        new: true,
        turnover: Some(turnover),
    })
}

/// What a dataset lacks that GBIF requires or shows, in one line naming each
/// key of the dataset file and what goes without it; `None` when nothing.
pub(super) fn unpublishable(d: &Dataset) -> Option<String> {
    let missing = d.missing();
    if missing.is_empty() {
        return None;
    }
    let keys: Vec<&str> = missing.iter().map(|(key, _)| *key).collect();
    let effects: Vec<String> = missing
        .iter()
        .map(|(key, effect)| format!("{key}: {effect}"))
        .collect();
    Some(format!(
        "the dataset's description lacks {} (give them in \
         --dataset-config; `catalogue dataset init` writes a template): {}",
        keys.join(", "),
        effects.join("; ")
    ))
}

pub(super) fn sync(args: &SyncArgs) -> anyhow::Result<ExitCode> {
    let url = database_url(args.from_db.as_deref().unwrap_or_default())?;
    let source = Source::parse(&url)?;
    tracing::info!(
        source = %source.describe(),
        snapshot = %args.snapshot.display(),
        every = ?args.every,
        full_every = ?args.full_every,
        "syncing"
    );
    let told = args.dataset.followed()?;
    let dataset = told.over(&Dataset::default());
    if let Some(refused) = unlicensed(&dataset).filter(|_| !args.refuse.allow_no_licence) {
        anyhow::bail!(
            "{refused}; nothing was published to {}",
            args.snapshot.display()
        );
    }
    if let Some(line) = unpublishable(&dataset) {
        tracing::warn!("{line}");
    }
    let publisher = publisher::Publisher::new(
        source,
        &args.snapshot,
        args.full_every,
        prepared::Preparer::default(),
    )?;
    // A dataset file is followed: read again when it changes.
    let publisher = match &args.dataset.dataset_config {
        Some(path) => publisher.following(path, told),
        None => publisher.describing(dataset),
    };
    // The sensitive places' rules, read again with the file (never with --precise).
    let publisher = match args.places.precise {
        true => publisher,
        false => publisher.generalising(args.places.rules(&args.dataset)?),
    };
    let publisher = publisher.refusing(crate::model::refusal::Allowed {
        no_licence: args.refuse.allow_no_licence,
        id_churn: args.refuse.allow_id_churn,
    });
    if args.keep.links.public_url.is_none() {
        tracing::warn!("{UNLINKED}");
    }
    // Each version kept under the rules the dataset file says when it is kept.
    let publication = args.keep.publication(&args.dataset, &args.places);
    if args.once {
        let at = args.snapshot.display();
        let publishing = publication.clone();
        let publisher = publisher.after_publishing(move |path| {
            publishing.keep_logged(path, path);
            publishing.crawl(path, false);
        });
        // What a stopped `sync` left waiting is kept first.
        for waiting in snapshot::kept::waiting(&args.snapshot) {
            publication.keep_logged(&args.snapshot, &waiting);
        }
        let published = publisher::once(publisher);
        // A snapshot published before versions were kept is kept now.
        if args.snapshot.exists() {
            publication.keep_logged(&args.snapshot, &args.snapshot);
        }
        return Ok(match published {
            Ok(held) if held.is_empty() => {
                eprintln!("{at}: every record read is published");
                ExitCode::SUCCESS
            }
            Ok(held) => {
                eprintln!(
                    "{at}: {} record(s) held back, the rest published (the log says which and why)",
                    held.len()
                );
                ExitCode::from(1)
            }
            Err(e) => {
                eprintln!("{at}: the tick failed: {e}; {at} left as it was");
                ExitCode::from(1)
            }
        });
    }
    // Versions are kept on a thread of their own, each as it was published:
    // the next tick never waits for an archive.
    let mut publish = keeper::start(&args.snapshot, &publication)?;
    if args.snapshot.exists() {
        publish(&args.snapshot);
    }
    let publisher = publisher.after_publishing(move |path| {
        publish(path);
        publication.crawl(path, true);
    });
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(publisher::run(publisher, args.every, shutdown_signal()));
    Ok(ExitCode::SUCCESS)
}
