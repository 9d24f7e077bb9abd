//! What the sensitive places' rules covered, as the view tells it: a record
//! whose locality is a generalised one (`model::generalised`, by its id) was
//! covered when the snapshot was written. [`Located`] is the media files of
//! covered photographs (an image covered itself, or of a covered specimen,
//! and their renditions), whose embedded location a server removes before
//! it serves them: derived once per view.

use ahash::AHashSet;

use crate::model::generalised::Treatment;
use crate::model::Model;

use super::{Derive, Value, View};

/// The treatment of the record at `pos` of `model` (a specimen or an image),
/// where a rule covered it.
pub fn treatment(view: &View, model: Model, pos: u32) -> Option<Treatment> {
    let field = model.field_index("locality")?;
    match view.table(model).get(pos as usize, field) {
        Value::Ref(_, l) => Treatment::of_id(view.table(Model::Locality).id(l)),
        _ => None,
    }
}

/// The media files (paths beneath `--media-dir`, as the records name them)
/// of covered photographs.
#[derive(Debug, Default)]
pub struct Located {
    files: AHashSet<Box<str>>,
}

impl Located {
    /// Whether the file at `relative` (beneath the media directory) is one.
    pub fn holds(&self, relative: &str) -> bool {
        !self.files.is_empty() && self.files.contains(relative.trim_start_matches('/'))
    }

    /// How many files are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none (no rule covered a photograph).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl Derive for Located {
    fn derive(view: &View) -> Located {
        let images = view.table(Model::Image);
        let file = Model::Image.field_index("file").expect("an image's file");
        let specimen = Model::Image.field_index("specimen_record");
        let mut covered = vec![false; images.len()];
        let mut files = AHashSet::new();
        for (pos, c) in covered.iter_mut().enumerate() {
            let of_specimen = specimen.and_then(|f| match images.get(pos, f) {
                Value::Ref(_, s) => treatment(view, Model::SpecimenRecord, s),
                _ => None,
            });
            *c = of_specimen.is_some() || treatment(view, Model::Image, pos as u32).is_some();
            if *c {
                if let Some(name) = images.get(pos, file).as_str() {
                    files.insert(name.trim_start_matches('/').into());
                }
            }
        }
        if files.is_empty() {
            return Located::default();
        }
        let renditions = view.table(Model::Rendition);
        let file = Model::Rendition
            .field_index("file")
            .expect("a rendition's file");
        let image = Model::Rendition
            .field_index("image")
            .expect("a rendition's image");
        for pos in 0..renditions.len() {
            if let Value::Ref(_, i) = renditions.get(pos, image) {
                if covered.get(i as usize).copied().unwrap_or(false) {
                    if let Some(name) = renditions.get(pos, file).as_str() {
                        files.insert(name.trim_start_matches('/').into());
                    }
                }
            }
        }
        Located { files }
    }
}
