//! eml.xml's `packageId`, as GBIF's EML parser reads a dataset's version from
//! it: `<UUID>/v<major>.<minor>`, the UUID of version 4 (GBIF takes no other
//! for a version), the release of the version ([`Release`]).
//!
//! The UUID is the dataset's for good: the dataset file's `id` where that is
//! a version 4 UUID (`catalogue dataset init` writes a random one); else one
//! made from the first version's description and kept in the history from
//! the second version on ([`History::package`]), so a title or a code
//! changed later does not change it.

use super::dataset::{uuid_text, Dataset};
use super::history::{History, Release};

/// The dataset's UUID as `packageId` says it, for a snapshot with `history`.
pub fn uuid(dataset: &Dataset, history: &History) -> String {
    let id = dataset.id.trim();
    if is_v4(id) {
        return id.to_ascii_lowercase();
    }
    if is_v4(&history.package) {
        return history.package.clone();
    }
    made(dataset)
}

/// The UUID made for a dataset whose file names none: of version 4's form,
/// its bits those of the SHA-256 of the institution code, the collection code
/// and the title (the same while they are, so two builds of one collection
/// are one snapshot), kept in the history once made.
pub fn made(dataset: &Dataset) -> String {
    let name = format!(
        "catalogue package\n{}\n{}\n{}",
        dataset.institution_code.trim(),
        dataset.collection_code.trim(),
        dataset.title()
    );
    let digest = <sha2::Sha256 as sha2::Digest>::digest(name.as_bytes());
    let mut bytes: [u8; 16] = digest[..16].try_into().expect("16 bytes");
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid_text(&bytes)
}

/// Whether `s` is a UUID of version 4 (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-...`).
pub fn is_v4(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
        && b[14] == b'4'
        && matches!(b[19].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
}

/// Continues `next`, the history of a version published after a snapshot
/// described by `before`, as `after` describes it: the UUID kept (the one
/// `before`'s packageId said, where the history held none), and a major
/// release begun where `after` names a DOI that `before` did not.
pub fn follow(next: &mut History, before: &Dataset, after: &Dataset) {
    if next.package.is_empty() {
        next.package = uuid(before, &History::default());
    }
    let doi = after.doi().map(|d| d.url());
    let number = next.current();
    if doi.is_some() && doi != before.doi().map(|d| d.url()) && next.majors.last() != Some(&number)
    {
        next.majors.push(number);
    }
}

/// The `packageId` of a snapshot's current version, and for a question's
/// archive a short hash of the question (`<uuid>/v1.2/1a2b3c4d5e6f`: the
/// first 12 hexadecimal digits of its query string's SHA-256), so each
/// document GBIF could be given has its own.
pub fn package_id(dataset: &Dataset, history: &History, question: Option<&str>) -> String {
    let release: Release = history.release(history.current());
    let id = format!("{}/v{release}", uuid(dataset, history));
    match question {
        None => id,
        Some(query) => {
            let digest = <sha2::Sha256 as sha2::Digest>::digest(query.as_bytes());
            let hex = crate::encoding::hex::hex(&digest);
            format!("{id}/{}", &hex[..12])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::history::Version;

    fn history(numbers: u64) -> History {
        History {
            versions: (1..=numbers)
                .map(|number| Version {
                    number,
                    ..Version::default()
                })
                .collect(),
            ..History::default()
        }
    }

    #[test]
    fn the_uuid_is_the_files_v4_else_the_kept_else_one_made_of_version_4() {
        let mut d = Dataset {
            title: "Insects".into(),
            id: "urn:example:insects".into(),
            ..Dataset::default()
        };
        let made = uuid(&d, &History::default());
        assert!(is_v4(&made), "{made}");
        assert_eq!(made, super::made(&d));
        // The name-based identifier of before was version 8: GBIF reads no version of it.
        assert!(!is_v4(&d.identifier()));
        let mut h = history(2);
        h.package = "0f6d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c".into();
        assert_eq!(uuid(&d, &h), h.package);
        d.title = "Renamed".into();
        assert_eq!(uuid(&d, &h), h.package, "kept while the title changes");
        d.id = "6F1D2C3B-4A5E-4F60-8B7C-9D0E1F2A3B4C".into();
        assert_eq!(uuid(&d, &h), "6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c");
        for not in [
            "6f1d2c3b-4a5e-1f60-8b7c-9d0e1f2a3b4c",
            "6f1d2c3b-4a5e-4f60-cb7c-9d0e1f2a3b4c",
            "6f1d2c3b4a5e4f608b7c9d0e1f2a3b4c",
            "",
        ] {
            assert!(!is_v4(not), "{not}");
        }
    }

    #[test]
    fn package_ids_step_minor_and_major_at_a_new_doi() {
        let before = Dataset {
            title: "Insects".into(),
            ..Dataset::default()
        };
        let first = history(0);
        let id = package_id(&before, &first, None);
        assert_eq!(id, format!("{}/v1.0", made(&before)));
        let mut after = Dataset {
            title: "Insects renamed".into(),
            ..before.clone()
        };
        let mut second = history(1).next([1; 32], 1, Vec::new(), Vec::new());
        follow(&mut second, &before, &after);
        assert_eq!(
            package_id(&after, &second, None),
            format!("{}/v1.1", made(&before))
        );
        after.doi = "10.15468/abc".into();
        let mut third = second.next([2; 32], 2, Vec::new(), Vec::new());
        follow(&mut third, &before, &after);
        assert_eq!(
            package_id(&after, &third, None),
            format!("{}/v2.0", made(&before))
        );
        let mut fourth = third.next([3; 32], 3, Vec::new(), Vec::new());
        follow(&mut fourth, &after, &after);
        let id = package_id(&after, &fourth, Some("country=canada"));
        assert_eq!(id, format!("{}/v2.1/a1db9e58ce74", made(&before)));
    }
}
