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

use crate::encoding::csv::Record;
use crate::encoding::time::write_timestamp;
use crate::model::{Model, Type};
use crate::view::name::name_of;
use crate::view::render::MEDIA_BASE;
use crate::view::{Value, View};

use super::dwca::text::plain_text;

/// Joins the ids and the names of several related records in one cell.
pub const JOIN: &str = " | ";

/// The columns of a list's CSV: its kept fields, in the item's order.
#[derive(Clone, Debug)]
pub struct Columns {
    model: Model,
    fields: Vec<usize>,
}

impl Columns {
    /// The columns of `model`'s items keeping `kept` (every field when `None`).
    pub fn new(model: Model, kept: Option<Vec<usize>>) -> Columns {
        let fields = kept.unwrap_or_else(|| (0..model.fields().len()).collect());
        Columns { model, fields }
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
        let mut record = Record::new(out);
        let mut text = String::new();
        for &f in &self.fields {
            let ty = self.model.fields()[f].ty;
            let value = table.get(pos, f);
            if related(ty) {
                let (ids, names) = match value {
                    Value::Ref(m, p) => (
                        view.table(m).id(p).to_string(),
                        name_of(view, m, p).unwrap_or_default().to_string(),
                    ),
                    Value::Refs(m, ps) => {
                        let ids: Vec<String> = ps
                            .iter()
                            .map(|&p| view.table(m).id(p).to_string())
                            .collect();
                        let names: Vec<&str> = ps
                            .iter()
                            .map(|&p| name_of(view, m, p).unwrap_or_default())
                            .collect();
                        (ids.join(JOIN), names.join(JOIN))
                    }
                    _ => (String::new(), String::new()),
                };
                record.cell(&clean(&ids));
                record.cell(&clean(&names));
                continue;
            }
            text.clear();
            match value {
                Value::Null | Value::Ref(..) | Value::Refs(..) => {}
                Value::Int(n) => text.push_str(&n.to_string()),
                Value::Bool(b) => text.push_str(if b { "true" } else { "false" }),
                Value::Time(t) => {
                    let mut b = Vec::with_capacity(27);
                    write_timestamp(&mut b, t);
                    text.push_str(std::str::from_utf8(&b).unwrap_or_default());
                }
                Value::Str(s) if ty == Type::MediaFile => {
                    // The media base goes where the marker is, as the body is sent.
                    text.push(MEDIA_BASE as char);
                    text.push_str(&clean(s));
                }
                Value::Str(s) if rich(s) => text.push_str(&clean(&plain_text(s))),
                Value::Str(s) => text.push_str(&clean(s)),
            }
            record.cell(&text);
        }
        record.end();
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

/// Whether a string is rich text: it holds a tag.
fn rich(s: &str) -> bool {
    s.match_indices('<').any(|(i, _)| {
        let after = &s[i + 1..];
        after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/')
            && after.contains('>')
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rich_text_is_what_starts_with_a_tag() {
        assert!(rich("<p>Oak woods</p>"));
        assert!(rich("  <p>x"));
        assert!(rich("Oak <i>woods</i>"));
        assert!(!rich("<5 m"));
        assert!(!rich("a < b > c"));
        assert!(!rich("<a"));
    }
}
