//! A GBIF occurrence search, parsed and run: the parameters GBIF defines for the
//! terms this collection holds, each value of a repeated parameter an
//! alternative (OR), numbers and dates as ranges (`1990,2000`, `*` for an open
//! end), areas as WKT, facets with GBIF's paging, and beyond GBIF a `sort` and no
//! cap on paging. Every 400 is found in [`Search::parse`]; [`Search::run`]
//! cannot fail. Values are the archive's (`terms`).

use chrono::{Datelike, NaiveDate};

use super::terms::{day_of, text_column, Terms, NO_INT, TEXT};
use crate::model::darwin_core::country_code;
use crate::model::{Model, Shape};
use crate::quality::{self, Flag, Quality};
use crate::view::bits::Bits;
use crate::view::View;

use super::super::error::ApiError;
use super::super::filter::{self, Filter};
use super::super::params::Params;
use super::wkt::{self, Area};

/// The page size when a search gives no `limit`, and the largest (a larger one
/// is taken as this, as GBIF does).
pub const DEFAULT_LIMIT: usize = 20;
pub const MAX_LIMIT: usize = 300;
/// How many values one parameter may repeat, and how many facets a search may ask.
pub const MAX_VALUES: usize = 100;
pub const MAX_FACETS: usize = 20;
/// The most counts one facet may list.
pub const MAX_FACET_LIMIT: usize = 10_000;

/// What a parameter compares, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Equal to a value of a text column, ignoring case.
    Text(&'static str),
    /// The name of a taxon at this rank (`Model::RANKS` index), ignoring case.
    Rank(usize),
    /// The name of a taxon at any rank, with or without its authority: the
    /// specimens of that taxon and of every taxon below it.
    ScientificName,
    Int(IntColumn),
    Float(FloatColumn),
    /// A day, month or year, or a range of them.
    EventDate,
    Modified,
    HasCoordinate,
    FullText,
    Geometry,
    /// A quality flag (GBIF's `issue`).
    Issue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IntColumn {
    Year,
    Month,
    Day,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FloatColumn {
    Latitude,
    Longitude,
    Elevation,
}

/// Every search parameter: its name as GBIF spells it, and what it compares.
const TERMS: &[(&str, Kind)] = &[
    ("q", Kind::FullText),
    ("scientificName", Kind::ScientificName),
    ("order", Kind::Rank(6)),
    ("family", Kind::Rank(5)),
    ("genus", Kind::Rank(2)),
    ("country", Kind::Text("countryCode")),
    ("countryCode", Kind::Text("countryCode")),
    ("stateProvince", Kind::Text("stateProvince")),
    ("county", Kind::Text("county")),
    ("locality", Kind::Text("locality")),
    ("recordedBy", Kind::Text("recordedBy")),
    ("identifiedBy", Kind::Text("identifiedBy")),
    ("catalogNumber", Kind::Text("catalogNumber")),
    ("basisOfRecord", Kind::Text("basisOfRecord")),
    ("sex", Kind::Text("sex")),
    ("lifeStage", Kind::Text("lifeStage")),
    ("year", Kind::Int(IntColumn::Year)),
    ("month", Kind::Int(IntColumn::Month)),
    ("day", Kind::Int(IntColumn::Day)),
    ("eventDate", Kind::EventDate),
    ("decimalLatitude", Kind::Float(FloatColumn::Latitude)),
    ("decimalLongitude", Kind::Float(FloatColumn::Longitude)),
    ("elevation", Kind::Float(FloatColumn::Elevation)),
    ("hasCoordinate", Kind::HasCoordinate),
    // GBIF's count calls it so (pygbif's `occurrences.count(isGeoreferenced=)`).
    ("isGeoreferenced", Kind::HasCoordinate),
    ("modified", Kind::Modified),
    ("geometry", Kind::Geometry),
    ("issue", Kind::Issue),
];

/// The other parameters: paging, sorting and facets, and `checklistKey`, which
/// names the checklist GBIF reads names against (pygbif sends one by default):
/// here names are the collection's own classification, whichever is named.
const OPERATIONS: &[&str] = &[
    "checklistKey",
    "limit",
    "offset",
    "sort",
    "facet",
    "facetLimit",
    "facetOffset",
    "facetMincount",
    "facetMultiselect",
];

/// The parameter names, for the OpenAPI document: filters, then operations.
pub fn parameters() -> impl Iterator<Item = &'static str> {
    TERMS
        .iter()
        .map(|(n, _)| *n)
        .chain(OPERATIONS.iter().copied())
}

/// The terms a facet or a sort may name: the text columns and the numbers (and,
/// for a facet, the quality flags, `issue`).
pub fn facetable() -> impl Iterator<Item = &'static str> {
    TEXT.iter()
        .copied()
        .chain(["year", "month", "day", "issue"])
}

