//! The GBIF occurrence operations of the OpenAPI document, from the search's own
//! parameter table (`query::gbif::search`) and the archive's terms, so the
//! document names exactly what the server takes.

use serde_json::{json, Map, Value};

use super::openapi_parts::Paths;

use crate::quality::Flag;
use crate::query::gbif::search::{
    self, BOOLEAN, DATE_RANGE, DEFAULT_LIMIT, MAX_LIMIT, NUMBER_RANGE,
};
use crate::view::occurrence::COLUMNS;

/// The terms written as numbers; every other term is text.
const NUMBERS: &[&str] = &[
    "decimalLatitude",
    "decimalLongitude",
    "minimumElevationInMeters",
    "maximumElevationInMeters",
    "elevation",
];
const INTEGERS: &[&str] = &["year", "month", "day"];

/// The areas `geometry` takes: `POLYGON` or `MULTIPOLYGON` (in any case) of
/// rings of at least four points (a ring left open is closed), each longitude
/// within ±180 and latitude within ±90, numbers as the server reads them.
pub fn wkt_pattern() -> String {
    let space = "[ \\t\\n\\f\\r]*";
    let fraction = "(\\.[0-9]+)?";
    let lon = format!("[+-]?(180(\\.0+)?|(1[0-7][0-9]|[0-9]?[0-9]){fraction})");
    let lat = format!("[+-]?(90(\\.0+)?|[0-8]?[0-9]{fraction})");
    let point = format!("{space}{lon}[ \\t\\n\\f\\r]+{lat}{space}");
    // The bounds on repetition keep examples short; the server takes more.
    let ring = format!("{space}\\({point}(,{point}){{3,20}}\\){space}");
    let polygon = format!("{space}\\({ring}(,{ring}){{0,3}}\\){space}");
    format!(
        "^{space}([Pp][Oo][Ll][Yy][Gg][Oo][Nn]{polygon}|[Mm][Uu][Ll][Tt][Ii][Pp][Oo][Ll][Yy][Gg][Oo][Nn]{space}\\({polygon}(,{polygon}){{0,3}}\\)){space}$"
    )
}

/// A filter parameter. It may be repeated, each value an alternative (OR); the
/// document describes one value, as the specimen list's parameters are.
fn repeated(name: &str, description: &str, pattern: &str) -> Value {
    json!({
        "name": name, "in": "query", "required": false,
        "description": format!("{description} Repeated: any of the values."),
        "schema": {"type": "string", "pattern": pattern},
    })
}

fn describe(name: &str) -> (&'static str, &'static str) {
    const TEXT: &str = "^[^\\u0000]*$";
    match name {
        "q" => ("Full text: every whitespace-separated word in some text of the record (the specimen list's `search`).", TEXT),
        "scientificName" => ("A taxon's name at any rank (a binomial or trinomial below the genus), with or without its authority, ignoring case: its specimens and those of every taxon below it.", TEXT),
        "country" | "countryCode" => ("The ISO 3166-1 alpha-2 code of the country, ignoring case; also an alpha-3 code or a name ISO knows, or the collection's own abbreviation or name for a country.", TEXT),
        "year" | "month" | "day" | "decimalLatitude" | "decimalLongitude" | "elevation" => (
            "A number, or a range `from,to` with `*` for an open end (`1990,2000`, `12,*`; `*` alone: any value); a range from the larger to the smaller holds nothing.",
            NUMBER_RANGE,
        ),
        "eventDate" | "modified" => (
            "A year, month or day (`2019`, `2019-06`, `2019-06-04`), or a range `from,to` of them with `*` for an open end: the records whose date lies wholly within.",
            DATE_RANGE,
        ),
        "hasCoordinate" => ("Whether the record has a point.", BOOLEAN),
        "isGeoreferenced" => ("`hasCoordinate`, by the name GBIF's count gives it.", BOOLEAN),
        "geometry" => ("A WKT `POLYGON` or `MULTIPOLYGON`, longitude before latitude, rings closed; the records whose point is inside. A clockwise outer ring is read as the area it draws (and noted in `notes`), never as everything outside it. Not wrapped across the antimeridian. At most 10,000 vertices.", TEXT),
        "basisOfRecord" => ("`PRESERVED_SPECIMEN` (GBIF's spelling) or `PreservedSpecimen`: every record here is one.", TEXT),
        "checklistKey" => ("The checklist GBIF reads names against (pygbif sends one): names here are the collection's own classification, whichever is named.", TEXT),
        _ => ("The Darwin Core term's value, exactly but ignoring case.", TEXT),
    }
}

