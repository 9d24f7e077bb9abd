//! Query strings: decoding them strictly, and answering a list or record request
//! from a view with paging and filters applied.

use bytes::Bytes;

use std::cmp::Ordering;

use crate::facets;
use crate::fields::{self, Plan};
use crate::filter;
use crate::geojson;
use crate::http::Settings;
use crate::render::{self, Shape};
use crate::schema::{Endpoint, Model, Type};
use crate::view::{Value, View};

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
    percent_decode(s, true).map_err(|e| ApiError::bad_request(format!("the query string {e}")))
}

/// Decodes `%XX` escapes (and, in form encoding, `+` as a space), refusing an
/// escape that is not two hex digits and bytes that are not UTF-8. The error says
/// what is wrong: `has invalid percent-encoding: "%zz"`, `does not decode to UTF-8`.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' if plus_is_space => out.push(b' '),
            b'%' => {
                let hex = |c: u8| (c as char).to_digit(16);
                match (
                    b.get(i + 1).and_then(|&c| hex(c)),
                    b.get(i + 2).and_then(|&c| hex(c)),
                ) {
                    (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
                    _ => {
                        // Bytes, not a str slice: what follows `%` may be any character.
                        let bad = String::from_utf8_lossy(&b[i..(i + 3).min(b.len())]);
                        return Err(format!("has invalid percent-encoding: {bad:?}"));
                    }
                }
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| "does not decode to UTF-8".to_string())
}

/// The operations every list accepts besides its fields.
pub const OPERATIONS: &[&str] = &[
    "limit",
    "offset",
    "fields",
    "sort",
    "search",
    "format",
    "facet",
    "facet_size",
    "_",
];

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
    /// The page is the whole unfiltered list, so its body is the same for every
    /// request that gets it (and can be compressed once).
    pub whole: bool,
    /// More members of `meta` after `total_count` (`,"facets":{...}`), or empty.
    pub meta: Vec<u8>,
    /// What the items are: JSON items, or GeoJSON features.
    pub format: Format,
}

/// The representation a request asks for with `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    /// A FeatureCollection: only where [`geojson::supports`] the endpoint.
    GeoJson,
}

