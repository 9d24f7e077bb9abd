//! Specimen filters and exact field filters, on the bundled sample.

use crate::common;

use common::{ids, Server};

fn matched(server: &Server, query: &str) -> Vec<i64> {
    server.ids_of(&format!("/api/v2/specimen-records/?limit=100&{query}"))
}

#[test]
fn substring_filters_on_related_records() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("order=lepi", &[1, 2, 3, 6, 8]),
        ("order=COLEO", &[4]),
        ("family=idae", &[1, 2, 3, 4, 5, 6, 8]),
        ("subfamily=danai", &[1, 2, 6]),
        ("tribe=cicindel", &[4]),
        ("genus=hyalo", &[3]),
        ("species=plexippus", &[1, 2, 6]),
        ("subspecies=megal", &[1]),
        // The taxon is the most specific rank: specimen 1 is a subspecies.
        ("taxon=plexippus", &[2, 6]),
        ("taxon=saturn", &[8]),
        ("common_name=monarch", &[1, 2, 6]),
        ("determiner_lastname=alv", &[1, 3]),
        ("determiner_firstname=HENRY", &[2]),
        ("preparer_lastname=brooks", &[3, 4]),
        ("preparer_firstname=rosa", &[1, 2]),
        ("collecting_trip=gulf", &[1]),
        ("country=rica", &[1, 2, 4, 5, 6, 7, 8]),
        ("country=costa", &[5]),
        ("state=alaska", &[7, 8]),
        ("county=census", &[7]),
        ("locality=park", &[1]),
        ("gps_lat=42.29", &[2]),
        ("gps_long=-84.8", &[5]),
        ("elevation=400", &[3]),
    ];
    for (q, expected) in cases {
        assert_eq!(matched(&s, q), *expected, "{q}");
    }
}

#[test]
fn case_folding_is_unicode_aware() {
    let s = Server::sample();
    assert_eq!(matched(&s, "collector_lastname=C%C3%94T%C3%89"), vec![1, 6]);
    assert_eq!(matched(&s, "collector_firstname=th%C3%A9o"), vec![1, 6]);
    assert_eq!(matched(&s, "state=QU%C3%89"), vec![3]);
    assert_eq!(matched(&s, "collecting_trip=%C3%89T%C3%89"), vec![6]);
}

#[test]
fn a_record_with_several_matching_collectors_is_counted_once() {
    let s = Server::sample();
    // Specimens 1, 3 and 8 have both Brookses among their collectors.
    assert_eq!(
        matched(&s, "collector_lastname=brooks"),
        vec![1, 3, 4, 7, 8]
    );
    // Henry (specimen 4) has no "a"; Rosa, Amelia and Théo do.
    assert_eq!(matched(&s, "collector_firstname=a"), vec![1, 2, 3, 6, 7, 8]);
}

#[test]
fn substring_filters_on_the_specimen_itself() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("full_date=october", &[1]),
        ("full_date=2021", &[3, 6]),
        ("method=light", &[3, 7, 8]),
        ("method=NET", &[1]),
        ("weather=sunny", &[1]),
        ("temperature=.25", &[1]),
        ("time_of_day=pm", &[3]),
        ("habitat=QUERCUS", &[1]),
        ("notes=asclepias", &[6]),
    ];
    for (q, expected) in cases {
        assert_eq!(matched(&s, q), *expected, "{q}");
    }
}

#[test]
fn exact_filters() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("usi=UMMZ-000003", &[3]),
        ("usi=ummz-000003", &[]),
        ("year=2021", &[3, 6]),
        ("day=30", &[8]),
        ("determined_year=2022", &[3]),
        ("sex=female", &[2, 3, 8]),
        ("sex=Female", &[2, 3, 8]),
        ("stage=nymph", &[5]),
        ("preparation=alcohol", &[5]),
        ("month=July", &[6]),
        ("month=july", &[6]),
        ("preparation_date=2019-11-02", &[1]),
        ("labels_printed=true", &[1]),
        ("labeled=True", &[1]),
        ("photographed=0", &[1]),
        ("photographed=False", &[1]),
    ];
    for (q, expected) in cases {
        assert_eq!(matched(&s, q), *expected, "{q}");
    }
}

#[test]
fn filters_compose_and_page_after_filtering() {
    let s = Server::sample();
    assert_eq!(matched(&s, "collector_lastname=brooks&year=2021"), vec![3]);
    assert_eq!(
        matched(&s, "order=lepi&sex=female&method=light"),
        vec![3, 8]
    );
    let body = s.json(
        "/api/v2/specimen-records/?collector_lastname=brooks&limit=2&offset=1",
        200,
    );
    assert_eq!(body["meta"]["total_count"], 5);
    assert_eq!(ids(&body), vec![3, 4]);
    let body = s.json("/api/v2/specimen-records/?genus=zzzz", 200);
    assert_eq!(
        body,
        serde_json::json!({"meta": {"total_count": 0}, "items": []})
    );
    // Empty values are "no filter": the label form sends every field.
    assert_eq!(
        matched(&s, "order=&year=&sex=&labeled=&month=&preparation_date="),
        (1..=8).collect::<Vec<_>>()
    );
    // A filtered page serves the very bytes of the unfiltered list.
    let whole = s.get("/api/v2/specimen-records/?limit=100").text();
    let one = s.get("/api/v2/specimen-records/?usi=UMMZ-000006").text();
    let item = &one[one.find("[{").unwrap() + 1..one.len() - 2];
    assert!(whole.contains(item));
}

