//! The versions' operations of the OpenAPI document: `/api/v2/versions/`,
//! `/api/v2/changes/`, `/api/v2/citation/`, `/versions.atom` and
//! `/versions.rss`, and each kept version's files (`/versions/{version}/...`).

use serde_json::{json, Value};

use super::openapi_parts::{error_response, query, Paths};

use crate::model::endpoint::{
    CHANGES_PATH, CITATION_PATH, FEED_PATH, KEPT_ARCHIVE_PATH, KEPT_EML_PATH, PUBLISHING_PATH,
    RSS_PATH, VERSIONS_PATH,
};

fn paging() -> Vec<Value> {
    vec![
        query(
            "limit",
            "How many items, at most.",
            json!({"type": "integer", "minimum": 1, "maximum": 10000, "default": 100}),
        ),
        query(
            "offset",
            "How many items to skip.",
            json!({"type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0}),
        ),
    ]
}

fn responses(description: &str, content: Value, gone: bool) -> Value {
    let mut r = json!({
        "200": {"description": description, "content": content},
        "304": {"$ref": "#/components/responses/NotModified"},
        "400": error_response("A parameter the operation does not take, or a value it cannot read."),
        "405": {"$ref": "#/components/responses/MethodNotAllowed"},
    });
    if gone {
        r["410"] = error_response(
            "A version older than the history kept, naming the oldest kept version.",
        );
    }
    r
}

/// `/api/v2/publishing/`.
pub fn publishing(paths: &mut Paths, _: Option<usize>) {
    let held = json!({
        "type": "object",
        "required": ["list", "id", "url", "field", "problem", "kept", "since_version"],
        "additionalProperties": false,
        "properties": {
            "list": {"type": "string", "description": "The record's list (`specimen-records`), or its model's label."},
            "id": {"type": "integer"},
            "url": {"type": ["string", "null"], "description": "The path of the record's item."},
            "field": {"type": "string", "description": "The field the problem is in (`pk` for a deletion held back)."},
            "problem": {"type": "string", "description": "What is wrong, with the offending value."},
            "kept": {"type": "string", "enum": ["published", "left-out", "deletion-held"],
                "description": "Served as last published; not served (never published); or still served though deleted (records name it)."},
            "since_version": {"type": "integer", "minimum": 1, "description": "The first version that held it back."},
        },
    });
    let mut parameters = paging();
    parameters.push(query(
        "format",
        "`json` (a client that prefers HTML, or `format=html`, gets a page).",
        json!({"type": "string", "enum": ["json"]}),
    ));
    paths.insert(
        PUBLISHING_PATH.into(),
        json!({"get": {
            "operationId": "publishing",
            "summary": "What the snapshot published, and what it held back and why",
            "description": "The served snapshot's version, checksum and publication time, and each \
                record its publisher held back because it fails a rule (a reference to a missing \
                record, a duplicate identifier, a value that does not read): kept as it was last \
                published, or left out, while every other record is published. Fixing the record \
                in the service's admin publishes it; and what stands in the way of publishing now \
                (a refused dataset file: empty, cut short or invalid; a failed tick; a damaged \
                snapshot). Never stored by a cache without asking again (`Cache-Control: \
                no-cache`). A browser gets a page, also at `/publishing/`. Without `limit` or \
                `offset`, every record held back; with either, a page of them (`limit` 100 unless \
                given), `total_count` counting them all.",
            "parameters": parameters,
            "responses": responses("The report", json!({"application/json": {"schema": {
                "type": "object",
                "required": ["version", "checksum", "published_at", "total_count", "held", "fix"],
                "additionalProperties": false,
                "properties": {
                    "version": {"type": "integer", "minimum": 1},
                    "checksum": {"type": "string", "description": "The SHA-256 of the snapshot (hex)."},
                    "published_at": {"type": "string", "format": "date-time"},
                    "total_count": {"type": "integer", "minimum": 0, "description": "How many records are held back."},
                    "held": {"type": "array", "items": held},
                    "fix": {"type": "string", "description": "How a curator releases a record held back."},
                    "problems": {"type": "array", "description": "What stands in the way of publishing now, as the server and the sync writing its snapshot found it; empty when nothing does.",
                        "items": {"type": "object", "required": ["kind", "found_by", "since", "problem"], "additionalProperties": false,
                            "properties": {
                                "kind": {"type": "string", "enum": ["refused-dataset-file", "failed-tick", "damaged-snapshot"],
                                    "description": "The dataset file does not read or fails its checks (the description read last stands); the sync's last tick failed (nothing was written); the snapshot at the path does not read."},
                                "found_by": {"type": "string", "enum": ["serve", "sync"]},
                                "since": {"type": "string", "format": "date-time"},
                                "problem": {"type": "string", "description": "What is wrong, and what to do."},
                            }}},
                    "failed_ticks": {"type": "integer", "minimum": 0, "description": "Ticks of the sync writing the snapshot that failed since it started."},
                }}}}), false),
        }}),
    );
}

/// `/api/v2/versions/`.
pub fn versions(paths: &mut Paths, _: Option<usize>) {
    let counts = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    let version = json!({
        "type": "object",
        "required": ["version", "checksum", "published", "counts", "changes", "archive", "eml"],
        "properties": {
            "version": {"type": "integer", "minimum": 1},
            "checksum": {"type": "string", "description": "The SHA-256 of the snapshot that published it (hex)."},
            "published": {"type": "string", "format": "date-time"},
            "counts": counts,
            "changes": {"type": "object", "description": "Per list with a change: how many records were added, modified and deleted since the version before.",
                "additionalProperties": {"type": "object", "required": ["added", "modified", "deleted"],
                    "properties": {"added": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"}}}},
            "archive": {"type": ["string", "null"], "description": "The path of the archive the version published: `/versions/{version}/dwca.zip` where it is kept, `/dwca.zip` for the current version where its own is not kept (yet), null for an older one not kept."},
            "eml": {"type": ["string", "null"], "description": "The path of its metadata: `/versions/{version}/eml.xml`, `/eml.xml` or null, as `archive`."},
        },
    });
    let mut parameters = paging();
    parameters.push(query(
        "format",
        "`json` (a client that prefers HTML, or `format=html`, gets a page).",
        json!({"type": "string", "enum": ["json"]}),
    ));
    paths.insert(
        VERSIONS_PATH.into(),
        json!({"get": {
            "operationId": "versions",
            "summary": "The published versions, newest first",
            "description": "Every version the snapshot's history keeps (the last 1,000): its number, \
                checksum, publication time, counts per list and what changed in numbers. A browser \
                gets a page. Each links the archive and `eml.xml` it published where they are kept. \
                Follow new versions with `/versions.atom` or `/versions.rss`.",
            "parameters": parameters,
            "responses": responses("The versions", json!({"application/json": {"schema": {
                "type": "object", "required": ["meta", "items"],
                "properties": {
                    "meta": {"type": "object", "required": ["total_count"], "properties": {"total_count": {"type": "integer"}}},
                    "items": {"type": "array", "items": version},
                }}}}), false),
        }}),
    );
}

/// `/api/v2/changes/`.
pub fn changes(paths: &mut Paths, _: Option<usize>) {
    let mut parameters = vec![json!({"name": "since", "in": "query", "required": true,
    "description": "A version number (`3`), or an instant (`2026-11-01T00:00:00Z`, `2026-11-01`): \
        the newest version published at or before it.",
    "schema": {"anyOf": [
        {"type": "integer", "minimum": 1},
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time",
         "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?(Z|[+-]\\d{2}:\\d{2})$"},
    ]}})];
    parameters.extend(paging());
    paths.insert(
        CHANGES_PATH.into(),
        json!({"get": {
            "operationId": "changes",
            "summary": "The records added, modified and deleted since a version",
            "description": "Net changes after `since` up to the current version, per list in the \
                API's order, then added, modified, deleted, then by id: a record added and deleted \
                since is not listed, one deleted and added again is modified. A version older than \
                the history kept is 410, naming the oldest kept; an instant before version 1, every \
                version since kept, is every record added (`since` 0). A change of the dataset's \
                description is the item `{\"list\": \"dataset\", \"id\": 0, \"change\": \"modified\"}`. \
                A specimen record's item also names its `occurrenceID`, as the archive does (a \
                deleted one's as it was, where the version that deleted it kept its catalogue number).",
            "parameters": parameters,
            "responses": responses("The changes", json!({"application/json": {"schema": {
                "type": "object", "required": ["meta", "items"],
                "properties": {
                    "meta": {"type": "object", "required": ["total_count", "since", "version"], "properties": {
                        "total_count": {"type": "integer"}, "since": {"type": "integer"}, "version": {"type": "integer"}}},
                    "items": {"type": "array", "items": {"type": "object", "required": ["list", "id", "change"], "properties": {
                        "list": {"type": "string"}, "id": {"type": "integer"},
                        "occurrenceID": {"type": "string"},
                        "change": {"type": "string", "enum": ["added", "modified", "deleted"]}}}},
                }}}}), true),
        }}),
    );
}

/// `/versions.atom`.
pub fn feed(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        FEED_PATH.into(),
        json!({"get": {
            "operationId": "versionsFeed",
            "summary": "The versions as an Atom feed",
            "description": "One entry per version, newest first (the last 100): its time, counts and \
                what changed, linking the archive (`enclosure`) and `eml.xml` (`describedby`) it \
                published where they are kept (the current version's always).",
            "responses": responses("The feed", json!({"application/atom+xml": {"schema": {"type": "string"}}}), false),
        }}),
    );
}

/// `/versions.rss`.
pub fn rss(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        RSS_PATH.into(),
        json!({"get": {
            "operationId": "versionsRss",
            "summary": "The versions as RSS 2.0, in the form of GBIF's IPT feed",
            "description": "One item per version, newest first (the last 100), as the IPT writes \
                its RSS: titled `<dataset title> - Version N`, what changed as its description, \
                `pubDate`, and the IPT's `ipt:eml` and `ipt:dwca` (namespace \
                `http://ipt.gbif.org/`) naming the `eml.xml` and archive the version published \
                where they are kept (the current version's always).",
            "responses": responses("The feed", json!({"application/rss+xml": {"schema": {"type": "string"}}}), false),
        }}),
    );
}

/// A kept version's file: its path, what it is, its media type.
fn kept_file(paths: &mut Paths, path: &str, id: &str, what: &str, media: &str, etag: &str) {
    paths.insert(
        path.into(),
        json!({"get": {
            "operationId": id,
            "summary": format!("The {what} a version published, as it published it"),
            "description": format!("The {what} of version `version`, byte for byte as `/dwca.zip` and \
                `/eml.xml` served it while it was current (made by `catalogue build` or `sync` \
                when they published it, and kept beside the snapshot, `NAME.versions/N/`). A \
                version never published is a 404; one whose files are no longer kept (past \
                `--keep-versions`) a 410 naming the versions kept. Takes no parameters."),
            "parameters": [{
                "name": "version", "in": "path", "required": true,
                "description": "The version's number.",
                "schema": {"type": "string", "pattern": "^[0-9]+$"},
            }],
            "responses": {
                "200": {
                    "description": format!("The {what}"),
                    "headers": {
                        "ETag": {"description": etag, "schema": {"type": "string"}},
                        "Cache-Control": {"$ref": "#/components/headers/Cache-Control"},
                        "Last-Modified": {"$ref": "#/components/headers/Last-Modified"},
                        "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
                    },
                    "content": {media: {"schema": {"type": "string"}}},
                },
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "404": error_response("No such version: the message names the versions published."),
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
                "410": error_response("A version published whose files are no longer kept; the message names those kept."),
                "500": error_response("The kept file does not read as its manifest says."),
            },
        }}),
    );
}

/// `/versions/{version}/dwca.zip`.
pub fn kept_archive(paths: &mut Paths, _: Option<usize>) {
    let etag = "The archive's SHA-256 (first 16 bytes, hex), as `/dwca.zip` tags it.";
    kept_file(
        paths,
        KEPT_ARCHIVE_PATH,
        "keptDwca",
        "Darwin Core Archive",
        "application/zip",
        etag,
    );
}

/// `/versions/{version}/eml.xml`.
pub fn kept_eml(paths: &mut Paths, _: Option<usize>) {
    let etag = "The document's SHA-256 (first 16 bytes, hex), as `/eml.xml` tags it.";
    kept_file(
        paths,
        KEPT_EML_PATH,
        "keptEml",
        "metadata (EML)",
        "application/xml",
        etag,
    );
}

/// `/api/v2/citation/`.
pub fn citation(paths: &mut Paths, _: Option<usize>) {
    let text = json!({"schema": {"type": "string"}});
    let mut r = responses(
        "The citation",
        json!({
            "text/plain": text, "application/x-bibtex": text,
            "application/x-research-info-systems": text,
            "application/vnd.citationstyles.csl+json": {"schema": {"type": "array", "items": {"type": "object"}}},
            "application/vnd.datacite.datacite+xml": text,
        }),
        false,
    );
    r["404"] = error_response("A version the history does not hold.");
    paths.insert(
        CITATION_PATH.into(),
        json!({"get": {
            "operationId": "citation",
            "summary": "How to cite a version of the dataset",
            "description": "As GBIF writes a dataset's citation (`van der Berg J, Alvarez R M \
                (2026). Title. Version 3. Publisher. Occurrence dataset. https://doi.org/10.x/y \
                accessed via example.org on 2026-11-29.`): made from the dataset's description \
                (creators then metadata providers, else the publisher; title; publisher; the \
                version's DOI, else the dataset's; homepage) and the version (its number and \
                year), with the day it was accessed; the link is the DOI, else the homepage, else \
                this site. `datacite` is DataCite's metadata (schema 4.5) of the version, from \
                which a DOI can be minted.",
            "parameters": [
                query("format", "`text` (the default), `bibtex`, `ris`, `csl` (CSL-JSON) or \
                      `datacite` (DataCite's XML, schema 4.5).",
                      json!({"type": "string", "enum": ["text", "bibtex", "ris", "csl", "datacite"]})),
                query("version", "The version (the current one by default).",
                      json!({"type": "integer", "minimum": 1})),
                query("accessed", "The day the dataset was accessed, `YYYY-MM-DD` (today, in UTC, \
                      by default): the text's \"accessed via ... on\", BibTeX's `urldate`, RIS's \
                      `Y2`, CSL's `accessed`.",
                      json!({"type": "string", "format": "date"})),
            ],
            "responses": r,
        }}),
    );
}
