//! How to cite a version (`/api/v2/citation/?format=text|bibtex|ris|csl`,
//! `version=N`): made from the dataset's description where the publisher gave
//! it (title, creators, publisher, DOI, homepage) and from the collection
//! otherwise (its title placeholder, the address it was asked at), with the
//! version's number and year.

use chrono::Datelike;

use crate::model::dataset::Dataset;
use crate::model::history::Version;
use crate::query::{ApiError, Params};
use crate::view::View;

use super::list::only;

/// The formats a citation is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    Bibtex,
    Ris,
    Csl,
}

impl Style {
    pub const ALL: [(&'static str, Style); 4] = [
        ("text", Style::Text),
        ("bibtex", Style::Bibtex),
        ("ris", Style::Ris),
        ("csl", Style::Csl),
    ];

    /// Its media type.
    pub fn content_type(self) -> &'static str {
        match self {
            Style::Text => "text/plain; charset=utf-8",
            Style::Bibtex => "application/x-bibtex; charset=utf-8",
            Style::Ris => "application/x-research-info-systems; charset=utf-8",
            Style::Csl => "application/vnd.citationstyles.csl+json",
        }
    }
}

/// A citation asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CitationRequest {
    pub style: Style,
    /// The version (the current one when `None`).
    pub version: Option<u64>,
}

/// Reads `format` (default `text`) and `version`.
pub fn citation_request(params: &Params) -> Result<CitationRequest, ApiError> {
    only(params, &["format", "version"], "a citation")?;
    let style = match params.get("format") {
        None => Style::Text,
        Some(f) => Style::ALL
            .iter()
            .find(|(name, _)| *name == f)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "format must be text, bibtex, ris or csl, not {f:?}"
                ))
            })?,
    };
    let version = match params.get("version") {
        None => None,
        // A number past any version is one the history does not hold (404).
        Some(raw) if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) => {
            Some(raw.parse::<u64>().unwrap_or(u64::MAX))
        }
        Some(raw) => {
            return Err(ApiError::bad_request(format!(
                "version must be a version number, not {raw:?}"
            )))
        }
    };
    Ok(CitationRequest { style, version })
}

/// What a citation says, whatever its format.
struct Cited<'a> {
    dataset: &'a Dataset,
    version: &'a Version,
    url: String,
}

