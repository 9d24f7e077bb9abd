//! The media files themselves, under `/media/`, from `--media-dir` (Django's
//! `MEDIA_ROOT`): so one server shows the collection's photographs without a
//! web server beside it. Only images are served (a same-origin HTML or SVG file
//! could run script under the pages' origin); a path that climbs out of the
//! directory is not found.
//!
//! A file is opened once, component by component beneath the directory, never
//! through a symbolic link, without blocking (a FIFO or a device answers at
//! once), and served only if it is a regular file no larger than
//! `--media-max-bytes`. It is sent in pieces as the client reads them; its tag
//! is its identity (size, modification time, inode), so a `HEAD` or a
//! revalidation reads none of it.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::encoding::percent::percent_decode;
use crate::encoding::photo_metadata::without_location;
use crate::view::generalised::Located;

use super::answer::{Answer, Chunk, Kind, Modified};
use super::compress::Coding;
use super::descriptors::{out_of_descriptors, Held, RETRY_SECONDS};

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

/// How much of a file one piece of its answer holds.
const PIECE: usize = 64 * 1024;

/// The file a request path names inside `dir`, if it names one without leaving it.
fn file(dir: &Path, path: &str) -> Option<PathBuf> {
    beneath(dir, &percent_decode(path.strip_prefix(PREFIX)?, false))
}

/// The file `relative` (as a record's file field names it: `original_images/a.jpg`)
/// names inside `dir`, if it names one without leaving it.
fn beneath(dir: &Path, relative: &str) -> Option<PathBuf> {
    if relative.contains('\0') || relative.contains('\\') {
        return None;
    }
    let relative = Path::new(relative);
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (plain && relative.components().next().is_some()).then(|| dir.join(relative))
}

/// The media file a record names (its `file` field, relative to `dir`),
/// opened as `/media/` would serve it (beneath `dir`, through no link, a
/// regular file within `max_bytes`): the file and its length, or why not,
/// in words.
pub fn open_named(dir: &Path, named: &str, max_bytes: u64) -> Result<(File, u64), &'static str> {
    let Some(relative) = beneath(dir, named) else {
        return Err("not a path inside the media folder");
    };
    let relative = relative
        .strip_prefix(dir)
        .map_err(|_| "not a path inside the media folder")?;
    match open(dir, relative, max_bytes) {
        Ok(opened) => Ok((opened.file, opened.len)),
        Err(Unserved::Not(why)) => Err(why),
        Err(Unserved::NoDescriptor) => Err("not opened: the server is out of file descriptors"),
    }
}

