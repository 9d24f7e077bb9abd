//! The OpenAPI 3.1 description of the API, generated from the field tables and the
//! filter definitions that drive rendering and querying, so it cannot drift.
//!
//! Item schemas list every key an item has, in order, with `additionalProperties:
//! false`; they have no `required` list because `fields` may leave any key out.

use serde_json::{json, Map, Value};

use crate::checklists::{rank_name, CLASSIFICATION};
use crate::labels::request::{Kind, MEASURES, PARAMETERS};
use crate::model::endpoint::{
    ARCHIVE_PATH, CHECKLIST_PATH, EML_PATH, IMAGES_PATH, LABELS_PATH, OPENAPI_PATH, SHORT_PATH,
};
use crate::model::image_api::ImageField;
use crate::model::policy::DarwinCore;
use crate::model::vocabulary::{MONTHS, PREPARATIONS, SEXES, STAGES};
use crate::model::{Endpoint, Field, Filters, Model, Type};
use crate::quality::Flag;
use crate::query::filter::{self, MAX_TERMS as MAX_SEARCH_TERMS};
use crate::query::sort::sortable_names;
use crate::query::{
    facets, geojson, Columns, Format, DEFAULT_LIMIT, FEED_ENTRIES, MOST_FEED_ENTRIES,
};

use super::openapi_parts::with_form;
use super::openapi_parts::{
    busy_response, error_response, int64, query, record_operation, responses, search_pattern,
    success_headers, SPACE,
};
pub use super::openapi_parts::{Describe, Paths};

/// Whether a route takes its parameters in the query alone, or also as a
/// POSTed form (its document then has a `post` beside each `get`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forms {
    Query,
    QueryOrForm,
}
use super::{openapi_gbif, openapi_wagtail};

/// The spellings a boolean filter accepts.
const BOOLEANS: [&str; 6] = ["true", "false", "True", "False", "1", "0"];

/// The spellings a specimen boolean filter accepts (Django's NullBooleanSelect's,
/// `unknown` for no filter).
const FORM_BOOLEANS: [&str; 9] = [
    "true", "false", "True", "False", "2", "3", "1", "0", "unknown",
];

/// A string that is one of `spellings`, as a pattern rather than an enum: client
/// generators turn enum values into identifiers, and `true` and `True` would be
/// the same one.
fn spelled(spellings: &[&str]) -> Value {
    json!({
        "type": "string",
        "pattern": format!("^({})$", spellings.join("|")),
        "description": format!("One of: {}.", spellings.join(", ")),
    })
}

/// A list's or a typed image list's summary words: `plain` or `nested`.
fn shape(endpoint: Endpoint) -> &'static str {
    if endpoint.nested {
        "nested"
    } else {
        "plain"
    }
}

/// The service's typed image lists, gone from it since 0.16: kept for its older
/// clients, answered from the one image model.
fn deprecate(operation: &mut Value, endpoint: Endpoint) {
    if let Some(kind) = endpoint.model.image_type() {
        let op = &mut operation["get"];
        op["deprecated"] = json!(true);
        op["description"] = json!(format!(
            "Deprecated: the service lists every image at `{IMAGES_PATH}` since its 0.16. \
             This list shows the images whose `image_type` is `{kind}`, in the shape the \
             service's typed list had before."
        ));
    }
}

/// Every list, `/api/v2/{list}/`.
pub fn lists(paths: &mut Paths, max_limit: Option<usize>) {
    for &endpoint in Endpoint::all() {
        let segment = endpoint.segment();
        let mut operation = json!({"get": {
            "operationId": format!("list-{segment}"),
            "summary": format!("The {} list ({} shape)", endpoint.model.class_name(), shape(endpoint)),
            "tags": [endpoint.model.path()],
            "parameters": list_parameters(endpoint, max_limit),
            "responses": list_responses(endpoint),
        }});
        deprecate(&mut operation, endpoint);
        paths.insert(format!("/api/v2/{segment}/"), operation);
    }
}

/// Every list's records, `/api/v2/{list}/{id}/`.
pub fn records(paths: &mut Paths, _: Option<usize>) {
    for &endpoint in Endpoint::all() {
        let segment = endpoint.segment();
        let name = schema_name(endpoint.model, endpoint.nested);
        let mut operation = json!({"get": {
            "operationId": record_operation(&name),
            "summary": format!("One {} as the {} list shows it", endpoint.model.class_name(), shape(endpoint)),
            "tags": [endpoint.model.path()],
            "parameters": [
                {
                    "name": "id", "in": "path", "required": true,
                    "description": "The record's id. An id that is not an integer, or names no record, is a 404.",
                    "schema": {"type": "string"},
                },
                fields_parameter(endpoint),
                format_parameter(),
            ],
            "responses": responses(&name, false),
        }});
        deprecate(&mut operation, endpoint);
        paths.insert(format!("/api/v2/{segment}/{{id}}/"), operation);
    }
}

/// The label sheets.
pub fn labels(paths: &mut Paths, _: Option<usize>) {
    paths.insert(LABELS_PATH.into(), labels_operation());
}

/// A specimen's short link.
pub fn short_link(paths: &mut Paths, _: Option<usize>) {
    paths.insert(SHORT_PATH.into(), short_link_operation());
}

/// The checklist of a question.
pub fn checklist(paths: &mut Paths, _: Option<usize>) {
    paths.insert(CHECKLIST_PATH.into(), checklist_operation());
}

/// Wagtail's image list.
pub fn images(paths: &mut Paths, max_limit: Option<usize>) {
    paths.insert(IMAGES_PATH.into(), image_list_operation(max_limit));
}

/// One image, as Wagtail's image endpoint shows it.
pub fn image(paths: &mut Paths, _: Option<usize>) {
    paths.insert(format!("{IMAGES_PATH}{{id}}/"), image_operation());
}

/// This document.
pub fn openapi(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        OPENAPI_PATH.into(),
        json!({"get": {
            "operationId": "openapi",
            "summary": "This document",
            "responses": {
                "200": {"description": "The OpenAPI document",
                        "content": {"application/json": {"schema": {"type": "object"}}}},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            },
        }}),
    );
}

