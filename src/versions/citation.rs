//! How to cite a version (`/api/v2/citation/?format=text|bibtex|ris|csl|datacite`,
//! `version=N`, `accessed=YYYY-MM-DD`), as GBIF writes a dataset's citation:
//! made from the dataset's description where the publisher gave it (title,
//! creators and metadata providers, publisher, the version's DOI, homepage)
//! and from the collection otherwise (its title placeholder, the address it
//! was asked at), with the version's number and year, and the day it was
//! accessed (the request's, in UTC, unless `accessed` says). Each format is
//! made once per view ([`Citations`]) with marks where the address and the
//! day go, which a request fills in.

use chrono::{Datelike, NaiveDate};

use crate::model::dataset::{Dataset, Party, RESERVED};
use crate::model::history::Version;
use crate::query::{ApiError, Params};
use crate::view::{Derive, View};

use super::list::only;

/// The formats a citation is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Text,
    Bibtex,
    Ris,
    Csl,
    /// DataCite's metadata (schema 4.5), from which a DOI can be minted.
    Datacite,
}

impl Style {
    pub const ALL: [(&'static str, Style); 5] = [
        ("text", Style::Text),
        ("bibtex", Style::Bibtex),
        ("ris", Style::Ris),
        ("csl", Style::Csl),
        ("datacite", Style::Datacite),
    ];

    /// Its media type.
    pub fn content_type(self) -> &'static str {
        match self {
            Style::Text => "text/plain; charset=utf-8",
            Style::Bibtex => "application/x-bibtex; charset=utf-8",
            Style::Ris => "application/x-research-info-systems; charset=utf-8",
            Style::Csl => "application/vnd.citationstyles.csl+json",
            Style::Datacite => "application/vnd.datacite.datacite+xml",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A citation asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CitationRequest {
    pub style: Style,
    /// The version (the current one when `None`).
    pub version: Option<u64>,
    /// The day the dataset was accessed (the request's, in UTC, when `None`).
    pub accessed: Option<NaiveDate>,
}

/// Reads `format` (default `text`), `version` and `accessed`.
pub fn citation_request(params: &Params) -> Result<CitationRequest, ApiError> {
    only(params, &["format", "version", "accessed"], "a citation")?;
    let style = match params.get("format") {
        None => Style::Text,
        Some(f) => Style::ALL
            .iter()
            .find(|(name, _)| *name == f)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                ApiError::bad_request(format!(
                    "format must be text, bibtex, ris, csl or datacite, not {f:?}"
                ))
            })?,
    };
    let version = match params.get("version") {
        None => None,
        // A number past any version is one the history does not hold (404).
        Some(raw) if crate::encoding::whole::is_canonical(raw) => {
            Some(raw.parse::<u64>().unwrap_or(u64::MAX))
        }
        Some(raw) => {
            return Err(ApiError::bad_request(format!(
                "version must be a version number, without leading zeros, not {raw:?}"
            )))
        }
    };
    let accessed = match params.get("accessed") {
        None => None,
        Some(raw) => Some(crate::encoding::time::parse_day(raw).ok_or_else(|| {
            let shown: String = raw.chars().take(40).collect();
            ApiError::bad_request(format!(
                "accessed must be a day as YYYY-MM-DD (2026-11-29), not {shown:?}"
            ))
        })?),
    };
    Ok(CitationRequest {
        style,
        version,
        accessed,
    })
}

/// Where a request's own values go in a citation made beforehand: the
/// address the site was asked at, its host, the day it was accessed. Private
/// use characters, which no format escapes and a description does not hold
/// (its check refuses them: [`RESERVED`]).
const ORIGIN: char = RESERVED[0];
const HOST: char = RESERVED[1];
const ACCESSED: char = RESERVED[2];

/// A citation made once, with marks where a request's values go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pieces: Vec<Piece>,
    style: Style,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Origin,
    Host,
    Accessed,
}

