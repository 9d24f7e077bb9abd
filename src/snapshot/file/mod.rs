//! The snapshot file: a fixed header, then the encoded collection and the
//! view's tables, in pieces that each carry their SHA-256.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "CATSNAP\0"
//!      8     4  format version (u32 little-endian)
//!     12     8  created at, microseconds since the Unix epoch (i64 LE)
//!     20     8  payload length in bytes (u64 LE)
//!     28    32  checksum: the SHA-256 of the table of pieces
//!     60     -  payload:
//!                 4  count N of pieces (u32 LE)
//!             N×41  the table of pieces: each one's part (u8), length
//!                   (u64 LE) and SHA-256
//!                 -  the pieces' bytes, one after another
//! ```
//!
//! The pieces of a part follow each other, parts in this order, and a part's
//! bytes are its pieces' one after another:
//!
//! - 0, the records: the `Collection`, bincode-encoded, cut after every
//!   [`RECORDS_PER_PIECE`] records of a model (and after each model);
//! - 1, Wagtail's part: the collection's `Wagtail`;
//! - 2, the dataset's description: the collection's `Dataset`;
//! - 3, the versions: the collection's `History` (before version 11, without
//!   the catalogue numbers of deleted specimens: `history10`; in version 11,
//!   without the dataset's package UUID and major releases: `history11`);
//! - 4, the prepared tables (none where the writer had none): cut at each
//!   table's count of columns and at each column (`view::prepared`);
//! - 5, the records held back (none where nothing is): the collection's
//!   `held` (from version 10; a version 9 file has none).
//!
//! The checksum covers every piece through the table, so that a writer
//! hashes again only the pieces that changed, and a reader checks only the
//! pieces it reads: a reload of the server reads the tables' pieces, and of
//! those only the ones whose hash its view does not hold already.
//!
//! The records are what `inspect`, `sync` and the tests read; the prepared tables
//! (`view::prepared`) are what the server loads: columns as the view holds them,
//! so loading is a few large reads rather than a million records taken apart.
//! Versions 5 to 8 held each part after its length (u64 LE), the tables
//! last without one, and their checksum was the SHA-256 of the payload; they
//! are still read. Version 3 held the records alone, and version 4 columns
//! of codes four bytes wide; both are still read, their view built from the
//! records (the slower path: several seconds at a million specimens).
//! Version 5 had no Wagtail part: its records and tables are read, and its
//! view lists no Wagtail pages. Version 6 had no dataset part: its dataset
//! is the empty one, as if built without `--dataset-config`. Version 7 had
//! no versions: its history is empty, and the next snapshot `sync` writes is
//! version 1. Versions 7 to 10 held the dataset's description of fewer keys
//! (no identifier, associated parties, project, sampling, quality control,
//! logo, nor a person's name parts, address, phone, page or role): it is read
//! by a frozen copy of those keys (`dataset10`), the keys added since empty.
//!
//! The checksum covers the payload only, so the same collection built twice (or from
//! another source) has the same checksum; the creation time lives in the header.
//!
//! `header` is the header and what is wrong with a file; `open` a file opened
//! (a regular file only, its header checked against its size); `pieces` the
//! payload's parts and pieces and its table of them; `write` a collection
//! encoded and written (whole or not at all: `snapshot::atomic`);
//! `read` a payload's parts found and decoded; `check` a file checked against
//! its checksum, whole or piece by piece.

mod check;
mod header;
mod open;
mod pieces;
mod read;
mod write;

pub use check::{check, check_unread, verify, Pieces, PiecesRead};
pub use header::{
    read_header, Header, SnapshotError, FORMAT_VERSION, HEADER_LEN, MAGIC, OLDEST_READ,
};
pub use open::{peek, read_bytes};
pub use pieces::{Contents, Entry, Part, Piece, Prepare, Preparing, Tables, RECORDS_PER_PIECE};
pub use read::{
    decode, decode_dataset, decode_held, decode_history, decode_wagtail, read, sections, Sections,
};
pub use write::{assemble, encode, encode_head, encode_head_beside, write, Image, Kept};

