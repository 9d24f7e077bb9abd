//! Filters of many values: `usi` and `taxon` given repeated or comma-separated,
//! on the list and on what takes its question (downloads, checklists).

use crate::common;

use common::{Server, TempDir};

fn matched(s: &Server, query: &str) -> Vec<i64> {
    s.ids_of(&format!("/api/v2/specimen-records/?limit=100000&{query}"))
}

/// Every specimen's (id, usi), ascending by id.
fn usis(s: &Server) -> Vec<(i64, String)> {
    let body = s.json(
        "/api/v2/specimen-records/?limit=100000&fields=_,id,usi",
        200,
    );
    body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["id"].as_i64().unwrap(), i["usi"].as_str().unwrap().into()))
        .collect()
}

#[test]
fn a_comma_list_of_fifty_usis_counts_right() {
    let dir = TempDir::new("many-usi");
    // Past 1,024 specimens a USI column is not grouped: the rows are looked up
    // in the values' set.
    let s = Server::start(&common::generated(&dir, 1500), Default::default());
    let all = usis(&s);
    assert_eq!(all.len(), 1500);
    let chosen: Vec<&(i64, String)> = all.iter().step_by(30).take(50).collect();
    assert_eq!(chosen.len(), 50);
    let mut values: Vec<String> = chosen.iter().map(|(_, u)| u.clone()).collect();
    let want: Vec<i64> = chosen.iter().map(|(id, _)| *id).collect();
    assert_eq!(matched(&s, &format!("usi={}", values.join(","))), want);
    // Unknown values match nothing; spaces around a value are trimmed; a value
    // given twice counts once.
    values.extend(["NOPE-1".to_string(), " NOPE-2 ".into(), values[0].clone()]);
    let list = values.join(",").replace(' ', "%20");
    let r = s.get(&format!(
        "/api/v2/specimen-records/?limit=100000&usi={list}"
    ));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["meta"]["total_count"], 50);
    assert_eq!(r.header("x-repeated-parameters"), None);
    // Repeated, and both ways at once.
    let (a, b, c) = (&all[3], &all[700], &all[1499]);
    assert_eq!(matched(&s, &format!("usi={}&usi={}", a.1, b.1)), [a.0, b.0]);
    assert_eq!(
        matched(&s, &format!("usi={},{}&usi=NOPE&usi={}", c.1, a.1, b.1)),
        [a.0, b.0, c.0]
    );
    let r = s.get(&format!(
        "/api/v2/specimen-records/?usi={}&usi={}",
        a.1, b.1
    ));
    assert_eq!(r.header("x-repeated-parameters"), None);
    // Only unknown values: nothing.
    assert_eq!(matched(&s, "usi=NOPE-1,NOPE-2"), Vec::<i64>::new());
    // One value means what it did; an empty list no filter.
    assert_eq!(matched(&s, &format!("usi={}", b.1)), [b.0]);
    assert_eq!(matched(&s, "usi=,%20,").len(), 1500);
    // With another filter, the intersection.
    let year = s.json(&format!("/api/v2/specimen-records/{}/", a.0), 200)["year"].clone();
    let with_year = matched(&s, &format!("usi={list}&year={year}"));
    let in_year: Vec<i64> = matched(&s, &format!("year={year}"));
    let both: Vec<i64> = want
        .iter()
        .copied()
        .filter(|id| in_year.contains(id))
        .collect();
    assert_eq!(with_year, both);

    // The download, the checklist and the archive take the same question.
    let csv = s.get(&format!(
        "/api/v2/specimen-records/?format=csv&fields=_,id,usi&usi={list}"
    ));
    assert_eq!(csv.status, 200, "{}", csv.text());
    assert_eq!(csv.text().lines().count(), 51, "a header and 50 rows");
    let checklist = s.json(
        &format!("/api/v2/specimen-records/checklist/?format=json&usi={list}"),
        200,
    );
    assert_eq!(checklist["meta"]["specimens"], 50);
}

#[test]
fn taxa_listed_are_exact_scientific_names() {
    let s = Server::sample();
    // One value stays a substring of the taxon's name: specimen 1 is of a
    // subspecies of Danaus plexippus.
    assert_eq!(matched(&s, "taxon=plexippus"), [2, 6]);
    assert_eq!(matched(&s, "taxon=Danaus+plexippus"), Vec::<i64>::new());
    // Listed: each an exact scientific name (binomial, trinomial, a rank's
    // name), regardless of case.
    assert_eq!(matched(&s, "taxon=Danaus+plexippus,Saturniidae"), [2, 6, 8]);
    assert_eq!(
        matched(&s, "taxon=danaus+PLEXIPPUS&taxon=saturniidae"),
        [2, 6, 8]
    );
    assert_eq!(matched(&s, "taxon=plexippus,Saturn"), Vec::<i64>::new());
    assert_eq!(
        matched(&s, "taxon=Danaus+plexippus+megalippe,Nothing+here"),
        [1]
    );
    // With the usi list.
    assert_eq!(
        matched(
            &s,
            "taxon=Danaus+plexippus,Saturniidae&usi=UMMZ-000002,UMMZ-000008,UMMZ-000001"
        ),
        [2, 8]
    );
    let r = s.get("/api/v2/specimen-records/?taxon=x&taxon=y");
    assert_eq!(r.header("x-repeated-parameters"), None);
}

