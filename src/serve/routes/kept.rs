//! A kept version's files (`/versions/N/dwca.zip`, `/versions/N/eml.xml`):
//! the archive and `eml.xml` the version published, read from the versions'
//! folder beside the snapshot (`snapshot::kept`) as they were written, the
//! archive sent in pieces as the client reads it. A version never published
//! is not found (404); one published whose files are no longer kept is gone
//! (410), and the answer names the versions kept.

use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind, Modified};
use crate::serve::descriptors::{self, Held};
use crate::serve::media_files::pieces;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::snapshot::kept::{self, Manifest};

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
    Ok(Job::awaited(async move {
        match read(dir, number, kept::ARCHIVE, &held).await {
            Ok((manifest, path)) => send_archive(manifest, path, held).await,
            Err(answer) => answer,
        }
    }))
}

/// `/versions/N/eml.xml`.
pub fn eml(ctx: Ctx<'_>) -> Parsed<'_> {
    let (dir, number) = asked(&ctx)?;
    let held = (ctx.state.descriptors.take(ctx.asked.peer, 1))
        .map_err(|e| Answer::error(&e).retry_after(descriptors::RETRY_SECONDS))?;
    Ok(Job::awaited(async move {
        let (manifest, path) = match read(dir, number, kept::EML, &held).await {
            Ok(found) => found,
            Err(answer) => return answer,
        };
        let read = tokio::task::spawn_blocking(move || {
            let mut file = std::fs::File::open(path)?;
            let modified = Modified::of(&file.metadata()?);
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes)?;
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

/// The manifest of version `number` and the path of its file `name`, read
/// off the async workers.
async fn read(
    dir: PathBuf,
    number: u64,
    name: &'static str,
    held: &Held,
) -> Result<(Manifest, PathBuf), Answer> {
    let found = tokio::task::spawn_blocking(move || {
        let manifest = kept::manifest(&dir, number)?;
        Some((manifest, kept::folder(&dir, number).join(name)))
    })
    .await;
    match found {
        Ok(Some(found)) => Ok(found),
        // Not read for want of a descriptor: neither gone nor damaged.
        Ok(None) if descriptors::none_left() => Err(no_descriptor(held)),
        // Removed between the listing and the read (a retention's pruning).
        _ => Err(Answer::error(&gone(number, &[]))),
    }
}

/// The tag of a kept file: as `/dwca.zip` tags the same bytes (the first
/// half of their SHA-256).
fn tag(manifest: &Manifest, name: &str) -> Option<String> {
    let sha = &manifest.files.get(name)?.sha256;
    Some(format!("\"{}\"", sha.get(..32)?))
}

/// A kept file not opened for want of descriptors: 503, counted, not a
/// damage alarm.
fn no_descriptor(held: &Held) -> Answer {
    Answer::error(&held.out()).retry_after(descriptors::RETRY_SECONDS)
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

/// The archive at `path`, sent in pieces, if it is the size its manifest says.
async fn send_archive(manifest: Manifest, path: PathBuf, held: Held) -> Answer {
    let number = manifest.version;
    let Some(want) = manifest.files.get(kept::ARCHIVE).map(|f| f.bytes) else {
        return unreadable(number);
    };
    let opened = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(Path::new(&path))?;
        let meta = file.metadata()?;
        Ok::<_, std::io::Error>((file, meta.len(), Modified::of(&meta)))
    })
    .await;
    match (opened, tag(&manifest, kept::ARCHIVE)) {
        (Ok(Ok((file, len, modified))), Some(tag)) if len == want => {
            let body = Box::pin(pieces(file, len, held));
            Answer::file(Kind::Zip, body, len, tag, CACHE).modified(modified)
        }
        (Ok(Err(e)), _) if descriptors::out_of_descriptors(&e) => no_descriptor(&held),
        _ => unreadable(number),
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
