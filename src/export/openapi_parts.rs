//! The pieces every operation of the OpenAPI document is made of: query
//! parameters, the answers of a list or a record, errors, and the patterns
//! the server's own parsing is described by. `openapi` and the feature files
//! beside it (`openapi_gbif`, `openapi_wagtail`) build on them.

use serde_json::{json, Map, Value};

use crate::query::filter::MAX_TERMS as MAX_SEARCH_TERMS;

/// A document's operations by path, in the order they are added.
pub type Paths = Map<String, Value>;

/// What a route says of itself in the document: its operations, added to the
/// paths, for a server that caps `limit` at the given value (if it does). Each
/// route of the table names its own (`serve::routes::ROUTES`).
pub type Describe = fn(&mut Paths, Option<usize>);

/// At most `MAX_SEARCH_TERMS` terms, separated by what the server splits on: the
/// Unicode White_Space characters (Rust's `char::is_whitespace`), spelled out,
/// because `\s` means other sets in other regex engines.
pub const SPACE: &str =
    "\\t\\n\\x0B\\f\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000";

/// `NestedCollectingTrip` as `nested-collecting-trip` (and `NestedGPS` as
/// `nested-gps`): an operation id that generators turn into a readable name.
pub fn kebab(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            out.push('-');
        }
        previous_lower = c.is_ascii_lowercase();
        out.push(c.to_ascii_lowercase());
    }
    out
}

pub fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "headers": {"Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    })
}

/// The answer when the threads for answers that cost work are all busy.
pub fn busy_response() -> Value {
    let mut busy = error_response(
        "Every thread for answers that cost work is busy and the queue is full: retry after `Retry-After` seconds.",
    );
    busy["headers"]["Retry-After"] = json!({"schema": {"type": "integer", "minimum": 1}});
    busy
}

/// The id of the operation that answers one record of the schema `name`.
pub fn record_operation(name: &str) -> String {
    format!("get-{}", kebab(name))
}

/// The headers of a successful answer about the collection: its validators,
/// caching, `Vary` and CORS.
pub fn success_headers() -> Value {
    let header = |h: &str| json!({"$ref": format!("#/components/headers/{h}")});
    json!({
        "ETag": header("ETag"),
        "Cache-Control": header("Cache-Control"),
        "Last-Modified": header("Last-Modified"),
        "Vary": header("Vary"),
        "Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
    })
}

/// The answers of a list (`list`) or record operation on items of the schema `name`.
pub fn responses(name: &str, list: bool) -> Value {
    let schema = if list {
        format!("{name}List")
    } else {
        name.to_string()
    };
    let mut r = json!({
        "200": {
            "description": if list { "A page of the list: the total after filters, and the items" } else { "The record" },
            "headers": success_headers(),
            "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}},
        },
        "304": {"$ref": "#/components/responses/NotModified"},
        "400": {"$ref": "#/components/responses/BadRequest"},
        "405": {"$ref": "#/components/responses/MethodNotAllowed"},
    });
    if list {
        r["200"]["links"] = json!({"record": {
            "operationId": record_operation(name),
            "parameters": {"id": "$response.body#/items/0/id"},
            "description": "The first item of the page, on its own.",
        }});
    } else {
        r["404"] = json!({"$ref": "#/components/responses/NotFound"});
    }
    r
}

pub fn query(name: &str, description: &str, mut schema: Value) -> Value {
    without_nul(&mut schema);
    json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
}

/// A query string holding a NUL is refused: every free string says so.
fn without_nul(schema: &mut Value) {
    if let Some(alternatives) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        alternatives.iter_mut().for_each(without_nul);
    }
    let free = schema["type"] == "string"
        && schema.get("enum").is_none()
        && schema.get("pattern").is_none();
    if free {
        schema["pattern"] = json!("^[^\\u0000]*$");
    }
}

pub fn int64() -> Value {
    json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})
}

pub fn search_pattern() -> String {
    let (w, n) = (format!("[{SPACE}]"), format!("[^{SPACE}\\u0000]"));
    format!("^{w}*({n}+({w}+{n}+){{0,{}}})?{w}*$", MAX_SEARCH_TERMS - 1)
}

