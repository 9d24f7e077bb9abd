//! DataCite's metadata of a version (schema 4.5,
//! `/api/v2/citation/?format=datacite`): what a DOI is minted with, from the
//! same parts as the citation: the version's DOI (else the dataset's),
//! creators with their name parts and ORCID iDs, title, publisher, year,
//! `Dataset` as the resource's general type, version, licence, abstract, the
//! dataset's identifier, and links to the archive and its EML.

use chrono::Datelike;

use crate::encoding::xml::escaped as xml;
use crate::model::dataset::Party;
use crate::model::endpoint::{KEPT_ARCHIVE_PATH, KEPT_EML_PATH};
use crate::model::history::Version;
use crate::view::View;

/// DataCite's kernel 4 namespace and the 4.5 schema's address.
pub const NAMESPACE: &str = "http://datacite.org/schema/kernel-4";
pub const SCHEMA: &str = "http://schema.datacite.org/meta/kernel-4.5/metadata.xsd";

/// The metadata of `version`, `site` the site's address (the homepage, or
/// the address asked at) and `origin` the server's (where the version's kept
/// `/versions/N/dwca.zip` and `eml.xml` are).
pub fn datacite(view: &View, version: &Version, site: &str, origin: &str) -> String {
    // The origin may be the request's Host (`evil&x` is a host): escaped.
    let origin = &xml(origin);
    let d = &*view.dataset;
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s += &format!(
        "<resource xmlns=\"{NAMESPACE}\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"{NAMESPACE} {SCHEMA}\">\n"
    );
    let doi = d.version_doi(version.number);
    let bare = doi.as_ref().map(|doi| doi.bare());
    // A DOI not yet minted is left for the minting agent to fill.
    s += &format!(
        "  <identifier identifierType=\"DOI\">{}</identifier>\n",
        xml(bare.unwrap_or_default())
    );
    s += "  <creators>\n";
    let cited = d.cited();
    let creators: Vec<Party> = match cited.is_empty() {
        true => vec![Party {
            organization: "(:unav)".into(),
            ..Party::default()
        }],
        false => cited,
    };
    for p in &creators {
        s += &party(p, "creator");
    }
    s += "  </creators>\n";
    s += &format!(
        "  <titles>\n    <title xml:lang=\"{}\">{}</title>\n  </titles>\n",
        xml(d.language()),
        xml(d.title())
    );
    let publisher = match d.publisher.trim() {
        "" => "(:unav)",
        p => p,
    };
    s += &format!("  <publisher>{}</publisher>\n", xml(publisher));
    let published = chrono::DateTime::from_timestamp_micros(version.published_at);
    let year = published.map_or(1970, |t| t.year());
    s += &format!("  <publicationYear>{year}</publicationYear>\n");
    s += "  <resourceType resourceTypeGeneral=\"Dataset\">Occurrence dataset</resourceType>\n";
    let keywords: Vec<&str> = (d.keywords.iter().map(|k| k.trim()))
        .filter(|k| !k.is_empty())
        .collect();
    if !keywords.is_empty() {
        s += "  <subjects>\n";
        for k in keywords {
            s += &format!("    <subject>{}</subject>\n", xml(k));
        }
        s += "  </subjects>\n";
    }
    if !d.contacts.is_empty() {
        s += "  <contributors>\n";
        for p in &d.contacts {
            s += &party(p, "contributor");
        }
        s += "  </contributors>\n";
    }
    if let Some(t) = published {
        s += &format!(
            "  <dates>\n    <date dateType=\"Issued\">{}</date>\n  </dates>\n",
            t.format("%Y-%m-%d")
        );
    }
    s += &format!("  <language>{}</language>\n", xml(d.language()));
    let id = d.identifier();
    let id_type = match id.contains(':') {
        true => "URI",
        false => "UUID",
    };
    s += &format!(
        "  <alternateIdentifiers>\n    <alternateIdentifier alternateIdentifierType=\"{id_type}\">{}</alternateIdentifier>\n  </alternateIdentifiers>\n",
        xml(&id)
    );
    s += "  <relatedIdentifiers>\n";
    // Every version's files where they are kept (`/versions/N/`), the
    // current one's too: `/dwca.zip` moves on with the next version, and a
    // DOI names what stays.
    let n = version.number.to_string();
    let (archive, eml) = (
        KEPT_ARCHIVE_PATH.replace("{version}", &n),
        KEPT_EML_PATH.replace("{version}", &n),
    );
    s += &format!(
        "    <relatedIdentifier relatedIdentifierType=\"URL\" relationType=\"IsSourceOf\" resourceTypeGeneral=\"Dataset\">{origin}{archive}</relatedIdentifier>\n"
    );
    s += &format!(
        "    <relatedIdentifier relatedIdentifierType=\"URL\" relationType=\"HasMetadata\" relatedMetadataScheme=\"eml\" schemeURI=\"https://eml.ecoinformatics.org/eml-2.2.0\">{origin}{eml}</relatedIdentifier>\n"
    );
    s += &format!(
        "    <relatedIdentifier relatedIdentifierType=\"URL\" relationType=\"IsDocumentedBy\">{}</relatedIdentifier>\n",
        xml(site)
    );
    if let (Some(own), Some(dataset)) = (&doi, d.doi()) {
        if *own != dataset {
            s += &format!(
                "    <relatedIdentifier relatedIdentifierType=\"DOI\" relationType=\"IsVersionOf\">{}</relatedIdentifier>\n",
                xml(dataset.bare())
            );
        }
    }
    s += "  </relatedIdentifiers>\n";
    s += "  <formats>\n    <format>application/zip</format>\n  </formats>\n";
    s += &format!("  <version>{}</version>\n", version.number);
    if let Some(licence) = d.licence() {
        s += &format!(
            "  <rightsList>\n    <rights xml:lang=\"en\" rightsURI=\"{}\" rightsIdentifier=\"{}\" rightsIdentifierScheme=\"SPDX\" schemeURI=\"https://spdx.org/licenses/\">{}</rights>\n  </rightsList>\n",
            xml(&licence.legal_code()),
            licence.spdx(),
            xml(licence.title())
        );
    }
    if !d.description.trim().is_empty() {
        s += &format!(
            "  <descriptions>\n    <description xml:lang=\"{}\" descriptionType=\"Abstract\">{}</description>\n  </descriptions>\n",
            xml(d.language()),
            xml(d.description.trim())
        );
    }
    s += "</resource>\n";
    s
}

