//! A specimen record as Darwin Core terms: what each term of [`COLUMNS`] reads of
//! a specimen and of the records it refers to. The archive's `occurrence.txt`,
//! the GBIF-shaped search and its index all read a specimen through here, each
//! with a [`Sink`] of its own.

use crate::encoding::time::write_timestamp;
use crate::model::darwin_core::{country_code, elevation, event_date, plain_text};
use crate::model::{derived, Model, Type};

use super::place::Place;
use super::{Table, Value, View};

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

/// What receives a specimen's terms: one call per term, in [`COLUMNS`] order.
pub trait Sink {
    /// A text value; empty when the specimen has none.
    fn text(&mut self, s: &str);
    /// A whole number (`year`, `month`, `day`), or none.
    fn int(&mut self, n: Option<i64>);
    /// A decimal number (coordinates, elevations), or none.
    fn float(&mut self, n: Option<f64>);
}

/// The position of a term in [`COLUMNS`].
pub fn column(term: &str) -> usize {
    COLUMNS
        .iter()
        .position(|(t, _)| *t == term)
        .unwrap_or_else(|| panic!("{term} is a column"))
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
    rank.rank_name().expect("a rank")
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

/// Reads specimens of a view as Darwin Core terms, with the dataset's institution
/// and collection codes (which the records do not hold).
pub struct Occurrences<'v> {
    view: &'v View,
    institution_code: &'v str,
    collection_code: &'v str,
    rank: RankFields,
    s: SpecimenFields,
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
    pub fn new(
        view: &'v View,
        institution_code: &'v str,
        collection_code: &'v str,
    ) -> Occurrences<'v> {
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
            institution_code,
            collection_code,
            rank,
            s,
        }
    }

    /// The value of `name` in the row at `pos` of `model`'s table.
    fn get(&self, model: Model, pos: u32, name: &str) -> Value<'v> {
        self.view.table(model).get(pos as usize, field(model, name))
    }

    /// The terms of the specimen at `pos`, in `COLUMNS` order.
    pub fn terms(&self, pos: usize, line: &mut impl Sink) {
        let row: Vec<Value> = self.view.table(Model::SpecimenRecord).row(pos).collect();
        let row = &row[..];
        let usi = text(&row[self.s.usi]);
        line.text(usi);
        line.text(usi);
        line.text("PreservedSpecimen");
        line.text(self.institution_code);
        line.text(self.collection_code);
        line.text("Animalia");
        line.text("Arthropoda");
        line.text("Insecta");
        self.taxonomy(line, row);
        self.people(line, row);
        self.date(line, row);
        self.place(line, pos, row);
        self.specimen(line, row);
    }

    /// The specimen's taxon at each rank (`Model::RANKS` order: the specimen's
    /// own, else the one above its most specific taxon), and that taxon's rank
    /// and position.
    fn classification(&self, row: &[Value]) -> ([Option<u32>; 7], Option<(usize, u32)>) {
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
                match self.view.table(RANKS[r]).get(p as usize, parent) {
                    Value::Ref(m, q) => match rank_of(m) {
                        Some(up) => (r, p) = (up, q),
                        None => break,
                    },
                    _ => break,
                }
            }
        }
        (ranks, taxon)
    }

    /// The specimen's taxon at each rank (`Model::RANKS` order), `u32::MAX` where
    /// it has none.
    pub fn ranks(&self, pos: usize) -> [u32; 7] {
        let row: Vec<Value> = self.view.table(Model::SpecimenRecord).row(pos).collect();
        self.classification(&row).0.map(|p| p.unwrap_or(u32::MAX))
    }

    /// `order` ... `genus`, the epithets, and the most specific taxon's name,
    /// rank, authorship and vernacular name.
    fn taxonomy(&self, line: &mut impl Sink, row: &[Value]) {
        let view = self.view;
        let (ranks, taxon) = self.classification(row);
        for r in (0..7).rev() {
            let name = ranks[r].map_or("", |p| {
                text(&view.table(RANKS[r]).get(p as usize, self.rank.names[r]))
            });
            line.text(name);
        }
        let Some((r, p)) = taxon else {
            (0..4).for_each(|_| line.text(""));
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
            line.text(full);
        } else {
            line.text(&format!("{full} {authority}"));
        }
        line.text(model_field(RANKS[r]));
        line.text(authority);
        line.text(text(&taxon_row[self.rank.common_name[r]]));
    }

    /// `recordedBy`, `identifiedBy`, `dateIdentified`.
    fn people(&self, line: &mut impl Sink, row: &[Value]) {
        let full_name = |p: u32| text(&self.get(Model::Person, p, "full_name"));
        match &row[self.s.collector] {
            Value::Refs(_, people) => {
                let names: Vec<&str> = people.iter().map(|&p| full_name(p)).collect();
                line.text(&names.join(" | "));
            }
            _ => line.text(""),
        }
        line.text(position(&row[self.s.determiner]).map_or("", full_name));
        match int(&row[self.s.determined_year]) {
            Some(year) => line.text(&year.to_string()),
            None => line.text(""),
        }
    }

    /// `eventDate`, `year`, `month`, `day`.
    fn date(&self, line: &mut impl Sink, row: &[Value]) {
        let (year, day) = (int(&row[self.s.year]), int(&row[self.s.day]));
        let month = derived::month_number(text(&row[self.s.month]));
        line.text(&event_date(year, month, day));
        line.int(year);
        line.int(month.map(i64::from));
        line.int(day);
    }

    /// Country, state, county, locality, the point and the elevation. A missing
    /// region is taken from the county, state or locality it lies in.
    fn place(&self, line: &mut impl Sink, pos: usize, row: &[Value]) {
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
                line.text(name);
                line.text(country_code(name, text(&get(Model::Country, c, "abbr"))).unwrap_or(""));
            }
            None => (0..2).for_each(|_| line.text("")),
        }
        line.text(state.map_or("", |p| text(&get(Model::State, p, "name"))));
        line.text(county.map_or("", |p| text(&get(Model::County, p, "name"))));
        match locality {
            Some(p) => {
                let parts: Vec<&str> = ["name", "range", "town"]
                    .iter()
                    .map(|f| text(&get(Model::Locality, p, f)).trim())
                    .filter(|t| !t.is_empty())
                    .collect();
                line.text(&parts.join(", "));
            }
            None => line.text(""),
        }
        let gps = position(&row[self.s.gps]);
        match gps.and_then(|p| self.view.points.get(Model::Gps, p as usize)) {
            Some([lon, lat]) => {
                line.float(Some(lat));
                line.float(Some(lon));
                line.text("WGS84");
            }
            None => {
                line.float(None);
                line.float(None);
                line.text("");
            }
        }
        let (low, high) = gps
            .and_then(|p| elevation(text(&get(Model::Gps, p, "elevation"))))
            .unzip();
        line.float(low);
        line.float(high);
    }

    /// What was collected and how: sex, stage, preparation, method, habitat,
    /// remarks, and when the record last changed.
    fn specimen(&self, line: &mut impl Sink, row: &[Value]) {
        let s = &self.s;
        line.text(text(&row[s.sex]));
        line.text(text(&row[s.stage]));
        line.text(text(&row[s.preparation]));
        line.text(text(&row[s.method]));
        line.text(&plain_text(text(&row[s.habitat])));
        line.text(&plain_text(text(&row[s.notes])));
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
        line.text(&remarks.join("; "));
        match row[s.date_modified] {
            Value::Time(t) => {
                let mut b = Vec::new();
                write_timestamp(&mut b, t);
                line.text(std::str::from_utf8(&b).unwrap_or(""));
            }
            _ => line.text(""),
        }
    }
}
