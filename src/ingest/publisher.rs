//! Publishing from the database: `catalogue sync` rebuilds the
//! collection when the database moved and replaces the snapshot file, atomically,
//! only when its checksum changed. A server watching the file then swaps to it.
//!
//! A tick first asks whether anything was committed at all ([`database::Commits`]:
//! a `stat` or one query). When something was, it reads the database's change
//! marker ([`database::Marker`], a few aggregate queries) and, in the same read,
//! what changed since the last read when the marker moved ([`changed`]); the
//! whole collection when the last whole read is older than the full-read
//! interval (for edits that bypass Django's stamps), or when what moved is only
//! read whole.
//!
//! A collection that fails validation is published with each invalid record
//! held back ([`held::hold_back`]): kept as the snapshot at the path has it,
//! or left out where it has none. The collection read stays what the next
//! tick's changes apply to, so a fix is read and published. The held-back
//! records are logged once each time what is held changes.
//!
//! A tick that cannot read the database, or reads a collection of which
//! nothing can be published (a problem of no one record), logs one line,
//! never touches the file, and the next try comes sooner (1 s, doubling up
//! to the interval).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::database_url::Source;
use super::held::{self, Held, Holding, KeptAs};
use super::{changed, database, sensitive};
use crate::model::dataset::{Dataset, Sensitive, Told};
use crate::model::digest::{self, Digest};
use crate::model::history::{self, History};
use crate::model::records::Collection;
use crate::model::refusal::{self, Allowed, Turnover};
use crate::model::validate;
use crate::model::Model;
use crate::snapshot;
use crate::snapshot::status::{Kind, Status};

/// Reads `60s`, `5m`, `1h`, `500ms` or a bare number of seconds.
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not an interval like 60s, 5m, 1h or 500ms"))?;
    let d = match unit.trim() {
        "" | "s" => Duration::from_secs(n),
        "ms" => Duration::from_millis(n),
        "m" | "min" => Duration::from_secs(n * 60),
        "h" => Duration::from_secs(n * 3600),
        other => return Err(format!("unknown unit {other:?} in {s:?} (ms, s, m or h)")),
    };
    if d < Duration::from_millis(100) {
        return Err(format!("{s:?} is too short an interval (at least 100ms)"));
    }
    Ok(d)
}

/// What one tick did.
#[derive(Debug)]
pub enum Tick {
    /// Nothing was committed, or the change marker had not moved: nothing
    /// more was read.
    Unmoved,
    /// The collection was read; its checksum is the one already at the path.
    Unchanged(Read),
    /// The file was replaced; what changed.
    Replaced {
        checksum: String,
        version: u64,
        changes: String,
        read: Read,
        /// The records digested and encoded again.
        records: Records,
        tables: snapshot::Tables,
    },
}

/// Which records a tick that replaced the file digested and encoded again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// Every one.
    Whole,
    /// Only those edited, with those held back before and now: how many.
    Edited(usize),
}

impl std::fmt::Display for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Records::Whole => f.write_str("whole"),
            Records::Edited(n) => write!(f, "edited({n} records)"),
        }
    }
}

/// How a tick read the collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Every table ([`database::read`]).
    Whole,
    /// Only the rows that changed since the last read ([`changed`]): how many.
    Changed(usize),
}

impl std::fmt::Display for Read {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Read::Whole => f.write_str("whole"),
            Read::Changed(rows) => write!(f, "changed({rows} rows)"),
        }
    }
}

/// Why a tick left the file as it was.
#[derive(Debug)]
pub enum Failed {
    /// The database could not be read, or the file not written.
    Unreadable(anyhow::Error),
    /// The database was read, and its collection fails validation.
    Invalid(String),
    /// Records are held back, and the snapshot published (which says how
    /// they were published) does not read: publishing without it would
    /// publish them as deleted.
    Damaged(String),
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Unreadable(e) => write!(f, "{e}"),
            Failed::Invalid(problems) | Failed::Damaged(problems) => f.write_str(problems),
        }
    }
}

impl<E: Into<anyhow::Error>> From<E> for Failed {
    fn from(e: E) -> Failed {
        Failed::Unreadable(e.into())
    }
}

/// The last read of a valid collection: what the next one starts from.
struct Last {
    /// Where the database's commits were when the marker was last read.
    commits: Option<database::Commits>,
    /// The change marker of the moment the collection was read (read in the
    /// same transaction as its rows).
    marker: database::Marker,
    /// When the last whole read was.
    whole_at: Instant,
    /// The collection read (without its history): the database's, held-back
    /// records and all, which the next tick's changes apply to.
    collection: Collection,
    /// The pieces its records were written in.
    records: Vec<snapshot::Piece>,
}

/// What a tick that read only edits knows of the collection before them.
struct Edits {
    /// The records replaced in place, by model.
    edited: Vec<(Model, Vec<i64>)>,
    /// The pieces the records before them were written in.
    records: Vec<snapshot::Piece>,
}

