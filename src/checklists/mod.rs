//! Species checklists (`/api/v2/specimen-records/checklist/`): which taxa a
//! specimen question holds. One row per taxon at the rank each specimen is
//! identified to (its `taxon`: a subspecies, a species, or a higher rank for
//! one identified no further), with how many specimens, the first and last
//! year collected, how many localities, and the classification above it.
//! Specimens without any taxon are counted apart. Rows are in the order of
//! their scientific names (ties by rank, most specific first).
//!
//! The feature's room: counting (here), each specimen's identified taxon, year
//! and locality derived once per view (`identified`), and the page (`page`).
//! Its route is `serve/routes/checklist.rs`; its OpenAPI operation is
//! `export::openapi`'s.

use crate::encoding::csv::Record;
use crate::encoding::json::write_int;
use crate::model::Model;
use crate::view::View;

use crate::query::filter::Matches;
use crate::query::gbif::terms::Terms;
use crate::query::gbif::wkt::{self, Area};
use crate::query::plan::Matching;
use crate::query::question::Question;
use crate::query::{byte_order_mark, ApiError, Params};

mod identified;
pub mod page;

pub use identified::CLASSIFICATION;

use identified::{Identified, TaxonNames, NONE, NO_YEAR};

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
    /// `bom=1`: the CSV begins with a UTF-8 byte-order mark.
    pub bom: bool,
    /// `geometry`: the areas the specimens were collected in (any of them),
    /// read as GBIF's search reads them; none: wherever.
    pub within: Within,
}

/// The areas of a checklist's `geometry` parameters, and the parameters as
/// given (for the page's links).
#[derive(Clone, Debug, Default)]
pub struct Within {
    areas: Vec<Area>,
    pub given: Vec<String>,
}

impl Within {
    /// Reads every `geometry` (WKT `POLYGON` or `MULTIPOLYGON`, as GBIF's
    /// search takes them, at most [`wkt::MAX_VERTICES`] vertices in all); an
    /// empty one is no area.
    fn parse(params: &Params) -> Result<Within, ApiError> {
        let bad = |m: String| ApiError::bad_request(format!("geometry: {m}"));
        let mut within = Within::default();
        let mut vertices = 0;
        let given = params.0.iter().filter(|(k, _)| k == GEOMETRY);
        for v in given.filter_map(|(_, v)| crate::query::form::trimmed(v)) {
            let area = wkt::parse(v).map_err(|e| bad(e.to_string()))?;
            vertices += area.vertices();
            if vertices > wkt::MAX_VERTICES {
                return Err(bad(format!(
                    "the geometries of a request have at most {} vertices in all",
                    wkt::MAX_VERTICES
                )));
            }
            within.areas.push(area);
            within.given.push(v.to_string());
        }
        Ok(within)
    }

    /// The specimens of `selected` collected inside one of the areas (by the
    /// coordinates GBIF's search reads); `selected` itself without areas.
    pub fn select<'v>(&self, view: &'v View, selected: Matching<'v>) -> Matching<'v> {
        if self.areas.is_empty() {
            return selected;
        }
        let t = view.derived::<Terms>();
        let mut inside = Vec::new();
        selected.for_each(|pos| {
            let p = [t.longitude[pos], t.latitude[pos]];
            if !p[0].is_nan() && self.areas.iter().any(|a| a.contains(p)) {
                inside.push(pos);
            }
        });
        Matching::Found(Matches::Positions(inside))
    }
}

/// The checklist's own parameter for an area.
pub const GEOMETRY: &str = "geometry";

impl ChecklistRequest {
    /// Reads `format` (`json`, `csv`, `html`; the page when `page` says the
    /// client prefers one and `format` says nothing), `bom` and the question.
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
        let bom = byte_order_mark(params)?;
        let question = Question::parse(params, &["format", "bom", GEOMETRY], "a checklist")?;
        let within = Within::parse(params)?;
        Ok(ChecklistRequest {
            question,
            output,
            bom,
            within,
        })
    }
}

/// The name of a rank, as the specimen field that holds it (`species`).
pub fn rank_name(rank: Model) -> &'static str {
    rank.rank_name().unwrap_or_default()
}

/// One taxon of a checklist: its names (the view's) and its counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taxon<'v> {
    pub names: &'v TaxonNames,
    pub specimens: usize,
    pub first_year: Option<i64>,
    pub last_year: Option<i64>,
    pub localities: usize,
}