impl Template {
    /// Cuts `text` at its marks.
    fn of(style: Style, text: &str) -> Template {
        // CSL-JSON's date is numbers: the mark is made a string to be
        // written, and the string (quotes and all) is what is replaced.
        let quoted = format!("\"{ACCESSED}\"");
        let text = text.replace(&quoted, &ACCESSED.to_string());
        let mut pieces = Vec::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find([ORIGIN, HOST, ACCESSED]) {
            if at > 0 {
                pieces.push(Piece::Text(rest[..at].to_string()));
            }
            let mark = rest[at..].chars().next().expect("a mark");
            pieces.push(match mark {
                ORIGIN => Piece::Origin,
                HOST => Piece::Host,
                _ => Piece::Accessed,
            });
            rest = &rest[at + mark.len_utf8()..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        Template { pieces, style }
    }

    /// The citation, the request's values filled in.
    pub fn fill(&self, origin: &str, accessed: NaiveDate) -> String {
        // The origin may be the request's Host (`evil&x` is a host): XML
        // holds it escaped.
        let escaped;
        let origin = match self.style {
            Style::Datacite => {
                escaped = crate::encoding::xml::escaped(origin);
                escaped.as_str()
            }
            _ => origin,
        };
        let host = origin
            .split_once("://")
            .map_or(origin, |(_, host)| host)
            .trim_end_matches('/');
        let (y, m, d) = (accessed.year(), accessed.month(), accessed.day());
        let day = match self.style {
            Style::Ris => format!("{y:04}/{m:02}/{d:02}"),
            Style::Csl => format!("[[{y},{m},{d}]]"),
            _ => format!("{y:04}-{m:02}-{d:02}"),
        };
        let mut out = String::with_capacity(
            self.pieces
                .iter()
                .map(|p| match p {
                    Piece::Text(t) => t.len(),
                    _ => origin.len().max(day.len()),
                })
                .sum(),
        );
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Origin => out.push_str(origin),
                Piece::Host => out.push_str(host),
                Piece::Accessed => out.push_str(&day),
            }
        }
        out
    }
}

/// The current version's citation in each format, made once per view.
pub struct Citations {
    version: u64,
    templates: Vec<Template>,
}

impl Derive for Citations {
    fn derive(view: &View) -> Citations {
        let version = view.history.current();
        let templates = match view.history.version(version) {
            Some(v) => Style::ALL
                .iter()
                .map(|(_, style)| make(view, v, *style))
                .collect(),
            None => Vec::new(),
        };
        Citations { version, templates }
    }
}

/// A version's citation in a format, with its marks.
fn make(view: &View, version: &Version, style: Style) -> Template {
    let url = match view.dataset.homepage.trim() {
        "" => format!("{ORIGIN}/"),
        homepage => homepage.to_string(),
    };
    let cited = Cited {
        dataset: &view.dataset,
        version,
        url,
    };
    let text = match style {
        Style::Text => cited.text(),
        Style::Bibtex => cited.bibtex(),
        Style::Ris => cited.ris(),
        Style::Csl => cited.csl(),
        Style::Datacite => {
            super::datacite::datacite(view, version, &cited.url, &ORIGIN.to_string())
        }
    };
    Template::of(style, &text)
}

/// What a citation says, whatever its format.
pub(super) struct Cited<'a> {
    dataset: &'a Dataset,
    version: &'a Version,
    /// The site's address: the homepage, else the address asked at (marked).
    url: String,
}

/// An author: a person's (family name, given names), or an organisation's
/// name whole.
enum Author {
    Person(Box<Party>),
    Organisation(String),
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

    /// The authors, as the text names them (creators, then metadata
    /// providers, each once; else the publisher).
    fn authors(&self) -> Vec<Author> {
        self.dataset
            .cited()
            .into_iter()
            .map(|p| match p.is_person() {
                true => Author::Person(Box::new(p)),
                false => Author::Organisation(p.organization.trim().to_string()),
            })
            .collect()
    }

    /// The version's DOI (`10.x/y`), else the dataset's.
    fn doi(&self) -> Option<String> {
        (self.dataset.version_doi(self.version.number)).map(|doi| doi.bare().to_string())
    }

