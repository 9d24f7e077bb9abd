//! `format=geojson` over a real server, on a generated collection where some GPS
//! records have no coordinates: every feature must be the JSON list's item with the
//! point its record's coordinates give, in the JSON list's order.

use crate::common;

use catalogue::serve::Settings;
use common::{Server, TempDir};
use serde_json::{json, Value};

/// The point a JSON item's GPS record gives, if it has both coordinates.
fn point_of(gps: &Value) -> Option<Value> {
    let lat: f64 = gps["latitude"].as_str()?.parse().ok()?;
    let lon: f64 = gps["longitude"].as_str()?.parse().ok()?;
    Some(json!([lon, lat]))
}

/// GET a GeoJSON answer: 200 with the GeoJSON media type, parsed.
fn geo(server: &Server, path: &str) -> Value {
    let r = server.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    assert_eq!(
        r.header("content-type"),
        Some("application/geo+json"),
        "{path}"
    );
    let body = r.json();
    assert_eq!(body["type"], "FeatureCollection", "{path}");
    body
}

/// The features the JSON answer to `json_query` says a GeoJSON answer must hold, and
/// how many items it leaves out for lack of a point.
fn expected(
    server: &Server,
    segment: &str,
    json_query: &str,
    gps: fn(&Value) -> &Value,
) -> (Vec<Value>, usize) {
    let list = server.json(&format!("/api/v2/{segment}/?{json_query}"), 200);
    let items = list["items"].as_array().unwrap();
    let features: Vec<Value> = items
        .iter()
        .filter_map(|item| {
            let point = point_of(gps(item))?;
            Some(json!({"type": "Feature", "id": item["id"],
                "geometry": {"type": "Point", "coordinates": point}, "properties": item}))
        })
        .collect();
    let without = items.len() - features.len();
    (features, without)
}

#[test]
fn features_are_the_items_with_points_in_list_order() {
    let dir = TempDir::new("geojson");
    let server = Server::start(&common::generated(&dir, 3000), Settings::default());
    let everything = "limit=100000";

    // GPS records, plain and nested: the point is the record's own.
    for segment in ["gps-coordinates", "nested-gps-coordinates"] {
        let (features, without) = expected(&server, segment, everything, |item| item);
        assert!(
            without > 0 && features.len() > without,
            "{segment}: the generator leaves some out"
        );
        let body = geo(
            &server,
            &format!("/api/v2/{segment}/?format=geojson&{everything}"),
        );
        assert_eq!(
            body["meta"],
            json!({"total_count": features.len(), "without_coordinates": without})
        );
        assert_eq!(body["features"].as_array().unwrap(), &features, "{segment}");
    }

    // Specimens: the point of their GPS record; filters, search, sort, fields apply.
    let specimens = |q: &str| {
        let (features, without) = expected(&server, "specimen-records", q, |item| &item["gps"]);
        let body = geo(
            &server,
            &format!("/api/v2/specimen-records/?format=geojson&{q}"),
        );
        (features, without, body)
    };
    for q in [
        everything,
        "limit=100000&sex=female&sort=-year,usi",
        "limit=100000&search=moth&year=1990",
        "limit=100000&fields=_,id,usi,gps(latitude,longitude)",
    ] {
        let (features, without, body) = specimens(q);
        assert!(!features.is_empty(), "{q}");
        assert_eq!(body["meta"]["total_count"], features.len(), "{q}");
        assert_eq!(body["meta"]["without_coordinates"], without, "{q}");
        assert_eq!(body["features"].as_array().unwrap(), &features, "{q}");
    }

    // Paging runs over the features: offset 5, limit 7 of the sorted features.
    let (features, without, _) = specimens("limit=100000&sort=-usi&order=lepi");
    let body = geo(
        &server,
        "/api/v2/specimen-records/?format=geojson&sort=-usi&order=lepi&offset=5&limit=7",
    );
    assert_eq!(
        body["meta"],
        json!({"total_count": features.len(), "without_coordinates": without})
    );
    assert_eq!(body["features"].as_array().unwrap(), &features[5..12]);

    // Unfiltered and unsorted, the page is a run of the records with points.
    let (all, without, _) = specimens(everything);
    let body = geo(
        &server,
        "/api/v2/specimen-records/?format=geojson&offset=5&limit=7",
    );
    assert_eq!(
        body["meta"],
        json!({"total_count": all.len(), "without_coordinates": without})
    );
    assert_eq!(body["features"].as_array().unwrap(), &all[5..12]);

    // Facets count every matching record, with a point or not.
    let body = geo(
        &server,
        "/api/v2/specimen-records/?format=geojson&limit=0&facet=sex&sex=male",
    );
    let males = server.json("/api/v2/specimen-records/?limit=0&sex=male", 200)["meta"]
        ["total_count"]
        .clone();
    assert_eq!(
        body["meta"]["facets"],
        json!({"sex": [{"value": "male", "count": males}]})
    );
    assert_eq!(body["features"], json!([]));
}

#[test]
fn format_is_checked() {
    let server = Server::sample();
    server.assert_error(
        "/api/v2/orders/?format=geojson",
        400,
        "format=geojson is only for the lists of records with a place: gps-coordinates, nested-gps-coordinates, specimen-records, insect-images, plant-images, habitat-images",
    );
    server.assert_error(
        "/api/v2/specimen-records/?format=xml",
        400,
        "format must be json, geojson, csv, ndjson, atom or zip, not \"xml\"",
    );
    server.assert_error(
        "/api/v2/specimen-records/1/?format=geojson",
        400,
        "format=geojson is for lists, not single records",
    );
    // `format=json` is the JSON list, byte for byte.
    assert_eq!(
        server.get("/api/v2/gps-coordinates/?format=json").body,
        server.get("/api/v2/gps-coordinates/").body
    );
    // A GeoJSON answer has its own validator, and revalidates.
    let path = "/api/v2/gps-coordinates/?format=geojson";
    let first = server.get(path);
    let tag = first.header("etag").unwrap().to_string();
    assert_ne!(
        Some(tag.as_str()),
        server.get("/api/v2/gps-coordinates/").header("etag")
    );
    let again = server.send("GET", path, &[("If-None-Match", &tag)]);
    assert_eq!(again.status, 304);
}
