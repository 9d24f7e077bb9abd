//! `HEAD` answers as `GET` does: every operation of the OpenAPI document,
//! asked with no parameters, then with each parameter valid and invalid (made
//! from its schema), as JSON and as a page, gets the same status by both
//! methods, and the same headers but those of the body itself.

use serde_json::Value;

use crate::common::Server;

/// Headers that describe the body sent, not the answer: a `HEAD` of work on
/// the pool is answered without making the body, so without its length.
const BODY_HEADERS: &[&str] = &["content-length", "transfer-encoding", "date"];

/// A value of a parameter's schema, and one it refuses (if it refuses any).
fn values(schema: &Value) -> (String, Option<String>) {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        let valid = match first {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        return (valid, Some("not-one-of-them".into()));
    }
    match schema["type"].as_str() {
        Some("integer") | Some("number") => {
            let min = schema["minimum"].as_i64().unwrap_or(1).max(0);
            (min.to_string(), Some("abc".into()))
        }
        Some("boolean") => ("true".into(), Some("maybe".into())),
        Some("array") => values(&schema["items"]),
        _ => ("a".into(), None),
    }
}

/// The path with its parameters filled in with `id`.
fn filled(path: &str, id: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
        out.push_str(id);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

fn compared(reply: &crate::common::Reply) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = reply
        .headers
        .iter()
        .filter(|(name, _)| !BODY_HEADERS.contains(&name.to_ascii_lowercase().as_str()))
        .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
        .collect();
    kept.sort();
    kept
}

#[test]
fn head_answers_every_operation_as_get_does() {
    let s = Server::sample();
    let doc = s.json("/api/v2/openapi.json", 200);
    let paths = doc["paths"].as_object().expect("the document has paths");
    let mut asked = 0;
    let mut statuses = std::collections::BTreeSet::new();
    let mut differences = Vec::new();
    for (path, item) in paths {
        let Some(get) = item.get("get") else { continue };
        let params: Vec<&Value> = get["parameters"]
            .as_array()
            .map(|p| p.iter().collect())
            .unwrap_or_default();
        let mut queries = vec![String::new()];
        for p in params.iter().filter(|p| p["in"] == "query") {
            let name = p["name"].as_str().unwrap_or_default();
            let (valid, invalid) = values(&p["schema"]);
            queries.push(format!("{name}={valid}"));
            if let Some(invalid) = invalid {
                queries.push(format!("{name}={invalid}"));
            }
        }
        // Every fixed path the document describes is one the route table takes
        // (a route's own 404, such as `find/` without a page, says more than
        // the table's `Not found.`).
        if !path.contains('{') {
            let routed = s.get(path);
            let unrouted = routed.status == 404
                && routed.json()["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("Not found."));
            assert!(!unrouted, "{path}: the document describes it");
        }
        let ids: &[&str] = match path.contains('{') {
            true => &["1", "999999", "x"],
            false => &[""],
        };
        for id in ids {
            let base = filled(path, id);
            for query in &queries {
                let url = match query.is_empty() {
                    true => base.clone(),
                    false => format!("{base}?{query}"),
                };
                for accept in ["application/json", "text/html"] {
                    let headers = [("Accept", accept)];
                    let get = s.send("GET", &url, &headers);
                    let head = s.send("HEAD", &url, &headers);
                    asked += 1;
                    statuses.insert(get.status);
                    let (g, h) = (compared(&get), compared(&head));
                    if get.status != head.status || g != h {
                        let only = |a: &[(String, String)], b: &[(String, String)]| {
                            a.iter()
                                .filter(|x| !b.contains(x))
                                .cloned()
                                .collect::<Vec<_>>()
                        };
                        differences.push(format!(
                            "{url} ({accept}): GET {} {:?}, HEAD {} {:?}",
                            get.status,
                            only(&g, &h),
                            head.status,
                            only(&h, &g),
                        ));
                    }
                    assert!(head.body.is_empty(), "{url}: HEAD answered a body");
                }
            }
        }
    }
    assert!(asked > 1000, "only {asked} requests made");
    // Valid and invalid parameters both reached the handlers.
    for status in [200, 400, 404] {
        assert!(statuses.contains(&status), "no {status} among {statuses:?}");
    }
    assert!(
        differences.is_empty(),
        "{} of {asked} differ:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

/// The refusals found only against the view (a GBIF search's names, a label
/// sheet's size) are a `HEAD`'s too.
#[test]
fn head_is_refused_as_get_is_where_the_view_decides() {
    let s = Server::sample();
    for path in [
        "/gbif/v1/occurrence/search?year=abc",
        "/gbif/v1/occurrence/count?country=Nowhere-land&year=x",
        "/gbif/v1/occurrence/search?limit=-1",
        "/gbif/v1/occurrence/999999",
        "/api/v2/specimen-records/labels/?kind=bogus",
    ] {
        let get = s.get(path);
        let head = s.send("HEAD", path, &[]);
        assert_eq!((path, head.status), (path, get.status));
        assert!(get.status >= 400, "{path}: {}", get.status);
    }
}

/// One view asked for everything the features derive from it on first use
/// (GBIF's columns and term names, the archive's coverage, short links, the
/// checklist's taxa, suggestions, quality flags, Wagtail's tree, the
/// citations): each answers, none is refused for want of room to keep it.
#[test]
fn one_view_derives_every_features_values() {
    let s = Server::sample();
    for (path, status) in [
        ("/gbif/v1/occurrence/search?limit=1", 200),
        ("/gbif/v1/occurrence/search/stateProvince?q=&limit=20", 200),
        ("/eml.xml", 200),
        ("/s/000001", 301),
        ("/api/v2/specimen-records/checklist/", 200),
        ("/api/v2/suggest/?q=mon", 200),
        ("/api/v2/quality/", 200),
        ("/api/v2/pages/", 200),
        ("/api/v2/citation/", 200),
    ] {
        assert_eq!(s.get(path).status, status, "{path}");
    }
}