impl Edits {
    /// Counts the specimens `ids` among the edited.
    fn add_specimens(&mut self, ids: Vec<i64>) {
        match self
            .edited
            .iter_mut()
            .find(|(m, _)| *m == Model::SpecimenRecord)
        {
            Some((_, edited)) => edited.extend(ids),
            None => self.edited.push((Model::SpecimenRecord, ids)),
        }
        for (_, edited) in &mut self.edited {
            edited.sort_unstable();
            edited.dedup();
        }
    }
}

/// The specimens whose published records may differ from those published
/// before, besides the edits, where records were held back `before` and
/// are `now`: those held as published, then or now. `None` where a record
/// held is no specimen, or a record left out (never published) is
/// published now or the other way round: the records published then
/// do not each keep their place.
fn held_edits(before: &[Held], now: &[Held]) -> Option<Vec<i64>> {
    let left_out = |held: &[Held]| -> Vec<i64> {
        let ids = held.iter().filter(|h| h.kept == KeptAs::LeftOut);
        ids.map(|h| h.id).collect()
    };
    if left_out(before) != left_out(now) {
        return None;
    }
    (before.iter().chain(now))
        .filter(|h| h.kept != KeptAs::LeftOut)
        .map(|h| (h.model == Model::SpecimenRecord && h.kept == KeptAs::Published).then_some(h.id))
        .collect()
}

/// The records `edited`, and the specimens `held` holds back: what a tick
/// that read only edits of specimens checks, the collection read before
/// having had errors in those alone. `None` where an edit or a record
/// held is of another model, or a deletion held.
fn with_held(edited: &[(Model, Vec<i64>)], held: &[Held]) -> Option<Vec<(Model, Vec<i64>)>> {
    if edited.iter().any(|(m, _)| *m != Model::SpecimenRecord) {
        return None;
    }
    let mut edits = Edits {
        edited: edited.to_vec(),
        records: Vec::new(),
    };
    let specimens = held.iter().map(|h| {
        (h.model == Model::SpecimenRecord && h.kept != KeptAs::DeletionHeld).then_some(h.id)
    });
    edits.add_specimens(specimens.collect::<Option<_>>()?);
    Some(edits.edited)
}

/// The loop's memory between ticks: the checksum and digests at the path, and the
/// last collection read.
pub struct Publisher {
    source: Source,
    path: PathBuf,
    checksum: Option<[u8; 32]>,
    /// When the snapshot at the path was made (microseconds).
    created_at: i64,
    digest: Digest,
    /// The snapshot at the path's versions, which the next one continues.
    history: Option<History>,
    last: Option<Last>,
    full_every: Duration,
    /// Away only while a tick prepares.
    prepare: Option<Box<dyn snapshot::Preparing>>,
    /// What each snapshot says of the dataset (`--dataset-config`).
    dataset: Dataset,
    /// What the snapshot at the path says of it (`None` where not known).
    described: Option<Dataset>,
    /// The dataset file, read again when it changes.
    following: Option<Following>,
    /// The sensitive places' rules applied to what is published (none
    /// unless [`Publisher::generalising`]), and whether they are read again
    /// with a followed dataset file.
    rules: Sensitive,
    rules_followed: bool,
    /// What the snapshot at the path holds back, by model and id.
    held: Vec<Held>,
    /// The same as it stores them, each with the version since which it is
    /// held (read from the snapshot at start).
    holdings: Vec<Holding>,
    /// The collection the snapshot at the path publishes, kept only while
    /// something is held back (else read from the file when first needed).
    published: Option<Collection>,
    /// Called with the snapshot's path after each snapshot is published
    /// (`sync` keeps its version's archive: [`Publisher::after_publishing`]).
    after: Option<Box<Published>>,
    /// What stands in the way of publishing, as written beside the snapshot
    /// for servers to show ([`snapshot::status`]).
    status: Status,
    /// The status as last written (none yet: the first tick writes it).
    status_written: Option<Status>,
    /// What is published though GBIF would refuse it (by default everything:
    /// `sync` says otherwise, [`Publisher::refusing`]).
    allowed: Allowed,
}

/// What is done with a snapshot's path once it is published.
type Published = dyn FnMut(&Path) + Send;

/// A dataset file `sync` reads again when it changes, and the values the
/// flags tell over it.
struct Following {
    path: PathBuf,
    told: Told,
    stamp: Option<snapshot::FileStamp>,
}

