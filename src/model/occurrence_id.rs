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

/// One piece of a rule: text as written, or a placeholder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    CatalogNumber,
    InstitutionCode,
    CollectionCode,
}

/// A rule read into its pieces: the one reader of a rule, which the check and
/// the maker share, so what passes the check is what the maker follows.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule<'a> {
    pieces: Vec<Piece<'a>>,
}

impl<'a> Rule<'a> {
    /// Reads `rule`: text, and `{name}` placeholders whose names are the
    /// three known ones; a `{` or `}` anywhere else (a placeholder inside
    /// another, one not closed, a lone `}`) is refused, saying at which
    /// character, as is `{catalog_number}` not exactly once, a space or a
    /// control character, or over 200 characters.
    fn read(rule: &'a str) -> Result<Rule<'a>, String> {
        if rule.chars().count() > MAX_RULE {
            return Err(format!("is over {MAX_RULE} characters"));
        }
        if rule.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("has a space or a control character".into());
        }
        let at = |byte: usize| rule[..byte].chars().count() + 1;
        let mut pieces = Vec::new();
        let mut rest = rule;
        let mut offset = 0;
        while let Some(open) = rest.find(['{', '}']) {
            if rest.as_bytes()[open] == b'}' {
                return Err(format!(
                    "has a }} at character {} that closes no {{",
                    at(offset + open)
                ));
            }
            if open > 0 {
                pieces.push(Piece::Text(&rest[..open]));
            }
            let inside = &rest[open + 1..];
            let close = match inside.find(['{', '}']) {
                Some(close) if inside.as_bytes()[close] == b'}' => close,
                Some(other) => {
                    return Err(format!(
                        "has a {{ at character {} inside the {{ at character {}: a \
                         placeholder cannot hold another",
                        at(offset + open + 1 + other),
                        at(offset + open)
                    ))
                }
                None => {
                    return Err(format!(
                        "has a {{ at character {} that is never closed",
                        at(offset + open)
                    ))
                }
            };
            pieces.push(match &inside[..close] {
                "catalog_number" => Piece::CatalogNumber,
                "institution_code" => Piece::InstitutionCode,
                "collection_code" => Piece::CollectionCode,
                _ => {
                    return Err(format!(
                        "has a {{...}} at character {} that is none of {CATALOG_NUMBER}, \
                         {INSTITUTION_CODE} and {COLLECTION_CODE}",
                        at(offset + open)
                    ))
                }
            });
            let used = open + 1 + close + 1;
            offset += used;
            rest = &rest[used..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest));
        }
        let numbers = pieces
            .iter()
            .filter(|p| **p == Piece::CatalogNumber)
            .count();
        if numbers != 1 {
            return Err(format!(
                "must have {CATALOG_NUMBER} exactly once (each record's own part)"
            ));
        }
        Ok(Rule { pieces })
    }
}

/// Whether `rule` can be a dataset's: `{catalog_number}` exactly once, no
/// other `{...}` than the two codes', no brace outside a placeholder, no space
/// or control character, at most 200 characters. The error says what is wrong
/// (and at which character) without quoting the rule.
pub fn check(rule: &str) -> Result<(), String> {
    Rule::read(rule).map(|_| ())
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
        let rule = Rule::read(rule).unwrap_or(Rule {
            pieces: vec![Piece::CatalogNumber],
        });
        let mut ids = OccurrenceIds {
            prefix: String::new(),
            suffix: String::new(),
        };
        let mut out = &mut ids.prefix;
        for piece in rule.pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::InstitutionCode => {
                    crate::encoding::percent::segment_encode(out, institution_code.trim())
                }
                Piece::CollectionCode => {
                    crate::encoding::percent::segment_encode(out, collection_code.trim())
                }
                Piece::CatalogNumber => out = &mut ids.suffix,
            }
        }
        ids
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

    #[test]
    fn a_rule_straddling_a_placeholder_is_refused_by_the_check_and_never_panics_the_maker() {
        for (rule, says) in [
            (
                "{institution_{catalog_number}code}",
                "inside the { at character 1",
            ),
            (
                "x{institution_code{catalog_number}}",
                "inside the { at character 2",
            ),
            ("{catalog_number}}", "closes no {"),
            ("urn:{catalog_number", "never closed"),
            ("urn:}{catalog_number}", "character 5"),
            ("{{catalog_number}}", "inside"),
        ] {
            let e = check(rule).unwrap_err();
            assert!(e.contains(says), "{rule:?}: {e}");
            // The maker follows what the check reads: a refused rule is the
            // bare catalogue number.
            assert_eq!(OccurrenceIds::new(rule, "MEM", "INS").of("7"), "7");
        }
    }

    #[test]
    fn the_codes_either_side_of_the_number_are_put_in_where_written() {
        let ids = OccurrenceIds::new(
            "{collection_code}/{catalog_number}/{institution_code}{collection_code}",
            "MEM",
            "INS",
        );
        assert_eq!(ids.of("a"), "INS/a/MEMINS");
        assert_eq!(ids.rule(), "INS/{catalog_number}/MEMINS");
    }

    proptest::proptest! {
        #[test]
        fn any_rule_is_read_or_refused_without_a_panic(
            rule in "[{}a-z_:/x]{0,60}|(\\{|\\}|\\{catalog_number\\}|\\{institution_code\\}|\\{collection_code\\}|[a-z_]{1,4}){0,8}",
        ) {
            let ids = OccurrenceIds::new(&rule, "M:E", "I");
            let id = ids.of("C/1");
            match check(&rule) {
                Ok(()) => {
                    // A rule taken makes identifiers with the number in, and
                    // nothing of a placeholder left over.
                    proptest::prop_assert!(id.contains("C%2F1"));
                    proptest::prop_assert!(!id.contains(['{', '}']), "{}", id);
                    proptest::prop_assert_eq!(
                        ids.rule().matches(CATALOG_NUMBER).count(), 1
                    );
                }
                Err(e) => {
                    proptest::prop_assert_eq!(id, "C%2F1");
                    proptest::prop_assert!(!e.is_empty());
                }
            }
        }
    }
}
