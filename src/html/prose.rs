//! Rich text as people read it: what Wagtail's editor writes (paragraphs,
//! headings, emphasis, lists, links) kept, everything else dropped by an
//! allow-list sanitizer (ammonia, which parses as a browser does), so a hostile
//! value stays inert however it is spelled.

use std::collections::HashSet;
use std::sync::OnceLock;

use ammonia::Builder;
use maud::{html, Markup, PreEscaped};

use crate::model::darwin_core::is_rich_text;

/// The tags Wagtail's rich-text editor writes.
const TAGS: &[&str] = &[
    "p",
    "br",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "b",
    "strong",
    "i",
    "em",
    "sup",
    "sub",
    "ul",
    "ol",
    "li",
    "a",
    "blockquote",
    "code",
    "hr",
];

fn sanitizer() -> &'static Builder<'static> {
    static BUILDER: OnceLock<Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = Builder::empty();
        b.tags(TAGS.iter().copied().collect::<HashSet<_>>())
            .add_tag_attributes("a", ["href"])
            .url_schemes(["http", "https", "mailto"].into_iter().collect())
            .link_rel(Some("nofollow noopener"))
            .clean_content_tags(["script", "style"].into_iter().collect());
        b
    })
}

/// A text field as a reader sees it: rich text sanitized, plain text escaped.
pub fn prose(text: &str) -> Markup {
    match is_rich_text(text) {
        true => html! { div.prose { (PreEscaped(sanitizer().clean(text).to_string())) } },
        false => html! { (text) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editors_tags_stay_and_everything_else_goes() {
        let rich = r#"<p data-block-key="x1">Roosting on <i>Quercus virginiana</i>, <a href="https://example.org/q" id="k">see</a>.</p>"#;
        assert_eq!(
            prose(rich).into_string(),
            r#"<div class="prose"><p>Roosting on <i>Quercus virginiana</i>, <a href="https://example.org/q" rel="nofollow noopener">see</a>.</p></div>"#
        );
        let hostile = r#"<p>Found on oak. <script>alert("x")</script><img src=x onerror="alert(1)"><a href="javascript:alert(2)">x</a><svg onload=alert(3)></svg></p>"#;
        let out = prose(hostile).into_string();
        assert_eq!(
            out,
            r#"<div class="prose"><p>Found on oak. <a rel="nofollow noopener">x</a></p></div>"#
        );
    }

    #[test]
    fn plain_text_is_escaped_not_parsed() {
        assert_eq!(
            prose("5 < 6 & \"so\"").into_string(),
            "5 &lt; 6 &amp; &quot;so&quot;"
        );
    }
}