impl Publisher {
    /// Starts from the snapshot already at `path`, if it reads, else from
    /// the history kept beside it ([`snapshot::beside`]), continuing its
    /// numbering; reads the whole collection at least every `full_every`;
    /// writes snapshots with the tables `prepare` makes. Refuses to start a
    /// new history (at version 1) where a snapshot is at `path` but does not
    /// read and no history is kept beside it: it may be the only record of
    /// the versions published.
    pub fn new(
        source: Source,
        path: &Path,
        full_every: Duration,
        prepare: impl snapshot::Preparing + 'static,
    ) -> anyhow::Result<Publisher> {
        let kept_at = snapshot::beside::path(path);
        let mut holdings = Vec::new();
        let mut damaged = None;
        let (checksum, created_at, digest, history, described) = match snapshot::read(path) {
            Ok((header, collection)) => {
                // Kept beside it from now on, for deployments that had none
                // (never over what is not a file: a FIFO is refused).
                let kept = match snapshot::beside::read(path) {
                    Err(e) if snapshot::beside::not_a_file(path) => anyhow::bail!("{e}"),
                    kept => kept.ok().flatten(),
                };
                if kept.is_none_or(|k| k.checksum != header.checksum) {
                    if let Err(e) = snapshot::beside::write(path, &header, &collection.history) {
                        tracing::warn!(file = %kept_at.display(), "cannot keep the history beside the snapshot: {e}");
                    }
                }
                holdings = collection.held.clone();
                (
                    Some(header.checksum),
                    header.created_at,
                    Digest::of(&collection),
                    Some(collection.history),
                    Some(collection.dataset),
                )
            }
            Err(e) => {
                let exists = std::fs::symlink_metadata(path).is_ok();
                match snapshot::beside::read(path) {
                    Ok(Some(kept)) => {
                        let why = match exists {
                            true => e.to_string(),
                            false => format!("there is no snapshot at {}", path.display()),
                        };
                        damaged = Some(why.clone());
                        tracing::warn!(
                            kept = %kept_at.display(),
                            version = kept.history.current(),
                            "{why}: continuing the history kept beside it; the next snapshot is version {}, its changes every record (what changed since the one lost cannot be told)",
                            kept.history.current() + 1
                        );
                        (
                            Some(kept.checksum),
                            kept.created_at,
                            Digest::default(),
                            Some(kept.history),
                            None,
                        )
                    }
                    Ok(None) if exists => anyhow::bail!(
                        "{e}, and no history is kept beside it ({}): sync would start the versions again at 1. \
                         Restore the snapshot or its history from a backup (docs/operations.md), \
                         or move the file away to start a new history",
                        kept_at.display()
                    ),
                    Ok(None) => {
                        tracing::warn!(
                            snapshot = %path.display(),
                            "no snapshot and no history kept beside it ({}): the first snapshot written is version 1 \
                             (if versions were published here before, stop and restore them: docs/operations.md)",
                            kept_at.display()
                        );
                        (None, 0, Digest::default(), None, None)
                    }
                    Err(kept) => anyhow::bail!(
                        "{}: {kept}; sync cannot tell which version comes next. \
                         Restore the snapshot or its history from a backup (docs/operations.md)",
                        match exists {
                            true => e.to_string(),
                            false => format!("there is no snapshot at {}", path.display()),
                        }
                    ),
                }
            }
        };
        Ok(Publisher {
            source,
            path: path.to_path_buf(),
            checksum,
            created_at,
            digest,
            history,
            last: None,
            full_every,
            prepare: Some(Box::new(prepare)),
            dataset: Dataset::default(),
            described,
            following: None,
            rules: Sensitive::default(),
            rules_followed: false,
            held: Vec::new(),
            holdings,
            published: None,
            after: None,
            status: {
                let mut status = Status::default();
                if let Some(why) = damaged {
                    status.found(
                        Kind::DamagedSnapshot,
                        "sync",
                        format!(
                            "{why}: the next version continues the history kept beside it; \
                         while records are held back nothing is published (restore the \
                         snapshot from a backup, or fix the records held back)"
                        ),
                    );
                }
                status
            },
            status_written: None,
            allowed: Allowed::ALL,
        })
    }

    /// Publishes no version GBIF would refuse unless `allowed` says so: a
    /// dataset without a licence, a version that changes more than half of
    /// the occurrenceIDs published before ([`Turnover`]). Such a tick fails,
    /// saying why, and leaves the file as it was.
    pub fn refusing(self, allowed: Allowed) -> Publisher {
        Publisher { allowed, ..self }
    }

    /// Why publishing `collection` (with `changes` from the snapshot at the
    /// path) is refused, where it is.
    fn refused(&self, collection: &Collection, changes: &[history::Changes]) -> Option<String> {
        if !self.allowed.no_licence {
            if let Some(why) = refusal::unlicensed(&collection.dataset) {
                return Some(why);
            }
        }
        let before = self.described.as_ref()?;
        if self.allowed.id_churn || self.checksum.is_none() {
            return None;
        }
        // Under the same rule no more identifiers change than specimens
        // were added, modified and deleted: the snapshot is read only when
        // those could be more than half.
        let label = Model::SpecimenRecord.label();
        let touched: usize = (changes.iter().filter(|c| c.model == label))
            .map(|c| c.added.len() + c.modified.len() + c.deleted.len())
            .sum();
        let published = (self.history.as_ref())
            .and_then(|h| h.versions.last())
            .and_then(|v| v.counts.iter().find(|(l, _)| l == label))
            .map_or(0, |(_, n)| *n as usize);
        if collection.dataset.renames_occurrences(before).is_none() && touched * 2 <= published {
            return None;
        }
        let read;
        let old = match &self.published {
            Some(old) => old,
            None => {
                read = snapshot::read(&self.path).ok()?.1;
                &read
            }
        };
        let turnover = Turnover::between(old, collection);
        turnover.churns().then(|| turnover.refusal())
    }

