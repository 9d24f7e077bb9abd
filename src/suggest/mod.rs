//! Suggestions as one types (`/api/v2/suggest/?q=`): taxa, places, people and
//! specimens found by the start of any word of any of their names, by whole
//! words in any order, or within a typo or two, case and accents ignored;
//! and GBIF's suggestions (`gbif`: `species/suggest`, a term's values).
//!
//! `fold` is how text is compared, `index` the names' finite-state transducer
//! (whole and begun), `near` their trie walked for typos, `names` what typing
//! finds among names, `collection` the view's records as names (derived once
//! per view), `gbif` GBIF's shapes.

pub mod collection;
pub mod fold;
pub mod gbif;
pub mod index;
pub mod names;
pub mod near;

use crate::encoding::json::{write_int, write_str};
use crate::model::endpoint::API_PREFIX;
use crate::query::{ApiError, Params};
use crate::view::View;

pub use collection::{Kind, Suggestions};

pub use crate::model::endpoint::SUGGEST_PATH as PATH;

/// Suggestions given when `limit` says nothing, and at most.
pub const DEFAULT_LIMIT: usize = 10;
pub const MAX_LIMIT: usize = 50;

/// A request: what was typed, the kinds asked for (all when none), how many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuggestRequest {
    pub q: String,
    pub kinds: Vec<Kind>,
    pub limit: usize,
}

/// Reads `limit`: a whole number from 1 to `max`, `default` when absent.
pub fn limit(params: &Params, default: usize, max: usize) -> Result<usize, ApiError> {
    match params.get("limit") {
        None => Ok(default),
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "limit must be a whole number from 1 to {max}, not {raw:?}"
            ))),
        },
    }
}

/// Refuses any parameter not in `known`, naming those that are.
pub fn only(params: &Params, known: &[&str]) -> Result<(), ApiError> {
    match params.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some((k, _)) => Err(ApiError::bad_request(format!(
            "unknown parameter {k:?}: suggestions take {}",
            known.join(", ")
        ))),
    }
}

/// Reads `q`: required, since nothing typed suggests nothing.
pub fn typed(params: &Params) -> Result<String, ApiError> {
    params.get("q").map(str::to_owned).ok_or_else(|| {
        ApiError::bad_request("q is required: the text typed so far, such as q=danaus")
    })
}

impl SuggestRequest {
    /// Reads `q`, `kind` (repeated: any of them) and `limit`; `format` may
    /// only say `json`.
    pub fn parse(params: &Params) -> Result<SuggestRequest, ApiError> {
        only(params, &["q", "kind", "limit", "format", "_"])?;
        if let Some(f) = params.get("format").filter(|f| *f != "json") {
            return Err(ApiError::bad_request(format!(
                "format must be json, not {f:?}: suggestions are JSON only"
            )));
        }
        let mut kinds = Vec::new();
        for (_, value) in params.0.iter().filter(|(k, _)| k == "kind") {
            for v in value.split(',') {
                let kind = Kind::parse(v).ok_or_else(|| {
                    let names: Vec<&str> = Kind::ALL.iter().map(|(n, _)| *n).collect();
                    ApiError::bad_request(format!(
                        "kind must be one of {}, not {v:?}",
                        names.join(", ")
                    ))
                })?;
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
            }
        }
        Ok(SuggestRequest {
            q: typed(params)?,
            kinds,
            limit: limit(params, DEFAULT_LIMIT, MAX_LIMIT)?,
        })
    }
}

/// The answer: `{"items": [{"kind", "id", "label", "matched", "count", "url"}]}`.
pub fn json(view: &View, request: &SuggestRequest) -> Vec<u8> {
    let found = view
        .derived::<Suggestions>()
        .find(view, &request.q, &request.kinds, request.limit);
    let mut out = Vec::with_capacity(64 + 160 * found.len());
    out.extend_from_slice(b"{\"items\":[");
    for (i, s) in found.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let list = s.model.path();
        let id = view.table(s.model).id(s.pos);
        out.extend_from_slice(b"{\"kind\":");
        write_str(&mut out, list);
        out.extend_from_slice(b",\"id\":");
        write_int(&mut out, id);
        out.extend_from_slice(b",\"label\":");
        write_str(&mut out, s.label);
        out.extend_from_slice(b",\"matched\":");
        write_str(&mut out, s.matched);
        out.extend_from_slice(b",\"count\":");
        write_int(&mut out, s.count as i64);
        out.extend_from_slice(b",\"url\":");
        write_str(&mut out, &format!("{API_PREFIX}{list}/{id}/"));
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}
