//! Publishing a version, in one room: the snapshot written, the history
//! kept before it moved aside where a new one starts, the version's archive
//! and `eml.xml` kept beside it with older versions pruned ([`kept`]), and
//! GBIF asked to crawl it ([`crawl`]). `build` publishes with
//! [`Publication::write`]; `sync`'s publisher writes its snapshots on its
//! ticks and hands each to [`Publication::keep_logged`] (`--once`) or to
//! the [`keeper`] thread. The command line parses arguments and calls these.

pub mod crawl;
pub mod keeper;
pub mod kept;

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::export::dwca::Links;
use crate::ingest::{self, Checked};
use crate::model::dataset::Sensitive;
use crate::snapshot::{self, Header};
use crate::view::prepared;

use kept::{Kept, Retention};

/// How a version is published beside its snapshot.
#[derive(Clone, Debug)]
pub struct Publication {
    /// Where the kept archive's links start.
    pub links: Links,
    /// How many versions are kept.
    pub retention: Retention,
    /// The dataset file, whose `gbif` table names the dataset GBIF is asked
    /// to crawl.
    pub dataset_config: Option<PathBuf>,
    /// The dataset file whose sensitive places' rules each version is kept
    /// under, read when it is kept (none for the curators' `--precise`).
    pub rules_from: Option<PathBuf>,
}

/// What a history kept beside a build's output becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// Nothing is kept there, or the build follows `--previous`.
    No,
    /// `--new-history`: the kept versions are moved aside once the snapshot
    /// is written.
    Asked,
    /// Version 1 alone is kept: moved aside too, unless the snapshot
    /// written is the one it was made from (the same build again).
    First,
}

impl Restart {
    /// What a build writing `output` does to the versions kept beside it: a
    /// build without a previous snapshot where versions after the first are
    /// kept is refused unless `new_history` says to start a new history (a
    /// version 1 would replace and prune every version kept, the files DOIs
    /// and GBIF point at); either way the old history is moved aside, never
    /// deleted.
    pub fn of(output: &Path, follows: bool, new_history: bool) -> anyhow::Result<Restart> {
        if follows {
            return Ok(Restart::No);
        }
        let dir = snapshot::kept::path(output);
        let kept = snapshot::kept::numbers(&dir);
        let (Some(first), Some(last)) = (kept.first(), kept.last()) else {
            return Ok(Restart::No);
        };
        if new_history {
            return Ok(Restart::Asked);
        }
        if kept == [1] {
            return Ok(Restart::First);
        }
        anyhow::bail!(
            "versions {first} to {last} are kept beside {output} (in {dir}): a build without \
             --previous starts a new history at version 1 and would replace them. Give \
             --previous {output} to publish the next version, or --new-history to start a new \
             history (the kept versions are then moved aside to {dir}.old-<time>, not deleted); \
             nothing was written",
            output = output.display(),
            dir = dir.display()
        )
    }

    /// Whether the versions kept beside `output` go aside, now that the
    /// snapshot `written` is there.
    fn sets_aside(&self, output: &Path, written: &Header) -> bool {
        match self {
            Restart::No => false,
            Restart::Asked => true,
            Restart::First => snapshot::kept::manifest(&snapshot::kept::path(output), 1)
                .is_none_or(|m| m.checksum != written.checksum_hex()),
        }
    }
}

/// What writing a version did: the snapshot's header, and each step in a
/// line.
#[derive(Debug)]
pub struct Written {
    pub header: Header,
    pub said: Vec<String>,
}

impl Publication {
    /// Publishes `checked` at `output`: writes the snapshot, moves the kept
    /// history aside where `restart` says, keeps the version's files after
    /// those kept beside `previous` (pruning what the retention does not
    /// keep), and asks GBIF to crawl `new_version` where it is one. An
    /// invalid collection is an [`ingest::BuildError`], and nothing is
    /// written.
    pub fn write(
        &self,
        checked: &Checked,
        output: &Path,
        restart: Restart,
        previous: Option<&Path>,
        new_version: Option<u64>,
    ) -> anyhow::Result<Written> {
        let header = ingest::write_snapshot(checked, output, prepared::encode)?;
        let mut said = Vec::new();
        if restart.sets_aside(output, &header) {
            let aside = snapshot::kept::set_aside(output).with_context(|| {
                format!(
                    "{} is written, but the versions kept beside it cannot be moved aside",
                    output.display()
                )
            })?;
            if let Some(aside) = aside {
                said.push(format!(
                    "a new history: the versions kept before were moved to {}",
                    aside.display()
                ));
            }
        }
        said.push(self.keep(output, output, previous)?.to_string());
        if let Some(version) = new_version {
            crawl::ask_crawl(output, self.dataset_config.as_deref(), version);
        }
        Ok(Written { header, said })
    }

    /// Keeps the version of `file`, a snapshot published at `snapshot`,
    /// beside `snapshot`, after the versions kept beside `previous`.
    pub fn keep(
        &self,
        snapshot: &Path,
        file: &Path,
        previous: Option<&Path>,
    ) -> anyhow::Result<Kept> {
        let dir = snapshot::kept::path(snapshot);
        let places = match &self.rules_from {
            Some(path) => Sensitive::from_file(path)?.fingerprint(),
            None => String::new(),
        };
        kept::keep(
            snapshot,
            file,
            previous,
            &self.links,
            self.retention,
            &places,
        )
        .with_context(|| {
            format!(
                "{} is written, but its version's archive cannot be kept in {}",
                snapshot.display(),
                dir.display()
            )
        })
    }

    /// Keeps the version of `file`, a snapshot published at `snapshot`,
    /// saying in the log what was kept, or why not (the snapshot stays
    /// published either way); a file waiting to be kept goes once it is.
    pub fn keep_logged(&self, snapshot: &Path, file: &Path) {
        match self.keep(snapshot, file, None) {
            Ok(kept) => tracing::info!(snapshot = %file.display(), "{kept}"),
            Err(e) => tracing::warn!(snapshot = %file.display(), "{e:#}"),
        }
        if file != snapshot {
            let _ = std::fs::remove_file(file);
        }
    }

    /// Asks GBIF to crawl the version just published at `snapshot` (on a
    /// thread of its own when `apart`).
    pub fn crawl(&self, snapshot: &Path, apart: bool) {
        crawl::crawl_published(snapshot, self.dataset_config.as_deref(), apart);
    }
}

impl fmt::Display for Kept {
    /// What was kept and removed, in a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.manifest;
        write!(
            f,
            "kept version {} in {} ({} bytes: dwca.zip {}, eml.xml {}; made in {} ms, \
             the snapshot loaded in {} ms)",
            m.version,
            self.folder.display(),
            m.bytes(),
            m.files.get(snapshot::kept::ARCHIVE).map_or(0, |f| f.bytes),
            m.files.get(snapshot::kept::EML).map_or(0, |f| f.bytes),
            self.took.as_millis(),
            self.loaded.as_millis()
        )?;
        let list = |ns: &[u64]| ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        if !self.carried.is_empty() {
            write!(
                f,
                "; copied version(s) {} from --previous",
                list(&self.carried)
            )?;
        }
        if !self.removed.is_empty() {
            write!(f, "; removed version(s) {}", list(&self.removed))?;
        }
        Ok(())
    }
}