    /// Calls `after` with the snapshot's path once each snapshot is
    /// published (written, renamed into place and its history kept): what
    /// it does never delays the file a server swaps to.
    pub fn after_publishing(self, after: impl FnMut(&Path) + Send + 'static) -> Publisher {
        Publisher {
            after: Some(Box::new(after)),
            ..self
        }
    }

    /// Writes `dataset` into every snapshot as its description.
    pub fn describing(self, dataset: Dataset) -> Publisher {
        Publisher { dataset, ..self }
    }

    /// Describes every snapshot as `told` says, its file read again from
    /// `path` whenever that changes: the next tick then publishes a version
    /// saying what the file says now, whose changes name the dataset
    /// ([`digest::DATASET`]) where that differs. A file that no longer reads
    /// is said in the log, and the description read last stands.
    pub fn following(self, path: &Path, told: Told) -> Publisher {
        // Read again at the first tick: it may have changed since `told` was.
        let following = Following {
            path: path.to_path_buf(),
            stamp: None,
            told,
        };
        Publisher {
            dataset: following.told.over(&Dataset::default()),
            following: Some(following),
            ..self
        }
    }

    /// Applies the dataset file's sensitive places' rules to every version
    /// published (read again with the file, where it is followed).
    pub fn generalising(self, rules: Sensitive) -> Publisher {
        Publisher {
            rules_followed: self.following.is_some(),
            rules,
            ..self
        }
    }

    /// Reads the dataset file again where it changed since it was read;
    /// whether what the snapshots say of the dataset changed.
    fn reread_dataset(&mut self) -> bool {
        let Some(following) = &mut self.following else {
            return false;
        };
        let stamp = snapshot::FileStamp::of(&following.path);
        if stamp == following.stamp {
            return false;
        }
        following.stamp = stamp;
        // Taken once it stands still, whole and titled (`snapshot::described`).
        match snapshot::described::read(&following.path) {
            Ok((file, read)) => {
                following.stamp = read;
                self.status.cleared(Kind::RefusedDatasetFile);
                following.told.file = Some(file);
                let dataset = following.told.over(&Dataset::default());
                let mut changed = dataset != self.dataset;
                if self.rules_followed {
                    match Sensitive::from_file(&following.path) {
                        Ok(rules) => {
                            changed |= rules != self.rules;
                            self.rules = rules;
                        }
                        Err(e) => {
                            let said =
                                format!("{e}; the sensitive places' rules last read still apply");
                            tracing::warn!("{said}");
                            self.status.found(Kind::RefusedDatasetFile, "sync", said);
                        }
                    }
                }
                tracing::info!(
                    file = %following.path.display(),
                    changed,
                    "the dataset file was read again"
                );
                self.dataset = dataset;
                changed
            }
            Err(e) => {
                let said = format!("{e}; snapshots go on saying what it said when it last read");
                tracing::warn!("{said}");
                self.status.found(Kind::RefusedDatasetFile, "sync", said);
                false
            }
        }
    }

    /// What changed in `digest`'s collection since the snapshot at the path,
    /// the dataset's description included.
    fn changes(&self, digest: &Digest) -> Vec<history::Changes> {
        match &self.described {
            Some(described) => digest.changes_described(&self.digest, (described, &self.dataset)),
            None => digest.changes(&self.digest),
        }
    }

    /// The history of a new version with `digest`'s records: the kept one
    /// continued, or none where the path held no snapshot (the first
    /// version, as `build` writes it).
    fn next_history(
        &self,
        digest: &Digest,
        collection: &Collection,
        gone: &[(i64, String)],
    ) -> History {
        let (Some(kept), Some(checksum)) = (&self.history, self.checksum) else {
            return History::default();
        };
        let kept = match kept.versions.is_empty() {
            true => History::first(self.digest.counts()),
            false => kept.clone(),
        };
        let mut changes = self.changes(digest);
        self.name_deleted(&mut changes, gone);
        let renamed = (self.described.as_ref()).and_then(|d| self.dataset.renames_occurrences(d));
        if let Some(line) = renamed {
            tracing::warn!("{line}");
        }
        let mut next = kept.next(
            checksum,
            self.created_at,
            digest::counts(collection),
            changes,
        );
        let before = self.described.as_ref().unwrap_or(&self.dataset);
        crate::model::package_id::follow(&mut next, before, &self.dataset);
        next
    }

