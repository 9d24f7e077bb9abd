//! The versions as snapshot format 11 and the history kept beside it
//! (`CATHIS11`) hold them: the same versions, without the dataset's package
//! UUID and its major releases, which format 12 keeps. Read, and made
//! today's with none (every version then a minor step, the UUID made again
//! from the description: `model::package_id`).

use serde::{Deserialize, Serialize};

use super::codec;
use crate::model::history::{History, Version};

/// The history of format 11. Its versions are today's: when a version's
/// fields change, freeze them here too.
#[derive(Deserialize, Serialize)]
struct History11 {
    versions: Vec<Version>,
}

/// Decodes a history of format 11.
pub fn decode(bytes: &[u8]) -> Result<History, String> {
    let old: History11 = codec::decode(bytes)?;
    Ok(History {
        versions: old.versions,
        ..History::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_11_history_reads_without_a_package_or_majors() {
        let written = History11 {
            versions: vec![Version {
                number: 3,
                published_at: 11,
                ..Version::default()
            }],
        };
        let history = decode(&codec::encode(&written).unwrap()).unwrap();
        assert_eq!(history.current(), 3);
        assert!(history.package.is_empty() && history.majors.is_empty());
        assert_eq!(history.release(3).to_string(), "1.2");
        // Today's layout does not read as the old one.
        assert!(codec::decode::<History>(&codec::encode(&written).unwrap()).is_err());
    }
}
