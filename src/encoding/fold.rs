//! Text folded to plain words, the one way names are compared (suggestions,
//! the quality checks' place names): lowercase, accents dropped, punctuation a
//! space between words.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// `name` folded: lowercase letters and digits, accents dropped (`Côté` is
/// `cote`), letters with no decomposition spelled plainly (`ß` is `ss`, `ø` is
/// `o`), apostrophes dropped (`O'Brien` is `obrien`), and anything else one
/// space between words, none at either end.
pub fn fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.nfd() {
        if is_combining_mark(c) || matches!(c, '\'' | '’' | 'ʼ') {
            continue;
        }
        let plain: &str = match c {
            'ß' => "ss",
            'æ' | 'Æ' => "ae",
            'œ' | 'Œ' => "oe",
            'ø' | 'Ø' => "o",
            'ł' | 'Ł' => "l",
            'đ' | 'Đ' | 'ð' | 'Ð' => "d",
            'þ' | 'Þ' => "th",
            'ı' => "i",
            _ => "",
        };
        if !plain.is_empty() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push_str(plain);
        } else if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.extend(c.to_lowercase());
        } else {
            space = true;
        }
    }
    out
}

/// `text` lowercased with its accents dropped (`Québec` is `quebec`, `Straße`
/// is `strasse`), every other character kept as it is: what a form's text field
/// is matched by on the pages, so that a term found as a substring of a folded
/// name is found whatever the name's accents and case.
pub fn unaccented(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.nfd() {
        if is_combining_mark(c) {
            continue;
        }
        match c {
            'ß' => out.push_str("ss"),
            'æ' | 'Æ' => out.push_str("ae"),
            'œ' | 'Œ' => out.push_str("oe"),
            'ø' | 'Ø' => out.push('o'),
            'ł' | 'Ł' => out.push('l'),
            'đ' | 'Đ' | 'ð' | 'Ð' => out.push('d'),
            'þ' | 'Þ' => out.push_str("th"),
            'ı' => out.push('i'),
            _ => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Whether `text` holds `term` (already [`unaccented`]) without regard to
/// accents and case.
pub fn holds_unaccented(text: &str, term: &str) -> bool {
    match text.is_ascii() {
        true => text.to_ascii_lowercase().contains(term),
        false => unaccented(text).contains(term),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaccented_keeps_all_but_accents_and_case() {
        assert_eq!(unaccented("Québec"), "quebec");
        assert_eq!(unaccented("MÉXICO, D.F."), "mexico, d.f.");
        assert_eq!(unaccented("Straße Øresund"), "strasse oresund");
        assert_eq!(unaccented("Pima/Santa Cruz"), "pima/santa cruz");
        assert!(holds_unaccented("Québec City", "quebec"));
        assert!(holds_unaccented("Quebec", &unaccented("Québec")));
        assert!(!holds_unaccented("Québec", "montreal"));
    }

    #[test]
    fn names_fold_to_plain_words() {
        assert_eq!(fold("Côté"), "cote");
        assert_eq!(fold("  Danaus   plexippus "), "danaus plexippus");
        assert_eq!(fold("D. plexippus"), "d plexippus");
        assert_eq!(fold("Pima/Santa Cruz"), "pima santa cruz");
        assert_eq!(fold("O'Brien"), "obrien");
        assert_eq!(fold("Straße Øresund"), "strasse oresund");
        assert_eq!(fold("CAT-000123"), "cat 000123");
        assert_eq!(fold("…"), "");
    }
}