/// The Darwin Core Archive, of the collection or of a question.
pub fn archive(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        ARCHIVE_PATH.into(),
        json!({"get": {
            "operationId": "dwca",
            "summary": "The collection's specimen records, or a question's, as a Darwin Core Archive",
            "description": "A zip of `occurrence.txt` (one tab-separated row per specimen record), \
                `multimedia.txt` (GBIF's Simple Multimedia extension: one row per specimen \
                photograph, its URL absolute), `meta.xml` (their columns as terms) and `eml.xml` \
                (the dataset's description in GBIF's EML profile, with the coverage of the \
                records it holds), made once per snapshot on first request, or read from the \
                version's kept files (`/versions/{version}/dwca.zip`, the same bytes) where \
                `build` or `sync` made them with the request's links. With the specimen \
                list's filters or search, the archive of the specimens they select, made for the \
                request; its `eml.xml` names the filter and the snapshot (checksum and time) in \
                `additionalInfo`.",
            "parameters": question_parameters(),
            "responses": {
                "200": {
                    "description": "The archive",
                    "headers": {
                        "ETag": {"description": "The archive's SHA-256 (first 16 bytes, hex).",
                                 "schema": {"type": "string"}},
                        "Cache-Control": {"$ref": "#/components/headers/Cache-Control"},
                        "Last-Modified": {"$ref": "#/components/headers/Last-Modified"},
                        "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
                    },
                    "content": {"application/zip": {"schema": {"type": "string", "contentMediaType": "application/zip"}}},
                },
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
                "500": error_response("The archive could not be made; the message says why."),
                "503": busy_response(),
            },
        }}),
    );
}

/// `/eml.xml`: the whole dataset's metadata.
pub fn eml(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        EML_PATH.into(),
        json!({"get": {
            "operationId": "eml",
            "summary": "The dataset's metadata (EML), as the whole archive holds it",
            "description": "The `eml.xml` of `/dwca.zip` without a question, byte for byte: what \
                harvesters read of the dataset, in GBIF's EML profile (title, description, \
                creators, contacts, licence, keywords, the collection's coverage in space, time \
                and taxa, the snapshot's checksum). A question's archive carries its own, \
                covering and naming the question.",
            "responses": {
                "200": {
                    "description": "The metadata",
                    "headers": {
                        "ETag": {"description": "The document's SHA-256 (first 16 bytes, hex).",
                                 "schema": {"type": "string"}},
                        "Cache-Control": {"$ref": "#/components/headers/Cache-Control"},
                        "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
                    },
                    "content": {"application/xml": {"schema": {"type": "string"}}},
                },
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            },
        }}),
    );
}

/// The document of the routes described by `described` (in the route table's
/// order), for a server that caps `limit` at `max_limit` (if it does).
pub fn document(
    max_limit: Option<usize>,
    described: impl IntoIterator<Item = (Describe, Forms)>,
) -> Value {
    let mut paths = Map::new();
    for (describe, forms) in described {
        let before = paths.len();
        describe(&mut paths, max_limit);
        // A route that takes forms takes one on each path it describes (the
        // paths are kept in the order they are added).
        if forms == Forms::QueryOrForm {
            for item in paths.values_mut().skip(before) {
                if item.get("post").is_none() {
                    with_form(item);
                }
            }
        }
    }
    // Any request whose head is over the server's bound is refused before it
    // reaches its operation: each operation answers 431 too.
    for operation in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(|op| op.get_mut("responses").and_then(Value::as_object_mut))
    {
        operation
            .entry("431")
            .or_insert_with(|| json!({"$ref": "#/components/responses/HeadTooLarge"}));
    }

    let mut schemas = Map::new();
    for &endpoint in Endpoint::all().iter().filter(|&&e| geojson::supports(e)) {
        let (model, nested) = (endpoint.model, endpoint.nested);
        schemas.insert(
            format!("{}FeatureCollection", schema_name(model, nested)),
            feature_collection_schema(model, nested),
        );
    }
    for model in Model::ALL {
        schemas.insert(schema_name(model, false), item_schema(model, false));
        schemas.insert(
            format!("{}List", schema_name(model, false)),
            list_schema(model, false),
        );
        if model.has_nested() {
            schemas.insert(schema_name(model, true), item_schema(model, true));
            schemas.insert(
                format!("{}List", schema_name(model, true)),
                list_schema(model, true),
            );
        }
    }
    schemas.extend(taxon_schemas());
    schemas.insert("WagtailImage".into(), wagtail_image_schema());
    schemas.insert(
        "WagtailImageList".into(),
        json!({
            "type": "object",
            "properties": {
                "meta": {"$ref": "#/components/schemas/ListMeta"},
                "items": {"type": "array", "items": {"$ref": "#/components/schemas/WagtailImage"}},
            },
            "required": ["meta", "items"],
            "additionalProperties": false,
        }),
    );
    // Shared by every list, so a generated client has one type for each rather
    // than one per operation.
    schemas.insert("ListMeta".into(), meta_schema(false));
    schemas.insert("FeatureCollectionMeta".into(), meta_schema(true));
    schemas.insert(
        "FacetCount".into(),
        json!({
            "type": "object",
            "properties": {
                "value": {"type": ["string", "integer", "boolean", "null"]},
                "count": {"type": "integer", "minimum": 1},
            },
            "required": ["value", "count"],
            "additionalProperties": false,
        }),
    );
    openapi_gbif::schemas(&mut schemas);
    openapi_wagtail::schemas(&mut schemas);
    schemas.insert("Format".into(), json!({"type": "string", "enum": ["json"]}));
    schemas.insert("Checklist".into(), checklist_schema());
    schemas.insert(
        "Error".into(),
        json!({
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
            "additionalProperties": false,
        }),
    );

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "catalogue",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A read-only JSON API for a natural-history collection, served from an immutable snapshot.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "headers": headers(),
            "responses": {
                "BadRequest": error_response("A parameter has a value the server does not accept; the message says which and why."),
                "NotFound": error_response("No such record (or no such path)."),
                "MethodNotAllowed": {
                    "description": "Only GET, HEAD and OPTIONS are answered, and POST where a form is taken.",
                    "headers": {"Allow": {"$ref": "#/components/headers/Allow"},
                                "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"}},
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                },
                "HeadTooLarge": {
                    "description": "The request's head (request line and headers) is over 8 KiB, or holds more \
                        than 100 headers: refused before it is read, without a body. A long GBIF search \
                        goes in a POSTed form instead.",
                },
                "NotModified": {
                    "description": "The `If-None-Match` tag (or, without one, the `If-Modified-Since` date) is current: no body.",
                    "headers": {"ETag": {"$ref": "#/components/headers/ETag"},
                                "Cache-Control": {"$ref": "#/components/headers/Cache-Control"},
                                "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"}},
                },
            },
        },
    })
}

