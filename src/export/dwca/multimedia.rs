//! The archive's photographs: GBIF's Simple Multimedia extension
//! (`multimedia.txt`), one row per photograph of a specimen, keyed by the
//! specimen's occurrence id. Simple Multimedia rather than Audubon Core: GBIF
//! indexes both, and a specimen photograph here is one file with a title, alt
//! text and a date, which its flat row says whole; Audubon Core's richer terms
//! (one row per rendition, capture devices) would stay empty.

use std::io::Write;

use crate::model::dataset::Dataset;
use crate::model::Model;
use crate::view::View;

use super::occurrences::tab_cell;

/// The extension's row type.
pub const ROW_TYPE: &str = "http://rs.gbif.org/terms/1.0/Multimedia";

/// The columns after `coreid`: Dublin Core terms, in this order.
pub const COLUMNS: [&str; 10] = [
    "type",
    "format",
    "identifier",
    "references",
    "title",
    "description",
    "created",
    "creator",
    "license",
    "rightsHolder",
];

/// Where the archive's links start: absolute, since an archive is read far
/// from the server that made it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Links {
    /// Where media files are (`https://example.org/media/`).
    pub media: String,
    /// The site's origin, pages under it (`https://example.org`).
    pub site: String,
}

/// The media type a file's extension says.
fn format(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
    match extension.to_ascii_lowercase().as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "tif" | "tiff" => "image/tiff",
        "avif" => "image/avif",
        _ => "",
    }
}

/// The header line.
pub fn header() -> String {
    let mut line = String::from("coreid");
    for term in COLUMNS {
        line.push('\t');
        line.push_str(term);
    }
    line.push('\n');
    line
}

/// Writes the photographs of the specimens at `positions` (all when `None`),
/// in their order; returns how many rows.
pub fn write(
    out: &mut impl Write,
    view: &View,
    links: &Links,
    positions: Option<&[usize]>,
) -> std::io::Result<usize> {
    out.write_all(header().as_bytes())?;
    let dataset: &Dataset = &view.dataset;
    let licence = dataset.licence().map(|l| format!("{}/", l.url()));
    let licence = licence.as_deref().unwrap_or("");
    let holder = dataset.rights_holder();
    let specimens = view.table(Model::SpecimenRecord);
    let field = |name| Model::Image.field_index(name).expect(name);
    let [title, file, alt, date] = ["title", "file", "alt_text", "date"].map(field);
    let usi = Model::SpecimenRecord.field_index("usi").expect("usi");
    let ids = view.dataset.occurrence_ids();
    let images = view.table(Model::Image);
    let text = |pos: u32, f| {
        images
            .get(pos as usize, f)
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let mut rows = 0;
    let mut write_one = |out: &mut dyn Write, pos: usize| -> std::io::Result<()> {
        let photos = view.images_naming("specimen_record", (Model::SpecimenRecord, pos as u32));
        if photos.is_empty() {
            return Ok(());
        }
        // The row of `occurrence.txt` it extends, by its id (occurrenceID).
        let coreid = ids.of(specimens.get(pos, usi).as_str().unwrap_or(""));
        let page = format!(
            "{}{}{}/{}/",
            links.site,
            crate::model::endpoint::API_PREFIX,
            Model::SpecimenRecord.path(),
            specimens.id(pos as u32)
        );
        for &image in photos {
            let path = text(image, file);
            let cells = [
                coreid.clone(),
                "StillImage".to_string(),
                format(&path).to_string(),
                format!("{}{path}", links.media),
                page.clone(),
                text(image, title),
                text(image, alt),
                text(image, date),
                String::new(),
                licence.to_string(),
                holder.to_string(),
            ];
            let mut line = Vec::with_capacity(256);
            for (i, cell) in cells.iter().enumerate() {
                if i > 0 {
                    line.push(b'\t');
                }
                tab_cell(&mut line, cell);
            }
            line.push(b'\n');
            out.write_all(&line)?;
            rows += 1;
        }
        Ok(())
    };
    match positions {
        Some(positions) => {
            for &pos in positions {
                write_one(out, pos)?;
            }
        }
        None => {
            for pos in 0..specimens.len() {
                write_one(out, pos)?;
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_extension() {
        assert_eq!(format("original_images/a.JPG"), "image/jpeg");
        assert_eq!(format("b.png"), "image/png");
        assert_eq!(format("c"), "");
    }
}
