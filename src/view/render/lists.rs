//! Every list of every model rendered, in `Model::ALL` order, in segments a
//! block at a time on each core, into memory files; a reload keeps the served
//! view's segments where nothing they were made of changed.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;

use super::coded::{Coded, Maker};
use super::list::{mark, Items, List, Segment};
use super::previous::Previous;
use super::write::{write_item, Embeds, MEDIA_BASE};
use crate::memfile;
use crate::model::{Model, Shape, Type};
use crate::view::bits::Bits;
use crate::view::fragments::{self, Fragments};
use crate::view::table::Table;
use crate::view::value::Value;

/// The lists rendered so far, by model index; models are rendered in `Model::ALL`
/// order, so whatever an item embeds is already here.
pub struct Rendered<'t> {
    tables: &'t [Table],
    pub plain: Vec<Option<List>>,
    pub nested: Vec<Option<List>>,
    previous: Previous<'t>,
    /// By model index, the rows that changed from the served view's, where
    /// nothing else an item of the model reads did ([`Previous::changed_rows`]).
    changed: Vec<Option<Vec<u32>>>,
    /// Whether lists whose items embed records are made of fragments
    /// ([`fragments`]), or every embedded record is copied.
    fragments: bool,
}

impl Embeds for Rendered<'_> {
    fn table(&self, model: Model) -> &Table {
        &self.tables[model.index()]
    }

    fn plain(&self, model: Model, pos: u32) -> &[u8] {
        let list = self.plain[model.index()].as_ref();
        embedded(list.expect("embedded models are rendered first"), pos)
    }

    fn nested(&self, model: Model, pos: u32) -> &[u8] {
        match &self.nested[model.index()] {
            Some(list) => embedded(list, pos),
            None => self.plain(model, pos),
        }
    }
}

/// An embedded record's item: one slice of its list, which is whole (a list
/// made of fragments is one no other list embeds: `fragments::made_of_fragments`).
pub(in crate::view) fn embedded(list: &List, pos: u32) -> &[u8] {
    (list.item(pos as usize)).expect("an embedded record's list is whole")
}

impl Rendered<'_> {
    /// The plain and nested lists, by model index, without the tables.
    pub fn into_lists(self) -> (Vec<Option<List>>, Vec<Option<List>>) {
        (self.plain, self.nested)
    }
}

/// Renders every list of every model, sharing the segments `previous` holds
/// byte for byte.
pub fn render_all<'t>(tables: &'t [Table], previous: Previous<'t>) -> Rendered<'t> {
    let done = Rendered {
        tables,
        plain: (0..tables.len()).map(|_| None).collect(),
        nested: (0..tables.len()).map(|_| None).collect(),
        previous,
        changed: previous.changed_rows(tables),
        fragments: true,
    };
    render_models(done)
}

/// Renders every list as before items were made of fragments: every embedded
/// record copied into each item that embeds it. What the lists made of
/// fragments are checked against, byte for byte (`tests/fragments.rs`).
pub fn render_all_without_fragments(tables: &[Table]) -> Rendered<'_> {
    let done = Rendered {
        tables,
        plain: (0..tables.len()).map(|_| None).collect(),
        nested: (0..tables.len()).map(|_| None).collect(),
        previous: Previous::default(),
        changed: Vec::new(),
        fragments: false,
    };
    render_models(done)
}

