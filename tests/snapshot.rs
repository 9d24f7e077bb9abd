//! The bundled sample and the snapshot file: they agree, and bad files are refused.

use crate::common;

use common::{catalogue, sample_fixture, sample_snapshot, TempDir};

#[test]
fn the_bundled_snapshot_is_built_from_the_bundled_fixture() {
    let mut checked = catalogue::ingest::from_fixtures(&[sample_fixture()]);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    checked.collection.dataset = catalogue::model::dataset::Dataset::from_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshot/dataset.toml"),
    )
    .unwrap();
    // The one warning is on purpose: an image without its thumbnail rendition,
    // whose `thumbnail` the API then shows as null.
    let warned: Vec<&str> = checked.warnings.iter().map(|w| w.place.as_str()).collect();
    assert_eq!(warned, ["images.customimage pk=2 thumbnail"]);
    let (header, collection) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    let prepared = catalogue::view::prepared::encode(&checked.collection);
    let (fresh, _) = catalogue::snapshot::encode(&checked.collection, 0, &prepared).unwrap();
    assert!(
        header.checksum == fresh.checksum && collection == checked.collection,
        "snapshot/collection.bin is stale: rebuild it with \
         `cargo run --release -- build snapshot/collection.json -o snapshot/collection.bin \
         --dataset-config snapshot/dataset.toml`"
    );
}

