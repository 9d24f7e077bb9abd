//! Species checklists (`/api/v2/specimen-records/checklist/`): which taxa a
//! specimen question holds. One row per taxon at the rank each specimen is
//! identified to (its `taxon`: a subspecies, a species, or a higher rank for
//! one identified no further), with how many specimens, the first and last
//! year collected, how many localities, and the classification above it.
//! Specimens without any taxon are counted apart. Rows are in the order of
//! their scientific names (ties by rank, most specific first).

use crate::encoding::csv::Record;
use crate::encoding::json::{write_int, write_str};
use crate::model::{Model, Type};
use crate::view::{Value, View};

use super::question::Question;
use super::{ApiError, Params};

/// How a checklist is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Json,
    /// With GBIF `SPECIES_LIST`'s column names where they fit.
    Csv,
    /// A page whose rows link to the specimens of each taxon.
    Html,
}

/// A checklist request: the specimen question and how to write the answer.
#[derive(Clone, Debug)]
pub struct ChecklistRequest {
    pub question: Question,
    pub output: Output,
}

impl ChecklistRequest {
    /// Reads `format` (`json`, `csv`, `html`; the page when `page` says the
    /// client prefers one and `format` says nothing) and the question.
    pub fn parse(params: &Params, page: bool) -> Result<ChecklistRequest, ApiError> {
        let output = match params.get("format") {
            None if page => Output::Html,
            None | Some("json") => Output::Json,
            Some("csv") => Output::Csv,
            Some("html") | Some("api") => Output::Html,
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "format must be json, csv or html, not {other:?}"
                )))
            }
        };
        let question = Question::parse(params, &["format"], "a checklist")?;
        Ok(ChecklistRequest { question, output })
    }
}

/// The ranks, most specific first, and the specimen field naming each.
const RANKS: [Model; 7] = Model::RANKS;

/// The name of a rank, as the specimen field that holds it (`species`).
pub fn rank_name(rank: Model) -> &'static str {
    rank.rank_name().unwrap_or_default()
}

/// One taxon of a checklist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taxon {
    pub rank: Model,
    /// Its id in its rank's table.
    pub id: i64,
    /// Its full name: a binomial, a trinomial, or the rank's name.
    pub scientific_name: String,
    pub authority: String,
    pub common_name: String,
    pub specimens: usize,
    pub first_year: Option<i64>,
    pub last_year: Option<i64>,
    pub localities: usize,
    /// The names of the ranks above it and its own, by rank from order to
    /// species (a species' name is its binomial); `None` where it has none.
    pub classification: [Option<String>; 6],
}

/// The higher ranks a row names, from the least specific.
pub const CLASSIFICATION: [Model; 6] = [
    Model::Order,
    Model::Family,
    Model::Subfamily,
    Model::Tribe,
    Model::Genus,
    Model::Species,
];

/// A question's taxa.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checklist {
    pub taxa: Vec<Taxon>,
    /// Specimens the question selects.
    pub specimens: usize,
    /// Those of them without any taxon.
    pub without_taxon: usize,
}

/// What is counted of one taxon while the specimens are read.
struct Tally {
    rank: Model,
    pos: u32,
    specimens: usize,
    first: Option<i64>,
    last: Option<i64>,
    localities: usize,
}

fn field(model: Model, name: &str) -> usize {
    model
        .field_index(name)
        .unwrap_or_else(|| panic!("{} has a field {name}", model.class_name()))
}

