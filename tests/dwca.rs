//! The Darwin Core Archive: served at `/dwca.zip` and written by `catalogue export
//! dwca` alike, one row per specimen, values that cannot break rows.

use crate::common;

use std::io::Read;

use catalogue::export::dwca::{Dataset, COLUMNS};
use catalogue::serve::Settings;
use common::{catalogue, Server, TempDir};

/// The files of a zip, by name.
fn unzip(bytes: &[u8]) -> std::collections::BTreeMap<String, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    (0..zip.len())
        .map(|i| {
            let mut file = zip.by_index(i).unwrap();
            let mut text = String::new();
            file.read_to_string(&mut text).unwrap();
            (file.name().unwrap().to_string(), text)
        })
        .collect()
}

/// occurrence.txt as rows of cells, header first.
fn rows(occurrences: &str) -> Vec<Vec<String>> {
    assert!(occurrences.ends_with('\n'));
    occurrences
        .lines()
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn dataset() -> Dataset {
    Dataset {
        title: "Lepidoptera of the sample".into(),
        description: "Pinned & spread <specimens>".into(),
        publisher: "Sample Museum".into(),
        license: "http://creativecommons.org/licenses/by/4.0/legalcode".into(),
        institution_code: "SMU".into(),
        collection_code: "ENT".into(),
    }
}

#[test]
fn the_served_archive_is_the_exported_one_and_revalidates() {
    let dir = TempDir::new("dwca");
    let settings = Settings {
        dataset: dataset(),
        ..Settings::default()
    };
    let server = Server::start(&common::sample_snapshot(), settings);
    let served = server.send("GET", "/dwca.zip", &[("Accept-Encoding", "gzip, br")]);
    assert_eq!(served.status, 200);
    assert_eq!(served.header("content-type"), Some("application/zip"));
    // Already compressed: never compressed again.
    assert_eq!(served.header("content-encoding"), None);
    let tag = served.header("etag").unwrap().to_string();
    assert_eq!(
        served.header("content-length"),
        Some(served.body.len().to_string().as_str())
    );

    // The same bytes from the command line, with the same dataset from a file.
    let config = dir.path("dataset.json");
    std::fs::write(
        &config,
        r#"{"title": "Lepidoptera of the sample", "description": "Pinned & spread <specimens>",
            "publisher": "Sample Museum", "license": "none", "institution_code": "SMU"}"#,
    )
    .unwrap();
    let out = dir.path("out.zip");
    let run = catalogue(&[
        "export",
        "dwca",
        common::sample_snapshot().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        config.to_str().unwrap(),
        "--dataset-license",
        "http://creativecommons.org/licenses/by/4.0/legalcode",
        "--collection-code",
        "ENT",
    ]);
    assert!(run.status.success(), "{run:?}");
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        format!(
            "wrote {} (8 occurrences, {} bytes)\n",
            out.display(),
            served.body.len()
        )
    );
    assert!(std::fs::read(&out).unwrap() == served.body);

    // Made once per view: the same tag and bytes again; HEAD and 304 agree.
    let again = server.get("/dwca.zip");
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    assert!(again.body == served.body);
    let head = server.send("HEAD", "/dwca.zip", &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    let cached = server.send("GET", "/dwca.zip", &[("If-None-Match", &tag)]);
    assert_eq!((cached.status, cached.body.len()), (304, 0));
    assert_eq!(server.send("POST", "/dwca.zip", &[]).status, 405);

    let files = unzip(&served.body);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["eml.xml", "meta.xml", "occurrence.txt"]
    );
    let eml = &files["eml.xml"];
    for part in [
        "<title xml:lang=\"en\">Lepidoptera of the sample</title>",
        "<abstract><para>Pinned &amp; spread &lt;specimens&gt;</para></abstract>",
        "<intellectualRights><para>http://creativecommons.org/licenses/by/4.0/legalcode</para></intellectualRights>",
        "<publisher><organizationName>Sample Museum</organizationName></publisher>",
    ] {
        assert!(eml.contains(part), "{part} in {eml}");
    }
    let rows = rows(&files["occurrence.txt"]);
    let header: Vec<&str> = COLUMNS.iter().map(|(t, _)| *t).collect();
    assert_eq!(rows[0], header);
    assert_eq!(rows.len(), 1 + 8);
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let first = &rows[1];
    for (name, value) in [
        ("occurrenceID", "UMMZ-000001"),
        ("institutionCode", "SMU"),
        ("collectionCode", "ENT"),
        ("order", "Lepidoptera"),
        ("taxonRank", "subspecies"),
        ("eventDate", "2019-10-04"),
        ("countryCode", "US"),
        ("habitat", "Roosting on Quercus virginiana & live oaks"),
    ] {
        assert_eq!(first[col(name)], value, "{name}");
    }
}

#[test]
fn tabs_and_newlines_in_values_do_not_break_rows() {
    let dir = TempDir::new("dwca-breaks");
    let fixture = std::fs::read_to_string(common::sample_fixture()).unwrap();
    let mut objects: serde_json::Value = serde_json::from_str(&fixture).unwrap();
    for o in objects.as_array_mut().unwrap() {
        if o["model"] == "specimens.specimenrecord" {
            o["fields"]["notes"] = "line one\r\nline\ttwo\n".into();
            o["fields"]["weather"] = "wet\tcold".into();
        }
    }
    let path = dir.path("breaks.json");
    std::fs::write(&path, objects.to_string()).unwrap();
    let snapshot = dir.path("breaks.bin");
    let checked = catalogue::ingest::from_fixtures(&[path]);
    catalogue::ingest::write_snapshot(&checked, &snapshot, catalogue::view::prepared::encode)
        .unwrap();
    let view = catalogue::view::View::load(&snapshot).unwrap();
    let bytes = catalogue::export::dwca::archive(
        &view,
        &Dataset::default(),
        catalogue::export::dwca::Scope::Everything,
    )
    .unwrap();
    let rows = rows(&unzip(&bytes)["occurrence.txt"]);
    assert_eq!(rows.len(), 1 + 8);
    let remarks = COLUMNS
        .iter()
        .position(|(t, _)| *t == "occurrenceRemarks")
        .unwrap();
    for row in &rows[1..] {
        assert_eq!(row.len(), COLUMNS.len());
        assert_eq!(row[remarks], "line one line two");
        assert!(row[remarks + 1].starts_with("weather: wet cold"), "{row:?}");
    }
}