#[test]
fn invalid_specimen_filter_values_are_400() {
    let s = Server::sample();
    let cases = [
        ("year=abc", "year must be an integer; not \"abc\""),
        ("day=1,5", "day must be an integer; not \"1,5\""),
        ("determined_year=20x", "determined_year must be an integer; not \"20x\""),
        ("sex=other", "sex must be one of: male, female, unknown; not \"other\""),
        ("stage=imago", "stage must be one of: egg, larva, nymph, pupa, adult; not \"imago\""),
        (
            "preparation=glued",
            "preparation must be one of: spread, pinned, minuten, pointed, envelope, container, alcohol; not \"glued\"",
        ),
        (
            "month=Sept",
            "month must be one of: January, February, March, April, May, June, July, August, September, October, November, December; not \"Sept\"",
        ),
        (
            "preparation_date=2020-02-30",
            "preparation_date must be a date (2013-12-23, 12/23/2013, Dec 23 2013, 23 December 2013, ...); not \"2020-02-30\"",
        ),
        (
            "labeled=yes",
            "labeled must be a boolean (true, True, 2 or 1 for true; false, False, 3 or 0 for false; unknown for no filter); not \"yes\"",
        ),
        ("year=%20%20abc%20", "year must be an integer; not \"abc\""),
    ];
    for (q, message) in cases {
        s.assert_error(&format!("/api/v2/specimen-records/?{q}"), 400, message);
    }
}

#[test]
fn exact_field_filters_on_other_lists() {
    let s = Server::sample();
    let cases: &[(&str, &[i64])] = &[
        ("states/?country=2", &[5, 6]),
        ("nested-states/?abbr=AK", &[2]),
        ("species/?genus=1", &[1]),
        ("people/?last_name=Brooks", &[2, 3]),
        ("people/?last_name=brooks", &[]),
        ("counties/?abbr=Par.", &[4]),
        ("counties/?date_created=2023-01-12T01:30:00Z", &[1]),
        ("orders/?common_name=Beetles", &[2]),
        ("orders/?id=3", &[3]),
        ("localities/?county=1", &[1]),
        ("nested-localities/?state=5", &[4]),
        ("collecting-trips/?start_date=2021-07-15", &[2]),
        ("gps-coordinates/?locality=4&elevation=400-550", &[2]),
    ];
    for (q, expected) in cases {
        let body = s.json(&format!("/api/v2/{q}"), 200);
        assert_eq!(ids(&body), *expected, "{q}");
    }
    let errors = [
        ("orders/?id=abc", "field filter error. \"abc\" is not a valid value for id (expected an integer)"),
        ("states/?country=x", "field filter error. \"x\" is not a valid value for country (expected an id, an integer)"),
        ("collecting-trips/?start_date=July", "field filter error. \"July\" is not a valid value for start_date (expected a date, YYYY-MM-DD)"),
        ("collecting-trips/?states=1", "field filter error. states holds embedded records and cannot be filtered on"),
    ];
    for (q, message) in errors {
        let body = s.json(&format!("/api/v2/{q}"), 400);
        assert_eq!(body["message"], message, "{q}");
    }
}

#[test]
fn every_filter_can_match_nothing() {
    let s = Server::sample();
    let substring = [
        "order",
        "family",
        "subfamily",
        "tribe",
        "genus",
        "species",
        "subspecies",
        "taxon",
        "common_name",
        "determiner_lastname",
        "determiner_firstname",
        "preparer_lastname",
        "preparer_firstname",
        "collector_lastname",
        "collector_firstname",
        "collecting_trip",
        "country",
        "state",
        "county",
        "locality",
        "gps_lat",
        "gps_long",
        "elevation",
        "full_date",
        "method",
        "weather",
        "temperature",
        "time_of_day",
        "habitat",
        "notes",
        "usi",
    ];
    for name in substring {
        assert_eq!(
            matched(&s, &format!("{name}=zzqq")),
            Vec::<i64>::new(),
            "{name}"
        );
    }
    for q in [
        "determined_year=1900",
        "day=17",
        "year=1066",
        "sex=unknown&stage=egg",
        "stage=pupa",
        "preparation=minuten",
        "month=January",
        "preparation_date=2000-01-01",
        "labels_printed=false",
    ] {
        assert_eq!(matched(&s, q), Vec::<i64>::new(), "{q}");
    }
}