/// `Species`, `NestedSpecies`: the component name of an item shape.
fn schema_name(model: Model, nested: bool) -> String {
    if nested {
        format!("Nested{}", model.class_name())
    } else {
        model.class_name().to_string()
    }
}

fn reference(model: Model, nested: bool) -> Value {
    json!({"$ref": format!("#/components/schemas/{}", schema_name(model, nested))})
}

fn nullable(schema: Value, nullable: bool) -> Value {
    if !nullable {
        return schema;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) if schema.as_object().is_some_and(|o| o.len() <= 2) => {
            let mut s = schema.clone();
            s["type"] = json!([t, "null"]);
            s
        }
        _ => json!({"anyOf": [schema, {"type": "null"}]}),
    }
}

/// The schema of one field's value in an item of the given shape.
fn field_schema(field: &Field, nested: bool) -> Value {
    let schema = match field.ty {
        Type::Int => json!({"type": "integer"}),
        Type::Bool => json!({"type": "boolean"}),
        Type::Str => json!({"type": "string"}),
        Type::Time => json!({"type": "string", "format": "date-time"}),
        Type::Date => json!({"type": "string", "format": "date"}),
        Type::Parent(m) if nested => reference(m, m.has_nested()),
        Type::Parent(_) => json!({"type": "integer"}),
        Type::Embed(m) => reference(m, false),
        Type::Taxon => json!({"anyOf": Model::RANKS.iter()
            .map(|&rank| json!({"$ref": format!("#/components/schemas/{}", taxon_schema_name(rank))}))
            .collect::<Vec<_>>()}),
        Type::EmbedMany(m) => json!({"type": "array", "items": reference(m, false)}),
        Type::RefId(_) => json!({"type": "integer"}),
        Type::RefIds(_) => json!({"type": "array", "items": {"type": "integer"}}),
        Type::MediaFile => json!({"type": "string", "format": "uri"}),
    };
    // A key left out when it has no value is never null; an extension says so
    // (and the description, for people).
    if field.absent_when_null {
        let mut schema = schema;
        schema["x-absent-when-null"] = json!(true);
        schema["description"] = json!("Left out of the item when there is no value.");
        return schema;
    }
    nullable(schema, field.nullable)
}

fn item_schema(model: Model, nested: bool) -> Value {
    let properties: Map<String, Value> = model
        .fields()
        .iter()
        .map(|f| (f.name.to_string(), field_schema(f, nested)))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

fn taxon_schema_name(rank: Model) -> String {
    format!("{}Taxon", rank.class_name())
}

/// A specimen's taxon, a record of whichever rank it was identified to: one of
/// seven `{Rank}Taxon` schemas, lowest rank first. Unlike the ranks' item schemas
/// (where `fields` may leave any key out) these require every key, as an embedded
/// taxon always has them: a generated client reads a taxon as the first schema
/// whose keys it holds, and only this order and `required` make that its own rank
/// rather than an order missing the species' fields.
fn taxon_schemas() -> Vec<(String, Value)> {
    Model::RANKS
        .iter()
        .map(|&rank| {
            let mut schema = item_schema(rank, false);
            let required: Vec<&str> = rank
                .fields()
                .iter()
                .filter(|f| !f.absent_when_null)
                .map(|f| f.name)
                .collect();
            schema["required"] = json!(required);
            (taxon_schema_name(rank), schema)
        })
        .collect()
}

/// The `meta` member of a list answer; a GeoJSON one also counts what it left out.
fn meta_schema(geo: bool) -> Value {
    let mut meta = json!({
                "type": "object",
                "properties": {
                    "total_count": {"type": "integer", "minimum": 0},
                    "facets": {
                        "description": "With `facet`: per field, its values over the filtered records and how many hold each.",
                        "type": "object",
                        "additionalProperties": {"type": "array",
                            "items": {"$ref": "#/components/schemas/FacetCount"}},
                    },
                },
                "required": ["total_count"],
                "additionalProperties": false,
    });
    if geo {
        meta["properties"]["total_count"]["description"] =
            json!("The features: matching records that have a point.");
        meta["properties"]["without_coordinates"] = json!({
            "description": "Matching records left out for having no coordinates.",
            "type": "integer", "minimum": 0,
        });
        meta["required"] = json!(["total_count", "without_coordinates"]);
    }
    meta
}

fn list_schema(model: Model, nested: bool) -> Value {
    json!({
        "type": "object",
        "properties": {
            "meta": {"$ref": "#/components/schemas/ListMeta"},
            "items": {"type": "array", "items": reference(model, nested)},
        },
        "required": ["meta", "items"],
        "additionalProperties": false,
    })
}

/// The GeoJSON answer of a list with points: one Point feature per item.
fn feature_collection_schema(model: Model, nested: bool) -> Value {
    let degrees = |max: f64| json!({"type": "number", "minimum": -max, "maximum": max});
    json!({
        "type": "object",
        "properties": {
            "type": {"const": "FeatureCollection"},
            "meta": {"$ref": "#/components/schemas/FeatureCollectionMeta"},
            "features": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "type": {"const": "Feature"},
                    "id": {"type": "integer"},
                    "geometry": {
                        "type": "object",
                        "properties": {
                            "type": {"const": "Point"},
                            "coordinates": {
                                "description": "Longitude, latitude (WGS 84 degrees).",
                                "type": "array",
                                "prefixItems": [degrees(180.0), degrees(90.0)],
                                "minItems": 2, "maxItems": 2,
                            },
                        },
                        "required": ["type", "coordinates"],
                        "additionalProperties": false,
                    },
                    "properties": reference(model, nested),
                },
                "required": ["type", "id", "geometry", "properties"],
                "additionalProperties": false,
            }},
        },
        "required": ["type", "meta", "features"],
        "additionalProperties": false,
    })
}

fn headers() -> Value {
    json!({
        "ETag": {"description": "A strong tag of the snapshot, the path and the query (and the content coding).",
                 "schema": {"type": "string"}},
        "Cache-Control": {"description": "`public, max-age=N` (N from `--cache-max-age`).", "schema": {"type": "string"}},
        "Last-Modified": {"description": "When what the answer is made from last changed: the snapshot's build time, or a file's or the kept versions' own; absent where it changed within the last second.", "schema": {"type": "string"}},
        "Vary": {"description": "`Accept-Encoding` (and `Origin` when origins are listed).", "schema": {"type": "string"}},
        "Access-Control-Allow-Origin": {"description": "`*`, or the request's origin when `--cors-origin` lists it.",
                                        "schema": {"type": "string"}},
        "Allow": {"description": "`GET, HEAD, OPTIONS`, and `POST` where a form is taken (GBIF's search and count).", "schema": {"type": "string"}},
    })
}

