//! Which file is at a path, as the file system tells files apart: one
//! changed in place (its size or modification time) or replaced (another
//! inode) has another stamp. What tells a watcher that a file it read
//! before must be read again.

use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified_ns: i128,
}

impl FileStamp {
    /// The stamp of the file at `path` (a link followed); `None` where
    /// there is none.
    pub fn of(path: &Path) -> Option<FileStamp> {
        Some(FileStamp::of_metadata(&std::fs::metadata(path).ok()?))
    }

    /// The stamp of the file `m` describes (an open file's).
    pub fn of_metadata(m: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt as _;
        FileStamp {
            device: m.dev(),
            inode: m.ino(),
            len: m.len(),
            modified_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        }
    }

    /// When the file was last modified (`None` before 1970).
    pub fn modified(&self) -> Option<std::time::SystemTime> {
        let ns = u64::try_from(self.modified_ns).ok()?;
        Some(std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_changed_in_place_or_replaced_has_another_stamp() {
        let dir = std::env::temp_dir().join(format!("stamp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        assert_eq!(FileStamp::of(&path), None);
        std::fs::write(&path, b"one").unwrap();
        let first = FileStamp::of(&path).unwrap();
        assert_eq!(FileStamp::of(&path), Some(first));
        std::fs::write(&path, b"one more").unwrap();
        let grown = FileStamp::of(&path).unwrap();
        assert_ne!(grown, first);
        std::fs::write(dir.join("g"), b"one more").unwrap();
        std::fs::rename(dir.join("g"), &path).unwrap();
        assert_ne!(FileStamp::of(&path).unwrap(), grown);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
