//! The text a version is cited by, as GBIF writes a dataset's citation, and
//! the parties it names. (BibTeX, RIS and CSL, made from these, are
//! `versions::citation`'s; the text stays here because every page's footer,
//! below `versions`, says it.)

use super::description::{Dataset, Party};

impl Dataset {
    /// The parties a citation names, as GBIF's registry names them (its
    /// CitationGenerator: the contacts of type originator or metadata
    /// author): the creators, then the metadata providers, then the
    /// associated parties whose role is `originator` or `metadataProvider`,
    /// each once; else the publisher.
    pub fn cited(&self) -> Vec<Party> {
        let mut cited: Vec<Party> = Vec::new();
        let associated = (self.associated_parties.iter())
            .filter(|p| matches!(p.role.trim(), "originator" | "metadataProvider"));
        let named = (self.creators.iter())
            .chain(&self.metadata_providers)
            .chain(associated);
        for p in named {
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
        match self.version_doi(version) {
            Some(doi) => s.push_str(&format!(" {}", doi.url())),
            None if !url.is_empty() => s.push_str(&format!(" {url}")),
            None => {}
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn associated_originators_and_metadata_providers_are_cited_after_the_others() {
        let party = |name: &str, role: &str| Party {
            name: name.into(),
            role: role.into(),
            ..Party::default()
        };
        let d = Dataset {
            title: "Insects".into(),
            creators: vec![party("Ada Lovelace", "")],
            metadata_providers: vec![party("Jan van der Berg", "")],
            associated_parties: vec![
                party("Rosa M. Alvarez", "curator"),
                party("Grace Hopper", "metadataProvider"),
                party("Alan Turing", "originator"),
                party("Ada Lovelace", "originator"),
            ],
            ..Dataset::default()
        };
        assert_eq!(
            d.citation("2026", 1, ""),
            "Lovelace A, van der Berg J, Hopper G, Turing A (2026). Insects. Version 1. \
             Occurrence dataset."
        );
    }
}
