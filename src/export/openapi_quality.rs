//! The data-quality counts' operation of the OpenAPI document:
//! `/api/v2/quality/`.

use serde_json::json;

use super::openapi_parts::{error_response, query, Paths};

use crate::model::endpoint::QUALITY_PATH;
use crate::quality::Flag;

/// `/api/v2/quality/`.
pub fn quality(paths: &mut Paths, _: Option<usize>) {
    let names: Vec<&str> = Flag::names().collect();
    let flag = json!({
        "type": "object",
        "required": ["name", "count", "meaning", "fix", "records", "csv"],
        "additionalProperties": false,
        "properties": {
            "name": {"type": "string", "enum": names},
            "count": {"type": "integer", "minimum": 0},
            "meaning": {"type": "string"},
            "fix": {"type": "string", "description": "How a curator fixes it."},
            "records": {"type": "string", "description": "The path of the list of its specimens (`issue=`)."},
            "csv": {"type": "string", "description": "The path of its specimens' Darwin Core CSV, with their `issue` column."},
        },
    });
    paths.insert(
        QUALITY_PATH.into(),
        json!({"get": {
            "operationId": "quality",
            "summary": "The data-quality flags and how many specimens have each",
            "description": "Every specimen record is checked once per snapshot, as GBIF checks \
                records on publication: its point (zero, out of range, not a number; outside its \
                country, or presumed swapped or negated; outside its state or county in the United \
                States), its place names, its dates and its elevation, and whether it is identified. \
                Every flag is listed, in one order, with its count. A browser (or `format=html`) \
                gets the curator's page, also at `/quality/`.",
            "parameters": [query(
                "format",
                "`json` (a client that prefers HTML, or `format=html`, gets a page).",
                json!({"type": "string", "enum": ["json"]}),
            )],
            "responses": {
                "200": {"description": "The flags counted", "content": {"application/json": {"schema": {
                    "type": "object",
                    "required": ["specimens", "unflagged", "flags"],
                    "additionalProperties": false,
                    "properties": {
                        "specimens": {"type": "integer", "minimum": 0},
                        "unflagged": {"type": "integer", "minimum": 0, "description": "Specimens with no flag."},
                        "flags": {"type": "array", "items": flag},
                    },
                }}}},
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": error_response("A parameter the operation does not take."),
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            },
        }}),
    );
}
