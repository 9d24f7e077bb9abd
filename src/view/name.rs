//! What names a record in a sentence, a cell or a link: the first of its naming
//! fields that holds text. Pages link related records by it and CSV downloads
//! write it beside their ids, so both say the same name.

use crate::model::Model;

use super::View;

/// The fields that name a record, in the order they are preferred.
pub const NAMING: &[&str] = &[
    "binomial",
    "trinomial",
    "full_name",
    "usi",
    "title",
    "name",
    "filter_spec",
];

/// The name of the record at `pos` of `model`: its first naming field that
/// holds text, if any.
pub fn name_of(view: &View, model: Model, pos: u32) -> Option<&str> {
    let table = view.table(model);
    NAMING
        .iter()
        .filter_map(|name| model.field_index(name))
        .find_map(|f| {
            table
                .get(pos as usize, f)
                .as_str()
                .filter(|s| !s.is_empty())
        })
}
