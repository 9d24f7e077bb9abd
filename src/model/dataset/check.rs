//! A description checked against the rules, each wrong value named by its key.

use super::description::{Dataset, Party, Project};
use super::rules::{
    is_email, is_identifier, is_orcid, is_url, Doi, License, MAX_LONG_TEXT, MAX_TEXT, RESERVED,
    ROLES, UPDATE_FREQUENCIES,
};

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

impl Party {
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

impl Dataset {
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
        if !self.report_url.trim().is_empty() && !super::report::is_template(self.report_url.trim())
        {
            return wrong(
                "report_url",
                "is not a report address: https://, http:// or mailto:, then no spaces, quotes, \
                 backslashes or angle brackets, and braces only in {usi}, {id}, {version} and {url}"
                    .into(),
            );
        }
        for (i, person) in self.people.iter().enumerate() {
            if let Err(problem) = person.problem() {
                return wrong(&format!("people[{i}]"), problem);
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
        match crate::model::occurrence_id::check(&self.occurrence_id) {
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
            if Doi::parse(doi).is_none() {
                return wrong(
                    &format!("version_dois.{version}"),
                    "is not a DOI: 10.NNNN/suffix (or https://doi.org/10.NNNN/suffix)".into(),
                );
            }
        }
        if !self.doi.is_empty() && Doi::parse(&self.doi).is_none() {
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
                        "introduction",
                        "getting_started",
                        "acknowledgements",
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::dataset::random_uuid;

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
        let url = |d: &Dataset, v| d.version_doi(v).map(|doi| doi.url());
        assert_eq!(url(&d, 2).as_deref(), Some("https://doi.org/10.1234/v2"));
        assert_eq!(url(&d, 3), None);
        // Every form the DOI is said from is taken by the check that reads
        // it: the old resolver's http URL too.
        d.version_dois
            .insert("2".into(), "http://dx.doi.org/10.1234/v2".into());
        d.doi = "doi:10.1234/all".into();
        d.check("f").unwrap();
        assert_eq!(url(&d, 2).as_deref(), Some("https://doi.org/10.1234/v2"));
        assert_eq!(url(&d, 3).as_deref(), Some("https://doi.org/10.1234/all"));
        d.doi.clear();
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