/// A list's responses: JSON, and GeoJSON where the records have points.
fn list_responses(endpoint: Endpoint) -> Value {
    let name = schema_name(endpoint.model, endpoint.nested);
    let mut r = responses(&name, true);
    r["503"] = busy_response();
    if geojson::supports(endpoint) {
        r["200"]["content"][geojson::MEDIA_TYPE] = json!({"schema": {
            "$ref": format!("#/components/schemas/{name}FeatureCollection")
        }});
    }
    r["200"]["content"]["text/csv; charset=utf-8"] = json!({"schema": {"type": "string"}});
    r["200"]["content"]["application/x-ndjson"] = json!({"schema": {"type": "string"}});
    r["200"]["content"]["application/atom+xml; charset=utf-8"] =
        json!({"schema": {"type": "string"}});
    if endpoint.model == Model::SpecimenRecord {
        r["200"]["content"]["application/zip"] =
            json!({"schema": {"type": "string", "format": "binary"}});
    }
    r["200"]["headers"]["Content-Disposition"] = json!({
        "description": "A download's file name: the list's, the snapshot's date and the start of its checksum.",
        "schema": {"type": "string"},
    });
    r
}

/// The parameters of a specimen question alone: its filters and search.
fn question_parameters() -> Vec<Value> {
    let mut out = search_parameters("a specimen", "the specimen as served").to_vec();
    out.push(modified_since_parameter());
    out.push(unaccented_parameter());
    out.extend([query(
        "_",
        "Ignored (a cache-buster some clients send).",
        json!({"type": "string"}),
    )]);
    out.extend(specimen_filters());
    out
}

/// `modified_since`: the records changed at or after an instant.
fn modified_since_parameter() -> Value {
    query(
        "modified_since",
        "The records whose `date_modified` is at or after this instant (ISO 8601: \
         `2026-11-01T00:00:00Z`, or a day, `2026-11-01`, from its midnight UTC), with every \
         other filter; empty, no filter. What was deleted is in `/api/v2/changes/`.",
        json!({"anyOf": [
            blank(),
            {"type": "string", "format": "date"},
            {"type": "string", "format": "date-time",
             "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$"},
        ]}),
    )
}

/// `search_operator` and `search`, for what `matches` (`an item`) and where
/// its terms are looked for.
fn search_parameters(matches: &str, looked_in: &str) -> [Value; 2] {
    [
        query(
            "search_operator",
            &format!("`and` (the default): {matches} matches when every `search` term occurs; `or`: when one does."),
            json!({"type": "string", "enum": ["and", "or"]}),
        ),
        query(
            "search",
            &format!(
                "Whitespace-separated terms (at most {MAX_SEARCH_TERMS}), each found case-insensitively \
                 in some string of {looked_in}."
            ),
            json!({"type": "string", "pattern": search_pattern()}),
        ),
    ]
}

/// The species checklist of a specimen question.
fn checklist_operation() -> Value {
    let mut parameters = vec![query(
        "format",
        "`json` (the default, or the page when the client prefers HTML), `csv` (GBIF \
         SPECIES_LIST's column names where they fit) or `html` (a page whose rows link to \
         the specimens of each taxon).",
        json!({"type": "string", "enum": ["json", "csv", "html"]}),
    )];
    parameters.push(bom_parameter());
    parameters.push(json!({
        "name": crate::checklists::GEOMETRY, "in": "query", "required": false,
        "description": "A WKT `POLYGON` or `MULTIPOLYGON`, longitude before latitude, as GBIF's \
            search reads it (`/gbif/v1/occurrence/search`'s `geometry`): the taxa of the \
            specimens collected inside it. Repeated: inside any of them. At most 10,000 \
            vertices in all; a long one is POSTed as a form. An empty one is no area.",
        // Blank, or an area.
        "schema": {"type": "string", "pattern": format!("^[ \\t\\n\\f\\r]*$|{}", openapi_gbif::wkt_pattern())},
    }));
    parameters.extend(question_parameters());
    // The page's refusal is a page (`format=html`, or a browser's `Accept`).
    let mut refused = error_response(
        "A parameter the checklist does not take, or a value it cannot read; the message says \
         which. The page's refusal is a page.",
    );
    refused["content"]["text/html; charset=utf-8"] = json!({"schema": {"type": "string"}});
    json!({"get": {
        "operationId": "specimen-checklist",
        "summary": "The taxa a specimen question holds",
        "description": "One row per taxon at the rank its specimens are identified to (subspecies, \
            species, or a higher rank for those identified no further), with the number of specimens, \
            the first and last year collected, the number of localities and the classification above it; \
            specimens without a taxon are counted in `meta.without_taxon`. Rows are in the order of \
            their scientific names.",
        "tags": [Model::SpecimenRecord.path()],
        "parameters": parameters,
        "responses": {
            "200": {
                "description": "The checklist",
                "headers": success_headers(),
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Checklist"}},
                    "text/csv; charset=utf-8": {"schema": {"type": "string"}},
                    "text/html; charset=utf-8": {"schema": {"type": "string"}},
                },
            },
            "304": {"$ref": "#/components/responses/NotModified"},
            "400": refused,
            "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            "503": busy_response(),
        },
    }})
}

/// A checklist as JSON.
fn checklist_schema() -> Value {
    let name = json!({"type": ["string", "null"]});
    let mut taxon = json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer", "description": "The taxon's id in its rank's list."},
            "rank": {"type": "string", "enum": Model::RANKS.map(rank_name)},
            "scientific_name": {"type": "string"},
            "authority": {"type": "string"},
            "common_name": {"type": "string"},
            "specimens": {"type": "integer", "minimum": 1},
            "first_year": {"type": ["integer", "null"]},
            "last_year": {"type": ["integer", "null"]},
            "localities": {"type": "integer", "minimum": 0},
        },
        "additionalProperties": false,
    });
    for rank in CLASSIFICATION {
        taxon["properties"][rank_name(rank)] = name.clone();
    }
    let required: Vec<&str> = taxon["properties"]
        .as_object()
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let required = json!(required);
    taxon["required"] = required;
    json!({
        "type": "object",
        "properties": {
            "meta": {
                "type": "object",
                "properties": {
                    "total_count": {"type": "integer", "minimum": 0, "description": "The taxa."},
                    "specimens": {"type": "integer", "minimum": 0, "description": "The specimens the question selects."},
                    "without_taxon": {"type": "integer", "minimum": 0, "description": "Those of them without a taxon."},
                },
                "required": ["total_count", "specimens", "without_taxon"],
                "additionalProperties": false,
            },
            "items": {"type": "array", "items": taxon},
        },
        "required": ["meta", "items"],
        "additionalProperties": false,
    })
}

