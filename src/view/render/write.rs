//! An item written: every field of its record, or those a projection keeps,
//! its embedded records copied from their rendered bytes (or placed as a
//! list made of fragments refers to them).

use ahash::AHashMap;

use crate::encoding::json::{write_int, write_str};
use crate::model::{Model, Shape, Type};
use crate::view::fragments::{self, Fragments};
use crate::view::table::Table;
use crate::view::value::Value;

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

/// Appends one item: every field, or the fields a projection keeps.
pub fn write_item(
    out: &mut Vec<u8>,
    e: &impl Embeds,
    model: Model,
    pos: usize,
    shape: Shape,
    projection: Option<&Projection>,
) {
    let mut copy = |out: &mut Vec<u8>, m: Model, nested: bool, p: u32| match nested {
        true => out.extend_from_slice(e.nested(m, p)),
        false => out.extend_from_slice(e.plain(m, p)),
    };
    write_item_with(
        out,
        e,
        (model, pos, shape),
        projection,
        Keys::Named,
        &mut copy,
    );
}

/// Where an embedded record goes whole (not cut by a projection): handed
/// the bytes so far, its model, whether in the nested shape, and its row.
pub(super) type Place<'a> = dyn FnMut(&mut Vec<u8>, Model, bool, u32) + 'a;

/// How an item's keys are written: as JSON, or coded as references to the
/// model's keys, and to its values that repeat (an item made of fragments,
/// [`fragments`]).
#[derive(Clone, Copy)]
pub(super) enum Keys<'a> {
    Named,
    Coded(&'a Fragments),
}

/// [`write_item`], placing each embedded record whole by `place`.
pub(super) fn write_item_with(
    out: &mut Vec<u8>,
    e: &impl Embeds,
    (model, pos, shape): (Model, usize, Shape),
    projection: Option<&Projection>,
    keys: Keys<'_>,
    place: &mut Place<'_>,
) {
    let fields = model.fields();
    let table = e.table(model);
    out.push(b'{');
    let mut written = 0;
    let mut write = |i: usize, child: Option<&Child>| {
        // A value written once is referred to by its code, never read (a
        // value of none is not coded: it is read, and may be left out).
        if let Keys::Coded(coded) = keys {
            if coded.write_value(out, (i, written > 0), table.column(i), pos) {
                written += 1;
                return;
            }
        }
        let value = table.get(pos, i);
        if fields[i].absent_when_null && value == Value::Null {
            return;
        }
        let comma = written > 0;
        written += 1;
        match keys {
            Keys::Named => {
                if comma {
                    out.push(b',');
                }
                write_str(out, fields[i].name);
                out.push(b':');
            }
            Keys::Coded(_) => fragments::write_key(out, i, comma),
        }
        write_value(out, e, (fields[i].ty, &value, shape), child, place);
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
    (ty, value, shape): (Type, &Value, Shape),
    child: Option<&Child>,
    place: &mut Place<'_>,
) {
    let mut embed =
        |out: &mut Vec<u8>, m: Model, p: u32, nested: bool| match child.and_then(|c| c.get(&m)) {
            Some(projection) => {
                let shape = if nested && m.has_nested() {
                    Shape::Nested
                } else {
                    Shape::Plain
                };
                let item = (m, p as usize, shape);
                write_item_with(out, e, item, Some(projection), Keys::Named, place);
            }
            None => place(out, m, nested, p),
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

/// Writes `rendered` to `out` with every [`MEDIA_BASE`] marker replaced by
/// `base`, found with memchr and copied a run at a time (a featured image puts
/// a dozen markers in an item).
pub fn write_spliced(
    out: &mut (impl std::io::Write + ?Sized),
    rendered: &[u8],
    base: &[u8],
) -> std::io::Result<()> {
    let mut from = 0;
    for at in memchr::memchr_iter(MEDIA_BASE, rendered) {
        out.write_all(&rendered[from..at])?;
        out.write_all(base)?;
        from = at + 1;
    }
    out.write_all(&rendered[from..])
}

/// Appends a media file's URL: the base marker, then its path under the media root.
fn write_media_url(out: &mut Vec<u8>, path: &str) {
    let start = out.len();
    write_str(out, path);
    out.insert(start + 1, MEDIA_BASE);
}
