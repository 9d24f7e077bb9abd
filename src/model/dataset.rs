//! The dataset as its publisher describes it, once: title, licence, people,
//! codes. Written in a file (`--dataset-config`, JSON or TOML by its extension),
//! checked when read, stored in the snapshot by `build` and `sync`, and said by
//! the archive's `eml.xml`, `/eml.xml` and every page's footer.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What the publisher says of the dataset. Every key is optional in the file;
/// [`Dataset::missing`] says which of them GBIF asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dataset {
    pub title: String,
    pub description: String,
    /// The organisation that publishes the dataset.
    pub publisher: String,
    /// One of GBIF's three licences, as its SPDX name or URL (checked: [`License`]).
    pub license: String,
    /// The language of the data (`en`).
    pub language: String,
    /// The collection's own web site.
    pub homepage: String,
    pub keywords: Vec<String>,
    /// How the publisher asks to be cited (made from the other keys when empty).
    pub citation: String,
    /// The dataset's DOI (`10.xxxx/...`, or its `https://doi.org/` URL).
    pub doi: String,
    pub institution_code: String,
    pub institution_name: String,
    pub collection_code: String,
    pub collection_name: String,
    pub purpose: String,
    pub methods: String,
    /// GBIF's maintenance frequency (`asNeeded`, `monthly`, ...; checked).
    pub update_frequency: String,
    /// Who holds the rights to the records and photographs (the publisher
    /// when empty).
    pub rights_holder: String,
    pub creators: Vec<Party>,
    pub contacts: Vec<Party>,
    pub metadata_providers: Vec<Party>,
}

/// A person or an organisation named by the dataset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Party {
    /// A person's name, given names first (`Rosa M. Alvarez`).
    pub name: String,
    pub organization: String,
    pub email: String,
    /// `0000-0002-1825-0097`, or its `https://orcid.org/` URL.
    pub orcid: String,
}

/// The licences GBIF publishes under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum License {
    Cc0,
    CcBy,
    CcByNc,
}

/// GBIF's maintenance frequencies (its EML profile's vocabulary). The profile
/// spells "unknown" `unkown`: both are taken, and `eml.xml` says `unkown`.
pub const UPDATE_FREQUENCIES: &[&str] = &[
    "annually",
    "asNeeded",
    "biannually",
    "continually",
    "daily",
    "irregular",
    "monthly",
    "notPlanned",
    "otherMaintenancePeriod",
    "unknown",
    "weekly",
];

/// The most characters a value of the dataset file may have...
const MAX_TEXT: usize = 1_000;
/// ... and a text of paragraphs (`description`, `purpose`, `methods`,
/// `citation`).
const MAX_LONG_TEXT: usize = 20_000;

/// Whether `s` is an http or https URL a citation and a feed can carry whole:
/// nothing after the scheme that would end a field or an attribute.
fn is_url(s: &str) -> bool {
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    rest.is_some_and(|r| {
        !r.is_empty()
            && !r
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "{}<>\"\\`^|".contains(c))
    })
}

/// Whether `s` is an e-mail address as a citation and a feed carry it: one
/// `@` between a name and a domain with a dot, nothing that would end a field.
fn is_email(s: &str) -> bool {
    let Some((name, domain)) = s.split_once('@') else {
        return false;
    };
    !name.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "{}<>\"\\,;".contains(c))
        && !domain.contains('@')
}

/// Whether `s` is a DOI (`10.` a registrant of 4 to 9 digits, `/`, a
/// suffix), bare or as its https://doi.org/ URL, that a citation carries whole.
fn is_doi(s: &str) -> bool {
    let bare = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find_map(|p| s.strip_prefix(p))
    .unwrap_or(s);
    let Some((registrant, suffix)) = bare.strip_prefix("10.").and_then(|r| r.split_once('/'))
    else {
        return false;
    };
    (4..=9).contains(&registrant.len())
        && registrant.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && !suffix.is_empty()
        && !suffix
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "{}<>\"\\".contains(c))
}