    /// Names the specimen records `changes` deleted by their catalogue
    /// numbers: as the edits read said them (`gone`, ascending by id), else
    /// as the collection published at the path holds them (read from the file
    /// only when a whole read found a deletion).
    fn name_deleted(&self, changes: &mut [history::Changes], gone: &[(i64, String)]) {
        let read = std::cell::OnceCell::new();
        let published = || {
            (self.published.as_ref()).or_else(|| {
                read.get_or_init(|| snapshot::read(&self.path).ok().map(|(_, c)| c))
                    .as_ref()
            })
        };
        digest::name_deleted(changes, |id| {
            match gone.binary_search_by_key(&id, |(id, _)| *id) {
                Ok(at) => Some(gone[at].1.clone()),
                Err(_) => digest::catalog_number(published()?, id),
            }
        });
    }

    /// The collection the snapshot at the path publishes, which records
    /// held back are kept as: none where nothing was published yet. A
    /// snapshot that does not read (or is gone, where a history says
    /// versions were published) fails the tick: taken for nothing
    /// published, every record held back would be published as deleted.
    fn read_published(&mut self) -> Result<Option<Collection>, Failed> {
        match snapshot::read(&self.path) {
            Ok((_, c)) => {
                self.status.cleared(Kind::DamagedSnapshot);
                Ok(Some(c))
            }
            Err(_) if self.checksum.is_none() && !self.path.exists() => Ok(None),
            Err(e) => {
                let why = match self.path.exists() {
                    true => e.to_string(),
                    false => format!("there is no snapshot at {}", self.path.display()),
                };
                let said = format!(
                    "{why}: records are held back, and what was published of them cannot be \
                     read, so nothing is published (publishing without it would publish them \
                     as deleted). Restore the snapshot from a backup (docs/operations.md), or \
                     fix the records held back in the database"
                );
                self.status
                    .found(Kind::DamagedSnapshot, "sync", said.clone());
                Err(Failed::Damaged(said))
            }
        }
    }

    /// Whether `collection`, whose records are those published, differs
    /// from the snapshot at the path only in what it holds back: encoded
    /// with what that holds back, it is that snapshot.
    fn only_held_changed(
        &self,
        collection: &mut Collection,
        history: &History,
        prepared: &[snapshot::Piece],
        now: i64,
    ) -> Result<bool, Failed> {
        if collection.held == self.holdings {
            return Ok(false);
        }
        let held = std::mem::replace(&mut collection.held, self.holdings.clone());
        let head = snapshot::encode_head(collection, history);
        collection.held = held;
        let before = snapshot::assemble(head?, prepared, now).header.checksum;
        Ok(Some(before) == self.checksum)
    }

    /// What the snapshot at the path holds back, by model and id.
    pub fn held(&self) -> &[Held] {
        &self.held
    }

    /// Where the snapshot is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Notes what the snapshot at the path now holds back, keeping the
    /// collection it publishes while that is anything; gives back the
    /// collection read, which the next tick's changes apply to.
    fn keep(
        &mut self,
        held: Vec<Held>,
        raw: Option<Collection>,
        published: Collection,
    ) -> Collection {
        self.held = held;
        self.holdings = published.held.clone();
        match raw {
            Some(raw) => {
                self.published = Some(published);
                raw
            }
            None => {
                self.published = None;
                published
            }
        }
    }

    /// Reads the database's marker and, when it moved, what changed (or the
    /// whole collection); replaces the file if the collection changed. What
    /// stands in the way (a failed tick, a refused dataset file, a damaged
    /// snapshot) is written beside the snapshot where it changed
    /// ([`snapshot::status`]).
    pub fn tick(&mut self) -> Result<Tick, Failed> {
        let result = self.tick_once();
        match &result {
            Ok(tick) => {
                self.status.cleared(Kind::FailedTick);
                if matches!(tick, Tick::Replaced { .. }) {
                    self.status.cleared(Kind::DamagedSnapshot);
                }
            }
            Err(e) => {
                self.status.failed_ticks += 1;
                let said = format!("{e}; {} left as it was", self.path.display());
                self.status.found(Kind::FailedTick, "sync", said);
            }
        }
        if self.status_written.as_ref() != Some(&self.status) {
            match snapshot::status::write(&self.path, &self.status) {
                Ok(()) => self.status_written = Some(self.status.clone()),
                Err(e) => tracing::warn!(
                    file = %snapshot::status::path(&self.path).display(),
                    "cannot say beside the snapshot how publishing stands: {e}"
                ),
            }
        }
        result
    }