/// Renders each model's lists in `Model::ALL` order into `done`; those made
/// of fragments, which no list embeds, are set up last, side by side.
fn render_models(mut done: Rendered<'_>) -> Rendered<'_> {
    let coded = |m: &Model| done.fragments && fragments::made_of_fragments(*m);
    let (later, now): (Vec<Model>, Vec<Model>) = Model::ALL.into_iter().partition(coded);
    for model in now {
        // A model's two shapes only embed models rendered before it: render them
        // side by side.
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
    let shapes = |m: Model| {
        let nested = m.has_nested().then_some((m, Shape::Nested));
        std::iter::once((m, Shape::Plain)).chain(nested)
    };
    let lists: Vec<(Model, Shape)> = later.into_iter().flat_map(shapes).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        while let Some(&(model, shape)) = lists.get(next.fetch_add(1, Ordering::Relaxed)) {
            mine.push((model, shape, render_list(&done, model, shape)));
        }
        mine
    };
    let set_up = std::thread::scope(|scope| {
        let helper = scope.spawn(work);
        let mut set_up = work();
        set_up.extend(helper.join().expect("rendering does not panic"));
        set_up
    });
    for (model, shape, list) in set_up {
        match shape {
            Shape::Plain => done.plain[model.index()] = Some(list),
            Shape::Nested => done.nested[model.index()] = Some(list),
        }
    }
    done
}

/// Where a list is cut into segments: after an item whose record's id the
/// cut picks, so a reload cuts the same records into the same segments
/// wherever they moved in the list (a record removed or added shifts every
/// later item, but no segment boundary), finds the served view's segment for
/// them ([`Previous`]) and keeps it where it renders the same bytes.
#[derive(Clone, Copy, Debug)]
struct Cut {
    /// A segment holds at least this many items (the last may hold fewer)...
    min: usize,
    /// ...then ends after an item whose id's hash is a multiple of this
    /// (one in `spread` ids: segments of `min + spread` items on average)...
    spread: u64,
    /// ...or once it holds this many.
    max: usize,
}

/// Segments of 64 items on average (40 to 160; 64 specimens are about 230 KB):
/// an edit holds a second copy of a few only, and where one item in eighty
/// changed, about 40% of the bytes stay shared (a segment's chance to hold a
/// change grows with its length, so the narrower the spread the more: 34% with
/// 16 to 256, 45% with exactly 64, which a removed record would shift). A
/// removed record renders one segment anew, rarely two.
const SEGMENTS: Cut = Cut {
    min: 40,
    spread: 24,
    max: 160,
};

impl Cut {
    /// Segments of `per` items each, wherever the ids fall.
    #[cfg(test)]
    fn every(per: usize) -> Cut {
        Cut {
            min: per,
            spread: 1,
            max: per,
        }
    }

    /// The first row of each segment of a table of these ids, in order.
    fn starts(self, rows: usize, id: impl Fn(usize) -> i64) -> Vec<usize> {
        let (min, max) = (self.min.max(1), self.max.max(1));
        let mut starts = Vec::with_capacity(rows / min + 1);
        let mut start = 0;
        while start < rows {
            starts.push(start);
            let mut end = (start + min).min(rows);
            while end < rows && end - start < max && !self.picks(id(end - 1)) {
                end += 1;
            }
            start = end;
        }
        starts
    }

    /// Whether a segment may end after the record with this id.
    fn picks(self, id: i64) -> bool {
        // splitmix64's finaliser: neighbouring ids hash far apart.
        let mut z = (id as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)).is_multiple_of(self.spread.max(1))
    }
}

/// Segments a core takes at a time, written one after another into its memory
/// file: a page that crosses from one to the next is still one run of the file
/// (`serve::zero_copy` sends it with one call).
const BLOCK_SEGMENTS: usize = 256;

fn render_list(done: &Rendered, model: Model, shape: Shape) -> List {
    render_segments(done, model, shape, SEGMENTS)
}

/// Renders a list in segments cut by `cut`, a block of them at a time on each
/// core; a list made of fragments is rendered a segment at a time on use
/// instead ([`coded_list`]).
fn render_segments(done: &Rendered, model: Model, shape: Shape, cut: Cut) -> List {
    let started = std::time::Instant::now();
    let table = done.table(model);
    let rows = table.len();
    let mut starts = cut.starts(rows, |p| table.id(p as u32));
    if done.fragments && fragments::made_of_fragments(model) {
        return coded_list(done, (model, shape), starts);
    }
    let segments = starts.len();
    starts.push(rows);
    let blocks = segments.div_ceil(BLOCK_SEGMENTS);
    let changed = done.changed.get(model.index()).and_then(Option::as_deref);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let next = AtomicUsize::new(0);
    let unrendered = AtomicUsize::new(0);
    // Each worker takes the next block until none is left.
    let work = || {
        let mut worker = Worker::new(segments);
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= blocks {
                return worker.finish();
            }
            for k in b * BLOCK_SEGMENTS..((b + 1) * BLOCK_SEGMENTS).min(segments) {
                let items = starts[k]..starts[k + 1];
                let last = k + 1 == segments;
                match served_segment(done, (model, shape), &items, last) {
                    Some((list, held)) if unchanged(changed, &items) && !list.has_fragments() => {
                        unrendered.fetch_add(list.segments[held].len(), Ordering::Relaxed);
                        worker.keep(k, list, held)
                    }
                    previous => {
                        let previous = previous
                            .filter(|(list, _)| !list.has_fragments())
                            .map(|(list, held)| &list.segments[held]);
                        worker.render(done, (model, shape), (k, items), last, previous)
                    }
                }
            }
        }
    };
    let mut written = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..cores.min(blocks)).map(|_| scope.spawn(work)).collect();
        let mut written = work();
        for helper in helpers {
            written.extend(helper.join().expect("rendering does not panic"));
        }
        written
    });
    written.sort_unstable_by_key(|&(k, _)| k);
    let segments = written.into_iter().map(|(_, s)| s).collect();
    let mut list = List::joined(segments);
    list.unrendered = unrendered.into_inner();
    tracing::debug!(
        list = model.path(),
        ?shape,
        segments = list.segments.len(),
        bytes = list.byte_len(),
        ms = started.elapsed().as_millis() as u64,
        "list rendered"
    );
    list
}

