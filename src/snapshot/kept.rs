//! The versions kept beside a snapshot: `NAME.versions/` next to `NAME`, one
//! folder per version (`NAME.versions/3/`) holding the Darwin Core Archive
//! and the `eml.xml` it published, as they were made, and a manifest saying
//! what they were made from. `build` and `sync` write a version's folder once
//! its snapshot is written; `serve` reads it, so a version's archive stays
//! retrievable, byte for byte, after the next one replaced it (as GBIF's IPT
//! keeps each version's files beside its resource).
//!
//! ```text
//! NAME.versions/
//!   3/
//!     dwca.zip
//!     eml.xml
//!     manifest.json   {"version", "checksum", "published", "site", "media",
//!                      "files": {"dwca.zip": {"bytes", "sha256"}, "eml.xml": ...}}
//! ```
//!
//! A version's folder is written whole under a temporary name
//! (`.catalogue-tmp-3-PID`) and renamed into place: a writer killed
//! meanwhile leaves no half version, and the next write removes what it left
//! (that alone: [`temporary`](super::temporary)).
//!
//! `sync` publishes an edit before its version's archive is made; the snapshot
//! it published waits in `NAME.versions/.waiting/` (a hard link, named by its
//! creation time: the file as published, whatever replaces it at `NAME`)
//! until its version is kept, so a version published while another's archive
//! is made is kept after it, not lost ([`hold`], [`waiting`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::temporary::{self, Temporary};

/// The archive's name in a version's folder (and in its URL).
pub const ARCHIVE: &str = "dwca.zip";
/// The metadata's name in a version's folder (and in its URL).
pub const EML: &str = "eml.xml";
/// The manifest's name in a version's folder.
pub const MANIFEST: &str = "manifest.json";

/// What a kept version's files were made from, and what they are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The version's number.
    pub version: u64,
    /// The SHA-256 of the snapshot that published it, in hex.
    pub checksum: String,
    /// When that snapshot was made (microseconds since the Unix epoch).
    pub published: i64,
    /// Where the archive's links to the collection start (`--public-url`;
    /// empty: paths).
    pub site: String,
    /// Where its photographs' URLs start (`--media-url`, else `<site>/media/`).
    pub media: String,
    /// Each file's size and SHA-256, by name.
    pub files: std::collections::BTreeMap<String, KeptFile>,
    /// The sensitive places' rules its files were made under (their
    /// fingerprint, `model::dataset::Sensitive::fingerprint`): empty, none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub places: String,
    /// Why its files are no longer served, where they were withdrawn (a
    /// sensitive places' rule came after them: [`withdraw`]); empty, they are.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub withdrawn: String,
}

/// One kept file's size and digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptFile {
    pub bytes: u64,
    /// Hex.
    pub sha256: String,
}

impl KeptFile {
    /// The size and digest of `bytes`.
    pub fn of(bytes: &[u8]) -> KeptFile {
        KeptFile {
            bytes: bytes.len() as u64,
            sha256: crate::encoding::hex::hex(&Sha256::digest(bytes)),
        }
    }
}

impl Manifest {
    /// The bytes the version's files take together.
    pub fn bytes(&self) -> u64 {
        self.files.values().map(|f| f.bytes).sum()
    }
}

/// Where the versions of the snapshot at `snapshot` are kept.
pub fn path(snapshot: &Path) -> PathBuf {
    let mut name = snapshot.file_name().unwrap_or_default().to_os_string();
    name.push(".versions");
    snapshot.with_file_name(name)
}

/// Where snapshots published and not yet kept wait, in the versions'
/// folder `dir`.
pub fn waiting_room(dir: &Path) -> PathBuf {
    dir.join(".waiting")
}

/// Links the snapshot just published at `snapshot` into its versions'
/// folder's waiting room, named by `created_at` (microseconds, as its header
/// says): the path it waits at.
pub fn hold(snapshot: &Path, created_at: i64) -> std::io::Result<PathBuf> {
    let room = waiting_room(&path(snapshot));
    std::fs::create_dir_all(&room)?;
    let held = room.join(format!("{created_at:020}.bin"));
    match std::fs::hard_link(snapshot, &held) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(held),
        linked => linked.map(|()| held),
    }
}

/// The snapshots waiting beside `snapshot` for their version to be kept,
/// oldest first (those a `sync` stopped or killed left too).
pub fn waiting(snapshot: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(waiting_room(&path(snapshot))) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .collect();
    out.sort();
    out
}

