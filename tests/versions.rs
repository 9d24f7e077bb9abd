//! Versions: three snapshots of the sample built one after another with
//! records added, modified and deleted in several models; the changes feed
//! between any two versions equals the true difference of their fixtures;
//! deleted records answer 410 naming their version.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::common;

use catalogue::serve::Settings;
use common::{catalogue, Server, TempDir};

/// The lists of the models edited here, by fixture label.
const LISTS: [(&str, &str); 3] = [
    ("specimens.specimenrecord", "specimen-records"),
    ("specimens.person", "people"),
    ("geography.locality", "localities"),
];

fn objects() -> Vec<Value> {
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn find<'a>(objects: &'a mut [Value], model: &str, pk: i64) -> &'a mut Value {
    objects
        .iter_mut()
        .find(|o| o["model"] == model && o["pk"] == pk)
        .unwrap_or_else(|| panic!("{model} {pk}"))
}

fn remove(objects: &mut Vec<Value>, model: &str, pk: i64) -> Value {
    let at = objects
        .iter()
        .position(|o| o["model"] == model && o["pk"] == pk)
        .unwrap();
    objects.remove(at)
}

/// Per list, each record's fields by id.
fn records(objects: &[Value]) -> BTreeMap<&'static str, BTreeMap<i64, Value>> {
    LISTS
        .iter()
        .map(|(model, list)| {
            let of: BTreeMap<i64, Value> = objects
                .iter()
                .filter(|o| o["model"] == *model)
                .map(|o| (o["pk"].as_i64().unwrap(), o["fields"].clone()))
                .collect();
            (*list, of)
        })
        .collect()
}

/// The true difference from `old` to `new`: (list, id, change), in the
/// feed's order (lists as the API orders them, then added, modified,
/// deleted, then id).
fn difference(old: &[Value], new: &[Value]) -> BTreeSet<(String, i64, &'static str)> {
    let (old, new) = (records(old), records(new));
    let mut out = BTreeSet::new();
    for (list, new_records) in &new {
        let old_records = &old[list];
        for (id, fields) in new_records {
            match old_records.get(id) {
                None => out.insert((list.to_string(), *id, "added")),
                Some(before) if before != fields => out.insert((list.to_string(), *id, "modified")),
                Some(_) => false,
            };
        }
        for id in old_records
            .keys()
            .filter(|id| !new_records.contains_key(id))
        {
            out.insert((list.to_string(), *id, "deleted"));
        }
    }
    out
}

fn changes(server: &Server, since: &str) -> BTreeSet<(String, i64, &'static str)> {
    let body = server.json(&format!("/api/v2/changes/?since={since}&limit=10000"), 200);
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let change = match i["change"].as_str().unwrap() {
                "added" => "added",
                "modified" => "modified",
                _ => "deleted",
            };
            (
                i["list"].as_str().unwrap().to_string(),
                i["id"].as_i64().unwrap(),
                change,
            )
        })
        .collect()
}

