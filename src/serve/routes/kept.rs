//! A kept version's files (`/versions/N/dwca.zip`, `/versions/N/eml.xml`):
//! the archive and `eml.xml` the version published, read from the versions'
//! folder beside the snapshot (`snapshot::kept`) as they were written, the
//! archive sent in pieces as the client reads it. A version never published
//! is not found (404); one published whose files are no longer kept is gone
//! (410), and the answer names the versions kept. A version's folder is
//! checked before it is served: its manifest must be this history's version
//! (`snapshot::verified::belongs`), and the file the bytes it names (size and
//! SHA-256, once per file stamp); else 410 naming why, counted as damage in
//! `/metrics` (`catalogue_damaged_kept_files_total`). Gone, not 5xx: the
//! bytes are not the version's and will not be until an operator restores
//! them, and another history's folder is never this one's; a retry cannot
//! help, and a harvester should not take an error of the server's for it.
//! A version withdrawn because a sensitive places' rule came after it
//! (`snapshot::kept::withdraw`) is gone too, and the answer says why.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;

use crate::model::history::History;
use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind, Modified};
use crate::serve::descriptors::{self, Held};
use crate::serve::media_files::pieces;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::state::State;
use crate::snapshot::kept::{self, Manifest};
use crate::snapshot::verified;

use super::versions::kept as kept_numbers;

/// How long a browser or cache keeps a kept file: a day (a version's files
/// change only if it is built again with other links).
const CACHE: &str = "public, max-age=86400";

/// `/versions/N/dwca.zip`.
pub fn archive(ctx: Ctx<'_>) -> Parsed<'_> {
    let (dir, number) = asked(&ctx)?;
    // Its file is held open while the client reads: a descriptor of the
    // client's share (`serve::descriptors`).
    let held = (ctx.state.descriptors.take(ctx.asked.peer, 1))
        .map_err(|e| Answer::error(&e).retry_after(descriptors::RETRY_SECONDS))?;
    let (state, history) = (ctx.state.clone(), ctx.served.view.history.clone());
    Ok(Job::awaited(async move {
        match read(&state, history, dir, number, kept::ARCHIVE, &held).await {
            Ok((manifest, file)) => send_archive(manifest, file, held),
            Err(answer) => answer,
        }
    }))
}

/// `/versions/N/eml.xml`.
pub fn eml(ctx: Ctx<'_>) -> Parsed<'_> {
    let (dir, number) = asked(&ctx)?;
    let held = (ctx.state.descriptors.take(ctx.asked.peer, 1))
        .map_err(|e| Answer::error(&e).retry_after(descriptors::RETRY_SECONDS))?;
    let (state, history) = (ctx.state.clone(), ctx.served.view.history.clone());
    Ok(Job::awaited(async move {
        let (manifest, file) = match read(&state, history, dir, number, kept::EML, &held).await {
            Ok(found) => found,
            Err(answer) => return answer,
        };
        let read = tokio::task::spawn_blocking(move || {
            let modified = Modified::of(&file.metadata()?);
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut &file, &mut bytes)?;
            Ok::<_, std::io::Error>((bytes, modified))
        })
        .await;
        match (read, tag(&manifest, kept::EML)) {
            (Ok(Ok((bytes, modified))), Some(tag)) => {
                Answer::tagged(Kind::Xml, Bytes::from(bytes), tag, Some(CACHE)).modified(modified)
            }
            (Ok(Err(e)), _) if descriptors::out_of_descriptors(&e) => no_descriptor(&held),
            _ => unreadable(number),
        }
    }))
}

/// The versions' folder and the version asked for: 404 for a number that is
/// not a version published, 410 for one whose files are no longer kept.
fn asked(ctx: &Ctx<'_>) -> Result<(PathBuf, u64), Box<Answer>> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some((name, _)) = params.0.first() {
        let e = ApiError::bad_request(format!(
            "a kept version's files take no parameters, not {name}"
        ));
        return Err(Answer::error(&e).into());
    }
    let raw = ctx.id()?;
    let history = &ctx.served.view.history;
    let current = history.current();
    let number = crate::encoding::whole::canonical(raw).filter(|n| (1..=current).contains(n));
    let Some(number) = number else {
        let e = ApiError {
            status: 404,
            message: format!("no version {raw}: the versions published are 1 to {current}"),
        };
        return Err(Answer::error(&e).into());
    };
    let kept = kept_numbers(ctx);
    let dir = ctx.state.settings.versions_dir.clone();
    match dir.filter(|_| kept.binary_search(&number).is_ok()) {
        Some(dir) => Ok((dir, number)),
        None => Err(Answer::error(&gone(number, &kept)).into()),
    }
}

