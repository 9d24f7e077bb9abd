//! `sync`'s keeper: a thread that keeps, oldest first, the versions `sync`
//! publishes, each from the snapshot held as it was published (the waiting
//! room, [`snapshot::kept::hold`]), after those a stopped `sync` left
//! waiting; the next tick never waits for an archive.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::snapshot;

use super::Publication;

/// How many published snapshots may wait for their versions to be kept: past
/// it (edits published faster than archives are made, for long), the oldest
/// waiting are not kept, and the log says which.
const MOST_WAITING: usize = 16;

/// Starts the thread keeping the versions published at `at`, and gives what
/// the publisher hands each published snapshot to.
pub fn start(
    at: &Path,
    publication: &Publication,
) -> anyhow::Result<impl FnMut(&Path) + Send + 'static> {
    let (publish, published) = std::sync::mpsc::channel::<PathBuf>();
    let (snapshot, publication) = (at.to_path_buf(), publication.clone());
    std::thread::Builder::new()
        .name("keep-versions".into())
        .spawn(move || {
            let mut queue = VecDeque::new();
            loop {
                if queue.is_empty() {
                    match published.recv() {
                        Ok(path) => queue.push_back(path),
                        Err(_) => break,
                    }
                }
                queue.extend(published.try_iter());
                while queue.len() > MOST_WAITING {
                    let dropped = queue.pop_front().expect("more than one");
                    tracing::warn!(
                        snapshot = %dropped.display(),
                        "{MOST_WAITING} published versions wait for their archives: the oldest \
                         is not kept (edits are published faster than archives are made)"
                    );
                    if dropped != snapshot {
                        let _ = std::fs::remove_file(&dropped);
                    }
                }
                if let Some(file) = queue.pop_front() {
                    publication.keep_logged(&snapshot, &file);
                }
            }
        })
        .context("cannot start the thread that keeps versions")?;
    for waiting in snapshot::kept::waiting(at) {
        let _ = publish.send(waiting);
    }
    let at = at.to_path_buf();
    Ok(move |path: &Path| {
        let held = snapshot::peek(path)
            .map_err(|e| e.to_string())
            .and_then(|header| {
                snapshot::kept::hold(path, header.created_at).map_err(|e| e.to_string())
            });
        let file = held.unwrap_or_else(|e| {
            tracing::warn!(
                snapshot = %at.display(),
                "cannot hold the published snapshot until its version is kept ({e}): \
                 it is kept if nothing replaces it first"
            );
            path.to_path_buf()
        });
        let _ = publish.send(file);
    })
}
