//! People's identifiers: the dataset file's `people`, each a person of the
//! collection (by id, or by full name) and their ORCID iD or Wikidata item,
//! which the archive and GBIF's API write as `recordedByID` and
//! `identifiedByID`, and the people's pages show.

use serde::{Deserialize, Serialize};

use super::rules::is_orcid;

/// Where an ORCID iD's URL starts, as Darwin Core's `recordedByID` gives it.
pub const ORCID_URL: &str = "https://orcid.org/";

/// Where a Wikidata item's URI starts (its concept URI).
pub const WIKIDATA_URL: &str = "http://www.wikidata.org/entity/";

/// A person of the collection and their identifiers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Person {
    /// The person's id among the collection's people (`/api/v2/people/12/`).
    pub person: Option<i64>,
    /// Else their full name as the collection writes it (`Rosa M. Alvarez`).
    pub name: String,
    /// `0000-0002-1825-0097`, or its `https://orcid.org/` URL.
    pub orcid: String,
    /// `Q42`, or its `wikidata.org` URL.
    pub wikidata: String,
}

impl Person {
    /// The ORCID iD alone (`0000-0002-1825-0097`), from either form; `None`
    /// where none was given.
    pub fn orcid_id(&self) -> Option<&str> {
        let t = self.orcid.trim();
        (!t.is_empty()).then(|| t.rsplit('/').next().unwrap_or(t))
    }

    /// The Wikidata item alone (`Q42`), from either form; `None` where none
    /// was given.
    pub fn wikidata_id(&self) -> Option<&str> {
        let t = self.wikidata.trim();
        (!t.is_empty()).then(|| t.rsplit('/').next().unwrap_or(t))
    }

    /// The ORCID iD's URL, where one was given.
    pub fn orcid_url(&self) -> Option<String> {
        self.orcid_id().map(|id| format!("{ORCID_URL}{id}"))
    }

    /// The Wikidata item's URI, where one was given.
    pub fn wikidata_url(&self) -> Option<String> {
        self.wikidata_id().map(|id| format!("{WIKIDATA_URL}{id}"))
    }

    /// What `recordedByID` and `identifiedByID` say of them: the ORCID iD's
    /// URL, else the Wikidata item's.
    pub fn identifier(&self) -> Option<String> {
        self.orcid_url().or_else(|| self.wikidata_url())
    }

    /// Checks the entry: it names one person, and gives an identifier, each
    /// of its form; the problem where it does not (the check names the entry).
    pub(super) fn problem(&self) -> Result<(), String> {
        let wrong = |problem: &str| Err(problem.to_string());
        match (self.person, self.name.trim().is_empty()) {
            (None, true) => {
                return wrong(
                    "names no one: give the person's id in the collection (person = 12) or \
                     their full name as the collection writes it (name = \"Rosa M. Alvarez\")",
                )
            }
            (Some(_), false) => {
                return wrong("gives both person and name: give one, the person's id or their name")
            }
            _ => {}
        }
        if self.orcid_id().is_none() && self.wikidata_id().is_none() {
            return wrong("gives no identifier: an orcid, a wikidata item, or both");
        }
        let orcid_url = self.orcid.trim().contains('/')
            && !self
                .orcid
                .trim()
                .trim_start_matches("http://")
                .starts_with("orcid.org/")
            && !self.orcid.trim().starts_with(ORCID_URL);
        if self.orcid_id().is_some_and(|id| !is_orcid(id)) || orcid_url {
            return wrong(
                "orcid is not an ORCID iD (0000-0002-1825-0097, or \
                 https://orcid.org/0000-0002-1825-0097; its last character a checksum of the \
                 others, ISO 7064 11,2)",
            );
        }
        let given = self.wikidata.trim();
        let wikidata_url = given.contains('/')
            && !["https://www.wikidata.org/", "http://www.wikidata.org/"]
                .iter()
                .any(|start| given.starts_with(start));
        if self.wikidata_id().is_some_and(|id| !is_wikidata(id)) || wikidata_url {
            return wrong(
                "wikidata is not a Wikidata item (Q42: Q and its number, or \
                 http://www.wikidata.org/entity/Q42)",
            );
        }
        Ok(())
    }
}

/// Whether `id` is a Wikidata item's id: `Q`, then a number without a
/// leading zero.
pub fn is_wikidata(id: &str) -> bool {
    id.strip_prefix('Q').is_some_and(|n| {
        !n.is_empty()
            && !n.starts_with('0')
            && n.len() <= 12
            && n.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(p: Person) -> Result<(), String> {
        p.problem().map_err(|e| format!("d.json: people[0]: {e}"))
    }

    #[test]
    fn identifiers_by_their_forms() {
        let p = Person {
            person: Some(12),
            orcid: "https://orcid.org/0000-0002-1825-0097".into(),
            wikidata: "Q42".into(),
            ..Person::default()
        };
        assert_eq!(checked(p.clone()), Ok(()));
        assert_eq!(
            p.identifier().as_deref(),
            Some("https://orcid.org/0000-0002-1825-0097")
        );
        assert_eq!(
            p.wikidata_url().as_deref(),
            Some("http://www.wikidata.org/entity/Q42")
        );
        let only_wikidata = Person {
            name: "Rosa M. Alvarez".into(),
            wikidata: "http://www.wikidata.org/entity/Q42".into(),
            ..Person::default()
        };
        assert_eq!(checked(only_wikidata.clone()), Ok(()));
        assert_eq!(
            only_wikidata.identifier().as_deref(),
            Some("http://www.wikidata.org/entity/Q42")
        );
        for (bad, said) in [
            (
                Person {
                    person: Some(1),
                    orcid: "0000-0002-1825-0098".into(),
                    ..Person::default()
                },
                "d.json: people[0]: orcid is not an ORCID iD",
            ),
            (
                Person {
                    person: Some(1),
                    orcid: "https://example.org/0000-0002-1825-0097".into(),
                    ..Person::default()
                },
                "d.json: people[0]: orcid is not an ORCID iD",
            ),
            (
                Person {
                    person: Some(1),
                    wikidata: "Q042".into(),
                    ..Person::default()
                },
                "d.json: people[0]: wikidata is not a Wikidata item",
            ),
            (
                Person {
                    person: Some(1),
                    wikidata: "P31".into(),
                    ..Person::default()
                },
                "d.json: people[0]: wikidata is not a Wikidata item",
            ),
            (
                Person {
                    orcid: "0000-0002-1825-0097".into(),
                    ..Person::default()
                },
                "d.json: people[0]: names no one",
            ),
            (
                Person {
                    person: Some(1),
                    name: "A".into(),
                    wikidata: "Q1".into(),
                    ..Person::default()
                },
                "d.json: people[0]: gives both person and name",
            ),
            (
                Person {
                    person: Some(1),
                    ..Person::default()
                },
                "d.json: people[0]: gives no identifier",
            ),
        ] {
            let e = checked(bad).unwrap_err();
            assert!(e.starts_with(said), "{e}");
        }
        assert!(is_wikidata("Q1") && is_wikidata("Q123456"));
        assert!(!is_wikidata("Q") && !is_wikidata("q42") && !is_wikidata("Q4x"));
    }
}