/// An alternation of names for a pattern (names are letters, digits and `_`).
fn one_of(names: &[&str]) -> String {
    names.join("|")
}

/// The keys `sort` accepts on an endpoint: scalar fields (parent ids in the plain shape).
fn sort_keys(endpoint: Endpoint) -> Vec<&'static str> {
    sortable_names(endpoint.model, endpoint.shape())
}

fn fields_parameter(endpoint: Endpoint) -> Value {
    let names: Vec<&str> = endpoint.model.fields().iter().map(|f| f.name).collect();
    let name = one_of(&names);
    query(
        "fields",
        "Which keys items keep, in Wagtail's syntax: `_` first clears, `*` first keeps all, `name` adds, \
         `-name` removes, `name(...)` applies the same inside an embedded record. The pattern covers the \
         top-level forms; nested lists such as `taxon(_,name)` are accepted too. Empty: every key.",
        json!({"type": "string", "pattern": format!("^(\\*|_(,({name}))*|-?({name})(,-?({name}))*)?$")}),
    )
}

/// What the form trims from a value (Python's `str.strip()`: `SPACE`, and the four
/// ASCII separators), as a character class.
fn form_space() -> String {
    format!("[{SPACE}\\x1C-\\x1F]")
}

/// A form value that is empty or only whitespace: no filter.
fn blank() -> Value {
    json!({"type": "string", "pattern": format!("^{}*$", form_space())})
}

/// A record's (or Wagtail's image endpoints') `format`: only `json`.
fn format_parameter() -> Value {
    query(
        "format",
        "The response format: only `json`.",
        json!({"$ref": "#/components/schemas/Format"}),
    )
}

/// A list's `format`: JSON, GeoJSON where its records have points, and the
/// downloads.
fn list_format_parameter(endpoint: Endpoint) -> Value {
    let geo = geojson::supports(endpoint);
    let mut formats = vec!["json"];
    if geo {
        formats.push("geojson");
    }
    formats.extend([Format::Csv(Columns::Fields).name(), Format::Ndjson.name()]);
    formats.push(Format::Atom.name());
    let photographs = endpoint.model == Model::SpecimenRecord;
    if photographs {
        formats.push(Format::Zip.name());
    }
    let mut description = String::from("The response format: `json`");
    if geo {
        description.push_str(
            ", `geojson` for a FeatureCollection (`application/geo+json`) of the matching records \
             that have coordinates, each a Point whose properties are the item",
        );
    }
    description.push_str(
        "; or a download of every matching item (not a page; filters, search, sort, `fields` \
         and an explicit `limit`/`offset` apply; `facet` is ignored and named in \
         `X-Ignored-Parameters`; a parameter the list does not know is refused with 400, naming the \
         nearest it knows), named by \
         `Content-Disposition` after the list, the snapshot and a hash of the question: `csv` (RFC 4180, UTF-8, a header \
         row; a related record is two columns, `<field>_id` and `<field>_name`, several are \
         joined by ` | `; rich text as plain text) or `ndjson` (one item a line, as in the list).",
    );
    if photographs {
        description.push_str(
            " `zip`: the original files of the photographs of every matching specimen (a download \
             as above), stored as `<usi>-<image id>.<ext>` in the question's order, streamed, then \
             `index.csv` (RFC 4180, as `csv`) with the columns `file`, `image` (the image's id), \
             `usi`, `title`, `licence` (SPDX), `licence_url`, `creator` (the dataset's rights \
             holder) and `missing`: empty where the file is in the zip, else why it is not (not \
             in the media folder, over `--media-max-bytes`), the rest of the zip still whole.",
        );
    }
    description.push_str(&format!(
        " `atom`: an Atom feed (`application/atom+xml`) of the matching records added, modified \
         or deleted by the versions the history holds, newest version first, an entry per \
         record and version (`category` the change), linking the record and the version's \
         changes; `limit` entries ({FEED_ENTRIES} when not given, at most {MOST_FEED_ENTRIES}: \
         a larger `limit` is {MOST_FEED_ENTRIES}) after `offset`. A record \
         is matched as it is in the served snapshot; a deleted record is in the feed of the \
         whole list (no filter, no search) only. `fields`, `sort`, `order` and `facet` are \
         ignored and named in `X-Ignored-Parameters`; a parameter the list does not know is \
         refused with 400. Tagged by its bytes."
    ));
    query(
        "format",
        &description,
        json!({"type": "string", "enum": formats}),
    )
}

/// `columns`: which columns a CSV download has.
fn columns_parameter(endpoint: Endpoint) -> Value {
    let occurrences = endpoint.model.policy().darwin_core == DarwinCore::Occurrences;
    let (choices, description) = match occurrences {
        true => (
            vec!["fields", "dwc"],
            "With `format=csv`: `fields` (the default), the item's fields; `dwc`, the Darwin \
             Core columns of the archive's `occurrence.txt` (as GBIF's SIMPLE_CSV), which \
             ignore `fields`. Ignored (and named in `X-Ignored-Parameters`) in other formats.",
        ),
        false => (
            vec!["fields"],
            "With `format=csv`: `fields` (the default), the item's fields. Ignored (and named \
             in `X-Ignored-Parameters`) in other formats.",
        ),
    };
    query(
        "columns",
        description,
        json!({"type": "string", "enum": choices}),
    )
}

/// `unaccented`: the specimen filters' text matched without regard to accents.
fn unaccented_parameter() -> Value {
    query(
        "unaccented",
        "`1` (or `true`): the specimen list's text filters (a taxon's, place's, trip's or \
         person's name, the specimen's own text) match without regard to accents as well as case \
         (`state=quebec` finds Québec), as the specimen list's page does by default; `0`, \
         `false` or nothing (the default) matches accents as written. No effect on the other \
         lists' exact filters; empty (or spaces), as a form sends it, is nothing.",
        json!({"anyOf": [{"type": "string", "enum": ["1", "0", "true", "false"]}, blank()]}),
    )
}

/// `bom`: a UTF-8 byte-order mark before a CSV, for spreadsheet programs.
fn bom_parameter() -> Value {
    query(
        "bom",
        "With `format=csv`: `1` (or `true`) begins the file with a UTF-8 byte-order mark \
         (EF BB BF), which spreadsheet programs such as Excel read as \"this is UTF-8\" (without \
         it they may show `Åberg` as `Ã…berg`); `0`, `false` or nothing (the default) for none. \
         Empty (or spaces) is nothing. Ignored (and named in `X-Ignored-Parameters`) in other formats.",
        json!({"anyOf": [{"type": "string", "enum": ["1", "0", "true", "false"]}, blank()]}),
    )
}

