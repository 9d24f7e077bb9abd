//! The view: one loaded snapshot, indexed and rendered, immutable once built.
//!
//! Building a view reads the snapshot's prepared tables ([`prepared`]: each field
//! of a model's table stored as a [`column`], written by `build` from the records
//! by [`rows`], which computes derived values and turns references into
//! positions), indexes them ([`index`]), finds the points of the records that
//! have one ([`points`]), then renders every list once ([`render`]). A snapshot
//! without prepared tables (format version 3) is built from its records.
//! Requests only read it; nothing in it changes after it is built but the sort
//! orders ([`order`]), each built once on first use and kept, and nothing here
//! knows of HTTP or of the request that reads it.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::encoding::time::http_date;
use crate::model::dataset::Dataset;
use crate::model::held::Holding;
use crate::model::history::History;
use crate::model::records::Collection;
use crate::model::validate;
use crate::model::wagtail::Wagtail;
use crate::model::{Endpoint, Model};
use crate::snapshot::{self, Header, Part, SnapshotError};

pub mod bits;
pub mod chain;
pub mod column;
mod derived;
mod fragments;
pub mod generalised;
pub mod image_api;
pub mod index;
pub mod name;
pub mod occurrence;
pub mod order;
pub mod place;
pub mod points;
pub mod prepared;
pub mod render;
mod rows;
mod table;
mod value;

pub use column::Key;
pub use points::Points;
pub use render::{List, Projection, Run};
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
    /// Each table's columns' hashes in the snapshot (none before version 9):
    /// what the next reload compares to take a column unread.
    hashes: Vec<Vec<[u8; 32]>>,
    /// The lists, shared with the interim view a reload serves meanwhile.
    plain: Arc<[List]>,
    nested: Arc<[Option<List>]>,
    /// How long building this view took (decode, index, render).
    pub build_time: Duration,
    /// How long each step took.
    pub phases: Phases,
    /// The snapshot's creation time as an HTTP date, for `Last-Modified`
    /// (later where the server says another description over it, or where the
    /// view it replaced said the same date: `serve::state`).
    pub last_modified: String,
    /// The SHA-256 of the description the server says over the snapshot's
    /// own, where they differ: the snapshot's checksum does not cover it,
    /// and every tag depends on it too.
    pub redescribed: Option<[u8; 32]>,
    /// The points of GPS and specimen records, for GeoJSON answers and the archive.
    pub points: Arc<Points>,
    /// Wagtail's own image items (`/api/v2/images/`).
    pub images: Arc<image_api::ImageApi>,
    /// Wagtail's page tree, sites and documents, as the snapshot holds them.
    pub wagtail: Arc<Wagtail>,
    /// What the publisher says of the dataset: the snapshot's, or what the
    /// server was told instead (`serve --dataset-config`).
    pub dataset: Arc<Dataset>,
    /// The versions published so far, this view's last (its checksum and
    /// time filled in from the header).
    pub history: Arc<History>,
    /// The records its publisher held back, and why.
    pub held: Arc<Vec<Holding>>,
    /// What features derive from the view on first use (`View::derived`).
    derived: derived::Derived,
    /// The snapshot's pieces this view read and found sound: what is left to
    /// check of its file is the rest (`snapshot::check_unread`).
    pub pieces_read: Option<snapshot::PiecesRead>,
}

/// A value a feature derives from a view the first time it needs it, kept with
/// the view (GBIF's Darwin Core columns, the checklists' identified taxa).
pub trait Derive: std::any::Any + Send + Sync + Sized {
    /// Makes the value (a blocking call: on the pool's threads).
    fn derive(view: &View) -> Self;
}

/// A snapshot read, checked and decoded into tables, not yet rendered: what a
/// reload holds while the served view makes way for it ([`View::interim`]).
pub struct Decoded {
    pub header: Header,
    parts: prepared::Parts,
    phases: Phases,
    started: Instant,
    pieces_read: Option<snapshot::PiecesRead>,
}

impl View {
    /// Reads, checks and builds the view of the snapshot at `path`: from its
    /// prepared tables, checking the payload's checksum on another thread while
    /// they decode; from its records when it has none.
    pub fn load(path: &Path) -> Result<View, LoadError> {
        View::load_beside(path, None)
    }

    /// Loads like [`View::load`], sharing with `served` (the view a reload
    /// replaces) every column and rendered segment that did not change.
    pub fn load_beside(path: &Path, served: Option<&View>) -> Result<View, LoadError> {
        let mut decoded = View::decode_beside(path, served)?;
        if let Some(served) = served {
            decoded.share_unchanged(served);
        }
        Ok(decoded.assemble(served))
    }

