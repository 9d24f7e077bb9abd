//! Darwin Core Archives: the specimen records as GBIF and other biodiversity
//! harvesters read them. One zip with `occurrence.txt` (one tab-separated row per
//! specimen record), `meta.xml` (its columns as Darwin Core term URIs) and
//! `eml.xml` (who publishes the dataset, under which licence).
//!
//! The archive is written from a view's rows (derived names and resolved
//! references included), deterministically: the same snapshot and dataset give the
//! same bytes, so replicas give the same archive and the same ETag.

use std::io::{Cursor, Write};
use std::path::Path;

use serde::Deserialize;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::encoding::hex::hex;
use crate::encoding::time::write_timestamp;
use crate::model::{derived, Model, Type};
use crate::view::{Table, Value, View};

const DWC: &str = "http://rs.tdwg.org/dwc/terms/";
const DCTERMS: &str = "http://purl.org/dc/terms/";

/// The columns of `occurrence.txt`, in order: a term and its namespace.
pub const COLUMNS: &[(&str, &str)] = &[
    ("occurrenceID", DWC),
    ("catalogNumber", DWC),
    ("basisOfRecord", DWC),
    ("institutionCode", DWC),
    ("collectionCode", DWC),
    ("kingdom", DWC),
    ("phylum", DWC),
    ("class", DWC),
    ("order", DWC),
    ("family", DWC),
    ("subfamily", DWC),
    ("tribe", DWC),
    ("genus", DWC),
    ("specificEpithet", DWC),
    ("infraspecificEpithet", DWC),
    ("scientificName", DWC),
    ("taxonRank", DWC),
    ("scientificNameAuthorship", DWC),
    ("vernacularName", DWC),
    ("recordedBy", DWC),
    ("identifiedBy", DWC),
    ("dateIdentified", DWC),
    ("eventDate", DWC),
    ("year", DWC),
    ("month", DWC),
    ("day", DWC),
    ("country", DWC),
    ("countryCode", DWC),
    ("stateProvince", DWC),
    ("county", DWC),
    ("locality", DWC),
    ("decimalLatitude", DWC),
    ("decimalLongitude", DWC),
    ("geodeticDatum", DWC),
    ("minimumElevationInMeters", DWC),
    ("maximumElevationInMeters", DWC),
    ("sex", DWC),
    ("lifeStage", DWC),
    ("preparations", DWC),
    ("samplingProtocol", DWC),
    ("habitat", DWC),
    ("occurrenceRemarks", DWC),
    ("eventRemarks", DWC),
    ("modified", DCTERMS),
];

/// What `eml.xml` says of the dataset, and the codes every row carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dataset {
    pub title: String,
    pub description: String,
    pub publisher: String,
    /// A licence name or URL (GBIF takes CC0 1.0, CC BY 4.0 and CC BY-NC 4.0).
    pub license: String,
    pub institution_code: String,
    pub collection_code: String,
}

/// Why the dataset description or the archive could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DwcaError {
    // `cause`, not `source`: said once, in the message, not again by error chains.
    #[error("cannot read the dataset file {path}: {cause}")]
    ReadConfig { path: String, cause: std::io::Error },
    #[error("the dataset file {path} is not valid: {cause} (expected a JSON object with title, description, publisher, license, institution_code, collection_code)")]
    Config {
        path: String,
        cause: serde_json::Error,
    },
    #[error("cannot write the archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("cannot write the archive: {0}")]
    Io(#[from] std::io::Error),
}

impl Dataset {
    /// Reads a dataset file: a JSON object with any of the fields.
    pub fn from_file(path: &Path) -> Result<Dataset, DwcaError> {
        let text = std::fs::read_to_string(path).map_err(|cause| DwcaError::ReadConfig {
            path: path.display().to_string(),
            cause,
        })?;
        serde_json::from_str(&text).map_err(|cause| DwcaError::Config {
            path: path.display().to_string(),
            cause,
        })
    }

    /// The title, or a plain one when none was given.
    fn title(&self) -> &str {
        if self.title.is_empty() {
            "Specimen records"
        } else {
            &self.title
        }
    }
}