fn list_parameters(endpoint: Endpoint, max_limit: Option<usize>) -> Vec<Value> {
    let mut limit = json!({"type": "integer", "minimum": 0});
    if let Some(max) = max_limit {
        limit["maximum"] = json!(max);
    }
    let keys = one_of(&sort_keys(endpoint));
    let facet_fields: Vec<&str> = endpoint
        .model
        .fields()
        .iter()
        .filter(|f| facets::facetable(f.ty))
        .map(|f| f.name)
        .chain(endpoint.model.policy().quality.then_some(facets::ISSUE))
        .collect();
    let facets = one_of(&facet_fields);
    let mut out = vec![
        query(
            "limit",
            &format!(
                "Items per page (default {DEFAULT_LIMIT}, or the server's `--default-limit`); \
                      a download (`format=csv`, `ndjson` or `zip`) is every item unless `limit` is \
                      given, and `--max-limit` does not bound it; a feed (`format=atom`) holds \
                      {FEED_ENTRIES} entries unless `limit` is given, at most {MOST_FEED_ENTRIES}."
            ),
            limit,
        ),
        query(
            "offset",
            "Items to skip.",
            json!({"type": "integer", "minimum": 0}),
        ),
        fields_parameter(endpoint),
        query(
            "sort",
            "Comma-separated keys, `-` for descending; nulls last both ways, ties by id.",
            json!({"type": "string", "pattern": format!("^(-?({keys})(,-?({keys}))*)?$")}),
        ),
    ];
    out.extend(search_parameters(
        "an item",
        "the item as served (embedded records included, timestamps not)",
    ));
    out.push(modified_since_parameter());
    out.push(unaccented_parameter());
    out.extend([
        list_format_parameter(endpoint),
        columns_parameter(endpoint),
        bom_parameter(),
        query(
            "facet",
            "Comma-separated fields to count values of, over the filtered records, into \
             `meta.facets`: scalars by value, related records by name; on the specimens, `issue` \
             counts their quality flags (records without one are not counted). Ordered by count, then value.",
            json!({"type": "string", "pattern": format!("^(({facets})(,({facets}))*)?$")}),
        ),
        query(
            "facet_size",
            &format!(
                "At most this many values per facet (default {}, at most {}).",
                facets::DEFAULT_SIZE,
                facets::MAX_SIZE
            ),
            json!({"type": "integer", "minimum": 0, "maximum": facets::MAX_SIZE}),
        ),
        query(
            "_",
            "Ignored (a cache-buster some clients send).",
            json!({"type": "string"}),
        ),
    ]);
    if endpoint.model.field_index("order").is_none() {
        out.push(query(
            "order",
            "Wagtail's spelling of `sort`: one key (`-` for descending), after any `sort` keys; \
             `random` for a fresh random order on each request (or random among what `sort` leaves tied).",
            json!({"type": "string", "pattern": format!("^(-?({keys})|random)$")}),
        ));
    }
    match endpoint.model.policy().filters {
        Filters::Named => out.extend(specimen_filters()),
        Filters::ByField => out.extend(field_filters(endpoint.model)),
        // Its fields' names are accepted and do nothing: not described.
        Filters::Ignored => {}
    }
    out
}

/// The label sheets: a kind, a layout, an output, and the specimen list's
/// question (its filters, search, sort and paging). Every parameter takes an
/// empty value as none, as the label form sends it.
fn labels_operation() -> Value {
    let specimens = Endpoint {
        model: Model::SpecimenRecord,
        nested: false,
    };
    let blank_is_none = |mut p: Value| {
        let schema = p["schema"].take();
        p["schema"] = match schema.get("anyOf") {
            Some(_) => schema,
            None => json!({"anyOf": [schema, blank()]}),
        };
        p
    };
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    let mut parameters = vec![
        query(
            "kind",
            "`qr` (the default): the service's QR sheet, a code and the USI in each cell; `data`: the collecting event (region, locality, point and elevation, date and method, collectors); `determination`: family, taxon (italic from the genus down) with its authority, and `det.` the determiner and year.",
            json!({"type": "string", "enum": kinds}),
        ),
        query(
            "format",
            "`pdf` (the default), `csv` (a row a label, a column a line, for mail merge) or `html` (the first page as a preview, with the labels that do not fit).",
            json!({"type": "string", "enum": ["pdf", "csv", "html"]}),
        ),
        query(
            "paper",
            "`letter` (the default) or `a4`. With no layout parameter, `kind=qr` is the              service's sheet: US Letter, 25 x 24 cells of 24.48 x 33 pt filled down each column.",
            json!({"type": "string", "enum": ["letter", "a4"]}),
        ),
        query(
            "qr",
            "Whether data and determination labels carry the QR code too (at their left).",
            json!({"type": "string", "enum": ["true", "false", "1", "0"]}),
        ),
    ];
    for m in MEASURES {
        let what = match m.name {
            "width_mm" => "A label's width",
            "height_mm" => "A label's height",
            "font_pt" => "The type size; a line that does not fit is shrunk to 3 pt, then reported",
            "margin_mm" => "The page's margins",
            _ => "The space between labels",
        };
        parameters.push(query(
            m.name,
            &format!("{what}, in {}.", m.unit),
            json!({"type": "number", "minimum": m.min, "maximum": m.max}),
        ));
    }
    let question = list_parameters(specimens, None).into_iter().filter(|p| {
        let name = p["name"].as_str().unwrap_or_default();
        !PARAMETERS.contains(&name) && !["fields", "facet", "facet_size"].contains(&name)
    });
    parameters.extend(question);
    let parameters: Vec<Value> = parameters.into_iter().map(blank_is_none).collect();
    let text = |t: &str| json!({"schema": {"type": "string", "contentMediaType": t}});
    let mut refused = error_response(
        "A parameter is not what it may be, or the question selects more specimens than a          sheet holds (`--max-labels`); the message says which. The preview's refusal is a page.",
    );
    refused["content"]["text/html"] = text("text/html");
    let mut busy = error_response(
        "Every thread for answers that cost work is busy and the queue is full: retry after `Retry-After` seconds.",
    );
    busy["headers"]["Retry-After"] = json!({"schema": {"type": "integer", "minimum": 1}});
    json!({"get": {
        "operationId": "specimen-labels",
        "summary": "Labels for the specimens a question selects: PDF, CSV of their lines, or a preview",
        "description": "The specimen list's filters, search, sort and paging choose the specimens, in \
            that order (every one the question selects, up to `--max-labels`). The PDF is written \
            a page at a time; its text is selectable, in an embedded subset of Liberation Sans \
            (Helvetica's widths). Each QR code says `--label-url` with the specimen's `{usi}`, \
            `{usi_lower}`, `{digits}` or `{id}`; by default its short link on this server \
            (`<public URL>/s/{digits}`, which redirects to its record), or its record \
            (`<public URL>/api/v2/specimen-records/{id}/`) where its USI has no digits or \
            shares them with another specimen; the public URL is `--public-url`, else the \
            request's address, which `X-Label-Warning` then says. A parameter the specimen list \
            does not know is refused with 400, naming the nearest it knows. Made anew for each \
            request: never stored by caches.",
        "tags": [Model::SpecimenRecord.path()],
        "parameters": parameters,
        "responses": {
            "200": {
                "description": "The sheet",
                "headers": {
                    "X-Label-Overflow": {
                        "description": "When labels do not fit even at 3 pt: how many, and the first                             twenty USIs with their lines (`2 labels overflow: MEM-3 (locality), ...`).",
                        "schema": {"type": "string"},
                    },
                    "X-Label-Warning": {
                        "description": "When the codes point at the address the sheet was asked at (no `--public-url` or `--label-url`): what to set.",
                        "schema": {"type": "string"},
                    },
                    "Content-Disposition": {"description": "`inline`, with a file name: the kind, the snapshot and a hash of the question (`labels-data-2026-11-20-3fa2b4c1-q7d01e2a9.pdf`).",
                                            "schema": {"type": "string"}},
                    "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
                },
                "content": {
                    "application/pdf": text("application/pdf"),
                    "text/csv": text("text/csv"),
                    "text/html": text("text/html"),
                },
            },
            "400": refused,
            "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            "503": busy,
        },
    }})
}

