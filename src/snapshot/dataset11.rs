//! The dataset's part as format 11 wrote it: the description's keys before
//! people's identifiers (`people`, `report_url`) and EML 2.2.0's
//! (`introduction`, `getting_started`, `acknowledgements`, `bibliography`,
//! `specimen_preservation_method`), which format 12 appends;
//! an early format 11 file also lacks `occurrence_id`, the key before them.
//! Read by appending those keys' empty values.

use super::codec;
use crate::model::dataset::Dataset;

/// The empty values of the keys format 12 appended, encoded.
fn appended(into: &mut Vec<u8>) -> Result<(), String> {
    codec::encode_into(&Vec::<crate::model::dataset::Person>::new(), into)?;
    codec::encode_into(&String::new(), into)?;
    for _ in 0..3 {
        codec::encode_into(&String::new(), into)?;
    }
    codec::encode_into(&Vec::<String>::new(), into)?;
    codec::encode_into(&String::new(), into)
}

/// Decodes the dataset's part of a format 11 file.
pub fn decode(bytes: &[u8]) -> Result<Dataset, String> {
    let mut extended = bytes.to_vec();
    appended(&mut extended)?;
    codec::decode(&extended).or_else(|e| {
        // Written before `occurrence_id`: its empty value first.
        let mut early = bytes.to_vec();
        codec::encode_into(&String::new(), &mut early)?;
        appended(&mut early)?;
        codec::decode::<Dataset>(&early).map_err(|_| e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_11_description_reads_with_the_keys_since_empty() {
        let d = Dataset {
            title: "Insects".into(),
            occurrence_id: "urn:x:{catalog_number}".into(),
            introduction: "dropped".into(),
            ..Dataset::default()
        };
        // Today's bytes less the seven keys appended (each empty encodes as 0).
        let today_empty = codec::encode(&Dataset {
            introduction: String::new(),
            ..d.clone()
        })
        .unwrap();
        let bytes = today_empty[..today_empty.len() - 7].to_vec();
        let read = decode(&bytes).unwrap();
        assert_eq!(
            (read.title.as_str(), read.occurrence_id.as_str()),
            ("Insects", "urn:x:{catalog_number}")
        );
        assert!(read.introduction.is_empty());
        // And without occurrence_id (its empty string is one byte).
        let early = codec::encode(&Dataset {
            occurrence_id: String::new(),
            introduction: String::new(),
            ..d
        })
        .unwrap();
        let read = decode(&early[..early.len() - 8]).unwrap();
        assert_eq!(read.title, "Insects");
    }
}
