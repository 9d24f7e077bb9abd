//! A list question's feed (`format=atom`): three versions of the sample built
//! one after another, a specimen moved from one country to another; each
//! country's feed lists exactly its specimens' changes, newest version first,
//! judged as the records now are; deleted records are in the whole list's
//! feed only.

use serde_json::{json, Value};

use crate::common;

use catalogue::serve::Settings;
use common::{catalogue, Server, TempDir};

fn objects() -> Vec<Value> {
    let text = std::fs::read_to_string(common::sample_fixture()).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn specimen(objects: &mut [Value], pk: i64) -> &mut Value {
    objects
        .iter_mut()
        .find(|o| o["model"] == "specimens.specimenrecord" && o["pk"] == pk)
        .unwrap()
}

fn build(dir: &TempDir, name: &str, objects: &[Value], previous: Option<&str>) {
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
}

/// Version 2: specimens 2 (USA) and 3 (Canada) modified, 9 added in Canada,
/// 8 (USA) deleted. Version 3: 3 modified again, 4 moved from the USA to
/// Canada.
fn served(dir: &TempDir) -> Server {
    let v1 = objects();
    let mut v2 = v1.clone();
    specimen(&mut v2, 2)["fields"]["notes"] = json!("Re-mounted.");
    specimen(&mut v2, 3)["fields"]["notes"] = json!("Re-mounted.");
    let mut ninth = specimen(&mut v2, 3).clone();
    ninth["pk"] = json!(9);
    ninth["fields"]["usi"] = json!("UMMZ-000009");
    v2.push(ninth);
    let at = v2
        .iter()
        .position(|o| o["model"] == "specimens.specimenrecord" && o["pk"] == 8)
        .unwrap();
    v2.remove(at);
    let mut v3 = v2.clone();
    specimen(&mut v3, 3)["fields"]["notes"] = json!("Re-labelled.");
    let fourth = &mut specimen(&mut v3, 4)["fields"];
    fourth["country"] = json!(2);
    fourth["state"] = json!(5);
    build(dir, "v1", &v1, None);
    build(dir, "v2", &v2, Some("v1.bin"));
    build(dir, "v3", &v3, Some("v2.bin"));
    Server::start(&dir.path("v3.bin"), Settings::default())
}

/// Each entry's (title, category), in the feed's order.
fn entries(feed: &str) -> Vec<(String, String)> {
    let between = |text: &str, open: &str, close: &str| {
        let start = text
            .find(open)
            .unwrap_or_else(|| panic!("{open} in {text}"))
            + open.len();
        text[start..][..text[start..].find(close).unwrap()].to_string()
    };
    feed.split("<entry>")
        .skip(1)
        .map(|e| {
            (
                between(e, "<title>", "</title>"),
                between(e, "<category term=\"", "\""),
            )
        })
        .collect()
}

fn entry(usi: u32, change: &str, version: u32) -> (String, String) {
    (
        format!("UMMZ-{usi:06} (specimen-records {usi}) {change} in version {version}"),
        change.to_string(),
    )
}

#[test]
fn a_countrys_feed_lists_exactly_its_specimens_changes_newest_first() {
    let dir = TempDir::new("question-feed");
    let s = served(&dir);
    let feed = |query: &str| {
        let r = s.get(&format!("/api/v2/specimen-records/?{query}"));
        assert_eq!(r.status, 200, "{query}: {}", r.text());
        assert_eq!(
            r.header("content-type"),
            Some("application/atom+xml; charset=utf-8")
        );
        r.text()
    };
    let canada = feed("country=canada&format=atom");
    assert_eq!(
        entries(&canada),
        [
            entry(3, "modified", 3),
            entry(4, "modified", 3),
            entry(9, "added", 2),
            entry(3, "modified", 2),
        ]
    );
    assert!(canada.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"http://t/api/v2/specimen-records/?country=canada&amp;format=atom\"/>"), "{canada}");
    assert!(canada.contains("<link rel=\"alternate\" type=\"application/json\" href=\"http://t/api/v2/specimen-records/4/\"/>"), "{canada}");
    assert!(
        canada.contains("href=\"http://t/api/v2/changes/?since=2\""),
        "{canada}"
    );
    assert!(canada.contains("records deleted since are in the feed of the whole list"));
    // Specimen 4 was in the USA until version 3: judged as it now is, it is
    // not the USA's; the deleted eighth is in the whole list's feed only.
    assert_eq!(
        entries(&feed("country=united&format=atom")),
        [entry(2, "modified", 2)]
    );
    assert_eq!(
        entries(&feed("format=atom")),
        [
            entry(3, "modified", 3),
            entry(4, "modified", 3),
            entry(9, "added", 2),
            entry(2, "modified", 2),
            entry(3, "modified", 2),
            entry(8, "deleted", 2),
        ]
    );
    // `limit` and `offset` page the entries; `sort` is ignored, and said.
    assert_eq!(
        entries(&feed("format=atom&offset=1&limit=2")),
        [entry(4, "modified", 3), entry(9, "added", 2)]
    );
    let r = s.get("/api/v2/specimen-records/?format=atom&sort=usi");
    assert_eq!(r.header("x-ignored-parameters"), Some("sort"));
    // Another list: the localities' feed has none of the specimens'.
    let localities = s.get("/api/v2/localities/?format=atom");
    assert_eq!(localities.status, 200);
    assert!(entries(&localities.text()).is_empty());
    // A POSTed form asks the same; HEAD and revalidation by its tag.
    let posted = s.post(
        "/api/v2/specimen-records/",
        "application/x-www-form-urlencoded",
        "country=canada&format=atom",
    );
    assert_eq!(posted.status, 200);
    assert_eq!(posted.text(), canada);
    let path = "/api/v2/specimen-records/?country=canada&format=atom";
    let tag = s.get(path).header("etag").expect("a tag").to_string();
    let head = s.send("HEAD", path, &[]);
    assert_eq!((head.status, head.body.len()), (200, 0));
    assert_eq!(head.header("etag"), Some(tag.as_str()));
    let again = s.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!((again.status, again.body.len()), (304, 0));
    // A name the list does not know is refused, not ignored.
    assert_eq!(
        s.get("/api/v2/specimen-records/?format=atom&contry=canada")
            .status,
        400
    );
}