/// The served view's segment (its list, and which) that holds the records
/// of `items`, when it is one segment there too and the last there if and
/// only if it is the `last` here.
fn served_segment<'v>(
    done: &Rendered<'v>,
    (model, shape): (Model, Shape),
    items: &Range<usize>,
    last: bool,
) -> Option<(&'v List, usize)> {
    let table = done.table(model);
    let ids = table.id(items.start as u32)..=table.id(items.end as u32 - 1);
    let (list, held) = done.previous.segment(model, shape, ids, items.len())?;
    ((held + 1 == list.segment_count()) == last).then_some((list, held))
}

/// Whether none of the rows `changed` (ascending; `None`: unknown) is in `items`.
fn unchanged(changed: Option<&[u32]>, items: &Range<usize>) -> bool {
    changed.is_some_and(|rows| {
        let after = rows.partition_point(|&p| (p as usize) < items.start);
        rows.get(after).is_none_or(|&p| p as usize >= items.end)
    })
}

/// A list made of fragments in segments starting at `starts`, none rendered
/// but the served view's it keeps (made, and holding no changed row, with
/// references that mean the same): each is rendered on first use or by the
/// view's preparation ([`List::make_all`]). Which items hold a media URL is
/// found now, from the embedded lists' marks, without rendering them.
fn coded_list(done: &Rendered, (model, shape): (Model, Shape), starts: Vec<usize>) -> List {
    let started = std::time::Instant::now();
    let fragments = fragment_table(done, model, shape);
    let rows = done.table(model).len();
    let changed = done.changed.get(model.index()).and_then(Option::as_deref);
    let (mut kept, mut unrendered) = (Vec::new(), 0);
    for (k, &start) in starts.iter().enumerate() {
        let items = start..starts.get(k + 1).copied().unwrap_or(rows);
        let last = k + 1 == starts.len();
        let Some((list, held)) = served_segment(done, (model, shape), &items, last) else {
            continue;
        };
        let alike = match list.items() {
            Items::Coded(theirs) => fragments.same_layout(&theirs.fragments),
            Items::Whole => false,
        };
        if let Some(made) = list
            .made_segment(held)
            .filter(|_| alike && unchanged(changed, &items))
        {
            unrendered += made.bytes.len();
            kept.push((k, made.clone()));
        }
    }
    let media = media_of(done, (model, shape), &fragments);
    let segments = starts.len();
    let coded = Coded::new(
        fragments,
        Maker::new(model, shape, done.tables),
        segments,
        kept,
    );
    let at = |s: usize| u32::try_from(s).expect("a list holds fewer than 2^32 items");
    let mut list = List::coded(rows, starts.into_iter().map(at).collect(), media, coded);
    list.unrendered = unrendered;
    tracing::debug!(
        list = model.path(),
        ?shape,
        segments,
        ms = started.elapsed().as_millis() as u64,
        "list made of fragments set up, its segments rendered on use"
    );
    list
}