    /// Reads, checks and decodes the snapshot at `path` (see [`View::load`]).
    pub fn decode(path: &Path) -> Result<Decoded, LoadError> {
        View::decode_beside(path, None)
    }

    /// [`View::decode`], taking from `served` (the view a reload replaces)
    /// each column the snapshot holds as it does, unread: from version 9,
    /// whose pieces carry their hashes. Only the pieces the view is made of
    /// are read, each checked against its hash: not the records.
    pub fn decode_beside(path: &Path, served: Option<&View>) -> Result<Decoded, LoadError> {
        let started = Instant::now();
        match snapshot::Pieces::open(path)? {
            Some(pieces) if !pieces.contents.pieces(Part::Prepared).is_empty() => {
                View::decode_pieces(&pieces, served, started)
            }
            _ => View::decode_whole(path, started),
        }
    }

    /// Decodes a version 9 snapshot's view from its pieces.
    fn decode_pieces(
        pieces: &snapshot::Pieces,
        served: Option<&View>,
        started: Instant,
    ) -> Result<Decoded, LoadError> {
        let mut phases = Phases::default();
        let path = pieces.path();
        let part = |part| pieces.read(pieces.contents.pieces(part));
        let (wagtail, dataset, history, held) = (
            part(Part::Wagtail)?,
            part(Part::Dataset)?,
            part(Part::History)?,
            part(Part::Held)?,
        );
        let small = wagtail.len() + dataset.len() + history.len() + held.len();
        let wagtail = snapshot::decode_wagtail(path, pieces.header.format_version, &wagtail)?;
        let dataset = snapshot::decode_dataset(path, pieces.header.format_version, &dataset)?;
        let history = snapshot::decode_history(path, pieces.header.format_version, &history)?;
        let held = match held.is_empty() {
            true => Vec::new(),
            false => snapshot::decode_held(path, &held)?,
        };
        phases.read = started.elapsed();
        let served = served.map(|v| prepared::Served {
            tables: &v.tables,
            hashes: &v.hashes,
        });
        let (decoded, took) = timed(|| prepared::decode_pieces(pieces, served));
        let (parts, read) = decoded?;
        phases.decode = took;
        phases.snapshot_bytes = small + read;
        let parts = prepared::Parts {
            wagtail,
            dataset,
            history,
            held,
            ..parts
        };
        Ok(Decoded {
            header: pieces.header.clone(),
            parts,
            phases,
            started,
            pieces_read: Some(pieces.read_so_far()),
        })
    }

    /// Decodes a snapshot read whole: before version 9, or without tables.
    fn decode_whole(path: &Path, started: Instant) -> Result<Decoded, LoadError> {
        let mut phases = Phases::default();
        let (header, bytes) = snapshot::read_bytes(path)?;
        phases.read = started.elapsed();
        phases.snapshot_bytes = bytes.len();
        let sections = snapshot::sections(path, &header, &bytes)?;
        let undecodable = |reason| SnapshotError::Decode {
            path: path.to_path_buf(),
            reason,
        };
        let wagtail = match sections.wagtail {
            Some(bytes) => snapshot::decode_wagtail(path, header.format_version, bytes)?,
            None => Default::default(),
        };
        let dataset = match sections.dataset {
            Some(bytes) => snapshot::decode_dataset(path, header.format_version, bytes)?,
            None => Default::default(),
        };
        let history = match sections.history {
            Some(bytes) => snapshot::decode_history(path, header.format_version, bytes)?,
            None => Default::default(),
        };
        let held = match sections.held {
            Some(bytes) => snapshot::decode_held(path, bytes)?,
            None => Default::default(),
        };
        let parts = match sections.prepared {
            Some(prepared) => {
                let (checked, decoded) = std::thread::scope(|scope| {
                    let checksum =
                        scope.spawn(|| timed(|| snapshot::verify(path, &header, &bytes)));
                    let decoded = timed(|| prepared::decode(prepared));
                    (checksum.join().expect("a checksum does not panic"), decoded)
                });
                (phases.checksum, phases.decode) = (checked.1, decoded.1);
                checked.0?;
                prepared::Parts {
                    wagtail,
                    dataset,
                    history,
                    held,
                    ..decoded.0.map_err(undecodable)?
                }
            }
            None => {
                tracing::warn!(
                    path = %path.display(),
                    format_version = header.format_version,
                    "the snapshot holds no prepared tables of this version's layout: its view is \
                     built from its records, which takes several times longer; rebuild it with \
                     `catalogue build` to load faster"
                );
                let (checked, took) = timed(|| snapshot::verify(path, &header, &bytes));
                phases.checksum = took;
                checked?;
                let (collection, took) = timed(|| snapshot::codec::decode(sections.records));
                phases.decode = took;
                let collection = collection.map_err(undecodable)?;
                View::parts(
                    Collection {
                        wagtail,
                        dataset,
                        history,
                        held,
                        ..collection
                    },
                    &mut phases,
                )
                .map_err(|(count, first)| LoadError::Invalid {
                    path: path.display().to_string(),
                    count,
                    first,
                })?
            }
        };
        Ok(Decoded {
            header,
            parts,
            phases,
            started,
            pieces_read: None,
        })
    }

