//! A list made of fragments, rendered a segment at a time: the first read of a
//! segment renders it (or waits for the thread rendering it), and the view's
//! preparation renders the rest right after the view is served
//! ([`super::List::make_all`]), so a view is served before its longest lists
//! are written. Each segment is still rendered once, from the view's own
//! columns, and its bytes are the same whichever comes first.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::write::{write_item_with, Embeds, Keys};
use crate::model::{Model, Shape};
use crate::view::fragments::{self, Fragments};
use crate::view::table::Table;

/// The items of a list made of fragments: the table their coded bytes refer
/// to, and each segment once it is made.
#[derive(Debug)]
pub struct Coded {
    /// The fragments and keys its items' coded own bytes refer to.
    pub(super) fragments: Fragments,
    /// By segment, its items' coded bytes once rendered.
    made: Box<[OnceLock<Made>]>,
    /// How a segment is rendered.
    maker: Maker,
}

/// A segment rendered: its items' coded own bytes, comma-separated (with the
/// comma before the next segment, but the last), and for each item where it
/// ends, and the bytes and media URLs' markers it and the items before it in
/// the segment stand for (so a run's length is two subtractions a segment).
#[derive(Clone, Debug, Default)]
pub(super) struct Made {
    pub(super) bytes: Bytes,
    ends: Vec<u32>,
    lens: Vec<u32>,
    markers: Vec<u32>,
}

impl Made {
    /// Item `j` of the segment's coded bytes.
    pub(super) fn own(&self, j: usize) -> &[u8] {
        let start = match j {
            0 => 0,
            j => self.ends[j - 1] as usize + 1,
        };
        &self.bytes[start..self.ends[j] as usize]
    }

    /// The bytes items `items` of the segment stand for, commas not counted,
    /// and the media URLs' markers they hold.
    pub(super) fn measure(&self, items: Range<usize>) -> (usize, usize) {
        let upto = |v: &[u32], j: usize| match j {
            0 => 0,
            j => v[j - 1] as usize,
        };
        let (a, b) = (items.start, items.end);
        (
            upto(&self.lens, b) - upto(&self.lens, a),
            upto(&self.markers, b) - upto(&self.markers, a),
        )
    }

    /// The heap its item index takes.
    fn index_bytes(&self) -> usize {
        (self.ends.capacity() + self.lens.capacity() + self.markers.capacity()) * 4
    }
}

/// How a segment of a list made of fragments is rendered: the model and
/// shape, and the columns of every table (shared with the view's, without
/// the indexes built on them).
#[derive(Debug)]
pub(super) struct Maker {
    model: Model,
    shape: Shape,
    tables: Arc<[Table]>,
}

impl Maker {
    /// Renders the `model`'s items in `shape` from `tables`' columns.
    pub(super) fn new(model: Model, shape: Shape, tables: &[Table]) -> Maker {
        let tables = tables.iter().map(Table::columns_only).collect();
        Maker {
            model,
            shape,
            tables,
        }
    }

    /// Renders `items`, comma-separated, with the comma after them unless
    /// they are the `last`: each embedded record a reference to its fragment
    /// in `fragments`, each key and repeated value a reference too.
    pub(super) fn make(&self, fragments: &Fragments, items: Range<usize>, last: bool) -> Made {
        thread_local! {
            static OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        OUT.with_borrow_mut(|out| {
            out.clear();
            let mut made = Made {
                ends: Vec::with_capacity(items.len()),
                lens: Vec::with_capacity(items.len()),
                markers: Vec::with_capacity(items.len()),
                ..Made::default()
            };
            let (mut len, mut markers) = (0usize, 0usize);
            let columns = Columns(&self.tables);
            let mut refer = |out: &mut Vec<u8>, m: Model, nested: bool, p: u32| {
                fragments::write_fragment(out, fragments.id(m, nested && m.has_nested(), p));
            };
            let within = |n: usize| u32::try_from(n).expect("a segment is shorter than 4 GB");
            for (i, pos) in items.enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let start = out.len();
                let item = (self.model, pos, self.shape);
                write_item_with(
                    out,
                    &columns,
                    item,
                    None,
                    Keys::Coded(fragments),
                    &mut refer,
                );
                let (l, m) = fragments.measure(&out[start..]);
                (len, markers) = (len + l, markers + m);
                made.ends.push(within(out.len()));
                made.lens.push(within(len));
                made.markers.push(within(markers));
            }
            if !last {
                out.push(b',');
            }
            made.bytes = Bytes::copy_from_slice(out);
            made
        })
    }
}

/// The tables an item made of fragments reads: only their columns (its
/// embedded records are references, never copied).
struct Columns<'t>(&'t [Table]);

impl Embeds for Columns<'_> {
    fn table(&self, model: Model) -> &Table {
        &self.0[model.index()]
    }

    fn plain(&self, _: Model, _: u32) -> &[u8] {
        unreachable!("an item made of fragments refers to its embedded records")
    }

    fn nested(&self, _: Model, _: u32) -> &[u8] {
        unreachable!("an item made of fragments refers to its embedded records")
    }
}

impl Coded {
    /// `segments` segments of items of the maker's list, referring to
    /// `fragments`; those `kept` (by index) are made already.
    pub(super) fn new(
        fragments: Fragments,
        maker: Maker,
        segments: usize,
        kept: impl IntoIterator<Item = (usize, Made)>,
    ) -> Coded {
        let made: Box<[OnceLock<Made>]> = (0..segments).map(|_| OnceLock::new()).collect();
        for (k, segment) in kept {
            let _ = made[k].set(segment);
        }
        Coded {
            fragments,
            made,
            maker,
        }
    }

    /// Segment `k`, items `items` of the list, the `last` or not: made now
    /// if it was not (or once the thread making it is done).
    pub(super) fn segment(&self, k: usize, items: Range<usize>, last: bool) -> &Made {
        self.made[k].get_or_init(|| self.maker.make(&self.fragments, items, last))
    }

    /// Segment `k`, if it is made.
    pub(super) fn made(&self, k: usize) -> Option<&Made> {
        self.made[k].get()
    }

    /// How many segments are made.
    pub(super) fn made_count(&self) -> usize {
        self.made.iter().filter(|m| m.get().is_some()).count()
    }

    /// The segments made so far.
    pub(super) fn made_so_far(&self) -> impl Iterator<Item = &Made> {
        self.made.iter().filter_map(OnceLock::get)
    }

    /// The heap of its segments' item indexes and of its fragments' table.
    pub(super) fn index_bytes(&self) -> usize {
        let made: usize = self.made_so_far().map(Made::index_bytes).sum();
        made + self.made.len() * std::mem::size_of::<OnceLock<Made>>() + self.fragments.heap_bytes()
    }
}
