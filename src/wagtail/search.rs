//! `search=` as the service's search backend (Wagtail's database backend on
//! SQLite's full-text index) answers it on titles: the text is cut into words
//! (runs of letters and digits), case and accents ignored; each whitespace-
//! separated term of the query is a phrase of those words, matched whole (no
//! prefixes); every term must match (`search_operator=and`, the default) or
//! any (`or`). Without `order`, the best first: more terms matched, then
//! shorter titles (as the index's ranking favours them), then the newest id.

use unicode_normalization::UnicodeNormalization;

use crate::query::filter::MAX_TERMS;
use crate::query::{ApiError, Params};

/// A text's words: lowercased, accents removed.
pub fn words(text: &str) -> Vec<String> {
    let folded: String = text
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A search: its terms, each a phrase of words, and whether one is enough.
#[derive(Clone, Debug)]
pub struct Search {
    terms: Vec<Vec<String>>,
    any: bool,
}

impl Search {
    /// The search a request asks for, if any; `search_operator` must be `and`
    /// or `or` (any case; empty is the default).
    pub fn parse(params: &Params) -> Result<Option<Search>, ApiError> {
        let any = match params.get("search_operator").map(str::to_lowercase) {
            None => false,
            Some(op) if op.is_empty() || op == "and" => false,
            Some(op) if op == "or" => true,
            Some(op) => {
                return Err(ApiError::bad_request(format!(
                    "search_operator must be 'and' or 'or', not {op:?}"
                )))
            }
        };
        let Some(query) = params.get("search") else {
            return Ok(None);
        };
        let count = query.split_whitespace().count();
        if count > MAX_TERMS {
            return Err(ApiError::bad_request(format!(
                "search takes at most {MAX_TERMS} terms, not {count}"
            )));
        }
        Ok(Some(Search {
            terms: (query.split_whitespace().map(words))
                .filter(|t| !t.is_empty())
                .collect(),
            any,
        }))
    }

    /// How many of the terms `text` (a title's words) holds, when it holds
    /// enough of them to be found.
    pub fn matched(&self, text: &[String]) -> Option<usize> {
        let found = self
            .terms
            .iter()
            .filter(|term| text.windows(term.len()).any(|w| w == term.as_slice()))
            .count();
        let enough = match self.any {
            true => found > 0,
            false => found == self.terms.len() && found > 0,
        };
        enough.then_some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(query: &str) -> Search {
        Search::parse(&Params(vec![("search".into(), query.into())]))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn whole_words_match_whatever_their_case_and_accents() {
        let title = words("Parnassius clodius (Ménétriés)");
        assert_eq!(title, ["parnassius", "clodius", "menetries"]);
        assert_eq!(search("MENETRIES").matched(&title), Some(1));
        assert_eq!(search("parnassius clodius").matched(&title), Some(2));
        assert_eq!(search("parnass").matched(&title), None);
        assert_eq!(search("parnassius smintheus").matched(&title), None);
        assert_eq!(search("clodius-menetries").matched(&title), Some(1));
        assert_eq!(search("menetries-clodius").matched(&title), None);
        assert_eq!(search("   ").matched(&title), None);
    }

    #[test]
    fn or_takes_any_term() {
        let params = Params(vec![
            ("search".into(), "parnassius smintheus".into()),
            ("search_operator".into(), "OR".into()),
        ]);
        let any = Search::parse(&params).unwrap().unwrap();
        assert_eq!(any.matched(&words("Parnassius clodius")), Some(1));
        let bad = Params(vec![("search_operator".into(), "xor".into())]);
        assert!(Search::parse(&bad).is_err());
    }
}
