//! `occurrence.txt`: one tab-separated row per specimen record, written from the
//! view's rows in the order of [`COLUMNS`].

use std::io::Write;

use crate::encoding::time::write_timestamp;
use crate::model::{derived, Model, Type};
use crate::view::{Place, Table, Value, View};

use super::dataset::Dataset;
use super::text::{country_code, elevation, event_date, plain_text};

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

/// How a row's cells are separated and spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `occurrence.txt`: tabs between cells, no quotes (a tab, newline or
    /// carriage return inside a value becomes a space), lines ended by LF.
    Tab,
    /// RFC 4180, as a CSV download with `columns=dwc` is: values kept whole.
    Csv,
}

/// One row being written, in a dialect.
struct Line {
    buf: Vec<u8>,
    cells: usize,
    dialect: Dialect,
}

impl Line {
    fn cell(&mut self, s: &str) {
        if self.dialect == Dialect::Csv {
            crate::encoding::csv::write_cell(&mut self.buf, self.cells == 0, s);
            self.cells += 1;
            return;
        }
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

    fn end(&mut self) {
        match self.dialect {
            Dialect::Tab => self.buf.push(b'\n'),
            Dialect::Csv => crate::encoding::csv::end_record(&mut self.buf),
        }
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

/// The header line and one line per specimen record, ascending by id, or
/// per record at `positions` in their order.
pub fn write(
    out: &mut impl Write,
    view: &View,
    dataset: &Dataset,
    positions: Option<&[usize]>,
) -> std::io::Result<()> {
    out.write_all(&header(Dialect::Tab))?;
    let all: Vec<usize>;
    let positions = match positions {
        Some(p) => p,
        None => {
            all = (0..view.table(Model::SpecimenRecord).len()).collect();
            &all
        }
    };
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in positions.chunks(256) {
        buf.clear();
        rows(&mut buf, view, dataset, chunk, Dialect::Tab);
        out.write_all(&buf)?;
    }
    Ok(())
}

/// The header line: the columns' terms.
pub fn header(dialect: Dialect) -> Vec<u8> {
    let mut line = Line {
        buf: Vec::with_capacity(1024),
        cells: 0,
        dialect,
    };
    for (term, _) in COLUMNS {
        line.cell(term);
    }
    line.end();
    line.buf
}

/// Appends the lines of the specimen records at `positions`, in their order.
pub fn rows(
    out: &mut Vec<u8>,
    view: &View,
    dataset: &Dataset,
    positions: &[usize],
    dialect: Dialect,
) {
    let occurrences = Occurrences::new(view, dataset);
    let specimens = view.table(Model::SpecimenRecord);
    let mut line = Line {
        buf: std::mem::take(out),
        cells: 0,
        dialect,
    };
    let mut row = Vec::with_capacity(Model::SpecimenRecord.fields().len());
    for &pos in positions {
        row.clear();
        row.extend(specimens.row(pos));
        line.cells = 0;
        occurrences.line(&mut line, pos, &row);
        line.end();
    }
    *out = line.buf;
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
    fn line(&self, line: &mut Line, pos: usize, row: &[Value]) {
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
        self.place(line, pos, row);
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
    fn place(&self, line: &mut Line, pos: usize, row: &[Value]) {
        let get = |model, pos, name: &str| self.get(model, pos, name);
        let Place {
            country,
            state,
            county,
            locality,
        } = Place::of_specimen(self.view, pos);
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