    /// Builds a view from a decoded collection, refusing one that fails validation.
    pub fn from_collection(
        header: Header,
        collection: Collection,
    ) -> Result<View, (usize, validate::Problem)> {
        let (started, mut phases) = (Instant::now(), Phases::default());
        let parts = View::parts(collection, &mut phases)?;
        let decoded = Decoded {
            header,
            parts,
            phases,
            started,
            pieces_read: None,
        };
        Ok(decoded.assemble(None))
    }

    /// A collection's tables, once it passes validation.
    fn parts(
        collection: Collection,
        phases: &mut Phases,
    ) -> Result<prepared::Parts, (usize, validate::Problem)> {
        let (report, took) = timed(|| validate::check(&collection));
        phases.validate = took;
        if let Some(first) = report.errors.first() {
            return Err((report.errors.len(), first.clone()));
        }
        let (parts, took) = timed(|| prepared::parts(collection));
        phases.tables = took;
        Ok(parts)
    }

    /// This view without what it built on use (indexes, sort orders, search
    /// words, Darwin Core columns), except what `next` shares with it: what a
    /// reload serves while it renders `next`, so that memory is free before the
    /// second copy of the lists is written. Its answers are this view's (the
    /// same lists and columns); a question rebuilds the index it needs.
    pub fn interim(&self, next: &Decoded) -> View {
        let tables = (self.tables.iter().zip(&next.parts.tables))
            .map(|(table, next)| table.interim(next))
            .collect();
        View {
            header: self.header.clone(),
            tables,
            hashes: self.hashes.clone(),
            plain: Arc::clone(&self.plain),
            nested: Arc::clone(&self.nested),
            build_time: self.build_time,
            phases: self.phases,
            last_modified: self.last_modified.clone(),
            redescribed: self.redescribed,
            points: Arc::clone(&self.points),
            images: Arc::clone(&self.images),
            wagtail: Arc::clone(&self.wagtail),
            dataset: Arc::clone(&self.dataset),
            history: Arc::clone(&self.history),
            held: Arc::clone(&self.held),
            derived: derived::Derived::default(),
            pieces_read: None,
        }
    }
}

impl Decoded {
    /// Takes `served`'s column (and what is built from it) wherever this one
    /// is equal ([`Table::share_unchanged`]).
    pub fn share_unchanged(&mut self, served: &View) {
        let pairs = self.parts.tables.iter_mut().zip(&served.tables);
        self.phases.columns_shared_bytes = pairs.map(|(t, s)| t.share_unchanged(s)).sum();
    }

