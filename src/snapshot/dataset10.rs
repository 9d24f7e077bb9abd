//! The dataset's part as formats 7 to 10 wrote it: a frozen copy of the
//! description's keys then, decoded and converted (the keys added since
//! empty). Never changed: a file of those formats holds exactly this.

use serde::Deserialize;

use crate::model::dataset::{Dataset, Party};

/// The dataset of formats 7 to 10, its keys in their order then.
#[derive(Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
pub struct Dataset10 {
    pub(super) title: String,
    pub(super) description: String,
    pub(super) publisher: String,
    pub(super) license: String,
    pub(super) language: String,
    pub(super) homepage: String,
    pub(super) keywords: Vec<String>,
    pub(super) citation: String,
    pub(super) doi: String,
    pub(super) institution_code: String,
    pub(super) institution_name: String,
    pub(super) collection_code: String,
    pub(super) collection_name: String,
    pub(super) purpose: String,
    pub(super) methods: String,
    pub(super) update_frequency: String,
    pub(super) rights_holder: String,
    pub(super) creators: Vec<Party10>,
    pub(super) contacts: Vec<Party10>,
    pub(super) metadata_providers: Vec<Party10>,
}

/// A person or an organisation of formats 7 to 10.
#[derive(Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
pub struct Party10 {
    pub(super) name: String,
    pub(super) organization: String,
    pub(super) email: String,
    pub(super) orcid: String,
}

impl From<Party10> for Party {
    fn from(p: Party10) -> Party {
        Party {
            name: p.name,
            organization: p.organization,
            email: p.email,
            orcid: p.orcid,
            ..Party::default()
        }
    }
}

impl From<Dataset10> for Dataset {
    fn from(d: Dataset10) -> Dataset {
        let parties = |v: Vec<Party10>| v.into_iter().map(Party::from).collect();
        Dataset {
            title: d.title,
            description: d.description,
            publisher: d.publisher,
            license: d.license,
            language: d.language,
            homepage: d.homepage,
            keywords: d.keywords,
            citation: d.citation,
            doi: d.doi,
            institution_code: d.institution_code,
            institution_name: d.institution_name,
            collection_code: d.collection_code,
            collection_name: d.collection_name,
            purpose: d.purpose,
            methods: d.methods,
            update_frequency: d.update_frequency,
            rights_holder: d.rights_holder,
            creators: parties(d.creators),
            contacts: parties(d.contacts),
            metadata_providers: parties(d.metadata_providers),
            ..Dataset::default()
        }
    }
}