/// Which items of `model`'s list in `shape` hold a media URL, as its items
/// made of `fragments` will: those whose own media file is written among
/// their own bytes, and those embedding a record whose item holds one (read
/// from the embedded lists' own marks, for the fields whose lists hold any).
fn media_of(
    done: &Rendered,
    (model, shape): (Model, Shape),
    fragments: &Fragments,
) -> Option<Bits> {
    let table = done.table(model);
    let list = |m: Model, nested: bool| match nested && m.has_nested() {
        true => done.nested[m.index()].as_ref(),
        false => done.plain[m.index()].as_ref(),
    };
    let marked = |m: Model, nested: bool, p: u32| {
        list(m, nested).is_some_and(|l| l.has_media_in(p as usize, p as usize + 1))
    };
    let may_hold = |ty: Type| {
        let (models, nested) = match ty {
            Type::MediaFile => return true,
            Type::Embed(m) | Type::EmbedMany(m) => (vec![m], false),
            Type::Parent(m) if shape == Shape::Nested => (vec![m], true),
            Type::Taxon => (Model::RANKS.to_vec(), false),
            _ => return false,
        };
        models
            .into_iter()
            .any(|m| list(m, nested).is_some_and(List::has_media))
    };
    let fields: Vec<(usize, Type)> = (model.fields().iter().enumerate())
        .filter(|(_, f)| may_hold(f.ty))
        .map(|(i, f)| (i, f.ty))
        .collect();
    if fields.is_empty() {
        return None;
    }
    let holds = |pos: usize| {
        fields.iter().any(|&(f, ty)| match (ty, table.get(pos, f)) {
            (Type::MediaFile, Value::Str(_)) => !fragments.writes_value(f, table.column(f), pos),
            (Type::Parent(_), Value::Ref(m, p)) => marked(m, true, p),
            (_, Value::Ref(m, p)) => marked(m, false, p),
            (_, Value::Refs(m, ps)) => ps.iter().any(|&p| marked(m, false, p)),
            _ => false,
        })
    };
    let mut media = None;
    for pos in 0..table.len() {
        if holds(pos) {
            mark(&mut media, pos, table.len());
        }
    }
    media
}

/// The fragments of a list of `model` made of them: every item of each list,
/// in either shape, of the models its items embed; its repeated values
/// numbered as the served list numbers them, new ones after.
fn fragment_table(done: &Rendered, model: Model, shape: Shape) -> Fragments {
    let mut lists = Vec::new();
    for m in fragments::embedded(model) {
        let shapes = [
            (false, done.plain[m.index()].as_ref()),
            (true, done.nested[m.index()].as_ref()),
        ];
        for (nested, list) in shapes {
            if let Some(list) = list {
                lists.push((m, nested, list.embedded()));
            }
        }
    }
    let served = done
        .previous
        .list(model, shape)
        .and_then(|l| match l.items() {
            Items::Whole => None,
            Items::Coded(coded) => Some(&coded.fragments),
        });
    Fragments::new(model, (done.table(model), served), lists, MEDIA_BASE)
}

/// Lists estimated at this size or more are kept in memory files, from which
/// connections send pages without copying them ([`crate::memfile`]).
const MEMORY_FILE_ABOVE: usize = 1 << 20;

/// A core's share of a list being rendered: the segments it wrote, and its
/// memory file while it writes them.
struct Worker {
    /// How many segments the list has.
    segments: usize,
    /// The segment being rendered.
    out: Vec<u8>,
    file: Option<memfile::Writer>,
    /// Whether it was decided where segments go (a memory file or the heap):
    /// from the first this worker renders, as if every segment were as long.
    decided: bool,
    written: Vec<(usize, Pending)>,
}

/// A segment rendered, its bytes where they are kept.
struct Pending {
    stored: Stored,
    ends: Vec<u64>,
    media: Option<Bits>,
}

enum Stored {
    /// The served view's bytes (the same), or bytes of its own on the heap.
    Bytes(Bytes),
    /// Where its bytes are in the worker's memory file, mapped once it is written.
    File(Range<usize>),
}

impl Worker {
    fn new(segments: usize) -> Worker {
        Worker {
            segments,
            out: Vec::new(),
            file: None,
            decided: false,
            written: Vec::new(),
        }
    }

