//! The served view a reload renders beside: its lists, and which of their
//! segments stand for the same records' same bytes.

use std::ops::RangeInclusive;

use bytes::Bytes;

use super::list::List;
use crate::model::{Model, Shape, Type};
use crate::view::bits::Bits;
use crate::view::table::Table;
use crate::view::value::Value;

/// The lists of the view a reload replaces, by model index, with its tables.
/// A segment rendered to the very bytes the served view holds for the same
/// records is shared with it rather than held twice, so a reload holds two
/// copies only of what changed.
#[derive(Clone, Copy, Default)]
pub struct Previous<'v> {
    tables: &'v [Table],
    plain: &'v [List],
    nested: &'v [Option<List>],
}

impl<'v> Previous<'v> {
    /// The served view's list of `model` in `shape`.
    pub(super) fn list(&self, model: Model, shape: Shape) -> Option<&'v List> {
        match shape {
            Shape::Plain => self.plain.get(model.index()),
            Shape::Nested => self.nested.get(model.index()).and_then(Option::as_ref),
        }
    }

    pub fn new(tables: &'v [Table], plain: &'v [List], nested: &'v [Option<List>]) -> Previous<'v> {
        Previous {
            tables,
            plain,
            nested,
        }
    }

    /// How many bytes of `plain` and `nested` (lists by model index) are these
    /// lists' own: segments shared rather than rendered anew.
    pub fn shared_bytes(&self, plain: &[List], nested: &[Option<List>]) -> usize {
        let pairs = plain.iter().zip(self.plain).chain(
            (nested.iter().zip(self.nested)).filter_map(|(a, b)| a.as_ref().zip(b.as_ref())),
        );
        let mut shared = 0;
        for (new, old) in pairs {
            let held: ahash::AHashSet<*const u8> =
                old.segment_bytes().map(|s| s.as_ptr()).collect();
            let mine = new
                .segment_bytes()
                .filter(|s| !s.is_empty() && held.contains(&s.as_ptr()));
            shared += mine.map(Bytes::len).sum::<usize>();
        }
        shared
    }

    /// Per model (by index), the rows of `tables` whose items differ from
    /// the served view's, when the two hold the same records of every model
    /// an item reads ([`reads`]): rows whose own values differ, and rows
    /// that embed a record whose item differs, in turn. The served segments
    /// of the model's lists without such a row are then its bytes, shared
    /// without rendering them. `None` where that cannot be told.
    pub fn changed_rows(&self, tables: &[Table]) -> Vec<Option<Vec<u32>>> {
        if self.tables.len() != tables.len() {
            return tables.iter().map(|_| None).collect();
        }
        // Each table's rows whose values differ; none where its records do.
        let mut marked: Vec<Option<Bits>> = (tables.iter().zip(self.tables))
            .map(|(table, served)| {
                let rows = match table.unchanged_from(served) {
                    true => Vec::new(),
                    false => table.rows_changed_from(served)?,
                };
                Some(Bits::of(table.len(), rows))
            })
            .collect();
        // Then the rows that embed a marked row, until no more are marked.
        while mark_embedding(tables, &mut marked) {}
        Model::ALL
            .iter()
            .map(|&model| {
                if reads(model).iter().any(|m| marked[m.index()].is_none()) {
                    return None;
                }
                let rows = marked[model.index()].as_ref()?.positions();
                Some(rows.map(|p| p as u32).collect())
            })
            .collect()
    }

    /// The served list of the model in `shape`, and which of its segments
    /// holds the records `ids` (ascending; the rows of a segment of the list
    /// being rendered), when they are one segment there too.
    pub(super) fn segment(
        &self,
        model: Model,
        shape: Shape,
        ids: RangeInclusive<i64>,
        items: usize,
    ) -> Option<(&'v List, usize)> {
        let list = self.list(model, shape)?;
        let table = self.tables.get(model.index())?;
        let first = table.position(*ids.start())? as usize;
        let k = list.segment(first);
        let held = list.items_of(k);
        let same = held.start == first
            && held.len() == items
            && table.id(held.end as u32 - 1) == *ids.end();
        same.then_some((list, k))
    }
}

/// Marks each row of `tables` that embeds a marked row of another table
/// (or of its own: a parent); says whether any was marked.
fn mark_embedding(tables: &[Table], marked: &mut [Option<Bits>]) -> bool {
    let mut any = false;
    for model in Model::ALL {
        if marked[model.index()].is_none() {
            continue;
        }
        for (f, field) in model.fields().iter().enumerate() {
            let embedded = match field.ty {
                Type::Parent(m) | Type::Embed(m) | Type::EmbedMany(m) => vec![m],
                Type::Taxon => Model::RANKS.to_vec(),
                _ => continue,
            };
            let read = |m: &Model| marked[m.index()].as_ref().is_some_and(|b| b.count() > 0);
            if !embedded.iter().any(read) {
                continue;
            }
            let is_marked = |m: Model, q: u32| {
                (marked[m.index()].as_ref()).is_some_and(|b| b.contains(q as usize))
            };
            let (table, mine) = (&tables[model.index()], &marked[model.index()]);
            let column = table.column(f);
            let embedding: Vec<usize> = (0..table.len())
                .filter(|&p| !mine.as_ref().is_some_and(|b| b.contains(p)))
                .filter(|&p| match column.get(p) {
                    Value::Ref(m, q) => is_marked(m, q),
                    Value::Refs(m, qs) => qs.iter().any(|&q| is_marked(m, q)),
                    _ => false,
                })
                .collect();
            let mine = marked[model.index()].as_mut().expect("marked");
            for p in embedding {
                mine.set(p);
                any = true;
            }
        }
    }
    any
}

/// The models whose tables an item of `model` reads: its own, those its
/// fields refer to or embed, and theirs in turn (an embedded record is an
/// item of its own list).
pub(super) fn reads(model: Model) -> Vec<Model> {
    let mut found = vec![model];
    let mut i = 0;
    while let Some(&reader) = found.get(i) {
        for field in reader.fields() {
            let named = match field.ty {
                Type::Parent(m)
                | Type::Embed(m)
                | Type::RefId(m)
                | Type::EmbedMany(m)
                | Type::RefIds(m) => vec![m],
                Type::Taxon => Model::RANKS.to_vec(),
                _ => Vec::new(),
            };
            for m in named {
                if !found.contains(&m) {
                    found.push(m);
                }
            }
        }
        i += 1;
    }
    found
}
