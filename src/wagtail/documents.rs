//! Wagtail's `documents` endpoint: `/api/v2/documents/` and
//! `/api/v2/documents/<id>/`, with the parameters and errors of Wagtail's
//! `DocumentsAPIViewSet`: filters by `id`, `title` and `tags` (every tag
//! named), `order` by `id` or `title`, `search` in titles and tags.

use crate::encoding::json::{write_int, write_str};
use crate::encoding::percent::uri_encode;
use crate::model::wagtail::Document;
use crate::query::{ApiError, Params};

use super::fields::{self, Field};
use super::listing::{self, check_known, Order, OPERATIONS};
use super::search::{words, Search};
use super::tree::Tree;

const fn field(name: &'static str, meta: bool) -> Field {
    Field {
        name,
        meta,
        listed: true,
        detailed: true,
        detail_only: false,
    }
}

/// A document item's fields, in the order Wagtail writes them.
const FIELDS: &[Field] = &[
    field("id", false),
    field("type", true),
    field("detail_url", true),
    field("tags", true),
    field("download_url", true),
    field("title", false),
];

/// The fields a listing filters by.
const FILTERS: &[&str] = &["id", "title", "tags"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Id,
    Title,
}

fn column(name: &str) -> Option<Column> {
    match name {
        "id" => Some(Column::Id),
        "title" => Some(Column::Title),
        _ => None,
    }
}

/// `/api/v2/documents/`: the listing, or the error Wagtail gives first.
pub fn list(params: &Params, documents: &[Document], tree: &Tree) -> Result<Vec<u8>, ApiError> {
    check_known(params, &[OPERATIONS, FILTERS])?;
    listing::check_format(params)?;
    let id = match params.get("id") {
        None => None,
        Some(v) => Some(v.trim().parse::<i64>().map_err(|_| {
            ApiError::bad_request(format!(
                "field filter error. '{v}' is not a valid value for id (invalid literal for \
                 int() with base 10: '{v}')"
            ))
        })?),
    };
    let title = params.get("title");
    let tags: Option<Vec<&str>> = params.get("tags").map(|t| t.split(',').collect());
    let order = listing::order(params, column)?;
    let search = Search::parse(params)?;
    if search.is_some() && tags.is_some() {
        return Err(ApiError::bad_request(
            "filtering by tag with a search query is not supported",
        ));
    }
    let (offset, limit) = listing::paging(params)?;
    let chosen = fields::select(FIELDS, params.get("fields"), false)?;

    let mut found: Vec<(&Document, usize)> = documents
        .iter()
        .filter(|d| id.is_none_or(|id| d.id == id))
        .filter(|d| title.is_none_or(|t| d.title == t))
        .filter(|d| {
            (tags.as_ref()).is_none_or(|tags| tags.iter().all(|t| d.tags.iter().any(|x| x == t)))
        })
        .filter_map(|d| match &search {
            None => Some((d, 0)),
            Some(s) => {
                let mut text = words(&d.title);
                d.tags.iter().for_each(|t| text.extend(words(t)));
                s.matched(&text).map(|m| (d, m))
            }
        })
        .collect();
    match (&order, &search) {
        (Order::Default, Some(_)) => found.sort_by(|(a, ma), (b, mb)| {
            (mb.cmp(ma))
                .then(a.title.len().cmp(&b.title.len()))
                .then(b.id.cmp(&a.id))
        }),
        (Order::Default, None) => {}
        (Order::Random, _) => listing::shuffle(&mut found, listing::seed()),
        (Order::By(keys), _) => found.sort_by(|(a, _), (b, _)| {
            keys.iter()
                .map(|k| {
                    let o = match k.field {
                        Column::Id => a.id.cmp(&b.id),
                        Column::Title => a.title.cmp(&b.title),
                    };
                    if k.descending {
                        o.reverse()
                    } else {
                        o
                    }
                })
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        }),
    }
    let page: Vec<&Document> = (found.iter().map(|(d, _)| *d))
        .skip(offset)
        .take(limit)
        .collect();
    Ok(listing::envelope(found.len(), &page, |out, d| {
        write_document(out, d, &chosen, &tree.base_url)
    }))
}

/// `/api/v2/documents/<id>/`.
pub fn detail(
    id: &str,
    params: &Params,
    documents: &[Document],
    tree: &Tree,
) -> Result<Vec<u8>, ApiError> {
    let document = (id.bytes().all(|b| b.is_ascii_digit()))
        .then(|| id.parse::<i64>().ok())
        .flatten()
        .and_then(|id| documents.binary_search_by_key(&id, |d| d.id).ok())
        .map(|i| &documents[i])
        .ok_or_else(|| ApiError::not_found("No Document matches the given query."))?;
    listing::check_format(params)?;
    let chosen = fields::select(FIELDS, params.get("fields"), true)?;
    let mut out = Vec::with_capacity(256);
    write_document(&mut out, document, &chosen, &tree.base_url);
    Ok(out)
}

fn write_document(out: &mut Vec<u8>, d: &Document, fields: &[&Field], base: &str) {
    let has = |name| fields.iter().any(|f| f.name == name);
    let mut parts: Vec<Vec<u8>> = Vec::new();
    if has("id") {
        let mut part = b"\"id\":".to_vec();
        write_int(&mut part, d.id);
        parts.push(part);
    }
    let meta: Vec<Vec<u8>> = (fields.iter().filter(|f| f.meta))
        .map(|f| {
            let mut part = Vec::new();
            write_str(&mut part, f.name);
            part.push(b':');
            match f.name {
                "type" => write_str(&mut part, "wagtaildocs.Document"),
                "detail_url" => write_str(&mut part, &format!("{base}/api/v2/documents/{}/", d.id)),
                "tags" => {
                    part.push(b'[');
                    for (i, tag) in d.tags.iter().enumerate() {
                        if i > 0 {
                            part.push(b',');
                        }
                        write_str(&mut part, tag);
                    }
                    part.push(b']');
                }
                "download_url" => {
                    let name = d.file.rsplit('/').next().unwrap_or_default();
                    let mut url = format!("{base}/documents/{}/", d.id);
                    uri_encode(&mut url, name);
                    write_str(&mut part, &url);
                }
                other => unreachable!("a document field without a writer: {other}"),
            }
            part
        })
        .collect();
    if !meta.is_empty() {
        let mut part = b"\"meta\":{".to_vec();
        part.extend_from_slice(&meta.join(&b',')[..]);
        part.push(b'}');
        parts.push(part);
    }
    if has("title") {
        let mut part = b"\"title\":".to_vec();
        write_str(&mut part, &d.title);
        parts.push(part);
    }
    out.push(b'{');
    out.extend_from_slice(&parts.join(&b',')[..]);
    out.push(b'}');
}