/// Moves the versions kept beside `snapshot` aside, whole, to
/// `NAME.versions.old-<time>` (the moment, in UTC, to the second; a number
/// after it where that is taken): a new history starts without them, and
/// none of their files is deleted. The folder they went to; `None` where
/// none is kept.
pub fn set_aside(snapshot: &Path) -> std::io::Result<Option<PathBuf>> {
    let dir = path(snapshot);
    if std::fs::symlink_metadata(&dir).is_err() {
        return Ok(None);
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".old-{stamp}"));
    let mut aside = dir.with_file_name(&name);
    let mut n = 1;
    while std::fs::symlink_metadata(&aside).is_ok() {
        n += 1;
        let mut numbered = name.clone();
        numbered.push(format!("-{n}"));
        aside = dir.with_file_name(numbered);
    }
    super::atomic::rename_synced(&dir, &aside)?;
    Ok(Some(aside))
}

/// The folder of version `number` in the versions' folder `dir`.
pub fn folder(dir: &Path, number: u64) -> PathBuf {
    dir.join(number.to_string())
}

/// The versions kept in `dir`, oldest first (none when there is no folder).
pub fn numbers(dir: &Path) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<u64> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.parse::<u64>().ok()?;
            e.path().join(MANIFEST).is_file().then_some(name)
        })
        .collect();
    out.sort_unstable();
    out
}