/// Why version `number`'s files are not served, naming those that are.
fn gone(number: u64, kept: &[u64]) -> ApiError {
    let kept = match kept {
        [] => "none is kept (the current version's are at /dwca.zip and /eml.xml)".to_string(),
        [only] => format!("version {only}'s are kept"),
        [first, .., last] if (last - first) as usize + 1 == kept.len() => {
            format!("versions {first} to {last}'s are kept")
        }
        many => format!(
            "versions {}'s are kept",
            many.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    ApiError {
        status: 410,
        message: format!("Gone: version {number}'s archive and eml.xml are no longer kept; {kept}"),
    }
}

/// What reading a kept file found.
enum Found {
    /// The version's manifest, and its file opened and checked.
    File(Manifest, std::fs::File),
    /// No manifest: removed between the listing and the read (a
    /// retention's pruning).
    Gone,
    /// Not the version's: why.
    Damaged(String),
    /// Withdrawn by its publisher (a sensitive places' rule came after
    /// it: `snapshot::kept::withdraw`): why.
    Withdrawn(String),
    /// Not read for want of a descriptor: neither gone nor damaged.
    NoDescriptor,
    /// Not read (an I/O error).
    Unreadable(String),
}

/// The manifest of version `number` and its file `name`, opened, read off
/// the async workers: the manifest checked against `history` (this
/// history's version, not another's of that number) and the file against
/// the manifest (its size, and its SHA-256 once per file stamp:
/// [`verified::open`]). A file that is not the version's is not served
/// as it: 410, naming why, counted in `/metrics` and logged.
async fn read(
    state: &State,
    history: Arc<History>,
    dir: PathBuf,
    number: u64,
    name: &'static str,
    held: &Held,
) -> Result<(Manifest, std::fs::File), Answer> {
    let found = tokio::task::spawn_blocking(move || {
        let Some(manifest) = kept::manifest(&dir, number) else {
            return Found::Gone;
        };
        if manifest.version != number || !verified::belongs(&manifest, &history) {
            return Found::Damaged(format!(
                "{}'s manifest names version {} of another history (the snapshot {}), not this \
                 history's",
                kept::folder(&dir, number).display(),
                manifest.version,
                manifest.checksum
            ));
        }
        if !manifest.withdrawn.is_empty() {
            return Found::Withdrawn(manifest.withdrawn);
        }
        let Some(want) = manifest.files.get(name) else {
            return Found::Damaged(format!(
                "{}'s manifest names no {name}",
                kept::folder(&dir, number).display()
            ));
        };
        match verified::open(&kept::folder(&dir, number).join(name), want) {
            Ok(file) => Found::File(manifest, file),
            Err(e) if e.is_damage() => Found::Damaged(e.to_string()),
            Err(verified::Damage::Unreadable { cause, .. })
                if descriptors::out_of_descriptors(&cause) =>
            {
                Found::NoDescriptor
            }
            Err(e) => Found::Unreadable(e.to_string()),
        }
    })
    .await;
    match found {
        Ok(Found::File(manifest, file)) => Ok((manifest, file)),
        Ok(Found::Damaged(why)) => {
            state
                .metrics
                .damaged_kept_files
                .fetch_add(1, Ordering::Relaxed);
            tracing::error!(
                version = number,
                "{why}: not served as the version; restore the folder from a backup, or remove \
                 it and publish the version again"
            );
            Err(Answer::error(&ApiError {
                status: 410,
                message: format!(
                    "Gone: version {number}'s kept {name} is not the version's (it does not \
                     read as its manifest says, or its folder is another history's); the \
                     current version's files are at /dwca.zip and /eml.xml"
                ),
            }))
        }
        Ok(Found::Withdrawn(why)) => Err(Answer::error(&ApiError {
            status: 410,
            message: format!(
                "Gone: version {number}'s archive and eml.xml are {why}; the current \
                 version's files are at /dwca.zip and /eml.xml"
            ),
        })),
        Ok(Found::NoDescriptor) => Err(no_descriptor(held)),
        Ok(Found::Unreadable(why)) => {
            tracing::error!(version = number, "{why}");
            Err(unreadable(number))
        }
        Ok(Found::Gone) | Err(_) => Err(Answer::error(&gone(number, &[]))),
    }
}

/// The tag of a kept file: as `/dwca.zip` tags the same bytes (the first
/// half of their SHA-256).
fn tag(manifest: &Manifest, name: &str) -> Option<String> {
    let sha = &manifest.files.get(name)?.sha256;
    Some(format!("\"{}\"", sha.get(..32)?))
}

/// A kept archive whose file does not read, or is not the size its
/// manifest says.
fn unreadable(number: u64) -> Answer {
    tracing::error!(
        version = number,
        "a kept version's file does not read as its manifest says"
    );
    Answer::error(&ApiError {
        status: 500,
        message: format!("version {number}'s kept files do not read as their manifest says"),
    })
}

/// A kept file not opened for want of descriptors: 503, counted, not a
/// damage alarm.
fn no_descriptor(held: &Held) -> Answer {
    Answer::error(&held.out()).retry_after(descriptors::RETRY_SECONDS)
}

/// The archive `file` (checked: [`read`]), sent in pieces, its descriptor
/// `held` in the client's share until the last piece is sent.
fn send_archive(manifest: Manifest, file: std::fs::File, held: Held) -> Answer {
    let number = manifest.version;
    let (Some(want), Some(tag)) = (
        manifest.files.get(kept::ARCHIVE).map(|f| f.bytes),
        tag(&manifest, kept::ARCHIVE),
    ) else {
        return unreadable(number);
    };
    let modified = file.metadata().map(|meta| Modified::of(&meta));
    let answer = Answer::file(
        Kind::Zip,
        Box::pin(pieces(file, want, held)),
        want,
        tag,
        CACHE,
    );
    match modified {
        Ok(modified) => answer.modified(modified),
        Err(_) => answer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gone_names_the_versions_kept() {
        let said = |kept: &[u64]| gone(1, kept).message;
        let head = "Gone: version 1's archive and eml.xml are no longer kept; ";
        assert_eq!(
            said(&[]),
            format!("{head}none is kept (the current version's are at /dwca.zip and /eml.xml)")
        );
        assert_eq!(said(&[4]), format!("{head}version 4's are kept"));
        assert_eq!(
            said(&[2, 3, 4]),
            format!("{head}versions 2 to 4's are kept")
        );
        assert_eq!(said(&[2, 5]), format!("{head}versions 2, 5's are kept"));
        assert_eq!(gone(1, &[]).status, 410);
    }
}
