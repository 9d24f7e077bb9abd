//! GBIF asked to crawl the dataset after a version is published, where the
//! dataset file's `gbif` table names the registered dataset: retried with
//! backoff (`export::registry`), and what it came to kept beside the snapshot
//! (`NAME.gbif-crawl`, which `/api/v2/publishing/` reports).

use std::path::Path;

use crate::export::registry::{self, Credentials, Registry};
use crate::model::registration::Registration;
use crate::snapshot;

/// Asks GBIF to crawl the dataset after `version` of the snapshot at
/// `snapshot` was published, where the dataset file names its registered
/// key (`gbif.dataset`); retried with backoff, logged, and kept beside the
/// snapshot. Nothing where the file names none.
pub fn ask_crawl(snapshot: &Path, dataset_config: Option<&Path>, version: u64) {
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
pub fn crawl_published(snapshot: &Path, dataset_config: Option<&Path>, apart: bool) {
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