/// The search's parameters: the filters (repeatable), paging, sort, facets.
fn parameters() -> Vec<Value> {
    let mut out = Vec::new();
    for name in search::parameters() {
        let p = match name {
            "limit" => json!({"name": "limit", "in": "query", "required": false,
                "description": format!("The page size, {DEFAULT_LIMIT} by default; a larger one than {MAX_LIMIT} is taken as {MAX_LIMIT}. 0: counts and facets only."),
                "schema": {"type": "integer", "minimum": 0, "maximum": i64::MAX}}),
            "offset" => json!({"name": "offset", "in": "query", "required": false,
                "description": "How many records to skip: any number, with no cap on paging.",
                "schema": {"type": "integer", "minimum": 0, "maximum": i64::MAX}}),
            "facetLimit" | "facetOffset" | "facetMincount" => {
                json!({"name": name, "in": "query", "required": false,
                "description": match name {
                    "facetLimit" => "How many counts each facet lists (10 by default; at most 10,000). `<FIELD>.facetLimit` sets one facet's.",
                    "facetOffset" => "How many of each facet's counts to skip. `<FIELD>.facetOffset` sets one facet's.",
                    _ => "The least count a facet lists (1 by default).",
                },
                "schema": {"type": "integer", "minimum": 0, "maximum": match name {
                    "facetLimit" => search::MAX_FACET_LIMIT as i64,
                    _ => i64::MAX,
                }}})
            }
            "facetMultiselect" => json!({"name": name, "in": "query", "required": false,
                "description": "Each facet counts as if its own filter were not set.",
                "schema": {"type": "string", "pattern": BOOLEAN}}),
            "sort" => json!({"name": "sort", "in": "query", "required": false,
                "description": format!("Terms to order by, comma-separated, `-` before one for descending (records without a value last): {}. By default, by key.",
                    search::sortable().collect::<Vec<_>>().join(", ")),
                "schema": {"type": "string", "pattern": format!("^(-?({0})(,-?({0}))*)?$", search::sortable().collect::<Vec<_>>().join("|"))}}),
            "facet" => json!({"name": "facet", "in": "query", "required": false,
                "description": format!("A term to count values of, as GBIF names it in any case (`country` counts country codes); repeated for more, at most {}.", search::MAX_FACETS),
                "schema": {"type": "string", "enum": search::facetable().collect::<Vec<_>>()}}),
            "geometry" => repeated(name, describe(name).0, &wkt_pattern()),
            "issue" => json!({"name": name, "in": "query", "required": false,
                "description": "A quality flag (as `issues` lists them), in any case: the records that have it. Repeated (or comma-separated): any of them.",
                "schema": {"type": "string", "enum": Flag::names().collect::<Vec<_>>()}}),
            _ => {
                let (description, pattern) = describe(name);
                repeated(name, description, pattern)
            }
        };
        out.push(p);
    }
    out
}

/// The component schemas of the GBIF operations.
pub fn schemas(out: &mut Map<String, Value>) {
    let mut properties = Map::new();
    properties.insert("key".into(), json!({"type": "integer"}));
    for (term, _) in COLUMNS.iter().chain(&[("elevation", "")]) {
        let ty = match *term {
            t if INTEGERS.contains(&t) => "integer",
            t if NUMBERS.contains(&t) => "number",
            _ => "string",
        };
        properties.insert(term.to_string(), json!({"type": ty}));
    }
    properties.insert(
        "issues".into(),
        json!({"type": "array", "description": "The record's quality flags (`/quality/` says what each means).",
            "items": {"type": "string", "enum": Flag::names().collect::<Vec<_>>()}}),
    );
    out.insert(
        "GbifOccurrence".into(),
        json!({
            "type": "object",
            "description": "A specimen record keyed by Darwin Core terms, as the archive's occurrence.txt writes it; a term without a value is left out.",
            "properties": properties,
            "required": ["key", "occurrenceID", "catalogNumber", "basisOfRecord", "issues"],
            "additionalProperties": false,
        }),
    );
    out.insert(
        "GbifSearch".into(),
        json!({
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 0},
                "endOfRecords": {"type": "boolean"},
                "count": {"type": "integer", "minimum": 0},
                "results": {"type": "array", "items": {"$ref": "#/components/schemas/GbifOccurrence"}},
                "facets": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "field": {"type": "string"},
                        "counts": {"type": "array", "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
                            "required": ["name", "count"],
                            "additionalProperties": false,
                        }},
                    },
                    "required": ["field", "counts"],
                    "additionalProperties": false,
                }},
                "notes": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["offset", "limit", "endOfRecords", "count", "results", "facets"],
            "additionalProperties": false,
        }),
    );
}

