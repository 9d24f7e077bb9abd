//! A specimen record as Darwin Core terms: what each term of [`COLUMNS`] reads of
//! a specimen and of the records it refers to. The archive's `occurrence.txt`,
//! the GBIF-shaped search and its index all read a specimen through here, each
//! with a [`Sink`] of its own.

use crate::encoding::time::write_timestamp;
use crate::model::darwin_core::{country_code, elevation, event_date, plain_text};
use crate::model::dataset::Dataset;
use crate::model::generalised::Treatment;
use crate::model::occurrence_id::OccurrenceIds;
use crate::model::{derived, Model, Type};

use super::place::Place;
use super::{Table, Value, View};

const DWC: &str = "http://rs.tdwg.org/dwc/terms/";
const DCTERMS: &str = "http://purl.org/dc/terms/";

/// The Darwin Core terms a specimen is written as, declared once: [`Term`] and
/// the columns of `occurrence.txt` in order ([`COLUMNS`]) are both made from
/// this list, so a sink places a value by its term, never by counting.
macro_rules! terms {
    ($($variant:ident = $name:literal in $ns:ident,)*) => {
        /// A column of `occurrence.txt`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Term {
            $($variant,)*
        }

        impl Term {
            /// Every term, in [`COLUMNS`] order.
            pub const ALL: &[Term] = &[$(Term::$variant,)*];

            /// Its name in Darwin Core (`occurrenceID`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Term::$variant => $name,)*
                }
            }
        }

        /// The columns of `occurrence.txt`, in order: a term and its namespace.
        pub const COLUMNS: &[(&str, &str)] = &[$(($name, $ns),)*];
    };
}

terms! {
    OccurrenceId = "occurrenceID" in DWC,
    CatalogNumber = "catalogNumber" in DWC,
    BasisOfRecord = "basisOfRecord" in DWC,
    InstitutionCode = "institutionCode" in DWC,
    CollectionCode = "collectionCode" in DWC,
    Kingdom = "kingdom" in DWC,
    Phylum = "phylum" in DWC,
    Class = "class" in DWC,
    Order = "order" in DWC,
    Family = "family" in DWC,
    Subfamily = "subfamily" in DWC,
    Tribe = "tribe" in DWC,
    Genus = "genus" in DWC,
    SpecificEpithet = "specificEpithet" in DWC,
    InfraspecificEpithet = "infraspecificEpithet" in DWC,
    ScientificName = "scientificName" in DWC,
    TaxonRank = "taxonRank" in DWC,
    ScientificNameAuthorship = "scientificNameAuthorship" in DWC,
    VernacularName = "vernacularName" in DWC,
    RecordedBy = "recordedBy" in DWC,
    RecordedById = "recordedByID" in DWC,
    IdentifiedBy = "identifiedBy" in DWC,
    IdentifiedById = "identifiedByID" in DWC,
    DateIdentified = "dateIdentified" in DWC,
    EventDate = "eventDate" in DWC,
    Year = "year" in DWC,
    Month = "month" in DWC,
    Day = "day" in DWC,
    Country = "country" in DWC,
    CountryCode = "countryCode" in DWC,
    StateProvince = "stateProvince" in DWC,
    County = "county" in DWC,
    Locality = "locality" in DWC,
    DecimalLatitude = "decimalLatitude" in DWC,
    DecimalLongitude = "decimalLongitude" in DWC,
    GeodeticDatum = "geodeticDatum" in DWC,
    MinimumElevationInMeters = "minimumElevationInMeters" in DWC,
    MaximumElevationInMeters = "maximumElevationInMeters" in DWC,
    Sex = "sex" in DWC,
    LifeStage = "lifeStage" in DWC,
    Preparations = "preparations" in DWC,
    SamplingProtocol = "samplingProtocol" in DWC,
    Habitat = "habitat" in DWC,
    OccurrenceRemarks = "occurrenceRemarks" in DWC,
    EventRemarks = "eventRemarks" in DWC,
    Modified = "modified" in DCTERMS,
    CoordinateUncertaintyInMeters = "coordinateUncertaintyInMeters" in DWC,
    DataGeneralizations = "dataGeneralizations" in DWC,
    InformationWithheld = "informationWithheld" in DWC,
}