/// The most bytes a dataset file may hold: a description, not a collection.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The text of the dataset file at `path`: a regular file (a FIFO, a device
/// or a directory is refused at once, without waiting on it) of at most
/// [`MAX_FILE_BYTES`], in UTF-8.
fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let refused = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(refused(
            "it is not a regular file (a FIFO, a device or a directory): give the file itself"
                .into(),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(refused(format!(
            "it holds more than {MAX_FILE_BYTES} bytes, the most a dataset file may"
        )));
    }
    String::from_utf8(bytes).map_err(|_| refused("it is not UTF-8 text".into()))
}

/// A parser's message, cut to a line's length (it may quote a value).
fn bounded(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    match line.char_indices().nth(160) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

/// Why a dataset file was not taken.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    // `cause`, not `source`: said once, in the message, not again by error chains.
    #[error("cannot read the dataset file {path}: {cause}")]
    Read { path: String, cause: std::io::Error },
    #[error("the dataset file {path} is not valid {format}: {cause} (`catalogue dataset init` writes a template)")]
    Syntax {
        path: String,
        format: &'static str,
        cause: String,
    },
    #[error("{place}: {problem}")]
    Value { place: String, problem: String },
}

impl License {
    pub const ALL: [License; 3] = [License::Cc0, License::CcBy, License::CcByNc];

    /// The licence a name or URL means: its SPDX name (`CC-BY-4.0`, any case)
    /// or its Creative Commons URL (http or https, with or without `legalcode`).
    pub fn parse(text: &str) -> Option<License> {
        let t = text.trim().to_ascii_lowercase();
        let t = t
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .trim_start_matches("www.")
            .trim_end_matches('/')
            .trim_end_matches("legalcode")
            .trim_end_matches('/');
        License::ALL.into_iter().find(|l| {
            t == l.spdx().to_ascii_lowercase() || t == l.url().trim_start_matches("http://")
        })
    }

    /// The SPDX identifier.
    pub fn spdx(self) -> &'static str {
        match self {
            License::Cc0 => "CC0-1.0",
            License::CcBy => "CC-BY-4.0",
            License::CcByNc => "CC-BY-NC-4.0",
        }
    }

    /// The URL GBIF's registry recognises (its IPT writes these).
    pub fn url(self) -> &'static str {
        match self {
            License::Cc0 => "http://creativecommons.org/publicdomain/zero/1.0",
            License::CcBy => "http://creativecommons.org/licenses/by/4.0",
            License::CcByNc => "http://creativecommons.org/licenses/by-nc/4.0",
        }
    }

    /// The legal code's URL.
    pub fn legal_code(self) -> String {
        format!("{}/legalcode", self.url())
    }

    /// Its name, as GBIF's IPT writes it.
    pub fn title(self) -> &'static str {
        match self {
            License::Cc0 => "Public Domain (CC0 1.0)",
            License::CcBy => "Creative Commons Attribution (CC-BY) 4.0",
            License::CcByNc => "Creative Commons Attribution Non Commercial (CC-BY-NC) 4.0",
        }
    }
}

impl Party {
    /// The ORCID iD alone (`0000-0002-1825-0097`), from either form.
    pub fn orcid_id(&self) -> &str {
        let t = self.orcid.trim();
        t.rsplit('/').next().unwrap_or(t)
    }

    /// (given names, surname): the name's last word is the surname.
    pub fn name_parts(&self) -> (&str, &str) {
        let name = self.name.trim();
        match name.rsplit_once(' ') {
            Some((given, sur)) => (given.trim(), sur),
            None => ("", name),
        }
    }

    fn check(&self, place: &str) -> Result<(), DatasetError> {
        let wrong = |problem: String| {
            Err(DatasetError::Value {
                place: place.to_string(),
                problem,
            })
        };
        if self.name.trim().is_empty() && self.organization.trim().is_empty() {
            return wrong("a person or organisation needs a name or an organization".into());
        }
        let id = self.orcid_id();
        let orcid_shape = id.len() == 19
            && id.char_indices().all(|(i, c)| match i {
                4 | 9 | 14 => c == '-',
                18 => c.is_ascii_digit() || c == 'X',
                _ => c.is_ascii_digit(),
            });
        if !self.orcid.is_empty() && !orcid_shape {
            return wrong(format!(
                "orcid {:?} is not an ORCID iD (0000-0002-1825-0097, or https://orcid.org/0000-0002-1825-0097)",
                self.orcid
            ));
        }
        if !self.email.is_empty() && !is_email(&self.email) {
            return wrong(format!("email {:?} is not an address", self.email));
        }
        Ok(())
    }
}

