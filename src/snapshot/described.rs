//! The dataset file as a command that follows it reads it (`sync`, and
//! `serve`'s watcher; both at their start too): whole and complete, or not at
//! all.
//!
//! An editor or a deployment tool that writes the file in place truncates it
//! first: read at that moment, an empty file is valid TOML (every key
//! optional) and a file cut at a line's end is valid too, and a version
//! published from either says another description and, without its
//! `occurrence_id` rule, changes every record's occurrenceID. So a change
//! is taken only once the file has stood still for [`SETTLE`] (its stamp,
//! the same length and modification time, one second apart, and again after
//! it was read: a write meanwhile starts the wait again), and a file that
//! names no title is refused as incomplete: whatever else a publisher leaves
//! out, a description without a title is not one they meant to publish, and
//! the title is the first key `catalogue dataset init` and every example
//! write. A refused file changes nothing: what was read last stands.
//!
//! Why a second: writers that replace the file in place (an editor's save,
//! `cp`, a configuration tool's template) write a description of a few
//! kilobytes in one or a few `write` calls, milliseconds apart; the stamp's
//! modification time moves with each. A second of quiet is far more than
//! such a write takes and little beside a `sync` interval. A writer stopped
//! half-way for longer (a crash) leaves a file that is then what the file
//! says, and is checked as any other (a title, and a valid file).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crate::model::dataset::{Dataset, DatasetError};

use super::FileStamp;

/// How long the file must have stood still before it is read.
pub const SETTLE: Duration = Duration::from_secs(1);

/// How long a file that keeps changing is waited on before it is refused.
const PATIENCE: Duration = Duration::from_secs(10);

/// Why the dataset file was not taken.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// It does not read, or says something wrong.
    #[error(transparent)]
    Invalid(#[from] DatasetError),
    /// It reads, and names no title: empty, or cut short.
    #[error(
        "the dataset file {path} names no title: it is empty or was read half written \
         (a file being written in place), and is not taken"
    )]
    Untitled { path: String },
    /// It changed all the time it was waited on.
    #[error(
        "the dataset file {path} kept changing for {}s: it is not taken until it stands still \
         (write it beside and rename it over)",
        PATIENCE.as_secs()
    )]
    Unsettled { path: String },
}

/// Reads the dataset file at `path` once it has stood still for [`SETTLE`]
/// (waiting for it, up to [`PATIENCE`]): checked as [`Dataset::from_file`]
/// checks it, and naming a title; with the stamp of the file it read.
pub fn read(path: &Path) -> Result<(Dataset, Option<FileStamp>), Refused> {
    read_settled(path, SETTLE)
}

fn read_settled(path: &Path, settle: Duration) -> Result<(Dataset, Option<FileStamp>), Refused> {
    let started = Instant::now();
    let unsettled = || Refused::Unsettled {
        path: path.display().to_string(),
    };
    loop {
        if started.elapsed() > PATIENCE {
            return Err(unsettled());
        }
        let before = FileStamp::of(path);
        if let Some(stamp) = before {
            // Modified in the future (another clock): waited the whole time.
            let still = stamp
                .modified()
                .and_then(|m| SystemTime::now().duration_since(m).ok());
            let left = settle.saturating_sub(still.unwrap_or_default());
            if !left.is_zero() {
                std::thread::sleep(left);
                if FileStamp::of(path) != before {
                    continue;
                }
            }
        }
        let read = Dataset::from_file(path);
        if FileStamp::of(path) != before {
            continue;
        }
        let dataset = read?;
        if dataset.title.trim().is_empty() {
            return Err(Refused::Untitled {
                path: path.display().to_string(),
            });
        }
        return Ok((dataset, before));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("described-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// An empty file, and one cut before its title, read as TOML: refused.
    #[test]
    fn an_empty_or_untitled_file_is_refused() {
        let dir = dir("untitled");
        let path = dir.join("dataset.toml");
        for text in ["", "license = \"CC0-1.0\"\n", "title = \"  \"\n"] {
            std::fs::write(&path, text).unwrap();
            let said = read_settled(&path, Duration::ZERO).unwrap_err().to_string();
            assert!(said.contains("names no title"), "{said}");
        }
        std::fs::write(&path, "title = \"Moths\"\n").unwrap();
        assert_eq!(
            read_settled(&path, Duration::ZERO).unwrap().0.title,
            "Moths"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file still being written is read once it stands still: what a
    /// writer finished, never what it had written half-way.
    #[test]
    fn a_file_being_written_is_read_once_it_stands_still() {
        let dir = dir("settling");
        let path = dir.join("dataset.toml");
        std::fs::write(&path, "title = \"Moths\"\n").unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                use std::io::Write as _;
                let mut f = std::fs::File::create(&path).unwrap();
                f.write_all(b"title = \"Moths\"\n").unwrap();
                std::thread::sleep(Duration::from_millis(300));
                f.write_all(b"occurrence_id = \"urn:x:{catalog_number}\"\n")
                    .unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        let (read, _) = read_settled(&path, Duration::from_millis(500)).unwrap();
        writer.join().unwrap();
        assert_eq!(read.occurrence_id, "urn:x:{catalog_number}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