/// An archive as the server sends it: its bytes and a tag naming exactly them.
#[derive(Clone, Debug)]
pub struct Archive {
    pub bytes: bytes::Bytes,
    /// A strong ETag: the archive's SHA-256, so replicas with the same snapshot and
    /// dataset agree.
    pub etag: String,
}

impl Archive {
    pub fn new(view: &View, dataset: &Dataset) -> Result<Archive, DwcaError> {
        use sha2::{Digest, Sha256};
        let bytes = archive(view, dataset)?;
        let digest = Sha256::digest(&bytes);
        Ok(Archive {
            etag: format!("\"{}\"", hex(&digest[..16])),
            bytes: bytes.into(),
        })
    }
}

/// Writes the whole archive of a view into memory.
pub fn archive(view: &View, dataset: &Dataset) -> Result<Vec<u8>, DwcaError> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let mut options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    // Entries carry the snapshot's time, not the clock's: the same input, the same bytes.
    if let Some(t) = chrono::DateTime::from_timestamp_micros(view.header.created_at) {
        use chrono::{Datelike, Timelike};
        let dt = zip::DateTime::from_date_and_time(
            t.year().clamp(1980, 2107) as u16,
            t.month() as u8,
            t.day() as u8,
            t.hour() as u8,
            t.minute() as u8,
            t.second() as u8,
        );
        if let Ok(dt) = dt {
            options = options.last_modified_time(dt);
        }
    }
    zip.start_file("meta.xml", options)?;
    zip.write_all(meta_xml().as_bytes())?;
    zip.start_file("eml.xml", options)?;
    zip.write_all(eml_xml(view, dataset).as_bytes())?;
    // Over 4 GiB needs Zip64; asking for it always costs a few bytes.
    zip.start_file("occurrence.txt", options.large_file(true))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut zip);
    write_occurrences(&mut out, view, dataset)?;
    out.flush()?;
    drop(out);
    Ok(zip.finish()?.into_inner())
}

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
pub fn eml_xml(view: &View, dataset: &Dataset) -> String {
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
    let date = chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <eml:eml xmlns:eml=\"eml://ecoinformatics.org/eml-2.1.1\" \
         xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"eml://ecoinformatics.org/eml-2.1.1 http://rs.gbif.org/schema/eml-gbif-profile/1.1/eml.xsd\" \
         packageId=\"{checksum}\" system=\"catalogue\" scope=\"system\" xml:lang=\"en\">\n  \
         <dataset>\n    <alternateIdentifier>{checksum}</alternateIdentifier>\n    \
         <title xml:lang=\"en\">{title}</title>\n{creator}{provider}    \
         <pubDate>{date}</pubDate>\n    <language>en</language>\n{abstract}{rights}{contact}{publisher}  \
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

/// Escapes text for XML content and attribute values.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newlines cannot appear in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// One row of `occurrence.txt` being written: cells are separated by tabs, and a
/// tab, newline or carriage return inside a value becomes a space.
struct Line {
    buf: Vec<u8>,
    cells: usize,
}

impl Line {
    fn cell(&mut self, s: &str) {
        if self.cells > 0 {
            self.buf.push(b'\t');
        }
        self.cells += 1;
        self.buf.extend(s.bytes().map(|b| {
            if matches!(b, b'\t' | b'\n' | b'\r') {
                b' '
            } else {
                b
            }
        }));
    }

    fn number(&mut self, n: Option<impl std::fmt::Display>) {
        match n {
            Some(n) => self.cell(&n.to_string()),
            None => self.cell(""),
        }
    }
}

/// The ranks from the most specific to the least (the columns list them the
/// other way round).
const RANKS: [Model; 7] = Model::RANKS;

fn rank_of(model: Model) -> Option<usize> {
    RANKS.iter().position(|&m| m == model)
}

fn field(model: Model, name: &str) -> usize {
    model
        .field_index(name)
        .unwrap_or_else(|| panic!("{} has a field {name}", model.class_name()))
}

/// The specimen field that holds a rank.
fn model_field(rank: Model) -> &'static str {
    match rank {
        Model::Order => "order",
        Model::Family => "family",
        Model::Subfamily => "subfamily",
        Model::Tribe => "tribe",
        Model::Genus => "genus",
        Model::Species => "species",
        _ => "subspecies",
    }
}

