//! Hot reload: watch the snapshot file and swap in a new view when it changes.
//!
//! A reload runs on its own thread, off the request path: the new file's header
//! is read first (a file holding the served collection builds nothing), then the
//! file is read, checked and decoded; the served view makes way for an interim
//! copy of itself that holds only what the new view shares with it (the same
//! answers, less memory) while the new view is rendered, which is then published
//! with one `ArcSwap` store. Requests already running keep the view they loaded;
//! a replaced view is freed on a thread of its own once nothing holds it, while
//! the reload thread goes on to the next change. A file that fails any check
//! never replaces the served view.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::model::dataset::Told;
use crate::snapshot::status::Kind;
use crate::snapshot::{FileStamp, PiecesRead, SnapshotError};
use crate::view::{LoadError, View};

use super::memory;
use super::state::{Served, State};

/// Quiet time after the last file event before a reload starts: one copy makes
/// several events. A file renamed onto the path (how `sync` and `build` write)
/// is whole already and is read at once.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// How long a file shorter than its header announces is given to grow before it
/// counts as a failed reload: it may still be being written.
const GRACE: Duration = Duration::from_secs(2);

/// Why a reload starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The file (or its directory entry) changed.
    Changed,
    /// A file was renamed onto the path: written whole beside it first.
    Renamed,
    /// SIGHUP, or a caller: reload the same path now.
    Forced,
    /// The dataset file (`--dataset-config`) changed.
    Described,
}

/// A running reloader; dropping it stops watching and ends its thread.
pub struct Reloader {
    tx: Sender<Trigger>,
    _watchers: Vec<notify::RecommendedWatcher>,
}

impl Reloader {
    /// Starts the reload thread, watching `path`'s directory when `watch` is set.
    pub fn start(state: Arc<State>, path: &Path, watch: bool) -> notify::Result<Reloader> {
        let (tx, rx) = mpsc::channel();
        let mut watchers = Vec::new();
        if watch {
            watchers.push(watch_file(path, tx.clone(), Trigger::Changed)?);
            if let Some(dataset) = &state.settings.dataset_file {
                watchers.push(watch_file(dataset, tx.clone(), Trigger::Described)?);
            }
        }
        let path = path.to_path_buf();
        std::thread::Builder::new()
            .name("reload".into())
            .spawn(move || run(&state, &path, &rx))
            .map_err(|e| notify::Error::generic(&e.to_string()))?;
        Ok(Reloader {
            tx,
            _watchers: watchers,
        })
    }

    /// Asks for a reload of the same path (what SIGHUP does).
    pub fn force(&self) {
        let _ = self.tx.send(Trigger::Forced);
    }

    /// A handle that can ask for reloads from elsewhere (a signal task).
    pub fn trigger(&self) -> Sender<Trigger> {
        self.tx.clone()
    }
}

/// Watches the directory, not the file: an atomic rename onto the path replaces
/// the inode a file watch would follow. A change of the file is told as
/// `changed` (a rename onto it as [`Trigger::Renamed`], where `changed` is
/// [`Trigger::Changed`]).
fn watch_file(
    path: &Path,
    tx: Sender<Trigger>,
    changed: Trigger,
) -> notify::Result<notify::RecommendedWatcher> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_os_string());
    let mut watcher =
        notify::recommended_watcher(move |event: notify::Result<notify::Event>| match event {
            Ok(event) => {
                use notify::event::{EventKind, ModifyKind, RenameMode};
                let ours = |p: &PathBuf| p.file_name() == name.as_deref();
                let onto = matches!(
                    event.kind,
                    EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
                );
                if onto && changed == Trigger::Changed && event.paths.last().is_some_and(ours) {
                    let _ = tx.send(Trigger::Renamed);
                } else if event.paths.iter().any(ours) && !event.kind.is_access() {
                    let _ = tx.send(changed);
                }
            }
            Err(e) => tracing::warn!(error = %e, "file watch error"),
        })?;
    watcher.watch(&dir, RecursiveMode::NonRecursive)?;
    Ok(watcher)
}

/// Waits until no trigger has come for `DEBOUNCE`; false when the channel closed.
fn settle(rx: &Receiver<Trigger>) -> bool {
    loop {
        match rx.recv_timeout(DEBOUNCE) {
            Ok(_) => continue,
            Err(RecvTimeoutError::Timeout) => return true,
            Err(RecvTimeoutError::Disconnected) => return false,
        }
    }
}

