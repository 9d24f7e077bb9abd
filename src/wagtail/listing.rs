//! What Wagtail's listings share: the parameters they know, paging, ordering,
//! and the envelope `{"meta": {"total_count": N}, "items": [...]}`.

use crate::encoding::json::write_int;
use crate::encoding::time::write_timestamp;
use crate::query::{ApiError, Params};

/// The parameters every Wagtail listing knows besides its fields' filters
/// (the image list's, which is Wagtail's too).
pub use crate::query::images::OPERATIONS;

/// How many items a page of a listing holds when `limit` is not given. The
/// service sets no largest `limit` (`WAGTAILAPI_LIMIT_MAX = None`).
pub const DEFAULT_LIMIT: usize = 20;

/// Refuses a `format` other than JSON, as Wagtail does (with a 404: it
/// knows no page of that format).
pub fn check_format(params: &Params) -> Result<(), ApiError> {
    match params.get("format") {
        None | Some("json") => Ok(()),
        Some(other) => Err(ApiError::not_found(format!(
            "format {other:?} is not served: only json"
        ))),
    }
}

/// Refuses parameters that are neither an operation (`known`) nor a field
/// the listing filters by.
pub fn check_known(params: &Params, known: &[&[&str]]) -> Result<(), ApiError> {
    let mut unknown: Vec<&str> = params
        .names()
        .into_iter()
        .filter(|n| !known.iter().any(|k| k.contains(n)))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    unknown.sort_unstable();
    unknown.dedup();
    Err(ApiError::bad_request(format!(
        "query parameter is not an operation or a recognised field: {}",
        unknown.join(", ")
    )))
}

/// A non-negative integer as Python's `int` reads one (spaces around, a
/// sign); one too large for a `usize` is the largest.
pub fn natural(value: &str) -> Option<usize> {
    let v = value.trim();
    let digits = v.strip_prefix('+').unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        // `-0` is zero; any other negative number is refused.
        return (v
            .strip_prefix('-')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b == b'0')))
        .then_some(0);
    }
    Some(digits.parse().unwrap_or(usize::MAX))
}

/// `offset` and `limit`, checked as Wagtail checks them (offset first).
pub fn paging(params: &Params) -> Result<(usize, usize), ApiError> {
    let read = |name: &str, default: usize| match params.get(name) {
        None => Ok(default),
        Some(v) => natural(v)
            .ok_or_else(|| ApiError::bad_request(format!("{name} must be a positive integer"))),
    };
    let offset = read("offset", 0)?;
    let limit = read("limit", DEFAULT_LIMIT)?;
    Ok((offset, limit))
}

/// One key of an `order`: a field, descending when `-` came before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<F> {
    pub field: F,
    pub descending: bool,
}

/// How a listing is ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order<F> {
    /// As the listing lists by default (`order` absent or empty).
    Default,
    By(Vec<Key<F>>),
    Random,
}

/// Reads `order`: fields by name (`field` finds them), `-` for descending, or
/// `random` alone and without `offset`.
pub fn order<F>(params: &Params, field: impl Fn(&str) -> Option<F>) -> Result<Order<F>, ApiError> {
    let Some(value) = params.get("order").filter(|v| !v.is_empty()) else {
        return Ok(Order::Default);
    };
    let names: Vec<&str> = value.split(',').collect();
    if names.contains(&"random") {
        if names.len() > 1 {
            return Err(ApiError::bad_request(
                "random ordering cannot be combined with other fields",
            ));
        }
        if params.get("offset").is_some() {
            return Err(ApiError::bad_request(
                "random ordering with offset is not supported",
            ));
        }
        return Ok(Order::Random);
    }
    let mut keys = Vec::with_capacity(names.len());
    for name in names {
        let (bare, descending) = match name.strip_prefix('-') {
            Some(bare) => (bare, true),
            None => (name, false),
        };
        let valid =
            !bare.is_empty() && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let found = valid.then(|| field(bare)).flatten();
        match (valid, found) {
            (_, Some(field)) => keys.push(Key { field, descending }),
            (true, None) => {
                return Err(ApiError::bad_request(format!(
                    "cannot order by '{name}' (unknown field)"
                )))
            }
            (false, None) => {
                return Err(ApiError::bad_request(format!(
                    "cannot order by '{name}' (invalid field)"
                )))
            }
        }
    }
    Ok(Order::By(keys))
}

