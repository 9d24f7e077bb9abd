//! What a command was told of the dataset besides the snapshot.

use super::description::Dataset;

/// A field of [`Dataset`] a flag sets.
pub type Field = fn(&mut Dataset) -> &mut String;

/// What a command was told of the dataset besides the snapshot: a file, which
/// replaces the snapshot's description whole, then single values over it.
#[derive(Clone, Debug, Default)]
pub struct Told {
    pub file: Option<Dataset>,
    pub values: Vec<(Field, String)>,
}

impl Told {
    /// The dataset to say: `stored` (the snapshot's) unless a file was given,
    /// then each value told.
    pub fn over(&self, stored: &Dataset) -> Dataset {
        let mut d = self.file.clone().unwrap_or_else(|| stored.clone());
        for (field, value) in &self.values {
            *field(&mut d) = value.clone();
        }
        d
    }

    /// Whether nothing was told (the snapshot's description stands).
    pub fn is_empty(&self) -> bool {
        self.file.is_none() && self.values.is_empty()
    }
}
