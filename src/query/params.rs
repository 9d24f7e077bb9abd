//! A query string, decoded into its parameters in order.

use crate::encoding::percent::percent_decode;

use super::error::ApiError;

/// The decoded parameters of a query string, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Decodes an `application/x-www-form-urlencoded` query string, refusing invalid
    /// percent-encoding and bytes that do not decode to UTF-8.
    pub fn parse(raw: &str) -> Result<Params, ApiError> {
        let mut out = Vec::new();
        for part in raw.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            out.push((decode(k)?, decode(v)?));
        }
        Ok(Params(out))
    }

    /// The last value given for `name` (as Django's `QueryDict.get` answers).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The distinct names, in first-seen order.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for (k, _) in &self.0 {
            if !names.contains(&k.as_str()) {
                names.push(k);
            }
        }
        names
    }
}

fn decode(s: &str) -> Result<String, ApiError> {
    percent_decode(s, true).map_err(|e| ApiError::bad_request(format!("the query string {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_form_encoding() {
        let p = Params::parse("a=1&b=x+y&c=%C3%A9&d&&e=&a=2").unwrap();
        assert_eq!(p.get("a"), Some("2"));
        assert_eq!(p.get("b"), Some("x y"));
        assert_eq!(p.get("c"), Some("é"));
        assert_eq!(p.get("d"), Some(""));
        assert_eq!(p.get("e"), Some(""));
        assert_eq!(p.names(), vec!["a", "b", "c", "d", "e"]);
        assert_eq!(Params::parse("").unwrap(), Params::default());
    }

    #[test]
    fn refuses_bad_encoding() {
        let status = |q: &str| Params::parse(q).unwrap_err().status;
        assert_eq!(status("a=%zz"), 400);
        assert_eq!(status("a=%4"), 400);
        assert_eq!(status("a=%ff"), 400);
        assert_eq!(status("a=%C3%A9%"), 400);
        // Found by the fuzz test: `%` followed by a multi-byte character.
        assert_eq!(status("a=%é"), 400);
        assert_eq!(status("%\u{1F600}x"), 400);
    }
}