/// Answers a list request: checks parameters, filters, then cuts the page.
pub fn list(
    view: &View,
    endpoint: Endpoint,
    params: &Params,
    settings: &Settings,
) -> Result<Page, ApiError> {
    let model = endpoint.model;
    let shape = shape(endpoint);
    let mut filter = if model == Model::SpecimenRecord {
        filter::specimen(params)?
    } else {
        check_known(model, params)?;
        filter::fields(model, params)?
    };
    if let Some(terms) = params.get("search") {
        filter.search(terms)?;
    }
    let order = sort_keys(model, shape, params)?;
    let plan = plan(model, shape, params)?;
    let format = list_format(endpoint, params)?;
    let limit = non_negative(params, "limit", settings.default_limit)?;
    if let Some(max) = settings.max_limit.filter(|&m| limit > m) {
        return Err(ApiError::bad_request(format!(
            "limit cannot be higher than {max}"
        )));
    }
    let offset = non_negative(params, "offset", 0)?;
    let facet_fields = facets::parse(model, params)?;
    let facet_size = non_negative(params, "facet_size", facets::DEFAULT_SIZE)?;
    let list = view.list(endpoint);
    let geo = format == Format::GeoJson;
    if filter.is_empty() && order.is_empty() && plan.is_none() && !geo {
        // The fast path: one slice of the rendered list.
        let total = list.len();
        let from = offset.min(total);
        let to = from.saturating_add(limit).min(total);
        let meta = if facet_fields.is_empty() {
            Vec::new()
        } else {
            facets::render(view, model, &facet_fields, None, facet_size)
        };
        return Ok(Page {
            total,
            items: list.run(from, to),
            whole: from == 0 && to == total && meta.is_empty(),
            meta,
            format,
        });
    }
    // `meta` after `total_count`: what GeoJSON left out, then the facets.
    let mut meta = Vec::new();
    let without = |meta: &mut Vec<u8>, n: usize| {
        meta.extend_from_slice(b",\"without_coordinates\":");
        render::write_int(meta, n as i64);
    };
    let cut = |total: usize| {
        let from = offset.min(total);
        from..from.saturating_add(limit).min(total)
    };
    let (total, page, facets): (usize, Vec<usize>, Vec<u8>) =
        if filter.is_empty() && order.is_empty() {
            // No filter, no sort: the page is a run of every record's positions, or
            // (GeoJSON) of those with a point, which the view knows from load time.
            let facets = if facet_fields.is_empty() {
                Vec::new()
            } else {
                facets::render(view, model, &facet_fields, None, facet_size)
            };
            if geo {
                let located = view.points.located(model);
                without(&mut meta, list.len() - located.len());
                (located.len(), located[cut(located.len())].to_vec(), facets)
            } else {
                (list.len(), cut(list.len()).collect(), facets)
            }
        } else {
            let mut positions = if filter.is_empty() {
                (0..list.len()).collect()
            } else {
                filter::matching(view, model, shape, &filter)
            };
            let facets = if facet_fields.is_empty() {
                Vec::new()
            } else {
                let counted = (!filter.is_empty()).then_some(&positions[..]);
                facets::render(view, model, &facet_fields, counted, facet_size)
            };
            if geo {
                // Only records with a point are features; the others are counted.
                let before = positions.len();
                positions.retain(|&p| view.points.get(model, p).is_some());
                without(&mut meta, before - positions.len());
            }
            let total = positions.len();
            sort(
                view,
                model,
                &order,
                &mut positions,
                offset.saturating_add(limit),
            );
            (
                total,
                positions.into_iter().skip(offset).take(limit).collect(),
                facets,
            )
        };
    meta.extend_from_slice(&facets);
    let mut items = Vec::new();
    let mut projected = Vec::new();
    for (k, &pos) in page.iter().enumerate() {
        if k > 0 {
            items.push(b',');
        }
        let item = match &plan {
            Some(plan) => {
                projected.clear();
                render::write_item(&mut projected, view, model, pos, shape, Some(plan));
                &projected[..]
            }
            None => list.item(pos),
        };
        match view.points.get(model, pos).filter(|_| geo) {
            Some(point) => {
                let id = view.table(model).id(pos as u32);
                geojson::write_feature(&mut items, id, point, item);
            }
            None => items.extend_from_slice(item),
        }
    }
    Ok(Page {
        total,
        items: Bytes::from(items),
        whole: false,
        meta,
        format,
    })
}

pub fn shape(endpoint: Endpoint) -> Shape {
    if endpoint.nested {
        Shape::Nested
    } else {
        Shape::Plain
    }
}

/// The `format` of a list request: `json`, or `geojson` where records have points.
fn list_format(endpoint: Endpoint, params: &Params) -> Result<Format, ApiError> {
    match params.get("format") {
        None | Some("json") => Ok(Format::Json),
        Some("geojson") if geojson::supports(endpoint) => Ok(Format::GeoJson),
        Some("geojson") => Err(ApiError::bad_request(
            "format=geojson is only for gps-coordinates, nested-gps-coordinates and specimen-records",
        )),
        Some(other) => Err(ApiError::bad_request(format!(
            "format must be json or geojson, not {other:?}"
        ))),
    }
}

/// The `format` of a record request: only `json`.
fn check_format(params: &Params) -> Result<(), ApiError> {
    match params.get("format") {
        None | Some("json") => Ok(()),
        Some("geojson") => Err(ApiError::bad_request(
            "format=geojson is for lists, not single records",
        )),
        Some(other) => Err(ApiError::bad_request(format!(
            "format must be json, not {other:?}"
        ))),
    }
}

/// The `fields` plan of a request, or `None` when it keeps every field whole.
fn plan(model: Model, shape: Shape, params: &Params) -> Result<Option<Plan>, ApiError> {
    match params.get("fields").filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => {
            let plan = Plan::new(model, shape, &fields::parse(v)?)?;
            Ok((!plan.is_everything(model)).then_some(plan))
        }
    }
}