#[test]
fn a_bad_dataset_file_is_refused_with_its_name() {
    let dir = TempDir::new("dwca-config");
    let config = dir.path("dataset.json");
    std::fs::write(&config, r#"{"titel": "typo"}"#).unwrap();
    let out = dir.path("out.zip");
    let run = catalogue(&[
        "export",
        "dwca",
        common::sample_snapshot().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        config.to_str().unwrap(),
    ]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains(&format!(
            "the dataset file {} is not valid",
            config.display()
        )) && err.contains("unknown field `titel`"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn an_export_warns_of_each_value_a_publishable_archive_lacks() {
    let dir = TempDir::new("dwca-warnings");
    let out = dir.path("out.zip");
    let snapshot = common::sample_snapshot();
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "dwca",
            snapshot.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let run = catalogue(&args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    assert_eq!(
        export(&[]),
        "warning: no --dataset-title (CATALOGUE_DATASET_TITLE, or \"title\" in --dataset-config): \
         eml.xml's title is the placeholder \"Specimen records\"\n\
         warning: no --dataset-description (CATALOGUE_DATASET_DESCRIPTION, or \"description\" in \
         --dataset-config): eml.xml has no abstract\n\
         warning: no --dataset-publisher (CATALOGUE_DATASET_PUBLISHER, or \"publisher\" in \
         --dataset-config): eml.xml has no creator, contact or publisher\n\
         warning: no --dataset-license (CATALOGUE_DATASET_LICENSE, or \"license\" in \
         --dataset-config): eml.xml has no intellectualRights (GBIF takes CC0 1.0, CC BY 4.0, \
         CC BY-NC 4.0)\n\
         warning: no --institution-code (CATALOGUE_INSTITUTION_CODE, or \"institution_code\" in \
         --dataset-config): every occurrence's institutionCode is empty\n\
         warning: no --collection-code (CATALOGUE_COLLECTION_CODE, or \"collection_code\" in \
         --dataset-config): every occurrence's collectionCode is empty\n"
    );
    assert!(out.exists(), "the archive is written all the same");
    assert_eq!(
        export(&[
            "--dataset-title",
            "Sample",
            "--dataset-description",
            "Pinned",
            "--dataset-publisher",
            "Sample Museum",
            "--dataset-license",
            "CC0 1.0",
            "--institution-code",
            "SMU",
            "--collection-code",
            "ENT",
        ]),
        ""
    );
}

/// Records the terms a specimen is written as, in the order they come.
#[derive(Default)]
struct Said(Vec<catalogue::view::occurrence::Term>);

impl catalogue::view::occurrence::Sink for Said {
    fn text(&mut self, term: catalogue::view::occurrence::Term, _: &str) {
        self.0.push(term);
    }
    fn int(&mut self, term: catalogue::view::occurrence::Term, _: Option<i64>) {
        self.0.push(term);
    }
    fn float(&mut self, term: catalogue::view::occurrence::Term, _: Option<f64>) {
        self.0.push(term);
    }
}

/// Every specimen says every term once, in the columns' order, whichever of
/// its values are missing (a term out of place would shift the archive's
/// later columns).
#[test]
fn every_specimen_says_each_term_once_in_column_order() {
    use catalogue::model::Model;
    use catalogue::view::occurrence::{Occurrences, Term};
    let view = catalogue::view::View::load(&common::sample_snapshot()).unwrap();
    let occurrences = Occurrences::new(&view, "I", "C");
    let specimens = view.table(Model::SpecimenRecord).len();
    assert!(specimens > 0);
    for pos in 0..specimens {
        let mut said = Said::default();
        occurrences.terms(pos, &mut said);
        assert_eq!(said.0, Term::ALL, "specimen at {pos}");
    }
    let names: Vec<&str> = Term::ALL.iter().map(|t| t.name()).collect();
    let columns: Vec<&str> = COLUMNS.iter().map(|(t, _)| *t).collect();
    assert_eq!(names, columns);
}

/// `/eml.xml` is the whole archive's `eml.xml`, byte for byte, with a tag of
/// its own; it takes no question (a question's archive holds its own).
#[test]
fn the_datasets_metadata_is_served_as_the_archive_holds_it() {
    let s = Server::sample();
    let eml = s.get("/eml.xml");
    assert_eq!(eml.status, 200);
    assert_eq!(
        eml.header("content-type"),
        Some("application/xml; charset=utf-8")
    );
    let archive = unzip(&s.get("/dwca.zip").body);
    assert_eq!(eml.text(), archive["eml.xml"]);
    let tag = eml.header("etag").expect("a tag").to_string();
    let again = s.send("GET", "/eml.xml", &[("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
    let head = s.send("HEAD", "/eml.xml", &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    s.assert_error(
        "/eml.xml?family=nymph",
        400,
        "/eml.xml takes no parameters, not family: a question's metadata is the eml.xml inside its /dwca.zip",
    );
}