/// Opens `name` in the directory `at` with `flags`, never following a link.
fn open_at(at: &OwnedFd, name: &OsStr, flags: libc::c_int) -> std::io::Result<OwnedFd> {
    let name = CString::new(name.as_bytes())?;
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: `at` is an open descriptor and `name` a NUL-terminated string,
    // both alive for the call; a descriptor it returns is owned by no one else.
    let fd = unsafe { libc::openat(at.as_raw_fd(), name.as_ptr(), flags) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened, and nothing else holds it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Opens the file at `relative` (plain components only) beneath `dir`: each
/// directory, then the file, without following a link, the file without
/// blocking (a FIFO's open would wait for a writer). A link anywhere on the
/// way is an error, so nothing outside `dir` is reached.
fn open_beneath(dir: &Path, relative: &Path) -> std::io::Result<File> {
    let names: Vec<&OsStr> = relative.components().map(Component::as_os_str).collect();
    let Some((last, parents)) = names.split_last() else {
        return Err(std::io::ErrorKind::NotFound.into());
    };
    let mut at = OwnedFd::from(File::open(dir)?);
    for name in parents {
        at = open_at(&at, name, libc::O_RDONLY | libc::O_DIRECTORY)?;
    }
    let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY;
    Ok(File::from(open_at(&at, last, flags)?))
}

/// A media file open for sending: a regular file, its length and its tag.
struct Opened {
    file: File,
    len: u64,
    tag: String,
    /// When it last changed (its `Last-Modified`).
    modified: Modified,
}

/// Why a media file is not served.
enum Unserved {
    /// Not found: what is not there, or not to be served.
    Not(&'static str),
    /// Not opened for want of descriptors (503).
    NoDescriptor,
}

/// Opens what a request names, or says why it is not served.
fn open(dir: &Path, relative: &Path, max_bytes: u64) -> Result<Opened, Unserved> {
    let file = open_beneath(dir, relative).map_err(|e| match out_of_descriptors(&e) {
        true => Unserved::NoDescriptor,
        false => Unserved::Not("no such file, or a link"),
    })?;
    let not = Unserved::Not;
    let meta = file.metadata().map_err(|_| not("unreadable"))?;
    if !meta.file_type().is_file() {
        return Err(not("not a regular file"));
    }
    if meta.len() > max_bytes {
        return Err(not("larger than --media-max-bytes"));
    }
    let tag = format!(
        "\"m-{:x}-{:x}.{:x}-{:x}\"",
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino()
    );
    Ok(Opened {
        file,
        len: meta.len(),
        tag,
        modified: Modified::of(&meta),
    })
}

/// A stored image's original, `relative` its `file` beneath `dir`, opened as
/// a media file is (plain components only, through no link, a regular file
/// within `max_bytes`): the file and its identity (size, time, inode), or why not.
pub(super) fn open_original(
    dir: &Path,
    relative: &str,
    max_bytes: u64,
) -> Result<(File, String), &'static str> {
    let relative = Path::new(relative);
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    if !plain
        || relative.components().next().is_none()
        || relative.as_os_str().as_bytes().contains(&b'\\')
    {
        return Err("not a path beneath the media folder");
    }
    match open(dir, relative, max_bytes) {
        Ok(opened) => Ok((opened.file, opened.tag)),
        Err(Unserved::Not(why)) => Err(why),
        Err(Unserved::NoDescriptor) => Err("out of file descriptors"),
    }
}

/// The pieces of an open file, each read on a blocking thread as the client
/// takes the one before (a media file's, a kept version's archive), `held`
/// its descriptor's place in the share until the last piece is taken or the
/// client is gone.
pub(super) fn pieces(
    file: File,
    len: u64,
    held: Held,
) -> impl futures_util::Stream<Item = Chunk> + Send + Sync {
    let file = Arc::new((file, held));
    futures_util::stream::unfold(0u64, move |offset| {
        let file = Arc::clone(&file);
        async move {
            if offset >= len {
                return None;
            }
            let want = (len - offset).min(PIECE as u64) as usize;
            // Allocated here, on the async worker, and freed there once sent:
            // a blocking thread's own heap would keep what it once held.
            let mut buf = vec![0; want];
            let read = tokio::task::spawn_blocking(move || {
                let n = file.0.read_at(&mut buf, offset)?;
                buf.truncate(n);
                Ok::<_, std::io::Error>(buf)
            })
            .await;
            let piece = match read {
                Ok(Ok(buf)) if !buf.is_empty() => buf,
                // Shorter than it was when opened, or unreadable: the body
                // ends early, and the client sees it cut.
                Ok(Ok(_)) => return Some((Err(std::io::ErrorKind::UnexpectedEof.into()), len)),
                Ok(Err(e)) => return Some((Err(e), len)),
                Err(e) => return Some((Err(std::io::Error::other(e)), len)),
            };
            let next = offset + piece.len() as u64;
            Some((Ok(Bytes::from(piece)), next))
        }
    })
}

/// The file read whole, without its embedded location
/// (`encoding::photo_metadata`): `None` where it cannot be removed.
pub(super) fn stripped(file: &File, len: u64) -> Option<Vec<u8>> {
    let mut bytes = vec![0; usize::try_from(len).ok()?];
    file.read_exact_at(&mut bytes, 0).ok()?;
    without_location(&bytes)
}

/// The answer for a path under `/media/`, `held` the descriptor its file
/// takes of its client's share while it is sent. A file `located` holds (a
/// photograph of a record a sensitive place's rule covers) is read whole and
/// served without its EXIF and XMP, or not at all where they cannot be
/// removed: such files are few, and a copy on disk would go stale.
pub async fn answer(
    dir: Option<&Path>,
    path: &str,
    max_bytes: u64,
    held: Held,
    located: &Located,
) -> Answer {
    let Some(file) = dir.and_then(|dir| file(dir, path)) else {
        return Answer::not_found();
    };
    let Some(content_type) = image_type(&file) else {
        return Answer::not_found();
    };
    let (dir, relative) = match dir.map(|d| (d, file.strip_prefix(d))) {
        Some((dir, Ok(relative))) => (dir.to_path_buf(), relative.to_path_buf()),
        _ => return Answer::not_found(),
    };
    let relative_name = relative.to_string_lossy().into_owned();
    let opened = tokio::task::spawn_blocking(move || open(&dir, &relative, max_bytes)).await;
    let opened = match opened {
        Ok(Ok(opened)) => opened,
        Ok(Err(Unserved::NoDescriptor)) => {
            return Answer::error(&held.out()).retry_after(RETRY_SECONDS);
        }
        Ok(Err(Unserved::Not(why))) => {
            tracing::debug!(path, why, "a media file not served");
            return Answer::not_found();
        }
        Err(_) => return Answer::not_found(),
    };
    let kind = Kind::Asset {
        content_type,
        coding: Coding::Identity,
    };
    if located.holds(&relative_name) {
        let Opened {
            file,
            len,
            tag,
            modified,
        } = opened;
        let body = tokio::task::spawn_blocking(move || stripped(&file, len)).await;
        drop(held);
        let Ok(Some(body)) = body else {
            tracing::debug!(
                path,
                "a covered photograph whose metadata cannot be removed: not served"
            );
            return Answer::not_found();
        };
        let len = body.len() as u64;
        let one = futures_util::stream::iter([Ok(Bytes::from(body))]);
        // Its own tag: the file's, marked as the stripped copy.
        let tag = format!("{}-s\"", tag.trim_end_matches('"'));
        return Answer::file(kind, Box::pin(one), len, tag, CACHE).modified(modified);
    }
    Answer::file(
        kind,
        Box::pin(pieces(opened.file, opened.len, held)),
        opened.len,
        opened.tag,
        CACHE,
    )
    .modified(opened.modified)
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
