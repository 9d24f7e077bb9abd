//! The dataset as its publisher describes it, once: title, licence, people,
//! codes. Written in a file (`--dataset-config`, JSON or TOML by its extension),
//! checked when read, stored in the snapshot by `build` and `sync`, and said by
//! the archive's `eml.xml`, `/eml.xml` and every page's footer.

use std::collections::BTreeMap;
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
    /// How the specimens were collected and the data made: the method's steps.
    pub methods: String,
    /// How the records were checked (EML's `qualityControl`).
    pub quality_control: String,
    /// Where and how the specimens were sampled.
    pub sampling: Sampling,
    /// GBIF's maintenance frequency (`asNeeded`, `monthly`, ...; checked).
    pub update_frequency: String,
    /// Who holds the rights to the records and photographs (the publisher
    /// when empty).
    pub rights_holder: String,
    pub creators: Vec<Party>,
    pub contacts: Vec<Party>,
    pub metadata_providers: Vec<Party>,
    /// The dataset's identifier, a UUID or a URI: eml.xml's `packageId` is
    /// it and the version (a stable one made from the codes and the title
    /// when empty: [`Dataset::identifier`]).
    pub id: String,
    /// Others who had a part, each with a `role` of GBIF's.
    pub associated_parties: Vec<Party>,
    /// The project the dataset comes of.
    pub project: Project,
    /// A logo's URL (`resourceLogoUrl`).
    pub resource_logo_url: String,
    /// Each version's own DOI, by the version's number (`"3" = "10.x/y"`).
    pub version_dois: BTreeMap<String, String>,
    /// The rule each record's occurrenceID is made by: a template with
    /// `{catalog_number}` once, and `{institution_code}`, `{collection_code}`
    /// (checked: `model::occurrence_id`). Darwin Core's catalogue URN when
    /// empty.
    pub occurrence_id: String,
}

/// Where and how the specimens were sampled (EML's `sampling`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Sampling {
    /// The places and times the sampling covered.
    pub study_extent: String,
    /// How the samples were taken.
    pub sampling_description: String,
}

/// The project the dataset comes of (EML's `project`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Project {
    pub title: String,
    /// The project's identifier (GBIF's IPT: a grant's or a programme's).
    pub identifier: String,
    pub description: String,
    /// Who paid for it.
    pub funding: String,
    /// The area the project studied.
    pub study_area_description: String,
    /// Its people, each with a `role` of GBIF's.
    pub personnel: Vec<Party>,
}

/// A postal address (EML's `address`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Address {
    pub delivery_point: String,
    pub city: String,
    pub administrative_area: String,
    pub postal_code: String,
    pub country: String,
}

impl Address {
    /// Whether no part of it was given.
    pub fn is_empty(&self) -> bool {
        self.parts().iter().all(|(_, v)| v.trim().is_empty())
    }

