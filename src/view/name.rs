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

/// The field holding a taxon's whole name at its rank: a species' binomial, a
/// subspecies' trinomial, a higher rank's name.
pub fn scientific_name_field(rank: Model) -> &'static str {
    match rank {
        Model::Species => "binomial",
        Model::Subspecies => "trinomial",
        _ => "name",
    }
}

/// The name of the record at `pos` of `model`: its first naming field that
/// holds text, if any.
pub fn name_of(view: &View, model: Model, pos: u32) -> Option<&str> {
    Naming::of(model).name(view, pos)
}

/// A model's naming fields, looked up once (a download names thousands of
/// records).
#[derive(Clone, Debug)]
pub struct Naming {
    model: Model,
    fields: Vec<usize>,
}

impl Naming {
    pub fn of(model: Model) -> Naming {
        let fields = NAMING
            .iter()
            .filter_map(|name| model.field_index(name))
            .collect();
        Naming { model, fields }
    }

    /// The model whose records it names.
    pub fn model(&self) -> Model {
        self.model
    }

    /// The name of the record at `pos`, if it has one.
    pub fn name<'v>(&self, view: &'v View, pos: u32) -> Option<&'v str> {
        let table = view.table(self.model);
        self.fields.iter().find_map(|&f| {
            table
                .get(pos as usize, f)
                .as_str()
                .filter(|s| !s.is_empty())
        })
    }
}
