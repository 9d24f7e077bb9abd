//! What stands in the way of publishing, said where a server reads it:
//! a dataset file refused, ticks that fail, a snapshot that does not read.
//! `sync` writes its own beside the snapshot (`NAME.status.json`, replaced
//! whole at each tick whose status changed); `serve` keeps its own (its
//! dataset file, its reloads) and shows both on `/api/v2/publishing/` and
//! in `/metrics`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What kind of problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The dataset file does not read or fails its checks: the description
    /// read last stands.
    RefusedDatasetFile,
    /// `sync`'s last tick failed: nothing was written.
    FailedTick,
    /// The snapshot at the path does not read (damaged, or of a format too
    /// old): a server keeps the view it serves.
    DamagedSnapshot,
    /// GBIF was not told of the version published last: its crawl request
    /// failed every try (`build --previous` and `sync` keep what it came to
    /// beside the snapshot, [`crawl_path`]).
    FailedGbifCrawl,
}

impl Kind {
    pub const ALL: [Kind; 4] = [
        Kind::RefusedDatasetFile,
        Kind::FailedTick,
        Kind::DamagedSnapshot,
        Kind::FailedGbifCrawl,
    ];

    /// Its name in the API and in metrics' labels.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RefusedDatasetFile => "refused-dataset-file",
            Kind::FailedTick => "failed-tick",
            Kind::DamagedSnapshot => "damaged-snapshot",
            Kind::FailedGbifCrawl => "failed-gbif-crawl",
        }
    }
}

/// One problem, as long as it lasts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub kind: Kind,
    /// Who found it: `sync` or `serve`.
    pub by: String,
    /// Since when (RFC 3339, UTC): the first time it was found.
    pub since: String,
    /// What is wrong, and what to do.
    pub said: String,
}

/// The problems standing now, and the ticks failed so far.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub problems: Vec<Problem>,
    /// Ticks that failed since `sync` started (a server's own: none).
    #[serde(default)]
    pub failed_ticks: u64,
}

impl Status {
    /// Says `kind` stands, found by `by`: a problem of that kind already said
    /// keeps its `since`. Whether what it says changed.
    pub fn found(&mut self, kind: Kind, by: &str, said: String) -> bool {
        let since = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        match self.problems.iter_mut().find(|p| p.kind == kind) {
            Some(p) if p.said == said => false,
            Some(p) => {
                p.said = said;
                true
            }
            None => {
                self.problems.push(Problem {
                    kind,
                    by: by.to_string(),
                    since,
                    said,
                });
                true
            }
        }
    }

    /// Says `kind` no longer stands; whether it did.
    pub fn cleared(&mut self, kind: Kind) -> bool {
        let before = self.problems.len();
        self.problems.retain(|p| p.kind != kind);
        self.problems.len() != before
    }

    /// Whether a problem of `kind` stands.
    pub fn has(&self, kind: Kind) -> bool {
        self.problems.iter().any(|p| p.kind == kind)
    }

    /// Both statuses' problems, `self`'s first, and their failed ticks.
    pub fn and(mut self, other: Status) -> Status {
        self.problems.extend(other.problems);
        self.failed_ticks += other.failed_ticks;
        self
    }
}

/// Where `sync` keeps its status beside the snapshot at `snapshot`.
pub fn path(snapshot: &Path) -> PathBuf {
    let mut name = snapshot.file_name().unwrap_or_default().to_os_string();
    name.push(".status.json");
    snapshot.with_file_name(name)
}

/// Where what the last request for GBIF to crawl the dataset came to is kept
/// beside the snapshot at `snapshot`: `NAME.gbif-crawl`, a line of JSON
/// (`dataset`, `version`, `asked_at`, `tries`, `asked`, `failure`).
pub fn crawl_path(snapshot: &Path) -> PathBuf {
    let mut name = snapshot.file_name().unwrap_or_default().to_os_string();
    name.push(".gbif-crawl");
    snapshot.with_file_name(name)
}

/// The failed crawl request kept beside the status file `file` ([`path`]),
/// in words, where the last one failed.
fn failed_crawl(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_str()?.strip_suffix(".status.json")?;
    let text = std::fs::read_to_string(crawl_path(&file.with_file_name(name))).ok()?;
    let line: serde_json::Value = serde_json::from_str(text.trim()).ok()?;
    if line.get("asked")?.as_bool()? {
        return None;
    }
    Some(format!(
        "GBIF was not asked to crawl version {} of dataset {} ({} tries; {}): it recrawls on \
         its own schedule; the next version published asks again",
        line.get("version")
            .and_then(|v| v.as_u64())
            .unwrap_or_default(),
        line.get("dataset")
            .and_then(|v| v.as_str())
            .unwrap_or_default(),
        line.get("tries")
            .and_then(|v| v.as_u64())
            .unwrap_or_default(),
        line.get("failure")
            .and_then(|v| v.as_str())
            .unwrap_or("no reason said"),
    ))
}

/// The status `sync` keeps in `file` ([`path`]): none (the default) where
/// there is no file; a file that does not read is said as a failed tick. A
/// crawl request that failed, kept beside it ([`crawl_path`]), is a problem
/// too.
pub fn read(file: &Path) -> Status {
    let mut status = read_status(file);
    if let Some(said) = failed_crawl(file) {
        status.found(Kind::FailedGbifCrawl, "gbif", said);
    }
    status
}

fn read_status(file: &Path) -> Status {
    let at = file;
    match std::fs::read(at) {
        Err(_) => Status::default(),
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            let mut s = Status::default();
            s.found(
                Kind::FailedTick,
                "serve",
                format!("sync's status file {} does not read: {e}", at.display()),
            );
            s
        }),
    }
}

/// Writes `status` beside the snapshot at `snapshot`, whole.
pub fn write(snapshot: &Path, status: &Status) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(status).map_err(std::io::Error::other)?;
    super::write_atomically(&path(snapshot), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_said_once_from_when_it_was_found_and_cleared() {
        let mut s = Status::default();
        assert!(s.found(Kind::FailedTick, "sync", "a".into()));
        let since = s.problems[0].since.clone();
        assert!(!s.found(Kind::FailedTick, "sync", "a".into()));
        assert!(s.found(Kind::FailedTick, "sync", "b".into()));
        assert_eq!((s.problems.len(), &s.problems[0].since), (1, &since));
        assert!(s.has(Kind::FailedTick) && !s.has(Kind::DamagedSnapshot));
        assert!(s.cleared(Kind::FailedTick));
        assert!(!s.cleared(Kind::FailedTick));
        let dir = std::env::temp_dir().join(format!("status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let snapshot = dir.join("c.bin");
        assert_eq!(read(&path(&snapshot)), Status::default());
        s.found(Kind::RefusedDatasetFile, "sync", "licence".into());
        s.failed_ticks = 3;
        write(&snapshot, &s).unwrap();
        assert_eq!(read(&path(&snapshot)), s);
        assert_eq!(path(&snapshot), dir.join("c.bin.status.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
