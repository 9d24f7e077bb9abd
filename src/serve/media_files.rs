//! The media files themselves, under `/media/`, from `--media-dir` (Django's
//! `MEDIA_ROOT`): so one server shows the collection's photographs without a
//! web server beside it. Only images are served (a same-origin HTML or SVG file
//! could run script under the pages' origin); a path that climbs out of the
//! directory is not found.

use std::path::{Component, Path, PathBuf};

use bytes::Bytes;

use crate::encoding::percent::percent_decode;

use super::answer::{Answer, Kind};
use super::compress::Coding;

/// Where media URLs are served when the server serves them.
pub const PREFIX: &str = "/media/";

/// How long a browser keeps a media file: an hour, as a file may be replaced
/// under the same name.
const CACHE: &str = "public, max-age=3600";

/// The content type of an image file, by its extension; `None` for any other file.
fn image_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        _ => return None,
    })
}

/// The file a request path names inside `dir`, if it names one without leaving it.
fn file(dir: &Path, path: &str) -> Option<PathBuf> {
    let relative = percent_decode(path.strip_prefix(PREFIX)?, false);
    if relative.contains('\0') || relative.contains('\\') {
        return None;
    }
    let relative = Path::new(relative.as_ref());
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (plain && relative.components().next().is_some()).then(|| dir.join(relative))
}

/// The answer for a path under `/media/`.
pub async fn answer(dir: Option<&Path>, path: &str) -> Answer {
    let Some(file) = dir.and_then(|dir| file(dir, path)) else {
        return Answer::not_found();
    };
    let Some(content_type) = image_type(&file) else {
        return Answer::not_found();
    };
    let (Ok(meta), Ok(bytes)) = (
        tokio::fs::metadata(&file).await,
        tokio::fs::read(&file).await,
    ) else {
        return Answer::not_found();
    };
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let tag = format!("\"m-{:x}-{modified:x}\"", bytes.len());
    let kind = Kind::Asset {
        content_type,
        coding: Coding::Identity,
    };
    Answer::tagged(kind, Bytes::from(bytes), tag, Some(CACHE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_inside_the_directory_name_files() {
        let dir = Path::new("/srv/media");
        assert_eq!(
            file(dir, "/media/images/a%20b.jpg"),
            Some(PathBuf::from("/srv/media/images/a b.jpg"))
        );
        for bad in [
            "/media/../etc/passwd",
            "/media/images/%2e%2e/%2e%2e/x.jpg",
            "/media//etc/x.jpg",
            "/media/",
            "/media/a\\..\\b.jpg",
            "/static/x.jpg",
        ] {
            assert_eq!(file(dir, bad), None, "{bad}");
        }
        assert_eq!(image_type(Path::new("a.JPG")), Some("image/jpeg"));
        assert_eq!(image_type(Path::new("a.svg")), None);
        assert_eq!(image_type(Path::new("a.html")), None);
    }
}