fn run(state: &State, path: &Path, rx: &Receiver<Trigger>) {
    let mut checked = Checked::default();
    let dataset = state.settings.dataset_file.as_deref();
    while let Ok(trigger) = rx.recv() {
        if trigger == Trigger::Described {
            if !settle(rx) {
                return;
            }
            if let Some(dataset) = dataset {
                redescribe(state, path, dataset);
            }
            continue;
        }
        match trigger {
            Trigger::Changed if !settle(rx) => return,
            // What came with the rename is read with it.
            Trigger::Renamed => while rx.try_recv().is_ok() {},
            _ => {}
        }
        let mut attempt = reload(state, path, &mut checked);
        // A short file may be mid-write: wait for the writer rather than failing.
        let deadline = Instant::now() + GRACE;
        while is_short(&attempt) && Instant::now() < deadline {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(_) => {
                    if !settle(rx) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            attempt = reload(state, path, &mut checked);
        }
        if let Err(e) = attempt {
            state.metrics.failed_reloads.fetch_add(1, Ordering::Relaxed);
            tracing::error!(snapshot = %path.display(), "reload failed, still serving the previous view: {e}");
            state.trouble(
                Kind::DamagedSnapshot,
                Some(format!("{e}; still serving the previous view")),
            );
            // What reading the refused file took goes back now, not when
            // the allocator next gets round to it (an idle server: never).
            memory::give_back();
        }
    }
}

fn is_short(attempt: &Result<(), LoadError>) -> bool {
    matches!(
        attempt,
        Err(LoadError::Snapshot(SnapshotError::Length { expected, found, .. })) if found < expected
    )
}

/// Loads the view of the snapshot at `path` as the server does: with huge pages
/// off while it is built (see [`memory`]), sharing the columns and rendered
/// bytes that did not change with the view it will replace, if any.
pub fn load(path: &Path, served: Option<&View>) -> Result<View, LoadError> {
    memory::without_huge_pages(|| View::load_beside(path, served))
}

/// Builds the view of the snapshot at `path` to replace the served one: decoded,
/// its unchanged columns taken from the served view (unread, where the file
/// says they are the same: [`View::decode_beside`]), which then makes way for
/// an interim view of itself without what it built on use (its indexes, sort
/// orders, downloads' rows, compressed answers) but what the new view shares,
/// so that memory is free before the new lists are written beside the served
/// ones. `None` when the file holds the served collection.
fn build_next(state: &State, path: &Path) -> Result<Option<View>, LoadError> {
    memory::without_huge_pages(|| {
        let served = state.current();
        let mut decoded = View::decode_beside(path, Some(&served.view))?;
        if decoded.header.checksum == served.view.header.checksum {
            return Ok(None);
        }
        decoded.share_unchanged(&served.view);
        let interim = served.view.interim(&decoded);
        let replaced = state.make_way(interim);
        drop(served);
        release(replaced, state.settings.view_hold);
        let interim = state.current();
        Ok(Some(decoded.assemble(Some(&interim.view))))
    })
}

/// What the reload thread knows of the file at its path: the identity of
/// the one whose pieces it last checked, whole.
#[derive(Default)]
struct Checked(Option<FileStamp>);

/// Reads the file's header and, when its checksum differs from the served
/// view's, loads the file and swaps it in. A file whose header names the
/// served collection builds nothing: where it is another file than the one
/// last checked (changed in place, or another renamed onto the path), its
/// every piece is checked first, so that damage is said now (an ERROR, and
/// `catalogue_damaged_snapshots_total`) rather than when a restart refuses
/// it; the served view stays either way. Touching the same file again costs a
/// 60-byte read.
fn reload(state: &State, path: &Path, checked: &mut Checked) -> Result<(), LoadError> {
    let header = crate::snapshot::peek(path)?;
    let served = state.current().view.header.checksum;
    if header.checksum == served {
        state
            .metrics
            .unchanged_reloads
            .fetch_add(1, Ordering::Relaxed);
        let stamp = FileStamp::of(path);
        if stamp.is_some() && stamp == checked.0 {
            tracing::info!(checksum = %header.checksum_hex(), "snapshot unchanged (its header names the served checksum), nothing built");
            return Ok(());
        }
        let started = Instant::now();
        let then = "still serving the view loaded before, but a restart would refuse this file: publish it again";
        if check_whole(state, path, checked, then) {
            tracing::info!(
                checksum = %header.checksum_hex(),
                check_ms = started.elapsed().as_millis() as u64,
                "snapshot unchanged (its header names the served checksum), every piece checked, nothing built"
            );
        }
        return Ok(());
    }
    let Some(view) = build_next(state, path)? else {
        tracing::info!(checksum = %header.checksum_hex(), "snapshot unchanged, view kept");
        return Ok(());
    };
    let mut view = view;
    let read = view.pieces_read.take();
    let (checksum, build, phases) = (view.header.checksum_hex(), view.build_time, view.phases);
    let counts = view.describe_counts();
    let old = state.swap(view);
    state.trouble(Kind::DamagedSnapshot, None);
    state.metrics.reloads.fetch_add(1, Ordering::Relaxed);
    state
        .metrics
        .loaded_at
        .store(chrono::Utc::now().timestamp(), Ordering::Relaxed);
    tracing::info!(
        old_checksum = %old.view.header.checksum_hex(),
        new_checksum = %checksum,
        build_ms = build.as_millis() as u64,
        phases = %phases,
        counts = %counts,
        "view swapped"
    );
    release(old, state.settings.view_hold);
    // What the view did not read (the records, the columns it kept from the
    // view it replaced), checked now that it is served.
    let then = "the view served was read from its sound pieces, but a restart, `sync` or `build --previous` would refuse this file: publish it again";
    check_rest(state, path, checked, then, read.as_ref());
    Ok(())
}

/// Checks every piece of the file at `path`, which `checked` then names:
/// damage is counted and said (an ERROR naming the piece, then `then`: what
/// it means here). Whether the file is sound.
fn check_whole(state: &State, path: &Path, checked: &mut Checked, then: &str) -> bool {
    check_rest(state, path, checked, then, None)
}

/// [`check_whole`], but for the pieces `read` found sound where the file is
/// still the one they were read from.
fn check_rest(
    state: &State,
    path: &Path,
    checked: &mut Checked,
    then: &str,
    read: Option<&PiecesRead>,
) -> bool {
    *checked = Checked(FileStamp::of(path));
    match crate::snapshot::check_unread(path, read) {
        Ok(()) => {
            state.trouble(Kind::DamagedSnapshot, None);
            true
        }
        Err(e) => {
            state
                .metrics
                .damaged_snapshots
                .fetch_add(1, Ordering::Relaxed);
            tracing::error!(snapshot = %path.display(), "{e}; {then}");
            state.trouble(Kind::DamagedSnapshot, Some(format!("{e}; {then}")));
            false
        }
    }
}

/// Reads the dataset file again and, where what it says changed, serves
/// the snapshot again saying it (built beside the served view, which it
/// shares everything with). A file that does not read is an ERROR, and what
/// was read last stands. The file is read once it stands still (a second):
/// the watcher's debounce is for the events of one write, this for a
/// writer's several.
fn redescribe(state: &State, path: &Path, dataset: &Path) {
    // Taken once it stands still, whole and titled (`snapshot::described`).
    let file = match crate::snapshot::described::read(dataset) {
        Ok((file, _)) => file,
        Err(e) => {
            let said = format!("{e}; still saying what it said when it last read");
            tracing::error!("{said}");
            state.trouble(Kind::RefusedDatasetFile, Some(said));
            return;
        }
    };
    state.trouble(Kind::RefusedDatasetFile, None);
    let before = state.told();
    if before.file.as_ref() == Some(&file) {
        tracing::info!(file = %dataset.display(), "the dataset file was read again: it says what it said");
        return;
    }
    let told = Told {
        file: Some(file),
        ..(*before).clone()
    };
    let served = state.current();
    let view = match load(path, Some(&served.view)) {
        Ok(view) => view,
        Err(e) => {
            state.metrics.failed_reloads.fetch_add(1, Ordering::Relaxed);
            tracing::error!(snapshot = %path.display(), "the dataset file changed, but the snapshot does not load: {e}");
            return;
        }
    };
    drop(served);
    state.redescribe(told);
    let old = state.swap(view);
    state.metrics.reloads.fetch_add(1, Ordering::Relaxed);
    tracing::info!(file = %dataset.display(), "the dataset file changed: view swapped, saying what it says now");
    release(old, state.settings.view_hold);
}

/// Frees the old view once the requests still reading it are done, on a
/// thread of its own: the reload thread takes the next change at once, and the
/// memory is freed off the request path (freeing gigabytes on an async worker
/// would stall its requests). Streamed answers still reading it after `hold`
/// have their lease revoked (they end at their next chunk), so at most two
/// views stay resident for long; every other answer gives it up with its request.
fn release(old: Arc<Served>, hold: Duration) {
    let spawned = std::thread::Builder::new()
        .name("release".into())
        .spawn(move || {
            let started = Instant::now();
            while Arc::strong_count(&old) > 1 {
                // Again each time: a request that loaded the view just before
                // the swap may start streaming from it later.
                if started.elapsed() >= hold {
                    let cut = old.revoke_leases();
                    if cut > 0 {
                        tracing::warn!(
                            answers = cut,
                            ?hold,
                            "streamed answers still read the replaced view: cut, so it can be freed"
                        );
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            drop(old);
            memory::give_back();
            tracing::info!(
                waited_ms = started.elapsed().as_millis() as u64,
                "replaced view freed"
            );
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start a thread to free the replaced view; it is freed by its last reader");
    }
}
