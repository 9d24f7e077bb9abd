//! A list's answer as CSV (`format=csv`): one column per kept field, in the
//! item's order, under a header row of the fields' names. Each cell says what
//! the item's JSON says, as text:
//!
//! - a number, `true`/`false`, a string, an instant as the JSON writes them;
//!   null is an empty cell;
//! - a related record (a parent, an embedded record, a taxon, an id) is two
//!   columns, `<field>_id` and `<field>_name` (its first naming field that
//!   holds text: `binomial`, `trinomial`, `full_name`, `usi`, `title`, `name`,
//!   `filter_spec`, as the pages name it);
//! - several related records are the same two columns, their ids and their
//!   names each joined by ` | `, in the item's order;
//! - rich text (a string holding a tag: `<` then a letter or `/`, and a `>`
//!   after it) is plain text, as the archive writes it: tags removed,
//!   character references decoded, whitespace runs made one space;
//! - a media file is its URL, as in the JSON.
//!
//! Cells follow RFC 4180 (`encoding::csv`): quoted only when they must be,
//! records ended by CRLF, UTF-8 without a byte-order mark.

use crate::encoding::csv::{self, Record};
use crate::encoding::json::write_int;
use crate::encoding::time::write_timestamp;
use crate::model::{Model, Type};
use crate::view::name::Naming;
use crate::view::render::MEDIA_BASE;
use crate::view::{Value, View};

use crate::model::darwin_core::{is_rich_text, plain_text};

/// Joins the ids and the names of several related records in one cell.
pub const JOIN: &str = " | ";

/// The columns of a list's CSV: its kept fields, in the item's order.
#[derive(Clone, Debug)]
pub struct Columns {
    model: Model,
    fields: Vec<usize>,
    /// Each model's naming fields, by model index, looked up once.
    naming: Vec<Naming>,
}

impl Columns {
    /// The columns of `model`'s items keeping `kept` (every field when `None`).
    pub fn new(model: Model, kept: Option<Vec<usize>>) -> Columns {
        let fields = kept.unwrap_or_else(|| (0..model.fields().len()).collect());
        let mut naming: Vec<Naming> = Model::ALL.iter().map(|&m| Naming::of(m)).collect();
        naming.sort_by_key(|n| n.model().index());
        Columns {
            model,
            fields,
            naming,
        }
    }

    /// The header row.
    pub fn header(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut record = Record::new(&mut out);
        for &f in &self.fields {
            let field = self.model.fields()[f];
            match related(field.ty) {
                true => {
                    record.cell(&format!("{}_id", field.name));
                    record.cell(&format!("{}_name", field.name));
                }
                false => record.cell(field.name),
            }
        }
        record.end();
        out
    }

    /// Appends the row of the record at `pos`.
    pub fn row(&self, out: &mut Vec<u8>, view: &View, pos: usize) {
        let table = view.table(self.model);
        let mut text = String::new();
        let name = |m: Model, p: u32| self.naming[m.index()].name(view, p).unwrap_or_default();
        for (k, &f) in self.fields.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            let ty = self.model.fields()[f].ty;
            match table.get(pos, f) {
                Value::Ref(m, p) => {
                    write_int(out, view.table(m).id(p));
                    out.push(b',');
                    csv::write_cell(out, true, clean(name(m, p)).as_ref());
                }
                Value::Refs(m, ps) => {
                    for (i, &p) in ps.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(JOIN.as_bytes());
                        }
                        write_int(out, view.table(m).id(p));
                    }
                    out.push(b',');
                    text.clear();
                    for (i, &p) in ps.iter().enumerate() {
                        if i > 0 {
                            text.push_str(JOIN);
                        }
                        text.push_str(name(m, p));
                    }
                    csv::write_cell(out, true, clean(&text).as_ref());
                }
                // A related record's two cells, both empty.
                Value::Null if related(ty) => out.push(b','),
                Value::Null => {}
                Value::Int(n) => write_int(out, n),
                Value::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
                Value::Time(t) => write_timestamp(out, t),
                Value::Str(s) if ty == Type::MediaFile => {
                    // The media base goes where the marker is, as the body is sent.
                    text.clear();
                    text.push(MEDIA_BASE as char);
                    text.push_str(&clean(s));
                    csv::write_cell(out, true, &text);
                }
                Value::Str(s) if is_rich_text(s) => {
                    csv::write_cell(out, true, &clean(&plain_text(s)))
                }
                Value::Str(s) => csv::write_cell(out, true, clean(s).as_ref()),
            }
        }
        csv::end_record(out);
    }
}

/// Every row of a list's CSV with every field, written once: a download of
/// that list then copies rows, as a JSON answer copies rendered items.
#[derive(Debug)]
pub struct Rows {
    bytes: Vec<u8>,
    /// Where each record's row ends, by position.
    ends: Vec<usize>,
}

impl Rows {
    /// Writes the row of every record of `columns`' model.
    pub fn render(view: &View, columns: &Columns) -> Rows {
        let n = view.table(columns.model).len();
        let mut bytes = Vec::new();
        let mut ends = Vec::with_capacity(n);
        for pos in 0..n {
            columns.row(&mut bytes, view, pos);
            ends.push(bytes.len());
        }
        bytes.shrink_to_fit();
        Rows { bytes, ends }
    }

    /// The row of the record at `pos`.
    pub fn row(&self, pos: usize) -> &[u8] {
        let start = if pos == 0 { 0 } else { self.ends[pos - 1] };
        &self.bytes[start..self.ends[pos]]
    }

    /// The bytes held, for reports.
    pub fn byte_len(&self) -> usize {
        self.bytes.len() + self.ends.len() * std::mem::size_of::<usize>()
    }
}

/// Whether a field holds related records, written as their ids and names.
fn related(ty: Type) -> bool {
    matches!(
        ty,
        Type::Parent(_)
            | Type::Embed(_)
            | Type::Taxon
            | Type::EmbedMany(_)
            | Type::RefId(_)
            | Type::RefIds(_)
    )
}

/// A value's text without the byte that marks where the media base goes (no
/// value holds it; if one did, the base would go there).
fn clean(s: &str) -> std::borrow::Cow<'_, str> {
    match s.contains(MEDIA_BASE as char) {
        true => s.replace(MEDIA_BASE as char, "").into(),
        false => s.into(),
    }
}

/// The header row of a CSV of Darwin Core terms.
pub fn terms_header(terms: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut record = Record::new(&mut out);
    terms.iter().for_each(|(term, _)| record.cell(term));
    record.end();
    out
}