/// A question's taxa.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checklist<'v> {
    pub taxa: Vec<Taxon<'v>>,
    /// Specimens the question selects.
    pub specimens: usize,
    /// Those of them without any taxon.
    pub without_taxon: usize,
}

/// What is counted of one taxon while the specimens are read.
#[derive(Clone, Copy)]
struct Tally {
    specimens: u32,
    first: i32,
    last: i32,
    localities: u32,
}

const UNCOUNTED: Tally = Tally {
    specimens: 0,
    first: i32::MAX,
    last: NO_YEAR,
    localities: 0,
};

impl<'v> Checklist<'v> {
    /// The taxa of the `selected` specimens, counted in one pass over
    /// their numbers ([`View::identified`]): a tally per taxon by its number,
    /// a locality counted for a taxon when its (taxon, locality) pair is first
    /// seen; the taxa counted are then taken in a checklist's order.
    pub fn of(view: &'v View, selected: &Matching) -> Checklist<'v> {
        let identified = view.derived::<Identified>();
        let mut tallies = vec![UNCOUNTED; identified.taxa()];
        // A bit per (taxon, locality) pair, and one more that specimens
        // without a pair set and nothing counts.
        let unpaired = identified.pairs;
        let mut seen = vec![0u64; (unpaired + 1).div_ceil(64)];
        let mut without_taxon = 0;
        // Without branches on the data where it varies (a pair seen or not, a
        // year or none): this loop is most of a broad checklist's time.
        let (specimens, seen) = (&identified.specimens[..], &mut seen[..]);
        selected.for_each(|pos| {
            let s = specimens[pos];
            let Some(tally) = tallies.get_mut(s.taxon as usize) else {
                without_taxon += 1;
                return;
            };
            tally.specimens += 1;
            tally.first = tally
                .first
                .min(if s.year == NO_YEAR { i32::MAX } else { s.year });
            tally.last = tally.last.max(s.year);
            let pair = if s.pair == NONE {
                unpaired
            } else {
                s.pair as usize
            };
            let (word, bit) = (&mut seen[pair / 64], 1u64 << (pair % 64));
            let new = (*word & bit == 0) & (pair != unpaired);
            *word |= bit;
            tally.localities += u32::from(new);
        });
        let year = |y: i32| (y != NO_YEAR && y != i32::MAX).then_some(i64::from(y));
        let taxa: Vec<Taxon> = identified
            .in_order
            .iter()
            .map(|&t| (&identified.named[t as usize], tallies[t as usize]))
            .filter(|(_, tally)| tally.specimens > 0)
            .map(|(names, tally)| Taxon {
                names,
                specimens: tally.specimens as usize,
                first_year: year(tally.first),
                last_year: year(tally.last),
                localities: tally.localities as usize,
            })
            .collect();
        Checklist {
            taxa,
            specimens: selected.len(),
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
            out.extend_from_slice(&t.names.json_head);
            out.extend_from_slice(b"\"specimens\":");
            write_int(&mut out, t.specimens as i64);
            out.extend_from_slice(b",\"first_year\":");
            opt_int(&mut out, t.first_year);
            out.extend_from_slice(b",\"last_year\":");
            opt_int(&mut out, t.last_year);
            out.extend_from_slice(b",\"localities\":");
            write_int(&mut out, t.localities as i64);
            out.extend_from_slice(&t.names.json_tail);
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
            let n = t.names;
            let mut r = Record::new(&mut out);
            r.cell(&format!("{}:{}", rank_name(n.rank), n.id));
            r.cell(&n.scientific_name);
            r.cell(rank_name(n.rank));
            r.cell(&t.specimens.to_string());
            for name in &n.classification {
                r.cell(name.as_deref().unwrap_or_default());
            }
            r.cell(&n.authority);
            r.cell(&n.common_name);
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

/// The filters that narrow a question to one taxon's specimens: its name as
/// the `taxon` filter and each rank above it by name.
pub fn taxon_filters(taxon: &Taxon) -> Vec<(&'static str, String)> {
    let taxon = taxon.names;
    let table_name = |i: usize| taxon.classification[i].as_deref().map(str::to_string);
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
        _ => taxon.scientific_name.to_string(),
    };
    filters.push(("taxon", own));
    filters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ranks_name_is_the_specimen_field_holding_it() {
        for rank in Model::RANKS {
            let f = Model::SpecimenRecord
                .field_index(rank_name(rank))
                .expect("a specimen field");
            assert_eq!(
                Model::SpecimenRecord.fields()[f].ty,
                crate::model::Type::Embed(rank)
            );
        }
    }
}
