//! A question of the specimen list by itself: its filters and its search, and
//! nothing of how a page shows the answer. The filtered archive (`/dwca.zip`)
//! and the checklists take one; any operation of a page (`sort`, `fields`,
//! `limit`, `facet`, ...) is refused, since neither shows a page.

use crate::model::policy::DarwinCore;
use crate::model::{Endpoint, Model};

use super::plan::known_specimen_parameters;
use super::{filter, nearest, ApiError, Limits, Params, Plan, OPERATIONS};

/// The operations a question keeps: the rest shape a page.
const KEPT: &[&str] = &[
    "search",
    "search_operator",
    "modified_since",
    "unaccented",
    "_",
];

/// The specimen list's question.
#[derive(Clone, Debug)]
pub struct Question {
    /// Every record it selects, ascending by id.
    pub plan: Plan,
    /// Its parameters: the filters and search, without what it ignores.
    pub params: Params,
    /// The same as a query string (decoded and encoded again), as an archive
    /// names it.
    pub query: String,
}

impl Question {
    /// Reads the question of `params`, less `own` (the parameters of what asks:
    /// a checklist's `format`).
    pub fn parse(params: &Params, own: &[&str], what: &str) -> Result<Question, ApiError> {
        let mut refused: Vec<&str> = params
            .names()
            .into_iter()
            .filter(|n| OPERATIONS.contains(n) && !KEPT.contains(n) && !own.contains(n))
            // `order` is the specimen list's taxon filter, not the operation.
            .filter(|n| !filter::is_specimen_filter(n))
            .collect();
        if !refused.is_empty() {
            refused.sort_unstable();
            return Err(ApiError::bad_request(format!(
                "{what} takes the specimen list's filters and search, not {}",
                refused.join(", ")
            )));
        }
        let question = Params(
            params
                .0
                .iter()
                .filter(|(k, _)| !own.contains(&k.as_str()))
                .cloned()
                .collect(),
        );
        let limits = Limits {
            default_limit: usize::MAX,
            max_limit: None,
        };
        let plan = Plan::parse(specimens(), &question, &limits)?;
        if !plan.unknown().is_empty() {
            let mut known = known_specimen_parameters();
            known.retain(|n| !OPERATIONS.contains(n) || KEPT.contains(n));
            known.extend(own);
            return Err(nearest::unknown_parameters(what, plan.unknown(), &known));
        }
        let ignored = plan.ignored();
        let params = Params(
            question
                .0
                .into_iter()
                .filter(|(k, _)| !ignored.contains(k) && k != "_")
                .collect(),
        );
        let query = params.to_query();
        Ok(Question {
            plan,
            params,
            query,
        })
    }

    /// The parameters the question ignored (not filters of the specimen list).
    pub fn ignored(&self) -> &[String] {
        self.plan.ignored()
    }
}

/// The list of the records that are occurrences: the specimen records'.
pub fn specimens() -> Endpoint {
    let model = Model::ALL
        .into_iter()
        .find(|m| m.policy().darwin_core == DarwinCore::Occurrences)
        .unwrap_or(Model::SpecimenRecord);
    Endpoint {
        model,
        nested: false,
    }
}
