//! Identifiers that last: each specimen's occurrenceID is made by the dataset's
//! rule (Darwin Core's catalogue URN of its codes by default), so two
//! collections with the same catalogue numbers never share one, and a record
//! keeps its own across versions; the changes feed names it, a deleted
//! specimen's too; a deleted specimen is 410 on GBIF's occurrence and on its
//! short link, as on `/api/v2/`; a build that changes the rule warns.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common;

use catalogue::serve::Settings;
use common::{catalogue, Server, TempDir};

const SPECIMEN: &str = "specimens.specimenrecord";

fn objects() -> Vec<Value> {
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Builds `objects` as `name.bin` with these codes, after `previous`; what
/// the build said.
fn build(
    dir: &TempDir,
    name: &str,
    objects: &[Value],
    codes: (&str, &str),
    previous: Option<&str>,
) -> String {
    let fixture = dir.path(&format!("{name}.json"));
    std::fs::write(&fixture, Value::Array(objects.to_vec()).to_string()).unwrap();
    let (fixture, out) = (fixture.to_string_lossy(), dir.path(&format!("{name}.bin")));
    let out = out.to_string_lossy();
    let mut args = vec![
        "build",
        &fixture,
        "-o",
        &out,
        "--institution-code",
        codes.0,
        "--collection-code",
        codes.1,
    ];
    let previous = previous.map(|p| dir.path(p).to_string_lossy().into_owned());
    if let Some(previous) = &previous {
        // A version of new codes renames every record: published here to
        // show what that does (build refuses it by default).
        args.extend(["--previous", previous, "--allow-id-churn"]);
    }
    let o = catalogue(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every occurrence GBIF's search gives: catalogue number to occurrenceID.
fn occurrence_ids(s: &Server) -> BTreeMap<String, String> {
    let found = s.json("/gbif/v1/occurrence/search?limit=300", 200);
    let results = found["results"].as_array().unwrap();
    assert!(!results.is_empty());
    (results.iter())
        .map(|o| {
            let number = o["catalogNumber"].as_str().unwrap().to_string();
            (number, o["occurrenceID"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn occurrence_ids_last_across_versions_and_differ_across_collections() {
    let dir = TempDir::new("identifiers");
    let v1 = objects();
    let numbers: Vec<(i64, String)> = (v1.iter())
        .filter(|o| o["model"] == SPECIMEN)
        .map(|o| {
            let usi = o["fields"]["usi"].as_str().unwrap().to_string();
            (o["pk"].as_i64().unwrap(), usi)
        })
        .collect();
    // Deleted: the last specimen (no photograph refers to it); edited: the
    // one before.
    let (gone_id, gone_usi) = numbers[numbers.len() - 1].clone();
    let (edited_id, edited_usi) = numbers[numbers.len() - 2].clone();
    // Version 2: one specimen deleted, another edited.
    let mut v2 = v1.clone();
    v2.retain(|o| !(o["model"] == SPECIMEN && o["pk"] == gone_id));
    let edited = (v2.iter_mut())
        .find(|o| o["model"] == SPECIMEN && o["pk"] == edited_id)
        .unwrap();
    edited["fields"]["notes"] = "Re-examined.".into();
    build(&dir, "v1", &v1, ("MEM", "INS"), None);
    build(&dir, "v2", &v2, ("MEM", "INS"), Some("v1.bin"));
    build(&dir, "other", &v1, ("OTHER", "INS"), None);

    let first = Server::start(&dir.path("v1.bin"), Settings::default());
    let second = Server::start(&dir.path("v2.bin"), Settings::default());
    let other = Server::start(&dir.path("other.bin"), Settings::default());
    let (ids1, ids2, others) = (
        occurrence_ids(&first),
        occurrence_ids(&second),
        occurrence_ids(&other),
    );
    let urn = |usi: &str| format!("urn:catalog:MEM:INS:{usi}");
    for (number, id) in &ids1 {
        assert_eq!(id, &urn(number));
        // The same catalogue number in another institution: another id.
        assert_eq!(others[number], format!("urn:catalog:OTHER:INS:{number}"));
    }
    assert_eq!(ids1.len(), numbers.len());
    // Version 2 keeps every remaining record's id, the edited one's too.
    let mut kept = ids1.clone();
    kept.remove(&gone_usi);
    assert_eq!(ids2, kept);
    assert_eq!(ids2[&edited_usi], urn(&edited_usi));

    // The changes name the occurrenceIDs, the deleted one's as it was.
    let changes = second.json("/api/v2/changes/?since=1", 200);
    let specimens: Vec<&Value> = (changes["items"].as_array().unwrap().iter())
        .filter(|i| i["list"] == "specimen-records")
        .collect();
    assert_eq!(
        specimens,
        [
            &serde_json::json!({"list": "specimen-records", "id": edited_id,
                "change": "modified", "occurrenceID": urn(&edited_usi)}),
            &serde_json::json!({"list": "specimen-records", "id": gone_id,
                "change": "deleted", "occurrenceID": urn(&gone_usi)}),
        ]
    );
    let everything = second.json("/api/v2/changes/?since=1999-01-01&limit=10000", 200);
    let added: Vec<&Value> = (everything["items"].as_array().unwrap().iter())
        .filter(|i| i["list"] == "specimen-records")
        .collect();
    assert_eq!(added.len(), numbers.len() - 1);
    for item in added {
        let id = item["occurrenceID"].as_str().unwrap();
        assert!(ids2.values().any(|known| known == id), "{item}");
    }

    // The deleted specimen is gone, by its key and by its short link.
    let versions = second.json("/api/v2/versions/", 200);
    let published = versions["items"][0]["published"].as_str().unwrap();
    second.assert_error(
        &format!("/gbif/v1/occurrence/{gone_id}"),
        410,
        &format!(
            "Gone: the occurrence {gone_id} (occurrenceID {}) was deleted in version 2 \
             (published {published}); /api/v2/changes/ lists what changed since a version.",
            urn(&gone_usi)
        ),
    );
    let digits: String = gone_usi.chars().filter(char::is_ascii_digit).collect();
    second.assert_error(
        &format!("/s/{digits}"),
        410,
        &format!(
            "Gone: the specimen of short code {digits} (occurrenceID {}) was deleted in \
             version 2 (published {published}); /api/v2/changes/ lists what changed since a \
             version.",
            urn(&gone_usi)
        ),
    );
    assert_eq!(second.get(&format!("/s/{digits}")).status, 410);
    // In the version before, both were there; a key never used is 404.
    assert_eq!(
        first.get(&format!("/gbif/v1/occurrence/{gone_id}")).status,
        200
    );
    assert_eq!(first.get(&format!("/s/{digits}")).status, 301);
    assert_eq!(second.get("/gbif/v1/occurrence/999999").status, 404);
    assert_eq!(second.get("/s/99999999").status, 404);

    // Publishing under other codes after version 2 warns: every id changes.
    let said = build(&dir, "v3", &v2, ("NEW", "INS"), Some("v2.bin"));
    assert!(
        said.contains(
            "warning: the records' occurrenceIDs change from \
             urn:catalog:MEM:INS:{catalog_number} to urn:catalog:NEW:INS:{catalog_number}: \
             GBIF will take every record for a new one"
        ),
        "{said}"
    );
    let said = build(&dir, "v3", &v2, ("MEM", "INS"), Some("v2.bin"));
    assert!(!said.contains("occurrenceIDs change"), "{said}");
}