#[test]
fn inspect_prints_version_checksum_and_counts() {
    let o = catalogue(&["inspect", sample_snapshot().to_str().unwrap()]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let (header, _) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    assert!(out.contains("format version: 12\n"), "{out}");
    assert!(
        out.contains(&format!("checksum: {}\n", header.checksum_hex())),
        "{out}"
    );
    assert!(out.contains("specimens.specimenrecord: 8\n"), "{out}");
    assert!(out.contains("geography.state: 7\n"), "{out}");
}

fn serve_refuses(bytes: &[u8], expected: &str) {
    let dir = TempDir::new("refuse");
    let path = dir.path("bad.bin");
    std::fs::write(&path, bytes).unwrap();
    for args in [
        vec!["inspect", path.to_str().unwrap()],
        vec![
            "serve",
            "--snapshot",
            path.to_str().unwrap(),
            "--addr",
            "127.0.0.1:0",
        ],
    ] {
        let o = catalogue(&args);
        assert!(!o.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(expected),
            "{args:?}: expected {expected:?} in {err}"
        );
    }
}

#[test]
fn truncated_altered_and_foreign_files_are_refused() {
    let good = std::fs::read(sample_snapshot()).unwrap();
    serve_refuses(
        &good[..good.len() - 10],
        "is truncated or has trailing bytes",
    );
    serve_refuses(&good[..40], "is truncated or has trailing bytes");
    let mut altered = good.clone();
    let n = altered.len();
    altered[n - 100] ^= 0x20;
    serve_refuses(&altered, "is damaged or altered");
    serve_refuses(
        b"[{\"model\": \"taxonomy.order\"}]",
        "is not a catalogue snapshot",
    );
    serve_refuses(b"", "is truncated or has trailing bytes");
    serve_refuses(b"junk", "is not a catalogue snapshot");
    let mut future = good.clone();
    let next = catalogue::snapshot::FORMAT_VERSION + 1;
    future[8..12].copy_from_slice(&next.to_le_bytes());
    serve_refuses(
        &future,
        &format!(
            "is snapshot format version {next}, a format newer than this catalogue: this \
             catalogue reads versions 3 to {}",
            next - 1
        ),
    );
}

#[test]
fn a_missing_snapshot_is_a_clear_error() {
    let o = catalogue(&[
        "serve",
        "--snapshot",
        "/nonexistent/x.bin",
        "--addr",
        "127.0.0.1:0",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("there is no snapshot at /nonexistent/x.bin: give its path with --snapshot"));
}

#[test]
fn a_snapshot_with_invalid_records_is_refused() {
    // A checksum-valid file whose records break a rule (made by hand, not by `build`).
    let mut collection = catalogue::snapshot::read(&sample_snapshot()).unwrap().1;
    collection.states[0].country = 99;
    let dir = TempDir::new("invalid");
    let path = dir.path("invalid.bin");
    // Records alone: the view is built from them, and they are checked.
    catalogue::snapshot::write(&path, &collection, 0, &[]).unwrap();
    let err = refusal(&path);
    assert!(
        err.contains("fail validation") && err.contains("geography.state pk=1 country"),
        "{err}"
    );
}

#[test]
fn a_snapshot_whose_prepared_tables_do_not_decode_is_refused() {
    let collection = catalogue::snapshot::read(&sample_snapshot()).unwrap().1;
    let mut prepared = catalogue::view::prepared::encode(&collection);
    prepared.truncate(prepared.len() / 2);
    let dir = TempDir::new("undecodable");
    let path = dir.path("undecodable.bin");
    catalogue::snapshot::write(&path, &collection, 0, &prepared).unwrap();
    let err = refusal(&path);
    assert!(err.contains("has a payload that does not decode"), "{err}");
}

/// What `serve` says on its way out when it refuses the snapshot at `path`.
fn refusal(path: &std::path::Path) -> String {
    let o = catalogue(&[
        "serve",
        "--snapshot",
        path.to_str().unwrap(),
        "--addr",
        "127.0.0.1:0",
    ]);
    assert!(!o.status.success());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `build -o` over something that is not a regular file (a FIFO here; `/dev/null`
/// is the usual one) is refused: writing renames a new file over the target, which
/// would replace it.
#[test]
fn building_over_something_not_a_file_is_refused() {
    let dir = TempDir::new("not-a-file");
    let fifo = dir.path("pipe");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let fixture = sample_fixture();
    let o = catalogue(&[
        "build",
        fixture.to_str().unwrap(),
        "-o",
        fifo.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt as _;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// `sync`'s preparer makes again, in place, only the rows of the specimens an
/// edit changed, and what it writes is byte for byte what preparing the whole
/// collection writes: edit after edit of every kind of field (strings new to a
/// column, strings no row holds any more, a string first held by an earlier
/// row, nulls, references, collectors), across columns narrow and wide, with a
/// lookup and without. Records added or another model changed make every
/// table, and the edits after them are made in place again.
#[test]
fn prepared_tables_remade_in_place_equal_those_prepared_whole() {
    use catalogue::model::digest::Digest;
    use catalogue::snapshot::Tables;
    use catalogue::view::prepared::{self, Preparer};
    let dir = TempDir::new("remade");
    let fixture = dir.path("generated.json");
    let file = std::fs::File::create(&fixture).unwrap();
    catalogue::ingest::synthetic::write(std::io::BufWriter::new(file), 3000, 5).unwrap();
    let mut c = catalogue::ingest::from_fixtures(&[fixture]).collection;
    let people: Vec<i64> = c.people.iter().map(|p| p.id).collect();
    let species: Vec<i64> = c.species.iter().map(|s| s.id).collect();
    let n = c.specimen_records.len();
    // The last rows hold a year, so that a null there and gone again leaves
    // the column's nulls as long as before.
    for s in &mut c.specimen_records[n - 130..] {
        s.year = Some(2000);
    }
    let mut preparer = Preparer::default();
    let mut seed = 7u64;
    let mut next = |below: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % below
    };
    let mut remade = Vec::new();
    for round in 0..14 {
        match round {
            // The first preparation, and one after a specimen is added, or
            // a person renamed: every table.
            0 => {}
            5 => {
                let mut added = c.specimen_records[0].clone();
                added.id = c.specimen_records.iter().map(|s| s.id).max().unwrap() + 1;
                added.usi = format!("ADDED-{round}");
                c.specimen_records.push(added);
            }
            9 => c.people[0].last_name.push_str(" Jr."),
            _ => {
                for edit in 0..6 {
                    let (i, other) = (next(n), next(n));
                    let other_notes = c.specimen_records[other].notes.clone();
                    let s = &mut c.specimen_records[i];
                    match (round + edit) % 9 {
                        0 => s.notes = format!("a note no row held before, {round}.{edit}"),
                        1 => s.notes = other_notes,
                        2 => s.usi = format!("USI-{round}-{edit}"),
                        3 => {
                            s.sex =
                                ["", "male", "female", "a sex new to the column"][next(4)].into()
                        }
                        4 => {
                            s.determined_year =
                                [None, Some(1850), Some(2_000_000_000_000)][next(3)];
                            s.labeled = [None, Some(true), Some(false)][next(3)];
                        }
                        5 => {
                            s.collector =
                                (0..next(4)).map(|_| people[next(people.len())]).collect();
                            s.collector.sort_unstable();
                            s.collector.dedup();
                        }
                        6 => {
                            s.species = Some(species[next(species.len())]);
                            s.preparation_date = None;
                        }
                        7 => s.gps = None,
                        _ => {
                            // What the first specimen held, now held first by
                            // a later one (the strings numbered again).
                            let first = &mut c.specimen_records[0];
                            first.method = format!("a method first held at {round}");
                            first.weather = String::new();
                        }
                    }
                }
                c.specimen_records[next(n)].date_modified += 1;
                c.specimen_records[n - 1].year = [Some(2000), None][round % 2];
            }
        }
        let digest = Digest::of(&c);
        let made = preparer.prepare(&c, &digest);
        assert!(
            made == prepared::encode(&c),
            "round {round}: the bytes differ"
        );
        remade.push(preparer.made());
    }
    assert_eq!(remade[0], Tables::Whole);
    assert_eq!(remade[5], Tables::Whole, "a specimen added");
    assert_eq!(remade[9], Tables::Whole, "a person renamed");
    let in_place = remade
        .iter()
        .filter(|r| matches!(r, Tables::Remade(n) if *n > 0))
        .count();
    assert_eq!(in_place, 11, "{remade:?}");
}

/// A `sync` tick that read only edits checks and digests only the edited
/// records: what it finds equals the whole check's verdict and the whole
/// digest, for clean edits and for each kind of error an edit can bring
/// (a reference to nothing, a usi another specimen holds, a temperature that
/// is not a number), in the whole check's order, records held back given
/// among the edited; and an edit of another model is checked whole.
#[test]
fn edits_checked_alone_find_what_the_whole_check_finds() {
    use catalogue::ingest::{check, check_edits};
    use catalogue::model::digest::Digest;
    use catalogue::model::validate::edit_problems;
    use catalogue::model::Model;
    let dir = TempDir::new("edits");
    let fixture = dir.path("generated.json");
    let file = std::fs::File::create(&fixture).unwrap();
    catalogue::ingest::synthetic::write(std::io::BufWriter::new(file), 2000, 3).unwrap();
    let base = catalogue::ingest::from_fixtures(&[fixture]).collection;
    assert!(check(base.clone(), Vec::new(), Default::default())
        .errors
        .is_empty());
    let digest = Digest::of(&base);
    let (a, b) = (base.specimen_records[10].id, base.specimen_records[1500].id);
    let held_usi = base.specimen_records[700].usi.clone();
    let person = base.people[3].id;
    type Edit = Box<dyn Fn(&mut catalogue::model::records::Collection)>;
    let at = |c: &mut catalogue::model::records::Collection, id: i64| {
        let i = c.specimen_records.iter().position(|s| s.id == id).unwrap();
        i
    };
    let cases: Vec<(&str, Vec<i64>, bool, Edit)> = vec![
        (
            "notes and collectors, unsorted",
            vec![a, b],
            true,
            Box::new(move |c| {
                let i = at(c, a);
                c.specimen_records[i].notes = "an edit".into();
                c.specimen_records[i].collector = vec![person + 1, person];
                let j = at(c, b);
                c.specimen_records[j].usi = "NEW-123456".into();
            }),
        ),
        (
            "a determiner that is not there",
            vec![a],
            false,
            Box::new(move |c| {
                let i = at(c, a);
                c.specimen_records[i].determiner = Some(987_654_321);
            }),
        ),
        (
            "a collector that is not there",
            vec![b],
            false,
            Box::new(move |c| {
                let i = at(c, b);
                c.specimen_records[i].collector.push(987_654_321);
            }),
        ),
        (
            "another specimen's usi",
            vec![a],
            false,
            Box::new(move |c| {
                let i = at(c, a);
                c.specimen_records[i].usi = held_usi.clone();
            }),
        ),
        (
            "one new usi given to two",
            vec![a, b],
            false,
            Box::new(move |c| {
                for id in [a, b] {
                    let i = at(c, id);
                    c.specimen_records[i].usi = "TWICE-000001".into();
                }
            }),
        ),
        (
            "an edit beside a record held back (given among the edited)",
            vec![b, a],
            false,
            Box::new(move |c| {
                let i = at(c, a);
                c.specimen_records[i].notes = "an edit".into();
                let j = at(c, b);
                c.specimen_records[j].temperature = "warm".into();
                c.specimen_records[j].determiner = Some(987_654_321);
            }),
        ),
        (
            "a temperature that is not a number",
            vec![b],
            false,
            Box::new(move |c| {
                let i = at(c, b);
                c.specimen_records[i].temperature = "warm".into();
            }),
        ),
    ];
    for (case, ids, clean, edit) in &cases {
        let mut edited = base.clone();
        edit(&mut edited);
        let edits = [(Model::SpecimenRecord, ids.clone())];
        let whole = check(edited.clone(), Vec::new(), Default::default());
        let alone = check_edits(edited.clone(), Vec::new(), Some(&edits));
        assert_eq!(
            whole.errors.is_empty(),
            *clean,
            "{case}: {:?}",
            whole.errors
        );
        let problems = edit_problems(&whole.collection, &edits);
        assert_eq!(problems.as_ref(), Some(&whole.errors), "{case}");
        assert_eq!(alone.errors, whole.errors, "{case}");
        assert!(
            alone.collection == whole.collection,
            "{case}: not made canonical"
        );
        assert_eq!(
            digest.edited(&whole.collection, &edits),
            Some(Digest::of(&whole.collection)),
            "{case}"
        );
    }
    // An edit of a person is not told apart alone: the whole check runs.
    let mut renamed = base.clone();
    renamed.people[3].last_name.push_str(" Jr.");
    let edits = [(Model::Person, vec![person])];
    assert_eq!(edit_problems(&renamed, &edits), None);
    let alone = check_edits(renamed.clone(), Vec::new(), Some(&edits));
    let whole = check(renamed, Vec::new(), Default::default());
    assert_eq!(
        (alone.errors, alone.warnings),
        (whole.errors, whole.warnings)
    );
    // An edited id that is not there digests whole.
    assert_eq!(
        digest.edited(&base, &[(Model::SpecimenRecord, vec![-5])]),
        None
    );
}

/// A format 10 snapshot (its dataset part of the keys of then, frozen here
/// as that format wrote them) is served: its description read, the keys
/// added since empty, through the path a server loads (pieces, tables).
#[test]
fn a_format_10_snapshot_is_served_with_its_description() {
    #[derive(serde::Serialize)]
    struct Party10 {
        name: String,
        organization: String,
        email: String,
        orcid: String,
    }
    #[derive(serde::Serialize)]
    struct Dataset10 {
        title: String,
        description: String,
        publisher: String,
        license: String,
        language: String,
        homepage: String,
        keywords: Vec<String>,
        citation: String,
        doi: String,
        institution_code: String,
        institution_name: String,
        collection_code: String,
        collection_name: String,
        purpose: String,
        methods: String,
        update_frequency: String,
        rights_holder: String,
        creators: Vec<Party10>,
        contacts: Vec<Party10>,
        metadata_providers: Vec<Party10>,
    }
    use catalogue::snapshot::{assemble, codec, encode_head, Part, Piece};
    let (_, collection) = catalogue::snapshot::read(&sample_snapshot()).unwrap();
    let ten = Dataset10 {
        title: "Insects of then".into(),
        description: String::new(),
        publisher: "A Museum".into(),
        license: "CC0-1.0".into(),
        language: "en".into(),
        homepage: String::new(),
        keywords: vec![],
        citation: String::new(),
        doi: String::new(),
        institution_code: "UMMZ".into(),
        institution_name: String::new(),
        collection_code: String::new(),
        collection_name: String::new(),
        purpose: String::new(),
        methods: String::new(),
        update_frequency: String::new(),
        rights_holder: String::new(),
        creators: vec![Party10 {
            name: "Jan van der Berg".into(),
            organization: String::new(),
            email: String::new(),
            orcid: String::new(),
        }],
        contacts: vec![],
        metadata_providers: vec![],
    };
    let mut head = encode_head(&collection, &collection.history).unwrap();
    for piece in head.iter_mut().filter(|p| p.part == Part::Dataset) {
        *piece = Piece::new(Part::Dataset, codec::encode(&ten).unwrap());
    }
    // Format 10's versions: none here (a history of none reads as any format's).
    let none = codec::encode(&Vec::<u8>::new()).unwrap();
    for piece in head.iter_mut().filter(|p| p.part == Part::History) {
        *piece = Piece::new(Part::History, none.clone());
    }
    let prepared = catalogue::view::prepared::encode(&collection);
    let image = assemble(head, &prepared, 1_700_000_000_000_000);
    let mut bytes = image.parts().concat();
    bytes[8..12].copy_from_slice(&10u32.to_le_bytes());
    let dir = TempDir::new("format-10");
    let path = dir.path("ten.bin");
    std::fs::write(&path, &bytes).unwrap();
    let view = catalogue::view::View::load(&path).unwrap();
    assert_eq!(view.header.format_version, 10);
    let d = &view.dataset;
    assert_eq!(
        (d.title.as_str(), d.creators[0].name_parts(), d.id.as_str()),
        ("Insects of then", ("Jan", "van der Berg"), "")
    );
    assert!(d.project.personnel.is_empty() && d.version_dois.is_empty());
    let s = common::Server::start(&path, Default::default());
    let text = s.send("GET", "/api/v2/citation/?accessed=2026-11-29", &[]);
    assert_eq!(
        text.text(),
        "van der Berg J (2023). Insects of then. Version 1. A Museum. Occurrence dataset. \
         http://t/ accessed via t on 2026-11-29.\n"
    );
}
