//! Wagtail's own `pages` and `documents` operations of the OpenAPI document
//! (`wagtail`), beside the image endpoint's.

use serde_json::{json, Map, Value};

use crate::query::filter::MAX_TERMS;
use crate::wagtail::{DOCUMENTS_PATH, PAGES_PATH};

use super::openapi_parts::{busy_response, int64, query, responses, search_pattern, Paths};

/// The fields a page item may show, in the order Wagtail writes them.
const PAGE_FIELDS: &[&str] = &[
    // `parent` is a single page's only: the listing's fields are the others.
    "id",
    "type",
    "detail_url",
    "html_url",
    "slug",
    "show_in_menus",
    "seo_title",
    "search_description",
    "first_published_at",
    "alias_of",
    "parent",
    "locale",
    "title",
];
const DOCUMENT_FIELDS: &[&str] = &["id", "type", "detail_url", "tags", "download_url", "title"];

/// A page id, or `root` (the site's root page) where `root` is allowed.
fn page_id(root: bool) -> Value {
    let pattern = if root {
        "^(root|[0-9]{1,18})$"
    } else {
        "^[0-9]{1,18}$"
    };
    json!({"type": "string", "pattern": pattern})
}

/// `fields`, in Wagtail's syntax, over `names`.
fn fields(names: &[&str], default: &str) -> Value {
    let name = names.join("|");
    query(
        "fields",
        &format!(
            "Which fields items show, in Wagtail's syntax: {default}; `name` adds, `-name` \
             removes, `*` first starts from every field, `_` first from none."
        ),
        json!({"type": "string", "pattern": format!("^(\\*(,-({name}))*|_(,({name}))*|-?({name})(,-?({name}))*)?$")}),
    )
}

fn paging() -> [Value; 2] {
    [
        query(
            "limit",
            "Items per page (default 20; no largest, as the service sets none).",
            json!({"type": "integer", "minimum": 0}),
        ),
        query(
            "offset",
            "Items to skip.",
            json!({"type": "integer", "minimum": 0}),
        ),
    ]
}

fn search(what: &str) -> [Value; 2] {
    [
        query(
            "search",
            &format!(
                "Whitespace-separated terms (at most {MAX_TERMS}), each a whole word (or words joined by punctuation) \
                 of the {what}, case and accents ignored. Without `order`, the best first."
            ),
            json!({"type": "string", "pattern": search_pattern()}),
        ),
        query(
            "search_operator",
            "`and` (the default): every term; `or`: any one.",
            json!({"type": "string", "enum": ["and", "or"]}),
        ),
    ]
}

fn format() -> Value {
    query(
        "format",
        "The response format: only `json`.",
        json!({"type": "string", "enum": ["json"]}),
    )
}

fn ignored() -> Value {
    query(
        "_",
        "Ignored (a cache-buster some clients send).",
        json!({"type": "string"}),
    )
}

fn list_responses(name: &str) -> Value {
    let mut r = responses(name, true);
    r["404"] = json!({"$ref": "#/components/responses/NotFound"});
    r["503"] = busy_response();
    r
}