pub fn sortable() -> impl Iterator<Item = &'static str> {
    TEXT.iter().copied().chain([
        "key",
        "year",
        "month",
        "day",
        "eventDate",
        "decimalLatitude",
        "decimalLongitude",
        "elevation",
        "modified",
    ])
}

/// A range of numbers, inclusive; an open end is infinite.
type Range = [f64; 2];

/// One parameter's condition: any of its values holds.
#[derive(Clone, Debug)]
enum Cond {
    /// The codes of a text column's matching values, as a membership table.
    Codes {
        column: usize,
        hit: Vec<bool>,
    },
    /// Per rank, the matching taxa (empty where none matches).
    Taxa(Vec<Vec<bool>>),
    Ints(IntColumn, Vec<Range>),
    Floats(FloatColumn, Vec<Range>),
    /// Ranges of days (from 0001-01-01) the record's date must lie within.
    Event(Vec<Range>),
    Modified(Vec<Range>),
    HasCoordinate(bool),
    /// The specimens a full-text search finds.
    Found(Vec<bool>),
    Within(Vec<Area>),
}

/// A facet asked for: the term, its column, and its own paging.
#[derive(Clone, Debug)]
pub struct Facet {
    pub term: &'static str,
    /// The term as the answer names the facet (`country` counts `countryCode`).
    pub shown: &'static str,
    field: FacetField,
    pub limit: usize,
    pub offset: usize,
}

#[derive(Clone, Copy, Debug)]
enum FacetField {
    Text(usize),
    Int(IntColumn),
    Issue,
}

/// One facet's counts: the values (as the archive spells them) and how many
/// specimens hold each, most first, after the facet's offset and limit.
#[derive(Debug, PartialEq)]
pub struct Counts {
    /// The facet's term as the search named it.
    pub field: &'static str,
    pub counts: Vec<(String, usize)>,
}

/// A sort key: a term and its direction.
#[derive(Clone, Copy, Debug)]
struct SortKey {
    term: &'static str,
    descending: bool,
}