#[cfg(test)]
mod tests {
    use std::path::Path;

    use sha2::{Digest, Sha256};

    use super::pieces::ENTRY_LEN;
    use super::*;
    use crate::model::dataset::Dataset;
    use crate::model::dataset::Party;
    use crate::model::held::Holding;
    use crate::model::history::History;
    use crate::model::records::Collection;
    use crate::model::records::{placement_fields, stored_fields, Country};
    use crate::model::wagtail::Wagtail;
    use crate::model::Model;
    use crate::snapshot::codec;
    use crate::snapshot::dataset10::Dataset10;

    /// A digest of what the payload's layout follows: every model's stored
    /// fields (the records) and served fields (the prepared tables), a
    /// page's Wagtail fields and the dataset's keys.
    fn layout() -> String {
        let mut said = String::new();
        for model in Model::ALL {
            for (name, kind) in stored_fields(model) {
                said += &format!("{} stores {name} {kind:?}\n", model.label());
            }
            for field in model.fields() {
                said += &format!("{} serves {field:?}\n", model.label());
            }
        }
        for (name, kind) in placement_fields() {
            said += &format!("page places {name} {kind:?}\n");
        }
        // Wagtail's part beside the pages (a site's keys changed under
        // format 6 once, unseen).
        let wagtail = Wagtail {
            sites: vec![crate::model::wagtail::Site {
                hostname: String::new(),
                port: 0,
                root_page: 0,
                is_default: false,
            }],
            documents: vec![crate::model::wagtail::Document {
                id: 0,
                title: String::new(),
                file: String::new(),
                created_at: 0,
                file_size: None,
                file_hash: String::new(),
                collection: 0,
                tags: Vec::new(),
            }],
            ..Wagtail::default()
        };
        said += &format!(
            "wagtail {}\n",
            serde_json::to_string(&wagtail).expect("JSON")
        );
        // The dataset's part: its keys, in order (a party's among them).
        let dataset = Dataset {
            creators: vec![Default::default()],
            ..Dataset::default()
        };
        said += &format!(
            "dataset {}\n",
            serde_json::to_string(&dataset).expect("JSON")
        );
        let mut history = History::first(Vec::new());
        history.versions[0].changes.push(Default::default());
        said += &format!(
            "history {}\n",
            serde_json::to_string(&history).expect("JSON")
        );
        let held = crate::model::held::Holding {
            model: String::new(),
            id: 0,
            field: String::new(),
            problem: String::new(),
            kept: String::new(),
            since: 0,
        };
        said += &format!("held {}\n", serde_json::to_string(&held).expect("JSON"));
        crate::encoding::hex::hex(&Sha256::digest(said.as_bytes()))
    }

    /// Forgetting to raise the format version with a new field would let this
    /// build decode an older file's records into the wrong members.
    #[test]
    fn a_changed_layout_has_a_new_format_version() {
        let layout = layout();
        assert_eq!(
            (FORMAT_VERSION, &layout[..16]),
            (12, "da5cc780473752c5"),
            "the records' or the tables' fields changed: raise FORMAT_VERSION, \
             and OLDEST_READ to it unless the older layout keeps a reader, then \
             write the new version and {} here",
            &layout[..16]
        );
    }

