//! What the collection holds of a taxon or a place: the specimen question that
//! asks for its specimens (the names of its chain, as the list's filters take
//! them), and that question's seasons, counted as its `month` and `year` facets
//! count them, so a page's chart and the list it links to never disagree.

use crate::model::vocabulary::MONTHS;
use crate::model::{Endpoint, Model};
use crate::view::{chain, OwnedValue, View};

use super::facets::MAX_SIZE;
use super::{ApiError, Limits, Params, Plan};

/// The ranks and regions a specimen question can name, each with the filter
/// that names it (the filter matches its record's `name`).
const FILTERS: [(Model, &str); 11] = [
    (Model::Order, "order"),
    (Model::Family, "family"),
    (Model::Subfamily, "subfamily"),
    (Model::Tribe, "tribe"),
    (Model::Genus, "genus"),
    (Model::Species, "species"),
    (Model::Subspecies, "subspecies"),
    (Model::Country, "country"),
    (Model::State, "state"),
    (Model::County, "county"),
    (Model::Locality, "locality"),
];

/// Whether a model's records have specimens a question can ask for.
pub fn asks_for(model: Model) -> bool {
    FILTERS.iter().any(|(m, _)| *m == model)
}

/// The specimen question that asks for the record at `pos`: its own name and
/// each name above it, from the top (`order=Lepidoptera&family=Nymphalidae`).
/// `None` when the record itself has no name to ask by (a locality known only
/// by its town).
pub fn question(view: &View, model: Model, pos: u32) -> Option<Params> {
    let mut chain = Vec::new();
    let mut at = Some((model, pos));
    while let Some((m, p)) = at {
        let filter = FILTERS.iter().find(|(fm, _)| *fm == m)?.1;
        let name = view
            .value(m, p, "name")
            .as_str()
            .filter(|s| !s.trim().is_empty());
        match name {
            Some(name) => chain.push((filter.to_string(), name.to_string())),
            None if m == model => return None,
            None => {}
        }
        at = chain::above(view, m, p);
    }
    chain.reverse();
    Some(Params(chain))
}

/// How many specimens a question finds, by month and by year.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seasons {
    pub total: usize,
    /// January to December.
    pub months: [usize; 12],
    /// Years ascending, each with its count (years without specimens absent).
    pub years: Vec<(i64, usize)>,
}

impl Seasons {
    /// The specimens with no month, or no year.
    pub fn without_month(&self) -> usize {
        self.total - self.months.iter().sum::<usize>()
    }

    pub fn without_year(&self) -> usize {
        self.total - self.years.iter().map(|(_, n)| n).sum::<usize>()
    }

    /// Counts the specimens of `question` (a specimen list's filters) by the
    /// `month` and `year` facets of that list.
    pub fn count(view: &View, question: &Params) -> Result<Seasons, ApiError> {
        let asked = question
            .with("facet", "month,year")
            .with("facet_size", &MAX_SIZE.to_string())
            .with("limit", "0")
            .without("offset");
        let endpoint = Endpoint {
            model: Model::SpecimenRecord,
            nested: false,
        };
        let selected = Plan::parse(endpoint, &asked, &Limits::default())?.select_page(view);
        let mut seasons = Seasons {
            total: selected.total,
            ..Seasons::default()
        };
        for facet in selected.facets.iter().flat_map(|f| &f.0) {
            for (value, n) in &facet.counts {
                match (facet.field, value) {
                    ("month", OwnedValue::Str(m)) => {
                        if let Some(i) = MONTHS.iter().position(|x| *x == m.as_ref() as &str) {
                            seasons.months[i] += n;
                        }
                    }
                    ("year", OwnedValue::Int(y)) => seasons.years.push((*y, *n)),
                    _ => {}
                }
            }
        }
        seasons.years.sort_unstable();
        Ok(seasons)
    }
}