impl Term {
    /// Its place in [`COLUMNS`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// What receives a specimen's terms: one call per term, each naming its term
/// (a writer of lines checks that they come in [`COLUMNS`] order).
pub trait Sink {
    /// A text value; empty when the specimen has none.
    fn text(&mut self, term: Term, s: &str);
    /// A whole number (`year`, `month`, `day`), or none.
    fn int(&mut self, term: Term, n: Option<i64>);
    /// A decimal number (coordinates, elevations), or none.
    fn float(&mut self, term: Term, n: Option<f64>);
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

/// The term of each rank's name, by rank (`RANKS` order).
const RANK_TERMS: [Term; 7] = [
    Term::InfraspecificEpithet,
    Term::SpecificEpithet,
    Term::Genus,
    Term::Tribe,
    Term::Subfamily,
    Term::Family,
    Term::Order,
];

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
    locality: usize,
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
/// and collection codes and its occurrenceIDs' rule (which the records do not
/// hold).
pub struct Occurrences<'v> {
    view: &'v View,
    institution_code: &'v str,
    collection_code: &'v str,
    ids: OccurrenceIds,
    /// Each person's identifier (the dataset's `people`), by position; empty
    /// where the dataset names none.
    people: Vec<Option<String>>,
    rank: RankFields,
    s: SpecimenFields,
}

/// Each person's identifier the dataset gives (`people`, by id or by full
/// name), by the person's position; empty where it gives none.
fn identifiers(view: &View, dataset: &Dataset) -> Vec<Option<String>> {
    if dataset.people.is_empty() {
        return Vec::new();
    }
    let table = view.table(Model::Person);
    let full_name = field(Model::Person, "full_name");
    let mut by_name: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    if dataset.people.iter().any(|p| p.person.is_none()) {
        for pos in (0..table.len()).rev() {
            by_name.insert(text(&table.get(pos, full_name)).trim(), pos as u32);
        }
    }
    let mut out = vec![None; table.len()];
    for person in &dataset.people {
        let pos = match person.person {
            Some(id) => table.position(id),
            None => by_name.get(person.name.trim()).copied(),
        };
        if let Some(pos) = pos {
            out[pos as usize] = person.identifier();
        }
    }
    out
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
    /// The specimens of `view` as `dataset` publishes them.
    pub fn new(view: &'v View, dataset: &'v Dataset) -> Occurrences<'v> {
        let (institution_code, collection_code) =
            (&dataset.institution_code[..], &dataset.collection_code[..]);
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
            locality: f("locality"),
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
            ids: dataset.occurrence_ids(),
            people: identifiers(view, dataset),
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
        line.text(Term::OccurrenceId, &self.ids.of(usi));
        line.text(Term::CatalogNumber, usi);
        line.text(Term::BasisOfRecord, "PreservedSpecimen");
        line.text(Term::InstitutionCode, self.institution_code);
        line.text(Term::CollectionCode, self.collection_code);
        line.text(Term::Kingdom, "Animalia");
        line.text(Term::Phylum, "Arthropoda");
        line.text(Term::Class, "Insecta");
        self.taxonomy(line, row);
        self.people(line, row);
        self.date(line, row);
        self.place(line, pos, row);
        self.specimen(line, row);
        self.generalised(line, row);
    }

    /// What a sensitive place's rule did to the specimen
    /// (`model::generalised`): the point's uncertainty (half its cell's
    /// diagonal), `dataGeneralizations` and `informationWithheld`; nothing
    /// for a specimen no rule covers.
    fn generalised(&self, line: &mut impl Sink, row: &[Value]) {
        match self.treatment(row) {
            Some(t) => {
                let gps = position(&row[self.s.gps]);
                let point = gps.and_then(|p| self.view.points.get(Model::Gps, p as usize));
                let uncertainty = match (t, point) {
                    (Treatment::Grid(g), Some([_, lat])) => Some(g.uncertainty(lat) as i64),
                    _ => None,
                };
                line.int(Term::CoordinateUncertaintyInMeters, uncertainty);
                line.text(Term::DataGeneralizations, &t.generalizations());
                line.text(Term::InformationWithheld, t.withheld());
            }
            None => {
                line.int(Term::CoordinateUncertaintyInMeters, None);
                line.text(Term::DataGeneralizations, "");
                line.text(Term::InformationWithheld, "");
            }
        }
    }