/// A search, checked.
#[derive(Clone, Debug)]
pub struct Search {
    /// Each condition with the parameter it came from.
    conds: Vec<(&'static str, Cond)>,
    sort: Vec<SortKey>,
    pub limit: usize,
    pub offset: usize,
    facets: Vec<Facet>,
    mincount: usize,
    multiselect: bool,
    /// What the answer should say it did (a repaired polygon).
    pub notes: Vec<String>,
}

/// What a search found: the true count, the page's specimen positions, facets.
#[derive(Debug)]
pub struct Found {
    pub count: usize,
    pub page: Vec<usize>,
    pub facets: Vec<Counts>,
}

/// GBIF's facet names are camelCase (`basisOfRecord`) or upper snake case
/// (`BASIS_OF_RECORD`), in any case.
fn folded(name: &str) -> String {
    name.chars()
        .filter(|&c| c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `basisOfRecord` as GBIF names it in a response (`BASIS_OF_RECORD`).
pub fn upper_snake(term: &str) -> String {
    let mut out = String::new();
    for c in term.chars() {
        if c.is_uppercase() && !out.is_empty() {
            out.push('_');
        }
        out.extend(c.to_uppercase());
    }
    out
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request(message)
}

/// A whole number at least 0.
fn count(name: &str, value: &str) -> Result<usize, ApiError> {
    // Digits only, up to the largest 64-bit signed integer (what the OpenAPI
    // document says).
    value
        .parse::<i64>()
        .ok()
        .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
        .map(|n| n as usize)
        .ok_or_else(|| {
            bad(format!(
                "{name} must be a whole number of 0 or more, not {value:?}"
            ))
        })
}

/// The ISO alpha-2 codes a `country` value names beside itself: an alpha-3
/// code or a name ISO knows, and the collection's own countries whose name or
/// abbreviation it is (ignoring case).
fn country_codes(view: &View, value: &str) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = country_code(value, value).into_iter().collect();
    let text = |pos, field| match view.value(Model::Country, pos, field) {
        crate::view::Value::Str(s) => s,
        _ => "",
    };
    for pos in 0..view.table(Model::Country).len() as u32 {
        let (name, abbr) = (text(pos, "name"), text(pos, "abbr"));
        if name.eq_ignore_ascii_case(value) || abbr.eq_ignore_ascii_case(value) {
            codes.extend(country_code(name, abbr));
        }
    }
    codes
}

/// `a`, `a,b`, `*,b` or `a,*`: a range of values parsed by `one` (`*` alone:
/// any value). A range from the larger to the smaller holds nothing, as GBIF
/// answers it.
fn range(name: &str, value: &str, one: impl Fn(&str) -> Option<Range>) -> Result<Range, ApiError> {
    range_of(name, value, "a number (1990, 45.5)", one)
}

/// [`range`] of what `form` says (the message's words for one value).
fn range_of(
    name: &str,
    value: &str,
    form: &str,
    one: impl Fn(&str) -> Option<Range>,
) -> Result<Range, ApiError> {
    let refused = || {
        bad(format!(
            "{name} takes {form}, or a range `from,to` of them (`*` for an open end), not {value:?}"
        ))
    };
    match value.split_once(',') {
        // Any value at all: the records that have one.
        None if value == "*" => Ok([f64::NEG_INFINITY, f64::INFINITY]),
        None => one(value).ok_or_else(refused),
        Some((a, b)) => {
            let lo = match a {
                "*" => f64::NEG_INFINITY,
                _ => one(a).ok_or_else(refused)?[0],
            };
            let hi = match b {
                "*" => f64::INFINITY,
                _ => one(b).ok_or_else(refused)?[1],
            };
            Ok([lo, hi])
        }
    }
}

fn number(s: &str) -> Option<Range> {
    wkt::plain_number(s).map(|v| [v, v])
}

/// How a date is written, for the messages refusing one.
const DATE_FORM: &str = "a date written YYYY, YYYY-MM or YYYY-MM-DD (2019, 2019-10, 2019-10-04)";

/// The pattern of a number or range of [`number`]s, for the OpenAPI document.
pub const NUMBER_RANGE: &str = r"^(\*|[+-]?[0-9]+(\.[0-9]+)?)(,(\*|[+-]?[0-9]+(\.[0-9]+)?))?$";

/// The pattern of a date or range of dates (the year, the month, the day), for
/// the OpenAPI document.
pub const DATE_RANGE: &str = concat!(
    r"^(\*|[0-9]{4}(-(0?[1-9]|1[0-2])(-(0?[1-9]|1[0-9]|2[0-8]))?)?)",
    r"(,(\*|[0-9]{4}(-(0?[1-9]|1[0-2])(-(0?[1-9]|1[0-9]|2[0-8]))?)?))?$"
);

/// The pattern of `true` or `false`, in any case.
pub const BOOLEAN: &str = "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$";

/// The days a date names (`2019`, `2019-06`, `2019-06-04`), from 0001-01-01.
fn days(s: &str) -> Option<Range> {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, width: std::ops::RangeInclusive<usize>| {
        width
            .contains(&p.len())
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let day = |y: i32, m: u32, d: u32| NaiveDate::from_ymd_opt(y, m, d);
    let (first, last) = match parts.as_slice() {
        [y] => {
            let y = num(y, 4..=4)? as i32;
            (day(y, 1, 1)?, day(y, 12, 31)?)
        }
        [y, m] => {
            let (y, m) = (num(y, 4..=4)? as i32, num(m, 1..=2)?);
            let first = day(y, m, 1)?;
            let next = first.checked_add_months(chrono::Months::new(1))?;
            (first, next.pred_opt()?)
        }
        [y, m, d] => {
            let d = day(num(y, 4..=4)? as i32, num(m, 1..=2)?, num(d, 1..=2)?)?;
            (d, d)
        }
        _ => return None,
    };
    Some([
        first.num_days_from_ce() as f64,
        last.num_days_from_ce() as f64,
    ])
}

fn boolean(name: &str, value: &str) -> Result<bool, ApiError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(bad(format!("{name} is true or false, not {value:?}"))),
    }
}

impl Search {
    /// Checks a search's parameters against a view (names are looked up in it).
    pub fn parse(params: &Params, view: &View) -> Result<Search, ApiError> {
        let mut unknown: Vec<&str> = Vec::new();
        let mut facet_paging: Vec<(String, &str, &str)> = Vec::new();
        for (name, value) in &params.0 {
            let known = TERMS.iter().any(|(n, _)| n == name) || OPERATIONS.contains(&name.as_str());
            if known {
                continue;
            }
            match name.rsplit_once('.') {
                Some((field, option @ ("facetLimit" | "facetOffset"))) => {
                    facet_paging.push((folded(field), option, value))
                }
                _ => unknown.push(name),
            }
        }
        if !unknown.is_empty() {
            unknown.dedup();
            // A client's names, echoed: the first few, then how many more.
            const SAID: usize = 10;
            let more = match unknown.len().saturating_sub(SAID) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            unknown.truncate(SAID);
            return Err(bad(format!(
                "unknown parameter{} {}{more}: this collection answers {}",
                if unknown.len() > 1 { "s" } else { "" },
                unknown
                    .iter()
                    .map(|n| n.chars().take(100).collect::<String>())
                    .collect::<Vec<_>>()
                    .join(", "),
                parameters().collect::<Vec<_>>().join(", ")
            )));
        }
        let mut search = Search {
            conds: Vec::new(),
            sort: Vec::new(),
            limit: DEFAULT_LIMIT,
            offset: 0,
            facets: Vec::new(),
            mincount: 1,
            multiselect: false,
            notes: Vec::new(),
        };
        let values = |name: &str| -> Vec<&str> {
            params
                .0
                .iter()
                .filter(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
                .collect()
        };
        let terms = view.derived::<Terms>();
        for &(name, kind) in TERMS {
            let given = values(name);
            if given.is_empty() {
                continue;
            }
            if given.len() > MAX_VALUES {
                return Err(bad(format!(
                    "{name} is given {} times: at most {MAX_VALUES} values",
                    given.len()
                )));
            }
            if let Some(cond) = search.cond(name, kind, &given, view, terms)? {
                search.conds.push((name, cond));
            }
        }
        if let Some(v) = params.get("limit") {
            search.limit = count("limit", v)?.min(MAX_LIMIT);
        }
        if let Some(v) = params.get("offset") {
            search.offset = count("offset", v)?;
        }
        if let Some(v) = params.get("sort").filter(|v| !v.is_empty()) {
            for key in v.split(',') {
                let (descending, term) = match key.strip_prefix('-') {
                    Some(t) => (true, t),
                    None => (false, key),
                };
                let term = sortable()
                    .find(|t| folded(t) == folded(term))
                    .ok_or_else(|| {
                        bad(format!(
                        "sort cannot order by {term}: it takes {} (- before a term for descending)",
                        sortable().collect::<Vec<_>>().join(", ")
                    ))
                    })?;
                search.sort.push(SortKey { term, descending });
            }
        }
        let facet_limit = match params.get("facetLimit") {
            Some(v) => count("facetLimit", v)?,
            None => 10,
        };
        if facet_limit > MAX_FACET_LIMIT {
            return Err(bad(format!(
                "a facet lists at most {MAX_FACET_LIMIT} values, not facetLimit={facet_limit}"
            )));
        }
        let facet_offset = match params.get("facetOffset") {
            Some(v) => count("facetOffset", v)?,
            None => 0,
        };
        if let Some(v) = params.get("facetMincount") {
            search.mincount = count("facetMincount", v)?.max(1);
        }
        if let Some(v) = params.get("facetMultiselect") {
            search.multiselect = boolean("facetMultiselect", v)?;
        }
        for name in values("facet") {
            let (term, shown) = match folded(name).as_str() {
                "country" => ("countryCode", "country"),
                f => facetable()
                    .find(|t| folded(t) == f)
                    .map(|t| (t, t))
                    .ok_or_else(|| {
                        bad(format!(
                            "facet cannot count {name}: it takes {}",
                            facetable().collect::<Vec<_>>().join(", ")
                        ))
                    })?,
            };
            if search.facets.iter().any(|f| f.term == term) {
                continue;
            }
            let field = match (text_column(term), term) {
                (Some(c), _) => FacetField::Text(c),
                (None, "issue") => FacetField::Issue,
                (None, _) => FacetField::Int(match term {
                    "year" => IntColumn::Year,
                    "month" => IntColumn::Month,
                    _ => IntColumn::Day,
                }),
            };
            search.facets.push(Facet {
                term,
                shown,
                field,
                limit: facet_limit,
                offset: facet_offset,
            });
        }
        if search.facets.len() > MAX_FACETS {
            return Err(bad(format!("at most {MAX_FACETS} facets")));
        }
        for (field, option, value) in facet_paging {
            let facet = search
                .facets
                .iter_mut()
                .find(|f| folded(f.term) == field || folded(f.shown) == field)
                .ok_or_else(|| {
                    bad(format!(
                        "{field}.{option} names a facet the search does not ask for (facet={field})"
                    ))
                })?;
            let n = count(option, value)?;
            match option {
                "facetLimit" => facet.limit = n,
                _ => facet.offset = n,
            }
        }
        if let Some(f) = search.facets.iter().find(|f| f.limit > MAX_FACET_LIMIT) {
            return Err(bad(format!(
                "a facet lists at most {MAX_FACET_LIMIT} values ({} asks {})",
                f.term, f.limit
            )));
        }
        Ok(search)
    }

    fn cond(
        &mut self,
        name: &str,
        kind: Kind,
        given: &[&str],
        view: &View,
        terms: &Terms,
    ) -> Result<Option<Cond>, ApiError> {
        Ok(Some(match kind {
            Kind::Text(term) => {
                let column = text_column(term).expect("a text term");
                let coded = &terms.text[column];
                let mut hit = vec![false; coded.distinct()];
                for v in given {
                    for &code in coded.find(v.trim()) {
                        hit[code as usize] = true;
                    }
                    if term == "countryCode" {
                        // GBIF takes alpha-2; a person writes the country as
                        // the collection does, or as ISO's alpha-3 or name.
                        for alpha2 in country_codes(view, v.trim()) {
                            for &code in coded.find(alpha2) {
                                hit[code as usize] = true;
                            }
                        }
                    }
                    if term == "basisOfRecord" {
                        // GBIF's enum (`PRESERVED_SPECIMEN`) names the archive's
                        // `PreservedSpecimen`.
                        for code in 0..coded.distinct() as u32 {
                            if folded(coded.value(code)) == folded(v) {
                                hit[code as usize] = true;
                            }
                        }
                    }
                }
                Cond::Codes { column, hit }
            }
            Kind::Rank(rank) => {
                let mut taxa: Vec<Vec<bool>> = vec![Vec::new(); 7];
                taxa[rank] = taxa_named(view, terms, rank, given, false);
                Cond::Taxa(taxa)
            }
            Kind::ScientificName => Cond::Taxa(
                (0..7)
                    .map(|r| taxa_named(view, terms, r, given, true))
                    .collect(),
            ),
            Kind::Int(column) => Cond::Ints(
                column,
                given
                    .iter()
                    .map(|v| range(name, v, number))
                    .collect::<Result<_, _>>()?,
            ),
            Kind::Float(column) => Cond::Floats(
                column,
                given
                    .iter()
                    .map(|v| range(name, v, number))
                    .collect::<Result<_, _>>()?,
            ),
            Kind::EventDate | Kind::Modified => {
                let ranges = given
                    .iter()
                    .map(|v| range_of(name, v, DATE_FORM, days))
                    .collect::<Result<_, _>>()?;
                match kind {
                    Kind::EventDate => Cond::Event(ranges),
                    _ => Cond::Modified(ranges),
                }
            }
            Kind::HasCoordinate => {
                let wanted = given
                    .iter()
                    .map(|v| boolean(name, v))
                    .collect::<Result<Vec<_>, _>>()?;
                match (wanted.contains(&true), wanted.contains(&false)) {
                    // Either: no condition at all.
                    (true, true) => return Ok(None),
                    (yes, _) => Cond::HasCoordinate(yes),
                }
            }
            Kind::FullText => {
                let n = terms.len();
                let mut found = vec![false; n];
                for v in given {
                    let mut f = Filter::default();
                    f.search(v, false)?;
                    for pos in filter::matching(view, Model::SpecimenRecord, Shape::Plain, &f) {
                        found[pos] = true;
                    }
                }
                Cond::Found(found)
            }
            Kind::Issue => {
                let asked = quality::Asked::parse(given.iter().copied()).map_err(|v| {
                    let names: Vec<&str> = Flag::names().collect();
                    bad(format!("issue takes {}; not {v:?}", names.join(", ")))
                })?;
                let quality = view.derived::<Quality>();
                let mut found = vec![false; terms.len()];
                for &pos in quality.rows(asked).iter() {
                    found[pos as usize] = true;
                }
                Cond::Found(found)
            }
            Kind::Geometry => {
                let mut areas = Vec::new();
                let mut vertices = 0;
                for v in given {
                    let area = wkt::parse(v).map_err(|e| bad(format!("geometry: {e}")))?;
                    vertices += area.vertices();
                    if vertices > wkt::MAX_VERTICES {
                        return Err(bad(format!(
                            "geometry: the geometries of a request have at most {} vertices in all",
                            wkt::MAX_VERTICES
                        )));
                    }
                    self.notes.extend(area.notes.iter().cloned());
                    areas.push(area);
                }
                Cond::Within(areas)
            }
        }))
    }

    /// Counts, facets and the page.
    pub fn run(&self, view: &View) -> Found {
        let terms = view.derived::<Terms>();
        let all: Vec<&Cond> = self.conds.iter().map(|(_, c)| c).collect();
        let matched = select(terms, &all);
        let count = matched.len();
        let facets = self
            .facets
            .iter()
            .map(|facet| {
                // With facetMultiselect a facet counts as if its own filter were not set.
                let own = self.multiselect.then(|| {
                    self.conds
                        .iter()
                        .filter(|(name, _)| !same_field(name, facet.term))
                        .map(|(_, c)| c)
                        .collect::<Vec<_>>()
                });
                match own {
                    Some(conds) if conds.len() != all.len() => {
                        self.count(view, facet, &select(terms, &conds))
                    }
                    _ => self.count(view, facet, &matched),
                }
            })
            .collect();
        let mut page = matched;
        if !self.sort.is_empty() {
            page.sort_by(|&a, &b| {
                self.sort
                    .iter()
                    .map(|k| compare(terms, view, *k, a, b))
                    .find(|o| o.is_ne())
                    .unwrap_or(a.cmp(&b))
            });
        }
        let page: Vec<usize> = page
            .into_iter()
            .skip(self.offset)
            .take(self.limit)
            .collect();
        Found {
            count,
            page,
            facets,
        }
    }

    fn count(&self, view: &View, facet: &Facet, matched: &[usize]) -> Counts {
        let terms = view.derived::<Terms>();
        let mut counts: Vec<(String, usize)> = match facet.field {
            FacetField::Issue => {
                let n = view.derived::<Quality>().counts(Some(matched));
                let counted = Flag::ALL.into_iter().zip(n).filter(|&(_, k)| k > 0);
                counted.map(|(f, k)| (f.name().to_string(), k)).collect()
            }
            FacetField::Text(column) => {
                let coded = &terms.text[column];
                let mut n = vec![0usize; coded.distinct()];
                for &pos in matched {
                    for &code in coded.of(pos) {
                        n[code as usize] += 1;
                    }
                }
                n.into_iter()
                    .enumerate()
                    .filter(|&(_, k)| k > 0)
                    .map(|(code, k)| (coded.value(code as u32).to_string(), k))
                    .collect()
            }
            FacetField::Int(column) => {
                let mut n: ahash::AHashMap<i32, usize> = ahash::AHashMap::new();
                for &pos in matched {
                    let v = int_column(terms, column)[pos];
                    if v != NO_INT {
                        *n.entry(v).or_default() += 1;
                    }
                }
                n.into_iter().map(|(v, k)| (v.to_string(), k)).collect()
            }
        };
        counts.retain(|&(_, k)| k >= self.mincount);
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Counts {
            field: facet.shown,
            counts: counts
                .into_iter()
                .skip(facet.offset)
                .take(facet.limit)
                .collect(),
        }
    }

    /// The facets asked for, in order.
    pub fn facets(&self) -> &[Facet] {
        &self.facets
    }
}

/// Whether a filter parameter and a facet term are the same field.
fn same_field(param: &str, term: &str) -> bool {
    param == term || (param == "country" && term == "countryCode")
}

/// Per taxon of a rank, whether its name (its binomial or trinomial for species
/// and subspecies; with `authority`, also followed by its authority) is one of
/// `given`, ignoring case.
fn taxa_named(
    view: &View,
    terms: &Terms,
    rank: usize,
    given: &[&str],
    authority: bool,
) -> Vec<bool> {
    let mut hit = vec![false; view.table(Model::RANKS[rank]).len()];
    for v in given {
        let v = v.trim().to_lowercase();
        let by_name = terms.taxa_named[rank].get(v.as_str());
        let by_authored = authority
            .then(|| terms.taxa_authored[rank].get(v.as_str()))
            .flatten();
        for &pos in by_name.into_iter().chain(by_authored).flatten() {
            hit[pos as usize] = true;
        }
    }
    hit
}

fn int_column(t: &Terms, c: IntColumn) -> &[i32] {
    match c {
        IntColumn::Year => &t.year,
        IntColumn::Month => &t.month,
        IntColumn::Day => &t.day,
    }
}

fn float_column(t: &Terms, c: FloatColumn) -> &[f64] {
    match c {
        FloatColumn::Latitude => &t.latitude,
        FloatColumn::Longitude => &t.longitude,
        FloatColumn::Elevation => &t.elevation,
    }
}

fn within(v: f64, ranges: &[Range]) -> bool {
    ranges.iter().any(|&[lo, hi]| v >= lo && v <= hi)
}

impl Cond {
    fn holds(&self, t: &Terms, pos: usize) -> bool {
        match self {
            Cond::Codes { column, hit } => t.text[*column].of(pos).iter().any(|&c| hit[c as usize]),
            Cond::Taxa(taxa) => t.ranks[pos]
                .iter()
                .zip(taxa)
                .any(|(&p, hit)| p != u32::MAX && hit.get(p as usize).copied().unwrap_or(false)),
            Cond::Ints(c, ranges) => {
                let v = int_column(t, *c)[pos];
                v != NO_INT && within(v as f64, ranges)
            }
            Cond::Floats(c, ranges) => within(float_column(t, *c)[pos], ranges),
            Cond::Event(ranges) => {
                let [a, b] = t.event[pos];
                a != NO_INT
                    && ranges
                        .iter()
                        .any(|&[lo, hi]| a as f64 >= lo && b as f64 <= hi)
            }
            Cond::Modified(ranges) => {
                t.modified[pos] != i64::MIN && within(day_of(t.modified[pos]), ranges)
            }
            Cond::HasCoordinate(yes) => t.latitude[pos].is_nan() != *yes,
            Cond::Found(found) => found[pos],
            Cond::Within(areas) => {
                let p = [t.longitude[pos], t.latitude[pos]];
                !p[0].is_nan() && areas.iter().any(|a| a.contains(p))
            }
        }
    }
}

/// The `Terms::sorted` term a number column is kept in order under.
fn sorted_term(c: FloatColumn) -> &'static str {
    match c {
        FloatColumn::Latitude => "decimalLatitude",
        FloatColumn::Longitude => "decimalLongitude",
        FloatColumn::Elevation => "elevation",
    }
}

fn int_term(c: IntColumn) -> &'static str {
    match c {
        IntColumn::Year => "year",
        IntColumn::Month => "month",
        IntColumn::Day => "day",
    }
}