/// Field positions of the ranks' tables, by rank (`RANKS` order), looked up once.
struct RankFields {
    names: [usize; 7],
    authority: [usize; 7],
    common_name: [usize; 7],
    parent: [Option<usize>; 7],
}

/// Field positions of the specimen table, looked up once.
struct SpecimenFields {
    ranks: [usize; 7],
    usi: usize,
    taxon: usize,
    determiner: usize,
    determined_year: usize,
    sex: usize,
    stage: usize,
    preparation: usize,
    country: usize,
    state: usize,
    county: usize,
    locality: usize,
    gps: usize,
    day: usize,
    month: usize,
    year: usize,
    collector: usize,
    method: usize,
    weather: usize,
    temperature: usize,
    time_of_day: usize,
    habitat: usize,
    notes: usize,
    date_modified: usize,
}

/// Writes the rows of `occurrence.txt` from a view: what each column reads from a
/// specimen and from the records it refers to.
struct Occurrences<'v> {
    view: &'v View,
    dataset: &'v Dataset,
    rank: RankFields,
    s: SpecimenFields,
}

/// The header line and one line per specimen record, ascending by id.
fn write_occurrences(out: &mut impl Write, view: &View, dataset: &Dataset) -> std::io::Result<()> {
    let mut line = Line {
        buf: Vec::with_capacity(2048),
        cells: 0,
    };
    for (term, _) in COLUMNS {
        line.cell(term);
    }
    line.buf.push(b'\n');
    out.write_all(&line.buf)?;
    let occurrences = Occurrences::new(view, dataset);
    let specimens = view.table(Model::SpecimenRecord);
    let mut row = Vec::with_capacity(Model::SpecimenRecord.fields().len());
    for pos in 0..specimens.len() {
        row.clear();
        row.extend(specimens.row(pos));
        line.buf.clear();
        line.cells = 0;
        occurrences.line(&mut line, &row);
        line.buf.push(b'\n');
        out.write_all(&line.buf)?;
    }
    Ok(())
}

fn position(value: &Value) -> Option<u32> {
    match value {
        Value::Ref(_, p) => Some(*p),
        _ => None,
    }
}

fn text<'a>(value: &Value<'a>) -> &'a str {
    value.as_str().unwrap_or("")
}

fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

