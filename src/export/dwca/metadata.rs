//! The archive's two descriptions: `meta.xml` (the columns of the core file as
//! Darwin Core terms, and the multimedia extension's) and `eml.xml` (the
//! dataset, as GBIF's EML profile orders it).

use crate::encoding::xml::escaped as xml;
use crate::view::View;

use crate::model::endpoint::API_PREFIX;

use super::coverage::Coverage;
use super::multimedia;
use super::scope::Scope;
use crate::model::dataset::{Dataset, Party};
use crate::model::package_id::package_id;
use crate::model::Model;
use crate::view::occurrence::COLUMNS;

/// `meta.xml`: the core file and its columns.
pub fn meta_xml() -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <archive xmlns=\"http://rs.tdwg.org/dwc/text/\" metadata=\"eml.xml\">\n  \
         <core encoding=\"UTF-8\" fieldsTerminatedBy=\"\\t\" linesTerminatedBy=\"\\n\" \
         fieldsEnclosedBy=\"\" ignoreHeaderLines=\"1\" rowType=\"http://rs.tdwg.org/dwc/terms/Occurrence\">\n    \
         <files><location>occurrence.txt</location></files>\n    <id index=\"0\"/>\n",
    );
    for (i, (term, ns)) in COLUMNS.iter().enumerate() {
        s.push_str(&format!("    <field index=\"{i}\" term=\"{ns}{term}\"/>\n"));
    }
    s.push_str("  </core>\n");
    s.push_str(&format!(
        "  <extension encoding=\"UTF-8\" fieldsTerminatedBy=\"\\t\" linesTerminatedBy=\"\\n\" \
         fieldsEnclosedBy=\"\" ignoreHeaderLines=\"1\" rowType=\"{}\">\n    \
         <files><location>multimedia.txt</location></files>\n    <coreid index=\"0\"/>\n",
        multimedia::ROW_TYPE
    ));
    for (i, term) in multimedia::COLUMNS.iter().enumerate() {
        s.push_str(&format!(
            "    <field index=\"{}\" term=\"http://purl.org/dc/terms/{term}\"/>\n",
            i + 1
        ));
    }
    s.push_str("  </extension>\n</archive>\n");
    s
}

/// `eml.xml`: the dataset as GBIF's EML profile 1.3 (on EML 2.2.0, as GBIF's
/// IPT writes it) orders it: the publisher's description, the coverage of
/// the records in `scope`, the snapshot it was made from, and the question
/// when there is one. `site` is the server's origin (`https://example.org`),
/// where the archive is downloaded; empty, no download URL is said.
pub fn eml_xml(view: &View, scope: Scope, site: &str) -> String {
    eml_downloaded_at(view, scope, site, "/dwca.zip")
}

/// The `eml.xml` a version keeps (`export::publication::kept`): its download URL its own
/// kept archive (`/versions/N/dwca.zip`), which stays when the next version
/// replaces `/dwca.zip`.
pub fn kept_eml_xml(view: &View, site: &str) -> String {
    let archive = crate::model::endpoint::KEPT_ARCHIVE_PATH
        .replace("{version}", &view.history.current().to_string());
    eml_downloaded_at(view, Scope::Everything, site, &archive)
}