    /// Renders segment `k`, items `items`, comma-separated, with the comma that
    /// follows it unless it is the `last` (so a run across segments is slices of
    /// them alone); keeps the served view's bytes for them (`previous`) if they
    /// are the same.
    fn render(
        &mut self,
        done: &Rendered,
        (model, shape): (Model, Shape),
        (k, items): (usize, Range<usize>),
        last: bool,
        previous: Option<&Bytes>,
    ) {
        let rows = items.len();
        let out = &mut self.out;
        out.clear();
        let mut ends = Vec::with_capacity(rows);
        let mut media = None;
        for (i, pos) in items.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let start = out.len();
            write_item(out, done, model, pos, shape, None);
            if memchr::memchr(MEDIA_BASE, &out[start..]).is_some() {
                mark(&mut media, i, rows);
            }
            ends.push(out.len() as u64);
        }
        if !last {
            out.push(b',');
        }
        let stored = match previous {
            Some(served) if served[..] == out[..] => Stored::Bytes(served.clone()),
            _ => self.store(),
        };
        let pending = Pending {
            stored,
            ends,
            media,
        };
        self.written.push((k, pending));
    }

    /// Keeps `served`'s segment `held` as segment `k`, unrendered: its records
    /// and everything their items read are the served view's.
    fn keep(&mut self, k: usize, served: &List, held: usize) {
        let items = served.items_of(held);
        let rows = items.len();
        let mut media = None;
        for (i, p) in items.clone().enumerate() {
            if served.media.as_ref().is_some_and(|m| m.contains(p)) {
                mark(&mut media, i, rows);
            }
        }
        let pending = Pending {
            stored: Stored::Bytes(served.segments[held].clone()),
            ends: served.ends[items].to_vec(),
            media,
        };
        self.written.push((k, pending));
    }

    /// Keeps the rendered segment: appended to the memory file, or on the heap.
    fn store(&mut self) -> Stored {
        if !self.decided && self.out.len() * self.segments >= MEMORY_FILE_ABOVE {
            self.file = memfile::Writer::new()
                .inspect_err(|e| tracing::warn!(error = %e, "no memory file; the list stays on the heap and pages are copied as they are sent"))
                .ok();
        }
        self.decided = true;
        if let Some(file) = &mut self.file {
            let at = file.len();
            match file.append(&self.out) {
                Ok(()) => return Stored::File(at..file.len()),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot write to a memory file; the list stays on the heap");
                    self.close();
                }
            }
        }
        Stored::Bytes(Bytes::copy_from_slice(&self.out))
    }

    /// Maps the memory file and hands its segments their parts of it.
    fn close(&mut self) {
        let Some(file) = self.file.take() else { return };
        let mapped = match file.finish() {
            Ok(mapped) => mapped,
            Err(e) => panic!("cannot map a memory file just written: {e}"),
        };
        for (_, pending) in &mut self.written {
            if let Stored::File(range) = &pending.stored {
                pending.stored = Stored::Bytes(mapped.part(range.clone()));
            }
        }
    }

    /// The segments written, by index.
    fn finish(mut self) -> Vec<(usize, Segment)> {
        self.close();
        let segment = |(k, p): (usize, Pending)| {
            let Stored::Bytes(bytes) = p.stored else {
                unreachable!("closing the file maps every segment in it")
            };
            let segment = Segment {
                bytes,
                ends: p.ends,
                media: p.media,
            };
            (k, segment)
        };
        self.written.into_iter().map(segment).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::records::{Collection, Country};
    use crate::view::render::list::Run;
    use crate::view::render::previous::reads;

    fn concatenated(run: &Run) -> Vec<u8> {
        run.parts().concat()
    }

    /// The tables of a collection of `rows` countries named by `name`.
    fn countries(rows: i64, name: impl Fn(i64) -> String) -> Vec<Table> {
        countries_of(1..=rows, name)
    }

    /// The tables of a collection of countries with these ids, named by `name`.
    fn countries_of(ids: impl Iterator<Item = i64>, name: impl Fn(i64) -> String) -> Vec<Table> {
        let countries = ids.map(|id| Country::numbered(id, name(id))).collect();
        crate::view::rows::tables(Collection {
            countries,
            ..Default::default()
        })
    }

    /// Tables with no list rendered yet.
    fn unrendered(tables: &[Table]) -> Rendered<'_> {
        Rendered {
            tables,
            plain: (0..tables.len()).map(|_| None).collect(),
            nested: (0..tables.len()).map(|_| None).collect(),
            previous: Previous::default(),
            changed: Vec::new(),
            fragments: true,
        }
    }

    #[test]
    fn a_list_in_segments_reads_as_the_list_in_one() {
        let tables = countries(7, |id| format!("Land {id}"));
        let done = unrendered(&tables);
        let whole = render_segments(&done, Model::Country, Shape::Plain, Cut::every(7));
        for per in [1, 2, 3, 6] {
            let cut = render_segments(&done, Model::Country, Shape::Plain, Cut::every(per));
            assert_eq!(cut.len(), 7);
            assert_eq!(cut.byte_len(), whole.byte_len());
            for from in 0..=7 {
                for to in from..=7 {
                    assert_eq!(
                        concatenated(&cut.run(from, to)),
                        concatenated(&whole.run(from, to)),
                        "{per} a segment, items {from}..{to}"
                    );
                }
            }
            for i in 0..7 {
                assert_eq!(cut.item(i).unwrap(), whole.item(i).unwrap());
                assert_eq!(cut.item_bytes(i), whole.item(i).unwrap());
            }
        }
        let all = concatenated(&whole.run(0, 7));
        assert!(all.starts_with(b"{\"id\":1,") && all.ends_with(b"}"));
        assert_eq!(all.iter().filter(|&&b| b == b'{').count(), 7);
        assert!(
            matches!(render_segments(&done, Model::Country, Shape::Plain, Cut::every(3)).run(2, 5), Run::Many(ref p) if p.len() == 2)
        );
    }

    #[test]
    fn a_long_list_is_kept_in_memory_files_item_for_item() {
        let rows = 20_000;
        let tables = countries(rows, |id| format!("Land {id} {}", "long name ".repeat(8)));
        let done = unrendered(&tables);
        let list = render_segments(&done, Model::Country, Shape::Plain, Cut::every(10_000));
        assert!(list.byte_len() > 2 * MEMORY_FILE_ABOVE);
        if cfg!(target_os = "linux") {
            for segment in &list.segments {
                assert!(memfile::locate(segment).is_some(), "a segment on the heap");
            }
        }
        let n = rows as usize;
        let mut all = Vec::new();
        for i in 0..n {
            let item = list.item(i).unwrap();
            let id = format!("{{\"id\":{},", i + 1);
            assert!(
                item.starts_with(id.as_bytes()) && item.ends_with(b"}"),
                "item {i}"
            );
            if i > 0 {
                all.push(b',');
            }
            all.extend_from_slice(item);
        }
        assert_eq!(concatenated(&list.run(0, n)), all);
        assert_eq!(list.byte_len(), all.len());
        let seam = n / 2;
        let across = concatenated(&list.run(seam - 3, seam + 3));
        assert!(
            across.starts_with(list.item(seam - 3).unwrap())
                && across.ends_with(list.item(seam + 2).unwrap())
        );
    }

    #[test]
    fn a_reload_shares_the_segments_whose_bytes_did_not_change() {
        // Long names put segments of 5,000 items in memory files; short ones
        // keep them on the heap.
        for repeat in [1, 20] {
            let rows = 20_000;
            let name = |id| format!("Land {id} {}", "long name ".repeat(repeat));
            let before = countries(rows, name);
            let mut plain: Vec<List> = Model::ALL.iter().map(|_| List::default()).collect();
            let served = render_segments(
                &unrendered(&before),
                Model::Country,
                Shape::Plain,
                Cut::every(5_000),
            );
            plain[Model::Country.index()] = served;
            let served = &plain[Model::Country.index()];
            // The last item of the first segment and one in the third are renamed.
            let after = countries(rows, |id| match id {
                5_000 | 12_345 => format!("Renamed {id}"),
                _ => name(id),
            });
            let mut done = unrendered(&after);
            done.previous = Previous::new(&before, &plain, &[]);
            let list = render_segments(&done, Model::Country, Shape::Plain, Cut::every(5_000));
            let shared: Vec<bool> = (list.segments.iter().zip(&served.segments))
                .map(|(new, old)| new.as_ptr() == old.as_ptr() && new.len() == old.len())
                .collect();
            assert_eq!(shared, [false, true, false, true], "names {repeat}");
            if repeat == 20 && cfg!(target_os = "linux") {
                assert!(list.segments.iter().all(|s| memfile::locate(s).is_some()));
            }
            let fresh = render_segments(
                &unrendered(&after),
                Model::Country,
                Shape::Plain,
                Cut::every(5_000),
            );
            let n = rows as usize;
            assert_eq!(
                concatenated(&list.run(0, n)),
                concatenated(&fresh.run(0, n))
            );
            for i in [0, 4_998, 4_999, 5_000, 12_344, 19_999] {
                assert_eq!(list.item(i).unwrap(), fresh.item(i).unwrap(), "item {i}");
            }
            // Segments of other items share nothing, and still read right.
            let other = render_segments(&done, Model::Country, Shape::Plain, Cut::every(4_000));
            assert!(other
                .segments
                .iter()
                .all(|s| served.segments.iter().all(|o| s.as_ptr() != o.as_ptr())));
            assert_eq!(
                concatenated(&other.run(0, n)),
                concatenated(&fresh.run(0, n))
            );
        }
    }

    #[test]
    fn a_reload_with_changes_spread_out_shares_every_segment_without_one() {
        let rows = 20_000;
        let name = |id| format!("Land {id} {}", "long name ".repeat(20));
        let before = countries(rows, name);
        let mut plain: Vec<List> = Model::ALL.iter().map(|_| List::default()).collect();
        plain[Model::Country.index()] =
            render_list(&unrendered(&before), Model::Country, Shape::Plain);
        let served = &plain[Model::Country.index()];
        // One item in 500 renamed: 40 of the 313 segments of 64 hold one.
        let after = countries(rows, |id| match id % 500 {
            0 => format!("Renamed {id}"),
            _ => name(id),
        });
        let mut done = unrendered(&after);
        done.previous = Previous::new(&before, &plain, &[]);
        let list = render_list(&done, Model::Country, Shape::Plain);
        // Ids 500, 1000, ... are at positions 499, 999, ...; segments hold at
        // most 160 items, so 40 hold one each.
        let renamed: Vec<bool> = (0..list.segments.len())
            .map(|k| list.items_of(k).any(|p| (p + 1) % 500 == 0))
            .collect();
        assert_eq!(renamed.iter().filter(|&&r| r).count(), 40);
        let shared = held_from(&list, served);
        assert_eq!(shared, renamed.iter().map(|r| !r).collect::<Vec<_>>());
        assert!(
            (250..400).contains(&list.segments.len()),
            "{}",
            list.segments.len()
        );
        // Their bytes are what the reload reports shared (the longer segments,
        // likelier to hold a renamed item, are the ones rendered anew).
        let unchanged = (list.segments.iter().zip(&renamed))
            .filter(|(_, &r)| !r)
            .map(|(s, _)| s.len())
            .sum::<usize>();
        let mut lists: Vec<List> = Model::ALL.iter().map(|_| List::default()).collect();
        lists[Model::Country.index()] = list;
        assert_eq!(done.previous.shared_bytes(&lists, &[]), unchanged);
        let list = &lists[Model::Country.index()];
        let fresh = render_list(&unrendered(&after), Model::Country, Shape::Plain);
        let n = rows as usize;
        assert_eq!(
            concatenated(&list.run(0, n)),
            concatenated(&fresh.run(0, n))
        );
        for (from, to) in [(0, 64), (60, 70), (499, 501), (19_990, 20_000)] {
            assert_eq!(
                concatenated(&list.run(from, to)),
                concatenated(&fresh.run(from, to))
            );
        }
    }

    #[test]
    fn an_item_reads_its_models_tables_and_those_it_refers_to_in_turn() {
        assert_eq!(reads(Model::Country), [Model::Country]);
        let specimen = reads(Model::SpecimenRecord);
        for m in [
            Model::Person,
            Model::Gps,
            Model::Locality,
            Model::Country,
            Model::Order,
        ] {
            assert!(specimen.contains(&m), "{m:?} in {specimen:?}");
        }
        // A species embeds its featured image.
        assert!(specimen.contains(&Model::Image), "{specimen:?}");
        assert!(!specimen.contains(&Model::Page), "{specimen:?}");
    }

    /// Per segment of `list`, whether it is one of `served`'s.
    fn held_from(list: &List, served: &List) -> Vec<bool> {
        let held = |s: &Bytes| served.segments.iter().any(|o| o.as_ptr() == s.as_ptr());
        list.segments.iter().map(held).collect()
    }

    #[test]
    fn a_record_removed_or_added_moves_no_segment_but_its_own() {
        let name = |id| format!("Land {id} {}", "long name ".repeat(20));
        let before = countries(20_000, name);
        let mut plain: Vec<List> = Model::ALL.iter().map(|_| List::default()).collect();
        plain[Model::Country.index()] =
            render_list(&unrendered(&before), Model::Country, Shape::Plain);
        let served = &plain[Model::Country.index()];
        // Id 100 removed: every later item moves up one place. Id 20,001 added.
        let after = countries_of((1..=20_001).filter(|&id| id != 100), name);
        let mut done = unrendered(&after);
        done.previous = Previous::new(&before, &plain, &[]);
        let list = render_list(&done, Model::Country, Shape::Plain);
        let shared = held_from(&list, served);
        let anew: Vec<usize> = (0..shared.len()).filter(|&k| !shared[k]).collect();
        // The segment that held id 100 and the last one (the boundary a cut
        // picks near either may move to the next pick: one more each).
        let of = |p: usize| list.segment(p);
        assert!(
            anew.contains(&of(98)) && anew.contains(&of(19_999)),
            "{anew:?}"
        );
        assert!(
            anew.len() <= 4,
            "rendered anew: {anew:?} of {}",
            shared.len()
        );
        let fresh = render_list(&unrendered(&after), Model::Country, Shape::Plain);
        assert_eq!(
            concatenated(&list.run(0, 20_000)),
            concatenated(&fresh.run(0, 20_000))
        );
        // Cut by position instead, every segment after the removal moves.
        let mut plain: Vec<List> = Model::ALL.iter().map(|_| List::default()).collect();
        plain[Model::Country.index()] = render_segments(
            &unrendered(&before),
            Model::Country,
            Shape::Plain,
            Cut::every(64),
        );
        done.previous = Previous::new(&before, &plain, &[]);
        let by_place = render_segments(&done, Model::Country, Shape::Plain, Cut::every(64));
        let kept = held_from(&by_place, &plain[Model::Country.index()]);
        assert_eq!(kept.iter().filter(|&&k| k).count(), 1, "only the first");
    }

    #[test]
    fn segments_are_cut_within_their_bounds_after_the_ids_a_cut_picks() {
        let starts = SEGMENTS.starts(100_000, |p| p as i64 * 7);
        assert_eq!(starts[0], 0);
        let lens: Vec<usize> = starts
            .windows(2)
            .map(|w| w[1] - w[0])
            .chain([100_000 - starts[starts.len() - 1]])
            .collect();
        let (min, max) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
        assert!(*min >= SEGMENTS.min && *max <= SEGMENTS.max, "{min}..{max}");
        let mean = 100_000 / lens.len();
        assert!((56..72).contains(&mean), "{mean} items a segment");
        for w in starts.windows(2) {
            let len = w[1] - w[0];
            let last = (w[1] - 1) as i64 * 7;
            assert!(len == SEGMENTS.max || SEGMENTS.picks(last), "{w:?}");
        }
    }

    #[test]
    fn a_list_knows_which_items_hold_media() {
        let m = MEDIA_BASE as char;
        // Items 0..130, those divisible by 50 holding a marker.
        let mut bytes = Vec::new();
        let mut ends = Vec::new();
        for i in 0..130 {
            if i > 0 {
                bytes.push(b',');
            }
            let item = match i % 50 {
                0 => format!("{{\"url\":\"{m}a.jpg\"}}"),
                _ => format!("{{\"id\":{i}}}"),
            };
            bytes.extend_from_slice(item.as_bytes());
            ends.push(bytes.len() as u64);
        }
        let list = List::new(bytes, ends);
        assert!(list.has_media());
        let marked = |from, to| list.has_media_in(from, to);
        assert!(marked(0, 1) && marked(49, 51) && marked(100, 130));
        assert!(!marked(1, 50) && !marked(51, 100) && !marked(101, 130) && !marked(7, 7));
        for (i, holds) in (0..130).map(|i| (i, marked(i, i + 1))) {
            assert_eq!(
                holds,
                list.item(i).unwrap().contains(&MEDIA_BASE),
                "item {i}"
            );
        }
        // The same items in segments of 40: the bits follow the items.
        let (bytes, ends): (Vec<Vec<u8>>, Vec<Vec<u64>>) = (0..130)
            .collect::<Vec<usize>>()
            .chunks(40)
            .map(|items| {
                let last = items[items.len() - 1];
                let mut run = concatenated(&list.run(items[0], last + 1));
                if last + 1 < 130 {
                    run.push(b',');
                }
                let first = list.run(0, items[0]).len() + usize::from(items[0] > 0);
                let ends = items
                    .iter()
                    .map(|&i| (list.run(0, i + 1).len() - first) as u64);
                (run, ends.collect())
            })
            .unzip();
        let segments = bytes
            .into_iter()
            .zip(ends)
            .map(|(b, e)| Segment::on_heap(b, e));
        let cut = List::joined(segments.collect());
        for i in 0..130 {
            assert_eq!(cut.item(i).unwrap(), list.item(i).unwrap());
            assert_eq!(cut.has_media_in(i, i + 1), marked(i, i + 1), "item {i}");
        }
        let plain = List::new(b"{},{}".to_vec(), vec![2, 5]);
        assert!(!plain.has_media() && !plain.has_media_in(0, 2));
    }
}
