//! Paging and the errors every list gives for bad parameters.

use crate::common;

use catalogue::query::Limits;
use catalogue::serve::Settings;
use common::{ids, Server, TempDir};
use serde_json::json;

#[test]
fn default_page_and_paging_edges() {
    let dir = TempDir::new("paging");
    let server = Server::start(&common::generated(&dir, 300), Settings::default());
    let body = server.json("/api/v2/specimen-records/", 200);
    assert_eq!(body["meta"]["total_count"], 300);
    assert_eq!(ids(&body), (1..=20).collect::<Vec<_>>());
    let body = server.json("/api/v2/specimen-records/?limit=5&offset=295", 200);
    assert_eq!(ids(&body), (296..=300).collect::<Vec<_>>());
    let body = server.json("/api/v2/specimen-records/?limit=10&offset=298", 200);
    assert_eq!(ids(&body), vec![299, 300]);
    for path in [
        "/api/v2/specimen-records/?offset=300",
        "/api/v2/specimen-records/?offset=1000000",
        "/api/v2/specimen-records/?limit=0",
        "/api/v2/specimen-records/?limit=0&offset=5",
        "/api/v2/specimen-records/?offset=99999999999999999999999",
    ] {
        let body = server.json(path, 200);
        assert_eq!(
            body,
            json!({"meta": {"total_count": 300}, "items": []}),
            "{path}"
        );
    }
    // A page well above the copy threshold is streamed: head, shared slice, tail.
    let r = server.get("/api/v2/specimen-records/?limit=99999999999999999999");
    assert_eq!(r.status, 200);
    assert!(r.body.len() > 64 * 1024);
    assert_eq!(
        r.header("content-length")
            .unwrap()
            .parse::<usize>()
            .unwrap(),
        r.body.len()
    );
    assert_eq!(ids(&r.json()), (1..=300).collect::<Vec<_>>());
    // Every page, concatenated, is the whole list.
    let mut all = Vec::new();
    for offset in (0..300).step_by(64) {
        all.extend(ids(&server.json(
            &format!("/api/v2/specimen-records/?limit=64&offset={offset}"),
            200,
        )));
    }
    assert_eq!(all, (1..=300).collect::<Vec<_>>());
}

#[test]
fn configured_page_size_and_maximum() {
    let settings = Settings {
        limits: Limits {
            default_limit: 2,
            max_limit: Some(5),
        },
        ..Settings::default()
    };
    let server = Server::start(&common::sample_snapshot(), settings);
    assert_eq!(ids(&server.json("/api/v2/states/", 200)), vec![1, 2]);
    assert_eq!(ids(&server.json("/api/v2/states/?limit=5", 200)).len(), 5);
    let body = server.json("/api/v2/states/?limit=6", 400);
    assert_eq!(body, json!({"message": "limit cannot be higher than 5"}));
}

#[test]
fn bad_limit_and_offset_are_400() {
    let server = Server::sample();
    for value in ["-1", "abc", "", "1.5", "1e3", "+", "%20", "1__0", "0x10"] {
        for name in ["limit", "offset"] {
            for endpoint in ["orders", "nested-localities", "specimen-records"] {
                let body = server.json(&format!("/api/v2/{endpoint}/?{name}={value}"), 400);
                assert_eq!(
                    body,
                    json!({"message": format!("{name} must be a positive integer")}),
                    "{endpoint} {name}={value}"
                );
            }
        }
    }
}

#[test]
fn unknown_parameters_are_400_except_on_specimens() {
    let server = Server::sample();
    let body = server.json("/api/v2/states/?zeta=1&alpha=2&limit=2", 400);
    assert_eq!(
        body,
        json!({"message": "query parameter is not an operation or a recognised field: alpha, zeta"})
    );
    let body = server.json("/api/v2/nested-genera/?foo=1&foo=2", 400);
    assert_eq!(
        body,
        json!({"message": "query parameter is not an operation or a recognised field: foo"})
    );
    // Unknown parameters are checked before paging.
    let body = server.json("/api/v2/orders/?bogus=1&limit=abc", 400);
    assert_eq!(
        body["message"],
        "query parameter is not an operation or a recognised field: bogus"
    );
    // Operations and fields of the plain shape are recognised.
    server.json("/api/v2/orders/?_=123&format=json&name=Odonata", 200);
    server.json("/api/v2/nested-states/?country=1", 200);
    // The label form sends fields the specimen list does not know: ignored.
    let body = server.json("/api/v2/specimen-records/?bogus=1&limit=2", 200);
    assert_eq!(ids(&body), vec![1, 2]);
}

#[test]
fn query_strings_decode_as_browsers_do() {
    let server = Server::sample();
    // Nothing is refused for its encoding: `%zz` is itself, `%ff` is U+FFFD.
    for path in [
        "/api/v2/orders/?name=%zz",
        "/api/v2/orders/?name=%ff",
        "/api/v2/orders/?name=100%",
    ] {
        assert_eq!(server.json(path, 200)["meta"]["total_count"], 0, "{path}");
    }
    assert_eq!(
        server.json("/api/v2/orders/?name=Coleop%74era", 200)["meta"]["total_count"],
        1
    );
    server.assert_error(
        "/api/v2/orders/?limit=%",
        400,
        "limit must be a positive integer",
    );
    server.assert_error(
        "/api/v2/orders/?name=a%00",
        400,
        "the query string holds a NUL character (%00), which no value can hold",
    );
}

#[test]
fn unsupported_operations_say_so() {
    let server = Server::sample();
    let body = server.json("/api/v2/orders/?format=xml", 400);
    assert_eq!(
        body["message"],
        "format must be json, geojson, csv, ndjson, atom or zip, not \"xml\""
    );
}