/// `eml.xml`, its archive downloaded at `archive` (a path) on `site`.
fn eml_downloaded_at(view: &View, scope: Scope, site: &str, archive: &str) -> String {
    let dataset: &Dataset = &view.dataset;
    let computed;
    let (coverage, selection) = match scope {
        Scope::Everything => (view.derived::<Coverage>(), None),
        Scope::Question { query, positions } => {
            computed = Coverage::of(view, Some(positions));
            (&computed, Some((query, positions.len())))
        }
    };
    let checksum = view.header.checksum_hex();
    let created = chrono::DateTime::from_timestamp_micros(view.header.created_at);
    let date = created
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let stamp = created
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default();
    let specimens = view.table(Model::SpecimenRecord).len();
    let package = package_id(dataset, &view.history, selection.map(|(q, _)| q));
    let mut e = Eml::default();
    e.open(
        "eml:eml",
        &format!(
            "xmlns:eml=\"https://eml.ecoinformatics.org/eml-2.2.0\" xmlns:dc=\"http://purl.org/dc/terms/\" \
             xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
             xsi:schemaLocation=\"https://eml.ecoinformatics.org/eml-2.2.0 {EML_PROFILE}\" \
             packageId=\"{}\" system=\"http://gbif.org\" scope=\"system\" xml:lang=\"en\"",
            xml(&package)
        ),
    );
    e.open("dataset", "");
    // The same identifiers in every version (GBIF's registry keeps each it
    // is given): the DOI, the dataset's id, its homepage; no checksum.
    for id in alternate_identifiers(dataset) {
        e.leaf("alternateIdentifier", &id);
    }
    e.leaf_with("title", "xml:lang=\"en\"", dataset.title());
    let fallback = stand_in(dataset);
    for creator in or_stand_in(&dataset.creators, &fallback) {
        e.party("creator", creator);
    }
    for provider in or_stand_in(&dataset.metadata_providers, &fallback) {
        e.party("metadataProvider", provider);
    }
    // The profile has no publisher element: it is a party with the role
    // `publisher` (of GBIF's agent roles), so the name is kept.
    if !dataset.publisher.trim().is_empty() {
        e.open("associatedParty", "");
        e.leaf("organizationName", dataset.publisher.trim());
        e.leaf("role", "publisher");
        e.close("associatedParty");
    }
    for party in &dataset.associated_parties {
        e.party("associatedParty", party);
    }
    e.leaf("pubDate", &date);
    e.leaf("language", dataset.language());
    let description = match dataset.description.trim() {
        "" => format!(
            "{specimens} insect specimen records of the collection, published by catalogue."
        ),
        text => text.to_string(),
    };
    e.para("abstract", &description);
    if !dataset.keywords.is_empty() {
        e.open("keywordSet", "");
        for keyword in dataset.keywords.iter().filter(|k| !k.trim().is_empty()) {
            e.leaf("keyword", keyword.trim());
        }
        e.leaf("keywordThesaurus", "N/A");
        e.close("keywordSet");
    }
    // GBIF's own vocabularies say what kind of dataset this is.
    e.open("keywordSet", "");
    e.leaf("keyword", "Occurrence");
    e.leaf("keywordThesaurus", DATASET_TYPES);
    e.close("keywordSet");
    e.open("keywordSet", "");
    e.leaf("keyword", "Specimen");
    e.leaf("keywordThesaurus", DATASET_SUBTYPES);
    e.close("keywordSet");
    let made = format!("the snapshot with SHA-256 checksum {checksum}, made {stamp}");
    let info = match selection {
        None => format!("The {specimens} specimen records of {made}."),
        Some((query, n)) => {
            let filter = match query.is_empty() {
                true => "no filter (every specimen record)".to_string(),
                false => format!("the filter {query}"),
            };
            format!(
                "The {n} specimen records that {filter} selects in {API_PREFIX}specimen-records/, from {made}."
            )
        }
    };
    e.para("additionalInfo", &info);
    if let Some(licence) = dataset.licence() {
        e.raw(&format!(
            "<intellectualRights><para>This work is licensed under a <ulink url=\"{}\"><citetitle>{}</citetitle></ulink>.</para></intellectualRights>",
            licence.legal_code(),
            licence.title()
        ));
    }
    if !dataset.homepage.trim().is_empty() {
        e.raw(&format!(
            "<distribution scope=\"document\"><online><url function=\"information\">{}</url></online></distribution>",
            xml(dataset.homepage.trim())
        ));
    }
    e.coverage(coverage);
    if !dataset.purpose.trim().is_empty() {
        e.para("purpose", dataset.purpose.trim());
    }
    // EML 2.2.0's texts, which GBIF.org shows on the dataset's page.
    for (tag, text) in [
        ("introduction", &dataset.introduction),
        ("gettingStarted", &dataset.getting_started),
        ("acknowledgements", &dataset.acknowledgements),
    ] {
        if !text.trim().is_empty() {
            e.para(tag, text.trim());
        }
    }
    e.open("maintenance", "");
    e.open("description", "");
    e.leaf(
        "para",
        &format!("Version {}, published from {made}.", view.history.current()),
    );
    e.close("description");
    e.leaf(
        "maintenanceUpdateFrequency",
        gbif_frequency(&dataset.update_frequency),
    );
    e.close("maintenance");
    for contact in or_stand_in(&dataset.contacts, &fallback) {
        e.party("contact", contact);
    }
    e.methods(dataset);
    e.project(dataset, &fallback);
    e.close("dataset");
    e.open("additionalMetadata", "");
    e.open("metadata", "");
    e.open("gbif", "");
    e.leaf("dateStamp", &stamp);
    e.leaf("hierarchyLevel", "dataset");
    let year = created
        .map(|t| t.format("%Y").to_string())
        .unwrap_or_default();
    let citation = dataset.citation(&year, view.history.current(), dataset.homepage.trim());
    match dataset.version_doi(view.history.current()) {
        Some(doi) => e.leaf_with(
            "citation",
            &format!("identifier=\"{}\"", xml(&doi.url())),
            &citation,
        ),
        None => e.leaf("citation", &citation),
    }
    let bibliography: Vec<&str> = (dataset.bibliography.iter())
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
        .collect();
    if !bibliography.is_empty() {
        e.open("bibliography", "");
        for citation in bibliography {
            e.leaf("citation", citation);
        }
        e.close("bibliography");
    }
    if !site.is_empty() {
        let (name, url) = match selection {
            None => ("dwca.zip".to_string(), format!("{site}{archive}")),
            Some((query, _)) => (
                format!("dwca.zip?{query}"),
                format!("{site}/dwca.zip?{query}"),
            ),
        };
        e.physical(&name, &url);
    }
    if !dataset.resource_logo_url.trim().is_empty() {
        e.leaf("resourceLogoUrl", dataset.resource_logo_url.trim());
    }
    if !dataset.collection_code.trim().is_empty() || !dataset.collection_name.trim().is_empty() {
        e.open("collection", "");
        e.leaf(
            "parentCollectionIdentifier",
            or_na(&dataset.institution_code),
        );
        e.leaf("collectionIdentifier", or_na(&dataset.collection_code));
        e.leaf("collectionName", or_na(&dataset.collection_name));
        e.close("collection");
    }
    if !dataset.specimen_preservation_method.trim().is_empty() {
        e.leaf(
            "specimenPreservationMethod",
            dataset.specimen_preservation_method.trim(),
        );
    }
    e.close("gbif");
    e.close("metadata");
    e.close("additionalMetadata");
    e.close("eml:eml");
    e.0
}

