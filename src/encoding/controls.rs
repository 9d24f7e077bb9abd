//! Control characters: the C0 controls other than tab and the line breaks,
//! and DEL. No text format catalogue writes carries them (a NUL ends a C
//! string, `\x01` breaks GBIF's and Python's readers, XML 1.0 cannot hold
//! them): each format drops them, or writes a space where it must keep the
//! text's shape.

/// Whether `c` is a control character no text format carries.
pub fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
}

/// `s` without its control characters.
pub fn without(s: &str) -> std::borrow::Cow<'_, str> {
    match s.chars().any(is_control) {
        true => s
            .chars()
            .filter(|&c| !is_control(c))
            .collect::<String>()
            .into(),
        false => s.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_and_line_breaks_stay_the_rest_go() {
        assert_eq!(
            without("a\u{0}b\u{1}c\td\ne\rf\u{7f}g\u{1b}h"),
            "abc\td\ne\rfgh"
        );
        assert!(matches!(without("plain é"), std::borrow::Cow::Borrowed(_)));
    }
}