    /// Its parts with EML's names, in the profile's order.
    pub fn parts(&self) -> [(&'static str, &str); 5] {
        [
            ("deliveryPoint", &self.delivery_point),
            ("city", &self.city),
            ("administrativeArea", &self.administrative_area),
            ("postalCode", &self.postal_code),
            ("country", &self.country),
        ]
    }
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
    /// The given names, where `name` alone would split them wrongly.
    pub given_name: String,
    /// The surname with its particles (`van der Berg`).
    pub surname: String,
    pub position_name: String,
    pub phone: String,
    /// Their own web page.
    pub online_url: String,
    pub address: Address,
    /// What they did, one of GBIF's agent roles ([`ROLES`]): said of
    /// associated parties and project personnel.
    pub role: String,
}

/// GBIF's agent roles (its vocabulary `agentRole`, as its IPT offers them).
pub const ROLES: &[&str] = &[
    "author",
    "contentProvider",
    "custodianSteward",
    "curator",
    "distributor",
    "editor",
    "metadataProvider",
    "originator",
    "owner",
    "pointOfContact",
    "principalInvestigator",
    "processor",
    "programmer",
    "publisher",
    "reviewer",
    "user",
];

/// The lowercase words that begin a surname (`van der Berg`, `da Silva`).
const PARTICLES: &[&str] = &[
    "van", "der", "den", "de", "von", "da", "du", "la", "le", "di", "del", "dos", "das", "ten",
    "ter", "zu", "zum", "zur", "des", "della", "dello", "op", "het",
];

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

/// The private-use characters a citation made beforehand marks its places
/// with (`versions::citation`): a description never holds them.
pub const RESERVED: [char; 3] = ['\u{E000}', '\u{E001}', '\u{E002}'];

/// The most bytes a dataset file may hold: a description, not a collection.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The text of the dataset file at `path`: a regular file (a FIFO, a device
/// or a directory is refused at once, without waiting on it) of at most
/// [`MAX_FILE_BYTES`], in UTF-8.
pub(super) fn read_bounded(path: &Path) -> std::io::Result<String> {
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

/// A TOML dataset file's keys without its `gbif` table, where it has one.
fn registered_toml(text: &str) -> Option<toml::Table> {
    let mut table: toml::Table = toml::from_str(text).ok()?;
    table.remove("gbif").map(|_| table)
}

/// A JSON dataset file's keys without its `gbif` object, where it has one.
fn registered_json(text: &str) -> Option<serde_json::Value> {
    let mut value: serde_json::Value = serde_json::from_str(text).ok()?;
    value.as_object_mut()?.remove("gbif").map(|_| value)
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

    /// (given names, surname): `given_name` and `surname` where the file
    /// says them, else from `name`, whose last word is the surname with the
    /// lowercase particles before it (`Jan van der Berg`: `Jan`, `van der
    /// Berg`). An organisation's party has neither.
    pub fn name_parts(&self) -> (&str, &str) {
        let (given, surname) = (self.given_name.trim(), self.surname.trim());
        if !surname.is_empty() {
            return (given, surname);
        }
        let name = self.name.trim();
        let words: Vec<(usize, &str)> = name
            .split(' ')
            .scan(0, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some((start, w))
            })
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let Some(last) = words.len().checked_sub(1) else {
            return (given, "");
        };
        let mut first = last;
        // The first word is a given name, whatever it is.
        while first > 1 && PARTICLES.contains(&words[first - 1].1) {
            first -= 1;
        }
        let at = words[first].0;
        let given = match given.is_empty() {
            true => name[..at].trim(),
            false => given,
        };
        (given, name[at..].trim())
    }

    /// The particles of the surname and the rest (`van der`, `Berg`): CSL's
    /// non-dropping particle and family name.
    pub fn surname_particles(&self) -> (&str, &str) {
        let (_, surname) = self.name_parts();
        let mut at = 0;
        for word in surname.split(' ') {
            if !PARTICLES.contains(&word) || at + word.len() >= surname.len() {
                break;
            }
            at += word.len() + 1;
        }
        (surname[..at].trim(), surname[at..].trim())
    }

    /// Whether this is a person (a name, or a surname), not an organisation.
    pub fn is_person(&self) -> bool {
        !self.name.trim().is_empty() || !self.surname.trim().is_empty()
    }

    /// The name as a person is addressed: `name`, else given names and surname.
    pub fn full_name(&self) -> String {
        match self.name.trim() {
            "" => {
                let (given, surname) = self.name_parts();
                [given, surname]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            name => name.to_string(),
        }
    }

    /// A person's initials as GBIF's citations write them (`Rosa M.`: `R M`).
    pub fn initials(&self) -> String {
        let (given, _) = self.name_parts();
        given
            .split([' ', '-', '.'])
            .filter_map(|w| w.chars().next())
            .map(|c| c.to_uppercase().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn check(&self, place: &str, roles: bool) -> Result<(), DatasetError> {
        let wrong = |problem: String| {
            Err(DatasetError::Value {
                place: place.to_string(),
                problem,
            })
        };
        if !self.is_person() && self.organization.trim().is_empty() {
            return wrong(
                "a person or organisation needs a name (or a surname) or an organization".into(),
            );
        }
        if !self.given_name.trim().is_empty() && !self.is_person() {
            return wrong("given_name needs a surname (or a name) beside it".into());
        }
        if !self.orcid.is_empty() && !is_orcid(self.orcid_id()) {
            return wrong(
                "orcid is not an ORCID iD (0000-0002-1825-0097, or \
                 https://orcid.org/0000-0002-1825-0097; its last character a checksum of \
                 the others)"
                    .into(),
            );
        }
        if !self.email.is_empty() && !is_email(&self.email) {
            return wrong("email is not an address".into());
        }
        if !self.online_url.is_empty() && !is_url(&self.online_url) {
            return wrong("online_url is not a URL (http:// or https://)".into());
        }
        if !self.phone.is_empty()
            && !self
                .phone
                .chars()
                .all(|c| c.is_ascii_digit() || " +-().".contains(c) || c == 'x')
        {
            return wrong("phone is not a number (digits, spaces, + - ( ) . and x)".into());
        }
        let role = self.role.trim();
        if !roles && !role.is_empty() {
            return wrong("role is said only of associated_parties and project.personnel".into());
        }
        if roles && !ROLES.contains(&role) {
            let said = match role.is_empty() {
                true => "is missing",
                false => "is not one of GBIF's",
            };
            return wrong(format!("role {said}: one of {}", ROLES.join(", ")));
        }
        Ok(())
    }
}

/// Whether `id` is an ORCID iD: four groups of four digits, the last
/// character its checksum (ISO 7064 11,2; `X` for ten).
fn is_orcid(id: &str) -> bool {
    let shape = id.len() == 19
        && id.char_indices().all(|(i, c)| match i {
            4 | 9 | 14 => c == '-',
            18 => c.is_ascii_digit() || c == 'X',
            _ => c.is_ascii_digit(),
        });
    if !shape {
        return false;
    }
    let digits: Vec<u32> = id.chars().filter_map(|c| c.to_digit(10)).collect();
    let total = digits[..15].iter().fold(0, |t, d| (t + d) * 2);
    let check = (12 - total % 11) % 11;
    let last = id.chars().last().unwrap_or_default();
    match check {
        10 => last == 'X',
        n => last.to_digit(10) == Some(n),
    }
}

/// Whether `s` is a UUID (`8-4-4-4-12` hex digits) or a URI (a scheme, `:`,
/// and no space, quote or angle bracket): a dataset's identifier.
fn is_identifier(s: &str) -> bool {
    let uuid = s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    let uri = s.split_once(':').is_some_and(|(scheme, rest)| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.is_empty()
            && !rest
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "{}<>\"\\`^|".contains(c))
    });
    uuid || uri
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
        // The `gbif` table is where the dataset is registered, read apart
        // (`model::registration`): the description never holds it.
        let parsed: Result<Dataset, String> = match toml {
            true if registered_toml(&text).is_some() => {
                let table = registered_toml(&text).expect("a table");
                toml::Value::Table(table)
                    .try_into::<Dataset>()
                    .map_err(|e| bounded(e.message()))
            }
            false if registered_json(&text).is_some() => {
                let object = registered_json(&text).expect("an object");
                serde_json::from_value(object).map_err(|e| bounded(&e.to_string()))
            }
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
        for (key, parties, roles) in [
            ("creators", &self.creators, false),
            ("contacts", &self.contacts, false),
            ("metadata_providers", &self.metadata_providers, false),
            ("associated_parties", &self.associated_parties, true),
            ("project.personnel", &self.project.personnel, true),
        ] {
            for (i, p) in parties.iter().enumerate() {
                p.check(&format!("{file}: {key}[{i}]"), roles)?;
            }
        }
        if self.project != Project::default() && self.project.personnel.is_empty() {
            return wrong(
                "project.personnel",
                "a project names its people: at least one, each with a role".into(),
            );
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
        if !self.id.is_empty() && !is_identifier(&self.id) {
            return wrong(
                "id",
                "is not a UUID (8-4-4-4-12 hexadecimal digits) or a URI (a scheme, a colon, \
                 then no spaces, braces, quotes or angle brackets)"
                    .into(),
            );
        }
        match super::occurrence_id::check(&self.occurrence_id) {
            Err(problem) if !self.occurrence_id.is_empty() => {
                return wrong("occurrence_id", problem)
            }
            _ => {}
        }
        if !self.resource_logo_url.is_empty() && !is_url(&self.resource_logo_url) {
            return wrong(
                "resource_logo_url",
                "is not a URL: http:// or https://, then no spaces, braces, quotes, \
                 backslashes or angle brackets"
                    .into(),
            );
        }
        for (version, doi) in &self.version_dois {
            let number = version.parse::<u64>().ok().filter(|n| *n > 0);
            if number.is_none() || version.starts_with('0') {
                return wrong(
                    "version_dois",
                    "a key is not a version number (1, 2, ...)".into(),
                );
            }
            if !is_doi(doi) {
                return wrong(
                    &format!("version_dois.{version}"),
                    "is not a DOI: 10.NNNN/suffix (or https://doi.org/10.NNNN/suffix)".into(),
                );
            }
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
                    let long = [
                        "description",
                        "purpose",
                        "methods",
                        "citation",
                        "quality_control",
                        "sampling.study_extent",
                        "sampling.sampling_description",
                        "project.description",
                        "project.funding",
                        "project.study_area_description",
                    ];
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
                    if let Some(at) = s.chars().position(|c| RESERVED.contains(&c)) {
                        return Err((
                            key.to_string(),
                            format!(
                                "holds a private-use character catalogue reserves (U+E000 to \
                                 U+E002) at character {}: remove it",
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
        doi_url(&self.doi)
    }

    /// The DOI a version is cited by: its own (`version_dois`), else the
    /// dataset's.
    pub fn version_doi_url(&self, version: u64) -> Option<String> {
        (self.version_dois.get(&version.to_string()))
            .and_then(|doi| doi_url(doi))
            .or_else(|| self.doi_url())
    }

    /// The dataset's identifier: `id`, else a name-based UUID (version 8,
    /// of SHA-256, as RFC 9562 shows it) of the institution code, the
    /// collection code and the title, which stays the same while they do.
    pub fn identifier(&self) -> String {
        match self.id.trim() {
            "" => {
                let name = format!(
                    "catalogue dataset\n{}\n{}\n{}",
                    self.institution_code.trim(),
                    self.collection_code.trim(),
                    self.title()
                );
                let digest = <sha2::Sha256 as sha2::Digest>::digest(name.as_bytes());
                let mut bytes: [u8; 16] = digest[..16].try_into().expect("16 bytes");
                bytes[6] = (bytes[6] & 0x0f) | 0x80;
                bytes[8] = (bytes[8] & 0x3f) | 0x80;
                uuid_text(&bytes)
            }
            id => id.to_string(),
        }
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
                "every occurrence's institutionCode is empty, and (without an occurrence_id \
                 rule) its occurrenceID the bare catalogue number, which another collection \
                 may also use",
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

    /// The parties a citation names, as GBIF's citations name them: the
    /// creators, then the metadata providers, each once; else the publisher.
    pub fn cited(&self) -> Vec<Party> {
        let mut cited: Vec<Party> = Vec::new();
        for p in self.creators.iter().chain(&self.metadata_providers) {
            let key = |p: &Party| match p.is_person() {
                true => {
                    let (given, surname) = p.name_parts();
                    (given.to_lowercase(), surname.to_lowercase(), true)
                }
                false => (p.organization.trim().to_lowercase(), String::new(), false),
            };
            if !cited.iter().any(|c| key(c) == key(p)) {
                cited.push(p.clone());
            }
        }
        match (cited.is_empty(), self.publisher.trim()) {
            (true, publisher) if !publisher.is_empty() => vec![Party {
                organization: publisher.to_string(),
                ..Party::default()
            }],
            _ => cited,
        }
    }

    /// The occurrenceIDs its records are published under (`model::occurrence_id`).
    pub fn occurrence_ids(&self) -> super::occurrence_id::OccurrenceIds {
        let rule = super::occurrence_id::rule_of(&self.occurrence_id, &self.institution_code);
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

    /// How to cite a version, as GBIF writes a dataset's citation
    /// (`van der Berg J, Alvarez R M (2026). Title. Version 3. Publisher.
    /// Occurrence dataset. https://doi.org/10.x/y`): the version's DOI, else
    /// the dataset's, else `url`. The publisher's own words (`citation`)
    /// stand instead, with the version. Without the access date, which a
    /// request adds.
    pub fn citation(&self, year: &str, version: u64, url: &str) -> String {
        if !self.citation.trim().is_empty() {
            return format!("{} Version {version}.", self.citation.trim());
        }
        let authors: Vec<String> = self
            .cited()
            .iter()
            .map(|p| match p.is_person() {
                true => {
                    let (_, surname) = p.name_parts();
                    match p.initials().as_str() {
                        "" => surname.to_string(),
                        initials => format!("{surname} {initials}"),
                    }
                }
                false => p.organization.trim().to_string(),
            })
            .collect();
        let mut s = match authors.is_empty() {
            false => format!("{} ({year}). ", authors.join(", ")),
            true => String::new(),
        };
        s.push_str(self.title().trim_end_matches('.'));
        s.push_str(&format!(". Version {version}."));
        if !self.publisher.trim().is_empty() {
            s.push(' ');
            s.push_str(self.publisher.trim().trim_end_matches('.'));
            s.push('.');
        }
        s.push_str(" Occurrence dataset.");
        match self.version_doi_url(version) {
            Some(doi) => s.push_str(&format!(" {doi}")),
            None if !url.is_empty() => s.push_str(&format!(" {url}")),
            None => {}
        }
        s
    }
}

/// A DOI as a URL (`https://doi.org/10.xxxx/yyy`), from any of its forms.
fn doi_url(doi: &str) -> Option<String> {
    let doi = doi.trim();
    let bare = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find_map(|p| doi.strip_prefix(p))
    .unwrap_or(doi);
    (!bare.is_empty()).then(|| format!("https://doi.org/{bare}"))
}

/// 16 bytes as a UUID is written (`8-4-4-4-12` lowercase hex digits).
pub fn uuid_text(bytes: &[u8; 16]) -> String {
    let hex = crate::encoding::hex::hex(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A random UUID (version 4), from the system's random source.
pub fn random_uuid() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Ok(uuid_text(&bytes))
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
    fn name_parts_keep_particles_in_the_surname() {
        let named = |name: &str| Party {
            name: name.into(),
            ..Party::default()
        };
        for (name, given, surname, particles, family, initials) in [
            (
                "Jan van der Berg",
                "Jan",
                "van der Berg",
                "van der",
                "Berg",
                "J",
            ),
            (
                "Rosa M. Alvarez",
                "Rosa M.",
                "Alvarez",
                "",
                "Alvarez",
                "R M",
            ),
            (
                "Ludwig  von Beethoven",
                "Ludwig",
                "von Beethoven",
                "von",
                "Beethoven",
                "L",
            ),
            (
                "Ana Maria da Silva",
                "Ana Maria",
                "da Silva",
                "da",
                "Silva",
                "A M",
            ),
            (
                "Jean-Luc de la Fontaine",
                "Jean-Luc",
                "de la Fontaine",
                "de la",
                "Fontaine",
                "J L",
            ),
            ("Plato", "", "Plato", "", "Plato", ""),
            // The first word is a given name, a particle's spelling or not.
            ("Van Morrison", "Van", "Morrison", "", "Morrison", "V"),
            ("Del van Dyke", "Del", "van Dyke", "van", "Dyke", "D"),
        ] {
            let p = named(name);
            assert_eq!(p.name_parts(), (given, surname), "{name}");
            assert_eq!(p.surname_particles(), (particles, family), "{name}");
            assert_eq!(p.initials(), initials, "{name}");
        }
        // Said apart, the parts stand as said.
        let p = Party {
            name: "Maria Garcia Lopez".into(),
            given_name: "Maria".into(),
            surname: "Garcia Lopez".into(),
            ..Party::default()
        };
        assert_eq!(p.name_parts(), ("Maria", "Garcia Lopez"));
        let p = Party {
            given_name: "Jan".into(),
            surname: "van der Berg".into(),
            ..Party::default()
        };
        assert_eq!(
            (p.full_name().as_str(), p.is_person()),
            ("Jan van der Berg", true)
        );
    }

    #[test]
    fn orcids_roles_ids_and_version_dois_by_their_rules() {
        for id in [
            "0000-0002-1825-0097",
            "0000-0001-5109-3700",
            "0000-0002-1694-233X",
        ] {
            assert!(is_orcid(id), "{id}");
        }
        for id in [
            "0000-0002-1825-0098",
            "0000-0002-1694-2330",
            "0000-0002-1825-009",
        ] {
            assert!(!is_orcid(id), "{id}");
        }
        for id in [
            "3f2b8a52-8f0e-4c3e-9f7a-0c1d2e3f4a5b",
            "urn:lsid:example.org:dataset:1",
            "https://example.org/datasets/1",
        ] {
            assert!(is_identifier(id), "{id}");
        }
        for id in ["", "3f2b8a52", "no scheme", "1a:b", "https://a b"] {
            assert!(!is_identifier(id), "{id}");
        }
        let mut d = Dataset {
            associated_parties: vec![Party {
                name: "Ada Lovelace".into(),
                role: "programmer".into(),
                ..Party::default()
            }],
            ..Dataset::default()
        };
        d.check("f").unwrap();
        d.associated_parties[0].role = "hero".into();
        let e = d.check("f").unwrap_err().to_string();
        assert!(
            e.starts_with("f: associated_parties[0]: role is not one of GBIF's: one of author,"),
            "{e}"
        );
        d.associated_parties[0].role.clear();
        let e = d.check("f").unwrap_err().to_string();
        assert!(
            e.starts_with("f: associated_parties[0]: role is missing"),
            "{e}"
        );
        d.associated_parties.clear();
        d.creators = vec![Party {
            name: "Ada".into(),
            role: "author".into(),
            ..Party::default()
        }];
        let e = d.check("f").unwrap_err().to_string();
        assert!(e.starts_with("f: creators[0]: role is said only of"), "{e}");
        d.creators.clear();
        d.project.title = "A project".into();
        let e = d.check("f").unwrap_err().to_string();
        assert!(
            e.starts_with("f: project.personnel: a project names its people"),
            "{e}"
        );
        d.project = Project::default();
        d.version_dois.insert("2".into(), "10.1234/v2".into());
        d.check("f").unwrap();
        assert_eq!(
            d.version_doi_url(2).as_deref(),
            Some("https://doi.org/10.1234/v2")
        );
        assert_eq!(d.version_doi_url(3), None);
        d.version_dois.insert("02".into(), "10.1234/v2".into());
        let e = d.check("f").unwrap_err().to_string();
        assert!(
            e.starts_with("f: version_dois: a key is not a version number"),
            "{e}"
        );
        d.version_dois.clear();
        d.version_dois.insert("3".into(), "not a doi".into());
        let e = d.check("f").unwrap_err().to_string();
        assert!(e.starts_with("f: version_dois.3: is not a DOI"), "{e}");
        d.version_dois.clear();
        d.id = "not an id".into();
        assert!(d
            .check("f")
            .unwrap_err()
            .to_string()
            .starts_with("f: id: is not a UUID"));
        // Without an id, one made of the codes and the title, the same each time.
        d.id.clear();
        let made = d.identifier();
        assert_eq!(made, d.clone().identifier());
        assert!(
            is_identifier(&made) && made.as_bytes()[14] == b'8',
            "{made}"
        );
        d.title = "Another".into();
        assert_ne!(d.identifier(), made);
        let random = random_uuid().unwrap();
        assert!(
            is_identifier(&random) && random.as_bytes()[14] == b'4',
            "{random}"
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
            "Lovelace A (2026). Insects. Version 3. A Museum. Occurrence dataset. \
             https://doi.org/10.1234/abc"
        );
        // GBIF's form: surname and initials, the metadata providers after the
        // creators (each once), the version's own DOI.
        d.creators.insert(
            0,
            Party {
                name: "Jan van der Berg".into(),
                ..Party::default()
            },
        );
        d.metadata_providers = vec![
            d.creators[1].clone(),
            Party {
                organization: "Data Unit".into(),
                ..Party::default()
            },
        ];
        d.version_dois.insert("3".into(), "10.1234/v3".into());
        assert_eq!(
            d.citation("2026", 3, ""),
            "van der Berg J, Lovelace A, Data Unit (2026). Insects. Version 3. A Museum. \
             Occurrence dataset. https://doi.org/10.1234/v3"
        );
        d.doi.clear();
        assert_eq!(
            d.citation("2026", 2, "https://x.org/"),
            "van der Berg J, Lovelace A, Data Unit (2026). Insects. Version 2. A Museum. \
             Occurrence dataset. https://x.org/"
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
        d.title = "a \u{E001} mark".into();
        let said = d.check("f").unwrap_err().to_string();
        assert!(
            said.starts_with("f: title: holds a private-use character catalogue reserves"),
            "{said}"
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