impl<'v> Occurrences<'v> {
    fn new(view: &'v View, dataset: &'v Dataset) -> Occurrences<'v> {
        let f = |name| field(Model::SpecimenRecord, name);
        let rank = RankFields {
            names: RANKS.map(|m| field(m, "name")),
            authority: RANKS.map(|m| field(m, "authority")),
            common_name: RANKS.map(|m| field(m, "common_name")),
            parent: RANKS.map(|m| {
                m.fields()
                    .iter()
                    .position(|f| matches!(f.ty, Type::Parent(_)))
            }),
        };
        let s = SpecimenFields {
            ranks: RANKS.map(|m| f(model_field(m))),
            usi: f("usi"),
            taxon: f("taxon"),
            determiner: f("determiner"),
            determined_year: f("determined_year"),
            sex: f("sex"),
            stage: f("stage"),
            preparation: f("preparation"),
            country: f("country"),
            state: f("state"),
            county: f("county"),
            locality: f("locality"),
            gps: f("gps"),
            day: f("day"),
            month: f("month"),
            year: f("year"),
            collector: f("collector"),
            method: f("method"),
            weather: f("weather"),
            temperature: f("temperature"),
            time_of_day: f("time_of_day"),
            habitat: f("habitat"),
            notes: f("notes"),
            date_modified: f("date_modified"),
        };
        Occurrences {
            view,
            dataset,
            rank,
            s,
        }
    }

    /// The value of `name` in the row at `pos` of `model`'s table.
    fn get(&self, model: Model, pos: u32, name: &str) -> Value<'v> {
        self.view.table(model).get(pos as usize, field(model, name))
    }

    /// One specimen's cells, in `COLUMNS` order.
    fn line(&self, line: &mut Line, row: &[Value]) {
        let usi = text(&row[self.s.usi]);
        line.cell(usi);
        line.cell(usi);
        line.cell("PreservedSpecimen");
        line.cell(&self.dataset.institution_code);
        line.cell(&self.dataset.collection_code);
        line.cell("Animalia");
        line.cell("Arthropoda");
        line.cell("Insecta");
        self.taxonomy(line, row);
        self.people(line, row);
        self.date(line, row);
        self.place(line, row);
        self.specimen(line, row);
    }

    /// `order` ... `genus`, the epithets, and the most specific taxon's name,
    /// rank, authorship and vernacular name.
    fn taxonomy(&self, line: &mut Line, row: &[Value]) {
        let view = self.view;
        // Each rank: the specimen's own, else the one above its most specific taxon.
        let mut ranks: [Option<u32>; 7] = self.s.ranks.map(|f| position(&row[f]));
        let taxon = match &row[self.s.taxon] {
            Value::Ref(m, p) => rank_of(*m).map(|r| (r, *p)),
            _ => None,
        };
        if let Some((mut r, mut p)) = taxon {
            loop {
                ranks[r].get_or_insert(p);
                let Some(parent) = self.rank.parent[r] else {
                    break;
                };
                match view.table(RANKS[r]).get(p as usize, parent) {
                    Value::Ref(m, q) => match rank_of(m) {
                        Some(up) => (r, p) = (up, q),
                        None => break,
                    },
                    _ => break,
                }
            }
        }
        for r in (0..7).rev() {
            let name = ranks[r].map_or("", |p| {
                text(&view.table(RANKS[r]).get(p as usize, self.rank.names[r]))
            });
            line.cell(name);
        }
        let Some((r, p)) = taxon else {
            (0..4).for_each(|_| line.cell(""));
            return;
        };
        let table: &Table = view.table(RANKS[r]);
        let taxon_row: Vec<Value> = table.row(p as usize).collect();
        let full = match RANKS[r] {
            Model::Species => text(&self.get(Model::Species, p, "binomial")),
            Model::Subspecies => text(&self.get(Model::Subspecies, p, "trinomial")),
            _ => text(&taxon_row[self.rank.names[r]]),
        };
        let authority = text(&taxon_row[self.rank.authority[r]]);
        if authority.is_empty() {
            line.cell(full);
        } else {
            line.cell(&format!("{full} {authority}"));
        }
        line.cell(model_field(RANKS[r]));
        line.cell(authority);
        line.cell(text(&taxon_row[self.rank.common_name[r]]));
    }

    /// `recordedBy`, `identifiedBy`, `dateIdentified`.
    fn people(&self, line: &mut Line, row: &[Value]) {
        let full_name = |p: u32| text(&self.get(Model::Person, p, "full_name"));
        match &row[self.s.collector] {
            Value::Refs(_, people) => {
                let names: Vec<&str> = people.iter().map(|&p| full_name(p)).collect();
                line.cell(&names.join(" | "));
            }
            _ => line.cell(""),
        }
        line.cell(position(&row[self.s.determiner]).map_or("", full_name));
        line.number(int(&row[self.s.determined_year]));
    }

    /// `eventDate`, `year`, `month`, `day`.
    fn date(&self, line: &mut Line, row: &[Value]) {
        let (year, day) = (int(&row[self.s.year]), int(&row[self.s.day]));
        let month = derived::month_number(text(&row[self.s.month]));
        line.cell(&event_date(year, month, day));
        line.number(year);
        line.number(month);
        line.number(day);
    }

    /// Country, state, county, locality, the point and the elevation. A missing
    /// region is taken from the county, state or locality it lies in.
    fn place(&self, line: &mut Line, row: &[Value]) {
        let get = |model, pos, name: &str| self.get(model, pos, name);
        let locality = position(&row[self.s.locality]);
        let from_locality =
            |name: &str| locality.and_then(|p| position(&get(Model::Locality, p, name)));
        let county = position(&row[self.s.county]).or_else(|| from_locality("county"));
        let state = position(&row[self.s.state])
            .or_else(|| county.and_then(|c| position(&get(Model::County, c, "state"))))
            .or_else(|| from_locality("state"));
        let country = position(&row[self.s.country])
            .or_else(|| state.and_then(|c| position(&get(Model::State, c, "country"))))
            .or_else(|| from_locality("country"));
        match country {
            Some(c) => {
                let name = text(&get(Model::Country, c, "name"));
                line.cell(name);
                line.cell(country_code(name, text(&get(Model::Country, c, "abbr"))).unwrap_or(""));
            }
            None => (0..2).for_each(|_| line.cell("")),
        }
        line.cell(state.map_or("", |p| text(&get(Model::State, p, "name"))));
        line.cell(county.map_or("", |p| text(&get(Model::County, p, "name"))));
        match locality {
            Some(p) => {
                let parts: Vec<&str> = ["name", "range", "town"]
                    .iter()
                    .map(|f| text(&get(Model::Locality, p, f)).trim())
                    .filter(|t| !t.is_empty())
                    .collect();
                line.cell(&parts.join(", "));
            }
            None => line.cell(""),
        }
        let gps = position(&row[self.s.gps]);
        match gps.and_then(|p| self.view.points.get(Model::Gps, p as usize)) {
            Some([lon, lat]) => {
                line.number(Some(lat));
                line.number(Some(lon));
                line.cell("WGS84");
            }
            None => (0..3).for_each(|_| line.cell("")),
        }
        let (low, high) = gps
            .and_then(|p| elevation(text(&get(Model::Gps, p, "elevation"))))
            .unzip();
        line.number(low);
        line.number(high);
    }

    /// What was collected and how: sex, stage, preparation, method, habitat,
    /// remarks, and when the record last changed.
    fn specimen(&self, line: &mut Line, row: &[Value]) {
        let s = &self.s;
        line.cell(text(&row[s.sex]));
        line.cell(text(&row[s.stage]));
        line.cell(text(&row[s.preparation]));
        line.cell(text(&row[s.method]));
        line.cell(&plain_text(text(&row[s.habitat])));
        line.cell(&plain_text(text(&row[s.notes])));
        let mut remarks = Vec::new();
        for (label, field, unit) in [
            ("weather", s.weather, ""),
            ("temperature", s.temperature, " °F"),
            ("time of day", s.time_of_day, ""),
        ] {
            let v = text(&row[field]).trim();
            if !v.is_empty() {
                remarks.push(format!("{label}: {v}{unit}"));
            }
        }
        line.cell(&remarks.join("; "));
        match row[s.date_modified] {
            Value::Time(t) => {
                let mut b = Vec::new();
                write_timestamp(&mut b, t);
                line.cell(std::str::from_utf8(&b).unwrap_or(""));
            }
            _ => line.cell(""),
        }
    }
}

