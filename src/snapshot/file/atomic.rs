//! A file written whole or not at all: unnamed (or under a temporary name),
//! synced, then renamed over its target.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes bytes to a temporary file in the target's directory, syncs it, and renames
/// it over the target, so a reader sees the old file or the new one, never a mix.
/// A target that exists and is not a regular file (`-o /dev/null`, a directory) is
/// refused: the rename would replace it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_parts_atomically(path, &[bytes])
}

/// [`write_atomically`], of the file made of `parts` one after another.
///
/// The file is written unnamed (`O_TMPFILE`) and named only once it is whole
/// and synced, just before the rename: a writer killed while it writes leaves
/// nothing behind. Where the file system has no unnamed files, it is written
/// under a temporary name carrying the writer's process id; such files left
/// by writers that are no longer running are removed by the next write.
pub fn write_parts_atomically(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    if let Ok(target) = std::fs::metadata(path) {
        if !target.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it exists and is not a regular file, which writing would replace: give a file's path",
            ));
        }
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.tmp-");
    remove_stale_temporaries(&dir, &prefix);
    let tmp = dir.join(format!("{prefix}{}", std::process::id()));
    let unnamed = unnamed_file(&dir);
    let named = unnamed.is_err();
    let result = (|| {
        let file = match unnamed {
            Ok(file) => file,
            Err(_) => std::fs::File::create(&tmp)?,
        };
        // Many parts are a few bytes (the pieces of small tables): gathered.
        let file = WritingBehind {
            file,
            written: 0,
            asked: 0,
        };
        let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
        for part in parts {
            file.write_all(part)?;
        }
        let file = file.into_inner().map_err(|e| e.into_error())?.file;
        file.sync_all()?;
        if !named {
            name_unnamed(&file, &tmp)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// A file in `dir` with no name, for writing (`O_TMPFILE`): gone with its
/// descriptor unless named by [`name_unnamed`] (through `/proc/self/fd`: where
/// that is not mounted, none is made, and the writer names its file).
fn unnamed_file(dir: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if !Path::new("/proc/self/fd").is_dir() {
        return Err(std::io::ErrorKind::Unsupported.into());
    }
    std::fs::OpenOptions::new()
        .write(true)
        .mode(0o666)
        .custom_flags(libc::O_TMPFILE)
        .open(dir)
}

/// Gives the unnamed `file` the name `tmp` (`linkat` of its descriptor).
fn name_unnamed(file: &std::fs::File, tmp: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    use std::os::unix::ffi::OsStrExt as _;
    let _ = std::fs::remove_file(tmp);
    let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    let to = std::ffi::CString::new(tmp.as_os_str().as_bytes())?;
    // SAFETY: two NUL-terminated paths that live across the call.
    let linked = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    match linked {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Removes the files in `dir` named `prefix` and a process id whose process
/// is no longer running: what a writer killed while it wrote under a
/// temporary name left.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = (name.to_str())
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|pid| pid.parse::<libc::pid_t>().ok())
            .filter(|&pid| pid > 0)
        else {
            continue;
        };
        // SAFETY: a signal 0 sends nothing; it asks whether the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone && std::fs::remove_file(entry.path()).is_ok() {
            tracing::info!(file = %entry.path().display(), "removed the temporary file of a writer that stopped");
        }
    }
}

/// A file that asks the kernel to start writing what was written to disk
/// every few megabytes, so that the `fsync` at the end waits for the last
/// of them, not for all: at a million specimens the two took as long again
/// one after the other.
struct WritingBehind {
    file: std::fs::File,
    written: u64,
    /// Up to where the kernel was asked to start writing.
    asked: u64,
}

impl std::io::Write for WritingBehind {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd as _;
        let n = self.file.write(bytes)?;
        self.written += n as u64;
        if self.written - self.asked >= 8 << 20 {
            // Only a request: where it is refused, the `fsync` writes it.
            // SAFETY: a range of this open file; nothing is read or written
            // through pointers.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    self.asked as libc::off64_t,
                    (self.written - self.asked) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                )
            };
            self.asked = self.written;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}