/// The identifiers every version's `eml.xml` gives the dataset, each once:
/// its DOI, its id (`Dataset::identifier`), its homepage; none of them
/// changes from a version to the next while the dataset file does not.
pub fn alternate_identifiers(dataset: &Dataset) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let homepage = dataset.homepage.trim().to_string();
    for id in [
        dataset.doi().map(|doi| doi.url()),
        Some(dataset.identifier()),
        Some(homepage),
    ]
    .into_iter()
    .flatten()
    {
        if !id.is_empty() && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Where GBIF's EML profile is.
pub const EML_PROFILE: &str = "https://rs.gbif.org/schema/eml-gbif-profile/1.3/eml.xsd";
const DATASET_TYPES: &str =
    "GBIF Dataset Type Vocabulary: http://rs.gbif.org/vocabulary/gbif/dataset_type_2015-07-10.xml";
const DATASET_SUBTYPES: &str =
    "GBIF Dataset Subtype Vocabulary: http://rs.gbif.org/vocabulary/gbif/dataset_subtype.xml";

/// The update frequency as GBIF's profile spells it: its vocabulary, where
/// "unknown" is `unkown`; nothing said is unknown.
fn gbif_frequency(frequency: &str) -> &str {
    match frequency.trim() {
        "" | "unknown" | "unkown" => "unkown",
        f => f,
    }
}

fn or_na(text: &str) -> &str {
    match text.trim() {
        "" => "N/A",
        t => t,
    }
}

/// Who stands for the creators, metadata providers and contacts a dataset
/// file does not name, as GBIF's IPT has the publishing organisation stand:
/// its publisher, else its institution (profile 1.1 requires one of each, 1.2
/// a creator and a contact; `build` warns of each list left empty).
fn stand_in(dataset: &Dataset) -> Party {
    let organization = [
        &dataset.publisher,
        &dataset.institution_name,
        &dataset.institution_code,
    ]
    .into_iter()
    .map(|s| s.trim())
    .find(|s| !s.is_empty())
    .unwrap_or("Publisher not stated");
    Party {
        organization: organization.to_string(),
        ..Party::default()
    }
}

fn or_stand_in<'a>(parties: &'a [Party], stand_in: &'a Party) -> &'a [Party] {
    match parties.is_empty() {
        true => std::slice::from_ref(stand_in),
        false => parties,
    }
}

/// An EML document being written, indented by depth.
#[derive(Default)]
struct Eml(String, usize);

impl Eml {
    fn indent(&mut self) {
        if self.0.is_empty() {
            self.0
                .push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        for _ in 0..self.1 {
            self.0.push_str("  ");
        }
    }

    fn open(&mut self, tag: &str, attributes: &str) {
        self.indent();
        match attributes {
            "" => self.0.push_str(&format!("<{tag}>\n")),
            a => self.0.push_str(&format!("<{tag} {a}>\n")),
        }
        self.1 += 1;
    }

    fn close(&mut self, tag: &str) {
        self.1 -= 1;
        self.indent();
        self.0.push_str(&format!("</{tag}>\n"));
    }

    fn leaf(&mut self, tag: &str, text: &str) {
        self.leaf_with(tag, "", text);
    }

    fn leaf_with(&mut self, tag: &str, attributes: &str, text: &str) {
        self.indent();
        let open = match attributes {
            "" => tag.to_string(),
            a => format!("{tag} {a}"),
        };
        self.0.push_str(&format!("<{open}>{}</{tag}>\n", xml(text)));
    }

    /// Markup already escaped, on a line of its own.
    fn raw(&mut self, markup: &str) {
        self.indent();
        self.0.push_str(markup);
        self.0.push('\n');
    }

    fn para(&mut self, tag: &str, text: &str) {
        self.open(tag, "");
        self.leaf("para", text);
        self.close(tag);
    }

    /// A person or organisation, as the profile's agent type orders it: the
    /// names and position, address, phone, e-mail, page and ORCID, then the
    /// role where one is said (an associated party's, a project's people).
    fn party(&mut self, tag: &str, p: &Party) {
        self.open(tag, "");
        if p.is_person() {
            let (given, surname) = p.name_parts();
            self.open("individualName", "");
            if !given.is_empty() {
                self.leaf("givenName", given);
            }
            self.leaf("surName", surname);
            self.close("individualName");
        }
        if !p.organization.trim().is_empty() {
            self.leaf("organizationName", p.organization.trim());
        }
        if !p.position_name.trim().is_empty() {
            self.leaf("positionName", p.position_name.trim());
        }
        if !p.address.is_empty() {
            self.open("address", "");
            for (tag, value) in p.address.parts() {
                if !value.trim().is_empty() {
                    self.leaf(tag, value.trim());
                }
            }
            self.close("address");
        }
        if !p.phone.trim().is_empty() {
            self.leaf("phone", p.phone.trim());
        }
        if !p.email.trim().is_empty() {
            self.leaf("electronicMailAddress", p.email.trim());
        }
        if !p.online_url.trim().is_empty() {
            self.leaf("onlineUrl", p.online_url.trim());
        }
        if !p.orcid.trim().is_empty() {
            self.leaf_with("userId", "directory=\"https://orcid.org/\"", p.orcid_id());
        }
        if !p.role.trim().is_empty() {
            self.leaf("role", p.role.trim());
        }
        self.close(tag);
    }

    /// The methods as the profile has them: the method's step (required
    /// before sampling and quality control: a sentence stands in when only
    /// those are said), the sampling, the quality control.
    fn methods(&mut self, d: &Dataset) {
        let (extent, sampling) = (
            d.sampling.study_extent.trim(),
            d.sampling.sampling_description.trim(),
        );
        let quality = d.quality_control.trim();
        let step = match d.methods.trim() {
            "" if extent.is_empty() && sampling.is_empty() && quality.is_empty() => return,
            "" => "The sampling and quality control below.",
            methods => methods,
        };
        self.open("methods", "");
        self.open("methodStep", "");
        self.para("description", step);
        self.close("methodStep");
        if !extent.is_empty() || !sampling.is_empty() {
            self.open("sampling", "");
            self.open("studyExtent", "");
            self.para("description", or_na(extent));
            self.close("studyExtent");
            self.para("samplingDescription", or_na(sampling));
            self.close("sampling");
        }
        if !quality.is_empty() {
            self.open("qualityControl", "");
            self.para("description", quality);
            self.close("qualityControl");
        }
        self.close("methods");
    }

    /// The project, as GBIF's IPT writes it: its identifier, title, people
    /// with their roles, description, funding and study area.
    fn project(&mut self, d: &Dataset, stand_in: &Party) {
        let p = &d.project;
        if *p == crate::model::dataset::Project::default() {
            return;
        }
        match p.identifier.trim() {
            "" => self.open("project", ""),
            id => self.open("project", &format!("id=\"{}\"", xml(id))),
        }
        let title = match p.title.trim() {
            "" => d.title(),
            title => title,
        };
        self.leaf("title", title);
        match p.personnel.is_empty() {
            false => p
                .personnel
                .iter()
                .for_each(|person| self.party("personnel", person)),
            // Checked when read: a stand-in only for a description made otherwise.
            true => self.party(
                "personnel",
                &Party {
                    role: "publisher".into(),
                    ..stand_in.clone()
                },
            ),
        }
        if !p.description.trim().is_empty() {
            self.para("abstract", p.description.trim());
        }
        if !p.funding.trim().is_empty() {
            self.para("funding", p.funding.trim());
        }
        if !p.study_area_description.trim().is_empty() {
            self.open("studyAreaDescription", "");
            self.open(
                "descriptor",
                "name=\"generic\" citableClassificationSystem=\"false\"",
            );
            self.leaf("descriptorValue", p.study_area_description.trim());
            self.close("descriptor");
            self.close("studyAreaDescription");
        }
        self.close("project");
    }

    /// The archive itself, as the profile's `physical` describes a data
    /// object: its name, encoding, format and where it is downloaded.
    fn physical(&mut self, name: &str, url: &str) {
        self.open("physical", "");
        self.leaf("objectName", name);
        self.leaf("characterEncoding", "UTF-8");
        self.open("dataFormat", "");
        self.open("externallyDefinedFormat", "");
        self.leaf("formatName", "Darwin Core Archive");
        self.close("externallyDefinedFormat");
        self.close("dataFormat");
        self.open("distribution", "");
        self.open("online", "");
        self.leaf_with("url", "function=\"download\"", url);
        self.close("online");
        self.close("distribution");
        self.close("physical");
    }

    /// Where, when and what: the box, the days, the orders and families.
    fn coverage(&mut self, c: &Coverage) {
        if c.bounds.is_none() && c.dates.is_none() && c.orders.is_empty() && c.families.is_empty() {
            return;
        }
        self.open("coverage", "");
        if let Some([west, east, north, south]) = c.bounds {
            self.open("geographicCoverage", "");
            self.leaf(
                "geographicDescription",
                "The box around the points of the specimen records (WGS 84).",
            );
            self.open("boundingCoordinates", "");
            for (tag, v) in [
                ("westBoundingCoordinate", west),
                ("eastBoundingCoordinate", east),
                ("northBoundingCoordinate", north),
                ("southBoundingCoordinate", south),
            ] {
                self.leaf(tag, &v.to_string());
            }
            self.close("boundingCoordinates");
            self.close("geographicCoverage");
        }
        if let Some((first, last)) = c.dates {
            self.open("temporalCoverage", "");
            self.open("rangeOfDates", "");
            for (tag, day) in [("beginDate", first), ("endDate", last)] {
                self.open(tag, "");
                self.leaf("calendarDate", &day.format("%Y-%m-%d").to_string());
                self.close(tag);
            }
            self.close("rangeOfDates");
            self.close("temporalCoverage");
        }
        if !c.orders.is_empty() || !c.families.is_empty() {
            self.open("taxonomicCoverage", "");
            self.leaf(
                "generalTaxonomicCoverage",
                "Insects (Insecta): the orders and families of the specimen records.",
            );
            let ranked = c.orders.iter().map(|n| ("order", n));
            for (rank, name) in ranked.chain(c.families.iter().map(|n| ("family", n))) {
                self.open("taxonomicClassification", "");
                self.leaf("taxonRankName", rank);
                self.leaf("taxonRankValue", name);
                self.close("taxonomicClassification");
            }
            self.close("taxonomicCoverage");
        }
        self.close("coverage");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_lists_every_column_once() {
        let meta = meta_xml();
        let terms: Vec<&str> = (meta.split(" term=\"").skip(1))
            .map(|t| t.split('"').next().unwrap())
            .collect();
        let (core, extension) = terms.split_at(COLUMNS.len());
        assert_eq!(extension.len(), multimedia::COLUMNS.len());
        for terms in [core, extension] {
            let distinct: std::collections::BTreeSet<_> = terms.iter().collect();
            assert_eq!(distinct.len(), terms.len(), "a term twice: {terms:?}");
        }
        assert!(
            meta.contains("<field index=\"10\" term=\"http://purl.org/dc/terms/rightsHolder\"/>")
        );
        assert!(meta.contains("<field index=\"45\" term=\"http://purl.org/dc/terms/modified\"/>"));
    }
}