/// Adds to a path's item the `post` of a route that takes forms: its `get`'s
/// query parameters as an `application/x-www-form-urlencoded` body (for those
/// too long for a request's head, as a list of thousands of USIs), answered as
/// the GET with the same parameters is; the query's, if any, come first.
/// A query parameter's schema as a form's key has it: one value each time
/// the key is given, so a parameter taken repeated (an array, or an array
/// among `anyOf`'s choices) is its items' schema there.
fn one_value(schema: &Value) -> Value {
    if schema["type"] == "array" {
        return schema["items"].clone();
    }
    match schema["anyOf"].as_array() {
        Some(choices) => {
            let mut one = schema.clone();
            one["anyOf"] = choices.iter().map(one_value).collect();
            one
        }
        None => schema.clone(),
    }
}

pub fn with_form(item: &mut Value) {
    let Some(get) = item.get("get").cloned() else {
        return;
    };
    let mut properties = Map::new();
    let mut in_path = Vec::new();
    for p in get["parameters"].as_array().into_iter().flatten() {
        match p["in"].as_str() {
            Some("query") => {
                let mut schema = one_value(&p["schema"]);
                schema["description"] = p["description"].clone();
                properties.insert(p["name"].as_str().unwrap_or_default().into(), schema);
            }
            _ => in_path.push(p.clone()),
        }
    }
    let mut responses = get["responses"].clone();
    let error = |description: &str| error_response(description);
    responses["408"] = error("The form did not arrive whole within 30 seconds.");
    responses["413"] = error(&format!(
        "The form is longer than {} bytes.",
        crate::query::params::MAX_FORM_BYTES
    ));
    responses["415"] = error("The body is not `application/x-www-form-urlencoded`.");
    if responses.get("503").is_none() {
        responses["503"] = error(
            "The forms arriving on every connection hold as many bytes as the server keeps \
             for them: ask again after `Retry-After`.",
        );
    }
    if let Some(r) = responses.as_object_mut() {
        r.remove("304");
    }
    let id = get["operationId"].as_str().unwrap_or_default();
    let summary = get["summary"].as_str().unwrap_or_default();
    let mut post = json!({
        "operationId": format!("{id}-form"),
        "summary": format!("{summary}, its parameters as a form"),
        "description": format!(
            "The GET's parameters as an `application/x-www-form-urlencoded` body of at most {} \
             bytes, for those too long for a request's head of 8 KiB (a list of thousands of \
             `usi`s). Answered as the GET with the same parameters is.",
            crate::query::params::MAX_FORM_BYTES
        ),
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {
            "schema": {"type": "object", "properties": properties, "additionalProperties": false},
        }}},
        "responses": responses,
    });
    if let Some(tags) = get.get("tags") {
        post["tags"] = tags.clone();
    }
    if !in_path.is_empty() {
        post["parameters"] = Value::Array(in_path);
    }
    item["post"] = post;
}

#[cfg(test)]
mod tests {
    use super::{kebab, search_pattern};

    #[test]
    fn operation_ids_split_words_but_not_acronyms() {
        assert_eq!(kebab("NestedCollectingTrip"), "nested-collecting-trip");
        assert_eq!(kebab("NestedGPS"), "nested-gps");
        assert_eq!(kebab("Country"), "country");
    }

    #[test]
    fn the_search_pattern_names_exactly_the_whitespace_the_server_splits_on() {
        let pattern = search_pattern();
        let class = &pattern[2..pattern.find(']').unwrap()];
        // Every whitespace character is in the class, written as an escape or itself.
        let spaces = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace());
        for c in spaces {
            let escaped = match c {
                '\t' => "\\t".to_string(),
                '\n' => "\\n".to_string(),
                '\u{0B}' => "\\x0B".to_string(),
                '\u{0C}' => "\\f".to_string(),
                '\r' => "\\r".to_string(),
                ' ' => " ".to_string(),
                '\u{85}' => "\\x85".to_string(),
                '\u{A0}' => "\\xA0".to_string(),
                '\u{2001}'..='\u{200A}' => continue, // inside \u2000-\u200A
                c => format!("\\u{:04X}", c as u32),
            };
            assert!(class.contains(&escaped), "{c:?} missing from {class}");
        }
        // ... and nothing else.
        assert_eq!(class.matches('\\').count(), 15);
        assert_eq!(class.len(), 70);
    }
}