    /// [`Publisher::tick`], without the status.
    fn tick_once(&mut self) -> Result<Tick, Failed> {
        // Each read before the next: an edit between two reads is in the later
        // and moves the earlier next time, so it costs one more read, never a miss.
        let commits = database::commits(&self.source);
        let described = self.reread_dataset();
        let due = |last: &Last| last.whole_at.elapsed() >= self.full_every;
        let current = |last: &Last| !due(last) && !described && self.path.exists();
        if let Some(last) = self.last.as_ref().filter(|l| current(l)) {
            if commits.is_some() && last.commits == commits {
                return Ok(Tick::Unmoved);
            }
        }
        let started = Instant::now();
        // A tick that fails reads everything the next time.
        // Each read returns the marker of its own moment, which the next starts from.
        let whole = || {
            let (checked, marker) = database::read_marked(&self.source)?;
            Ok::<_, database::DbError>((checked, marker, started, Read::Whole, None))
        };
        // The specimens the edits read dropped, with their catalogue numbers.
        let mut gone = Vec::new();
        let (mut checked, marker, whole_at, read, mut edits) =
            match self.last.take().filter(|l| !due(l)) {
                Some(last) => match changed::read(&self.source, &last.marker, &last.collection)? {
                    // The marker read with the changes has not moved: commits
                    // elsewhere (sessions, other databases of the cluster).
                    Some(delta) if delta.marker == last.marker && current(&last) => {
                        self.last = Some(Last { commits, ..last });
                        return Ok(Tick::Unmoved);
                    }
                    Some(delta) => {
                        let (marker, rows) = (delta.marker.clone(), delta.rows);
                        let changes_ms = started.elapsed().as_millis() as u64;
                        let mut collection = last.collection;
                        let mut applied = delta.apply(&mut collection);
                        gone = std::mem::take(&mut applied.deleted_catalog_numbers);
                        let applied_ms = started.elapsed().as_millis() as u64 - changes_ms;
                        let edits = applied.edited.map(|edited| Edits {
                            edited,
                            records: last.records,
                        });
                        // After a tick that held records back the collection
                        // read had errors in them alone: they are checked
                        // with the edits (or the whole, where they are not
                        // all specimens held as published).
                        let among = edits
                            .as_ref()
                            .and_then(|e| with_held(&e.edited, &self.held));
                        let checked =
                            super::check_edits(collection, applied.errors, among.as_deref());
                        tracing::debug!(changes_ms, applied_ms, "changed rows read");
                        (checked, marker, last.whole_at, Read::Changed(rows), edits)
                    }
                    None => whole()?,
                },
                None => whole()?,
            };
        let read_ms = started.elapsed().as_millis() as u64;
        checked.collection.dataset = self.dataset.clone();
        // The database's collection, where it is not what is published.
        let mut raw = None;
        let mut holding = Vec::new();
        if let Some(first) = checked.errors.first() {
            if self.published.is_none() {
                self.published = self.read_published()?;
            }
            // Held in place, where the edits and the records held are
            // specimens; else from a copy of the collection read, its
            // errors all found.
            let among = (edits.as_ref())
                .and_then(|e| with_held(&e.edited, &self.held))
                .map(|among| {
                    among
                        .into_iter()
                        .flat_map(|(_, ids)| ids)
                        .collect::<Vec<_>>()
                });
            let in_place = match (among, self.published.as_mut()) {
                (Some(among), Some(published)) => {
                    held::hold_back_among(&checked.collection, &checked.errors, published, &among)
                }
                _ => held::Among::Untold,
            };
            let held = match in_place {
                held::Among::Held(held) => Ok((self.published.take().expect("held in it"), held)),
                held::Among::Unmended(problems) => Err(problems),
                held::Among::Untold => {
                    let errors = match edits.is_some() {
                        true => validate::check(&checked.collection).errors,
                        false => checked.errors.clone(),
                    };
                    held::hold_back(&checked.collection, &errors, self.published.as_ref())
                }
            };
            match held {
                Ok((mut publish, held)) => {
                    // Held since the version that first held it: this one
                    // for a new hold (a new held list makes a new version).
                    let next = self.history.as_ref().map_or(1, |h| h.current() + 1);
                    publish.held = held::holdings(&held, &self.holdings, next);
                    raw = Some(std::mem::replace(&mut checked.collection, publish));
                    holding = held;
                }
                Err(_) => {
                    return Err(Failed::Invalid(format!(
                        "the database's collection has {} problem(s), first: {first}",
                        checked.errors.len()
                    )))
                }
            }
        }
        // Sensitive places generalised in what is published; the next tick's
        // changes apply to the collection read, which keeps them precise.
        if !self.rules.is_empty() {
            let precise = checked.collection.clone();
            sensitive::apply(&mut checked.collection, &self.rules)
                .map_err(|e| Failed::Invalid(e.to_string()))?;
            raw.get_or_insert(precise);
            edits = None;
        }
        // The pieces kept and the digest of edits hold for the records
        // published: the edits, and the records held back before and now
        // (each a specimen held as published, so that every record keeps
        // its place).
        if raw.is_some() || !self.held.is_empty() {
            let now_held = held_edits(&self.held, &holding);
            edits = match (edits, now_held) {
                (Some(mut edits), Some(ids)) => {
                    edits.add_specimens(ids);
                    Some(edits)
                }
                _ => None,
            };
        }
        let now = chrono::Utc::now().timestamp_micros();
        let t = Instant::now();
        let collection = &checked.collection;
        // The digest first: it tells the preparer what changed (the kept
        // one with the edited records hashed again, when edits are all that
        // was read). Then the prepared tables on one core, the records'
        // sections on the other.
        let edited = (edits.as_ref()).and_then(|e| self.digest.edited(collection, &e.edited));
        let records = match (&edits, &edited) {
            (Some(e), Some(_)) => Records::Edited(e.edited.iter().map(|(_, ids)| ids.len()).sum()),
            _ => Records::Whole,
        };
        let digest = edited.unwrap_or_else(|| Digest::of(collection));
        debug_assert_eq!(digest, Digest::of(collection));
        let mut preparer = self
            .prepare
            .take()
            .expect("the preparer is back after every tick");
        let digest_ms = t.elapsed().as_millis() as u64;
        let (prepared, same, mut history, head, head_ms) = std::thread::scope(|s| {
            let prepared = s.spawn(|| preparer.prepare(collection, &digest));
            // Records all equal: whether the rest is too is told by encoding with
            // the history unchanged, which gives the file already there.
            let same = digest == self.digest && self.path.exists();
            let history = match same {
                true => self.history.clone().unwrap_or_default(),
                false => self.next_history(&digest, collection, &gone),
            };
            // The records' pieces that hold no edited record are kept.
            let kept = (edits.as_ref()).map(|e| snapshot::Kept {
                records: &e.records,
                edited: &e.edited,
            });
            let head = snapshot::encode_head_beside(collection, &history, kept);
            debug_assert!(
                head.as_ref().ok() == snapshot::encode_head(collection, &history).as_ref().ok()
            );
            let head_ms = t.elapsed().as_millis() as u64 - digest_ms;
            let prepared = prepared.join().expect("preparing tables does not panic");
            (prepared, same, history, head, head_ms)
        });
        let tables = preparer.made();
        self.prepare = Some(preparer);
        let prepare_ms = t.elapsed().as_millis() as u64;
        let mut image = snapshot::assemble(head?, &prepared, now);
        if same {
            if Some(image.header.checksum) == self.checksum {
                let records = image.records().to_vec();
                let collection = self.keep(holding, raw, checked.collection);
                self.last = Some(Last {
                    commits,
                    marker,
                    whole_at,
                    records,
                    collection,
                });
                return Ok(Tick::Unchanged(read));
            }
            // The same records published, and only what is held back
            // changed (a record newly held is published as it was): no
            // version, and the file stays; the log says what is held.
            if self.only_held_changed(&mut checked.collection, &history, &prepared, now)? {
                let records = image.records().to_vec();
                let holdings = self.holdings.clone();
                let collection = self.keep(holding, raw, checked.collection);
                self.holdings = holdings;
                self.last = Some(Last {
                    commits,
                    marker,
                    whole_at,
                    records,
                    collection,
                });
                return Ok(Tick::Unchanged(read));
            }
            // The same records, and the description changed: a version too.
            history = self.next_history(&digest, &checked.collection, &gone);
            let head = snapshot::encode_head(&checked.collection, &history)?;
            image = snapshot::assemble(head, &prepared, now);
        }
        let changes = self.changes(&digest);
        if let Some(why) = self.refused(&checked.collection, &changes) {
            return Err(Failed::Invalid(why));
        }
        let encode_ms = t.elapsed().as_millis() as u64 - prepare_ms;
        let written = Instant::now();
        snapshot::write_parts_atomically(&self.path, &image.parts()).map_err(|e| {
            Failed::Unreadable(anyhow::anyhow!(
                "cannot replace {}: {e}",
                self.path.display()
            ))
        })?;
        let write_ms = written.elapsed().as_millis() as u64;
        if let Err(e) = snapshot::beside::write(&self.path, &image.header, &history) {
            tracing::warn!(
                file = %snapshot::beside::path(&self.path).display(),
                "the snapshot is published, but its history cannot be kept beside it: {e}"
            );
        }
        if let Some(after) = self.after.as_mut() {
            after(&self.path);
        }
        tracing::debug!(
            read_ms,
            prepare_ms,
            encode_ms,
            write_ms,
            digest_ms,
            head_ms,
            "published"
        );
        let header = image.header.clone();
        self.checksum = Some(header.checksum);
        self.created_at = header.created_at;
        self.digest = digest;
        self.history = Some(history);
        self.described = Some(self.dataset.clone());
        let pieces = image.records().to_vec();
        let collection = self.keep(holding, raw, checked.collection);
        self.last = Some(Last {
            commits,
            marker,
            whole_at,
            records: pieces,
            collection,
        });
        Ok(Tick::Replaced {
            checksum: header.checksum_hex(),
            version: self.history.as_ref().map_or(1, History::current),
            changes: history::summary(&changes),
            read,
            records,
            tables,
        })
    }
}