/// A listing's envelope around its items (each written by `item`).
pub fn envelope<T>(total: usize, items: &[T], mut item: impl FnMut(&mut Vec<u8>, &T)) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + items.len() * 256);
    out.extend_from_slice(b"{\"meta\":{\"total_count\":");
    write_int(&mut out, total as i64);
    out.extend_from_slice(b"},\"items\":[");
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(&mut out, t);
    }
    out.extend_from_slice(b"]}");
    out
}

/// An instant as Django REST framework writes one: `2025-06-27T10:24:53Z`,
/// with microseconds only when it has any (`...:21.921000Z`).
pub fn write_instant(out: &mut Vec<u8>, micros: i64) {
    write_timestamp(out, micros);
    if micros.rem_euclid(1_000_000) == 0 && out.ends_with(b".000000Z") {
        out.truncate(out.len() - ".000000Z".len());
        out.push(b'Z');
    }
}

/// A seed for a random order: the clock's nanoseconds, which is random
/// enough to shuffle a listing (it guards nothing).
pub fn seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos | 1
}

/// Shuffles `items` (Fisher-Yates with xorshift from `seed`).
pub fn shuffle<T>(items: &mut [T], mut seed: u64) {
    for i in (1..items.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        items.swap(i, (seed % (i as u64 + 1)) as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn numbers_are_read_as_python_reads_them() {
        assert_eq!(natural("5"), Some(5));
        assert_eq!(natural(" +7 "), Some(7));
        assert_eq!(natural("-0"), Some(0));
        assert_eq!(natural("-1"), None);
        assert_eq!(natural("abc"), None);
        assert_eq!(natural(""), None);
        assert_eq!(natural("99999999999999999999999"), Some(usize::MAX));
        assert_eq!(
            paging(&params(&[("limit", "-1")])).unwrap_err().message,
            "limit must be a positive integer"
        );
        assert_eq!(paging(&params(&[])).unwrap(), (0, 20));
    }

    #[test]
    fn orders_are_fields_or_random_alone() {
        let field = |n: &str| (n == "title" || n == "id").then(|| n.to_string());
        let read = |pairs| order(&params(pairs), field).map_err(|e| e.message);
        assert_eq!(
            read(&[("order", "-title,id")]).unwrap(),
            Order::By(vec![
                Key {
                    field: "title".to_string(),
                    descending: true
                },
                Key {
                    field: "id".to_string(),
                    descending: false
                },
            ])
        );
        assert_eq!(read(&[("order", "")]).unwrap(), Order::Default);
        assert_eq!(
            read(&[("order", "-xyz")]).unwrap_err(),
            "cannot order by '-xyz' (unknown field)"
        );
        assert_eq!(
            read(&[("order", "--title")]).unwrap_err(),
            "cannot order by '--title' (invalid field)"
        );
        assert_eq!(
            read(&[("order", "random,id")]).unwrap_err(),
            "random ordering cannot be combined with other fields"
        );
        assert_eq!(
            read(&[("order", "random"), ("offset", "0")]).unwrap_err(),
            "random ordering with offset is not supported"
        );
    }

    #[test]
    fn instants_are_written_as_rest_framework_writes_them() {
        let mut out = Vec::new();
        write_instant(&mut out, 1_751_011_493_000_000);
        out.push(b' ');
        write_instant(&mut out, 1_749_361_041_921_000);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2025-06-27T08:04:53Z 2025-06-08T05:37:21.921000Z"
        );
    }
}