/// ISO 8601 as precise as the parts allow: `2019-10-04`, `2019-10`, `2019`, or
/// nothing without a year.
pub fn event_date(year: Option<i64>, month: Option<u32>, day: Option<i64>) -> String {
    match (year, month, day) {
        (Some(y), Some(m), Some(d)) => format!("{y:04}-{m:02}-{d:02}"),
        (Some(y), Some(m), None) => format!("{y:04}-{m:02}"),
        (Some(y), _, _) => format!("{y:04}"),
        (None, ..) => String::new(),
    }
}

/// An elevation in metres as a range: `252` is 252-252, `3157-3402` is 3157-3402
/// (a trailing `m` is allowed); anything else is no elevation.
pub fn elevation(s: &str) -> Option<(f64, f64)> {
    let s = s.trim();
    let s = s.strip_suffix('m').unwrap_or(s).trim();
    let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    if let Some(v) = number(s) {
        return Some((v, v));
    }
    // The separator is a `-` that is not a leading minus sign.
    let cut = s.char_indices().skip(1).find(|&(_, c)| c == '-')?.0;
    let (a, b) = (number(&s[..cut])?, number(&s[cut + 1..])?);
    Some((a.min(b), a.max(b)))
}

/// The ISO 3166-1 alpha-2 code of a country, from its name or its abbreviation.
pub fn country_code(name: &str, abbr: &str) -> Option<&'static str> {
    use std::str::FromStr;
    let key: String = name.chars().filter(|c| c.is_alphanumeric()).collect();
    let by_abbr = || {
        let letters = abbr.len() == 2 || abbr.len() == 3;
        letters
            .then(|| abbr.bytes().all(|b| b.is_ascii_alphabetic()))
            .filter(|&ok| ok)
            .and_then(|_| celes::Country::from_str(abbr).ok())
    };
    celes::Country::from_str(&key)
        .ok()
        .or_else(by_abbr)
        .map(|c| c.alpha2)
}