    /// The rule's treatment of the specimen, told by its locality's id.
    fn treatment(&self, row: &[Value]) -> Option<Treatment> {
        let locality = position(&row[self.s.locality])?;
        Treatment::of_id(self.view.table(Model::Locality).id(locality))
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
            line.text(RANK_TERMS[r], name);
        }
        let Some((r, p)) = taxon else {
            for term in [
                Term::ScientificName,
                Term::TaxonRank,
                Term::ScientificNameAuthorship,
                Term::VernacularName,
            ] {
                line.text(term, "");
            }
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
            line.text(Term::ScientificName, full);
        } else {
            line.text(Term::ScientificName, &format!("{full} {authority}"));
        }
        line.text(Term::TaxonRank, model_field(RANKS[r]));
        line.text(Term::ScientificNameAuthorship, authority);
        let common = text(&taxon_row[self.rank.common_name[r]]);
        line.text(Term::VernacularName, common);
    }

    /// `recordedBy` and `recordedByID`, `identifiedBy` and `identifiedByID`,
    /// `dateIdentified`. The identifiers are in the order of the names, one
    /// empty where a person has none; none at all, nothing.
    fn people(&self, line: &mut impl Sink, row: &[Value]) {
        let full_name = |p: u32| text(&self.get(Model::Person, p, "full_name"));
        let id_of = |p: u32| self.people.get(p as usize).and_then(Option::as_deref);
        match &row[self.s.collector] {
            Value::Refs(_, people) => {
                let names: Vec<&str> = people.iter().map(|&p| full_name(p)).collect();
                line.text(Term::RecordedBy, &names.join(" | "));
                let ids: Vec<&str> = people.iter().map(|&p| id_of(p).unwrap_or("")).collect();
                match ids.iter().any(|id| !id.is_empty()) {
                    true => line.text(Term::RecordedById, &ids.join(" | ")),
                    false => line.text(Term::RecordedById, ""),
                }
            }
            _ => {
                line.text(Term::RecordedBy, "");
                line.text(Term::RecordedById, "");
            }
        }
        let determiner = position(&row[self.s.determiner]);
        line.text(Term::IdentifiedBy, determiner.map_or("", full_name));
        line.text(
            Term::IdentifiedById,
            determiner.and_then(id_of).unwrap_or(""),
        );
        match int(&row[self.s.determined_year]) {
            Some(year) => line.text(Term::DateIdentified, &year.to_string()),
            None => line.text(Term::DateIdentified, ""),
        }
    }

    /// `eventDate`, `year`, `month`, `day`.
    fn date(&self, line: &mut impl Sink, row: &[Value]) {
        let (year, day) = (int(&row[self.s.year]), int(&row[self.s.day]));
        let month = derived::month_number(text(&row[self.s.month]));
        line.text(Term::EventDate, &event_date(year, month, day));
        line.int(Term::Year, year);
        line.int(Term::Month, month.map(i64::from));
        line.int(Term::Day, day);
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
                line.text(Term::Country, name);
                let code = country_code(name, text(&get(Model::Country, c, "abbr")));
                line.text(Term::CountryCode, code.unwrap_or(""));
            }
            None => {
                line.text(Term::Country, "");
                line.text(Term::CountryCode, "");
            }
        }
        let state = state.map_or("", |p| text(&get(Model::State, p, "name")));
        line.text(Term::StateProvince, state);
        let county = county.map_or("", |p| text(&get(Model::County, p, "name")));
        line.text(Term::County, county);
        match locality {
            Some(p) => {
                let parts: Vec<&str> = ["name", "range", "town"]
                    .iter()
                    .map(|f| text(&get(Model::Locality, p, f)).trim())
                    .filter(|t| !t.is_empty())
                    .collect();
                line.text(Term::Locality, &parts.join(", "));
            }
            None => line.text(Term::Locality, ""),
        }
        let gps = position(&row[self.s.gps]);
        match gps.and_then(|p| self.view.points.get(Model::Gps, p as usize)) {
            Some([lon, lat]) => {
                line.float(Term::DecimalLatitude, Some(lat));
                line.float(Term::DecimalLongitude, Some(lon));
                line.text(Term::GeodeticDatum, "WGS84");
            }
            None => {
                line.float(Term::DecimalLatitude, None);
                line.float(Term::DecimalLongitude, None);
                line.text(Term::GeodeticDatum, "");
            }
        }
        let (low, high) = gps
            .and_then(|p| elevation(text(&get(Model::Gps, p, "elevation"))))
            .unzip();
        line.float(Term::MinimumElevationInMeters, low);
        line.float(Term::MaximumElevationInMeters, high);
    }

    /// What was collected and how: sex, stage, preparation, method, habitat,
    /// remarks, and when the record last changed.
    fn specimen(&self, line: &mut impl Sink, row: &[Value]) {
        let s = &self.s;
        line.text(Term::Sex, text(&row[s.sex]));
        line.text(Term::LifeStage, text(&row[s.stage]));
        line.text(Term::Preparations, text(&row[s.preparation]));
        line.text(Term::SamplingProtocol, text(&row[s.method]));
        line.text(Term::Habitat, &plain_text(text(&row[s.habitat])));
        line.text(Term::OccurrenceRemarks, &plain_text(text(&row[s.notes])));
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
        line.text(Term::EventRemarks, &remarks.join("; "));
        match row[s.date_modified] {
            Value::Time(t) => {
                let mut b = Vec::new();
                write_timestamp(&mut b, t);
                line.text(Term::Modified, std::str::from_utf8(&b).unwrap_or(""));
            }
            _ => line.text(Term::Modified, ""),
        }
    }
}