fn text(value: Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

impl Checklist {
    /// The taxa of the specimens at `positions`: each specimen's taxon found
    /// by position (a slot per record of each rank, no hashing), its localities
    /// counted once each after grouping them by taxon (linear, no sort).
    pub fn of(view: &View, positions: &[usize]) -> Checklist {
        let specimens = view.table(Model::SpecimenRecord);
        let taxon = specimens.column(field(Model::SpecimenRecord, "taxon"));
        let year = specimens.column(field(Model::SpecimenRecord, "year"));
        let locality = specimens.column(field(Model::SpecimenRecord, "locality"));
        let mut slots: Vec<Vec<u32>> = RANKS
            .iter()
            .map(|&m| vec![u32::MAX; view.table(m).len()])
            .collect();
        let mut tallies: Vec<Tally> = Vec::new();
        // Each selected specimen's tally (u32::MAX: none) and locality.
        let mut counted: Vec<(u32, u32)> = Vec::with_capacity(positions.len());
        let mut without_taxon = 0;
        for &pos in positions {
            let Value::Ref(rank, p) = taxon.get(pos) else {
                without_taxon += 1;
                continue;
            };
            let Some(r) = RANKS.iter().position(|&m| m == rank) else {
                without_taxon += 1;
                continue;
            };
            let slot = &mut slots[r][p as usize];
            if *slot == u32::MAX {
                *slot = tallies.len() as u32;
                tallies.push(Tally {
                    rank,
                    pos: p,
                    specimens: 0,
                    first: None,
                    last: None,
                    localities: 0,
                });
            }
            let tally = &mut tallies[*slot as usize];
            tally.specimens += 1;
            if let Value::Int(y) = year.get(pos) {
                tally.first = Some(tally.first.map_or(y, |f| f.min(y)));
                tally.last = Some(tally.last.map_or(y, |l| l.max(y)));
            }
            if let Value::Ref(_, l) = locality.get(pos) {
                counted.push((*slot, l));
            }
        }
        // The localities grouped by taxon (a counting sort), then each counted
        // once per taxon by stamping it with the taxon's number.
        let mut starts = vec![0usize; tallies.len() + 1];
        for &(t, _) in &counted {
            starts[t as usize + 1] += 1;
        }
        for t in 0..tallies.len() {
            starts[t + 1] += starts[t];
        }
        let mut next = starts.clone();
        let mut grouped = vec![0u32; counted.len()];
        for &(t, l) in &counted {
            grouped[next[t as usize]] = l;
            next[t as usize] += 1;
        }
        let mut stamp = vec![u32::MAX; view.table(Model::Locality).len()];
        for (t, tally) in tallies.iter_mut().enumerate() {
            for &l in &grouped[starts[t]..starts[t + 1]] {
                if stamp[l as usize] != t as u32 {
                    stamp[l as usize] = t as u32;
                    tally.localities += 1;
                }
            }
        }
        let mut taxa: Vec<Taxon> = tallies.into_iter().map(|t| taxon_row(view, t)).collect();
        let rank_index = |m: Model| RANKS.iter().position(|&r| r == m);
        taxa.sort_by(|a, b| {
            a.scientific_name
                .cmp(&b.scientific_name)
                .then_with(|| rank_index(a.rank).cmp(&rank_index(b.rank)))
                .then_with(|| a.id.cmp(&b.id))
        });
        Checklist {
            taxa,
            specimens: positions.len(),
            without_taxon,
        }
    }

    /// `{"meta":{...},"items":[...]}`.
    pub fn json(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 + self.taxa.len() * 320);
        out.extend_from_slice(b"{\"meta\":{\"total_count\":");
        write_int(&mut out, self.taxa.len() as i64);
        out.extend_from_slice(b",\"specimens\":");
        write_int(&mut out, self.specimens as i64);
        out.extend_from_slice(b",\"without_taxon\":");
        write_int(&mut out, self.without_taxon as i64);
        out.extend_from_slice(b"},\"items\":[");
        let opt_int = |out: &mut Vec<u8>, n: Option<i64>| match n {
            Some(n) => write_int(out, n),
            None => out.extend_from_slice(b"null"),
        };
        for (k, t) in self.taxa.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"id\":");
            write_int(&mut out, t.id);
            out.extend_from_slice(b",\"rank\":");
            write_str(&mut out, rank_name(t.rank));
            out.extend_from_slice(b",\"scientific_name\":");
            write_str(&mut out, &t.scientific_name);
            out.extend_from_slice(b",\"authority\":");
            write_str(&mut out, &t.authority);
            out.extend_from_slice(b",\"common_name\":");
            write_str(&mut out, &t.common_name);
            out.extend_from_slice(b",\"specimens\":");
            write_int(&mut out, t.specimens as i64);
            out.extend_from_slice(b",\"first_year\":");
            opt_int(&mut out, t.first_year);
            out.extend_from_slice(b",\"last_year\":");
            opt_int(&mut out, t.last_year);
            out.extend_from_slice(b",\"localities\":");
            write_int(&mut out, t.localities as i64);
            for (rank, name) in CLASSIFICATION.iter().zip(&t.classification) {
                out.push(b',');
                write_str(&mut out, rank_name(*rank));
                out.push(b':');
                match name {
                    Some(name) => write_str(&mut out, name),
                    None => out.extend_from_slice(b"null"),
                }
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
        out
    }

    /// The CSV: GBIF `SPECIES_LIST`'s names where they fit (`scientificName`,
    /// `taxonRank`, `numberOfOccurrences`, the ranks), Darwin Core's for the
    /// rest (`taxonID`, `scientificNameAuthorship`, `vernacularName`), and this
    /// checklist's own (`firstYear`, `lastYear`, `numberOfLocalities`).
    pub fn csv(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256 + self.taxa.len() * 200);
        let mut header = Record::new(&mut out);
        for name in CSV_COLUMNS {
            header.cell(name);
        }
        header.end();
        let int = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
        for t in &self.taxa {
            let mut r = Record::new(&mut out);
            r.cell(&format!("{}:{}", rank_name(t.rank), t.id));
            r.cell(&t.scientific_name);
            r.cell(rank_name(t.rank));
            r.cell(&t.specimens.to_string());
            for name in &t.classification {
                r.cell(name.as_deref().unwrap_or_default());
            }
            r.cell(&t.authority);
            r.cell(&t.common_name);
            r.cell(&int(t.first_year));
            r.cell(&int(t.last_year));
            r.cell(&t.localities.to_string());
            r.end();
        }
        out
    }
}

