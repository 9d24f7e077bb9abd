//! The view: one loaded snapshot, indexed and rendered, immutable once built.
//!
//! Building a view turns the snapshot's raw records into tables ([`rows`]: one
//! value per field of the model's table, derived values computed, references
//! turned into positions, each field stored as a [`column`]), indexes them
//! ([`index`]), finds the points of the
//! records that have one ([`points`]), then renders every list once ([`render`]).
//! Requests only read it; nothing in it changes after it is built but the sort
//! orders ([`order`]), each built once on first use and kept, and nothing here
//! knows of HTTP or of the request that reads it.

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::encoding::time::http_date;
use crate::model::records::Collection;
use crate::model::validate;
use crate::model::{Endpoint, Model};
use crate::snapshot::{self, Header, SnapshotError};

pub mod chain;
pub mod column;
pub mod identified;
pub mod image_api;
pub mod index;
pub mod name;
pub mod occurrence;
pub mod order;
pub mod place;
pub mod points;
pub mod render;
mod rows;
mod table;
pub mod terms;
mod value;

pub use column::Key;
pub use place::Place;
pub use points::Points;
pub use render::{List, Projection};
pub use table::Table;
pub use value::{OwnedValue, Value};

use render::Embeds;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error("{path} holds records that fail validation ({count} problems), first: {first}")]
    Invalid {
        path: String,
        count: usize,
        first: validate::Problem,
    },
}

/// A loaded snapshot, ready to serve.
pub struct View {
    pub header: Header,
    tables: Vec<Table>,
    plain: Vec<List>,
    nested: Vec<Option<List>>,
    /// How long building this view took (decode, index, render).
    pub build_time: Duration,
    /// The snapshot's creation time as an HTTP date, for `Last-Modified`.
    pub last_modified: String,
    /// The points of GPS and specimen records, for GeoJSON answers and the archive.
    pub points: Points,
    /// Wagtail's own image items (`/api/v2/images/`).
    pub images: image_api::ImageApi,
    /// The specimens' Darwin Core values as columns, built the first time a
    /// search in Darwin Core's terms needs them.
    terms: OnceLock<terms::Terms>,
    /// Each specimen's taxon, year and locality as numbers, built the first
    /// time a checklist needs them.
    identified: OnceLock<identified::Identified>,
}

impl View {
    /// Reads, checks and builds the view of the snapshot at `path`.
    pub fn load(path: &Path) -> Result<View, LoadError> {
        let started = Instant::now();
        let (header, collection) = snapshot::read(path)?;
        let mut view = View::from_collection(header, collection).map_err(|(count, first)| {
            LoadError::Invalid {
                path: path.display().to_string(),
                count,
                first,
            }
        })?;
        view.build_time = started.elapsed();
        Ok(view)
    }

    /// Builds a view from a decoded collection, refusing one that fails validation.
    pub fn from_collection(
        header: Header,
        mut collection: Collection,
    ) -> Result<View, (usize, validate::Problem)> {
        let started = Instant::now();
        let report = validate::check(&collection);
        if let Some(first) = report.errors.first() {
            return Err((report.errors.len(), first.clone()));
        }
        let last_modified = http_date(header.created_at);
        // Tables find records by binary search on ascending ids; a snapshot
        // written by `build` is in that order already (and sorting it is a pass).
        collection.canonicalise();
        let site = std::mem::take(&mut collection.site);
        let tags: Vec<Box<[Box<str>]>> = collection
            .images
            .iter_mut()
            .map(|i| {
                std::mem::take(&mut i.tags)
                    .into_iter()
                    .map(Into::into)
                    .collect()
            })
            .collect();
        let tables = rows::tables(collection);
        let images = image_api::ImageApi::new(&tables[Model::Image.index()], tags, site);
        let (plain, nested) = render::render_all(&tables).into_lists();
        let points = Points::locate(&tables);
        Ok(View {
            header,
            tables,
            plain: plain.into_iter().map(Option::unwrap_or_default).collect(),
            nested,
            build_time: started.elapsed(),
            last_modified,
            points,
            images,
            terms: OnceLock::new(),
            identified: OnceLock::new(),
        })
    }

    pub fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    /// The value of the field `name` of the record at `pos` of `model` (null
    /// where the model has no such field).
    pub fn value(&self, model: Model, pos: u32, name: &str) -> Value<'_> {
        match model.field_index(name) {
            Some(f) => self.table(model).get(pos as usize, f),
            None => Value::Null,
        }
    }

    /// The specimens' Darwin Core values as columns (built on first use).
    pub fn terms(&self) -> &terms::Terms {
        self.terms.get_or_init(|| terms::Terms::build(self))
    }

    /// Each specimen's taxon, year and locality as numbers (built on first use).
    pub fn identified(&self) -> &identified::Identified {
        self.identified
            .get_or_init(|| identified::Identified::build(self))
    }

    /// The rendered list of an endpoint.
    pub fn list(&self, endpoint: Endpoint) -> &List {
        if endpoint.nested {
            if let Some(list) = &self.nested[endpoint.model.index()] {
                return list;
            }
        }
        &self.plain[endpoint.model.index()]
    }

    /// Record counts by model.
    pub fn counts(&self) -> Vec<(Model, usize)> {
        Model::ALL
            .into_iter()
            .map(|m| (m, self.table(m).len()))
            .collect()
    }

    /// `orders=3 families=4 ...`: the record counts on one line, for logs.
    pub fn describe_counts(&self) -> String {
        self.counts()
            .iter()
            .map(|(m, n)| format!("{}={n}", m.path()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Bytes held by the rendered lists.
    pub fn rendered_bytes(&self) -> usize {
        self.plain.iter().map(List::byte_len).sum::<usize>()
            + self
                .nested
                .iter()
                .flatten()
                .map(List::byte_len)
                .sum::<usize>()
    }
}

impl Embeds for View {
    fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    fn plain(&self, model: Model, pos: u32) -> &[u8] {
        self.plain[model.index()].item(pos as usize)
    }

    fn nested(&self, model: Model, pos: u32) -> &[u8] {
        match &self.nested[model.index()] {
            Some(list) => list.item(pos as usize),
            None => self.plain(model, pos),
        }
    }
}
