//! Wagtail's own image endpoint, `/api/v2/images/`, through which the service
//! lists every image since 0.16: its parameters read as Wagtail's
//! `ImagesAPIViewSet` reads them (`fields`, a filter per column, `order`,
//! `search`, paging), then run against the view's images.

use bytes::Bytes;

use crate::model::image_api::{ImageField, ImageFields};
use crate::model::Model;
use crate::view::View;

use super::cost::Cost;
use super::error::ApiError;
use super::filter::MAX_TERMS;
use super::params::Params;
use super::plan::{check_record_format, count, search_any, Format, Limits, Page};
use super::projection::{self, Spec};

/// The operations Wagtail's endpoints take besides their fields.
pub const OPERATIONS: &[&str] = &[
    "limit",
    "offset",
    "fields",
    "order",
    "search",
    "search_operator",
    "format",
    "_",
];

/// How the images are ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Order {
    /// By id, as Wagtail lists them without `order`.
    Id,
    /// By a column, descending when `true`; ties by id.
    By(ImageField, bool),
    Random,
}

/// A filter on one column: `?title=...`, `?width=...`, `?tags=a,b` (every tag).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cond {
    Int(ImageField, i64),
    Title(String),
    Tags(Vec<String>),
}

/// A request of the image list, parsed and checked.
#[derive(Clone, Debug)]
pub struct ImagesPlan {
    fields: ImageFields,
    conds: Vec<Cond>,
    /// Lowercased search terms, and whether any one of them is enough.
    search: Option<(Vec<String>, bool)>,
    order: Order,
    limit: usize,
    offset: usize,
}

