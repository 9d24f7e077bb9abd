//! The folders catalogue makes for a moment in a versions' folder
//! (`NAME.versions/`): a version being written (`.catalogue-tmp-3-PID`)
//! and one being replaced (`.catalogue-old-3-PID`), and which of those a
//! writer no longer running left. Only those are removed: an operator's
//! folder beside them (`.backup-of-1.old`, a copy of a version) is theirs,
//! whatever its name, and so is one of catalogue's names holding anything
//! catalogue does not write there.

use std::path::Path;

/// What a temporary folder is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Temporary {
    /// A version's files being written, renamed into place once whole.
    Written,
    /// A version's folder being replaced, removed once the new one is in place.
    Replaced,
}

impl Temporary {
    fn word(self) -> &'static str {
        match self {
            Temporary::Written => "tmp",
            Temporary::Replaced => "old",
        }
    }

    /// The name of version `number`'s folder of this kind, by this process.
    pub fn name(self, number: u64) -> String {
        format!(".catalogue-{}-{number}-{}", self.word(), std::process::id())
    }
}

/// The process that made the temporary folder named `name`, where the name
/// is one of catalogue's: `.catalogue-tmp-N-PID` or `.catalogue-old-N-PID`,
/// and, as versions before these names wrote them, `.N.tmp-PID` and
/// `.N.old-PID` (N and PID numbers as written: digits, no leading zero).
fn maker(name: &str) -> Option<u32> {
    fn canonical(n: &str) -> Option<&str> {
        let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        (digits && (n == "0" || !n.starts_with('0'))).then_some(n)
    }
    let (number, pid) = match name.strip_prefix(".catalogue-") {
        Some(rest) => {
            let rest = rest
                .strip_prefix("tmp-")
                .or_else(|| rest.strip_prefix("old-"))?;
            rest.split_once('-')?
        }
        None => {
            let rest = name.strip_prefix('.')?;
            rest.split_once(".tmp-")
                .or_else(|| rest.split_once(".old-"))?
        }
    };
    canonical(number)?.parse::<u64>().ok()?;
    canonical(pid)?.parse::<u32>().ok().filter(|&pid| pid > 0)
}

/// Whether the entry `name` at `path` is a temporary folder a catalogue
/// writer no longer running left: one of its names, a folder (not a link to
/// one), holding nothing but regular files of the names a version's folder
/// holds (`names`), made by a process that is gone (this one's are in use).
pub fn left_behind(path: &Path, name: &str, names: &[&str]) -> bool {
    let Some(pid) = maker(name) else {
        return false;
    };
    if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
        return false;
    }
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    entries.into_iter().all(|e| {
        e.is_ok_and(|e| {
            let file = e.file_type().is_ok_and(|t| t.is_file());
            file && e.file_name().to_str().is_some_and(|n| names.contains(&n))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_catalogues_names_are_its_own() {
        assert_eq!(maker(".catalogue-tmp-3-999999999"), Some(999_999_999));
        assert_eq!(maker(".catalogue-old-12-7"), Some(7));
        assert_eq!(maker(".3.tmp-77"), Some(77));
        assert_eq!(maker(".3.old-77"), Some(77));
        for theirs in [
            ".backup-of-1.old",
            ".backup.old-5",
            ".x.tmp-5",
            ".1.old-05",
            ".01.tmp-5",
            ".catalogue-tmp-3-",
            ".catalogue-new-3-5",
            ".catalogue-tmp-3-5-6",
            ".waiting",
            "3",
            ".3.tmp-0",
        ] {
            assert_eq!(maker(theirs), None, "{theirs}");
        }
        let written = Temporary::Written.name(4);
        assert_eq!(maker(&written), Some(std::process::id()));
    }

    /// A folder of catalogue's name left by a writer that is gone goes; an
    /// operator's beside it stays, as does one of catalogue's names that
    /// holds what catalogue does not write.
    #[test]
    fn what_a_stopped_writer_left_is_told_from_an_operators_folder() {
        let dir = std::env::temp_dir().join(format!("temporary-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let names = ["dwca.zip", "eml.xml", "manifest.json"];
        for (name, files, left) in [
            (".catalogue-tmp-2-999999999", &["dwca.zip"][..], true),
            (".2.old-999999999", &["eml.xml", "manifest.json"][..], true),
            (".backup-of-1.old", &["dwca.zip"][..], false),
            (".catalogue-old-2-999999998", &["notes.txt"][..], false),
        ] {
            let folder = dir.join(name);
            std::fs::create_dir_all(&folder).unwrap();
            for f in files {
                std::fs::write(folder.join(f), b"x").unwrap();
            }
            assert_eq!(left_behind(&folder, name, &names), left, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