/// Wagtail's pages list.
pub fn pages(paths: &mut Paths, _: Option<usize>) {
    let columns = "id|title|slug|show_in_menus|seo_title|search_description|first_published_at|alias_of|locale";
    let order = format!("^(-?({columns})(,-?({columns}))*|random)?$");
    let listed: Vec<&str> = PAGE_FIELDS
        .iter()
        .copied()
        .filter(|f| *f != "parent")
        .collect();
    let mut parameters: Vec<Value> = paging().into();
    parameters.extend([
        fields(&listed, "by default `id`, `type`, `detail_url`, `html_url`, `slug`, `first_published_at` and `title`"),
        query("order", "Fields to order by, comma-separated (`-` for descending), or `random` (without `offset`). Without it, tree order.",
            json!({"type": "string", "pattern": order})),
    ]);
    parameters.extend(search("title"));
    parameters.extend([
        format(),
        ignored(),
        query("type", "Comma-separated page models (`pages.SpeciesPage`; `wagtailcore.Page` is every page). A model with no page here is a 400.",
            json!({"type": "string", "pattern": "^[a-z_]+\\.[A-Za-z_]+(,[a-z_]+\\.[A-Za-z_]+)*$"})),
        query("child_of", "The children of this page (`root`: the site's root page). A page that is not served is a 400.", page_id(true)),
        query("descendant_of", "The pages beneath this one (`root`: the site's root page); not with `child_of`. A page that is not served is a 400.", page_id(true)),
        query("ancestor_of", "The pages above this one. A page that is not served is a 400.", page_id(false)),
        query("translation_of", "The other translations of this page. A page that is not served is a 400.", page_id(true)),
        query("locale", "Pages in this locale (a language code). A locale the collection does not have is a 404.",
            json!({"type": "string", "pattern": "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$"})),
        query("site", "The site whose pages are listed: its hostname, or `hostname:port`. One that is none of the collection's sites is a 400.",
            json!({"type": "string", "pattern": "^[A-Za-z0-9.-]+(:[0-9]{1,5})?$"})),
        query("id", "The page with this id.", int64()),
        query("title", "Pages whose title is exactly this.", json!({"type": "string"})),
        query("slug", "Pages whose slug is exactly this.", json!({"type": "string"})),
        query("show_in_menus", "Pages shown in menus, or not (`true`, `false`, `1`, `0`).",
            json!({"type": "string", "enum": ["true", "false", "1", "0"]})),
        query("seo_title", "Pages whose SEO title is exactly this.", json!({"type": "string"})),
        query("search_description", "Pages whose search description is exactly this.", json!({"type": "string"})),
        query("first_published_at", "Pages first published at this instant.", json!({"type": "string", "format": "date-time"})),
        query("alias_of", "The aliases of this page.", int64()),
    ]);
    paths.insert(
        PAGES_PATH.into(),
        json!({"get": {
            "operationId": "list-pages",
            "summary": "The live pages under the site's root, as Wagtail's own pages endpoint lists them",
            "description": "Wagtail's `PagesAPIViewSet` as the service registers it: in tree order, \
                with the site's root URL in `detail_url` and `html_url` (not the request's host).",
            "tags": ["pages"],
            "parameters": parameters,
            "responses": list_responses("WagtailPage"),
        }}),
    );
}

/// One of Wagtail's pages.
pub fn page(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        format!("{PAGES_PATH}{{id}}/"),
        json!({"get": {
            "operationId": "get-wagtail-page",
            "summary": "One live page under the site's root, with its parent",
            "tags": ["pages"],
            "parameters": [
                {"name": "id", "in": "path", "required": true,
                 "description": "The page's id. An id that is not an integer, or names no served page, is a 404.",
                 "schema": {"type": "string"}},
                fields(PAGE_FIELDS, "by default every field but `locale`"),
                format(),
            ],
            "responses": responses("WagtailPage", false),
        }}),
    );
}

/// Where a page's item is.
pub fn find(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        format!("{PAGES_PATH}find/"),
        json!({"get": {
            "operationId": "find-page",
            "summary": "Where a page's item is: a redirect to it, by the page's path on the site or its id",
            "tags": ["pages"],
            "parameters": [
                query("html_path", "The page's path on the site (`/`, `/danaus-plexippus/`).", json!({"type": "string"})),
                query("id", "The page's id (when `html_path` is not given).", json!({"type": "integer", "minimum": 0})),
            ],
            "responses": {
                "302": {"description": "The page's item (the request's other parameters kept)",
                        "headers": {"Location": {"schema": {"type": "string", "format": "uri"}}},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "404": {"$ref": "#/components/responses/NotFound"},
                "405": {"$ref": "#/components/responses/MethodNotAllowed"},
                "503": busy_response(),
            },
        }}),
    );
}

