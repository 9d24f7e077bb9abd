//! JSON rendering: items are written once, at load, into one buffer per list.
//!
//! A list's buffer holds its items separated by commas (`{..},{..},{..}`), and each
//! item's byte range is recorded, so any run of consecutive items is one slice of the
//! buffer and an embedded record is a copy of bytes already rendered.

use ahash::AHashMap;
use bytes::Bytes;

use crate::encoding::json::{write_int, write_str};
use crate::model::{Model, Shape, Type};

use super::table::Table;
use super::value::Value;

/// One rendered list: the items, comma-separated, and where each one is.
#[derive(Debug, Default)]
pub struct List {
    bytes: Bytes,
    /// Where each item ends in `bytes`; the next starts after the comma that
    /// follows (one number an item, not two: 16 MB less at a million).
    ends: Vec<u64>,
    /// Whether an item holds a media URL (a file, or a featured image's): an
    /// answer cut from the list then depends on the media base.
    media: bool,
}

impl List {
    /// A list of items written one after another, comma-separated, ending where `ends` say.
    pub(super) fn new(bytes: Vec<u8>, ends: Vec<u64>) -> List {
        List {
            media: memchr::memchr(MEDIA_BASE, &bytes).is_some(),
            bytes: Bytes::from(bytes),
            ends,
        }
    }

    /// Whether an item holds a media URL.
    pub fn has_media(&self) -> bool {
        self.media
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn start(&self, i: usize) -> usize {
        match i {
            0 => 0,
            _ => self.ends[i - 1] as usize + 1,
        }
    }

    /// The bytes of item `i`.
    pub fn item(&self, i: usize) -> &[u8] {
        &self.bytes[self.start(i)..self.ends[i] as usize]
    }

    /// Item `i` as a shared slice of the buffer (no copy).
    pub fn item_bytes(&self, i: usize) -> Bytes {
        self.bytes.slice(self.start(i)..self.ends[i] as usize)
    }

    /// Items `from..to`, with their separating commas, as one shared slice (no copy).
    pub fn run(&self, from: usize, to: usize) -> Bytes {
        if from >= to {
            return Bytes::new();
        }
        self.bytes
            .slice(self.start(from)..self.ends[to - 1] as usize)
    }

    /// The size of the buffer, for reports.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Appends a value that is not a reference: null, a number, a boolean, a string or a
/// timestamp (references, which need their table, write as null).
pub fn write_scalar(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Int(n) => write_int(out, *n),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Str(s) => write_str(out, s),
        Value::Time(t) => {
            out.push(b'"');
            crate::encoding::time::write_timestamp(out, *t);
            out.push(b'"');
        }
        Value::Null | Value::Ref(..) | Value::Refs(..) => out.extend_from_slice(b"null"),
    }
}

/// Which fields of a model an item keeps, and how each embedded one is cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// Kept fields, in table order, with the projection of each cut embedded record.
    pub fields: Vec<(usize, Option<Child>)>,
}

/// The projection of an embedded record, per model it can be (a taxon is any rank).
pub type Child = AHashMap<Model, Projection>;

impl Projection {
    /// Whether this projection keeps every field whole: the pre-rendered item as it is.
    pub fn is_everything(&self, model: Model) -> bool {
        self.fields.len() == model.fields().len() && self.fields.iter().all(|(_, c)| c.is_none())
    }
}

/// Where an item's embedded records come from: bytes rendered before it.
pub trait Embeds {
    /// The table of a model, for ids and rows.
    fn table(&self, model: Model) -> &Table;
    /// A record in its plain shape.
    fn plain(&self, model: Model, pos: u32) -> &[u8];
    /// A record in its nested shape (its plain shape when it has no parent).
    fn nested(&self, model: Model, pos: u32) -> &[u8];
}

/// The lists rendered so far, by model index; models are rendered in `Model::ALL`
/// order, so whatever an item embeds is already here.
pub struct Rendered<'t> {
    tables: &'t [Table],
    pub plain: Vec<Option<List>>,
    pub nested: Vec<Option<List>>,
}

impl Embeds for Rendered<'_> {
    fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    fn plain(&self, model: Model, pos: u32) -> &[u8] {
        self.plain[model.index()]
            .as_ref()
            .expect("embedded models are rendered first")
            .item(pos as usize)
    }

    fn nested(&self, model: Model, pos: u32) -> &[u8] {
        match &self.nested[model.index()] {
            Some(list) => list.item(pos as usize),
            None => self.plain(model, pos),
        }
    }
}

impl Rendered<'_> {
    /// The plain and nested lists, by model index, without the tables.
    pub fn into_lists(self) -> (Vec<Option<List>>, Vec<Option<List>>) {
        (self.plain, self.nested)
    }
}

