//! The OpenAPI document: served and printed alike, and exact: every body the
//! server gives validates against it, and every item has exactly the keys its
//! schema describes (no more, no fewer).

use crate::common;

use catalogue::model::Endpoint;
use catalogue::serve::Settings;
use common::{catalogue, Server, TempDir};
use serde_json::{json, Value};

/// Checks `value` against `schema` for the keywords the document uses. With
/// `exact`, an item (an object whose schema has no `required` list) must have every
/// property, in order (items without `fields` carry all their keys).
fn check(
    doc: &Value,
    schema: &Value,
    value: &Value,
    exact: bool,
    at: &str,
    errors: &mut Vec<String>,
) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/components/schemas/")
            .expect("local schema refs");
        return check(
            doc,
            &doc["components"]["schemas"][name],
            value,
            exact,
            at,
            errors,
        );
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let fits = any.iter().any(|s| {
            let mut e = Vec::new();
            check(doc, s, value, exact, at, &mut e);
            e.is_empty()
        });
        if !fits {
            errors.push(format!("{at}: fits none of anyOf: {value}"));
        }
        return;
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => panic!("type is a string or a list"),
        };
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        // An integer is a number too, as JSON Schema counts.
        if !(types.contains(&kind) || kind == "integer" && types.contains(&"number")) {
            errors.push(format!("{at}: {kind} where the document says {t}"));
            return;
        }
    }
    if let (Some(format), Some(s)) = (schema.get("format").and_then(Value::as_str), value.as_str())
    {
        let ok = match format {
            "date" => s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok(),
            "date-time" => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
            _ => true,
        };
        if !ok {
            errors.push(format!("{at}: {s:?} is not a {format}"));
        }
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            errors.push(format!("{at}: {value} where the document says {c}"));
        }
    }
    if let (Some(min), Some(n)) = (
        schema.get("minimum").and_then(Value::as_i64),
        value.as_i64(),
    ) {
        if n < min {
            errors.push(format!("{at}: {n} < {min}"));
        }
    }
    if let (Some(min), Some(max), Some(x)) = (
        schema.get("minimum").and_then(Value::as_f64),
        schema.get("maximum").and_then(Value::as_f64),
        value.as_f64(),
    ) {
        if !(min..=max).contains(&x) {
            errors.push(format!("{at}: {x} is outside {min}..={max}"));
        }
    }
    if let (Some(first), Some(values)) = (
        schema.get("prefixItems").and_then(Value::as_array),
        value.as_array(),
    ) {
        if values.len() != first.len() {
            errors.push(format!(
                "{at}: {} values where the document says {}",
                values.len(),
                first.len()
            ));
        }
        for (i, (s, v)) in first.iter().zip(values).enumerate() {
            check(doc, s, v, exact, &format!("{at}[{i}]"), errors);
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for (i, v) in values.iter().enumerate() {
            check(doc, items, v, exact, &format!("{at}[{i}]"), errors);
        }
    }
    if let (Some(props), Some(object)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (k, v) in object {
            match props.get(k) {
                Some(s) => check(doc, s, v, exact, &format!("{at}.{k}"), errors),
                None => errors.push(format!("{at}: key {k:?} is not in the document")),
            }
        }
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // Item schemas have no `required` list (`fields` may drop any key): exactness
        // is for them; an envelope's optional members (`facets`) stay optional.
        let exact = exact && schema.get("required").is_none();
        for (k, property) in props {
            // A key the document says is left out when it has no value.
            let may_be_absent = property.get("x-absent-when-null") == Some(&Value::Bool(true));
            if (exact && !may_be_absent || required.contains(&k.as_str()))
                && !object.contains_key(k)
            {
                errors.push(format!("{at}: the document's key {k:?} is missing"));
            }
        }
        if exact && errors.is_empty() {
            let served: Vec<&String> = object.keys().collect();
            let described: Vec<&String> =
                props.keys().filter(|k| object.contains_key(*k)).collect();
            if served != described {
                errors.push(format!("{at}: keys in another order than the document's"));
            }
        }
    }
}

fn response_schema<'a>(doc: &'a Value, path: &str, status: u16) -> &'a Value {
    media_schema(doc, path, status, "application/json")
}

fn media_schema<'a>(doc: &'a Value, path: &str, status: u16, media: &str) -> &'a Value {
    let mut r = &doc["paths"][path]["get"]["responses"][status.to_string()];
    if let Some(name) = r.get("$ref").and_then(Value::as_str) {
        r = &doc["components"]["responses"][name.rsplit('/').next().unwrap()];
    }
    &r["content"][media]["schema"]
}