/// Wagtail's documents list.
pub fn documents(paths: &mut Paths, _: Option<usize>) {
    let mut parameters: Vec<Value> = paging().into();
    parameters.extend([
        fields(DOCUMENT_FIELDS, "by default every field"),
        query("order", "Fields to order by (`-` for descending), or `random` (without `offset`). Without it, by id.",
            json!({"type": "string", "pattern": "^(-?(id|title)(,-?(id|title))*|random)?$"})),
    ]);
    parameters.extend(search("title or a tag"));
    parameters.extend([
        format(),
        ignored(),
        query("id", "The document with this id.", int64()),
        query(
            "title",
            "Documents whose title is exactly this.",
            json!({"type": "string"}),
        ),
        query(
            "tags",
            "Comma-separated tag names: documents with every one of them (not with `search`).",
            json!({"type": "string"}),
        ),
    ]);
    paths.insert(
        DOCUMENTS_PATH.into(),
        json!({"get": {
            "operationId": "list-documents",
            "summary": "Every document, as Wagtail's own documents endpoint lists them",
            "tags": ["documents"],
            "parameters": parameters,
            "responses": list_responses("WagtailDocument"),
        }}),
    );
}

/// One of Wagtail's documents.
pub fn document(paths: &mut Paths, _: Option<usize>) {
    paths.insert(
        format!("{DOCUMENTS_PATH}{{id}}/"),
        json!({"get": {
            "operationId": "get-wagtail-document",
            "summary": "One document",
            "tags": ["documents"],
            "parameters": [
                {"name": "id", "in": "path", "required": true,
                 "description": "The document's id. An id that is not an integer, or names no document, is a 404.",
                 "schema": {"type": "string"}},
                fields(DOCUMENT_FIELDS, "by default every field"),
                format(),
            ],
            "responses": responses("WagtailDocument", false),
        }}),
    );
}

/// A page nested in another's item (`parent`, `alias_of`).
fn related_page() -> Value {
    json!({"anyOf": [{"type": "null"}, {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "meta": {"type": "object", "properties": {
                "type": {"type": "string"},
                "detail_url": {"type": "string", "format": "uri"},
                "html_url": {"type": ["string", "null"]},
            }, "additionalProperties": false},
            "title": {"type": "string"},
        },
        "required": ["id", "meta", "title"],
        "additionalProperties": false,
    }]})
}

fn list_of(item: &str) -> Value {
    json!({
        "type": "object",
        "properties": {
            "meta": {"$ref": "#/components/schemas/ListMeta"},
            "items": {"type": "array", "items": {"$ref": format!("#/components/schemas/{item}")}},
        },
        "required": ["meta", "items"],
        "additionalProperties": false,
    })
}

/// Adds the item schemas.
pub fn schemas(schemas: &mut Map<String, Value>) {
    schemas.insert(
        "WagtailPage".into(),
        json!({
            "type": "object",
            "description": "A page: the fields `fields` chose, `id` and `title` beside `meta`.",
            "properties": {
                "id": {"type": "integer"},
                "meta": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "description": "The page's model: `pages.SpeciesPage`."},
                        "detail_url": {"type": "string", "format": "uri"},
                        "html_url": {"type": ["string", "null"], "description": "The page on its site, non-ASCII percent-encoded."},
                        "slug": {"type": "string"},
                        "show_in_menus": {"type": "boolean"},
                        "seo_title": {"type": "string"},
                        "search_description": {"type": "string"},
                        "first_published_at": {"type": ["string", "null"], "format": "date-time"},
                        "alias_of": related_page(),
                        "parent": related_page(),
                        "locale": {"type": ["string", "null"]},
                    },
                    "additionalProperties": false,
                },
                "title": {"type": "string"},
            },
            "additionalProperties": false,
        }),
    );
    schemas.insert("WagtailPageList".into(), list_of("WagtailPage"));
    schemas.insert(
        "WagtailDocument".into(),
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "meta": {
                    "type": "object",
                    "properties": {
                        "type": {"const": "wagtaildocs.Document"},
                        "detail_url": {"type": "string", "format": "uri"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "download_url": {"type": "string", "format": "uri",
                            "description": "The file as the Wagtail site serves it: `/documents/<id>/<file name>`."},
                    },
                    "additionalProperties": false,
                },
                "title": {"type": "string"},
            },
            "additionalProperties": false,
        }),
    );
    schemas.insert("WagtailDocumentList".into(), list_of("WagtailDocument"));
}
