//! The service's values as Darwin Core wants them: ISO 8601 dates, elevations in
//! metres, ISO 3166 country codes, rich text as plain text.

/// ISO 8601 as precise as the parts allow: `2019-10-04`, `2019-10`, `2019`, or
/// nothing without a year.
pub fn event_date(year: Option<i64>, month: Option<u32>, day: Option<i64>) -> String {
    match (year, month, day) {
        (Some(y), Some(m), Some(d)) => format!("{y:04}-{m:02}-{d:02}"),
        (Some(y), Some(m), None) => format!("{y:04}-{m:02}"),
        (Some(y), _, _) => format!("{y:04}"),
        (None, ..) => String::new(),
    }
}

/// An elevation in metres as a range: `252` is 252-252, `3157-3402` is 3157-3402
/// (a trailing `m` is allowed); anything else is no elevation.
pub fn elevation(s: &str) -> Option<(f64, f64)> {
    let s = s.trim();
    let s = s.strip_suffix('m').unwrap_or(s).trim();
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    if let Some(v) = number(s) {
        return Some((v, v));
    }
    // The separator is a `-` that is not a leading minus sign.
    let cut = s.char_indices().skip(1).find(|&(_, c)| c == '-')?.0;
    let (a, b) = (number(&s[..cut])?, number(&s[cut + 1..])?);
    Some((a.min(b), a.max(b)))
}

/// The ISO 3166-1 alpha-2 code of a country, from its name or its abbreviation.
pub fn country_code(name: &str, abbr: &str) -> Option<&'static str> {
    use std::str::FromStr;
    let key: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    let by_abbr = || {
        let letters = abbr.len() == 2 || abbr.len() == 3;
        letters
            .then(|| abbr.bytes().all(|b| b.is_ascii_alphabetic()))
            .filter(|&ok| ok)
            .and_then(|_| celes::Country::from_str(abbr).ok())
    };
    celes::Country::from_str(&key)
        .ok()
        .or_else(by_abbr)
        .map(|c| c.alpha2)
}

/// HTML elements that end a run of text.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// Whether a string is rich text: it holds a tag (`<` then a letter or `/`,
/// and a `>` after it). The CSV downloads write such text plain, the pages
/// through their sanitizer.
pub fn is_rich_text(s: &str) -> bool {
    s.match_indices('<').any(|(i, _)| {
        let after = &s[i + 1..];
        after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/')
            && after.contains('>')
    })
}

/// Rich text as plain text: tags removed, character references decoded, runs of
/// whitespace made one space.
pub fn plain_text(html: &str) -> String {
    if !html.contains(['<', '&']) && !html.contains(char::is_whitespace) {
        return html.to_string();
    }
    let mut stripped = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        stripped.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        // A tag starts with a letter, `/`, `!` or `?`; any other `<` is text.
        let is_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        match after.find('>').filter(|_| is_tag) {
            Some(end) => {
                // Block tags separate words (`<p>a</p><p>b</p>` is "a b"); inline
                // ones do not (`<b>Asclepias</b>.` is "Asclepias.").
                let name: String = after[..end]
                    .trim_start_matches('/')
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                if BLOCK_TAGS.contains(&name.as_str()) {
                    stripped.push(' ');
                }
                rest = &after[end + 1..];
            }
            None => {
                stripped.push('<');
                rest = after;
            }
        }
    }
    stripped.push_str(rest);
    let decoded = html_escape::decode_html_entities(&stripped);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rich_text_is_what_starts_with_a_tag() {
        assert!(is_rich_text("<p>Oak woods</p>"));
        assert!(is_rich_text("  <p>x"));
        assert!(is_rich_text("Oak <i>woods</i>"));
        assert!(!is_rich_text("<5 m"));
        assert!(!is_rich_text("a < b > c"));
        assert!(!is_rich_text("<a"));
    }

    #[test]
    fn rich_text_becomes_plain() {
        assert_eq!(
            plain_text("<p data-block-key=\"x1\">Roosting on <i>Quercus</i> &amp; live oaks</p>"),
            "Roosting on Quercus & live oaks"
        );
        assert_eq!(plain_text("<p>a</p><p>b&nbsp;c<br/>d</p>"), "a b c d");
        assert_eq!(
            plain_text("On <b>Asclepias</b>.<!-- x -->"),
            "On Asclepias."
        );
        assert_eq!(
            plain_text("temp < 5 &lt;b&gt; &#233;t&#xE9;"),
            "temp < 5 <b> été"
        );
        assert_eq!(plain_text("  two\tlines\nhere "), "two lines here");
        assert_eq!(plain_text(""), "");
    }

    #[test]
    fn elevations_and_dates() {
        assert_eq!(elevation("252"), Some((252.0, 252.0)));
        assert_eq!(elevation("3157-3402"), Some((3157.0, 3402.0)));
        assert_eq!(elevation(" 3402 - 3157 m"), Some((3157.0, 3402.0)));
        assert_eq!(elevation("-5"), Some((-5.0, -5.0)));
        assert_eq!(elevation("about 300"), None);
        assert_eq!(elevation(""), None);
        assert_eq!(event_date(Some(2019), Some(10), Some(4)), "2019-10-04");
        assert_eq!(event_date(Some(2018), Some(8), None), "2018-08");
        assert_eq!(event_date(Some(1890), None, Some(3)), "1890");
        assert_eq!(event_date(None, Some(3), Some(3)), "");
    }

    #[test]
    fn country_codes() {
        assert_eq!(country_code("United States of America", "USA"), Some("US"));
        assert_eq!(country_code("Costa Rica", "CR"), Some("CR"));
        assert_eq!(country_code("Nowhere", "MEX"), Some("MX"));
        assert_eq!(country_code("Nowhere", "N."), None);
    }
}