/// The manifest of version `number` in `dir`, if it is kept and reads.
pub fn manifest(dir: &Path, number: u64) -> Option<Manifest> {
    let bytes = std::fs::read(folder(dir, number).join(MANIFEST)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes version `manifest.version`'s files into `dir`, whole or not at all,
/// replacing a folder of the same version.
pub fn write(dir: &Path, manifest: &Manifest, archive: &[u8], eml: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    remove_stale(dir);
    let number = manifest.version;
    let tmp = dir.join(Temporary::Written.name(number));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir(&tmp)?;
    // Locked while it is written: another writer leaves it be.
    let _writing = super::atomic::lock_folder(&tmp)?;
    let written = (|| {
        for (name, bytes) in [
            (ARCHIVE, archive),
            (EML, eml),
            (MANIFEST, &serde_json::to_vec_pretty(manifest)?[..]),
        ] {
            let mut f = std::fs::File::create(tmp.join(name))?;
            std::io::Write::write_all(&mut f, bytes)?;
            f.sync_all()?;
        }
        let target = folder(dir, number);
        if target.exists() {
            let old = dir.join(Temporary::Replaced.name(number));
            let _replacing = {
                std::fs::rename(&target, &old)?;
                super::atomic::lock_folder(&old)?
            };
            super::atomic::rename_synced(&tmp, &target)?;
            std::fs::remove_dir_all(&old)?;
        } else {
            super::atomic::rename_synced(&tmp, &target)?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    written
}

/// Withdraws version `number`'s files: written again empty, its manifest
/// saying `why`, so no byte of what they held is left and a server answers
/// 410 naming why. Nothing where the version is not kept.
pub fn withdraw(dir: &Path, number: u64, why: &str) -> std::io::Result<()> {
    let Some(mut manifest) = manifest(dir, number) else {
        return Ok(());
    };
    manifest.withdrawn = why.to_string();
    manifest.files = [
        (ARCHIVE.to_string(), KeptFile::of(b"")),
        (EML.to_string(), KeptFile::of(b"")),
    ]
    .into();
    write(dir, &manifest, b"", b"")
}

/// Removes what catalogue's writers that are no longer running left, and
/// nothing else ([`temporary::left_behind`]).
fn remove_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if temporary::left_behind(&e.path(), &name, &[ARCHIVE, EML, MANIFEST]) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Removes the kept versions outside `kept` (older than retained, or newer
/// than the snapshot's own: another history's); returns their numbers.
pub fn prune(dir: &Path, kept: std::ops::RangeInclusive<u64>) -> Vec<u64> {
    let gone: Vec<u64> = numbers(dir)
        .into_iter()
        .filter(|n| !kept.contains(n))
        .collect();
    gone.into_iter()
        .filter(|&n| std::fs::remove_dir_all(folder(dir, n)).is_ok())
        .collect()
}

/// Removes the versions kept in `dir` whose manifest reads and is not
/// `belongs`' (another history's); returns their numbers.
pub fn disown(dir: &Path, belongs: impl Fn(&Manifest) -> bool) -> Vec<u64> {
    let foreign = |n: &u64| manifest(dir, *n).is_some_and(|m| !belongs(&m));
    let gone: Vec<u64> = numbers(dir).into_iter().filter(foreign).collect();
    gone.into_iter()
        .filter(|&n| std::fs::remove_dir_all(folder(dir, n)).is_ok())
        .collect()
}

/// Copies into `dir` the versions kept in `from` that `dir` lacks, that
/// are at least `oldest` and that `belongs` takes (this history's: never
/// another's) (hard links where the file system allows): a snapshot built
/// to another file from `--previous` keeps what it kept.
pub fn carry(
    from: &Path,
    dir: &Path,
    oldest: u64,
    belongs: impl Fn(&Manifest) -> bool,
) -> std::io::Result<Vec<u64>> {
    let have = numbers(dir);
    let mut carried = Vec::new();
    let ours = |n: &u64| manifest(from, *n).is_some_and(|m| belongs(&m));
    for n in numbers(from)
        .into_iter()
        .filter(|n| *n >= oldest && !have.contains(n) && ours(n))
    {
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(Temporary::Written.name(n));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir(&tmp)?;
        let _writing = super::atomic::lock_folder(&tmp)?;
        for name in [ARCHIVE, EML, MANIFEST] {
            let (src, dst) = (folder(from, n).join(name), tmp.join(name));
            if std::fs::hard_link(&src, &dst).is_err() {
                std::fs::copy(&src, &dst)?;
                std::fs::File::open(&dst)?.sync_all()?;
            }
        }
        super::atomic::rename_synced(&tmp, &folder(dir, n))?;
        carried.push(n);
    }
    Ok(carried)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(version: u64, archive: &[u8], eml: &[u8]) -> Manifest {
        Manifest {
            version,
            checksum: "00".repeat(32),
            published: 5,
            site: String::new(),
            media: "/media/".into(),
            files: [
                (ARCHIVE.to_string(), KeptFile::of(archive)),
                (EML.to_string(), KeptFile::of(eml)),
            ]
            .into(),
            places: String::new(),
            withdrawn: String::new(),
        }
    }

    /// A snapshot held in the waiting room is the file as published, after
    /// another replaced it at its path, and the waiting are listed oldest
    /// first; none of it is a version.
    #[test]
    fn a_published_snapshot_waits_as_it_was_after_another_replaces_it() {
        let root = std::env::temp_dir().join(format!("waiting-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let snapshot = root.join("collection.bin");
        assert!(waiting(&snapshot).is_empty());
        std::fs::write(&snapshot, b"version 2").unwrap();
        let second = hold(&snapshot, 20).unwrap();
        // The next version is written as sync writes: a new file renamed over.
        let next = root.join("collection.bin.tmp");
        std::fs::write(&next, b"version 3").unwrap();
        std::fs::rename(&next, &snapshot).unwrap();
        let third = hold(&snapshot, 300).unwrap();
        assert_eq!(hold(&snapshot, 300).unwrap(), third);
        assert_eq!(waiting(&snapshot), [second.clone(), third.clone()]);
        assert_eq!(std::fs::read(&second).unwrap(), b"version 2");
        assert_eq!(std::fs::read(&third).unwrap(), b"version 3");
        assert!(numbers(&path(&snapshot)).is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn versions_are_written_whole_listed_replaced_carried_and_pruned() {
        let root = std::env::temp_dir().join(format!("kept-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        let dir = path(&root.join("collection.bin"));
        assert_eq!(dir, root.join("collection.bin.versions"));
        assert_eq!(numbers(&dir), Vec::<u64>::new());
        // A half version a killed writer left is not a version, and goes;
        // an operator's folder beside it stays.
        std::fs::create_dir_all(dir.join(".1.tmp-999999999")).unwrap();
        std::fs::create_dir_all(dir.join(".backup-of-1.old")).unwrap();
        std::fs::create_dir_all(dir.join(".backup.old-999999999")).unwrap();
        for n in [1, 2, 3] {
            let m = manifest(n, format!("zip {n}").as_bytes(), b"eml");
            write(&dir, &m, format!("zip {n}").as_bytes(), b"eml").unwrap();
        }
        assert!(!dir.join(".1.tmp-999999999").exists());
        assert!(dir.join(".backup-of-1.old").is_dir());
        assert!(dir.join(".backup.old-999999999").is_dir());
        assert_eq!(numbers(&dir), [1, 2, 3]);
        let read = super::manifest(&dir, 2).unwrap();
        assert_eq!(read, manifest(2, b"zip 2", b"eml"));
        assert_eq!(read.bytes(), 8);
        // The same version written again replaces its files.
        write(&dir, &manifest(3, b"zip 3b", b"eml"), b"zip 3b", b"eml").unwrap();
        assert_eq!(
            std::fs::read(folder(&dir, 3).join(ARCHIVE)).unwrap(),
            b"zip 3b"
        );
        let other = path(&root.join("next.bin"));
        assert_eq!(carry(&dir, &other, 2, |_| true).unwrap(), [2, 3]);
        assert_eq!(numbers(&other), [2, 3]);
        assert_eq!(
            std::fs::read(folder(&other, 2).join(ARCHIVE)).unwrap(),
            b"zip 2"
        );
        assert_eq!(prune(&dir, 3..=3), [1, 2]);
        assert_eq!(numbers(&dir), [3]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
