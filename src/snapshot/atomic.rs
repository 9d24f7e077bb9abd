//! Writing a file whole or not at all, the one way every writer of
//! catalogue does it: a temporary in the target's folder (unnamed where the
//! file system allows), written, `fsync`ed, renamed over the target, then the
//! folder `fsync`ed, so that after a crash the name holds the old file or the
//! new one, never a mix nor nothing. A temporary that has a name, file or
//! folder, is held under an advisory lock (`flock`) while it is written;
//! another writer takes one it can lock for left behind (its writer stopped:
//! the lock goes with the process), never by a process id, which repeats
//! (in a container every writer is process 1).

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Takes an exclusive advisory lock on the open `file` (or folder), held
/// until its descriptor closes.
pub fn lock(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd as _;
    // SAFETY: an open descriptor; nothing is read or written through pointers.
    match unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Opens the folder `dir` and locks it ([`lock`]): held while the folder is
/// written, until the handle drops.
pub fn lock_folder(dir: &Path) -> std::io::Result<std::fs::File> {
    let folder = std::fs::File::open(dir)?;
    lock(&folder)?;
    Ok(folder)
}

/// Whether no writer holds a lock on `path`, file or folder (one that
/// cannot be opened is not taken for left behind).
pub fn unlocked(path: &Path) -> bool {
    std::fs::File::open(path).is_ok_and(|f| lock(&f).is_ok())
}

/// `fsync`s the folder `dir`: what renames in it did is on disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// The folder `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Renames `from` over `to`, then `fsync`s the folder (both folders, where
/// they differ): the rename survives a crash.
pub fn rename_synced(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::rename(from, to)?;
    let (was, is) = (folder_of(from), folder_of(to));
    sync_dir(&is)?;
    if was != is {
        sync_dir(&was)?;
    }
    Ok(())
}

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
            Err(_) => {
                // Locked while it is written (and until it is renamed, or
                // dropped): what tells another writer it is in use.
                let file = std::fs::File::create(&tmp)?;
                lock(&file)?;
                file
            }
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
            lock(&file)?;
            name_unnamed(&file, &tmp)?;
        }
        rename_synced(&tmp, path)
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

/// Removes the files in `dir` named `prefix` and a process id that no
/// writer holds locked: what a writer killed while it wrote under a
/// temporary name left. Whether its process runs says nothing (process ids
/// repeat: in a container every writer is process 1); its lock goes with it.
fn remove_stale_temporaries(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let ours = (name.to_str())
            .and_then(|n| n.strip_prefix(prefix))
            .is_some_and(|pid| pid.parse::<u32>().is_ok());
        if ours && unlocked(&entry.path()) && std::fs::remove_file(entry.path()).is_ok() {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A write removes the temporaries no writer holds locked, whatever
    /// process id they name (process 1 runs as long as the system does:
    /// in a container, every writer is process 1), keeps one a writer
    /// holds, and leaves none of its own.
    #[test]
    fn a_temporary_is_left_behind_when_no_writer_holds_its_lock() {
        let dir = std::env::temp_dir().join(format!("atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".x.bin.tmp-1"), b"left by a stopped process 1").unwrap();
        let held = dir.join(format!(".x.bin.tmp-{}", u32::MAX - 1));
        std::fs::write(&held, b"being written").unwrap();
        let writer = std::fs::File::open(&held).unwrap();
        lock(&writer).unwrap();
        assert!(!unlocked(&held) && unlocked(&dir.join(".x.bin.tmp-1")));
        write_atomically(&dir.join("x.bin"), b"whole").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [format!(".x.bin.tmp-{}", u32::MAX - 1), "x.bin".into()]
        );
        assert_eq!(std::fs::read(dir.join("x.bin")).unwrap(), b"whole");
        drop(writer);
        assert!(unlocked(&held));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder locked while it is written is in use; once its handle
    /// drops, it is left behind.
    #[test]
    fn a_folder_is_in_use_while_its_lock_is_held() {
        let dir = std::env::temp_dir().join(format!("atomic-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("t")).unwrap();
        let held = lock_folder(&dir.join("t")).unwrap();
        assert!(!unlocked(&dir.join("t")));
        drop(held);
        assert!(unlocked(&dir.join("t")));
        std::fs::create_dir_all(dir.join("u")).unwrap();
        rename_synced(&dir.join("t"), &dir.join("u/v")).unwrap();
        assert!(dir.join("u/v").is_dir());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