impl Cond {
    /// The specimens the condition may hold for, looked up in the columns'
    /// indexes, and whether it holds for exactly those; `None` where only a
    /// look at each specimen tells.
    fn candidates(&self, t: &Terms) -> Option<(Bits, bool)> {
        let n = t.len();
        let ranges = |term: &str, ranges: &[Range]| {
            let sorted = t.sorted(term);
            Bits::of(
                n,
                ranges
                    .iter()
                    .flat_map(|&[lo, hi]| sorted.range(lo, hi).iter().copied()),
            )
        };
        Some(match self {
            Cond::Codes { column, hit } => {
                let postings = &t.text[*column].postings;
                let codes = (0..hit.len() as u32).filter(|&c| hit[c as usize]);
                (
                    Bits::of(n, codes.flat_map(|c| postings.get(c).iter().copied())),
                    true,
                )
            }
            Cond::Taxa(taxa) => {
                let mut b = Bits::none(n);
                for (rank, hit) in taxa.iter().enumerate() {
                    for taxon in (0..hit.len() as u32).filter(|&p| hit[p as usize]) {
                        t.by_rank[rank]
                            .get(taxon)
                            .iter()
                            .for_each(|&p| b.set(p as usize));
                    }
                }
                (b, true)
            }
            Cond::Ints(c, r) => (ranges(int_term(*c), r), true),
            Cond::Floats(c, r) => (ranges(sorted_term(*c), r), true),
            // The first day within a range: the last must be checked too.
            Cond::Event(r) => (ranges("eventDate", r), false),
            Cond::Modified(r) => (ranges("modified", r), true),
            Cond::Found(found) => (
                Bits::of(n, (0..n as u32).filter(|&p| found[p as usize])),
                true,
            ),
            // The longitude band of the areas: each point is then tested.
            Cond::Within(areas) => {
                let [x0, _, x1, _] = areas.iter().map(Area::bounds).fold(
                    [
                        f64::INFINITY,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NEG_INFINITY,
                    ],
                    |[a, b, c, d], [w, x, y, z]| [a.min(w), b.min(x), c.max(y), d.max(z)],
                );
                let band = t.sorted("decimalLongitude").range(x0, x1);
                (Bits::of(n, band.iter().copied()), false)
            }
            Cond::HasCoordinate(_) => return None,
        })
    }
}