impl Dataset {
    /// Reads and checks a dataset file: TOML when its name ends `.toml`, JSON
    /// otherwise.
    pub fn from_file(path: &Path) -> Result<Dataset, DatasetError> {
        let shown = path.display().to_string();
        let text = read_bounded(path).map_err(|cause| DatasetError::Read {
            path: shown.clone(),
            cause,
        })?;
        let toml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        // Where the file is in it, never what it says: a path given by
        // mistake (a link to another file) must not be quoted in a log.
        let parsed: Result<Dataset, String> = match toml {
            true => toml::from_str(&text).map_err(|e| {
                let at = e.span().map_or(0, |s| s.start).min(text.len());
                let line = text.as_bytes()[..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count()
                    + 1;
                format!("{} at line {line}", bounded(e.message()))
            }),
            false => serde_json::from_str(&text).map_err(|e| bounded(&e.to_string())),
        };
        let dataset = parsed.map_err(|cause| DatasetError::Syntax {
            path: shown.clone(),
            format: if toml { "TOML" } else { "JSON" },
            cause: cause.trim().to_string(),
        })?;
        dataset.check(&shown)?;
        Ok(dataset)
    }

    /// Checks the values a vocabulary or a shape constrains.
    pub fn check(&self, file: &str) -> Result<(), DatasetError> {
        let wrong = |key: &str, problem: String| {
            Err(DatasetError::Value {
                place: format!("{file}: {key}"),
                problem,
            })
        };
        if !self.license.is_empty() && License::parse(&self.license).is_none() {
            return wrong(
                "license",
                format!(
                    "{:?} is not a licence GBIF publishes under: write CC0-1.0, CC-BY-4.0 or \
                     CC-BY-NC-4.0 (or their creativecommons.org URL)",
                    self.license
                ),
            );
        }
        if !self.update_frequency.is_empty()
            && self.update_frequency != "unkown"
            && !UPDATE_FREQUENCIES.contains(&self.update_frequency.as_str())
        {
            return wrong(
                "update_frequency",
                format!(
                    "{:?} is not one of GBIF's: {}",
                    self.update_frequency,
                    UPDATE_FREQUENCIES.join(", ")
                ),
            );
        }
        for (key, parties) in [
            ("creators", &self.creators),
            ("contacts", &self.contacts),
            ("metadata_providers", &self.metadata_providers),
        ] {
            for (i, p) in parties.iter().enumerate() {
                p.check(&format!("{file}: {key}[{i}]"))?;
            }
        }
        if let Err((key, problem)) = self.check_texts() {
            return wrong(&key, problem);
        }
        if !self.homepage.is_empty() && !is_url(&self.homepage) {
            return wrong(
                "homepage",
                "is not a URL: http:// or https://, then no spaces, braces, quotes, \
                 backslashes or angle brackets"
                    .into(),
            );
        }
        if !self.doi.is_empty() && !is_doi(&self.doi) {
            return wrong(
                "doi",
                "is not a DOI: 10.NNNN/suffix (or https://doi.org/10.NNNN/suffix), \
                 the suffix without spaces, braces, quotes, backslashes or angle brackets"
                    .into(),
            );
        }
        Ok(())
    }

    /// Every text of the description (its people's too), by key: no control
    /// character, and no longer than a description needs. Names the key and
    /// the limit, never the text.
    fn check_texts(&self) -> Result<(), (String, String)> {
        fn walk(key: &str, value: &serde_json::Value) -> Result<(), (String, String)> {
            match value {
                serde_json::Value::String(s) => {
                    let long = ["description", "purpose", "methods", "citation"];
                    let limit = match long.contains(&key) {
                        true => MAX_LONG_TEXT,
                        false => MAX_TEXT,
                    };
                    if let Some(at) = s.chars().position(crate::encoding::controls::is_control) {
                        return Err((
                            key.to_string(),
                            format!(
                                "holds a control character at character {}: remove it",
                                at + 1
                            ),
                        ));
                    }
                    let chars = s.chars().count();
                    if chars > limit {
                        return Err((
                            key.to_string(),
                            format!("is {chars} characters long, more than the {limit} it may be"),
                        ));
                    }
                    Ok(())
                }
                serde_json::Value::Array(items) => (items.iter().enumerate())
                    .try_for_each(|(i, v)| walk(&format!("{key}[{i}]"), v)),
                serde_json::Value::Object(fields) => fields.iter().try_for_each(|(k, v)| {
                    let inner = match key.is_empty() {
                        true => k.clone(),
                        false => format!("{key}.{k}"),
                    };
                    walk(&inner, v)
                }),
                _ => Ok(()),
            }
        }
        walk("", &serde_json::to_value(self).unwrap_or_default())
    }

    /// The licence, when one was given (checked when read).
    pub fn licence(&self) -> Option<License> {
        License::parse(&self.license)
    }

    /// The title, or a plain one when none was given.
    pub fn title(&self) -> &str {
        match self.title.trim() {
            "" => "Specimen records",
            title => title,
        }
    }

    /// The language of the data, `en` unless said.
    pub fn language(&self) -> &str {
        match self.language.trim() {
            "" => "en",
            language => language,
        }
    }

    /// Who holds the rights: the file's rights holder, else the publisher.
    pub fn rights_holder(&self) -> &str {
        match self.rights_holder.trim() {
            "" => self.publisher.trim(),
            holder => holder,
        }
    }

    /// The DOI as a URL (`https://doi.org/10.xxxx/yyy`), when there is one.
    pub fn doi_url(&self) -> Option<String> {
        let doi = self.doi.trim();
        let bare = doi
            .trim_start_matches("https://doi.org/")
            .trim_start_matches("http://dx.doi.org/")
            .trim_start_matches("doi:");
        (!bare.is_empty()).then(|| format!("https://doi.org/{bare}"))
    }

    /// The keys GBIF requires or its registry shows that this dataset lacks,
    /// each with what goes without it.
    pub fn missing(&self) -> Vec<(&'static str, &'static str)> {
        [
            (
                self.title.trim().is_empty(),
                "title",
                "the title is the placeholder \"Specimen records\"",
            ),
            (
                self.description.trim().is_empty(),
                "description",
                "eml.xml's abstract is a sentence of counts, not the publisher's words",
            ),
            (
                self.license.trim().is_empty(),
                "license",
                "no licence, which GBIF requires (CC0-1.0, CC-BY-4.0 or CC-BY-NC-4.0)",
            ),
            (
                self.publisher.trim().is_empty(),
                "publisher",
                "no publishing organisation, nor a rights holder for the photographs",
            ),
            (
                self.creators.is_empty(),
                "creators",
                "eml.xml names the publishing organisation as its creator, as GBIF's IPT does",
            ),
            (
                self.contacts.is_empty(),
                "contacts",
                "eml.xml names the publishing organisation as its contact, as GBIF's IPT does",
            ),
            (
                self.metadata_providers.is_empty(),
                "metadata_providers",
                "eml.xml names the publishing organisation as its metadata provider, as GBIF's IPT does",
            ),
            (
                self.institution_code.trim().is_empty(),
                "institution_code",
                "every occurrence's institutionCode is empty",
            ),
            (
                self.institution_name.trim().is_empty(),
                "institution_name",
                "where eml.xml names the institution for missing creators and contacts, it gives only its code",
            ),
            (
                self.collection_code.trim().is_empty(),
                "collection_code",
                "every occurrence's collectionCode is empty",
            ),
            (
                self.collection_name.trim().is_empty(),
                "collection_name",
                "eml.xml's collectionName is N/A",
            ),
        ]
        .into_iter()
        .filter(|(lacking, ..)| *lacking)
        .map(|(_, key, effect)| (key, effect))
        .collect()
    }

    /// The authors a citation names: the creators (a person's name, else
    /// their organisation), else the publisher.
    pub fn authors(&self) -> Vec<&str> {
        let creators: Vec<&str> = self
            .creators
            .iter()
            .map(|p| match p.name.trim() {
                "" => p.organization.trim(),
                name => name,
            })
            .collect();
        match (creators.is_empty(), self.publisher.trim()) {
            (false, _) => creators,
            (true, "") => Vec::new(),
            (true, publisher) => vec![publisher],
        }
    }

    /// The occurrenceIDs its records are published under (`model::occurrence_id`).
    pub fn occurrence_ids(&self) -> super::occurrence_id::OccurrenceIds {
        let rule = super::occurrence_id::rule_of("", &self.institution_code);
        super::occurrence_id::OccurrenceIds::new(
            rule,
            &self.institution_code,
            &self.collection_code,
        )
    }

    /// What publishing this dataset after `before` does to its records'
    /// occurrenceIDs when their rule changed: GBIF takes every record for a
    /// new one. `None` when they stay.
    pub fn renames_occurrences(&self, before: &Dataset) -> Option<String> {
        let (was, is) = (before.occurrence_ids().rule(), self.occurrence_ids().rule());
        (was != is).then(|| {
            format!(
                "the records' occurrenceIDs change from {was} to {is}: GBIF will take every \
                 record for a new one and delete the old ones; to keep them, keep the dataset \
                 file's occurrence rule, institution_code and collection_code as they were"
            )
        })
    }

    /// How to cite the dataset: the publisher's words, else made from its
    /// authors, year, title, version, publisher, URL and DOI.
    pub fn citation(&self, year: &str, version: u64, url: &str) -> String {
        if !self.citation.trim().is_empty() {
            return format!("{} Version {version}.", self.citation.trim());
        }
        let authors = self.authors();
        let mut s = match authors.is_empty() {
            false => format!("{} ({year}). ", authors.join(", ")),
            true => String::new(),
        };
        s.push_str(self.title());
        s.push_str(&format!(". Version {version}."));
        if !self.publisher.trim().is_empty() {
            s.push(' ');
            s.push_str(self.publisher.trim());
            s.push('.');
        }
        match self.doi_url() {
            Some(doi) => s.push_str(&format!(" {doi}")),
            None if !url.is_empty() => s.push_str(&format!(" {url}")),
            None => {}
        }
        s
    }
}

/// A field of [`Dataset`] a flag sets.
pub type Field = fn(&mut Dataset) -> &mut String;

/// What a command was told of the dataset besides the snapshot: a file, which
/// replaces the snapshot's description whole, then single values over it.
#[derive(Clone, Debug, Default)]
pub struct Told {
    pub file: Option<Dataset>,
    pub values: Vec<(Field, String)>,
}

impl Told {
    /// The dataset to say: `stored` (the snapshot's) unless a file was given,
    /// then each value told.
    pub fn over(&self, stored: &Dataset) -> Dataset {
        let mut d = self.file.clone().unwrap_or_else(|| stored.clone());
        for (field, value) in &self.values {
            *field(&mut d) = value.clone();
        }
        d
    }