/// A short link, what a QR label says by default: the specimen's record by
/// the digits of its USI.
fn short_link_operation() -> Value {
    let mut moved = error_response(
        "The specimen whose USI has exactly these digits, in order (`MEM-000367`: `000367`; \
         not `367`): its record is at `Location`. Where several specimens' USIs have the \
         same digits, the one with the lowest id (a label printed by this server never says \
         such a code: it says the record).",
    );
    moved["headers"]["Location"] = json!({
        "description": "The specimen's record, from the server's root (`/api/v2/specimen-records/12/`): \
            a page for a browser, JSON for a program, as it asks.",
        "schema": {"type": "string"},
    });
    json!({"get": {
        "operationId": "short-link",
        "summary": "A specimen by the digits of its USI, as a QR label says it: redirected to its record",
        "description": "The service's short links (`/s/{digits}`, no trailing slash). A QR \
            label printed without `--label-url` says this server's short link of its specimen, \
            where the digits name it alone. Parameters change nothing.",
        "tags": [Model::SpecimenRecord.path()],
        "parameters": [{
            "name": "digits", "in": "path", "required": true,
            "description": "Every ASCII digit of the specimen's USI, in order. Digits no USI has, \
                or anything but digits, is a 404.",
            "schema": {"type": "string"},
        }],
        "responses": {
            "301": moved,
            "404": error_response("No specimen's USI has these digits; the message says what a short code is."),
            "405": {"$ref": "#/components/responses/MethodNotAllowed"},
            "503": busy_response(),
        },
    }})
}

/// Exact filters on the fields of a plain shape.
fn field_filters(model: Model) -> Vec<Value> {
    model
        .fields()
        .iter()
        .filter_map(|f| {
            let schema = match f.ty {
                Type::Int | Type::Parent(_) | Type::RefId(_) => int64(),
                Type::Bool => spelled(&BOOLEANS),
                Type::Str | Type::MediaFile => json!({"type": "string"}),
                Type::Date => json!({"type": "string", "format": "date"}),
                Type::Time => json!({"type": "string", "format": "date-time",
                    "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$"}),
                Type::Embed(Model::Image) => {
                    return Some(query(
                        f.name,
                        "Accepted as the service accepts it (it names a field); filters nothing.",
                        json!({"type": "string"}),
                    ))
                }
                Type::Embed(_) | Type::EmbedMany(_) | Type::Taxon | Type::RefIds(_) => return None,
            };
            let what = match f.ty {
                Type::Parent(_) | Type::RefId(_) => "the related record's id",
                _ => "the value",
            };
            Some(query(
                f.name,
                &format!("Items whose `{}` is exactly {what}.", f.name),
                schema,
            ))
        })
        .collect()
}

