//! The archive's two descriptions: `meta.xml` (the columns of the core file as
//! Darwin Core terms) and `eml.xml` (the dataset, as GBIF's EML profile orders it).

use crate::encoding::xml::escaped as xml;
use crate::view::View;

use crate::model::endpoint::API_PREFIX;

use super::dataset::Dataset;
use super::scope::Scope;
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
    s.push_str("  </core>\n</archive>\n");
    s
}

/// `eml.xml`: the dataset's title, description, publisher and licence (EML 2.1.1,
/// as the GBIF profile orders its elements).
pub fn eml_xml(view: &View, dataset: &Dataset, scope: Scope) -> String {
    let party = |tag: &str| {
        if dataset.publisher.is_empty() {
            String::new()
        } else {
            format!(
                "    <{tag}><organizationName>{}</organizationName></{tag}>\n",
                xml(&dataset.publisher)
            )
        }
    };
    let para = |tag: &str, text: &str| {
        if text.is_empty() {
            String::new()
        } else {
            format!("    <{tag}><para>{}</para></{tag}>\n", xml(text))
        }
    };
    let checksum = view.header.checksum_hex();
    let created = chrono::DateTime::from_timestamp_micros(view.header.created_at);
    let date = created
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    // What made a part of the collection: the question and the snapshot, so
    // that a citation names exactly the records used.
    let selection = match scope {
        Scope::Everything => String::new(),
        Scope::Question { query, positions } => {
            let made = created
                .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
                .unwrap_or_default();
            let filter = match query.is_empty() {
                true => "no filter (every specimen record)".to_string(),
                false => format!("the filter {query}"),
            };
            format!(
                "    <additionalInfo><para>{}</para></additionalInfo>\n",
                xml(&format!(
                    "The {} specimen records that {filter} selects in {API_PREFIX}specimen-records/, \
                     from the snapshot with SHA-256 checksum {checksum}, made {made}.",
                    positions.len()
                ))
            )
        }
    };
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <eml:eml xmlns:eml=\"eml://ecoinformatics.org/eml-2.1.1\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"eml://ecoinformatics.org/eml-2.1.1 http://rs.gbif.org/schema/eml-gbif-profile/1.1/eml.xsd\" \
         packageId=\"{checksum}\" system=\"catalogue\" scope=\"system\" xml:lang=\"en\">\n  \
         <dataset>\n    <alternateIdentifier>{checksum}</alternateIdentifier>\n    \
         <title xml:lang=\"en\">{title}</title>\n{creator}{provider}    \
         <pubDate>{date}</pubDate>\n    <language>en</language>\n{abstract}{selection}{rights}{contact}{publisher}  \
         </dataset>\n</eml:eml>\n",
        title = xml(dataset.title()),
        creator = party("creator"),
        provider = party("metadataProvider"),
        abstract = para("abstract", &dataset.description),
        rights = para("intellectualRights", &dataset.license),
        contact = party("contact"),
        publisher = party("publisher"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_lists_every_column_once() {
        let meta = meta_xml();
        assert_eq!(meta.matches("<field ").count(), COLUMNS.len());
        assert!(meta.contains("<field index=\"43\" term=\"http://purl.org/dc/terms/modified\"/>"));
    }
}
