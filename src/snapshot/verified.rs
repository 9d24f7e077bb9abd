//! Whether a kept version's folder ([`kept`](super::kept)) is the version a
//! history says it is, and its files the bytes its manifest names.
//!
//! A version is told apart from another history's of the same number by the
//! snapshot that published it: every history holds, for each of its
//! versions, that snapshot's SHA-256 (the checksum its header names,
//! `model::history::Version::checksum`), which the manifest names too. Two
//! histories never publish the same snapshot as the same version (a
//! snapshot's checksum covers its history), so a manifest naming version N
//! and a checksum the history holds for another number, or none, is not this
//! history's: another deployment's folder, a copy restored to the wrong
//! place, a history started again at 1.
//!
//! Each file is read whole and its SHA-256 compared with the manifest's
//! once per [`FileStamp`] (a file changed in place or replaced has another:
//! read again), so a byte flipped on disk is found before the file is sent
//! under its manifest's SHA-256 as its tag; the file checked is the one
//! opened, which is then sent.

use std::collections::HashMap;
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use sha2::{Digest as _, Sha256};

use super::kept::{KeptFile, Manifest};
use super::FileStamp;
use crate::encoding::hex::hex;
use crate::model::history::History;

/// Whether `manifest` is version `manifest.version` of `history` (that of
/// the snapshot whose header names `checksum`: its own version's checksum
/// is its header's). A version whose checksum the history does not know
/// (zeros: published before histories kept them) is taken as its number.
pub fn belongs(manifest: &Manifest, history: &History) -> bool {
    match history.version(manifest.version) {
        Some(v) if v.checksum == [0; 32] => true,
        Some(v) => hex(&v.checksum) == manifest.checksum,
        None => false,
    }
}

/// Why a kept file is not served as its version's.
#[derive(Debug, thiserror::Error)]
pub enum Damage {
    /// It cannot be opened or read (gone, a descriptor short): not damage.
    #[error("{path} does not read: {cause}")]
    Unreadable {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// It is not a regular file, or not the size its manifest says.
    #[error("{path} is {found} bytes, not the {want} its manifest says")]
    Size {
        path: PathBuf,
        found: u64,
        want: u64,
    },
    /// Its bytes are not those its manifest's SHA-256 names.
    #[error("{path} is not the bytes its manifest's SHA-256 names (changed on disk)")]
    Digest { path: PathBuf },
}

impl Damage {
    /// Whether the file is there and not what its manifest says (rather
    /// than not read at all).
    pub fn is_damage(&self) -> bool {
        !matches!(self, Damage::Unreadable { .. })
    }
}

/// Each file's SHA-256 (hex) as found when read, by path, with the stamp
/// of the file read.
fn found() -> &'static Mutex<HashMap<PathBuf, (FileStamp, String)>> {
    static FOUND: OnceLock<Mutex<HashMap<PathBuf, (FileStamp, String)>>> = OnceLock::new();
    FOUND.get_or_init(Default::default)
}

/// Opens the kept file at `path` and checks it is `want` (its size, and its
/// SHA-256 where its stamp was not checked before): the open file, to be
/// sent. A blocking call.
pub fn open(path: &Path, want: &KeptFile) -> Result<std::fs::File, Damage> {
    let unreadable = |cause| Damage::Unreadable {
        path: path.to_path_buf(),
        cause,
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let metadata = file.metadata().map_err(unreadable)?;
    if !metadata.is_file() || metadata.len() != want.bytes {
        return Err(Damage::Size {
            path: path.to_path_buf(),
            found: metadata.len(),
            want: want.bytes,
        });
    }
    let stamp = FileStamp::of_metadata(&metadata);
    let known = (found().lock().unwrap_or_else(|e| e.into_inner()))
        .get(path)
        .filter(|(at, _)| *at == stamp)
        .map(|(_, sum)| sum.clone());
    let sum = match known {
        Some(sum) => sum,
        None => {
            let sum = digest(&file, metadata.len()).map_err(unreadable)?;
            (found().lock().unwrap_or_else(|e| e.into_inner()))
                .insert(path.to_path_buf(), (stamp, sum.clone()));
            sum
        }
    };
    match sum == want.sha256 {
        true => Ok(file),
        false => Err(Damage::Digest {
            path: path.to_path_buf(),
        }),
    }
}

/// The SHA-256 (hex) of the first `len` bytes of `file`, read a megabyte
/// at a time from its start (its position left where it is).
fn digest(file: &std::fs::File, len: u64) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; (1 << 20).min(len as usize).max(1)];
    let mut at = 0u64;
    while at < len {
        let n = file.read_at(&mut buffer, at)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let n = n.min((len - at) as usize);
        hasher.update(&buffer[..n]);
        at += n as u64;
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::Version;

    #[test]
    fn a_file_is_checked_and_a_flipped_byte_found_once_its_stamp_changed() {
        let dir = std::env::temp_dir().join(format!("verified-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("dwca.zip");
        std::fs::write(&path, b"an archive").unwrap();
        let want = KeptFile::of(b"an archive");
        assert!(open(&path, &want).is_ok());
        assert!(open(&path, &want).is_ok());
        // Flipped in place, the same size: another stamp, read again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, b"an archivf").unwrap();
        let e = open(&path, &want).unwrap_err();
        assert!(matches!(e, Damage::Digest { .. }) && e.is_damage(), "{e}");
        std::fs::write(&path, b"an archive, longer").unwrap();
        assert!(matches!(open(&path, &want), Err(Damage::Size { .. })));
        std::fs::remove_file(&path).unwrap();
        assert!(!open(&path, &want).unwrap_err().is_damage());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_manifest_belongs_to_the_history_that_published_its_snapshot() {
        let history = History {
            versions: (1..=3)
                .map(|n| Version {
                    number: n,
                    checksum: [n as u8; 32],
                    ..Version::default()
                })
                .collect(),
            ..History::default()
        };
        let manifest = |version: u64, checksum: [u8; 32]| Manifest {
            version,
            checksum: hex(&checksum),
            published: 0,
            site: String::new(),
            media: String::new(),
            files: Default::default(),
            places: String::new(),
            withdrawn: String::new(),
        };
        assert!(belongs(&manifest(2, [2; 32]), &history));
        // Another history's version 2, and this one's 3 named 2.
        assert!(!belongs(&manifest(2, [9; 32]), &history));
        assert!(!belongs(&manifest(2, [3; 32]), &history));
        assert!(!belongs(&manifest(4, [4; 32]), &history));
    }
}