fn build(dir: &TempDir, name: &str, objects: &[Value], previous: Option<&str>) -> String {
    let fixture = dir.path(&format!("{name}.json"));
    std::fs::write(&fixture, Value::Array(objects.to_vec()).to_string()).unwrap();
    let out = dir.path(&format!("{name}.bin"));
    let mut args = vec![
        "build".to_string(),
        fixture.to_string_lossy().into_owned(),
        "-o".to_string(),
        out.to_string_lossy().into_owned(),
    ];
    if let Some(previous) = previous {
        args.extend([
            "--previous".to_string(),
            dir.path(previous).to_string_lossy().into_owned(),
        ]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = catalogue(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn three_versions_say_what_changed_and_what_is_gone() {
    let dir = TempDir::new("versions");
    let v1 = objects();
    // Version 2: a specimen deleted, a specimen, a person and a locality
    // modified, a specimen, a person and a locality added.
    let mut v2 = v1.clone();
    let eighth = remove(&mut v2, "specimens.specimenrecord", 8);
    find(&mut v2, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Re-mounted.");
    find(&mut v2, "specimens.person", 1)["fields"]["first_name"] = json!("Rosa María");
    find(&mut v2, "geography.locality", 1)["fields"]["town"] = json!("Ann Arbor, MI");
    let mut ninth = eighth.clone();
    ninth["pk"] = json!(9);
    ninth["fields"]["usi"] = json!("UMMZ-000009");
    v2.push(ninth);
    let mut person = find(&mut v2, "specimens.person", 4).clone();
    person["pk"] = json!(5);
    person["fields"]["first_name"] = json!("Ada");
    v2.push(person);
    let mut locality = find(&mut v2, "geography.locality", 1).clone();
    locality["pk"] = json!(7);
    locality["fields"]["name"] = json!("A new locality");
    v2.push(locality);
    // Version 3: the new specimen and locality deleted again, the eighth
    // back, the new person modified.
    let mut v3 = v2.clone();
    remove(&mut v3, "specimens.specimenrecord", 9);
    remove(&mut v3, "geography.locality", 7);
    v3.push(eighth);
    find(&mut v3, "specimens.person", 5)["fields"]["last_name"] = json!("King");

    let said = build(&dir, "v1", &v1, None);
    assert!(!said.lines().any(|l| l.starts_with("version ")), "{said}");
    let said = build(&dir, "v2", &v2, Some("v1.bin"));
    assert!(
        said.contains("version 2: ")
            && said.contains("specimens.person +1 ~1 -0")
            && said.contains("specimens.specimenrecord +1 ~1 -1")
            && said.contains("geography.locality +1 ~1 -0"),
        "{said}"
    );
    let said = build(&dir, "v3", &v3, Some("v2.bin"));
    assert!(said.contains("version 3: "), "{said}");
    // Built again from the same records, the same version.
    let said = build(&dir, "v3again", &v3, Some("v3.bin"));
    assert!(said.contains("version 3: nothing changed"), "{said}");

    let s = Server::start(&dir.path("v3.bin"), Settings::default());
    let versions = s.json("/api/v2/versions/", 200);
    assert_eq!(versions["meta"]["total_count"], 3);
    let numbers: Vec<i64> = versions["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [3, 2, 1]);
    assert_eq!(versions["items"][0]["archive"], "/dwca.zip");
    assert_eq!(versions["items"][1]["archive"], Value::Null);
    assert_eq!(
        versions["items"][1]["changes"]["specimen-records"],
        json!({"added": 1, "modified": 1, "deleted": 1})
    );
    assert_eq!(versions["items"][2]["counts"]["specimen-records"], 8);

    // The feed between any two versions is the true difference.
    let fixtures = [&v1, &v2, &v3];
    for since in 1..=3 {
        let want = difference(fixtures[since - 1], &v3);
        assert_eq!(changes(&s, &since.to_string()), want, "since {since}");
    }
    assert!(changes(&s, "3").is_empty());
    // An instant names the newest version published at or before it.
    let published = versions["items"][1]["published"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        changes(&s, &published),
        difference(&v2, &v3),
        "since {published}"
    );
    s.assert_error(
        "/api/v2/changes/?since=4",
        400,
        "version 4 is not published yet: the current version is 3",
    );
    // An instant before version 1, every version kept: the whole collection
    // was added since (as `since: 0`).
    let everything: BTreeSet<(String, i64, &'static str)> = (v3.iter())
        .filter_map(|o| {
            let model = catalogue::model::Model::from_label(o["model"].as_str()?)?;
            let id = o["pk"].as_i64()?;
            model
                .stored()
                .then(|| (model.path().to_string(), id, "added"))
        })
        .collect();
    assert!(everything.len() > 20, "{everything:?}");
    assert_eq!(changes(&s, "1999-01-01"), everything);
    let before = s.json("/api/v2/changes/?since=1999-01-01&limit=1", 200);
    assert_eq!(before["meta"]["since"], 0);
    assert_eq!(before["meta"]["total_count"], everything.len());
    // Paged before it is read: every page, across lists and kinds of change,
    // is its slice of the whole, in the whole's order.
    for since in ["1999-01-01", "1", "2"] {
        let whole = s.json(&format!("/api/v2/changes/?since={since}&limit=10000"), 200);
        let items = whole["items"].as_array().unwrap();
        assert_eq!(whole["meta"]["total_count"], items.len());
        for limit in [1, 3, 7] {
            for offset in (0..=items.len() + 1).step_by(limit) {
                let page = s.json(
                    &format!("/api/v2/changes/?since={since}&limit={limit}&offset={offset}"),
                    200,
                );
                let want = &items[offset.min(items.len())..(offset + limit).min(items.len())];
                assert_eq!(
                    page["items"].as_array().unwrap(),
                    want,
                    "{since} {limit} {offset}"
                );
                assert_eq!(page["meta"], whole["meta"]);
            }
        }
    }
    s.assert_error(
        "/api/v2/changes/",
        400,
        "since is required: a version number (since=3) or an instant \
         (since=2026-11-01T00:00:00Z or since=2026-11-01)",
    );
    s.assert_error(
        "/api/v2/changes/?since=1&sort=id",
        400,
        "unknown parameter \"sort\": the changes' list takes since, limit, offset, format",
    );

    // Deleted while the history holds it: 410 naming the version; a record
    // that never was: 404; one deleted and added back: 200.
    let v3_published = versions["items"][0]["published"].as_str().unwrap();
    s.assert_error(
        "/api/v2/specimen-records/9/",
        410,
        &format!("Gone: specimen-records 9 was deleted in version 3 (published {v3_published})."),
    );
    let page = s.send(
        "GET",
        "/api/v2/specimen-records/9/",
        &[("Accept", "text/html")],
    );
    assert_eq!(page.status, 410);
    assert!(page.text().contains("was deleted in version 3"));
    assert_eq!(
        s.send("GET", "/api/v2/specimen-records/99/", &[]).status,
        404
    );
    assert_eq!(
        s.send("GET", "/api/v2/specimen-records/8/", &[]).status,
        200
    );

    // The feed: one entry per version, the current one linking the archive.
    let feed = s.send("GET", "/versions.atom", &[]);
    assert_eq!(feed.status, 200);
    assert_eq!(
        feed.header("content-type"),
        Some("application/atom+xml; charset=utf-8")
    );
    let text = feed.text();
    assert_eq!(text.matches("<entry>").count(), 3);
    assert_eq!(text.matches("href=\"http://t/dwca.zip\"").count(), 1);
    let page = s.send("GET", "/api/v2/versions/", &[("Accept", "text/html")]);
    assert_eq!(page.status, 200);
    assert!(page
        .text()
        .contains("The current version is <strong>3</strong>."));

    // How to cite it: the current version, or another the history holds.
    let year = &v3_published[..4];
    let text = s.send("GET", "/api/v2/citation/", &[]);
    assert_eq!(
        text.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    // Accessed today (UTC) unless said: the day is read around the request.
    let before = chrono::Utc::now().date_naive();
    let body = text.text();
    let after = chrono::Utc::now().date_naive();
    assert!(
        [before, after].iter().any(|day| body
            == format!(
            "Specimen records. Version 3. Occurrence dataset. http://t/ accessed via t on {}.\n",
            day.format("%Y-%m-%d")
        )),
        "{body}"
    );
    let bibtex = s.send(
        "GET",
        "/api/v2/citation/?format=bibtex&version=2&accessed=2026-11-29",
        &[],
    );
    assert_eq!(
        bibtex.text(),
        format!("@misc{{catalogue{year}v2,\n  title = {{{{Specimen records}}}},\n  year = {{{year}}},\n  version = {{2}},\n  url = {{http://t/}},\n  urldate = {{2026-11-29}},\n}}\n")
    );
    s.assert_error(
        "/api/v2/citation/?accessed=2026-13-01",
        400,
        "accessed must be a day as YYYY-MM-DD (2026-11-29), not \"2026-13-01\"",
    );
    s.assert_error(
        "/api/v2/citation/?version=7",
        404,
        "no version 7: the history holds versions 1 to 3",
    );
    s.assert_error(
        "/api/v2/citation/?format=apa",
        400,
        "format must be text, bibtex, ris, csl or datacite, not \"apa\"",
    );
}

/// `modified_since` keeps the records stamped at or after an instant, with
/// every other filter, on every list; what is deleted is the changes' feed's.
#[test]
fn modified_since_is_a_scan_of_date_modified() {
    let s = Server::sample();
    let all = s.json(
        "/api/v2/specimen-records/?limit=100&fields=id,date_modified",
        200,
    );
    let stamps: Vec<(i64, String)> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_i64().unwrap(),
                i["date_modified"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut instants: Vec<&String> = stamps.iter().map(|(_, t)| t).collect();
    instants.sort();
    assert!(instants.len() > 2);
    for at in [
        instants[0],
        instants[instants.len() / 2],
        instants[instants.len() - 1],
    ] {
        let want: Vec<i64> = stamps
            .iter()
            .filter(|(_, t)| t.as_str() >= at.as_str())
            .map(|(id, _)| *id)
            .collect();
        let got = s.json(
            &format!("/api/v2/specimen-records/?limit=100&fields=id&modified_since={at}"),
            200,
        );
        let got: Vec<i64> = got["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect();
        assert_eq!(got, want, "modified_since={at}");
    }
    // With another filter, and on another list; a day counts from its midnight.
    let late = instants[instants.len() / 2];
    let both = s.json(
        &format!("/api/v2/specimen-records/?sex=female&modified_since={late}&fields=id,sex"),
        200,
    );
    // Exactly the scan's records that are also female (none would prove nothing).
    let sexes: std::collections::BTreeMap<i64, String> = s
        .json("/api/v2/specimen-records/?limit=100&fields=id,sex", 200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_i64().unwrap(),
                i["sex"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<i64> = stamps
        .iter()
        .filter(|(id, t)| t.as_str() >= late.as_str() && sexes[id] == "female")
        .map(|(id, _)| *id)
        .collect();
    let got: Vec<i64> = both["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_i64().unwrap())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let people = s.json("/api/v2/people/?modified_since=1900-01-01", 200);
    assert_eq!(
        people["meta"]["total_count"],
        s.json("/api/v2/people/", 200)["meta"]["total_count"]
    );
    let none = s.json("/api/v2/people/?modified_since=2999-01-01", 200);
    assert_eq!(none["meta"]["total_count"], 0);
    s.assert_error(
        "/api/v2/people/?modified_since=yesterday",
        400,
        "modified_since must be an ISO 8601 instant (2026-11-01T00:00:00Z) or day (2026-11-01), not \"yesterday\"",
    );
}

/// The bundled sample's citation in each format, exactly: GBIF's text (the
/// surname with its particles and the initials, the version's own DOI, the
/// access date asked), BibTeX, RIS and CSL-JSON with the same parts, and
/// DataCite's metadata; the same day filled into each.
#[test]
fn the_samples_citation_in_every_format() {
    let s = Server::sample();
    let header = catalogue::snapshot::peek(&common::sample_snapshot()).unwrap();
    let published = chrono::DateTime::from_timestamp_micros(header.created_at).unwrap();
    let year = published.format("%Y").to_string();
    let (y, m, d) = (
        published.format("%Y").to_string(),
        published.format("%-m").to_string(),
        published.format("%-d").to_string(),
    );
    let day = published.format("%Y/%m/%d").to_string();
    let ask = |format: &str| {
        let reply = s.send(
            "GET",
            &format!("/api/v2/citation/?format={format}&accessed=2026-11-29"),
            &[],
        );
        assert_eq!(reply.status, 200, "{format}");
        reply
    };
    assert_eq!(
        ask("text").text(),
        format!(
            "van der Berg J, Alvarez R M ({year}). Insects of the catalogue sample. Version 1. \
             Catalogue Sample Museum. Occurrence dataset. https://doi.org/10.15468/cat-sample.v1 \
             accessed via t on 2026-11-29.\n"
        )
    );
    assert_eq!(
        ask("bibtex").text(),
        format!(
            "@misc{{UMMZ{year}v1,\n  author = {{van der Berg, Jan and Alvarez, Rosa M.}},\n  \
             title = {{{{Insects of the catalogue sample}}}},\n  publisher = {{Catalogue Sample Museum}},\n  \
             year = {{{year}}},\n  version = {{1}},\n  url = {{https://catalogue.example.org/}},\n  \
             doi = {{10.15468/cat-sample.v1}},\n  urldate = {{2026-11-29}},\n}}\n"
        )
    );
    assert_eq!(
        ask("ris").text(),
        format!(
            "TY  - DATA\r\nAU  - van der Berg, Jan\r\nAU  - Alvarez, Rosa M.\r\n\
             TI  - Insects of the catalogue sample\r\nPY  - {year}\r\nDA  - {day}\r\n\
             PB  - Catalogue Sample Museum\r\nET  - Version 1\r\nUR  - https://catalogue.example.org/\r\n\
             DO  - 10.15468/cat-sample.v1\r\nY2  - 2026/11/29\r\nER  - \r\n"
        )
    );
    let csl = ask("csl");
    assert_eq!(
        csl.header("content-type"),
        Some("application/vnd.citationstyles.csl+json")
    );
    assert_eq!(
        csl.text(),
        format!(
            "[{{\"id\":\"catalogue-v1\",\"type\":\"dataset\",\"title\":\"Insects of the catalogue sample\",\
             \"author\":[{{\"family\":\"Berg\",\"given\":\"Jan\",\"non-dropping-particle\":\"van der\"}},\
             {{\"family\":\"Alvarez\",\"given\":\"Rosa M.\"}}],\"version\":\"1\",\
             \"URL\":\"https://catalogue.example.org/\",\"issued\":{{\"date-parts\":[[{y},{m},{d}]]}},\
             \"publisher\":\"Catalogue Sample Museum\",\"DOI\":\"10.15468/cat-sample.v1\",\
             \"accessed\":{{\"date-parts\":[[2026,11,29]]}}}}]\n"
        )
    );
    let datacite = ask("datacite");
    assert_eq!(
        datacite.header("content-type"),
        Some("application/vnd.datacite.datacite+xml")
    );
    let xml = datacite.text();
    for part in [
        "<identifier identifierType=\"DOI\">10.15468/cat-sample.v1</identifier>",
        "<creatorName nameType=\"Personal\">van der Berg, Jan</creatorName>\n      \
         <givenName>Jan</givenName>\n      <familyName>van der Berg</familyName>\n      \
         <nameIdentifier nameIdentifierScheme=\"ORCID\" schemeURI=\"https://orcid.org\">\
         https://orcid.org/0000-0001-5109-3700</nameIdentifier>",
        "<resourceType resourceTypeGeneral=\"Dataset\">Occurrence dataset</resourceType>",
        "<publicationYear>",
        "<version>1</version>",
        "<relatedIdentifier relatedIdentifierType=\"URL\" relationType=\"IsSourceOf\" \
         resourceTypeGeneral=\"Dataset\">http://t/versions/1/dwca.zip</relatedIdentifier>",
        "<relatedIdentifier relatedIdentifierType=\"DOI\" relationType=\"IsVersionOf\">\
         10.15468/cat-sample</relatedIdentifier>",
        "rightsIdentifier=\"CC-BY-4.0\"",
    ] {
        assert!(xml.contains(part), "{part}\n{xml}");
    }
    // A publisher's own words stand for the text, with the version and the day.
    let mut dataset = (*catalogue::view::View::load(&common::sample_snapshot())
        .unwrap()
        .dataset)
        .clone();
    dataset.citation = "Alvarez R. (2026) The {sample} @ its museum.".into();
    assert_eq!(
        dataset.citation(&year, 1, ""),
        "Alvarez R. (2026) The {sample} @ its museum. Version 1."
    );
}

/// Builds `objects` into `dir/collection.bin` (after it, with `--previous`
/// itself, where one is there), keeping versions with links at `http://t`
/// (what the test server's requests have) and `extra` flags.
fn build_kept(dir: &TempDir, objects: &[Value], extra: &[&str]) -> String {
    let fixture = dir.path("collection.json");
    std::fs::write(&fixture, Value::Array(objects.to_vec()).to_string()).unwrap();
    let out = dir.path("collection.bin");
    let (fixture, out) = (fixture.to_string_lossy(), out.to_string_lossy());
    let mut args = vec!["build", &fixture, "-o", &out, "--public-url", "http://t"];
    if dir.path("collection.bin").exists() {
        args.extend(["--previous", &out]);
    }
    args.extend(extra);
    let o = catalogue(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A server of `dir/collection.bin` reading the versions kept beside it.
fn kept_server(dir: &TempDir) -> Server {
    let snapshot = dir.path("collection.bin");
    let settings = Settings {
        versions_dir: Some(catalogue::snapshot::kept::path(&snapshot)),
        ..Settings::default()
    };
    Server::start(&snapshot, settings)
}

/// Every version kept: version 1's archive and eml.xml, served while it was
/// current, are served byte for byte after version 2 (edits and deletions)
/// replaced it, and linked from the versions' list and both feeds; each
/// version is cited by its number; a version never published is 404, one
/// no longer kept (past `--keep-versions`) 410 naming those kept.
#[test]
fn every_version_is_kept_byte_for_byte_and_linked() {
    let dir = TempDir::new("kept");
    let v1 = objects();
    let said = build_kept(&dir, &v1, &[]);
    assert!(
        said.contains("kept version 1 in ") && said.contains("collection.bin.versions/1 ("),
        "{said}"
    );
    let s = kept_server(&dir);
    let archive_1 = s.get("/dwca.zip");
    let eml_1 = s.get("/eml.xml");
    assert_eq!((archive_1.status, eml_1.status), (200, 200));
    // The current version's own files are what /dwca.zip and /eml.xml say.
    let kept_1 = s.get("/versions/1/dwca.zip");
    assert_eq!(kept_1.status, 200);
    assert_eq!(kept_1.header("content-type"), Some("application/zip"));
    assert_eq!(kept_1.body, archive_1.body);
    assert_eq!(kept_1.header("etag"), archive_1.header("etag"));
    assert_eq!(s.get("/versions/1/eml.xml").body, eml_1.body);
    drop(s);

    // Version 2: a specimen and a locality's town edited, a specimen deleted.
    let mut v2 = v1.clone();
    remove(&mut v2, "specimens.specimenrecord", 8);
    find(&mut v2, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Re-mounted.");
    find(&mut v2, "geography.locality", 1)["fields"]["town"] = json!("Ann Arbor, MI");
    let said = build_kept(&dir, &v2, &[]);
    assert!(
        said.contains("version 2: ") && said.contains("kept version 2 in "),
        "{said}"
    );
    let s = kept_server(&dir);
    let archive_2 = s.get("/dwca.zip");
    assert_ne!(archive_2.body, archive_1.body);
    let again = s.get("/versions/1/dwca.zip");
    assert_eq!(again.status, 200);
    assert!(again.body == archive_1.body, "version 1's archive changed");
    assert_eq!(again.header("etag"), archive_1.header("etag"));
    assert_eq!(s.get("/versions/1/eml.xml").body, eml_1.body);
    assert_eq!(s.get("/versions/2/dwca.zip").body, archive_2.body);
    assert_eq!(s.get("/versions/2/eml.xml").body, s.get("/eml.xml").body);
    // HEAD and revalidation, as every file answer.
    let head = s.send("HEAD", "/versions/1/dwca.zip", &[]);
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    assert_eq!(head.header("etag"), archive_1.header("etag"));
    let tag = archive_1.header("etag").unwrap();
    let revalidated = s.send("GET", "/versions/1/dwca.zip", &[("If-None-Match", tag)]);
    assert_eq!(revalidated.status, 304);
    assert!(revalidated.body.is_empty());
    // Linked from the list and both feeds.
    let versions = s.json("/api/v2/versions/", 200);
    let links: Vec<(Value, Value, Value)> = (versions["items"].as_array().unwrap().iter())
        .map(|v| (v["version"].clone(), v["archive"].clone(), v["eml"].clone()))
        .collect();
    assert_eq!(
        links,
        [
            (
                json!(2),
                json!("/versions/2/dwca.zip"),
                json!("/versions/2/eml.xml")
            ),
            (
                json!(1),
                json!("/versions/1/dwca.zip"),
                json!("/versions/1/eml.xml")
            ),
        ]
    );
    let atom = s.get("/versions.atom").text();
    for n in [1, 2] {
        assert!(atom.contains(&format!(
            "<link rel=\"enclosure\" type=\"application/zip\" href=\"http://t/versions/{n}/dwca.zip\"/>"
        )), "{atom}");
        assert!(atom.contains(&format!(
            "<link rel=\"describedby\" type=\"application/xml\" href=\"http://t/versions/{n}/eml.xml\"/>"
        )));
    }
    let rss = s.send("GET", "/versions.rss", &[]);
    assert_eq!(
        rss.header("content-type"),
        Some("application/rss+xml; charset=utf-8")
    );
    let rss = rss.text();
    assert!(rss.contains("xmlns:ipt=\"http://ipt.gbif.org/\""), "{rss}");
    for n in [1, 2] {
        assert!(
            rss.contains(&format!(
                "      <title>Specimen records - Version {n}</title>\n"
            )),
            "{rss}"
        );
        assert!(rss.contains(&format!(
            "<ipt:dwca>http://t/versions/{n}/dwca.zip</ipt:dwca>"
        )));
        assert!(rss.contains(&format!("<ipt:eml>http://t/versions/{n}/eml.xml</ipt:eml>")));
    }
    let page = s
        .send("GET", "/api/v2/versions/", &[("Accept", "text/html")])
        .text();
    assert!(
        page.contains("<a href=\"/versions/1/dwca.zip\">dwca.zip</a>"),
        "{page}"
    );
    // Each version cited by its number.
    for n in [1, 2] {
        let cited = s.get(&format!("/api/v2/citation/?version={n}")).text();
        assert!(cited.contains(&format!("Version {n}.")), "{cited}");
    }
    // DataCite's metadata of version 1 names its kept files, which answer
    // what version 1 served; the current version's its kept files too, which
    // stay when /dwca.zip moves on.
    let datacite = s.get("/api/v2/citation/?version=1&format=datacite").text();
    assert!(
        datacite.contains(
            "relationType=\"IsSourceOf\" resourceTypeGeneral=\"Dataset\">\
             http://t/versions/1/dwca.zip</relatedIdentifier>"
        ) && datacite.contains("http://t/versions/1/eml.xml</relatedIdentifier>"),
        "{datacite}"
    );
    assert_eq!(s.get("/versions/1/dwca.zip").body, archive_1.body);
    let current = s.get("/api/v2/citation/?format=datacite").text();
    assert!(
        current.contains(">http://t/versions/2/dwca.zip</relatedIdentifier>")
            && current.contains(">http://t/versions/2/eml.xml</relatedIdentifier>")
            && !current.contains("http://t/dwca.zip"),
        "{current}"
    );
    // Each version's eml.xml gives the dataset the same identifiers, and no
    // checksum among them.
    let identifiers = |eml: &str| -> Vec<String> {
        (eml.split("<alternateIdentifier>").skip(1))
            .map(|s| s.split('<').next().unwrap().to_string())
            .collect()
    };
    let (one, two) = (
        identifiers(&s.get("/versions/1/eml.xml").text()),
        identifiers(&s.get("/versions/2/eml.xml").text()),
    );
    assert!(!one.is_empty());
    assert_eq!(one, two);
    assert!(one.iter().all(|id| id.len() != 64), "{one:?}");
    // The kept eml.xml downloads its own kept archive.
    let eml = s.get("/versions/2/eml.xml").text();
    assert!(
        eml.contains("<url function=\"download\">http://t/versions/2/dwca.zip</url>"),
        "{eml}"
    );
    // Never published: 404; parameters: 400.
    s.assert_error(
        "/versions/3/dwca.zip",
        404,
        "no version 3: the versions published are 1 to 2",
    );
    assert_eq!(s.get("/versions/x/eml.xml").status, 404);
    s.assert_error(
        "/versions/1/eml.xml?x=1",
        400,
        "a kept version's files take no parameters, not x",
    );
    drop(s);

    // Built to another file from --previous, it keeps what was kept.
    let other = dir.path("other.bin");
    let o = catalogue(&[
        "build",
        &dir.path("collection.json").to_string_lossy(),
        "-o",
        &other.to_string_lossy(),
        "--previous",
        &dir.path("collection.bin").to_string_lossy(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kept_other = catalogue::snapshot::kept::path(&other);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept_other), [1, 2]);
    assert_eq!(
        std::fs::read(kept_other.join("1").join("dwca.zip")).unwrap(),
        archive_1.body
    );

    // Version 3, keeping two versions: version 1's files go, and are gone.
    let mut v3 = v2.clone();
    find(&mut v3, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Re-mounted again.");
    let said = build_kept(&dir, &v3, &["--keep-versions", "2"]);
    assert!(said.contains("removed version(s) 1"), "{said}");
    let s = kept_server(&dir);
    s.assert_error(
        "/versions/1/dwca.zip",
        410,
        "Gone: version 1's archive and eml.xml are no longer kept; versions 2 to 3's are kept",
    );
    assert_eq!(s.get("/versions/2/dwca.zip").body, archive_2.body);
    let versions = s.json("/api/v2/versions/", 200);
    assert_eq!(versions["items"][2]["archive"], Value::Null);
}

/// Kept files belong to their history: a kept archive with a byte flipped
/// (the same size) is not served as its version, nor is another history's
/// folder of the same number; each is counted as damage. `build --previous`
/// never adopts another history's folder: it is replaced by this history's.
#[test]
fn a_kept_file_changed_or_of_another_history_is_not_served_as_the_version() {
    let damaged = "catalogue_damaged_kept_files_total";
    let dir = TempDir::new("kept-checked");
    let v1 = objects();
    build_kept(&dir, &v1, &[]);
    let mut v2 = v1.clone();
    find(&mut v2, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Re-mounted.");
    build_kept(&dir, &v2, &[]);
    let kept = catalogue::snapshot::kept::path(&dir.path("collection.bin"));
    let archive_1 = kept.join("1").join("dwca.zip");
    let sound = std::fs::read(&archive_1).unwrap();
    let s = kept_server(&dir);
    assert_eq!(s.get("/versions/1/dwca.zip").body, sound);
    assert_eq!(s.metric(damaged), 0);
    // A byte flipped in place, the same size.
    let mut flipped = sound.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x01;
    std::fs::write(&archive_1, &flipped).unwrap();
    let said = s.get("/versions/1/dwca.zip");
    assert_eq!(said.status, 410, "{}", said.text());
    assert!(
        said.text().contains("is not the version's"),
        "{}",
        said.text()
    );
    assert_eq!(s.metric(damaged), 1);
    std::fs::write(&archive_1, &sound).unwrap();
    assert_eq!(s.get("/versions/1/dwca.zip").body, sound);
    drop(s);

    // Another history (built alone, from other records) and its version
    // 1's folder put where this history's is.
    let elsewhere = TempDir::new("kept-elsewhere");
    let mut other = v1.clone();
    find(&mut other, "specimens.specimenrecord", 3)["fields"]["notes"] = json!("Elsewhere.");
    build_kept(&elsewhere, &other, &[]);
    let foreign = catalogue::snapshot::kept::path(&elsewhere.path("collection.bin")).join("1");
    let ours = kept.join("1");
    std::fs::remove_dir_all(&ours).unwrap();
    std::fs::create_dir(&ours).unwrap();
    for name in ["dwca.zip", "eml.xml", "manifest.json"] {
        std::fs::copy(foreign.join(name), ours.join(name)).unwrap();
    }
    let foreign_archive = std::fs::read(foreign.join("dwca.zip")).unwrap();
    assert_ne!(foreign_archive, sound);
    let s = kept_server(&dir);
    assert_eq!(s.get("/versions/1/dwca.zip").status, 410);
    assert_eq!(s.get("/versions/1/eml.xml").status, 410);
    assert_eq!(s.metric(damaged), 2);
    drop(s);
    // Built again from --previous: the other history's folder is not
    // adopted; version 3 keeps what it can of its own (version 1's files
    // are no longer anywhere, so none is served as it).
    let mut v3 = v2.clone();
    find(&mut v3, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Again.");
    build_kept(&dir, &v3, &[]);
    assert_eq!(catalogue::snapshot::kept::numbers(&kept), [2, 3]);
    let s = kept_server(&dir);
    assert_eq!(s.get("/versions/1/dwca.zip").status, 410);
    assert_eq!(s.get("/versions/2/dwca.zip").status, 200);
}

/// The publishing report is paged as the lists are (`limit`, `offset`,
/// their messages for bad values), `total_count` counting every record held
/// back; without either it is the whole report, byte for byte as before.
#[test]
fn the_publishing_report_is_paged_as_the_lists_are() {
    use catalogue::model::held::Holding;
    let dir = TempDir::new("publishing-paged");
    let path = dir.path("held.bin");
    let mut checked = catalogue::ingest::from_fixtures(&[common::sample_fixture()]);
    checked.collection.held = (1..=5)
        .map(|id| Holding {
            model: "specimens.specimenrecord".into(),
            id,
            field: "usi".into(),
            problem: format!("problem \"{id}\""),
            kept: "published".into(),
            since: 1,
        })
        .collect();
    catalogue::ingest::write_snapshot(&checked, &path, catalogue::view::prepared::encode).unwrap();
    let s = Server::start(&path, Settings::default());
    let raw = s.get("/api/v2/publishing/").text();
    let whole: Value = serde_json::from_str(&raw).unwrap();
    // As `json!` wrote it whole before: its keys in order, compact.
    assert_eq!(raw, whole.to_string());
    assert_eq!(
        raw.split("\"held\":").next().unwrap(),
        format!(
            "{{\"version\":1,\"checksum\":{},\"published_at\":{},\"total_count\":5,",
            whole["checksum"], whole["published_at"]
        )
    );
    let held = whole["held"].as_array().unwrap();
    assert_eq!(held.len(), 5);
    let page = |q: &str| s.json(&format!("/api/v2/publishing/?{q}"), 200);
    let two = page("limit=2&offset=1");
    assert_eq!(two["total_count"], 5);
    assert_eq!(two["held"], json!([held[1], held[2]]));
    assert_eq!(two["fix"], whole["fix"]);
    assert_eq!(page("offset=4")["held"], json!([held[4]]));
    assert_eq!(page("limit=100")["held"], whole["held"]);
    assert_eq!(page("offset=9")["held"], json!([]));
    assert_eq!(page("offset=9")["total_count"], 5);
    s.assert_error(
        "/api/v2/publishing/?limit=0",
        400,
        "limit must be a whole number from 1 to 10000, not \"0\"",
    );
    s.assert_error(
        "/api/v2/publishing/?offset=-1",
        400,
        "offset must be a whole number from 0 to 9223372036854775807, not \"-1\"",
    );
    s.assert_error(
        "/api/v2/publishing/?page=2",
        400,
        "unknown parameter \"page\": the publishing report takes limit, offset, format",
    );
    // HEAD says what GET says, without a body.
    let get = s.send("GET", "/api/v2/publishing/?limit=2", &[]);
    let head = s.send("HEAD", "/api/v2/publishing/?limit=2", &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), get.header("etag"));
    assert!(get.header("etag").is_some());
}

/// What links the versions kept is as new as the versions' folder: a kept
/// version moved away changes `/versions.rss`'s `Last-Modified`, and its old
/// date no longer answers 304. A citation of the request's day has no date.
#[test]
fn a_kept_version_moved_away_is_newer_than_the_feeds_old_date() {
    let dir = TempDir::new("kept-modified");
    let mut objects = objects();
    build_kept(&dir, &objects, &[]);
    remove(&mut objects, "specimens.person", 4);
    build_kept(&dir, &objects, &[]);
    let s = kept_server(&dir);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let snapshot = s
        .get("/api/v2/orders/")
        .header("last-modified")
        .unwrap()
        .to_string();
    let mut dates = Vec::new();
    for path in ["/versions.rss", "/versions.atom", "/api/v2/versions/"] {
        let first = s.get(path);
        let date = first.header("last-modified").expect(path).to_string();
        let since = [("If-Modified-Since", date.as_str())];
        assert_eq!(s.send("GET", path, &since).status, 304, "{path}");
        dates.push((path, date));
    }
    let folder = catalogue::snapshot::kept::path(&dir.path("collection.bin"));
    std::fs::rename(folder.join("1"), dir.path("moved-away")).unwrap();
    for (path, date) in &dates {
        let r = s.send("GET", path, &[("If-Modified-Since", date)]);
        assert_eq!(r.status, 200, "{path}");
        assert!(!r.text().contains("/versions/1/dwca.zip"), "{path}");
    }
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let now = s
        .get("/versions.rss")
        .header("last-modified")
        .unwrap()
        .to_string();
    assert_ne!(now, dates[0].1);
    assert_ne!(now, snapshot);
    let cited = s.get("/api/v2/citation/");
    assert_eq!((cited.status, cited.header("last-modified")), (200, None));
    let accessed = s.get("/api/v2/citation/?accessed=2026-01-02");
    assert_eq!(accessed.header("last-modified"), Some(snapshot.as_str()));
}

/// A build without `--previous` over a snapshot with versions kept beside it
/// is refused, naming the flags, and leaves every kept file as it was;
/// `--new-history` starts version 1 again, the old history moved aside whole.
#[test]
fn a_new_history_is_asked_for_and_the_old_one_moved_aside() {
    let dir = TempDir::new("new-history");
    let v1 = objects();
    build_kept(&dir, &v1, &[]);
    let mut v2 = v1.clone();
    find(&mut v2, "specimens.specimenrecord", 2)["fields"]["notes"] = json!("Re-mounted.");
    build_kept(&dir, &v2, &[]);
    let out = dir.path("collection.bin");
    let versions = catalogue::snapshot::kept::path(&out);
    let archive_1 = std::fs::read(versions.join("1").join("dwca.zip")).unwrap();
    let before = std::fs::read(&out).unwrap();
    let fixture = dir.path("collection.json").to_string_lossy().into_owned();
    let o = catalogue(&["build", &fixture, "-o", &out.to_string_lossy()]);
    assert!(!o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("versions 1 to 2 are kept beside")
            && said.contains("--previous")
            && said.contains("--new-history")
            && said.contains("collection.bin.versions.old-<time>"),
        "{said}"
    );
    assert_eq!(catalogue::snapshot::kept::numbers(&versions), [1, 2]);
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // Asked for: version 1 again, the old versions moved aside whole.
    let o = catalogue(&[
        "build",
        &fixture,
        "-o",
        &out.to_string_lossy(),
        "--new-history",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("the versions kept before were moved to "),
        "{said}"
    );
    assert_eq!(catalogue::snapshot::kept::numbers(&versions), [1]);
    let aside: Vec<_> = common::names_in(&dir.0)
        .into_iter()
        .filter(|n| n.starts_with("collection.bin.versions.old-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    let aside = dir.path(&aside[0]);
    assert_eq!(catalogue::snapshot::kept::numbers(&aside), [1, 2]);
    assert_eq!(
        std::fs::read(aside.join("1").join("dwca.zip")).unwrap(),
        archive_1
    );
    // Version 1 alone kept: built again the same, it stays; built otherwise,
    // it is moved aside too, never replaced.
    let o = catalogue(&["build", &fixture, "-o", &out.to_string_lossy()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let asides = || {
        (common::names_in(&dir.0).into_iter())
            .filter(|n| n.starts_with("collection.bin.versions.old-"))
            .count()
    };
    assert_eq!(asides(), 1);
    std::fs::write(
        dir.path("collection.json"),
        serde_json::Value::Array(v1.clone()).to_string(),
    )
    .unwrap();
    let o = catalogue(&["build", &fixture, "-o", &out.to_string_lossy()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(asides(), 2);
    assert_eq!(catalogue::snapshot::kept::numbers(&versions), [1]);
}
