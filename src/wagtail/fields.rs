//! `fields=` as Wagtail reads it: `title,slug` adds to the defaults, `-slug`
//! takes one away, `*` starts from every field, `_` from none, `name(sub)`
//! asks for a related item's fields (which no field here has). Parsed by the
//! lists' own parser (`query::projection`); errors say what Wagtail says.

use crate::query::projection::{self, Spec};
use crate::query::ApiError;

fn fields_error(message: &str) -> ApiError {
    ApiError::bad_request(format!("fields error: {message}"))
}

/// A field an endpoint serves.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    /// In the item's `meta` object (else beside `id`).
    pub meta: bool,
    /// In list items when `fields` does not name it.
    pub listed: bool,
    /// In a single item when `fields` does not name it.
    pub detailed: bool,
    /// Only in a single item (`parent`).
    pub detail_only: bool,
}

/// The field a spec names (`None` for `*` and `_`).
fn named(spec: &Spec) -> Option<&str> {
    match spec {
        Spec::Add(name, _) | Spec::Remove(name) => Some(name),
        Spec::All | Spec::Clear => None,
    }
}

/// The fields an item shows, in the endpoint's order, for a `fields` value
/// (`None`: the defaults) of a list item (`detail` false) or a single item.
pub fn select(
    all: &'static [Field],
    value: Option<&str>,
    detail: bool,
) -> Result<Vec<&'static Field>, ApiError> {
    let available = |f: &&Field| detail || !f.detail_only;
    let defaults = |f: &&Field| match detail {
        true => f.detailed,
        false => f.listed,
    };
    let specs = match value.filter(|v| !v.is_empty()) {
        None => Vec::new(),
        Some(v) => projection::parse(v)?,
    };
    for (i, spec) in specs.iter().enumerate() {
        let special = match spec {
            Spec::All => "*",
            Spec::Clear => "_",
            Spec::Remove(name) if name == "*" || name == "_" => {
                return Err(fields_error(&format!("'{name}' cannot be negated")))
            }
            _ => continue,
        };
        if i > 0 {
            return Err(fields_error(&format!(
                "'{special}' must be in the first position"
            )));
        }
    }
    let start = specs.first();
    let rest = match start {
        Some(Spec::All | Spec::Clear) => &specs[1..],
        _ => &specs[..],
    };
    let removes = rest.iter().any(|s| matches!(s, Spec::Remove(_)));
    if matches!(start, Some(Spec::Clear)) && removes {
        return Err(fields_error("negated fields with '_' doesn't make sense"));
    }
    let adds = rest.iter().any(|s| matches!(s, Spec::Add(_, None)));
    if matches!(start, Some(Spec::All)) && adds {
        return Err(fields_error(
            "additional fields with '*' doesn't make sense",
        ));
    }
    let mut unknown: Vec<&str> = (rest.iter().filter_map(named))
        .filter(|name| !all.iter().filter(available).any(|f| f.name == *name))
        .collect();
    if !unknown.is_empty() {
        unknown.sort_unstable();
        unknown.dedup();
        return Err(ApiError::bad_request(format!(
            "unknown fields: {}",
            unknown.join(", ")
        )));
    }
    if let Some(Spec::Add(name, _)) = rest.iter().find(|s| matches!(s, Spec::Add(_, Some(_)))) {
        // No field here is a relation whose fields can be chosen.
        return Err(ApiError::bad_request(format!(
            "'{name}' does not support nested fields"
        )));
    }
    let mut chosen: Vec<bool> = all
        .iter()
        .map(|f| match start {
            Some(Spec::All) => available(&f),
            Some(Spec::Clear) => false,
            _ => available(&f) && defaults(&f),
        })
        .collect();
    for spec in rest {
        let found = named(spec).and_then(|name| all.iter().position(|f| f.name == name));
        if let Some(i) = found {
            chosen[i] = matches!(spec, Spec::Add(..));
        }
    }
    Ok(all
        .iter()
        .zip(chosen)
        .filter_map(|(f, on)| on.then_some(f))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[Field] = &[
        Field {
            name: "id",
            meta: false,
            listed: true,
            detailed: true,
            detail_only: false,
        },
        Field {
            name: "type",
            meta: true,
            listed: true,
            detailed: true,
            detail_only: false,
        },
        Field {
            name: "slug",
            meta: true,
            listed: false,
            detailed: true,
            detail_only: false,
        },
        Field {
            name: "parent",
            meta: true,
            listed: false,
            detailed: true,
            detail_only: true,
        },
        Field {
            name: "title",
            meta: false,
            listed: true,
            detailed: true,
            detail_only: false,
        },
    ];

    fn names(value: &str, detail: bool) -> Result<String, String> {
        select(ALL, Some(value), detail)
            .map(|fs| fs.iter().map(|f| f.name).collect::<Vec<_>>().join(","))
            .map_err(|e| e.message)
    }

    #[test]
    fn defaults_are_added_to_taken_from_or_replaced() {
        assert_eq!(names("", false).unwrap(), "id,type,title");
        assert_eq!(names("slug", false).unwrap(), "id,type,slug,title");
        assert_eq!(names("-title,-id", false).unwrap(), "type");
        assert_eq!(names("_,title", false).unwrap(), "title");
        assert_eq!(names("*", false).unwrap(), "id,type,slug,title");
        assert_eq!(names("*", true).unwrap(), "id,type,slug,parent,title");
        assert_eq!(names("*,-slug", true).unwrap(), "id,type,parent,title");
    }

    #[test]
    fn errors_say_what_wagtail_says() {
        let e = |v, detail| names(v, detail).unwrap_err();
        assert_eq!(e("parent", false), "unknown fields: parent");
        assert_eq!(e("x,parent,b", false), "unknown fields: b, parent, x");
        assert_eq!(e("-nothing", false), "unknown fields: nothing");
        assert_eq!(
            e("parent(slug)", true),
            "'parent' does not support nested fields"
        );
        assert_eq!(
            e(",title", false),
            "fields error: unexpected char ',' at position 0"
        );
        assert_eq!(
            e("title)", false),
            "fields error: unexpected char ')' at position 5"
        );
        assert_eq!(
            e("ti.tle", false),
            "fields error: unexpected char '.' at position 2"
        );
        assert_eq!(
            e("-title(x)", false),
            "fields error: unexpected char '(' at position 6"
        );
        assert_eq!(
            e("title,*", false),
            "fields error: '*' must be in the first position"
        );
        assert_eq!(e("-*", false), "fields error: '*' cannot be negated");
        assert_eq!(
            e("_,-title", false),
            "fields error: negated fields with '_' doesn't make sense"
        );
        assert_eq!(
            e("*,slug", false),
            "fields error: additional fields with '*' doesn't make sense"
        );
    }
}