/// Validates the answers of every list and record path of a served collection.
fn every_answer_validates(server: &Server, doc: &Value) {
    let mut errors = Vec::new();
    for e in Endpoint::all() {
        let list_path = format!("/api/v2/{}/", e.segment());
        let body = server.json(&format!("{list_path}?limit=100000"), 200);
        let schema = response_schema(doc, &list_path, 200);
        check(doc, schema, &body, true, &list_path, &mut errors);
        let record_path = format!("/api/v2/{}/{{id}}/", e.segment());
        for item in body["items"].as_array().unwrap().iter().take(50) {
            let path = format!("/api/v2/{}/{}/", e.segment(), item["id"]);
            let record = server.json(&path, 200);
            check(
                doc,
                response_schema(doc, &record_path, 200),
                &record,
                true,
                &path,
                &mut errors,
            );
        }
        // Facets over every facetable field validate too.
        let facetable: Vec<&str> = e
            .model
            .fields()
            .iter()
            .filter(|f| catalogue::query::facets::facetable(f.ty))
            .map(|f| f.name)
            .collect();
        let faceted = server.json(
            &format!("{list_path}?limit=1&facet={}", facetable.join(",")),
            200,
        );
        assert_eq!(
            faceted["meta"]["facets"].as_object().unwrap().len(),
            facetable.len()
        );
        check(doc, schema, &faceted, true, &list_path, &mut errors);
        // GeoJSON answers validate where the records have points, and nowhere else
        // is GeoJSON described.
        let geo = media_schema(doc, &list_path, 200, "application/geo+json");
        if catalogue::query::geojson::supports(*e) {
            for q in ["limit=100000", "fields=_,id&facet=id&limit=2"] {
                let r = server.get(&format!("{list_path}?format=geojson&{q}"));
                assert_eq!(r.header("content-type"), Some("application/geo+json"));
                let body = r.json();
                if q.starts_with("limit") {
                    // Every record is a feature or counted without coordinates.
                    let all = server.json(&format!("{list_path}?limit=0"), 200)["meta"]
                        ["total_count"]
                        .clone();
                    let features = body["features"].as_array().unwrap().len() as u64;
                    let without = body["meta"]["without_coordinates"].as_u64().unwrap();
                    assert_eq!(json!(features + without), all, "{list_path}");
                }
                check(
                    doc,
                    geo,
                    &body,
                    q.starts_with("limit"),
                    &list_path,
                    &mut errors,
                );
            }
        } else {
            assert!(geo.is_null(), "{list_path}");
        }
        // A download's lines are the list's items.
        let lines = server.get(&format!("{list_path}?format=ndjson"));
        assert_eq!(lines.header("content-type"), Some("application/x-ndjson"));
        let items: Vec<Value> = lines
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let as_list = json!({"meta": {"total_count": items.len()}, "items": items});
        check(doc, schema, &as_list, true, &list_path, &mut errors);
        // A projected page still validates (keys may be left out, never added).
        let cut = server.json(&format!("{list_path}?fields=_,id&limit=3"), 200);
        check(doc, schema, &cut, false, &list_path, &mut errors);
        // Errors have the documented shape.
        let bad = server.get(&format!("{list_path}?limit=x"));
        assert_eq!(bad.status, 400);
        check(
            doc,
            response_schema(doc, &list_path, 400),
            &bad.json(),
            false,
            &list_path,
            &mut errors,
        );
        let missing = server.get(&format!("/api/v2/{}/0/", e.segment()));
        assert_eq!(missing.status, 404);
        check(
            doc,
            response_schema(doc, &record_path, 404),
            &missing.json(),
            false,
            &record_path,
            &mut errors,
        );
    }
    // The checklists, of everything and of a question.
    let checklist = "/api/v2/specimen-records/checklist/";
    for q in ["", "?year=2021", "?search=zzzz"] {
        let body = server.json(&format!("{checklist}{q}"), 200);
        let schema = response_schema(doc, checklist, 200);
        check(
            doc,
            schema,
            &body,
            !q.contains("zzzz"),
            checklist,
            &mut errors,
        );
    }
    // Wagtail's image list with every field, its default page, and single images.
    let (list_path, record_path) = ("/api/v2/images/", "/api/v2/images/{id}/");
    let all = server.json("/api/v2/images/?limit=100000&fields=*", 200);
    assert!(!all["items"].as_array().unwrap().is_empty());
    let schema = response_schema(doc, list_path, 200);
    check(doc, schema, &all, true, list_path, &mut errors);
    let default = server.json(list_path, 200);
    check(doc, schema, &default, false, list_path, &mut errors);
    for item in all["items"].as_array().unwrap().iter().take(20) {
        let path = format!("/api/v2/images/{}/", item["id"]);
        let record = server.json(&path, 200);
        check(
            doc,
            response_schema(doc, record_path, 200),
            &record,
            true,
            &path,
            &mut errors,
        );
    }
    let missing = server.get("/api/v2/images/0/");
    assert_eq!(missing.status, 404);
    check(
        doc,
        response_schema(doc, record_path, 404),
        &missing.json(),
        false,
        record_path,
        &mut errors,
    );
    // GBIF's occurrence search, count and records (terms without a value are
    // left out, so not every key is there).
    let (search, one) = ("/gbif/v1/occurrence/search", "/gbif/v1/occurrence/{key}");
    let found = server.json(
        &format!("{search}?limit=300&facet=family&facet=country&facet=year&geometry=POLYGON((-179%20-89,179%20-89,179%2089,-179%2089,-179%20-89))"),
        200,
    );
    assert!(!found["results"].as_array().unwrap().is_empty());
    check(
        doc,
        response_schema(doc, search, 200),
        &found,
        false,
        search,
        &mut errors,
    );
    for o in found["results"].as_array().unwrap().iter().take(20) {
        let path = format!("/gbif/v1/occurrence/{}", o["key"]);
        check(
            doc,
            response_schema(doc, one, 200),
            &server.json(&path, 200),
            false,
            &path,
            &mut errors,
        );
    }
    let count = server.json("/gbif/v1/occurrence/count?year=*,3000", 200);
    check(
        doc,
        response_schema(doc, "/gbif/v1/occurrence/count", 200),
        &count,
        true,
        search,
        &mut errors,
    );
    let bad = server.get(&format!("{search}?taxonKey=1"));
    assert_eq!(bad.status, 400);
    check(
        doc,
        response_schema(doc, search, 400),
        &bad.json(),
        false,
        search,
        &mut errors,
    );
    assert!(
        errors.is_empty(),
        "{} problems, first: {:#?}",
        errors.len(),
        &errors[..errors.len().min(10)]
    );
}