/// Renders every list of every model: plain lists, then nested ones.
pub fn render_all(tables: &[Table]) -> Rendered<'_> {
    let mut done = Rendered {
        tables,
        plain: (0..tables.len()).map(|_| None).collect(),
        nested: (0..tables.len()).map(|_| None).collect(),
    };
    for model in Model::ALL {
        // A model's two shapes only embed models rendered before it: render them
        // side by side (the specimen lists are most of the work).
        let (plain, nested) = std::thread::scope(|scope| {
            let nested = model
                .has_nested()
                .then(|| scope.spawn(|| render_list(&done, model, Shape::Nested)));
            let plain = render_list(&done, model, Shape::Plain);
            (
                plain,
                nested.map(|n| n.join().expect("rendering does not panic")),
            )
        });
        done.plain[model.index()] = Some(plain);
        done.nested[model.index()] = nested;
    }
    done
}

/// Items rendered before the list's size is estimated and its buffer reserved.
const SAMPLE_ITEMS: usize = 256;

fn render_list(done: &Rendered, model: Model, shape: Shape) -> List {
    let rows = done.table(model).len();
    let mut out = Vec::new();
    let mut ends = Vec::with_capacity(rows);
    for pos in 0..rows {
        if pos > 0 {
            out.push(b',');
        }
        if pos == SAMPLE_ITEMS {
            // Growing a buffer of hundreds of megabytes by doubling copies it and
            // touches fresh pages again at each step: reserve the estimate (+5%).
            let estimate = out.len() / pos * rows / 20 * 21;
            out.reserve(estimate.saturating_sub(out.len()));
        }
        write_item(&mut out, done, model, pos, shape, None);
        ends.push(out.len() as u64);
    }
    if out.capacity() - out.len() > out.len() / 8 {
        out.shrink_to_fit();
    }
    List::new(out, ends)
}

/// Appends one item: every field, or the fields a projection keeps.
pub fn write_item(
    out: &mut Vec<u8>,
    e: &impl Embeds,
    model: Model,
    pos: usize,
    shape: Shape,
    projection: Option<&Projection>,
) {
    let fields = model.fields();
    let table = e.table(model);
    out.push(b'{');
    let mut written = 0;
    let mut write = |i: usize, child: Option<&Child>| {
        let value = table.get(pos, i);
        if fields[i].absent_when_null && value == Value::Null {
            return;
        }
        if written > 0 {
            out.push(b',');
        }
        written += 1;
        write_str(out, fields[i].name);
        out.push(b':');
        write_value(out, e, fields[i].ty, &value, shape, child);
    };
    match projection {
        None => (0..fields.len()).for_each(|i| write(i, None)),
        Some(projection) => {
            for (i, child) in &projection.fields {
                write(*i, child.as_ref());
            }
        }
    }
    out.push(b'}');
}

/// Appends a value as the item of `shape` serves it; a `child` projection cuts an
/// embedded record, which is otherwise copied from its rendered bytes.
fn write_value(
    out: &mut Vec<u8>,
    e: &impl Embeds,
    ty: Type,
    value: &Value,
    shape: Shape,
    child: Option<&Child>,
) {
    let embed =
        |out: &mut Vec<u8>, m: Model, p: u32, nested: bool| match child.and_then(|c| c.get(&m)) {
            Some(projection) => {
                let shape = if nested && m.has_nested() {
                    Shape::Nested
                } else {
                    Shape::Plain
                };
                write_item(out, e, m, p as usize, shape, Some(projection));
            }
            None if nested => out.extend_from_slice(e.nested(m, p)),
            None => out.extend_from_slice(e.plain(m, p)),
        };
    match value {
        Value::Ref(m, p) => match (ty, shape) {
            (Type::Parent(_), Shape::Plain) | (Type::RefId(_), _) => {
                write_int(out, e.table(*m).id(*p))
            }
            (Type::Parent(_), Shape::Nested) => embed(out, *m, *p, true),
            _ => embed(out, *m, *p, false),
        },
        Value::Refs(m, positions) => {
            out.push(b'[');
            for (k, p) in positions.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                match ty {
                    Type::RefIds(_) => write_int(out, e.table(*m).id(*p)),
                    _ => embed(out, *m, *p, false),
                }
            }
            out.push(b']');
        }
        Value::Str(path) if ty == Type::MediaFile => write_media_url(out, path),
        scalar => write_scalar(out, scalar),
    }
}

/// Marks where the media base goes in a rendered media URL. JSON output never
/// holds a raw control character (strings escape them), so the byte cannot occur
/// otherwise; the server puts the request's base in its place.
pub const MEDIA_BASE: u8 = 0x01;

/// Appends a media file's URL: the base marker, then its path under the media root.
fn write_media_url(out: &mut Vec<u8>, path: &str) {
    let start = out.len();
    write_str(out, path);
    out.insert(start + 1, MEDIA_BASE);
}