/// A creator or a contributor (a contact person): a person's name as
/// "Family, Given" with its parts and ORCID iD, an organisation's whole;
/// their organisation as the affiliation.
fn party(p: &Party, tag: &str) -> String {
    let mut s = match tag {
        "contributor" => "    <contributor contributorType=\"ContactPerson\">\n".to_string(),
        _ => format!("    <{tag}>\n"),
    };
    let name = format!("{tag}Name");
    if p.is_person() {
        let (given, family) = p.name_parts();
        let whole = match given.is_empty() {
            true => family.to_string(),
            false => format!("{family}, {given}"),
        };
        s += &format!(
            "      <{name} nameType=\"Personal\">{}</{name}>\n",
            xml(&whole)
        );
        if !given.is_empty() {
            s += &format!("      <givenName>{}</givenName>\n", xml(given));
        }
        s += &format!("      <familyName>{}</familyName>\n", xml(family));
        if !p.orcid.trim().is_empty() {
            s += &format!(
                "      <nameIdentifier nameIdentifierScheme=\"ORCID\" schemeURI=\"https://orcid.org\">https://orcid.org/{}</nameIdentifier>\n",
                xml(p.orcid_id())
            );
        }
        if !p.organization.trim().is_empty() {
            s += &format!(
                "      <affiliation>{}</affiliation>\n",
                xml(p.organization.trim())
            );
        }
    } else {
        s += &format!(
            "      <{name} nameType=\"Organizational\">{}</{name}>\n",
            xml(p.organization.trim())
        );
    }
    s += &format!("    </{tag}>\n");
    s
}
