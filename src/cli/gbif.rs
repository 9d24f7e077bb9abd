//! `catalogue gbif register`, and the crawl `build --previous` and `sync` ask
//! of GBIF after each version they publish, through GBIF's registry
//! (`export::registry`), with the keys of the dataset file's `gbif` table.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

use crate::export::registry::{self, Credentials, Registry};
use crate::model::dataset::Dataset;
use crate::model::registration::Registration;
use crate::snapshot;

use super::args::RegisterArgs;

/// Registers the dataset (or updates it, where `gbif.dataset` is set) and
/// makes its endpoints the archive and the metadata at the public URL.
pub(super) fn register(args: &RegisterArgs) -> anyhow::Result<ExitCode> {
    let file = args.dataset_config.as_path();
    let dataset = Dataset::from_file(file)?;
    let registration = Registration::from_file(file)?.unwrap_or_default();
    let lacking = registration.lacking();
    if !lacking.is_empty() {
        anyhow::bail!(
            "{}: the `gbif` table lacks {}: the publishing organisation's key (its page on \
             GBIF.org, https://www.gbif.org/publisher/<key>) and the installation's \
             (GBIF's helpdesk gives it), as [gbif] publishing_organization = \"...\" and \
             installation = \"...\" (docs/gbif-registration.md)",
            file.display(),
            lacking.join(" and ")
        );
    }
    if dataset.licence().is_none() {
        anyhow::bail!(
            "{}: no licence: GBIF registers a dataset under CC0-1.0, CC-BY-4.0 or \
             CC-BY-NC-4.0 only; write one as `license`",
            file.display()
        );
    }
    // The snapshot must be one: what is registered is what is served.
    snapshot::peek(&args.snapshot).with_context(|| {
        format!(
            "cannot read the snapshot {} (--snapshot, CATALOGUE_SNAPSHOT)",
            args.snapshot.display()
        )
    })?;
    let credentials = Credentials::from_env()?;
    let api = registration.api();
    let gbif = Registry::new(&api, credentials);
    let site = args.public_url.as_str().trim_end_matches('/').to_string();
    let endpoints = [
        (registry::DWC_ARCHIVE, format!("{site}/dwca.zip")),
        (registry::EML, format!("{site}/eml.xml")),
    ];
    let key = match registration.dataset.as_str() {
        "" => {
            let body = registry::dataset_body(&dataset, &registration, None);
            let key = gbif.create_dataset(&body)?;
            say!("registered the dataset with {api}: its key is {key}")?;
            key
        }
        key => {
            let body = registry::dataset_body(&dataset, &registration, Some(key));
            gbif.update_dataset(key, &body)?;
            say!("updated the dataset {key} in {api}")?;
            key.to_string()
        }
    };
    for done in gbif.set_endpoints(&key, &endpoints)? {
        say!("{done}")?;
    }
    if registration.dataset.is_empty() {
        say!(
            "write its key in {}'s `gbif` table (dataset = \"{key}\"): `build --previous` \
             and `sync` then ask GBIF to crawl each version they publish, and `gbif register` \
             updates the dataset rather than registering another",
            file.display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Asks GBIF to crawl the dataset after `version` of the snapshot at
/// `snapshot` was published, where the dataset file names its registered
/// key (`gbif.dataset`); retried with backoff, logged, and kept beside the
/// snapshot. Nothing where the file names none.
pub(super) fn ask_crawl(snapshot: &Path, dataset_config: Option<&Path>, version: u64) {
    let Some(file) = dataset_config else {
        return;
    };
    let registration = match Registration::from_file(file) {
        Ok(Some(r)) if !r.dataset.is_empty() => r,
        Ok(_) => return,
        Err(e) => {
            tracing::warn!("no crawl asked of GBIF: {e}");
            return;
        }
    };
    let crawl = match Credentials::from_env() {
        Ok(credentials) => {
            let gbif = Registry::new(&registration.api(), credentials);
            registry::ask_crawl(
                &gbif,
                &registration.dataset,
                version,
                registry::CRAWL_BACKOFF,
            )
        }
        Err(e) => {
            tracing::warn!(dataset = %registration.dataset, version, "no crawl asked of GBIF: {e}");
            registry::Crawl {
                dataset: registration.dataset.clone(),
                version,
                tries: 0,
                failed: Some(e.to_string()),
            }
        }
    };
    let line = serde_json::json!({
        "dataset": crawl.dataset,
        "version": crawl.version,
        "asked_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "tries": crawl.tries,
        "asked": crawl.failed.is_none(),
        "failure": crawl.failed,
    });
    let path = snapshot::status::crawl_path(snapshot);
    if let Err(e) = snapshot::write_atomically(&path, format!("{line}\n").as_bytes()) {
        tracing::warn!(file = %path.display(), "cannot keep what the crawl request came to: {e}");
    }
}

/// Asks GBIF to crawl the version `sync` just published at `snapshot`, where
/// the dataset file names the registered dataset: on a thread of its own
/// when `apart` (the next tick never waits for GBIF).
pub(super) fn crawl_published(snapshot: &Path, dataset_config: Option<&Path>, apart: bool) {
    let Some(config) = dataset_config else {
        return;
    };
    if !matches!(Registration::from_file(config), Ok(Some(r)) if !r.dataset.is_empty()) {
        return;
    }
    let version = match version_of(snapshot) {
        Ok(version) => version,
        Err(e) => {
            tracing::warn!(snapshot = %snapshot.display(), "no crawl asked of GBIF: {e}");
            return;
        }
    };
    let (snapshot, config) = (snapshot.to_path_buf(), config.to_path_buf());
    let ask = move || ask_crawl(&snapshot, Some(&config), version);
    match apart {
        true => {
            let _ = std::thread::Builder::new()
                .name("gbif-crawl".into())
                .spawn(ask);
        }
        false => ask(),
    }
}

/// The current version of the snapshot at `path`: its versions' part alone decoded.
fn version_of(path: &Path) -> anyhow::Result<u64> {
    let (header, bytes) = snapshot::read_bytes(path)?;
    let sections = snapshot::sections(path, &header, &bytes)?;
    Ok(match sections.history {
        Some(part) => snapshot::decode_history(path, header.format_version, part)?.current(),
        None => 1,
    })
}