#[test]
fn the_document_is_served_and_printed_alike() {
    let server = Server::sample();
    let served = server.get("/api/v2/openapi.json");
    assert_eq!(served.status, 200);
    assert_eq!(served.header("content-type"), Some("application/json"));
    assert!(served.header("etag").is_some());
    let doc = served.json();
    assert_eq!(doc, catalogue::serve::openapi(None));
    assert_eq!(doc["openapi"], "3.1.0");
    // Two paths per endpoint, the document's own, the archive and its
    // metadata, Wagtail's images (two), pages (three) and documents (two), the
    // label sheets, the short links, the checklists, GBIF's search, count and
    // occurrence, the suggestions (ours, GBIF's species and a term's values),
    // the versions, their feeds (Atom and RSS), a kept version's archive and
    // metadata, the changes and the citation, the quality flags' counts, and
    // what was published and held back.
    assert_eq!(doc["paths"].as_object().unwrap().len(), 2 * 30 + 22 + 6);
    let short = &doc["paths"]["/s/{digits}"]["get"];
    assert!(short["responses"]["301"]["headers"]["Location"].is_object());
    assert!(short["responses"]["404"].is_object());
    let gbif = &doc["paths"]["/gbif/v1/occurrence/search"]["get"];
    let names: Vec<&str> = gbif["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        catalogue::query::gbif::search::parameters().collect::<Vec<_>>()
    );
    let labels = &doc["paths"]["/api/v2/specimen-records/labels/"]["get"];
    let names: Vec<&str> = labels["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for name in [
        "kind", "format", "width_mm", "qr", "family", "search", "sort", "limit",
    ] {
        assert!(names.contains(&name), "{name}");
    }
    assert!(!names.contains(&"fields") && !names.contains(&"facet"));
    assert!(labels["responses"]["200"]["content"]["application/pdf"].is_object());
    // The typed image lists are there for the service's older clients, deprecated.
    for path in [
        "/api/v2/insect-images/",
        "/api/v2/insect-images/{id}/",
        "/api/v2/plant-images/",
    ] {
        assert_eq!(doc["paths"][path]["get"]["deprecated"], true, "{path}");
    }
    assert!(doc["paths"]["/api/v2/images/"]["get"]
        .get("deprecated")
        .is_none());
    assert!(
        doc["paths"]["/dwca.zip"]["get"]["responses"]["200"]["content"]["application/zip"]
            .is_object()
    );

    let printed = catalogue(&["openapi"]);
    assert!(printed.status.success());
    let printed: Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(printed, doc);
    let capped: Value =
        serde_json::from_slice(&catalogue(&["openapi", "--max-limit", "50"]).stdout).unwrap();
    let limit = capped["paths"]["/api/v2/orders/"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "limit")
        .unwrap();
    assert_eq!(limit["schema"]["maximum"], 50);
}