impl ImagesPlan {
    /// Parses a list request; every error a request can have is found here.
    pub fn parse(params: &Params, limits: &Limits) -> Result<ImagesPlan, ApiError> {
        let mut unknown: Vec<&str> = params
            .names()
            .into_iter()
            .filter(|n| {
                !OPERATIONS.contains(n)
                    && !ImageField::from_name(n).is_some_and(ImageField::filters)
            })
            .collect();
        if !unknown.is_empty() {
            unknown.sort_unstable();
            return Err(ApiError::bad_request(format!(
                "query parameter is not an operation or a recognised field: {}",
                unknown.join(", ")
            )));
        }
        let fields = fields(params, ImageFields::LISTING)?;
        check_record_format(params)?;
        let mut conds = Vec::new();
        for field in ImageField::ALL.into_iter().filter(|f| f.filters()) {
            let Some(value) = params.get(field.name()) else {
                continue;
            };
            conds.push(match field {
                ImageField::Title => Cond::Title(value.to_string()),
                ImageField::Tags => Cond::Tags(value.split(',').map(str::to_string).collect()),
                _ => Cond::Int(
                    field,
                    value.trim().parse().map_err(|_| {
                        ApiError::bad_request(format!(
                            "field filter error. {value:?} is not a valid value for {} \
                             (expected an integer)",
                            field.name()
                        ))
                    })?,
                ),
            });
        }
        // Wagtail refuses a search with a tag filter, and a random order with an
        // offset; both are answered here (the service's contract is only that
        // what it answers is answered alike).
        let any = search_any(params)?;
        let search = match params.get("search") {
            Some(terms) => {
                let terms: Vec<String> = terms.split_whitespace().map(str::to_lowercase).collect();
                if terms.len() > MAX_TERMS {
                    return Err(ApiError::bad_request(format!(
                        "search takes at most {MAX_TERMS} terms, not {}",
                        terms.len()
                    )));
                }
                Some((terms, any))
            }
            None => None,
        };
        let order = match params.get("order") {
            None => Order::Id,
            Some("random") => Order::Random,
            Some(name) => {
                let (desc, name) = match name.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, name),
                };
                match ImageField::from_name(name).filter(|f| f.sorts()) {
                    Some(field) => Order::By(field, desc),
                    None => {
                        return Err(ApiError::bad_request(format!(
                            "cannot order by {name:?} (unknown field)"
                        )))
                    }
                }
            }
        };
        let limit = count(params, "limit", limits.default_limit)?;
        if let Some(max) = limits.max_limit.filter(|&m| limit > m) {
            return Err(ApiError::bad_request(format!(
                "limit cannot be higher than {max}"
            )));
        }
        let offset = count(params, "offset", 0)?;
        Ok(ImagesPlan {
            fields,
            conds,
            search,
            order,
            limit,
            offset,
        })
    }

    /// What answering costs: a slice where the answer is a run of the images
    /// rendered once (default fields, every image, by id); anything else is
    /// written per request, as work.
    pub fn cost(&self) -> Cost {
        let run = self.conds.is_empty()
            && self.search.is_none()
            && matches!(self.order, Order::Id | Order::By(ImageField::Id, false));
        Cost::of(run, self.fields == ImageFields::LISTING, false)
    }

    /// Whether the same request always gets the same answer (not `order=random`).
    pub fn cacheable(&self) -> bool {
        self.order != Order::Random
    }

    /// Answers the request from a view.
    pub fn run(&self, view: &View) -> Page {
        let listing = view.images.listing();
        let (total, items) = if self.cost() == Cost::Slice {
            let total = listing.len();
            let from = self.offset.min(total);
            let to = from.saturating_add(self.limit).min(total);
            (total, listing.run(from, to))
        } else {
            let positions = self.select(view);
            let total = positions.len();
            let page = positions.iter().skip(self.offset).take(self.limit);
            let table = view.table(Model::Image);
            let mut out = Vec::new();
            for (i, &pos) in page.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                view.images.write(&mut out, table, pos, self.fields);
            }
            (total, Bytes::from(out).into())
        };
        Page {
            total,
            items,
            whole: false,
            meta: Vec::new(),
            format: Format::Json,
            shuffled: !self.cacheable(),
            media: true,
            remade: None,
        }
    }

    /// The positions of the images that match, in the order asked for.
    fn select(&self, view: &View) -> Vec<usize> {
        let table = view.table(Model::Image);
        let column = |f: ImageField| Model::Image.field_index(f.name()).expect("an image column");
        let tags = |pos: usize| view.images.tags(pos);
        let matches = |pos: usize| {
            let title = table.get(pos, column(ImageField::Title));
            let title = title.as_str().unwrap_or_default();
            let conds = self.conds.iter().all(|c| match c {
                Cond::Int(ImageField::Id, n) => table.id(pos as u32) == *n,
                Cond::Int(f, n) => table.get(pos, column(*f)).as_int() == Some(*n),
                Cond::Title(t) => title == t,
                Cond::Tags(wanted) => wanted.iter().all(|w| tags(pos).iter().any(|t| **t == **w)),
            });
            let found = |term: &String| {
                view.images
                    .searched(pos)
                    .iter()
                    .any(|s| s.contains(term.as_str()))
            };
            let searched = match &self.search {
                None => true,
                Some((terms, true)) => terms.iter().any(found),
                Some((terms, false)) => terms.iter().all(found),
            };
            conds && searched
        };
        let mut positions: Vec<usize> = (0..table.len()).filter(|&p| matches(p)).collect();
        match self.order {
            Order::Id => {}
            Order::Random => {
                let random = ahash::RandomState::new();
                positions.sort_by_cached_key(|p| random.hash_one(p));
            }
            Order::By(field, desc) => {
                let key = |&p: &usize| match field {
                    ImageField::Title => {
                        (0, table.get(p, column(field)).as_str().map(str::to_string))
                    }
                    ImageField::Id => (table.id(p as u32), None),
                    _ => (table.get(p, column(field)).as_int().unwrap_or(0), None),
                };
                positions.sort_by(|a, b| {
                    let ordering = key(a).cmp(&key(b));
                    match desc {
                        true => ordering.reverse(),
                        false => ordering,
                    }
                    .then(a.cmp(b))
                });
            }
        }
        positions
    }
}