    /// Renders the view, sharing with `served` (the view a reload replaces)
    /// every segment whose bytes did not change.
    pub fn assemble(self, served: Option<&View>) -> View {
        let Decoded {
            header,
            parts,
            mut phases,
            started,
            pieces_read,
        } = self;
        let prepared::Parts {
            tables,
            hashes,
            tags,
            site,
            wagtail,
            dataset,
            history,
            held,
        } = parts;
        let previous = served.map_or_else(render::Previous::default, |v| {
            render::Previous::new(&v.tables, &v.plain, &v.nested)
        });
        // Rendering reads only the columns. Their indexes are built once the
        // view is served, on the view's preparation (`query::prepare`), a first
        // load's as a reload's: beside the render they took a core from it (at
        // a million specimens the first answer came 0.4-0.9 s later), and a
        // reload's would be held beside two views' lists.
        let ((images, (plain, nested)), took) = timed(|| {
            let images = image_api::ImageApi::new(&tables[Model::Image.index()], tags, site);
            (images, render::render_all(&tables, previous).into_lists())
        });
        phases.render = took;
        let (points, took) = timed(|| Points::locate(&tables));
        phases.points = took;
        let (header_checksum, header_created) = (header.checksum, header.created_at);
        // A snapshot from before versions (format 7 and older) is version 1.
        let mut history = history;
        if history.versions.is_empty() {
            history.versions.push(crate::model::history::Version {
                number: 1,
                counts: Model::ALL
                    .into_iter()
                    .filter(|m| m.stored())
                    .map(|m| (m.label().to_string(), tables[m.index()].len() as u64))
                    .collect(),
                ..Default::default()
            });
        }
        let mut view = View {
            last_modified: http_date(header.created_at),
            redescribed: None,
            header,
            tables,
            hashes,
            plain: plain.into_iter().map(Option::unwrap_or_default).collect(),
            nested: nested.into(),
            build_time: started.elapsed(),
            phases,
            points: Arc::new(points),
            images: Arc::new(images),
            wagtail: Arc::new(wagtail),
            dataset: Arc::new(dataset),
            history: Arc::new(history.completed(header_checksum, header_created)),
            held: Arc::new(held),
            derived: derived::Derived::default(),
            pieces_read,
        };
        let lists = view.plain.iter().chain(view.nested.iter().flatten());
        view.phases.rendered_bytes = lists.clone().map(List::rendered_len).sum();
        view.phases.own_bytes = lists.clone().map(List::own_bytes).sum();
        view.phases.fragment_bytes = lists.map(List::fragment_bytes).sum();
        view.phases.shared_bytes = previous.shared_bytes(&view.plain, &view.nested);
        let lists = view.plain.iter().chain(view.nested.iter().flatten());
        view.phases.unrendered_bytes = lists.map(List::unrendered_bytes).sum();
        view.report_memory();
        view
    }
}

impl View {
    /// Logs (at debug) what the view holds beside its rendered lists, per model
    /// and in all: where memory goes when a collection grows.
    fn report_memory(&self) {
        if !tracing::enabled!(tracing::Level::DEBUG) {
            return;
        }
        const MB: usize = 1 << 20;
        let mut total = self.points.heap_bytes();
        for model in Model::ALL {
            let (columns, lower, groups) = self.table(model).heap_bytes();
            let lists = self.plain[model.index()].index_bytes()
                + self.nested[model.index()]
                    .as_ref()
                    .map_or(0, List::index_bytes);
            total += columns + lower + groups + lists;
            tracing::debug!(
                model = model.path(),
                columns_mb = columns / MB,
                lower_mb = lower / MB,
                groups_mb = groups / MB,
                list_index_mb = lists / MB,
                "view memory"
            );
        }
        tracing::debug!(
            points_mb = self.points.heap_bytes() / MB,
            total_mb = total / MB,
            "view memory beside the rendered lists"
        );
    }

    pub fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    /// The images whose `field` names the record `of` (a specimen's
    /// photographs, a species' pictures), in id order.
    pub fn images_naming(&self, field: &str, of: (Model, u32)) -> &[u32] {
        Model::Image
            .field_index(field)
            .and_then(|f| {
                self.table(Model::Image)
                    .rows_with(f, Value::Ref(of.0, of.1))
            })
            .unwrap_or_default()
    }

    /// The value of the field `name` of the record at `pos` of `model` (null
    /// where the model has no such field).
    pub fn value(&self, model: Model, pos: u32, name: &str) -> Value<'_> {
        match model.field_index(name) {
            Some(f) => self.table(model).get(pos as usize, f),
            None => Value::Null,
        }
    }

    /// The value of type `T` derived from this view, made now if it was not
    /// before.
    pub fn derived<T: Derive>(&self) -> &T {
        self.derived.get_or_init(|| T::derive(self))
    }

    /// The value of type `T` if it was derived already (an answer that is
    /// cheap once it is, and work before).
    pub fn derived_made<T: Derive>(&self) -> Option<&T> {
        self.derived.get()
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

    /// Bytes of the rendered lists' items as answers send them, as far as
    /// rendered (a list made of fragments is rendered a segment at a time).
    pub fn rendered_bytes(&self) -> usize {
        self.lists().map(List::rendered_len).sum()
    }

    /// Bytes the rendered lists hold so far: their items' own bytes, without
    /// the fragments that items made of them refer to.
    pub fn own_bytes(&self) -> usize {
        self.lists().map(List::own_bytes).sum()
    }

    /// Every list, plain and nested.
    fn lists(&self) -> impl Iterator<Item = &List> {
        self.plain.iter().chain(self.nested.iter().flatten())
    }

    /// Renders every segment of the lists made of fragments not rendered
    /// yet (the first read of a segment renders it otherwise), on this
    /// thread and one more a core beyond the first, while `wanted` says the
    /// view is still wanted; returns how many segments it rendered.
    pub fn render_rest(&self, wanted: &(dyn Fn() -> bool + Sync)) -> usize {
        let helpers = std::thread::available_parallelism().map_or(1, usize::from) - 1;
        self.lists()
            .map(|list| list.make_all(helpers, wanted))
            .sum()
    }

    /// Every endpoint's list rendered as before items were made of
    /// fragments, each embedded record copied: what the served lists are
    /// checked against byte for byte (`tests/fragments.rs`), never served.
    #[doc(hidden)]
    pub fn lists_without_fragments(&self) -> Vec<(Endpoint, List)> {
        let (mut plain, mut nested) =
            render::render_all_without_fragments(&self.tables).into_lists();
        let mut lists = Vec::new();
        for &endpoint in Endpoint::all() {
            let i = endpoint.model.index();
            let list = match endpoint.nested {
                false => plain[i].take(),
                true => nested[i].take(),
            };
            lists.push((endpoint, list.unwrap_or_default()));
        }
        lists
    }

    /// Bytes of the fragments the lists made of them refer to (items of
    /// other lists, held there: counted in their own bytes too).
    pub fn fragment_bytes(&self) -> usize {
        self.phases.fragment_bytes
    }
}

