//! The versions as snapshot formats 8 to 10 and the history kept beside them
//! hold them: the same, less the catalogue numbers of deleted specimens, which
//! format 11 keeps. Read, and made today's with none.

use serde::{Deserialize, Serialize};

use super::codec;
use crate::model::history::{Changes, History, Version};

#[derive(Deserialize, Serialize)]
struct HistoryV10 {
    versions: Vec<VersionV10>,
}

#[derive(Deserialize, Serialize)]
struct VersionV10 {
    number: u64,
    checksum: [u8; 32],
    published_at: i64,
    counts: Vec<(String, u64)>,
    changes: Vec<ChangesV10>,
}

#[derive(Deserialize, Serialize)]
struct ChangesV10 {
    model: String,
    added: Vec<i64>,
    modified: Vec<i64>,
    deleted: Vec<i64>,
    added_digests: Vec<u64>,
    modified_digests: Vec<(u64, u64)>,
    deleted_digests: Vec<u64>,
}

/// Decodes a history of formats 8 to 10.
pub fn decode(bytes: &[u8]) -> Result<History, String> {
    let old: HistoryV10 = codec::decode(bytes)?;
    let versions = old.versions.into_iter().map(|v| Version {
        number: v.number,
        checksum: v.checksum,
        published_at: v.published_at,
        counts: v.counts,
        changes: (v.changes.into_iter())
            .map(|c| Changes {
                model: c.model,
                added: c.added,
                modified: c.modified,
                deleted: c.deleted,
                added_digests: c.added_digests,
                modified_digests: c.modified_digests,
                deleted_digests: c.deleted_digests,
                deleted_catalog_numbers: Vec::new(),
            })
            .collect(),
    });
    Ok(History {
        versions: versions.collect(),
        ..History::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_10_history_reads_with_no_catalogue_numbers() {
        let written = HistoryV10 {
            versions: vec![VersionV10 {
                number: 2,
                checksum: [7; 32],
                published_at: 11,
                counts: vec![("specimens.specimenrecord".into(), 3)],
                changes: vec![ChangesV10 {
                    model: "specimens.specimenrecord".into(),
                    added: vec![4],
                    modified: vec![],
                    deleted: vec![1],
                    added_digests: vec![40],
                    modified_digests: vec![],
                    deleted_digests: vec![10],
                }],
            }],
        };
        let history = decode(&codec::encode(&written).unwrap()).unwrap();
        let v = &history.versions[0];
        assert_eq!((v.number, v.checksum, v.published_at), (2, [7; 32], 11));
        let c = &v.changes[0];
        assert_eq!((&c.added[..], &c.deleted[..]), (&[4][..], &[1][..]));
        assert_eq!(c.deleted_digests, [10]);
        assert!(c.deleted_catalog_numbers.is_empty());
        // Today's layout does not read as the old one.
        assert!(codec::decode::<History>(&codec::encode(&written).unwrap()).is_err());
    }
}
