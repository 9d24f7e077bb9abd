//! The suggestion operations of the OpenAPI document (`/api/v2/suggest/` and
//! GBIF's two), from the suggestions' own kinds, terms and limits.

use serde_json::{json, Value};

use super::openapi_parts::{busy_response, error_response, query, Paths};

use crate::model::Endpoint;
use crate::suggest::gbif::{self, TERMS};
use crate::suggest::{Kind, DEFAULT_LIMIT, MAX_LIMIT, PATH};

const TEXT: &str = "^[^\\u0000]*$";

fn q() -> Value {
    json!({"name": "q", "in": "query", "required": true,
        "description": "The text typed so far. Case and accents are ignored; punctuation separates words.",
        "schema": {"type": "string", "pattern": TEXT}})
}

fn limit(default: usize, max: usize) -> Value {
    query(
        "limit",
        "How many suggestions, at most.",
        json!({"type": "integer", "minimum": 1, "maximum": max, "default": default}),
    )
}

/// The answers: `schema` for 200, an error for 400 (and 404 where a path
/// segment may name nothing).
fn responses(description: &str, schema: Value, not_found: bool) -> Value {
    let mut r = json!({
        "200": {"description": description, "content": {"application/json": {"schema": schema}}},
        "304": {"$ref": "#/components/responses/NotModified"},
        "400": error_response("A parameter the suggestions do not take, or a value they cannot read."),
        "405": {"$ref": "#/components/responses/MethodNotAllowed"},
        "414": {"description": "The request's target is longer than the server reads."},
        "431": {"description": "The request's head is larger than the server reads."},
        "503": busy_response(),
    });
    if not_found {
        r["404"] = error_response("A term whose values are not suggested.");
    }
    r
}

/// `/api/v2/suggest/`.
pub fn suggest(paths: &mut Paths, _: Option<usize>) {
    let kinds: Vec<&str> = Kind::ALL.iter().map(|(n, _)| *n).collect();
    let lists: Vec<String> = Endpoint::all()
        .iter()
        .filter(|e| !e.nested && Kind::of(e.model).is_some())
        .map(|e| e.segment())
        .collect();
    let item = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": lists, "description": "The record's list."},
            "id": {"type": "integer"},
            "label": {"type": "string", "description": "The record's display name."},
            "matched": {"type": "string", "description": "The name that matched what was typed (a common name, a name written with accents)."},
            "count": {"type": "integer", "minimum": 0, "description": "The record's specimens."},
            "url": {"type": "string", "description": "The record's path."},
        },
        "required": ["kind", "id", "label", "matched", "count", "url"],
        "additionalProperties": false,
    });
    paths.insert(
        PATH.into(),
        json!({"get": {
            "operationId": "suggest",
            "summary": "Names that complete what is typed",
            "description": "Taxa (every rank, by scientific and common name, a genus abbreviated as \
                `D. plexippus`), places (every level), people and specimens (by USI), found by the \
                start of any word of a name, by whole words in any order, or within typos (one \
                from 4 characters, two from 8 with at most one in a name's first two; not \
                for USIs). Ranked: the exact name, then a \
                name begun, then names with typos (fewer first); within each, more specimens \
                first.",
            "tags": ["suggest"],
            "parameters": [
                q(),
                {"name": "kind", "in": "query", "required": false, "style": "form", "explode": true,
                 "description": "Only these kinds of record; repeated (or comma-separated): any of them.",
                 "schema": {"type": "array", "items": {"type": "string", "enum": kinds}}},
                limit(DEFAULT_LIMIT, MAX_LIMIT),
                query("format", "Only `json`.", json!({"type": "string", "enum": ["json"]})),
                query("_", "Ignored (a cache-buster some clients send).", json!({"type": "string"})),
            ],
            "responses": responses("The suggestions, best first", json!({
                "type": "object",
                "properties": {"items": {"type": "array", "items": item}},
                "required": ["items"],
                "additionalProperties": false,
            }), false),
        }}),
    );
}

/// GBIF's `species/suggest`.
pub fn species(paths: &mut Paths, _: Option<usize>) {
    // Any of GBIF's ranks in any case, or empty (any rank, as if `rank` were
    // not given): a pattern, since an enum of both cases repeats names that
    // generated clients take as one.
    let ranks: Vec<String> = gbif::GBIF_RANKS
        .iter()
        .map(|r| {
            r.chars()
                .map(|c| match c.is_ascii_alphabetic() {
                    true => format!("[{}{}]", c, c.to_ascii_lowercase()),
                    false => c.to_string(),
                })
                .collect()
        })
        .collect();
    let ranks = format!("^(|{})$", ranks.join("|"));
    let usage = json!({
        "type": "object",
        "properties": {
            "key": {"type": "integer", "description": "The taxon's id in its rank's list."},
            "scientificName": {"type": "string"},
            "canonicalName": {"type": "string"},
            "rank": {"type": "string"},
            "status": {"type": "string"},
            "synonym": {"type": "boolean"},
        },
        "required": ["key", "scientificName", "canonicalName", "rank", "status", "synonym"],
        "additionalProperties": {"type": "string"},
    });
    paths.insert(
        "/gbif/v1/species/suggest".into(),
        json!({"get": {
            "operationId": "gbif-species-suggest",
            "summary": "The collection's taxa that complete what is typed, as GBIF's name suggestions",
            "description": "Ranked as `/api/v2/suggest/` ranks them. Besides its own keys, each \
                usage names the ranks above it (`order`, `family`, ... ).",
            "tags": ["gbif"],
            "parameters": [
                q(),
                query("rank", "Only taxa of this GBIF rank (case ignored; empty: any); a rank the collection has none of finds none.",
                    json!({"type": "string", "pattern": ranks})),
                limit(gbif::DEFAULT_LIMIT, gbif::MAX_LIMIT),
                query("offset", "Skip this many.", json!({"type": "integer", "minimum": 0, "maximum": i64::MAX})),
                query("datasetKey", "Ignored: the collection is the one dataset.", json!({"type": "string"})),
            ],
            "responses": responses("The name usages, best first", json!({"type": "array", "items": usage}), false),
        }}),
    );
}

/// GBIF's `occurrence/search/{term}`.
pub fn term(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        "/gbif/v1/occurrence/search/{term}".into(),
        json!({"get": {
            "operationId": "gbif-occurrence-term-suggest",
            "summary": "A term's values that complete what is typed, as GBIF suggests them",
            "description": "Distinct values of the term as the occurrences spell them, ranked as \
                `/api/v2/suggest/` ranks names (`catalogNumber`: the USIs, whole or begun).",
            "tags": ["gbif"],
            "parameters": [
                {"name": "term", "in": "path", "required": true, "schema": {"type": "string", "enum": TERMS}},
                q(),
                limit(gbif::DEFAULT_LIMIT, gbif::MAX_LIMIT),
            ],
            "responses": responses("The values, best first",
                json!({"type": "array", "items": {"type": "string"}}), true),
        }}),
    );
}
