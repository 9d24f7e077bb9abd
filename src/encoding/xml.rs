//! Text as XML 1.0 holds it, in character data and in quoted attribute values
//! alike (the archive's `eml.xml` and `meta.xml`, a label sheet's SVG): `&`, `<`,
//! `>`, `"` and `'` escaped by `html-escape`, and the control characters XML
//! 1.0 cannot hold at all written as spaces.

use std::borrow::Cow;

/// A character XML 1.0 cannot hold, even escaped.
fn forbidden(c: char) -> bool {
    (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r')
}

/// Appends `s`, escaped, to `out`.
pub fn push_escaped(out: &mut String, s: &str) {
    let held: Cow<str> = match s.chars().any(forbidden) {
        true => s
            .chars()
            .map(|c| if forbidden(c) { ' ' } else { c })
            .collect(),
        false => Cow::Borrowed(s),
    };
    html_escape::encode_quoted_attribute_to_string(held, out);
}

/// `s`, escaped.
pub fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_escaped(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped_and_controls_dropped() {
        assert_eq!(
            escaped("a<b & \"c\" 'd' >"),
            "a&lt;b &amp; &quot;c&quot; &#x27;d&#x27; &gt;"
        );
        assert_eq!(escaped("tab\tline\nbell\u{7}"), "tab\tline\nbell ");
        assert_eq!(escaped("Côté"), "Côté");
    }
}