const FORM: &str = "application/x-www-form-urlencoded";

#[test]
fn a_posted_form_of_two_thousand_usis_counts_right() {
    let dir = TempDir::new("many-posted");
    let s = Server::start(&common::generated(&dir, 2000), Default::default());
    let all = usis(&s);
    // 1,500 known (every one but each fourth), 500 unknown, shuffled together.
    let known: Vec<&(i64, String)> = all.iter().filter(|(id, _)| id % 4 != 0).collect();
    assert_eq!(known.len(), 1500);
    let mut values: Vec<String> = known.iter().map(|(_, u)| u.clone()).collect();
    values.extend((0..500).map(|i| format!("UNKNOWN-{i:05}")));
    values.reverse();
    let want: Vec<i64> = known.iter().map(|(id, _)| *id).collect();
    let body: String = values
        .iter()
        .map(|u| format!("usi={u}"))
        .collect::<Vec<_>>()
        .join("&");
    let list = "/api/v2/specimen-records/";
    let r = s.post(&format!("{list}?limit=100000&fields=_,id"), FORM, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["meta"]["total_count"], 1500);
    assert_eq!(common::ids(&r.json()), want);
    // Comma-separated in one field, the query's parameters first: the same.
    let comma = format!("usi={}", values.join("%2C"));
    let r = s.post(&format!("{list}?fields=_,id&limit=100000"), FORM, &comma);
    assert_eq!(common::ids(&r.json()), want);
    // A page of them, as a GET with the same parameters answers it.
    let r = s.post(&format!("{list}?limit=3&offset=1"), FORM, &comma);
    assert_eq!(common::ids(&r.json()), want[1..4]);
    // The download, the checklist, the label sheet and the archive.
    let csv = s.post(&format!("{list}?format=csv"), FORM, &body);
    assert_eq!(csv.status, 200, "{}", csv.text());
    assert_eq!(csv.text().lines().count(), 1501, "a header and 1,500 rows");
    let checklist = s.post(
        "/api/v2/specimen-records/checklist/?format=json",
        FORM,
        &body,
    );
    assert_eq!(checklist.status, 200, "{}", checklist.text());
    assert_eq!(checklist.json()["meta"]["specimens"], 1500);
    let labels = s.post(
        "/api/v2/specimen-records/labels/",
        FORM,
        &format!("format=csv&kind=determination&{body}"),
    );
    assert_eq!(labels.status, 200, "{}", labels.text());
    assert_eq!(
        labels.text().lines().count(),
        1501,
        "a header and a row a label"
    );
    let archive = s.post("/dwca.zip", FORM, &body);
    assert_eq!(archive.status, 200, "{}", archive.text());
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&archive.body[..])).unwrap();
    let mut occurrences = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("occurrence.txt").unwrap(),
        &mut occurrences,
    )
    .unwrap();
    assert_eq!(occurrences.lines().count(), 1501, "a header and 1,500 rows");
    // Every other list takes forms too; a body that is not one is refused.
    let orders = s.post("/api/v2/orders/?fields=_,id", FORM, "id=1");
    assert_eq!(orders.status, 200, "{}", orders.text());
    assert_eq!(orders.json()["meta"]["total_count"], 1);
    let r = s.post(list, "application/json", "{}");
    assert_eq!(r.status, 415);
    // A record takes none.
    assert_eq!(s.post("/api/v2/orders/1/", FORM, "").status, 405);
}

#[test]
fn the_list_page_takes_a_pasted_list_of_numbers() {
    let s = Server::sample();
    let page = s.send(
        "GET",
        "/api/v2/specimen-records/",
        &[("Accept", "text/html")],
    );
    assert!(page
        .text()
        .contains(r#"<form class="numbers" method="post" action="/api/v2/specimen-records/""#));
    let body = "usi=UMMZ-000003%0D%0AUMMZ-000005%0D%0ANOPE";
    let raw = format!(
        "POST /api/v2/specimen-records/ HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\
         Accept: text/html\r\nContent-Type: {FORM}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let r = common::request(s.addr, &raw);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let text = r.text();
    assert!(text.contains("<strong>2</strong> records"), "{text}");
    assert!(text.contains("UMMZ-000003, UMMZ-000005, NOPE"));
    let r = s.post("/api/v2/specimen-records/?fields=_,id", FORM, body);
    assert_eq!(common::ids(&r.json()), [3, 5]);
}
