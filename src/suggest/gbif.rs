//! GBIF's suggestions, in GBIF's shapes: `species/suggest` (the taxa, as
//! pygbif's `species.name_suggest` reads them) and
//! `occurrence/search/<term>?q=` (a plain array of a term's values).

use crate::encoding::json::{write_int, write_str};
use crate::model::Model;
use crate::query::gbif::terms::{text_column, Terms};
use crate::query::{ApiError, Params};
use crate::view::name::scientific_name_field;
use crate::view::{chain, Derive, View};

use super::collection::{Kind, Suggestions};
use super::fold::fold;
use super::names::{best, Gathered, Names};
use super::{limit, only, typed};

/// The terms whose values are suggested, as GBIF names them.
pub const TERMS: [&str; 4] = ["catalogNumber", "recordedBy", "locality", "stateProvince"];

/// GBIF's default and greatest `limit` (pygbif asks for 100).
pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 100;

/// GBIF's ranks, of which this collection has some.
pub const GBIF_RANKS: &[&str] = &[
    "DOMAIN",
    "SUPERKINGDOM",
    "KINGDOM",
    "SUBKINGDOM",
    "INFRAKINGDOM",
    "SUPERPHYLUM",
    "PHYLUM",
    "SUBPHYLUM",
    "INFRAPHYLUM",
    "SUPERCLASS",
    "CLASS",
    "SUBCLASS",
    "INFRACLASS",
    "PARVCLASS",
    "SUPERLEGION",
    "LEGION",
    "SUBLEGION",
    "INFRALEGION",
    "SUPERCOHORT",
    "COHORT",
    "SUBCOHORT",
    "INFRACOHORT",
    "MAGNORDER",
    "SUPERORDER",
    "GRANDORDER",
    "ORDER",
    "SUBORDER",
    "INFRAORDER",
    "PARVORDER",
    "SUPERFAMILY",
    "FAMILY",
    "SUBFAMILY",
    "SUPERTRIBE",
    "TRIBE",
    "SUBTRIBE",
    "SUPRAGENERIC_NAME",
    "GENUS",
    "SUBGENUS",
    "INFRAGENUS",
    "SECTION",
    "SUBSECTION",
    "SERIES",
    "SUBSERIES",
    "INFRAGENERIC_NAME",
    "SPECIES_AGGREGATE",
    "SPECIES",
    "INFRASPECIFIC_NAME",
    "GREX",
    "SUBSPECIES",
    "CULTIVAR_GROUP",
    "CONVARIETY",
    "INFRASUBSPECIFIC_NAME",
    "PROLES",
    "NATIO",
    "ABERRATION",
    "MORPH",
    "VARIETY",
    "SUBVARIETY",
    "FORM",
    "SUBFORM",
    "PATHOVAR",
    "BIOVAR",
    "CHEMOVAR",
    "MORPHOVAR",
    "PHAGOVAR",
    "SEROVAR",
    "CHEMOFORM",
    "FORMA_SPECIALIS",
    "CULTIVAR",
    "STRAIN",
    "OTHER",
    "INFORMAL",
    "UNRANKED",
];

/// `species/suggest`: what was typed, the rank asked for (`Some(None)`: one
/// of GBIF's this collection has no taxa of), how many, after how many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpeciesRequest {
    pub q: String,
    pub rank: Option<Option<Model>>,
    pub limit: usize,
    pub offset: usize,
}

impl SpeciesRequest {
    pub fn parse(params: &Params) -> Result<SpeciesRequest, ApiError> {
        only(params, &["q", "rank", "limit", "offset", "datasetKey"])?;
        let rank = match params.get("rank").filter(|r| !r.is_empty()) {
            None => None,
            Some(raw) => {
                let upper = raw.to_ascii_uppercase();
                if !GBIF_RANKS.contains(&upper.as_str()) {
                    return Err(ApiError::bad_request(format!(
                        "rank must be one of GBIF's ranks (ORDER, FAMILY, GENUS, SPECIES, SUBSPECIES...), not {raw:?}"
                    )));
                }
                Some(
                    Model::RANKS
                        .into_iter()
                        .find(|m| m.rank_name().is_some_and(|n| n.eq_ignore_ascii_case(raw))),
                )
            }
        };
        let offset = match params.get("offset") {
            None => 0,
            Some(raw) => raw.parse::<usize>().map_err(|_| {
                ApiError::bad_request(format!("offset must be a whole number, not {raw:?}"))
            })?,
        };
        Ok(SpeciesRequest {
            q: typed(params)?,
            rank,
            limit: limit(params, DEFAULT_LIMIT, MAX_LIMIT)?,
            offset,
        })
    }
}