fn ok(description: &str, schema: Value) -> Value {
    json!({
        "200": {"description": description, "content": {"application/json": {"schema": schema}}},
        "304": {"$ref": "#/components/responses/NotModified"},
        "400": {"$ref": "#/components/responses/BadRequest"},
        "405": {"$ref": "#/components/responses/MethodNotAllowed"},
        "414": {"description": "The request's target is longer than the server reads."},
        "431": {"description": "The request's head is larger than the server reads."},
        "503": {"description": "Every thread for answers that cost work is busy: retry after `Retry-After` seconds.",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
    })
}

/// GBIF's occurrence search.
pub fn search(out: &mut Paths, _: Option<usize>) {
    let mut search_responses = ok(
        "The page of records, their count, and the facets asked for",
        json!({"$ref": "#/components/schemas/GbifSearch"}),
    );
    search_responses["200"]["links"] = json!({"occurrence": {
        "operationId": "gbif-occurrence",
        "parameters": {"key": "$response.body#/results/0/key"},
        "description": "The first record of the page, on its own.",
    }});
    let description = "GBIF's parameters for the Darwin Core terms this collection holds. A repeated parameter means any of its values; terms are matched exactly, ignoring case. A parameter GBIF defines that this collection cannot answer (`taxonKey`, `datasetKey`, ...) is refused by name.";
    out.insert(
        "/gbif/v1/occurrence/search".into(),
        json!({
            "get": {
                "operationId": "gbif-occurrence-search",
                "summary": "GBIF's occurrence search over this collection",
                "description": description,
                "tags": ["gbif"],
                "parameters": parameters(),
                "responses": search_responses.clone(),
            },
            "post": posted("gbif-occurrence-search-form", "GBIF's occurrence search, its parameters as a form", search_responses),
        }),
    );
}

/// The same search POSTed as a form, for parameters longer than a request's
/// head takes (a `geometry` of up to 10,000 vertices): the query's
/// parameters, if any, come first.
fn posted(id: &str, summary: &str, mut responses: Value) -> Value {
    let mut properties = serde_json::Map::new();
    for p in parameters() {
        let mut schema = p["schema"].clone();
        schema["description"] = p["description"].clone();
        properties.insert(p["name"].as_str().unwrap_or_default().to_string(), schema);
    }
    responses["413"] = json!({"description": format!("The form is longer than {} bytes.", crate::query::params::MAX_FORM_BYTES),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    responses["415"] = json!({"description": "The body is not `application/x-www-form-urlencoded`.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    responses["408"] = json!({"description": "The form did not arrive whole within 30 seconds.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    if responses.get("503").is_none() {
        responses["503"] = json!({"description": "The forms arriving on every connection hold as many bytes as the server keeps for them: ask again after `Retry-After`.",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    }
    json!({
        "operationId": id,
        "summary": summary,
        "description": format!("The GET's parameters as an `application/x-www-form-urlencoded` body of at most {} bytes, for those too long for a request's head of 8 KiB: a `geometry` of up to 10,000 vertices. Answered as the GET with the same parameters is.", crate::query::params::MAX_FORM_BYTES),
        "tags": ["gbif"],
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {
            "schema": {"type": "object", "properties": properties, "additionalProperties": false},
        }}},
        "responses": responses,
    })
}

/// GBIF's occurrence count.
pub fn count(out: &mut Paths, _: Option<usize>) {
    let responses = ok("The count", json!({"type": "integer", "minimum": 0}));
    out.insert(
        "/gbif/v1/occurrence/count".into(),
        json!({
            "get": {
                "operationId": "gbif-occurrence-count",
                "summary": "How many records a GBIF occurrence search finds",
                "tags": ["gbif"],
                "parameters": parameters(),
                "responses": responses.clone(),
            },
            "post": posted("gbif-occurrence-count-form", "How many records a GBIF occurrence search finds, its parameters as a form", responses),
        }),
    );
}

/// One occurrence, as GBIF shows it.
pub fn occurrence(out: &mut Paths, _: Option<usize>) {
    let mut one = ok(
        "The record",
        json!({"$ref": "#/components/schemas/GbifOccurrence"}),
    );
    one["404"] = json!({"$ref": "#/components/responses/NotFound"});
    out.insert(
        "/gbif/v1/occurrence/{key}".into(),
        json!({"get": {
            "operationId": "gbif-occurrence",
            "summary": "One record as GBIF's occurrence shows it",
            "tags": ["gbif"],
            "parameters": [{"name": "key", "in": "path", "required": true,
                "description": "The specimen record's id. One that names no record is a 404.",
                "schema": {"type": "string", "pattern": "^[^\\u0000/]+$"}}],
            "responses": one,
        }}),
    );
}
