//! The `occurrenceID` a specimen's record is published under: what GBIF keys
//! the record by, so it must be unique among every collection GBIF holds and the
//! same in every version. It is made by a rule the dataset file sets
//! (`occurrence_id`): a template with `{catalog_number}` once, and optionally
//! `{institution_code}` and `{collection_code}`, the dataset's codes. Each value
//! put in is percent-encoded as one segment (`:` and `/` included), so two
//! different records cannot be given one identifier.
//!
//! The default is Darwin Core's catalogue URN,
//! `urn:catalog:{institution_code}:{collection_code}:{catalog_number}`: unique
//! wherever institution codes are (GBIF's registry of collections keeps them),
//! stable across versions and across hosts (a URL would change with the
//! server's address). Without an institution code there is nothing to make it
//! unique with, and the catalogue number stands alone (`Dataset::missing` says
//! so).

/// The placeholder of the record's catalogue number.
pub const CATALOG_NUMBER: &str = "{catalog_number}";
const INSTITUTION_CODE: &str = "{institution_code}";
const COLLECTION_CODE: &str = "{collection_code}";

/// The rule without a dataset file's: Darwin Core's catalogue URN.
pub const URN: &str = "urn:catalog:{institution_code}:{collection_code}:{catalog_number}";

/// The longest rule taken.
const MAX_RULE: usize = 200;

/// The rule a dataset follows: its own (`rule`, when not empty), else the URN
/// where it has an institution code, else the bare catalogue number.
pub fn rule_of<'a>(rule: &'a str, institution_code: &str) -> &'a str {
    match (rule.trim(), institution_code.trim()) {
        ("", "") => CATALOG_NUMBER,
        ("", _) => URN,
        (rule, _) => rule,
    }
}

/// Whether `rule` can be a dataset's: `{catalog_number}` exactly once, no
/// other `{...}` than the two codes', no space or control character, at most
/// 200 characters. The error says what is wrong without quoting the rule.
pub fn check(rule: &str) -> Result<(), String> {
    if rule.chars().count() > MAX_RULE {
        return Err(format!("is over {MAX_RULE} characters"));
    }
    if rule.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("has a space or a control character".into());
    }
    if rule.matches(CATALOG_NUMBER).count() != 1 {
        return Err(format!(
            "must have {CATALOG_NUMBER} exactly once (each record's own part)"
        ));
    }
    let rest = rule
        .replace(CATALOG_NUMBER, "")
        .replace(INSTITUTION_CODE, "")
        .replace(COLLECTION_CODE, "");
    if rest.contains(['{', '}']) {
        return Err(format!(
            "has a {{...}} that is none of {CATALOG_NUMBER}, {INSTITUTION_CODE} and \
             {COLLECTION_CODE}"
        ));
    }
    Ok(())
}

/// A dataset's rule with its codes put in: each record's identifier is the
/// prefix, its catalogue number (encoded), the suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OccurrenceIds {
    prefix: String,
    suffix: String,
}

impl OccurrenceIds {
    /// The identifiers `rule` makes (a checked rule, else the bare catalogue
    /// number) with these codes.
    pub fn new(rule: &str, institution_code: &str, collection_code: &str) -> OccurrenceIds {
        let rule = match check(rule) {
            Ok(()) => rule,
            Err(_) => CATALOG_NUMBER,
        };
        let (before, after) = rule
            .split_once(CATALOG_NUMBER)
            .expect("a checked rule has the catalogue number");
        let fill = |part: &str| {
            let mut out = String::with_capacity(part.len());
            let mut rest = part;
            while let Some(at) = rest.find('{') {
                out.push_str(&rest[..at]);
                let (code, placeholder) = match &rest[at..] {
                    r if r.starts_with(INSTITUTION_CODE) => (institution_code, INSTITUTION_CODE),
                    _ => (collection_code, COLLECTION_CODE),
                };
                crate::encoding::percent::segment_encode(&mut out, code.trim());
                rest = &rest[at + placeholder.len()..];
            }
            out.push_str(rest);
            out
        };
        OccurrenceIds {
            prefix: fill(before),
            suffix: fill(after),
        }
    }

    /// The identifier of the record with this catalogue number.
    pub fn of(&self, catalog_number: &str) -> String {
        let mut out = String::with_capacity(self.prefix.len() + catalog_number.len() + 8);
        out.push_str(&self.prefix);
        crate::encoding::percent::segment_encode(&mut out, catalog_number);
        out.push_str(&self.suffix);
        out
    }

    /// The rule with the codes put in (`urn:catalog:MEM:INS:{catalog_number}`):
    /// two datasets whose identifiers differ have different ones.
    pub fn rule(&self) -> String {
        format!("{}{CATALOG_NUMBER}{}", self.prefix, self.suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_catalogue_urn_and_two_institutions_never_share_an_id() {
        let ours = OccurrenceIds::new(rule_of("", "MEM"), "MEM", "INS");
        let theirs = OccurrenceIds::new(rule_of("", "UMMZ"), "UMMZ", "INS");
        assert_eq!(ours.of("CAT-000001"), "urn:catalog:MEM:INS:CAT-000001");
        assert_ne!(ours.of("CAT-000001"), theirs.of("CAT-000001"));
        // A code with the separator in it cannot meet another triplet.
        let a = OccurrenceIds::new(URN, "A:B", "C");
        let b = OccurrenceIds::new(URN, "A", "B:C");
        assert_eq!(a.of("1"), "urn:catalog:A%3AB:C:1");
        assert_ne!(a.of("1"), b.of("1"));
        assert_eq!(
            OccurrenceIds::new(URN, "", "").of("a b/é"),
            "urn:catalog:::a%20b%2F%C3%A9"
        );
    }

    #[test]
    fn without_an_institution_the_catalogue_number_stands_alone() {
        let bare = OccurrenceIds::new(rule_of("", " "), "", "INS");
        assert_eq!(bare.of("CAT-1"), "CAT-1");
        assert_eq!(bare.rule(), "{catalog_number}");
    }

    #[test]
    fn a_rule_of_its_own_puts_the_codes_and_the_number_in() {
        let rule = "https://specimens.example.org/{institution_code}/{catalog_number}.json";
        assert_eq!(check(rule), Ok(()));
        let ids = OccurrenceIds::new(rule_of(rule, "MEM"), "MEM", "");
        assert_eq!(
            ids.of("CAT-7"),
            "https://specimens.example.org/MEM/CAT-7.json"
        );
        assert_eq!(
            ids.rule(),
            "https://specimens.example.org/MEM/{catalog_number}.json"
        );
    }

    #[test]
    fn a_rule_that_could_repeat_an_id_is_refused_without_being_quoted() {
        for (rule, says) in [
            ("urn:x:{institution_code}", "exactly once"),
            ("{catalog_number}-{catalog_number}", "exactly once"),
            ("urn:{year}:{catalog_number}", "none of"),
            ("urn: {catalog_number}", "a space"),
            ("urn:\u{1}{catalog_number}", "control"),
        ] {
            let e = check(rule).unwrap_err();
            assert!(e.contains(says), "{rule:?}: {e}");
            assert!(!e.contains(rule), "{e}");
        }
        assert!(check(&format!("{}{CATALOG_NUMBER}", "x".repeat(300)))
            .unwrap_err()
            .contains("200"));
    }
}
