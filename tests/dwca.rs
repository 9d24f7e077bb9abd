//! The Darwin Core Archive: served at `/dwca.zip` and written by `catalogue export
//! dwca` alike, one row per specimen, values that cannot break rows.

use crate::common;

use std::io::Read;

use catalogue::export::dwca::COLUMNS;
use catalogue::model::dataset::{Dataset, Party, Told};
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
        creators: vec![Party {
            name: "Ada M. Lovelace".into(),
            email: "ada@example.org".into(),
            orcid: "0000-0002-1825-0097".into(),
            ..Party::default()
        }],
        ..Dataset::default()
    }
}

#[test]
fn the_served_archive_is_the_exported_one_and_revalidates() {
    let dir = TempDir::new("dwca");
    let settings = Settings {
        dataset: Told {
            file: Some(dataset()),
            values: Vec::new(),
        },
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

    // The same bytes from the command line, with the same dataset from a file
    // and the address it was asked at (`Host: t`) as the public one.
    let config = dir.path("dataset.json");
    std::fs::write(
        &config,
        r#"{"title": "Lepidoptera of the sample", "description": "Pinned & spread <specimens>",
            "publisher": "Sample Museum", "license": "CC0-1.0", "institution_code": "SMU",
            "creators": [{"name": "Ada M. Lovelace", "email": "ada@example.org",
                          "orcid": "https://orcid.org/0000-0002-1825-0097"}]}"#,
    )
    .unwrap();
    let out = dir.path("out.zip");
    let origin = "http://t";
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
        "--public-url",
        origin,
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
    // A question may be POSTed as a form; anything else is not one.
    assert_eq!(server.send("POST", "/dwca.zip", &[]).status, 415);
    // Asked by another name, its photographs' URLs are that name's.
    let other = server.send("GET", "/dwca.zip", &[("Host", "specimens.example.org")]);
    assert_eq!(other.status, 200);
    assert_ne!(other.header("etag"), Some(tag.as_str()));
    let media = unzip(&other.body)["multimedia.txt"].clone();
    assert!(
        media.contains(
            "\thttp://specimens.example.org/media/original_images/ummz-000001-dorsal.jpg\t"
        ),
        "{media}"
    );

    let files = unzip(&served.body);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["eml.xml", "meta.xml", "multimedia.txt", "occurrence.txt"]
    );
    let eml = &files["eml.xml"];
    for part in [
        "<title xml:lang=\"en\">Lepidoptera of the sample</title>",
        "<abstract>\n      <para>Pinned &amp; spread &lt;specimens&gt;</para>\n    </abstract>",
        "<intellectualRights><para>This work is licensed under a <ulink url=\"http://creativecommons.org/licenses/by/4.0/legalcode\">\
         <citetitle>Creative Commons Attribution (CC-BY) 4.0</citetitle></ulink>.</para></intellectualRights>",
        // The profile has no publisher element: a party with GBIF's role.
        "<associatedParty>\n      <organizationName>Sample Museum</organizationName>\n      \
         <role>publisher</role>\n    </associatedParty>",
        // No metadata provider given: the publisher stands in (profile 1.1 requires one).
        "<metadataProvider>\n      <organizationName>Sample Museum</organizationName>\n    </metadataProvider>",
        // Nothing said of updates: GBIF's spelling of unknown.
        "<maintenanceUpdateFrequency>unkown</maintenanceUpdateFrequency>",
        // Where the archive is downloaded, as the IPT says it.
        "<objectName>dwca.zip</objectName>",
        "<url function=\"download\">http://t/dwca.zip</url>",
        "<collection>\n          <parentCollectionIdentifier>SMU</parentCollectionIdentifier>\n          \
         <collectionIdentifier>ENT</collectionIdentifier>\n          \
         <collectionName>N/A</collectionName>\n        </collection>",
        "<creator>\n      <individualName>\n        <givenName>Ada M.</givenName>\n        \
         <surName>Lovelace</surName>\n      </individualName>\n      \
         <electronicMailAddress>ada@example.org</electronicMailAddress>\n      \
         <userId directory=\"https://orcid.org/\">0000-0002-1825-0097</userId>\n    </creator>",
        // No contact given: the publisher stands in, as the profile requires one.
        "<contact>\n      <organizationName>Sample Museum</organizationName>\n    </contact>",
        "<westBoundingCoordinate>-84.8</westBoundingCoordinate>",
        "<calendarDate>1998-05-30</calendarDate>",
        "<taxonRankName>family</taxonRankName>\n          <taxonRankValue>Saturniidae</taxonRankValue>",
    ] {
        assert!(eml.contains(part), "{part} in {eml}");
    }
    let media = rows(&files["multimedia.txt"]);
    assert_eq!(
        media[1],
        [
            "urn:catalog:SMU:ENT:UMMZ-000001",
            "StillImage",
            "image/jpeg",
            &format!("{origin}/media/original_images/ummz-000001-dorsal.jpg"),
            &format!("{origin}/api/v2/specimen-records/1/"),
            "UMMZ-000001 dorsal",
            "Monarch, dorsal view",
            "2023-02-11",
            "",
            "http://creativecommons.org/licenses/by/4.0/",
            "Sample Museum",
        ]
    );
    assert_eq!(media.len(), 1 + 2);
    let rows = rows(&files["occurrence.txt"]);
    let header: Vec<&str> = COLUMNS.iter().map(|(t, _)| *t).collect();
    assert_eq!(rows[0], header);
    assert_eq!(rows.len(), 1 + 8);
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    // Each photograph's row extends an occurrence's, by its id.
    for photograph in &media[1..] {
        let extended = rows[1..].iter().filter(|r| r[0] == photograph[0]).count();
        assert_eq!(extended, 1, "{photograph:?}");
    }
    let first = &rows[1];
    for (name, value) in [
        // Darwin Core's catalogue URN of the dataset's codes: unique among
        // collections, unlike the catalogue number alone.
        ("occurrenceID", "urn:catalog:SMU:ENT:UMMZ-000001"),
        ("catalogNumber", "UMMZ-000001"),
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
        catalogue::export::dwca::Scope::Everything,
        &catalogue::export::dwca::Links::default(),
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

/// Exports the sample with a dataset file `name` holding `text`, which must be
/// refused with nothing written: what was said on standard error, and the file.
fn refused_dataset_file(name: &str, text: &str) -> (String, std::path::PathBuf) {
    let dir = TempDir::new("dwca-config");
    let config = dir.path(name);
    std::fs::write(&config, text).unwrap();
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
    assert!(!out.exists());
    (String::from_utf8_lossy(&run.stderr).into_owned(), config)
}

#[test]
fn a_bad_dataset_file_is_refused_with_its_name() {
    let (err, config) = refused_dataset_file("dataset.json", r#"{"titel": "typo"}"#);
    assert!(
        err.contains(&format!(
            "the dataset file {} is not valid JSON",
            config.display()
        )) && err.contains("unknown field `titel`"),
        "{err}"
    );
}

#[test]
fn a_licence_gbif_does_not_take_is_refused_naming_the_three() {
    let (err, config) = refused_dataset_file(
        "dataset.toml",
        "title = \"T\"\nlicense = \"CC-BY-SA-4.0\"\n",
    );
    assert_eq!(
        err,
        format!(
            "error: {}: license: \"CC-BY-SA-4.0\" is not a licence GBIF publishes under: write \
             CC0-1.0, CC-BY-4.0 or CC-BY-NC-4.0 (or their creativecommons.org URL)\n",
            config.display()
        )
    );
}

#[test]
fn an_export_warns_once_of_what_a_publishable_archive_lacks() {
    let dir = TempDir::new("dwca-warnings");
    let out = dir.path("out.zip");
    // A snapshot that says nothing of its dataset.
    let snapshot = dir.path("bare.bin");
    let checked = catalogue::ingest::from_fixtures(&[common::sample_fixture()]);
    catalogue::ingest::write_snapshot(&checked, &snapshot, catalogue::view::prepared::encode)
        .unwrap();
    let export = |extra: &[&str]| {
        let mut args = vec![
            "export",
            "dwca",
            snapshot.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--public-url",
            "https://specimens.example.org",
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
    let warned = export(&[]);
    assert!(
        warned.starts_with(
            "warning: the dataset's description lacks title, description, license, publisher, \
             creators, contacts, metadata_providers, institution_code, institution_name, \
             collection_code, collection_name (give them in --dataset-config; `catalogue dataset \
             init` writes a template): title: "
        ) && warned.ends_with("collection_name: eml.xml's collectionName is N/A\n")
            && warned.lines().count() == 1,
        "{warned}"
    );
    assert!(out.exists(), "the archive is written all the same");
    // The bundled sample's own description lacks nothing.
    let sample = common::sample_snapshot();
    let run = catalogue(&[
        "export",
        "dwca",
        sample.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--public-url",
        "https://specimens.example.org",
    ]);
    assert!(run.status.success());
    assert_eq!(String::from_utf8_lossy(&run.stderr), "");
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

/// Every specimen says every term once, in the columns' order as the
/// archive declares them: `occurrence.txt`'s header and `meta.xml`'s field
/// indexes (a term out of place would shift the archive's later columns).
#[test]
fn every_specimen_says_each_term_once_in_column_order() {
    use catalogue::model::Model;
    use catalogue::view::occurrence::Occurrences;
    let server = Server::sample();
    let archive = unzip(&server.get("/dwca.zip").body);
    let header = rows(&archive["occurrence.txt"]).swap_remove(0);
    // meta.xml's core fields by index: the last segment of each term's URI.
    let meta = &archive["meta.xml"];
    let core = &meta[..meta.find("</core>").expect("a core")];
    let declared: Vec<(usize, &str)> = (core.split("<field index=\"").skip(1))
        .map(|f| {
            let (index, rest) = f.split_once("\" term=\"").expect("a term");
            let term = rest.split('"').next().unwrap();
            (index.parse().unwrap(), term.rsplit('/').next().unwrap())
        })
        .collect();
    let indexes: Vec<usize> = declared.iter().map(|&(i, _)| i).collect();
    assert_eq!(indexes, (0..header.len()).collect::<Vec<_>>());
    let declared: Vec<&str> = declared.iter().map(|&(_, term)| term).collect();
    assert_eq!(declared, header);
    let view = &server.state.current().view;
    let dataset = catalogue::model::dataset::Dataset {
        institution_code: "I".into(),
        collection_code: "C".into(),
        ..Default::default()
    };
    let occurrences = Occurrences::new(view, &dataset);
    let specimens = view.table(Model::SpecimenRecord).len();
    assert!(specimens > 0);
    for pos in 0..specimens {
        let mut said = Said::default();
        occurrences.terms(pos, &mut said);
        let names: Vec<&str> = said.0.iter().map(|t| t.name()).collect();
        assert_eq!(names, header, "specimen at {pos}");
    }
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

/// `build --dataset-config` stores the description in the snapshot: a server
/// given nothing says it (archive, `/eml.xml`, every page's footer); one given
/// a value says that instead.
#[test]
fn the_snapshot_carries_the_dataset_and_a_server_may_say_otherwise() {
    let dir = TempDir::new("dwca-stored");
    let config = dir.path("dataset.json");
    std::fs::write(
        &config,
        r#"{"title": "Moths & more", "license": "CC-BY-NC-4.0", "publisher": "A Museum",
            "contacts": [{"organization": "A Museum", "email": "desk@example.org"}]}"#,
    )
    .unwrap();
    let snapshot = dir.path("stored.bin");
    let fixture = common::sample_fixture();
    let built = catalogue(&[
        "build",
        fixture.to_str().unwrap(),
        "-o",
        snapshot.to_str().unwrap(),
        "--dataset-config",
        config.to_str().unwrap(),
    ]);
    assert!(built.status.success(), "{built:?}");
    let out = String::from_utf8_lossy(&built.stdout);
    assert!(
        out.contains(
            "warning: the dataset's description lacks description, creators, \
             metadata_providers, institution_code, institution_name, collection_code, \
             collection_name ("
        ),
        "{out}"
    );

    let s = Server::start(&snapshot, Settings::default());
    let eml = s.get("/eml.xml").text();
    assert!(
        eml.contains("<title xml:lang=\"en\">Moths &amp; more</title>"),
        "{eml}"
    );
    assert!(
        eml.contains("<ulink url=\"http://creativecommons.org/licenses/by-nc/4.0/legalcode\">"),
        "{eml}"
    );
    assert!(
        eml.contains(
            "<contact>\n      <organizationName>A Museum</organizationName>\n      \
             <electronicMailAddress>desk@example.org</electronicMailAddress>\n    </contact>"
        ),
        "{eml}"
    );
    let archive = unzip(&s.get("/dwca.zip").body);
    assert_eq!(archive["eml.xml"], eml);
    let page = s.send("GET", "/", &[("Accept", "text/html")]);
    assert_eq!(page.status, 200);
    let footer = page.text();
    let footer = &footer[footer.find("<footer").unwrap()..];
    assert!(
        footer.contains(
            "<p class=\"dataset\"><cite>Moths &amp; more</cite>, licensed <a rel=\"license\" \
             href=\"https://creativecommons.org/licenses/by-nc/4.0/\">Creative Commons \
             Attribution Non Commercial (CC-BY-NC) 4.0</a>.</p>"
        ) && footer.contains("<p class=\"citation\">Cite as: A Museum ("),
        "{footer}"
    );

    let title: catalogue::model::dataset::Field = |d| &mut d.title;
    let told = Settings {
        dataset: Told {
            file: None,
            values: vec![(title, "Told instead".to_string())],
        },
        ..Settings::default()
    };
    let s = Server::start(&snapshot, told);
    let eml = s.get("/eml.xml").text();
    assert!(
        eml.contains("<title xml:lang=\"en\">Told instead</title>"),
        "{eml}"
    );
    assert!(
        eml.contains("<organizationName>A Museum</organizationName>"),
        "{eml}"
    );
}

#[test]
fn dataset_init_writes_a_description_build_takes_back() {
    let dir = TempDir::new("dataset-init");
    let bare = dir.path("bare.bin");
    let checked = catalogue::ingest::from_fixtures(&[common::sample_fixture()]);
    catalogue::ingest::write_snapshot(&checked, &bare, catalogue::view::prepared::encode).unwrap();
    let written = dir.path("dataset.toml");
    let init = catalogue(&[
        "dataset",
        "init",
        bare.to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
    ]);
    assert!(init.status.success(), "{init:?}");
    let said = String::from_utf8_lossy(&init.stdout);
    assert!(
        said.contains("  collected: 1998-05-30 to 2023-03-03\n")
            && said.contains("  orders: Coleoptera, Lepidoptera, Odonata\n")
            && said.contains(
                "to fill in: title, license, publisher, creators, contacts, metadata_providers, \
                 institution_name, collection_name\n"
            ),
        "{said}"
    );
    let d = Dataset::from_file(&written).unwrap();
    assert_eq!(
        (d.institution_code.as_str(), d.update_frequency.as_str()),
        ("UMMZ", "asNeeded")
    );
    // Nothing that goes stale as records change: no count, no year.
    assert_eq!(
        d.description,
        "Insect specimen records of the orders Coleoptera, Lepidoptera, Odonata."
    );
    // Its own identifier, a fresh random UUID (version 4), another each time.
    assert!(
        d.id.len() == 36 && d.id.as_bytes()[14] == b'4' && d.id.as_bytes()[8] == b'-',
        "{}",
        d.id
    );
    let text = std::fs::read_to_string(&written).unwrap();
    let text: String = (text.lines())
        .filter(|l| !l.starts_with("id = "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !text.contains(" 8 ") && !text.contains("1998") && !text.contains("2023"),
        "{text}"
    );
    let rebuilt = dir.path("rebuilt.bin");
    let build = catalogue(&[
        "build",
        common::sample_fixture().to_str().unwrap(),
        "-o",
        rebuilt.to_str().unwrap(),
        "--dataset-config",
        written.to_str().unwrap(),
    ]);
    assert!(build.status.success(), "{build:?}");
    // Each key it asks for, filled in: build then lacks nothing, and eml.xml
    // says no placeholder (no "N/A" collection name, no stand-in party).
    let mut filled = d.clone();
    let listed = said.lines().find_map(|l| l.strip_prefix("to fill in: "));
    let party = Party {
        name: "Rosa M. Alvarez".into(),
        ..Party::default()
    };
    for key in listed.unwrap().split(", ") {
        match key {
            "title" => filled.title = "Insects of the Museum".into(),
            "license" => filled.license = "CC-BY-4.0".into(),
            "publisher" => filled.publisher = "The Museum".into(),
            "creators" => filled.creators = vec![party.clone()],
            "contacts" => filled.contacts = vec![party.clone()],
            "metadata_providers" => filled.metadata_providers = vec![party.clone()],
            "institution_name" => filled.institution_name = "The Museum".into(),
            "collection_name" => filled.collection_name = "Insect Division".into(),
            other => panic!("init asks for {other}, which this test does not fill"),
        }
    }
    let filled_file = dir.path("filled.json");
    std::fs::write(&filled_file, serde_json::to_string(&filled).unwrap()).unwrap();
    let build = catalogue(&[
        "build",
        common::sample_fixture().to_str().unwrap(),
        "-o",
        rebuilt.to_str().unwrap(),
        "--dataset-config",
        filled_file.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&build.stdout);
    assert!(build.status.success() && !out.contains("lacks"), "{out}");
    let eml = Server::start(&rebuilt, Settings::default())
        .get("/eml.xml")
        .text();
    assert!(
        eml.contains("<collectionName>Insect Division</collectionName>")
            && !eml.contains("<collectionName>N/A")
            && !eml.contains("Publisher not stated"),
        "{eml}"
    );
}
