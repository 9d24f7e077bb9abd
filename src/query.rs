//! Query strings: decoding them strictly, and answering a list or record request
//! from a view with paging and filters applied.

use bytes::Bytes;

use crate::filter;
use crate::http::Settings;
use crate::schema::{Endpoint, Model};
use crate::view::View;

/// An answer the API gives as an error: a status and a message for the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
        }
    }
}

/// The decoded parameters of a query string, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// The last value given for `name` (as Django's `QueryDict.get` answers).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The distinct names, in first-seen order.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (k, _) in &self.0 {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
        names
    }
}

/// Decodes an `application/x-www-form-urlencoded` query string, refusing invalid
/// percent-encoding and bytes that do not decode to UTF-8.
pub fn parse(raw: &str) -> Result<Params, ApiError> {
    let mut out = Vec::new();
    for part in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        out.push((decode(k)?, decode(v)?));
    }
    Ok(Params(out))
}

fn decode(s: &str) -> Result<String, ApiError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (
                    b.get(i + 1).and_then(|&c| hex(c)),
                    b.get(i + 2).and_then(|&c| hex(c)),
                ) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => {
                        return Err(ApiError::bad_request(format!(
                            "the query string has invalid percent-encoding: {:?}",
                            &s[i..(i + 3).min(s.len())]
                        )))
                    }
                }
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out)
        .map_err(|_| ApiError::bad_request("the query string does not decode to UTF-8"))
}

/// The operations every list accepts besides its fields.
pub const OPERATIONS: &[&str] = &["limit", "offset", "fields", "sort", "search", "format", "_"];

/// The default page size.
pub const DEFAULT_LIMIT: usize = 20;

fn non_negative(params: &Params, name: &str, default: usize) -> Result<usize, ApiError> {
    match params.get(name) {
        None => Ok(default),
        Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            // More digits than fit is still "everything".
            Ok(v.parse().unwrap_or(usize::MAX))
        }
        Some(_) => Err(ApiError::bad_request(format!(
            "{name} must be a positive integer"
        ))),
    }
}

/// A page of a list: the true total and the items' bytes, comma-separated.
#[derive(Debug)]
pub struct Page {
    pub total: usize,
    pub items: Bytes,
}

/// Answers a list request: checks parameters, filters, then cuts the page.
pub fn list(
    view: &View,
    endpoint: Endpoint,
    params: &Params,
    settings: &Settings,
) -> Result<Page, ApiError> {
    let model = endpoint.model;
    let filter = if model == Model::SpecimenRecord {
        filter::specimen(params)?
    } else {
        check_known(model, params)?;
        filter::fields(model, params)?
    };
    for op in ["sort", "search", "fields"] {
        if params.get(op).is_some_and(|v| !v.is_empty()) {
            return Err(ApiError::bad_request(format!(
                "{op} is not supported by this server yet"
            )));
        }
    }
    if let Some(format) = params.get("format") {
        if format != "json" {
            return Err(ApiError::bad_request(format!(
                "format must be json, not {format:?}"
            )));
        }
    }
    let limit = non_negative(params, "limit", settings.default_limit)?;
    if let Some(max) = settings.max_limit.filter(|&m| limit > m) {
        return Err(ApiError::bad_request(format!(
            "limit cannot be higher than {max}"
        )));
    }
    let offset = non_negative(params, "offset", 0)?;
    let list = view.list(endpoint);
    if filter.is_empty() {
        let total = list.len();
        let from = offset.min(total);
        let to = from.saturating_add(limit).min(total);
        return Ok(Page {
            total,
            items: list.run(from, to),
        });
    }
    let matches = filter::matching(view, model, &filter);
    let total = matches.len();
    let mut items = Vec::new();
    for (k, &pos) in matches.iter().skip(offset).take(limit).enumerate() {
        if k > 0 {
            items.push(b',');
        }
        items.extend_from_slice(list.item(pos));
    }
    Ok(Page {
        total,
        items: Bytes::from(items),
    })
}

/// Refuses parameters that are neither operations nor fields of the plain shape.
fn check_known(model: Model, params: &Params) -> Result<(), ApiError> {
    let mut unknown: Vec<&str> = params
        .names()
        .into_iter()
        .filter(|n| !OPERATIONS.contains(n) && model.field_index(n).is_none())
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    Err(ApiError::bad_request(format!(
        "query parameter is not an operation or a recognised field: {}",
        unknown.join(", ")
    )))
}

/// Answers a single-record request: the item as the endpoint's list shows it.
pub fn record(
    view: &View,
    endpoint: Endpoint,
    id: &str,
    params: &Params,
) -> Result<Bytes, ApiError> {
    let missing = || {
        ApiError::not_found(format!(
            "No {} matches the given query.",
            endpoint.model.class_name()
        ))
    };
    let id: i64 = id.parse().map_err(|_| missing())?;
    for op in ["fields"] {
        if params.get(op).is_some_and(|v| !v.is_empty()) {
            return Err(ApiError::bad_request(format!(
                "{op} is not supported by this server yet"
            )));
        }
    }
    view.item(endpoint, id).ok_or_else(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_form_encoding() {
        let p = parse("a=1&b=x+y&c=%C3%A9&d&&e=&a=2").unwrap();
        assert_eq!(p.get("a"), Some("2"));
        assert_eq!(p.get("b"), Some("x y"));
        assert_eq!(p.get("c"), Some("é"));
        assert_eq!(p.get("d"), Some(""));
        assert_eq!(p.get("e"), Some(""));
        assert_eq!(p.names(), vec!["a", "b", "c", "d", "e"]);
        assert_eq!(parse("").unwrap(), Params::default());
    }

    #[test]
    fn refuses_bad_encoding() {
        assert_eq!(parse("a=%zz").unwrap_err().status, 400);
        assert_eq!(parse("a=%4").unwrap_err().status, 400);
        assert_eq!(parse("a=%ff").unwrap_err().status, 400);
        assert_eq!(parse("a=%C3%A9%").unwrap_err().status, 400);
    }

    #[test]
    fn paging_numbers() {
        let p = |q: &str| non_negative(&parse(q).unwrap(), "limit", 20);
        assert_eq!(p(""), Ok(20));
        assert_eq!(p("limit=0"), Ok(0));
        assert_eq!(p("limit=007"), Ok(7));
        assert_eq!(p("limit=99999999999999999999999"), Ok(usize::MAX));
        for bad in [
            "limit=",
            "limit=-1",
            "limit=1.5",
            "limit=abc",
            "limit=+1",
            "limit=%201",
        ] {
            assert_eq!(
                p(bad).unwrap_err().message,
                "limit must be a positive integer",
                "{bad}"
            );
        }
    }
}
