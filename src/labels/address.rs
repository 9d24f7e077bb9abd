//! What a label's QR code says: `--label-url`'s template with `{usi}`,
//! `{usi_lower}`, `{digits}` and `{id}` filled in, or by default the specimen's
//! short link on the server that printed it (its record where its USI's digits
//! do not name it alone).

use std::fmt;

use crate::view::View;

use super::short::{self, digits, ShortLinks};

/// A piece of a template: text as written, or a value of the specimen.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Usi,
    UsiLower,
    /// The USI's digits (`MEM-000001` -> `000001`): the service's short code.
    Digits,
    Id,
}

/// A checked `--label-url` template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template(Vec<Piece>);

/// Why a template cannot be used.
#[derive(Debug, PartialEq, Eq)]
pub struct TemplateError(String);

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TemplateError {}

impl Template {
    /// Reads a template; a `{name}` other than the four is an error naming them.
    pub fn parse(s: &str) -> Result<Template, TemplateError> {
        let mut pieces = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_string()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(TemplateError(format!(
                    "--label-url {s:?}: a {{ without its }}"
                )));
            };
            let name = &rest[open + 1..open + close];
            pieces.push(match name {
                "usi" => Piece::Usi,
                "usi_lower" => Piece::UsiLower,
                "digits" => Piece::Digits,
                "id" => Piece::Id,
                _ => {
                    return Err(TemplateError(format!(
                        "--label-url {s:?}: {{{name}}} is not one of {{usi}}, {{usi_lower}}, {{digits}}, {{id}}"
                    )))
                }
            });
            rest = &rest[open + close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        if !pieces.iter().any(|p| !matches!(p, Piece::Text(_))) {
            return Err(TemplateError(format!(
                "--label-url {s:?} names no specimen: use {{usi}}, {{usi_lower}}, {{digits}} or {{id}}"
            )));
        }
        Ok(Template(pieces))
    }

    /// The template that gives the specimen's record under `base` (`http://host`).
    pub fn record(base: &str) -> Template {
        Template(vec![
            Piece::Text(format!("{base}/api/v2/specimen-records/")),
            Piece::Id,
            Piece::Text("/".into()),
        ])
    }

    /// The text for the specimen `id` with `usi`.
    pub fn fill(&self, usi: &str, id: i64) -> String {
        let mut out = String::with_capacity(64);
        for piece in &self.0 {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Usi => out.push_str(usi),
                Piece::UsiLower => out.extend(usi.chars().flat_map(char::to_lowercase)),
                Piece::Digits => out.extend(digits(usi)),
                Piece::Id => out.push_str(&id.to_string()),
            }
        }
        out
    }
}

/// What a sheet's codes say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    /// The operator's template (`--label-url`).
    Template(Template),
    /// This server's own, under its base (`http://host`): the specimen's short
    /// link (`{base}/s/{digits}`) where its USI's digits name it and no other
    /// specimen, else its record (`Template::record`), so that no code leads
    /// to another specimen or nowhere.
    Own(String),
}

impl Address {
    /// The text for the specimen `id` with `usi`, of `view`.
    pub fn fill(&self, view: &View, usi: &str, id: i64) -> String {
        self.fill_knowing(usi, id, || {
            view.derived::<ShortLinks>().names_alone(view, usi, id)
        })
    }

    /// [`Address::fill`], `alone` saying whether the USI's digits name the
    /// specimen alone (asked only of `Own`).
    fn fill_knowing(&self, usi: &str, id: i64, alone: impl FnOnce() -> bool) -> String {
        match self {
            Address::Template(template) => template.fill(usi, id),
            Address::Own(base) if alone() => {
                format!("{base}{}", short::path(&digits(usi).collect::<String>()))
            }
            Address::Own(base) => Template::record(base).fill(usi, id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_services_short_address_can_be_written() {
        let t = Template::parse("www.memcollection.com/s/{digits}").unwrap();
        assert_eq!(t.fill("MEM-000001", 7), "www.memcollection.com/s/000001");
        let t = Template::parse("https://x.org/{usi_lower}?id={id}&u={usi}").unwrap();
        assert_eq!(t.fill("MEM-01", 7), "https://x.org/mem-01?id=7&u=MEM-01");
        assert_eq!(
            Template::record("http://h:1").fill("MEM-01", 7),
            "http://h:1/api/v2/specimen-records/7/"
        );
    }

    #[test]
    fn a_template_names_a_specimen_with_known_names() {
        assert!(Template::parse("https://x.org/{pk}")
            .unwrap_err()
            .to_string()
            .contains("{pk} is not one of"));
        assert!(Template::parse("https://x.org/{usi").is_err());
        assert!(Template::parse("https://x.org/").is_err());
    }

    #[test]
    fn by_default_a_code_is_the_short_link_where_it_names_the_specimen_alone() {
        let own = Address::Own("http://h:1".into());
        assert_eq!(
            own.fill_knowing("MEM-000367", 7, || true),
            "http://h:1/s/000367"
        );
        // Shared digits, or none: the record.
        assert_eq!(
            own.fill_knowing("MEM-000367", 7, || false),
            "http://h:1/api/v2/specimen-records/7/"
        );
        assert_eq!(
            own.fill_knowing("no digits", 7, || false),
            "http://h:1/api/v2/specimen-records/7/"
        );
        // The operator's template is never second-guessed.
        let given = Address::Template(Template::parse("www.memcollection.com/s/{digits}").unwrap());
        let asked = std::cell::Cell::new(false);
        let said = given.fill_knowing("MEM-000367", 7, || {
            asked.set(true);
            false
        });
        assert_eq!(said, "www.memcollection.com/s/000367");
        assert!(!asked.get(), "a template needs no short links");
    }
}
