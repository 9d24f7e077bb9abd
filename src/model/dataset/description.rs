//! The description: what the publisher says of the dataset, the keys of its
//! file, and what it says read whole (the title or a plain one, the
//! identifier, what GBIF would miss).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::people::Person;
use super::rules::{Doi, License};
use super::uuid::uuid_text;
use crate::model::occurrence_id;

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
    /// The collection's people's identifiers (ORCID iDs, Wikidata items),
    /// each person by id or by full name: `recordedByID` and `identifiedByID`.
    pub people: Vec<Person>,
    /// Where a reader reports a problem with a record: a URL template with
    /// `{usi}`, `{id}`, `{version}` and `{url}` (each percent-encoded); by
    /// default a `mailto:` to the first contact with an e-mail.
    pub report_url: String,
    /// Background and context for the dataset (EML 2.2.0's `introduction`).
    pub introduction: String,
    /// How to begin using the data (`gettingStarted`).
    pub getting_started: String,
    /// Who is thanked (`acknowledgements`).
    pub acknowledgements: String,
    /// The literature about the dataset or used in it, a citation each
    /// (GBIF's `bibliography`).
    pub bibliography: Vec<String>,
    /// How the specimens are kept from decay, a term of GBIF's Specimen
    /// Preservation Method vocabulary (`pinned`, `dried`, `alcohol`, ...;
    /// GBIF's `specimenPreservationMethod`).
    pub specimen_preservation_method: String,
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
    /// What they did, one of GBIF's agent roles ([`ROLES`](super::ROLES)): said of
    /// associated parties and project personnel.
    pub role: String,
}

impl Party {
    /// The ORCID iD alone (`0000-0002-1825-0097`), from either form.
    pub fn orcid_id(&self) -> &str {
        let t = self.orcid.trim();
        t.rsplit('/').next().unwrap_or(t)
    }
}

impl Dataset {
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

    /// The dataset's DOI, when there is one.
    pub fn doi(&self) -> Option<Doi> {
        Doi::parse(&self.doi)
    }

    /// The DOI a version is cited by: its own (`version_dois`), else the
    /// dataset's.
    pub fn version_doi(&self, version: u64) -> Option<Doi> {
        (self.version_dois.get(&version.to_string()))
            .and_then(|doi| Doi::parse(doi))
            .or_else(|| self.doi())
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

    /// The occurrenceIDs its records are published under (`model::occurrence_id`).
    pub fn occurrence_ids(&self) -> occurrence_id::OccurrenceIds {
        let rule = occurrence_id::rule_of(&self.occurrence_id, &self.institution_code);
        occurrence_id::OccurrenceIds::new(rule, &self.institution_code, &self.collection_code)
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
}
