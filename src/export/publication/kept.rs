//! A version kept: the archive and `eml.xml` a snapshot publishes, made once
//! when `build` or `sync` wrote it, with the links they were told, and kept in
//! the versions' folder beside it (`snapshot::kept`), older versions beyond the
//! retention removed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::encoding::hex::hex;
use crate::snapshot::kept::{self, KeptFile, Manifest};
use crate::snapshot::verified;
use crate::view::View;

use crate::export::dwca::{self, Links, Scope};

/// What keeping a version did.
#[derive(Debug)]
pub struct Kept {
    pub manifest: Manifest,
    /// How long the snapshot took to load, and the archive to make.
    pub loaded: Duration,
    pub took: Duration,
    /// The folder it is kept in.
    pub folder: PathBuf,
    /// The versions kept before and now removed (older than the retention,
    /// or of another history).
    pub removed: Vec<u64>,
    /// The versions kept beside `--previous` and copied beside this snapshot.
    pub carried: Vec<u64>,
}

/// How many versions to keep: `Some(n)`, the newest `n`; `None`, every
/// version the snapshot's history holds.
pub type Retention = Option<u64>;

/// Makes the archive and `eml.xml` of the snapshot file `file` (one
/// published at `snapshot`, perhaps waiting to be kept) with `links`, and
/// keeps them beside `snapshot` as its version (after copying those kept
/// beside `previous`, another snapshot it follows), removing what `keep` does
/// not retain. A version already kept with the same snapshot and links is
/// left as it is. It is made under the sensitive places' rules `places`
/// fingerprints (empty: none); where there are rules, each older version
/// kept under other rules is withdrawn ([`kept::withdraw`]): its files may
/// hold what the rules now hide.
pub fn keep(
    snapshot: &Path,
    file: &Path,
    previous: Option<&Path>,
    links: &Links,
    keep: Retention,
    places: &str,
) -> anyhow::Result<Kept> {
    let dir = kept::path(snapshot);
    let loading = Instant::now();
    let view = View::load(file)?;
    let loaded = loading.elapsed();
    let current = view.history.current();
    let oldest = match keep {
        Some(n) => current
            .saturating_sub(n.max(1) - 1)
            .max(view.history.oldest()),
        None => view.history.oldest(),
    };
    // Only this history's versions: a folder another history wrote (at
    // this path before, or beside `previous`) is removed, never adopted.
    let belongs = |m: &Manifest| verified::belongs(m, &view.history);
    let disowned = kept::disown(&dir, belongs);
    let carried = match previous.map(kept::path).filter(|p| *p != dir) {
        Some(from) => kept::carry(&from, &dir, oldest, belongs)?,
        None => Vec::new(),
    };
    let checksum = hex(&view.header.checksum);
    let started = Instant::now();
    let manifest = match kept::manifest(&dir, current) {
        Some(m)
            if m.checksum == checksum
                && m.site == links.site
                && m.media == links.media
                && m.places == places =>
        {
            m
        }
        _ => {
            let archive = dwca::archive(&view, Scope::Everything, links)?;
            let eml = dwca::kept_eml_xml(&view, &links.site);
            let manifest = Manifest {
                version: current,
                checksum,
                published: view.header.created_at,
                site: links.site.clone(),
                media: links.media.clone(),
                files: [
                    (kept::ARCHIVE.to_string(), KeptFile::of(&archive)),
                    (kept::EML.to_string(), KeptFile::of(eml.as_bytes())),
                ]
                .into(),
                places: places.to_string(),
                withdrawn: String::new(),
            };
            kept::write(&dir, &manifest, &archive, eml.as_bytes())?;
            manifest
        }
    };
    if !places.is_empty() {
        for n in kept::numbers(&dir).into_iter().filter(|&n| n < current) {
            let Some(m) = kept::manifest(&dir, n) else {
                continue;
            };
            if m.places != places && m.withdrawn.is_empty() {
                let why = format!(
                    "withdrawn: made before version {current}'s sensitive places' rules, it may \
                     give places they generalise or withhold"
                );
                kept::withdraw(&dir, n, &why)?;
            }
        }
    }
    let took = started.elapsed();
    let mut removed = kept::prune(&dir, oldest..=current);
    removed.extend(disowned);
    removed.sort_unstable();
    Ok(Kept {
        folder: kept::folder(&dir, manifest.version),
        manifest,
        loaded,
        took,
        removed,
        carried,
    })
}