/// Says in the log what the snapshot at `at` holds back, where that is not
/// what it held back before: each record, with its rule and value, at WARN;
/// or once that nothing is held back any more.
fn say_held(before: &[Held], now: &[Held], at: &str) {
    if before == now {
        return;
    }
    if now.is_empty() {
        tracing::info!(snapshot = %at, "nothing is held back any more: every record read is published");
        return;
    }
    tracing::warn!(
        snapshot = %at,
        held = now.len(),
        "{} record(s) held back: each is served as last published (or left out, never published), and every other record is published",
        now.len()
    );
    for h in now {
        tracing::warn!(
            model = h.model.label(),
            id = h.id,
            field = %h.field,
            kept = h.kept.name(),
            "held back: {}; edit it in the service's admin, and the next tick publishes it",
            h.describe()
        );
    }
}

/// One tick, said in the log as [`run`] says it: the records held back, or
/// why the tick failed.
pub fn once(mut publisher: Publisher) -> Result<Vec<Held>, Failed> {
    let at = publisher.path.display().to_string();
    let tick = publisher.tick()?;
    if let Tick::Replaced {
        checksum,
        version,
        changes,
        read,
        records,
        tables,
    } = tick
    {
        tracing::info!(snapshot = %at, %checksum, version, %changes, %read, %records, %tables, "snapshot replaced");
    }
    say_held(&[], publisher.held(), &at);
    Ok(publisher.held)
}

