//! The shapes and vocabularies a description's values take: URLs, e-mail
//! addresses, DOIs, ORCID iDs, identifiers, GBIF's licences, roles and
//! maintenance frequencies, and how long a text may be.

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
pub(super) const MAX_TEXT: usize = 1_000;
/// ... and a text of paragraphs (`description`, `purpose`, `methods`,
/// `citation`).
pub(super) const MAX_LONG_TEXT: usize = 20_000;

/// Whether `s` is an http or https URL a citation and a feed can carry whole:
/// nothing after the scheme that would end a field or an attribute.
pub(super) fn is_url(s: &str) -> bool {
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
pub(super) fn is_email(s: &str) -> bool {
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

/// A DOI (`10.`, a registrant of 4 to 9 digits, `/`, a suffix) that a
/// citation carries whole, read once from any form a publisher writes it in:
/// bare, `doi:10.x/y`, or its resolver's URL (`https://doi.org/`, `http://`,
/// `dx.doi.org`). Every use says it from here: bare ([`Doi::bare`]) or as its
/// URL ([`Doi::url`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doi(String);

impl Doi {
    /// The prefixes a DOI is written with, before its `10.`.
    const PREFIXES: [&'static str; 5] = [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ];

    /// The DOI `text` says (spaces around it aside), if it is one.
    pub fn parse(text: &str) -> Option<Doi> {
        let text = text.trim();
        let bare = (Doi::PREFIXES.iter())
            .find_map(|p| text.strip_prefix(p))
            .unwrap_or(text);
        let (registrant, suffix) = bare.strip_prefix("10.")?.split_once('/')?;
        let valid = (4..=9).contains(&registrant.len())
            && registrant.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && !suffix.is_empty()
            && !suffix
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "{}<>\"\\".contains(c));
        valid.then(|| Doi(bare.to_string()))
    }

    /// The DOI alone: `10.1234/abc`.
    pub fn bare(&self) -> &str {
        &self.0
    }

    /// Its URL at the resolver: `https://doi.org/10.1234/abc`.
    pub fn url(&self) -> String {
        format!("https://doi.org/{}", self.0)
    }
}

/// The private-use characters a citation made beforehand marks its places
/// with (`versions::citation`): a description never holds them.
pub const RESERVED: [char; 3] = ['\u{E000}', '\u{E001}', '\u{E002}'];

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

/// Whether `id` is an ORCID iD: four groups of four digits, the last
/// character its checksum (ISO 7064 11,2; `X` for ten).
pub(super) fn is_orcid(id: &str) -> bool {
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
pub(super) fn is_identifier(s: &str) -> bool {
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
        for (doi, bare) in [
            ("10.15468/abc.123", "10.15468/abc.123"),
            ("https://doi.org/10.1000/xyz", "10.1000/xyz"),
            ("http://doi.org/10.1000/xyz", "10.1000/xyz"),
            ("https://dx.doi.org/10.1000/xyz", "10.1000/xyz"),
            ("http://dx.doi.org/10.1000/xyz", "10.1000/xyz"),
            ("doi:10.12345/a(b)", "10.12345/a(b)"),
            (" 10.1000/xyz ", "10.1000/xyz"),
        ] {
            let parsed = Doi::parse(doi).unwrap_or_else(|| panic!("{doi}"));
            assert_eq!(parsed.bare(), bare, "{doi}");
            assert_eq!(parsed.url(), format!("https://doi.org/{bare}"), "{doi}");
        }
        for doi in [
            "",
            "10.1/x",
            "11.1234/x",
            "10.1234/",
            "10.1234/a}b",
            "10.1234/a b",
            "https://doi.org/",
            "ftp://doi.org/10.1000/xyz",
        ] {
            assert_eq!(Doi::parse(doi), None, "{doi}");
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
}