    fn sample() -> Collection {
        Collection {
            countries: vec![Country {
                id: 1,
                date_created: 0,
                date_modified: 5,
                name: "Canada".into(),
                abbr: "CAN".into(),
            }],
            wagtail: Wagtail {
                locales: vec![(1, "en".into())],
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The records held back are a part of their own, after the prepared
    /// tables, written only when there are any: they read back, and the
    /// file without them is the one written before there was such a part.
    #[test]
    fn the_held_back_records_are_a_part_after_the_tables() {
        let path = Path::new("held.bin");
        let held = Holding {
            model: "geography.country".into(),
            id: 2,
            field: "name".into(),
            problem: "is wrong".into(),
            kept: "left-out".into(),
            since: 3,
        };
        let c = Collection {
            held: vec![held],
            ..sample()
        };
        let (header, bytes) = encode(&c, 0, &tables()).unwrap();
        let contents = Contents::read(path, &bytes[HEADER_LEN..]).unwrap();
        let parts: Vec<Part> = contents.entries.iter().map(|e| e.part).collect();
        assert_eq!(parts[parts.len() - 2..], [Part::Prepared, Part::Held]);
        let (_, decoded) = decode(path, &bytes).unwrap();
        assert_eq!(decoded, c);
        let sections = sections(path, &header, &bytes).unwrap();
        assert_eq!(sections.prepared, Some(&b"tables"[..]));
        let (_, without) = encode(&sample(), 0, &tables()).unwrap();
        let contents = Contents::read(path, &without[HEADER_LEN..]).unwrap();
        assert!(contents.pieces(Part::Held).is_empty());
        assert_eq!(decode(path, &without).unwrap().1.held, []);
    }

    /// Prepared tables of a piece.
    fn tables() -> Vec<Piece> {
        vec![Piece::new(Part::Prepared, b"tables".to_vec())]
    }

    /// The sample as a file of an older version holds it: no Wagtail part.
    fn sample_without_wagtail() -> Collection {
        Collection {
            wagtail: Wagtail::default(),
            ..sample()
        }
    }

    #[test]
    fn round_trips_and_checksum_ignores_creation_time() {
        let p = Path::new("x.bin");
        let (h1, bytes) = encode(&sample(), 1, &tables()).unwrap();
        let (h2, _) = encode(&sample(), 2, &tables()).unwrap();
        assert_eq!(h1.checksum, h2.checksum);
        let (h, c) = decode(p, &bytes).unwrap();
        assert_eq!(h, h1);
        assert_eq!(c, sample());
        let parts = sections(p, &h, &bytes).unwrap();
        assert_eq!(parts.prepared, Some(&b"tables"[..]));
        assert_eq!(
            decode_wagtail(p, FORMAT_VERSION, parts.wagtail.unwrap()).unwrap(),
            sample().wagtail
        );
        assert_eq!(
            codec::decode::<Collection>(parts.records).unwrap(),
            sample_without_wagtail()
        );
        let (h, bytes) = encode(&sample(), 1, &[]).unwrap();
        assert_eq!(sections(p, &h, &bytes).unwrap().prepared, None);
    }

    /// A format 10 file's dataset part is of the keys of then: it is read,
    /// the keys added since empty.
    #[test]
    fn reads_the_dataset_of_a_version_10_file() {
        use super::super::dataset10::Party10;
        let ada = || Party10 {
            name: "Ada van der Berg".into(),
            organization: "A Museum".into(),
            email: "ada@example.org".into(),
            orcid: "0000-0002-1825-0097".into(),
        };
        let ten = Dataset10 {
            title: "Insects".into(),
            description: "d".into(),
            publisher: "A Museum".into(),
            license: "CC-BY-4.0".into(),
            language: "en".into(),
            homepage: "https://example.org/".into(),
            keywords: vec!["insects".into()],
            citation: String::new(),
            doi: "10.1234/abc".into(),
            institution_code: "AM".into(),
            institution_name: "A Museum".into(),
            collection_code: "Insects".into(),
            collection_name: "Insect Division".into(),
            purpose: "p".into(),
            methods: "m".into(),
            update_frequency: "asNeeded".into(),
            rights_holder: String::new(),
            creators: vec![ada()],
            contacts: vec![ada()],
            metadata_providers: vec![],
        };
        let mut head = encode_head(&sample(), &History::default()).unwrap();
        for piece in head.iter_mut().filter(|p| p.part == Part::Dataset) {
            *piece = Piece::new(Part::Dataset, codec::encode(&ten).unwrap());
        }
        // A version 10 history: no versions, and none of the keys since.
        let none: Vec<u8> = codec::encode(&Vec::<u8>::new()).unwrap();
        for piece in head.iter_mut().filter(|p| p.part == Part::History) {
            *piece = Piece::new(Part::History, none.clone());
        }
        let image = assemble(head, &[], 1);
        let mut bytes = image.parts().concat();
        bytes[8..12].copy_from_slice(&10u32.to_le_bytes());
        let (h, c) = decode(Path::new("x.bin"), &bytes).unwrap();
        let party = Party {
            name: "Ada van der Berg".into(),
            organization: "A Museum".into(),
            email: "ada@example.org".into(),
            orcid: "0000-0002-1825-0097".into(),
            ..Party::default()
        };
        let expected = Dataset {
            title: "Insects".into(),
            description: "d".into(),
            publisher: "A Museum".into(),
            license: "CC-BY-4.0".into(),
            language: "en".into(),
            homepage: "https://example.org/".into(),
            keywords: vec!["insects".into()],
            doi: "10.1234/abc".into(),
            institution_code: "AM".into(),
            institution_name: "A Museum".into(),
            collection_code: "Insects".into(),
            collection_name: "Insect Division".into(),
            purpose: "p".into(),
            methods: "m".into(),
            update_frequency: "asNeeded".into(),
            creators: vec![party.clone()],
            contacts: vec![party],
            ..Dataset::default()
        };
        assert_eq!((h.format_version, &c.dataset), (10, &expected));
        // The same bytes said to be of format 11 do not decode as its dataset.
        bytes[8..12].copy_from_slice(&11u32.to_le_bytes());
        assert!(decode(Path::new("x.bin"), &bytes).is_err());
    }

    #[test]
    fn reads_the_records_of_version_3_4_and_5_files() {
        let p = Path::new("x.bin");
        let payload = codec::encode(&sample()).unwrap();
        let mut bytes = Vec::from(&MAGIC[..]);
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&1i64.to_le_bytes());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&Sha256::digest(&payload));
        bytes.extend_from_slice(&payload);
        let (h, c) = decode(p, &bytes).unwrap();
        assert_eq!((h.format_version, c), (3, sample_without_wagtail()));
        assert_eq!(sections(p, &h, &bytes).unwrap().prepared, None);
        // Version 4's prepared tables are of another layout: its records are read.
        // Version 5: records, then tables of this version's layout.
        let mut payload = (payload.len() as u64).to_le_bytes().to_vec();
        payload.extend_from_slice(&codec::encode(&sample()).unwrap());
        payload.extend_from_slice(b"tables");
        let mut five = Vec::from(&MAGIC[..]);
        five.extend_from_slice(&5u32.to_le_bytes());
        five.extend_from_slice(&1i64.to_le_bytes());
        five.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        five.extend_from_slice(&Sha256::digest(&payload));
        five.extend_from_slice(&payload);
        let (h5, c5) = decode(p, &five).unwrap();
        assert_eq!((h5.format_version, c5), (5, sample_without_wagtail()));
        let parts = sections(p, &h5, &five).unwrap();
        assert_eq!(
            (parts.wagtail, parts.prepared),
            (None, Some(&b"tables"[..]))
        );
        // Version 4's prepared tables are of another layout: its records are read.
        five[8] = 4;
        let (h4, c4) = decode(p, &five).unwrap();
        assert_eq!((h4.format_version, c4), (4, sample_without_wagtail()));
        assert_eq!(sections(p, &h4, &five).unwrap().prepared, None);
        let mut older = bytes;
        older[8] = 2;
        assert!(matches!(
            decode(p, &older).unwrap_err(),
            SnapshotError::Version { found: 2, .. }
        ));
    }

    #[test]
    fn refuses_truncated_altered_foreign_and_future_files() {
        let p = Path::new("x.bin");
        let (_, bytes) = encode(&sample(), 1, &tables()).unwrap();
        let err = |b: &[u8]| decode(p, b).unwrap_err();
        assert!(matches!(
            err(&bytes[..bytes.len() - 1]),
            SnapshotError::Length { .. }
        ));
        assert!(matches!(err(&bytes[..30]), SnapshotError::Length { .. }));
        // The last piece's last byte: the piece is named.
        let mut altered = bytes.clone();
        *altered.last_mut().unwrap() ^= 1;
        let named = err(&altered);
        assert!(
            matches!(
                named,
                SnapshotError::Piece {
                    part: "the prepared tables",
                    ..
                }
            ),
            "{named}"
        );
        assert!(matches!(
            err(b"[{\"model\": 1}]"),
            SnapshotError::Foreign { .. }
        ));
        // A piece's hash in the table, or a length there.
        let mut altered = bytes.clone();
        altered[HEADER_LEN + 4 + 9 + 3] ^= 1;
        assert!(matches!(err(&altered), SnapshotError::Checksum { .. }));
        let mut altered = bytes.clone();
        altered[HEADER_LEN + 4 + 1] ^= 1;
        assert!(matches!(err(&altered), SnapshotError::Decode { .. }));
        let mut future = bytes.clone();
        future[8] = 13;
        assert!(matches!(
            err(&future),
            SnapshotError::Version { found: 13, .. }
        ));
    }

    /// A file of holes (sparse: a few bytes on disk) whose header and
    /// table's count announce millions of pieces is refused at its first
    /// entry, having read a buffer of it: not the table its length allows.
    #[test]
    fn a_table_of_holes_is_refused_at_its_first_entry() {
        let dir = std::env::temp_dir().join(format!("holes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sparse.bin");
        let len: u64 = 328 << 20;
        let payload_len = len - HEADER_LEN as u64;
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        head.extend_from_slice(&0u64.to_le_bytes());
        head.extend_from_slice(&payload_len.to_le_bytes());
        head.extend_from_slice(&[0; 32]);
        let count = ((payload_len - 4) / ENTRY_LEN as u64) as u32;
        head.extend_from_slice(&count.to_le_bytes());
        std::fs::write(&path, &head).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len)
            .unwrap();
        let said = Pieces::open(&path).err().unwrap().to_string();
        assert!(
            said.contains("names an empty piece whose hash is not that of nothing"),
            "{said}"
        );
        // The same table read from memory: refused at its first entry too.
        let mut read = 0usize;
        struct Counted<'a>(&'a mut usize);
        impl std::io::Read for Counted<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                buf.fill(0);
                *self.0 += buf.len();
                Ok(buf.len())
            }
        }
        let mut zeros = Counted(&mut read);
        let refused = Contents::parse(&path, count.to_le_bytes(), &mut zeros, payload_len);
        assert!(refused.is_err());
        assert_eq!(read, ENTRY_LEN);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The sample encoded and written to `x.bin` in a folder of its own
    /// (`name` and the process id): the folder, the file and its bytes.
    fn sample_written(name: &str) -> (std::path::PathBuf, std::path::PathBuf, Vec<u8>) {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.bin");
        let (_, bytes) = encode(&sample(), 1, &tables()).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        (dir, path, bytes)
    }

    /// A file read piece by piece: its table checked when it opens, each
    /// piece when it is read, and only then; a piece not read is not checked.
    #[test]
    fn pieces_are_checked_as_they_are_read() {
        let (dir, path, bytes) = sample_written("pieces");
        let pieces = Pieces::open(&path).unwrap().expect("version 9");
        pieces.check_all().unwrap();
        let prepared = pieces.contents.pieces(Part::Prepared);
        assert_eq!(pieces.read(prepared).unwrap(), b"tables");
        let wagtail = pieces.read(pieces.contents.pieces(Part::Wagtail)).unwrap();
        assert_eq!(
            decode_wagtail(&path, FORMAT_VERSION, &wagtail).unwrap(),
            sample().wagtail
        );
        // The records' first byte altered: their piece is refused, the
        // tables' still read.
        let records = pieces.contents.pieces(Part::Records)[0].offset as usize;
        let mut altered = bytes.clone();
        altered[HEADER_LEN + records] ^= 1;
        std::fs::write(&path, &altered).unwrap();
        let pieces = Pieces::open(&path).unwrap().expect("version 9");
        let err = pieces.read(pieces.contents.pieces(Part::Records));
        assert!(matches!(
            err,
            Err(SnapshotError::Piece {
                index: 0,
                part: "the records",
                ..
            })
        ));
        assert!(matches!(
            pieces.check_all(),
            Err(SnapshotError::Piece { index: 0, .. })
        ));
        let prepared = pieces.contents.pieces(Part::Prepared);
        assert_eq!(pieces.read(prepared).unwrap(), b"tables");
        // The table's count altered: refused on opening.
        altered[HEADER_LEN] ^= 1;
        std::fs::write(&path, &altered).unwrap();
        assert!(Pieces::open(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// What is left to check of a file once a view read some of its pieces:
    /// the pieces it did not read, while the file is the one it read; every
    /// piece once the file changed.
    #[test]
    fn the_rest_of_a_file_read_is_checked_without_the_pieces_read() {
        let (dir, path, bytes) = sample_written("unread");
        let pieces = Pieces::open(&path).unwrap().expect("version 9");
        pieces.read(pieces.contents.pieces(Part::Prepared)).unwrap();
        let read = pieces.read_so_far();
        let records = pieces.contents.pieces(Part::Records)[0].offset as usize;
        let prepared = pieces.contents.pieces(Part::Prepared)[0].offset as usize;
        drop(pieces);
        check_unread(&path, Some(&read)).unwrap();
        // A piece read, altered behind the file's stamp (its size and time
        // put back): not read again. Unread, it is found.
        let stamped = |altered: &[u8]| {
            let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
            std::fs::write(&path, altered).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(modified).unwrap();
        };
        let mut altered = bytes.clone();
        altered[HEADER_LEN + prepared] ^= 1;
        stamped(&altered);
        check_unread(&path, Some(&read)).unwrap();
        assert!(check(&path).is_err());
        let mut altered = bytes.clone();
        altered[HEADER_LEN + records] ^= 1;
        stamped(&altered);
        assert!(matches!(
            check_unread(&path, Some(&read)),
            Err(SnapshotError::Piece {
                part: "the records",
                ..
            })
        ));
        // Another file at the path (written later): every piece checked.
        let mut altered = bytes.clone();
        altered[HEADER_LEN + prepared] ^= 1;
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, &altered).unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(modified + std::time::Duration::from_secs(10))
            .unwrap();
        assert!(check_unread(&path, Some(&read)).is_err());
        assert!(check_unread(&path, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The records' pieces of an edited collection, kept where they hold no
    /// edited record, are those its whole encoding makes.
    #[test]
    fn records_pieces_kept_beside_edits_equal_those_encoded_whole() {
        let mut c = sample();
        c.countries = (1..=2 * RECORDS_PER_PIECE as i64 + 5)
            .map(|id| Country::numbered(id, format!("Country {id}")))
            .collect();
        let history = History::default();
        let before = encode_head(&c, &history).unwrap();
        let pieces = before.iter().filter(|p| p.part == Part::Records).count();
        // The empty models' counts, the countries' three pieces, the site.
        assert_eq!(
            pieces,
            Model::ALL.iter().filter(|m| m.stored()).count() + 2 + 1
        );
        let edited = [
            RECORDS_PER_PIECE as i64 + 3,
            2 * RECORDS_PER_PIECE as i64 + 5,
        ];
        for &id in &edited {
            c.countries[id as usize - 1].name = format!("edited {id}");
        }
        let edits = [(Model::Country, edited.to_vec())];
        let kept = Kept {
            records: &before[..pieces],
            edited: &edits,
        };
        let kept = encode_head_beside(&c, &history, Some(kept)).unwrap();
        let whole = encode_head(&c, &history).unwrap();
        assert_eq!(kept, whole);
        let changed = before.iter().zip(&whole).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 2, "the pieces of the two edited countries");
        assert_eq!(
            codec::decode::<Collection>(
                &whole[..pieces]
                    .iter()
                    .flat_map(|p| p.bytes().to_vec())
                    .collect::<Vec<_>>()
            )
            .unwrap(),
            Collection {
                wagtail: Wagtail::default(),
                ..c
            }
        );
    }
}