/// The least time between a tick that published (or failed) and the next that
/// a SQLite commit starts.
const REST: Duration = Duration::from_secs(1);

/// Ticks every `every` until `shutdown` resolves. A tick in progress finishes (the
/// file is replaced whole or not at all) before the loop stops.
///
/// A commit to a SQLite database ([`database::watch_commits`]) starts the next
/// tick at once when the last one published nothing, and [`REST`] after one
/// that published (or failed), so that a stream of commits costs one
/// publication a second at most.
pub async fn run(publisher: Publisher, every: Duration, shutdown: impl Future<Output = ()>) {
    let mut shutdown = std::pin::pin!(shutdown);
    let committed = std::sync::Arc::new(tokio::sync::Notify::new());
    let _watcher = database::watch_commits(&publisher.source, {
        let committed = committed.clone();
        move || committed.notify_one()
    });
    let mut publisher = Some(publisher);
    let mut failures = 0u32;
    // The last failure, said when ticks succeed again.
    let mut failing: Option<Failed> = None;
    // What the log said is held back.
    let mut said: Vec<Held> = Vec::new();
    loop {
        let started = Instant::now();
        let mut s = publisher
            .take()
            .expect("the publisher is back after every tick");
        let (s, result) = tokio::task::spawn_blocking(move || {
            let result = s.tick();
            (s, result)
        })
        .await
        .expect("a tick does not panic");
        let at = s.path.display().to_string();
        let source = s.source.describe();
        if result.is_ok() && s.held() != said {
            say_held(&said, s.held(), &at);
            said = s.held().to_vec();
        }
        publisher = Some(s);
        let ms = started.elapsed().as_millis() as u64;
        let idle = matches!(result, Ok(Tick::Unmoved | Tick::Unchanged(_)));
        let ended = tokio::time::Instant::now();
        let delay = match result {
            Ok(tick) => {
                match failing.take() {
                    Some(Failed::Unreadable(_)) => {
                        tracing::info!(%source, failures, "the database reads again")
                    }
                    Some(Failed::Invalid(_)) => {
                        tracing::info!(%source, failures, "the database's collection is valid again")
                    }
                    Some(Failed::Damaged(_)) => {
                        tracing::info!(%source, failures, "publishing again")
                    }
                    None => {}
                }
                failures = 0;
                match tick {
                    Tick::Unmoved => tracing::debug!(ms, "unmoved"),
                    Tick::Unchanged(read) => tracing::debug!(%read, ms, "read, unchanged"),
                    Tick::Replaced {
                        checksum,
                        version,
                        changes,
                        read,
                        records,
                        tables,
                    } => {
                        tracing::info!(snapshot = %at, %checksum, version, %changes, %read, %records, %tables, ms, "snapshot replaced")
                    }
                }
                every
            }
            Err(e) => {
                failures += 1;
                let backoff = Duration::from_secs(1 << (failures - 1).min(16)).min(every);
                tracing::warn!(%source, retry_in = ?backoff, "{e}; {at} left as it was");
                failing = Some(e);
                backoff
            }
        };
        let woken = async {
            committed.notified().await;
            if !idle {
                tokio::time::sleep_until(ended + REST.min(delay)).await;
            }
        };
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            () = woken => {}
            () = &mut shutdown => break,
        }
    }
    tracing::info!("sync stopped");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals() {
        assert_eq!(parse_interval("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_interval("60"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_interval("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_interval("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_interval("500ms"), Ok(Duration::from_millis(500)));
        for bad in ["", "s", "-1s", "10x", "1.5s", "10ms"] {
            assert!(parse_interval(bad).is_err(), "{bad}");
        }
    }
}