/// The specimen filters of the label-printing form. Empty values are ignored.
fn specimen_filters() -> Vec<Value> {
    let mut out = Vec::new();
    for (name, field, target) in filter::RELATED {
        if *name == "taxon" {
            out.push(json!({
                "name": name, "in": "query", "required": false, "style": "form", "explode": true,
                "description": "One value: specimens whose taxon's name contains it (case-insensitive). \
                    Several (repeated, or comma-separated): specimens whose taxon's scientific name \
                    (a binomial, a trinomial, or a higher rank's name) is exactly one of them, \
                    regardless of case; an unknown name matches nothing.",
                "schema": {"type": "array", "items": {"type": "string", "pattern": "^[^\\u0000]*$"}},
            }));
            continue;
        }
        out.push(query(
            name,
            &format!("Specimens whose {field}'s {target} contains this (case-insensitive)."),
            json!({"type": "string"}),
        ));
    }
    for name in crate::query::filter::SPECIMEN_TEXT {
        out.push(query(
            name,
            &format!("Specimens whose {name} contains this (case-insensitive)."),
            json!({"type": "string"}),
        ));
    }
    // The label form sends every field, most of them empty: a value that is empty
    // or only whitespace is no filter, and surrounding whitespace is trimmed.
    let exact = |name: &str, schema: Value| {
        query(
            name,
            &format!(
                "Specimens whose {name} is this (surrounding whitespace trimmed; an empty value filters nothing)."
            ),
            json!({"anyOf": [schema, blank()]}),
        )
    };
    out.push(json!({
        "name": "usi", "in": "query", "required": false, "style": "form", "explode": true,
        "description": "Specimens whose usi is exactly one of these: repeated, or comma-separated \
            (each value's surrounding whitespace trimmed; an unknown value matches nothing; \
            an empty value filters nothing).",
        "schema": {"type": "array", "items": {"type": "string", "pattern": "^[^\\u0000]*$"}},
    }));
    for (name, choices) in [
        ("sex", SEXES),
        ("stage", STAGES),
        ("preparation", PREPARATIONS),
    ] {
        out.push(exact(name, json!({"type": "string", "enum": choices})));
    }
    out.push(exact("month", json!({"type": "string", "enum": MONTHS})));
    // The schema gives the canonical form: what else Django's date input formats
    // take cannot be said in JSON Schema without also admitting days that do not
    // exist, so the description lists them.
    out.push(query(
        "preparation_date",
        "Specimens prepared on this date, in one of Django's default input formats: \
         2013-12-23 (the form the schema gives), 12/23/2013, 12/23/13, Dec 23 2013, \
         Dec 23, 2013, 23 Dec 2013, 23 Dec, 2013, December 23 2013, December 23, 2013, \
         23 December 2013, 23 December, 2013 (an empty value filters nothing).",
        json!({"anyOf": [{"type": "string", "format": "date"}, blank()]}),
    ));
    for name in filter::INTS {
        out.push(query(
            name,
            &format!(
                "Specimens whose {name} is this integer; a decimal is truncated toward zero \
                 (an empty value filters nothing)."
            ),
            json!({"type": "string", "pattern": format!("^{w}*([+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+))?{w}*$", w = form_space())}),
        ));
    }
    for name in filter::BOOLS {
        out.push(exact(name, spelled(&FORM_BOOLEANS)));
    }
    let flags = Flag::choices();
    out.push(json!({
        "name": filter::ISSUE, "in": "query", "required": false, "style": "form", "explode": true,
        "description": "Specimens with this quality flag (`/quality/` says what each means), in any case; \
            `none`: specimens without a flag. Repeated (or comma-separated): any of them \
            (an empty value filters nothing).",
        "schema": {"type": "array", "items": {"anyOf": [{"type": "string", "enum": flags}, blank()]}},
    }));
    out
}

/// An item of Wagtail's image list: every key optional, since `fields` may
/// leave any out.
fn wagtail_image_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "meta": {
                "type": "object",
                "properties": {
                    "type": {"const": crate::model::image_api::IMAGE_TYPE},
                    "detail_url": {"type": "string", "format": "uri",
                        "description": "The image's address, from the collection's Wagtail site."},
                    "tags": {"type": "array", "items": {"type": "string"},
                        "description": "The image's tags, by name (byte order)."},
                    "download_url": {"type": "string",
                        "description": "The original file: under `--media-url`, else `/media/` (relative, as Wagtail writes it)."},
                },
                "additionalProperties": false,
            },
            "title": {"type": "string"},
            "width": {"type": "integer"},
            "height": {"type": "integer"},
        },
        "additionalProperties": false,
    })
}

/// Wagtail's `fields` for the image endpoint: names of its fields.
fn wagtail_fields_parameter(default: &str) -> Value {
    let names: Vec<&str> = ImageField::ALL.iter().map(|f| f.name()).collect();
    let name = one_of(&names);
    query(
        "fields",
        &format!(
            "Which fields items show, in Wagtail's syntax: {default}; `name` adds, `-name` \
             removes, `*` first starts from every field, `_` first from none."
        ),
        json!({"type": "string", "pattern": format!("^((\\*|_)(,-?({name}))*|-?({name})(,-?({name}))*)?$")}),
    )
}

/// `GET /api/v2/images/`: every image, as Wagtail's own endpoint lists them.
fn image_list_operation(max_limit: Option<usize>) -> Value {
    let mut limit = json!({"type": "integer", "minimum": 0});
    if let Some(max) = max_limit {
        limit["maximum"] = json!(max);
    }
    let sorts: Vec<&str> = ImageField::ALL
        .iter()
        .filter(|f| f.sorts())
        .map(|f| f.name())
        .collect();
    let sorts = one_of(&sorts);
    let mut busy = error_response(
        "Every thread for answers that cost work is busy: retry after `Retry-After` seconds.",
    );
    busy["headers"]["Retry-After"] = json!({"schema": {"type": "integer", "minimum": 1}});
    let mut r = responses("WagtailImage", true);
    r["200"]["links"]["record"]["operationId"] = json!("get-wagtail-image");
    r["503"] = busy;
    json!({"get": {
        "operationId": "list-images",
        "summary": "Every image, as Wagtail's own image endpoint lists them",
        "description": "The service's image list since 0.16 (Wagtail's `ImagesAPIViewSet`): \
            `id`, `meta` (`type`, `detail_url`, `tags`, `download_url`) and `title` by default.",
        "tags": ["images"],
        "parameters": [
            query("limit", &format!("Items per page (default {DEFAULT_LIMIT}, or the server's `--default-limit`)."), limit),
            query("offset", "Items to skip.", json!({"type": "integer", "minimum": 0})),
            wagtail_fields_parameter("by default `id`, `type`, `detail_url`, `tags`, `download_url` and `title`"),
            query("order", "A field to order by (`-` for descending, ties by id), or `random`.",
                json!({"type": "string", "pattern": format!("^(-?({sorts})|random)$")})),
            query("search", &format!(
                "Whitespace-separated terms (at most {MAX_SEARCH_TERMS}), each found case-insensitively in the \
                 title or a tag's name."),
                json!({"type": "string", "pattern": search_pattern()})),
            query("search_operator", "`and` (the default): every term; `or`: any one.",
                json!({"type": "string", "enum": ["and", "or"]})),
            format_parameter(),
            query("_", "Ignored (a cache-buster some clients send).", json!({"type": "string"})),
            query("id", "Images with this id.", int64()),
            query("title", "Images whose title is exactly this.", json!({"type": "string"})),
            query("width", "Images this wide.", int64()),
            query("height", "Images this high.", int64()),
            query("tags", "Comma-separated tag names: images with every one of them.", json!({"type": "string"})),
        ],
        "responses": r,
    }})
}

/// `GET /api/v2/images/{id}/`: one image, every field by default.
fn image_operation() -> Value {
    json!({"get": {
        "operationId": "get-wagtail-image",
        "summary": "One image, as Wagtail's own image endpoint shows it",
        "tags": ["images"],
        "parameters": [
            {"name": "id", "in": "path", "required": true,
             "description": "The image's id. An id that is not an integer, or names no image, is a 404.",
             "schema": {"type": "string"}},
            wagtail_fields_parameter("by default every field"),
            format_parameter(),
        ],
        "responses": responses("WagtailImage", false),
    }})
}