/// The positions of the specimens every condition holds for, ascending: the
/// indexes' candidates intersected, then each condition an index cannot settle
/// tested on what is left.
fn select(t: &Terms, conds: &[&Cond]) -> Vec<usize> {
    let mut candidates: Option<Bits> = None;
    let mut unsettled: Vec<&Cond> = Vec::new();
    for &cond in conds {
        match cond.candidates(t) {
            Some((bits, exact)) => {
                match &mut candidates {
                    Some(c) => c.and(&bits),
                    None => candidates = Some(bits),
                }
                if !exact {
                    unsettled.push(cond);
                }
            }
            None => unsettled.push(cond),
        }
    }
    let keep = |pos: &usize| unsettled.iter().all(|c| c.holds(t, *pos));
    match candidates {
        Some(bits) => bits.positions().filter(keep).collect(),
        None => (0..t.len()).filter(keep).collect(),
    }
}

/// Orders two specimens by a sort key; a specimen without a value comes last
/// either way.
fn compare(t: &Terms, view: &View, key: SortKey, a: usize, b: usize) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let term = key.term;
    let missing_last = |a: Option<f64>, b: Option<f64>| -> Ordering {
        match (a, b) {
            (Some(x), Some(y)) if key.descending => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    };
    let int = |v: i32| (v != NO_INT).then_some(v as f64);
    let float = |v: f64| (!v.is_nan()).then_some(v);
    match term {
        "key" => {
            let table = view.table(Model::SpecimenRecord);
            let id = |p: usize| Some(table.id(p as u32) as f64);
            missing_last(id(a), id(b))
        }
        "year" => missing_last(int(t.year[a]), int(t.year[b])),
        "month" => missing_last(int(t.month[a]), int(t.month[b])),
        "day" => missing_last(int(t.day[a]), int(t.day[b])),
        "eventDate" => missing_last(int(t.event[a][0]), int(t.event[b][0])),
        "decimalLatitude" => missing_last(float(t.latitude[a]), float(t.latitude[b])),
        "decimalLongitude" => missing_last(float(t.longitude[a]), float(t.longitude[b])),
        "elevation" => missing_last(float(t.elevation[a]), float(t.elevation[b])),
        "modified" => missing_last(Some(t.modified[a] as f64), Some(t.modified[b] as f64)),
        text => {
            let coded = t.coded(text);
            let rank = |pos| coded.of(pos).first().map(|&c| coded.rank(c) as f64);
            missing_last(rank(a), rank(b))
        }
    }
}

