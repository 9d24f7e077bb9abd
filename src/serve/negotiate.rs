//! Which representation a list, record or front page is asked in: a page for
//! people or the API's JSON. `format` decides where given; else `Accept`, where a
//! client that ranks `text/html` above JSON gets the page (browsers send
//! `text/html,...,*/*;q=0.8`). No `Accept`, `*/*` and ties get JSON, so every
//! program that called the API before gets the same bytes.

use warp::http::{header, HeaderMap};

/// How an answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Representation {
    Json,
    Html,
}

/// The `format` values that ask for the page (`api` is the old service's).
pub const HTML_FORMATS: &[&str] = &["html", "api"];

/// The representation a request asks for; `format` is its last `format` value.
pub fn representation(headers: &HeaderMap, format: Option<&str>) -> Representation {
    if let Some(f) = format {
        return match HTML_FORMATS.contains(&f) {
            true => Representation::Html,
            false => Representation::Json,
        };
    }
    // Most requests carry one `Accept` line or none: read it where it lies.
    let mut lines = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok());
    let joined;
    let accept = match (lines.next(), lines.next()) {
        (None, _) => return Representation::Json,
        (Some(one), None) => one,
        (Some(first), Some(second)) => {
            joined = [first, second]
                .into_iter()
                .chain(lines)
                .collect::<Vec<_>>()
                .join(",");
            joined.as_str()
        }
    };
    let html = quality(accept, "text", "html");
    let json = quality(accept, "application", "json");
    match html > json {
        true => Representation::Html,
        false => Representation::Json,
    }
}

/// The ranges of an `Accept`-style header (`Accept`, `Accept-Encoding`) with their
/// q-values: `(token, q)`, the token trimmed, `q` 1 when absent; a range whose q
/// is not a number in 0..=1 is left out.
pub fn weighted(header: &str) -> impl Iterator<Item = (&str, f32)> {
    header.split(',').filter_map(|range| {
        let mut parts = range.split(';');
        let token = parts.next()?.trim();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .map_or(Some(1.0), |q| {
                q.trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|q| (0.0..=1.0).contains(q))
            })?;
        Some((token, q))
    })
}

/// The q-value `accept` gives `kind/sub`, by its most specific matching range
/// (RFC 9110 §12.5.1); 0 when none matches.
fn quality(accept: &str, kind: &str, sub: &str) -> f32 {
    let mut best: Option<(u8, f32)> = None;
    for (range, q) in weighted(accept) {
        let Some((k, s)) = range.split_once('/') else {
            continue;
        };
        let specificity = match (k.trim(), s.trim()) {
            (k, s) if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub) => 2,
            (k, "*") if k.eq_ignore_ascii_case(kind) => 1,
            ("*", "*") => 0,
            _ => continue,
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map_or(0.0, |(_, q)| q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    fn with_accept(accept: Option<&str>, format: Option<&str>) -> Representation {
        let mut h = HeaderMap::new();
        if let Some(a) = accept {
            h.insert(header::ACCEPT, HeaderValue::from_str(a).unwrap());
        }
        representation(&h, format)
    }

    #[test]
    fn browsers_get_pages_and_programs_get_json() {
        use Representation::*;
        let chrome =
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        let cases = [
            (None, None, Json),
            (Some("*/*"), None, Json),
            (Some("application/json"), None, Json),
            (Some("application/json, text/html"), None, Json),
            (Some("text/html;q=0.5, application/json"), None, Json),
            (Some("text/html, application/json;q=0.9"), None, Html),
            (Some("text/*"), None, Html),
            (Some("text/html"), None, Html),
            (Some(chrome), None, Html),
            (Some(firefox), None, Html),
            (Some("text/html;q=0"), None, Json),
            (Some("application/geo+json"), None, Json),
            (Some(chrome), Some("json"), Json),
            (Some(chrome), Some("geojson"), Json),
            (None, Some("html"), Html),
            (None, Some("api"), Html),
            (Some("application/json"), Some("api"), Html),
        ];
        for (accept, format, want) in cases {
            assert_eq!(with_accept(accept, format), want, "{accept:?} {format:?}");
        }
    }

    #[test]
    fn an_accept_split_over_lines_is_read_whole() {
        let lines = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            representation(&h, None)
        };
        assert_eq!(
            lines(&["application/json;q=0.5", "text/html"]),
            Representation::Html
        );
        assert_eq!(
            lines(&["text/html;q=0.5", "application/json"]),
            Representation::Json
        );
        assert_eq!(
            lines(&["image/png", "text/plain", "text/html"]),
            Representation::Html
        );
    }
}