#[test]
fn generated_names_are_unique_readable_and_linked() {
    let doc = catalogue::serve::openapi(None);
    let operations: Vec<&Value> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|p| p.as_object().unwrap().values())
        .collect();
    let ids: Vec<&str> = operations
        .iter()
        .map(|o| o["operationId"].as_str().unwrap())
        .collect();
    let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "operation ids repeat: {ids:?}");
    for id in [
        "list-nested-counties",
        "get-nested-county",
        "get-species",
        "get-gps",
    ] {
        assert!(unique.contains(id), "{id} is not an operation id: {ids:?}");
    }
    // A link names an operation the document has (schemathesis refuses the
    // document otherwise).
    for operation in &operations {
        for response in operation["responses"].as_object().unwrap().values() {
            for link in response["links"]
                .as_object()
                .into_iter()
                .flat_map(|l| l.values())
            {
                let target = link["operationId"].as_str().unwrap();
                assert!(
                    unique.contains(target),
                    "a link names {target}, no operation"
                );
            }
        }
    }
    // JSON first wherever a response has more than one media type: generators
    // read the first.
    let specimens =
        &doc["paths"]["/api/v2/specimen-records/"]["get"]["responses"]["200"]["content"];
    let media: Vec<&String> = specimens.as_object().unwrap().keys().collect();
    assert_eq!(
        media,
        [
            "application/json",
            "application/geo+json",
            "text/csv; charset=utf-8",
            "application/x-ndjson",
            "application/atom+xml; charset=utf-8",
            "application/zip"
        ]
    );
    // The feed and the photographs answer in types their lists' document
    // lists; another list takes no zip.
    let server = Server::sample();
    for (list, format) in [
        ("specimen-records", "atom"),
        ("specimen-records", "zip"),
        ("species", "atom"),
    ] {
        let r = server.get(&format!("/api/v2/{list}/?format={format}"));
        assert_eq!(r.status, 200, "{list} {format}");
        let path = format!("/api/v2/{list}/");
        let content = &doc["paths"][&path]["get"]["responses"]["200"]["content"];
        let media = r.header("content-type").unwrap();
        assert!(content.get(media).is_some(), "{path} lists no {media}");
    }
    let species = &doc["paths"]["/api/v2/species/"]["get"]["responses"]["200"]["content"];
    assert!(species.get("application/zip").is_none());
}

#[test]
fn every_answer_on_the_sample_validates_exactly() {
    let server = Server::sample();
    every_answer_validates(&server, &catalogue::serve::openapi(None));
}

#[test]
fn every_answer_on_a_generated_collection_validates_exactly() {
    let dir = TempDir::new("openapi");
    let server = Server::start(&common::generated(&dir, 300), Settings::default());
    every_answer_validates(&server, &catalogue::serve::openapi(None));
}

#[test]
fn the_checker_catches_a_key_too_many_and_a_key_missing() {
    let doc = catalogue::serve::openapi(None);
    let schema = serde_json::json!({"$ref": "#/components/schemas/Country"});
    let good = serde_json::json!({"id": 1, "name": "A", "abbr": "A",
        "date_created": "2024-01-01T00:00:00.000000Z", "date_modified": "2024-01-01T00:00:00.000000Z"});
    let mut errors = Vec::new();
    check(&doc, &schema, &good, true, "", &mut errors);
    assert!(errors.is_empty(), "{errors:?}");
    let mut extra = good.clone();
    extra["flag"] = true.into();
    check(&doc, &schema, &extra, true, "", &mut errors);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("abbr");
    check(&doc, &schema, &missing, true, "", &mut errors);
    assert_eq!(errors.len(), 2, "{errors:?}");
    let mut null = good;
    null["name"] = Value::Null;
    check(&doc, &schema, &null, true, "", &mut errors);
    assert_eq!(errors.len(), 3, "{errors:?}");
}

