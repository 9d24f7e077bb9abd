//! Whole numbers as a path or a parameter names them: canonically, digits
//! alone without a leading zero (`7`, not `07`, `+7` or ` 7`), so that one
//! thing has one address, as a record's id does.

/// The number `text` writes canonically, or `None` (`None` too past `u64`).
pub fn canonical(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    (digits && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

/// Whether `text` is a whole number written canonically, however large.
pub fn is_canonical(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_digits_without_a_leading_zero() {
        assert_eq!(canonical("7"), Some(7));
        assert_eq!(canonical("0"), Some(0));
        assert_eq!(canonical("120"), Some(120));
        for bad in [
            "07",
            "00",
            "+7",
            "-7",
            " 7",
            "7 ",
            "",
            "1e3",
            "99999999999999999999",
        ] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
        assert!(is_canonical("99999999999999999999"));
        assert!(!is_canonical("01"));
    }
}