/// Whether `sort` takes a field of this type: scalars, and parent ids where the
/// shape shows them as ids.
pub fn sortable(ty: Type, shape: Shape) -> bool {
    match ty {
        Type::Int | Type::Bool | Type::Str | Type::Time | Type::Date => true,
        Type::Parent(_) => shape == Shape::Plain,
        Type::Embed(_) | Type::EmbedMany(_) | Type::Taxon => false,
    }
}

/// `sort=f1,-f2`: field positions, descending or not.
fn sort_keys(model: Model, shape: Shape, params: &Params) -> Result<Vec<(usize, bool)>, ApiError> {
    let Some(value) = params.get("sort").filter(|v| !v.is_empty()) else {
        return Ok(Vec::new());
    };
    value
        .split(',')
        .map(|key| {
            let (name, descending) = match key.strip_prefix('-') {
                Some(name) => (name, true),
                None => (key, false),
            };
            let index = model.field_index(name).ok_or_else(|| {
                ApiError::bad_request(format!("cannot order by '{name}' (unknown field)"))
            })?;
            if !sortable(model.fields()[index].ty, shape) {
                return Err(ApiError::bad_request(format!(
                    "cannot order by '{name}' (not a scalar field)"
                )));
            }
            Ok((index, descending))
        })
        .collect()
}

/// Sorts positions by the keys: strings by code point, numbers numerically, nulls
/// last in both directions; ties stay in ascending id order. Only the first `need`
/// positions are wanted: past them the list is cut short, unsorted.
fn sort(
    view: &View,
    model: Model,
    keys: &[(usize, bool)],
    positions: &mut Vec<usize>,
    need: usize,
) {
    if keys.is_empty() {
        return;
    }
    let table = view.table(model);
    let cmp = |a: &Value, b: &Value| -> Ordering {
        match (a, b) {
            (Value::Int(x), Value::Int(y)) => x.cmp(y),
            (Value::Str(x), Value::Str(y)) => x.cmp(y),
            (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
            (Value::Time(x), Value::Time(y)) => x.cmp(y),
            (Value::Ref(m, x), Value::Ref(_, y)) => {
                view.table(*m).id(*x).cmp(&view.table(*m).id(*y))
            }
            _ => Ordering::Equal,
        }
    };
    // Positions are distinct and ascending by id, so the last key makes the order
    // total: selecting the first `need` and sorting them is the stable sort's prefix.
    let order = |&p: &usize, &q: &usize| {
        let (rp, rq) = (&table.rows[p], &table.rows[q]);
        keys.iter()
            .map(|&(f, descending)| match (&rp[f], &rq[f]) {
                (Value::Null, Value::Null) => Ordering::Equal,
                (Value::Null, _) => Ordering::Greater,
                (_, Value::Null) => Ordering::Less,
                (a, b) if descending => cmp(a, b).reverse(),
                (a, b) => cmp(a, b),
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| p.cmp(&q))
    };
    if need == 0 {
        positions.clear();
        return;
    }
    if need < positions.len() {
        positions.select_nth_unstable_by(need - 1, order);
        positions.truncate(need);
    }
    positions.sort_unstable_by(order);
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
    let model = endpoint.model;
    let missing = || {
        ApiError::not_found(format!(
            "No {} matches the given query.",
            model.class_name()
        ))
    };
    let plan = plan(model, shape(endpoint), params)?;
    check_format(params)?;
    let pos = id
        .parse::<i64>()
        .ok()
        .and_then(|id| view.table(model).position(id))
        .ok_or_else(missing)?;
    Ok(match plan {
        None => view.list(endpoint).item_bytes(pos as usize),
        Some(plan) => {
            let mut out = Vec::new();
            render::write_item(
                &mut out,
                view,
                model,
                pos as usize,
                shape(endpoint),
                Some(&plan),
            );
            Bytes::from(out)
        }
    })
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
        // Found by the fuzz test: `%` followed by a multi-byte character.
        assert_eq!(parse("a=%é").unwrap_err().status, 400);
        assert_eq!(parse("%\u{1F600}x").unwrap_err().status, 400);
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