#[test]
fn the_checker_catches_a_wrong_feature() {
    let doc = catalogue::serve::openapi(None);
    let schema = serde_json::json!({"$ref": "#/components/schemas/GPSFeatureCollection"});
    let collection = |kind: &str, coordinates: Value| {
        serde_json::json!({"type": "FeatureCollection",
            "meta": {"total_count": 1, "without_coordinates": 0},
            "features": [{"type": kind, "id": 1,
                "geometry": {"type": "Point", "coordinates": coordinates},
                "properties": {"id": 1}}]})
    };
    let mut errors = Vec::new();
    check(
        &doc,
        &schema,
        &collection("Feature", serde_json::json!([-120.5, 45])),
        false,
        "",
        &mut errors,
    );
    assert!(errors.is_empty(), "{errors:?}");
    // Latitude first: 120 is not a latitude.
    check(
        &doc,
        &schema,
        &collection("Feature", serde_json::json!([45, -120.5])),
        false,
        "",
        &mut errors,
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    check(
        &doc,
        &schema,
        &collection("Feature", serde_json::json!([1])),
        false,
        "",
        &mut errors,
    );
    assert_eq!(errors.len(), 2, "{errors:?}");
    check(
        &doc,
        &schema,
        &collection("Point", serde_json::json!([1, 2])),
        false,
        "",
        &mut errors,
    );
    assert_eq!(errors.len(), 3, "{errors:?}");
}

/// The response the document gives `method path` for `status`, its `$ref`
/// followed; `None` where it lists no such status.
fn listed<'a>(doc: &'a Value, path: &str, method: &str, status: u16) -> Option<&'a Value> {
    let r = doc["paths"][path][method]["responses"].get(status.to_string())?;
    match r.get("$ref").and_then(Value::as_str) {
        Some(name) => doc["components"]["responses"].get(name.rsplit('/').next().unwrap()),
        None => Some(r),
    }
}

/// Every status and content type the server answers an operation with is one
/// its document lists (what schemathesis found missing: the 410 of an old
/// `since`, Wagtail's 400s, the checklist page's HTML refusal, a long query's
/// 431, which every operation may answer).
#[test]
fn each_operation_lists_the_statuses_and_types_it_answers() {
    let server = Server::sample();
    let doc = server.get("/api/v2/openapi.json").json();
    let long = "a".repeat(9000);
    for (asked, path, method) in [
        // Before version 1 is everything added (200); a version to come, 400.
        ("/api/v2/changes/?since=99", "/api/v2/changes/", "get"),
        (
            "/api/v2/documents/?tags=permits&search=x",
            "/api/v2/documents/",
            "get",
        ),
        ("/api/v2/pages/?site=0", "/api/v2/pages/", "get"),
        (
            "/api/v2/specimen-records/checklist/?format=html&foo=1",
            "/api/v2/specimen-records/checklist/",
            "get",
        ),
        (
            "/api/v2/specimen-records/checklist/?format=html&bom=2",
            "/api/v2/specimen-records/checklist/",
            "get",
        ),
        (
            &format!("/gbif/v1/occurrence/search?q={long}"),
            "/gbif/v1/occurrence/search",
            "get",
        ),
        (
            &format!("/api/v2/specimen-records/?search={long}"),
            "/api/v2/specimen-records/",
            "get",
        ),
        (
            &format!("/api/v2/changes/?since=1&_={long}"),
            "/api/v2/changes/",
            "get",
        ),
    ] {
        let r = server.send(&method.to_uppercase(), asked, &[]);
        assert!(r.status >= 400, "{path}: {}", r.status);
        let response = listed(&doc, path, method, r.status)
            .unwrap_or_else(|| panic!("{path} does not list {}", r.status));
        match r.header("content-type") {
            None => assert!(r.body.is_empty(), "{path} {}", r.status),
            Some(media) => assert!(
                response["content"].get(media).is_some(),
                "{path} {} lists no {media}: {response}",
                r.status
            ),
        }
    }
    // Any request's head may be too large: every operation lists 431.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op.get("responses").is_some() {
                assert!(
                    listed(&doc, path, method, 431).is_some(),
                    "{method} {path} lists no 431"
                );
            }
        }
    }
}