#[test]
fn ignored_parameters_are_named_in_a_header_and_change_nothing() {
    let s = Server::sample();
    let all = s.get("/api/v2/specimen-records/");
    assert_eq!(all.header("x-ignored-parameters"), None);
    let typo = s.get("/api/v2/specimen-records/?famly=nymph&limt=2&f%C3%A9e=1&famly=x");
    assert_eq!(typo.status, 200);
    assert_eq!(
        typo.header("x-ignored-parameters"),
        Some("famly, limt, f%C3%A9e")
    );
    // The contract of the service it replaces: the same records, unfiltered.
    assert_eq!(typo.body, all.body);
    // A revalidation says so too, and still answers 304.
    let etag = typo.header("etag").unwrap().to_string();
    let again = s.send(
        "GET",
        "/api/v2/specimen-records/?famly=nymph&limt=2&f%C3%A9e=1&famly=x",
        &[("If-None-Match", &etag)],
    );
    assert_eq!(again.status, 304);
    assert_eq!(
        again.header("x-ignored-parameters"),
        Some("famly, limt, f%C3%A9e")
    );
    // Filters, operations and filters left empty are not ignored parameters.
    let known = s.get("/api/v2/specimen-records/?family=nymph&limit=2&sex=&sort=usi");
    assert_eq!(known.status, 200);
    assert_eq!(known.header("x-ignored-parameters"), None);
    // Other lists refuse what they do not know, as before.
    s.assert_error(
        "/api/v2/orders/?famly=x",
        400,
        "query parameter is not an operation or a recognised field: famly",
    );
    // Browsers may read it across origins.
    assert!(typo
        .header("access-control-expose-headers")
        .unwrap()
        .contains("X-Ignored-Parameters"));
    // The page shows them.
    let page = s.send(
        "GET",
        "/api/v2/specimen-records/?famly=nymph",
        &[("Accept", "text/html")],
    );
    assert_eq!(page.status, 200);
    assert_eq!(page.header("x-ignored-parameters"), Some("famly"));
    assert!(
        page.text()
            .contains("Ignored, as they are not filters of this list: famly"),
        "{}",
        page.text()
    );
}

#[test]
fn a_repeated_filter_is_named_in_a_header_and_on_the_page() {
    let s = Server::sample();
    let q = "/api/v2/specimen-records/?family=nymph&family=saturn&sex=female&sex=female&year=1";
    let r = s.get(q);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-repeated-parameters"), Some("family, sex"));
    // The last value counts, as in the service it replaces.
    assert_eq!(
        r.body,
        s.get("/api/v2/specimen-records/?family=saturn&sex=female&year=1")
            .body
    );
    assert_eq!(
        s.get("/api/v2/specimen-records/?family=saturn")
            .header("x-repeated-parameters"),
        None
    );
    // Operations repeated are not filters repeated.
    assert_eq!(
        s.get("/api/v2/specimen-records/?limit=1&limit=2")
            .header("x-repeated-parameters"),
        None
    );
    let csv = s.get(&format!("{q}&format=csv"));
    assert_eq!(csv.header("x-repeated-parameters"), Some("family, sex"));
    let page = s.send("GET", q, &[("Accept", "text/html")]);
    assert_eq!(page.header("x-repeated-parameters"), Some("family, sex"));
    let text = page.text();
    assert!(
        text.contains(
            "family was given more than once: only its last value, <q>saturn</q>, counts."
        ) && text
            .contains("sex was given more than once: only its last value, <q>female</q>, counts."),
        "{text}"
    );
}

/// What no old client calls refuses a name it does not know, with the nearest
/// it does: a file keeps no header to say what was ignored.
#[test]
fn downloads_archives_labels_and_checklists_refuse_unknown_parameters() {
    let s = Server::sample();
    let nearest =
        "does not take famly (did you mean family?); /api/v2/openapi.json lists what it takes";
    for (path, what) in [
        (
            "/api/v2/specimen-records/?format=csv&famly=nymph",
            "a download (format=csv)",
        ),
        (
            "/api/v2/specimen-records/?format=ndjson&famly=nymph",
            "a download (format=ndjson)",
        ),
        ("/dwca.zip?famly=nymph", "/dwca.zip"),
        (
            "/api/v2/specimen-records/checklist/?famly=nymph",
            "a checklist",
        ),
        (
            "/api/v2/specimen-records/labels/?famly=nymph",
            "a label sheet",
        ),
    ] {
        s.assert_error(path, 400, &format!("{what} {nearest}"));
    }
    // The nearest of a sheet's own parameters, and none for what is near nothing.
    s.assert_error(
        "/api/v2/specimen-records/labels/?paper_size=a4&colour=red",
        400,
        "a label sheet does not take paper_size (did you mean paper?), colour; /api/v2/openapi.json lists what it takes",
    );
    // The JSON list and its page still ignore it, as the service did.
    let r = s.get("/api/v2/specimen-records/?famly=nymph&format=json");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-ignored-parameters"), Some("famly"));
}
