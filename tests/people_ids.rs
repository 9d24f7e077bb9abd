//! People's identifiers (the dataset file's `people`): checked when read,
//! written as `recordedByID` and `identifiedByID` in the archive and GBIF's
//! API, and shown on the people's pages.

use std::io::Read;

use crate::common;

use common::{catalogue, Server, TempDir};

const ORCID: &str = "https://orcid.org/0000-0002-1825-0097";
const Q7: &str = "http://www.wikidata.org/entity/Q7";

/// The sample built with `dataset` as its dataset file (JSON).
fn built(dir: &TempDir, dataset: &str) -> Result<std::path::PathBuf, String> {
    let (file, out) = (dir.path("dataset.json"), dir.path("people.bin"));
    std::fs::write(&file, dataset).unwrap();
    let o = catalogue(&[
        "build",
        common::sample_fixture().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        file.to_str().unwrap(),
    ]);
    match o.status.success() {
        true => Ok(out),
        false => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
    }
}

/// `occurrence.txt`'s rows as maps from term to value.
fn occurrences(s: &Server) -> Vec<std::collections::BTreeMap<String, String>> {
    let r = s.get("/dwca.zip");
    assert_eq!(r.status, 200);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&r.body[..])).unwrap();
    let mut text = String::new();
    zip.by_name("occurrence.txt")
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t'))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn a_collectors_orcid_reaches_recorded_by_id() {
    let dir = TempDir::new("people-ids");
    let dataset = r#"{"title": "T", "people": [
        {"person": 1, "orcid": "0000-0002-1825-0097", "wikidata": "Q42"},
        {"name": "Théo J. Côté, III", "wikidata": "https://www.wikidata.org/wiki/Q7"},
        {"person": 999, "orcid": "0000-0002-1825-0097"}
    ]}"#;
    let s = Server::start(&built(&dir, dataset).unwrap(), Default::default());
    // GBIF's API: in the order of recordedBy, empty for those without one.
    let one = s.json("/gbif/v1/occurrence/1", 200);
    let names: Vec<&str> = one["recordedBy"].as_str().unwrap().split(" | ").collect();
    assert_eq!(names.len(), 4);
    let want: Vec<&str> = names
        .iter()
        .map(|n| match *n {
            "Rosa M. Alvarez" => ORCID,
            "Théo J. Côté, III" => Q7,
            _ => "",
        })
        .collect();
    assert!(want.contains(&ORCID) && want.contains(&Q7) && want.contains(&""));
    assert_eq!(one["recordedByID"], want.join(" | "));
    assert_eq!(one["identifiedBy"], "Rosa M. Alvarez");
    assert_eq!(one["identifiedByID"], ORCID);
    // A specimen whose people have none: no key.
    let two = s.json("/gbif/v1/occurrence/2", 200);
    assert_eq!(two["recordedBy"], "Rosa M. Alvarez");
    assert_eq!(two["recordedByID"], ORCID);
    assert_eq!(two["identifiedBy"], "Henry Brooks, Jr.");
    assert!(two.get("identifiedByID").is_none(), "{two}");
    // The archive: its columns, each row's.
    let rows = occurrences(&s);
    let first = &rows[0];
    assert_eq!(first["catalogNumber"], "UMMZ-000001");
    assert_eq!(first["recordedByID"], want.join(" | "));
    assert_eq!(first["identifiedByID"], ORCID);
    assert_eq!(rows[1]["identifiedByID"], "");
    // The person's page links them.
    let page = s.send("GET", "/api/v2/people/1/", &[("Accept", "text/html")]);
    let text = page.text();
    assert!(
        text.contains(r#"ORCID <a href="https://orcid.org/0000-0002-1825-0097" rel="me">0000-0002-1825-0097</a>"#),
        "{text}"
    );
    assert!(
        text.contains(r#"Wikidata <a href="http://www.wikidata.org/entity/Q42" rel="me">Q42</a>"#)
    );
    let page = s.send("GET", "/api/v2/people/2/", &[("Accept", "text/html")]);
    assert!(!page.text().contains("Identifiers:"));
}

#[test]
fn a_person_without_identifiers_changes_nothing() {
    let s = Server::sample();
    let one = s.json("/gbif/v1/occurrence/1", 200);
    assert!(one.get("recordedByID").is_none() && one.get("identifiedByID").is_none());
    let rows = occurrences(&s);
    assert_eq!(
        (&rows[0]["recordedByID"][..], &rows[0]["identifiedByID"][..]),
        ("", "")
    );
}

#[test]
fn identifiers_are_checked_naming_the_entry() {
    let dir = TempDir::new("people-refused");
    for (people, said) in [
        (
            r#"[{"person": 1, "orcid": "0000-0002-1825-0098"}]"#,
            "people[0]: orcid is not an ORCID iD",
        ),
        (
            r#"[{"person": 1, "wikidata": "Q42"}, {"person": 2, "wikidata": "42"}]"#,
            "people[1]: wikidata is not a Wikidata item",
        ),
        (
            r#"[{"orcid": "0000-0002-1825-0097"}]"#,
            "people[0]: names no one",
        ),
        (r#"[{"person": 1}]"#, "people[0]: gives no identifier"),
    ] {
        let e = built(&dir, &format!(r#"{{"title": "T", "people": {people}}}"#)).unwrap_err();
        assert!(e.contains(said), "{e}");
    }
    // TOML's [[people]] likewise.
    let (file, out) = (dir.path("dataset.toml"), dir.path("toml.bin"));
    std::fs::write(
        &file,
        "title = \"T\"\n[[people]]\nperson = 1\norcid = \"https://orcid.org/0000-0002-1825-0097\"\n",
    )
    .unwrap();
    let o = catalogue(&[
        "build",
        common::sample_fixture().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--dataset-config",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = Server::start(&out, Default::default());
    assert_eq!(
        s.json("/gbif/v1/occurrence/1", 200)["identifiedByID"],
        ORCID
    );
}