/// The columns of a checklist's CSV, in order.
pub const CSV_COLUMNS: [&str; 15] = [
    "taxonID",
    "scientificName",
    "taxonRank",
    "numberOfOccurrences",
    "order",
    "family",
    "subfamily",
    "tribe",
    "genus",
    "species",
    "scientificNameAuthorship",
    "vernacularName",
    "firstYear",
    "lastYear",
    "numberOfLocalities",
];

/// The row of a taxon counted.
fn taxon_row(view: &View, tally: Tally) -> Taxon {
    let (rank, p) = (tally.rank, tally.pos);
    let table = view.table(rank);
    let full = match rank {
        Model::Species => "binomial",
        Model::Subspecies => "trinomial",
        _ => "name",
    };
    let mut classification: [Option<String>; 6] = Default::default();
    // The taxon and each rank above it, by their parents.
    let (mut m, mut q) = (rank, p);
    loop {
        if let Some(i) = CLASSIFICATION.iter().position(|&c| c == m) {
            let name = match m {
                Model::Species => "binomial",
                _ => "name",
            };
            classification[i] = Some(text(view.table(m).get(q as usize, field(m, name))));
        }
        let parent = m
            .fields()
            .iter()
            .position(|f| matches!(f.ty, Type::Parent(_)));
        match parent.map(|f| view.table(m).get(q as usize, f)) {
            Some(Value::Ref(up, at)) if RANKS.contains(&up) => (m, q) = (up, at),
            _ => break,
        }
    }
    Taxon {
        rank,
        id: table.id(p),
        scientific_name: text(table.get(p as usize, field(rank, full))),
        authority: text(table.get(p as usize, field(rank, "authority"))),
        common_name: text(table.get(p as usize, field(rank, "common_name"))),
        specimens: tally.specimens,
        first_year: tally.first,
        last_year: tally.last,
        localities: tally.localities,
        classification,
    }
}

/// The filters that narrow a question to one taxon's specimens: its name as
/// the `taxon` filter and each rank above it by name.
pub fn taxon_filters(taxon: &Taxon) -> Vec<(&'static str, String)> {
    let table_name = |i: usize| taxon.classification[i].clone();
    let mut filters = Vec::new();
    for (i, &rank) in CLASSIFICATION.iter().enumerate() {
        if rank == taxon.rank {
            break;
        }
        if let Some(name) = table_name(i) {
            // A species' filter is its epithet: the binomial's last word.
            let name = match rank {
                Model::Species => name.rsplit(' ').next().unwrap_or_default().to_string(),
                _ => name,
            };
            filters.push((rank_name(rank), name));
        }
    }
    let own = match taxon.rank {
        Model::Species | Model::Subspecies => taxon
            .scientific_name
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string(),
        _ => taxon.scientific_name.clone(),
    };
    filters.push(("taxon", own));
    filters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ranks_name_is_the_specimen_field_holding_it() {
        for rank in RANKS {
            let f = Model::SpecimenRecord
                .field_index(rank_name(rank))
                .expect("a specimen field");
            assert_eq!(Model::SpecimenRecord.fields()[f].ty, Type::Embed(rank));
        }
    }
}
