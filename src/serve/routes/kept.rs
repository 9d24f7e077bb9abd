//! A kept version's files (`/versions/N/dwca.zip`, `/versions/N/eml.xml`):
//! the archive and `eml.xml` the version published, read from the versions'
//! folder beside the snapshot (`snapshot::kept`) as they were written, the
//! archive sent in pieces as the client reads it. A version never published
//! is not found (404); one published whose files are no longer kept is gone
//! (410), and the answer names the versions kept.

use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
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
    Ok(Job::awaited(async move {
        match read(dir, number, kept::ARCHIVE).await {
            Ok((manifest, path)) => send_archive(manifest, path).await,
            Err(answer) => answer,
        }
    }))
}

/// `/versions/N/eml.xml`.
pub fn eml(ctx: Ctx<'_>) -> Parsed<'_> {
    let (dir, number) = asked(&ctx)?;
    Ok(Job::awaited(async move {
        let (manifest, path) = match read(dir, number, kept::EML).await {
            Ok(found) => found,
            Err(answer) => return answer,
        };
        let read = tokio::task::spawn_blocking(move || std::fs::read(path)).await;
        match (read, tag(&manifest, kept::EML)) {
            (Ok(Ok(bytes)), Some(tag)) => {
                Answer::tagged(Kind::Xml, Bytes::from(bytes), tag, Some(CACHE))
            }
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
    let number = raw
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=current).contains(n) && raw.bytes().all(|b| b.is_ascii_digit()));
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
) -> Result<(Manifest, PathBuf), Answer> {
    let found = tokio::task::spawn_blocking(move || {
        let manifest = kept::manifest(&dir, number)?;
        Some((manifest, kept::folder(&dir, number).join(name)))
    })
    .await;
    match found {
        Ok(Some(found)) => Ok(found),
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
async fn send_archive(manifest: Manifest, path: PathBuf) -> Answer {
    let number = manifest.version;
    let Some(want) = manifest.files.get(kept::ARCHIVE).map(|f| f.bytes) else {
        return unreadable(number);
    };
    let opened = tokio::task::spawn_blocking(move || {
        let file = std::fs::File::open(Path::new(&path))?;
        let len = file.metadata()?.len();
        Ok::<_, std::io::Error>((file, len))
    })
    .await;
    match (opened, tag(&manifest, kept::ARCHIVE)) {
        (Ok(Ok((file, len))), Some(tag)) if len == want => {
            Answer::file(Kind::Zip, Box::pin(pieces(file, len)), len, tag, CACHE)
        }
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