    fn text(&self) -> String {
        let d = self.dataset;
        let url = match d.version_doi(self.version.number) {
            Some(_) => String::new(),
            None => self.url.clone(),
        };
        // After the link, as GBIF's; after the publisher's words, a sentence.
        let accessed = match d.citation.trim().is_empty() {
            true => "accessed",
            false => "Accessed",
        };
        let cited = d.citation(&self.year(), self.version.number, &url);
        format!("{cited} {accessed} via {HOST} on {ACCESSED}.\n")
    }

    fn bibtex(&self) -> String {
        let authors: Vec<String> = self
            .authors()
            .iter()
            .map(|a| match a {
                Author::Organisation(name) => format!("{{{}}}", bib(name)),
                Author::Person(p) => match p.name_parts() {
                    (_, "") => String::new(),
                    ("", surname) => bib(surname),
                    (given, surname) => format!("{}, {}", bib(surname), bib(given)),
                },
            })
            .filter(|a| !a.is_empty())
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
        fields.push(("urldate", ACCESSED.to_string()));
        let mut s = format!("@misc{{{key},\n");
        for (name, value) in fields.into_iter().filter(|(_, v)| !v.is_empty()) {
            s.push_str(&format!("  {name} = {{{value}}},\n"));
        }
        s.push_str("}\n");
        s
    }

    fn ris(&self) -> String {
        let mut lines = vec![("TY", "DATA".to_string())];
        for author in self.authors() {
            lines.push((
                "AU",
                match author {
                    Author::Organisation(name) => name,
                    Author::Person(p) => match p.name_parts() {
                        ("", surname) => surname.to_string(),
                        (given, surname) => format!("{surname}, {given}"),
                    },
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
        lines.push(("Y2", ACCESSED.to_string()));
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
            .map(|a| match a {
                Author::Organisation(name) => serde_json::json!({"literal": name}),
                Author::Person(p) => {
                    let (given, _) = p.name_parts();
                    let (particles, family) = p.surname_particles();
                    let mut name = serde_json::json!({"family": family, "given": given});
                    if !particles.is_empty() {
                        name["non-dropping-particle"] = particles.into();
                    }
                    name
                }
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
        item["accessed"] = serde_json::json!({"date-parts": ACCESSED.to_string()});
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
/// dataset names no homepage, `today` the request's day (UTC). The current
/// version's is made once per view; another's when asked. A version the
/// history no longer holds is 404.
pub fn citation(
    view: &View,
    request: CitationRequest,
    origin: &str,
    today: NaiveDate,
) -> Result<String, ApiError> {
    let history = &view.history;
    let number = request.version.unwrap_or_else(|| history.current());
    let accessed = request.accessed.unwrap_or(today);
    let made = view.derived::<Citations>();
    if made.version == number {
        if let Some(template) = made.templates.get(request.style.index()) {
            return Ok(template.fill(origin, accessed));
        }
    }
    let version = history.version(number).ok_or_else(|| {
        ApiError::not_found(format!(
            "no version {number}: the history holds versions {} to {}",
            history.oldest(),
            history.current()
        ))
    })?;
    Ok(make(view, version, request.style).fill(origin, accessed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_fills_in_the_address_the_host_and_the_day() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let text = Template::of(
            Style::Text,
            &format!("at {ORIGIN}/ accessed via {HOST} on {ACCESSED}.\n"),
        );
        assert_eq!(
            text.fill("https://h.example", day),
            "at https://h.example/ accessed via h.example on 2026-11-29.\n"
        );
        let csl = Template::of(
            Style::Csl,
            &serde_json::json!({"accessed": {"date-parts": ACCESSED.to_string()}}).to_string(),
        );
        assert_eq!(
            csl.fill("", day),
            "{\"accessed\":{\"date-parts\":[[2026,11,29]]}}"
        );
        let ris = Template::of(Style::Ris, &format!("Y2  - {ACCESSED}\r\n"));
        assert_eq!(ris.fill("", day), "Y2  - 2026/11/29\r\n");
        // Without marks, the text whole.
        assert_eq!(
            Template::of(Style::Bibtex, "@misc{x,}").fill("o", day),
            "@misc{x,}"
        );
    }

    #[test]
    fn bibtex_escapes_what_it_reads_as_markup() {
        assert_eq!(bib("A & B_1 {x} 50%"), "A \\& B\\_1 \\{x\\} 50\\%");
    }
}