impl Cited<'_> {
    fn date(&self) -> Option<chrono::DateTime<chrono::Utc>> {
        chrono::DateTime::from_timestamp_micros(self.version.published_at)
    }

    fn year(&self) -> String {
        self.date()
            .map(|d| d.year().to_string())
            .unwrap_or_default()
    }

    /// Each author as (family, given), an organisation's name whole as family.
    fn authors(&self) -> Vec<(String, String, bool)> {
        let d = self.dataset;
        let people: Vec<(String, String, bool)> = d
            .creators
            .iter()
            .map(|p| match p.name.trim() {
                "" => (p.organization.trim().to_string(), String::new(), true),
                _ => {
                    let (given, family) = p.name_parts();
                    (family.to_string(), given.to_string(), false)
                }
            })
            .collect();
        match (people.is_empty(), d.publisher.trim()) {
            (false, _) => people,
            (true, "") => Vec::new(),
            (true, publisher) => vec![(publisher.to_string(), String::new(), true)],
        }
    }

    fn doi(&self) -> Option<String> {
        self.dataset
            .doi_url()
            .map(|u| u.trim_start_matches("https://doi.org/").to_string())
    }

    fn text(&self) -> String {
        let url = match self.dataset.doi_url() {
            Some(_) => String::new(),
            None => self.url.clone(),
        };
        self.dataset
            .citation(&self.year(), self.version.number, &url)
            + "\n"
    }

    fn bibtex(&self) -> String {
        let authors: Vec<String> = self
            .authors()
            .iter()
            .map(|(family, given, organisation)| match organisation {
                true => format!("{{{}}}", bib(family)),
                false if given.is_empty() => bib(family),
                false => format!("{}, {}", bib(family), bib(given)),
            })
            .collect();
        let key = format!(
            "{}{}v{}",
            self.dataset
                .institution_code
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>(),
            self.year(),
            self.version.number
        );
        let key = match key.starts_with(|c: char| c.is_ascii_digit()) {
            true => format!("catalogue{key}"),
            false => key,
        };
        let mut fields = vec![
            ("author", authors.join(" and ")),
            ("title", format!("{{{}}}", bib(self.dataset.title()))),
            ("publisher", bib(self.dataset.publisher.trim())),
            ("year", self.year()),
            ("version", self.version.number.to_string()),
            ("url", bib_url(&self.url)),
        ];
        if let Some(doi) = self.doi() {
            fields.push(("doi", bib_url(&doi)));
        }
        let mut s = format!("@misc{{{key},\n");
        for (name, value) in fields.into_iter().filter(|(_, v)| !v.is_empty()) {
            s.push_str(&format!("  {name} = {{{value}}},\n"));
        }
        s.push_str("}\n");
        s
    }

    fn ris(&self) -> String {
        let mut lines = vec![("TY", "DATA".to_string())];
        for (family, given, organisation) in self.authors() {
            lines.push((
                "AU",
                match (organisation, given.is_empty()) {
                    (true, _) | (false, true) => family,
                    (false, false) => format!("{family}, {given}"),
                },
            ));
        }
        lines.push(("TI", self.dataset.title().to_string()));
        lines.push(("PY", self.year()));
        if let Some(d) = self.date() {
            lines.push(("DA", d.format("%Y/%m/%d").to_string()));
        }
        lines.push(("PB", self.dataset.publisher.trim().to_string()));
        lines.push(("ET", format!("Version {}", self.version.number)));
        lines.push(("UR", self.url.clone()));
        if let Some(doi) = self.doi() {
            lines.push(("DO", doi));
        }
        let mut s = String::new();
        for (tag, value) in lines.into_iter().filter(|(_, v)| !v.is_empty()) {
            let value = crate::encoding::controls::without(&value).replace(['\r', '\n', '\t'], " ");
            s.push_str(&format!("{tag}  - {value}\r\n"));
        }
        s.push_str("ER  - \r\n");
        s
    }

    fn csl(&self) -> String {
        let authors: Vec<serde_json::Value> = self
            .authors()
            .into_iter()
            .map(|(family, given, organisation)| match organisation {
                true => serde_json::json!({"literal": family}),
                false => serde_json::json!({"family": family, "given": given}),
            })
            .collect();
        let mut item = serde_json::json!({
            "id": format!("catalogue-v{}", self.version.number),
            "type": "dataset",
            "title": self.dataset.title(),
            "author": authors,
            "version": self.version.number.to_string(),
            "URL": self.url,
        });
        if let Some(d) = self.date() {
            item["issued"] = serde_json::json!({"date-parts": [[d.year(), d.month(), d.day()]]});
        }
        if !self.dataset.publisher.trim().is_empty() {
            item["publisher"] = self.dataset.publisher.trim().into();
        }
        if let Some(doi) = self.doi() {
            item["DOI"] = doi.into();
        }
        serde_json::to_string(&[item]).expect("JSON") + "\n"
    }
}

/// A URL or DOI as a BibTeX field holds it verbatim: the characters that
/// would close the field or escape out of it (braces, backslashes), and
/// spaces and controls, percent-encoded.
fn bib_url(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '{' | '}' | '\\' => out.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_whitespace() || c.is_control() => {
                let mut utf8 = [0; 4];
                for b in c.encode_utf8(&mut utf8).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A value as BibTeX reads it: its special characters escaped (so that no
/// value can close its field or begin an entry), line breaks as spaces,
/// control characters dropped.
fn bib(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if crate::encoding::controls::is_control(c) => {}
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '&' | '%' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c => out.push(c),
        }
    }
    out
}

/// The citation of a version, `origin` the address the site is at when the
/// dataset names no homepage. A version the history no longer holds is 404.
pub fn citation(view: &View, request: CitationRequest, origin: &str) -> Result<String, ApiError> {
    let history = &view.history;
    let number = request.version.unwrap_or_else(|| history.current());
    let version = history.version(number).ok_or_else(|| {
        ApiError::not_found(format!(
            "no version {number}: the history holds versions {} to {}",
            history.oldest(),
            history.current()
        ))
    })?;
    let url = match view.dataset.homepage.trim() {
        "" => format!("{origin}/"),
        homepage => homepage.to_string(),
    };
    let cited = Cited {
        dataset: &view.dataset,
        version,
        url,
    };
    Ok(match request.style {
        Style::Text => cited.text(),
        Style::Bibtex => cited.bibtex(),
        Style::Ris => cited.ris(),
        Style::Csl => cited.csl(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bibtex_escapes_what_it_reads_as_markup() {
        assert_eq!(bib("A & B_1 {x} 50%"), "A \\& B\\_1 \\{x\\} 50\\%");
    }
}