/// How long each step of building a view took, and the bytes it read and
/// wrote: logged when a view is loaded or swapped, and read by
/// `benches/capacity.sh`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Reading the file.
    pub read: Duration,
    /// The payload's SHA-256 (beside `decode`, on a thread of its own).
    pub checksum: Duration,
    /// The prepared tables decoded and checked (the records, without them).
    pub decode: Duration,
    /// The records' rules checked: only a view built from records.
    pub validate: Duration,
    /// Records taken apart into tables: only a view built from records.
    pub tables: Duration,
    /// Every list rendered, and Wagtail's image items.
    pub render: Duration,
    /// The points of the records that have one.
    pub points: Duration,
    pub snapshot_bytes: usize,
    /// The lists' items as answers send them, as far as rendered when the
    /// view was built (a list made of fragments is rendered later).
    pub rendered_bytes: usize,
    /// Of those, the bytes the lists hold: items' own bytes (all of an item
    /// not made of fragments).
    pub own_bytes: usize,
    /// The fragments items made of them refer to (items of other lists).
    pub fragment_bytes: usize,
    /// Rendered bytes shared with the view a reload replaced (not held twice).
    pub shared_bytes: usize,
    /// Of those, the bytes shared without rendering them: segments whose
    /// records, and all their items read, were the served view's.
    pub unrendered_bytes: usize,
    /// The bytes of the columns shared with the view a reload replaced (with
    /// what is built from them: not built again).
    pub columns_shared_bytes: usize,
}

impl std::fmt::Display for Phases {
    /// `read=12ms checksum=... render=4100ms(880MB/s)`: each step, and the
    /// rates of reading and rendering.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_millis();
        let rate =
            |bytes: usize, d: Duration| (bytes as f64 / d.as_secs_f64().max(1e-6) / 1e6) as u64;
        write!(
            f,
            "read={}ms({}MB/s) checksum={}ms decode={}ms({}MB/s) validate={}ms tables={}ms render={}ms({}MB/s) points={}ms",
            ms(self.read),
            rate(self.snapshot_bytes, self.read),
            ms(self.checksum),
            ms(self.decode),
            rate(self.snapshot_bytes, self.decode),
            ms(self.validate),
            ms(self.tables),
            ms(self.render),
            rate(self.rendered_bytes, self.render),
            ms(self.points),
        )?;
        if self.shared_bytes > 0 {
            write!(f, " shared={}MB", self.shared_bytes >> 20)?;
        }
        if self.unrendered_bytes > 0 {
            write!(f, " unrendered={}MB", self.unrendered_bytes >> 20)?;
        }
        if self.columns_shared_bytes > 0 {
            write!(f, " columns_shared={}MB", self.columns_shared_bytes >> 20)?;
        }
        Ok(())
    }
}

/// Runs `f`, and says how long it took.
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    (f(), started.elapsed())
}

impl Embeds for View {
    fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    fn plain(&self, model: Model, pos: u32) -> &[u8] {
        render::embedded(&self.plain[model.index()], pos)
    }

    fn nested(&self, model: Model, pos: u32) -> &[u8] {
        match &self.nested[model.index()] {
            Some(list) => render::embedded(list, pos),
            None => self.plain(model, pos),
        }
    }
}