/// `species/suggest`'s answer: an array of name usages (`key`, the record's
/// id at its `rank`; `scientificName` with its authority; `canonicalName`;
/// the names of the ranks above it).
pub fn species(view: &View, request: &SpeciesRequest) -> Vec<u8> {
    let found = match request.rank {
        Some(None) => Vec::new(),
        _ => {
            let suggestions = view.derived::<Suggestions>();
            let wanted = request.offset.saturating_add(request.limit);
            // A rank filters before the limit: every taxon found is looked at.
            let looked = match request.rank {
                Some(Some(_)) => usize::MAX,
                _ => wanted,
            };
            let mut all = suggestions.find(view, &request.q, &[Kind::Taxon], looked);
            if let Some(Some(rank)) = request.rank {
                all.retain(|s| s.model == rank);
                all.truncate(wanted);
            }
            all.into_iter().skip(request.offset).collect()
        }
    };
    let mut out = b"[".to_vec();
    for (i, s) in found.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let table = view.table(s.model);
        let authority = view
            .value(s.model, s.pos, "authority")
            .as_str()
            .unwrap_or_default();
        let scientific = match authority.trim() {
            "" => s.label.to_owned(),
            a => format!("{} {a}", s.label),
        };
        out.extend_from_slice(b"{\"key\":");
        write_int(&mut out, table.id(s.pos));
        out.extend_from_slice(b",\"scientificName\":");
        write_str(&mut out, &scientific);
        out.extend_from_slice(b",\"canonicalName\":");
        write_str(&mut out, s.label);
        out.extend_from_slice(b",\"rank\":");
        write_str(
            &mut out,
            &s.model.rank_name().unwrap_or_default().to_ascii_uppercase(),
        );
        out.extend_from_slice(b",\"status\":\"ACCEPTED\",\"synonym\":false");
        for (m, p) in chain::chain(view, s.model, s.pos) {
            let (Some(rank), Some(name)) = (
                m.rank_name(),
                view.value(m, p, scientific_name_field(m)).as_str(),
            ) else {
                continue;
            };
            out.push(b',');
            write_str(&mut out, rank);
            out.push(b':');
            write_str(&mut out, name);
        }
        out.push(b'}');
    }
    out.push(b']');
    out
}

/// `occurrence/search/<term>`: the term, what was typed, how many.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TermRequest {
    pub term: &'static str,
    pub q: String,
    pub limit: usize,
}

impl TermRequest {
    /// `None` when `term` is not one suggested (the path names nothing).
    pub fn parse(term: &str, params: &Params) -> Option<Result<TermRequest, ApiError>> {
        let term = *TERMS.iter().find(|t| **t == term)?;
        Some((|| {
            only(params, &["q", "limit"])?;
            Ok(TermRequest {
                term,
                q: typed(params)?,
                limit: limit(params, DEFAULT_LIMIT, MAX_LIMIT)?,
            })
        })())
    }
}

/// The values of the terms other than `catalogNumber` (which is the USI, found
/// in [`Suggestions`]) as names, each value a thing numbered by its code in
/// the GBIF search's columns. Derived once per view, on first use.
#[derive(Default)]
pub struct TermNames {
    /// By [`TERMS`] index less one.
    names: Vec<Names>,
}

impl Derive for TermNames {
    fn derive(view: &View) -> TermNames {
        let terms = view.derived::<Terms>();
        let names = TERMS[1..]
            .iter()
            .map(|term| {
                let coded =
                    &terms.text[text_column(term).expect("a suggested term is a text column")];
                let mut gathered = Gathered::default();
                for code in 0..coded.distinct() as u32 {
                    gathered.name(code, coded.value(code));
                }
                gathered.build()
            })
            .collect();
        TermNames { names }
    }
}

/// A term's values that `q` finds, as a JSON array of strings: the best by the
/// suggestions' rule (exact, begun, typos; more specimens first).
pub fn term_values(view: &View, request: &TermRequest) -> Vec<u8> {
    let values: Vec<String> = match TERMS.iter().position(|t| *t == request.term) {
        Some(0) | None => view
            .derived::<Suggestions>()
            .find(view, &request.q, &[Kind::Specimen], request.limit)
            .into_iter()
            .map(|s| s.label.to_owned())
            .collect(),
        Some(t) => {
            let terms = view.derived::<Terms>();
            let coded =
                &terms.text[text_column(request.term).expect("a suggested term is a text column")];
            let names = &view.derived::<TermNames>().names[t - 1];
            let folded = fold(&request.q);
            let found = match folded.is_empty() {
                true => Vec::new(),
                false => names.find(&folded, &|_| true, request.limit),
            };
            let count = |code: u32| coded.postings.get(code).len() as u32;
            best(found, &count, request.limit)
                .into_iter()
                .map(|f| coded.value(f.thing).to_owned())
                .collect()
        }
    };
    let mut out = b"[".to_vec();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(&mut out, v);
    }
    out.push(b']');
    out
}
