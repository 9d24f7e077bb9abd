//! The records above and below one: a taxon's parent ranks, the regions a
//! place lies in (a locality in its county, else its state, else its country),
//! and the species under a higher taxon. A page's classification, its specimen
//! question and its gallery walk the same links.

use crate::model::Model;

use super::{Value, View};

/// The record directly above the one at `pos`: its parent rank, or the nearest
/// region a place records.
pub fn above(view: &View, model: Model, pos: u32) -> Option<(Model, u32)> {
    let parents: &[&str] = match model {
        Model::Locality => &["county", "state", "country"],
        _ => &[model.parent()?.0],
    };
    parents
        .iter()
        .find_map(|name| match view.value(model, pos, name) {
            Value::Ref(m, p) => Some((m, p)),
            _ => None,
        })
}

/// Every record above the one at `pos`, nearest first.
pub fn chain(view: &View, model: Model, pos: u32) -> Vec<(Model, u32)> {
    std::iter::successors(above(view, model, pos), |&(m, p)| above(view, m, p)).collect()
}

/// The species under the taxon at `pos` of `rank` (itself, for a species), found
/// down each rank's groups by parent; none under a subspecies.
pub fn species_under(view: &View, rank: Model, pos: u32) -> Vec<u32> {
    let (mut model, mut positions) = (rank, vec![pos]);
    while model != Model::Species {
        let Some((child, key)) = Model::RANKS.into_iter().find_map(|c| {
            c.parent()
                .filter(|&(_, parent)| parent == model)
                .map(|(key, _)| (c, key))
        }) else {
            return Vec::new();
        };
        let (table, field) = (view.table(child), child.field_index(key));
        positions = positions
            .iter()
            .flat_map(|&p| {
                field
                    .and_then(|f| table.rows_with(f, Value::Ref(model, p)))
                    .unwrap_or_default()
                    .iter()
                    .copied()
            })
            .collect();
        model = child;
    }
    positions
}