/// The position of the specimen with this key (its id), if any.
pub fn specimen(view: &View, key: &str) -> Result<usize, ApiError> {
    let table = view.table(Model::SpecimenRecord);
    // One key, one address: `05` and `+5` name none, as a record's id does not.
    Some(key)
        .filter(|k| crate::encoding::whole::is_canonical(k))
        .and_then(|k| k.parse::<i64>().ok())
        .and_then(|id| table.position(id))
        .map(|p| p as usize)
        .ok_or_else(|| ApiError::not_found(format!("no occurrence has the key {key:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_dates() {
        assert_eq!(
            range("year", "1990,2000", number).unwrap(),
            [1990.0, 2000.0]
        );
        assert_eq!(
            range("month", "12,*", number).unwrap(),
            [12.0, f64::INFINITY]
        );
        assert_eq!(
            range("year", "*,1900", number).unwrap(),
            [f64::NEG_INFINITY, 1900.0]
        );
        assert_eq!(
            range("year", "2000,1990", number).unwrap(),
            [2000.0, 1990.0]
        );
        assert!(range("year", "abc", number).is_err());
        assert!(range("year", "1e3", number).is_err());
        assert!(range("year", " 1990", number).is_err());
        assert_eq!(range("elevation", "-2.5", number).unwrap(), [-2.5, -2.5]);
        let d = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap().num_days_from_ce() as f64;
        assert_eq!(
            range("eventDate", "2019-06,2019-08", days).unwrap(),
            [d(2019, 6, 1), d(2019, 8, 31)]
        );
        assert_eq!(days("2020-02"), Some([d(2020, 2, 1), d(2020, 2, 29)]));
        assert_eq!(days("2019"), Some([d(2019, 1, 1), d(2019, 12, 31)]));
        assert_eq!(days("2019-13"), None);
        assert_eq!(days("19"), None);
        assert_eq!(day_of(0), d(1970, 1, 1));
        assert_eq!(day_of(-1), d(1969, 12, 31));
    }

    #[test]
    fn names_as_gbif_spells_them() {
        assert_eq!(upper_snake("basisOfRecord"), "BASIS_OF_RECORD");
        assert_eq!(upper_snake("year"), "YEAR");
        assert_eq!(folded("BASIS_OF_RECORD"), folded("basisOfRecord"));
    }
}