/// A request of one image (`/api/v2/images/<id>/`), parsed and checked.
#[derive(Clone, Debug)]
pub struct ImagePlan {
    /// `None` when the id cannot name an image (not an integer in canonical decimal).
    id: Option<i64>,
    fields: ImageFields,
}

impl ImagePlan {
    /// Parses a single image's request: `fields` and `format`; Wagtail's detail
    /// view reads no other parameter.
    pub fn parse(id: &str, params: &Params) -> Result<ImagePlan, ApiError> {
        let fields = fields(params, ImageFields::ALL)?;
        check_record_format(params)?;
        let canonical = !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
            && (id == "0" || !id.starts_with('0'));
        Ok(ImagePlan {
            id: canonical.then(|| id.parse().ok()).flatten(),
            fields,
        })
    }

    /// The image with its fields, or 404.
    pub fn run(&self, view: &View) -> Result<Bytes, ApiError> {
        let table = view.table(Model::Image);
        let pos = self
            .id
            .and_then(|id| table.position(id))
            .ok_or_else(|| ApiError::not_found("No CustomImage matches the given query."))?;
        let mut out = Vec::new();
        view.images
            .write(&mut out, table, pos as usize, self.fields);
        Ok(Bytes::from(out))
    }
}

/// The fields an item shows: `fields` in Wagtail's syntax, from `start` (the
/// listing's defaults, or every field for one image); `*` or `_` first starts
/// from every field or none.
fn fields(params: &Params, start: ImageFields) -> Result<ImageFields, ApiError> {
    let Some(value) = params.get("fields").filter(|v| !v.is_empty()) else {
        return Ok(start);
    };
    let mut specs = projection::parse(value)?.into_iter().peekable();
    let mut fields = match specs.peek() {
        Some(Spec::All) => ImageFields::ALL,
        Some(Spec::Clear) => ImageFields::NONE,
        _ => start,
    };
    if matches!(specs.peek(), Some(Spec::All | Spec::Clear)) {
        specs.next();
    }
    let mut unknown = Vec::new();
    for spec in specs {
        let (name, add, nested) = match &spec {
            Spec::Add(name, children) => (name.as_str(), true, children.is_some()),
            Spec::Remove(name) => (name.as_str(), false, false),
            Spec::All => ("*", true, false),
            Spec::Clear => ("_", true, false),
        };
        match ImageField::from_name(name) {
            Some(_) if nested => {
                return Err(ApiError::bad_request(format!(
                    "'{name}' does not support nested fields"
                )))
            }
            Some(field) if add => fields.insert(field),
            Some(field) => fields.remove(field),
            None => unknown.push(name.to_string()),
        }
    }
    if !unknown.is_empty() {
        unknown.sort_unstable();
        return Err(ApiError::bad_request(format!(
            "unknown fields: {}",
            unknown.join(", ")
        )));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(q: &str) -> Result<ImageFields, ApiError> {
        fields(&Params::parse(q).unwrap(), ImageFields::LISTING)
    }

    #[test]
    fn fields_follow_wagtail() {
        let names = |f: ImageFields| f.iter().map(ImageField::name).collect::<Vec<_>>().join(",");
        assert_eq!(
            names(parsed("").unwrap()),
            "id,title,type,detail_url,tags,download_url"
        );
        assert_eq!(
            names(parsed("fields=width,height").unwrap()),
            "id,title,width,height,type,detail_url,tags,download_url"
        );
        assert_eq!(names(parsed("fields=_,title").unwrap()), "title");
        assert_eq!(
            names(parsed("fields=*,-tags").unwrap()),
            "id,title,width,height,type,detail_url,download_url"
        );
        assert_eq!(
            parsed("fields=-bogus,x").unwrap_err().message,
            "unknown fields: bogus, x"
        );
        assert_eq!(
            parsed("fields=title(x)").unwrap_err().message,
            "'title' does not support nested fields"
        );
    }
}
