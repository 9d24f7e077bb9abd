//! Links a page writes that change its own query: the list's sortable column
//! headers and the label form's facet values both set a parameter or two and
//! keep the rest.

use crate::encoding::percent::form_encode;
use crate::query::Params;

/// Links that set parameters on the page's query (and start at its first page):
/// the rest of the query is written once, each link adds its own pairs.
pub struct Linker {
    prefix: String,
}

impl Linker {
    /// For links that set `names` on `params` at `path`.
    pub fn new(path: &str, params: &Params, names: &[&str]) -> Linker {
        let rest = Params(
            params
                .0
                .iter()
                .filter(|(k, _)| k != "offset" && !names.contains(&k.as_str()))
                .cloned()
                .collect(),
        );
        let q = rest.to_query();
        let prefix = match q.is_empty() {
            true => format!("{path}?"),
            false => format!("{path}?{q}&"),
        };
        Linker { prefix }
    }

    /// The URL with these pairs set.
    pub fn link(&self, pairs: &[(&str, &str)]) -> String {
        let mut out = self.prefix.clone();
        for (i, (k, v)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            form_encode(&mut out, k);
            out.push('=');
            form_encode(&mut out, v);
        }
        out
    }
}