    /// Whether nothing was told (the snapshot's description stands).
    pub fn is_empty(&self) -> bool {
        self.file.is_none() && self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licences_by_name_and_url() {
        for (text, licence) in [
            ("CC0-1.0", License::Cc0),
            ("cc-by-4.0", License::CcBy),
            (
                "https://creativecommons.org/licenses/by-nc/4.0/legalcode",
                License::CcByNc,
            ),
            (
                "http://creativecommons.org/publicdomain/zero/1.0/",
                License::Cc0,
            ),
        ] {
            assert_eq!(License::parse(text), Some(licence), "{text}");
        }
        for text in [
            "CC-BY-SA-4.0",
            "MIT",
            "",
            "creativecommons.org/licenses/by/3.0",
        ] {
            assert_eq!(License::parse(text), None, "{text}");
        }
    }

    #[test]
    fn checks_name_each_wrong_value() {
        let mut d = Dataset {
            license: "CC-BY-SA-4.0".into(),
            ..Dataset::default()
        };
        let e = d.check("d.json").unwrap_err().to_string();
        assert!(e.starts_with("d.json: license: \"CC-BY-SA-4.0\""), "{e}");
        d.license = "CC-BY-4.0".into();
        d.creators.push(Party {
            name: "Ada Lovelace".into(),
            orcid: "0000-0002-1825-009".into(),
            ..Party::default()
        });
        let e = d.check("d.json").unwrap_err().to_string();
        assert!(e.starts_with("d.json: creators[0]: orcid"), "{e}");
        d.creators[0].orcid = "https://orcid.org/0000-0002-1825-0097".into();
        d.check("d.json").unwrap();
        assert_eq!(d.creators[0].orcid_id(), "0000-0002-1825-0097");
        assert_eq!(d.creators[0].name_parts(), ("Ada", "Lovelace"));
        for frequency in ["unknown", "unkown", "asNeeded"] {
            d.update_frequency = frequency.into();
            d.check("d.json").unwrap();
        }
        d.update_frequency = "sometimes".into();
        let e = d.check("d.json").unwrap_err().to_string();
        assert!(
            e.starts_with("d.json: update_frequency: \"sometimes\""),
            "{e}"
        );
    }

    #[test]
    fn citation_from_the_keys_or_the_publishers_words() {
        let mut d = Dataset {
            title: "Insects".into(),
            publisher: "A Museum".into(),
            doi: "10.1234/abc".into(),
            creators: vec![Party {
                name: "Ada Lovelace".into(),
                ..Party::default()
            }],
            ..Dataset::default()
        };
        assert_eq!(
            d.citation("2026", 3, "https://x.org/"),
            "Ada Lovelace (2026). Insects. Version 3. A Museum. https://doi.org/10.1234/abc"
        );
        d.citation = "Cite us so.".into();
        assert_eq!(d.citation("2026", 3, ""), "Cite us so. Version 3.");
    }

    #[test]
    fn urls_dois_and_addresses_by_their_rules() {
        for url in ["https://example.org/", "http://a.b/c?d=1&e=%20"] {
            assert!(is_url(url), "{url}");
        }
        for url in [
            "",
            "example.org",
            "ftp://x",
            "https://",
            "https://h.example/}}\n@misc{x,",
            "https://a b",
        ] {
            assert!(!is_url(url), "{url}");
        }
        for doi in [
            "10.15468/abc.123",
            "https://doi.org/10.1000/xyz",
            "doi:10.12345/a(b)",
        ] {
            assert!(is_doi(doi), "{doi}");
        }
        for doi in [
            "",
            "10.1/x",
            "11.1234/x",
            "10.1234/",
            "10.1234/a}b",
            "10.1234/a b",
        ] {
            assert!(!is_doi(doi), "{doi}");
        }
        for email in ["ada@example.org", "a.b+c@x.co.uk"] {
            assert!(is_email(email), "{email}");
        }
        for email in [
            "ada",
            "@x.org",
            "a@b",
            "a@@b.org",
            "a b@c.org",
            "a@b.org}",
            "a@.org",
        ] {
            assert!(!is_email(email), "{email}");
        }
    }

    #[test]
    fn every_text_is_checked_for_controls_and_length_by_its_key() {
        let mut d = Dataset {
            title: "Insects".into(),
            ..Dataset::default()
        };
        assert!(d.check("f").is_ok());
        d.creators = vec![Party {
            name: "Ada\u{1}".into(),
            ..Party::default()
        }];
        let said = d.check("f").unwrap_err().to_string();
        assert_eq!(
            said,
            "f: creators[0].name: holds a control character at character 4: remove it"
        );
        d.creators.clear();
        d.title = "t".repeat(MAX_TEXT + 1);
        let said = d.check("f").unwrap_err().to_string();
        assert_eq!(
            said,
            "f: title: is 1001 characters long, more than the 1000 it may be"
        );
        d.title.clear();
        d.description = "d".repeat(MAX_TEXT + 1);
        assert!(d.check("f").is_ok(), "a description is longer");
        d.homepage = "https://h.example/}}\n@misc{injected,".into();
        assert!(d
            .check("f")
            .unwrap_err()
            .to_string()
            .starts_with("f: homepage: is not a URL"));
    }
}