/// HTML elements that end a run of text.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
];

/// Rich text as plain text: tags removed, character references decoded, runs of
/// whitespace made one space.
pub fn plain_text(html: &str) -> String {
    if !html.contains(['<', '&']) && !html.contains(char::is_whitespace) {
        return html.to_string();
    }
    let mut stripped = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        stripped.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        // A tag starts with a letter, `/`, `!` or `?`; any other `<` is text.
        let is_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        match after.find('>').filter(|_| is_tag) {
            Some(end) => {
                // Block tags separate words (`<p>a</p><p>b</p>` is "a b"); inline
                // ones do not (`<b>Asclepias</b>.` is "Asclepias.").
                let name: String = after[..end]
                    .trim_start_matches('/')
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                if BLOCK_TAGS.contains(&name.as_str()) {
                    stripped.push(' ');
                }
                rest = &after[end + 1..];
            }
            None => {
                stripped.push('<');
                rest = after;
            }
        }
    }
    stripped.push_str(rest);
    let decoded = html_escape::decode_html_entities(&stripped);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rich_text_becomes_plain() {
        assert_eq!(
            plain_text("<p data-block-key=\"x1\">Roosting on <i>Quercus</i> &amp; live oaks</p>"),
            "Roosting on Quercus & live oaks"
        );
        assert_eq!(plain_text("<p>a</p><p>b&nbsp;c<br/>d</p>"), "a b c d");
        assert_eq!(
            plain_text("On <b>Asclepias</b>.<!-- x -->"),
            "On Asclepias."
        );
        assert_eq!(
            plain_text("temp < 5 &lt;b&gt; &#233;t&#xE9;"),
            "temp < 5 <b> été"
        );
        assert_eq!(plain_text("  two\tlines\nhere "), "two lines here");
        assert_eq!(plain_text(""), "");
    }

    #[test]
    fn elevations_and_dates() {
        assert_eq!(elevation("252"), Some((252.0, 252.0)));
        assert_eq!(elevation("3157-3402"), Some((3157.0, 3402.0)));
        assert_eq!(elevation(" 3402 - 3157 m"), Some((3157.0, 3402.0)));
        assert_eq!(elevation("-5"), Some((-5.0, -5.0)));
        assert_eq!(elevation("about 300"), None);
        assert_eq!(elevation(""), None);
        assert_eq!(event_date(Some(2019), Some(10), Some(4)), "2019-10-04");
        assert_eq!(event_date(Some(2018), Some(8), None), "2018-08");
        assert_eq!(event_date(Some(1890), None, Some(3)), "1890");
        assert_eq!(event_date(None, Some(3), Some(3)), "");
    }

    #[test]
    fn country_codes() {
        assert_eq!(country_code("United States of America", "USA"), Some("US"));
        assert_eq!(country_code("Costa Rica", "CR"), Some("CR"));
        assert_eq!(country_code("Nowhere", "MEX"), Some("MX"));
        assert_eq!(country_code("Nowhere", "N."), None);
    }

    #[test]
    fn meta_lists_every_column_once() {
        let meta = meta_xml();
        assert_eq!(meta.matches("<field ").count(), COLUMNS.len());
        assert!(meta.contains("<field index=\"43\" term=\"http://purl.org/dc/terms/modified\"/>"));
        assert_eq!(xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
