//! A rendered list: its items, comma-separated, in segments, and where each
//! one is; the runs of consecutive items cut from it.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use super::coded::{Coded, Made};
use super::write::{write_spliced, MEDIA_BASE};
use crate::view::bits::Bits;
use crate::view::fragments::Embedded;

/// One rendered list: the items, comma-separated, and where each one is.
#[derive(Debug, Default)]
pub struct List {
    /// Items `starts[k]..starts[k + 1]` are in segment `k`, comma-separated,
    /// each segment but the last followed by the comma before the next
    /// (held here for a list of whole items; made of fragments, in [`Coded`]).
    pub(super) segments: Vec<Bytes>,
    /// The first item of each segment.
    pub(super) starts: Vec<u32>,
    /// How many items it has.
    len: usize,
    /// Where each item ends in its segment; the next starts after the comma that
    /// follows (one number an item, not two: 16 MB less at a million). Made of
    /// fragments, each segment says it.
    pub(super) ends: Vec<u64>,
    /// The items holding a media URL (a file, or a featured image's); `None`
    /// when none does. An answer cut from the list then depends on the media
    /// base, and only a run holding such an item needs it spliced in.
    pub(super) media: Option<Bits>,
    /// The bytes of its segments a reload took from the served view's list
    /// without rendering them: their records, and all their items read, were
    /// the served view's.
    pub(super) unrendered: usize,
    /// What its segments hold: its items whole, or coded.
    pub(super) items: Items,
    /// How many media URLs' markers each item holds (of a list of whole
    /// items), counted the first time a list made of fragments embeds it.
    markers: OnceLock<Arc<[u32]>>,
}

/// What a list's segments hold, by the kind of list it is.
#[derive(Debug, Default)]
pub enum Items {
    /// Its items' bytes: an item is one slice of its segment, which a list
    /// embedding it copies.
    #[default]
    Whole,
    /// Its items' own bytes, coded, each segment made on first use (a list
    /// no other list embeds, whose items embed records: the specimens';
    /// `view::fragments`).
    Coded(Box<Coded>),
}

impl List {
    /// A list of items written one after another, comma-separated, ending where `ends` say.
    pub(in crate::view) fn new(bytes: Vec<u8>, ends: Vec<u64>) -> List {
        List::joined(vec![Segment::on_heap(bytes, ends)])
    }

    /// A list of segments rendered apart, in order.
    pub(super) fn joined(segments: Vec<Segment>) -> List {
        let items = segments.iter().map(|s| s.ends.len()).sum();
        let mut list = List {
            segments: Vec::with_capacity(segments.len()),
            starts: Vec::with_capacity(segments.len()),
            len: items,
            ends: Vec::with_capacity(items),
            ..List::default()
        };
        for segment in segments {
            let start = list.ends.len();
            for i in segment.media.iter().flat_map(Bits::positions) {
                mark(&mut list.media, start + i, items);
            }
            list.starts
                .push(u32::try_from(start).expect("a list holds fewer than 2^32 items"));
            list.ends.extend_from_slice(&segment.ends);
            list.segments.push(segment.bytes);
        }
        list
    }

    /// A list made of fragments, of `len` items in segments starting at
    /// `starts`, those of `media` holding a media URL: `coded` makes each
    /// segment on first use.
    pub(super) fn coded(len: usize, starts: Vec<u32>, media: Option<Bits>, coded: Coded) -> List {
        List {
            starts,
            len,
            media,
            items: Items::Coded(Box::new(coded)),
            ..List::default()
        }
    }

    /// Whether an item holds a media URL.
    pub fn has_media(&self) -> bool {
        self.media.is_some()
    }

    /// Whether any of items `from..to` holds a media URL (cheap for a page:
    /// a bit an item, no scan of its bytes).
    pub fn has_media_in(&self, from: usize, to: usize) -> bool {
        self.media.as_ref().is_some_and(|m| m.any_in(from, to))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The segment item `i` is in.
    pub(super) fn segment(&self, i: usize) -> usize {
        self.starts
            .partition_point(|&s| s as usize <= i)
            .saturating_sub(1)
    }

    /// How many segments it has.
    pub(super) fn segment_count(&self) -> usize {
        self.starts.len()
    }

    /// Items `starts[k]..` up to the next segment's first.
    pub(super) fn items_of(&self, k: usize) -> Range<usize> {
        let end = self.starts.get(k + 1).map_or(self.len(), |&s| s as usize);
        self.starts[k] as usize..end
    }

    /// What its segments hold.
    pub fn items(&self) -> &Items {
        &self.items
    }

    /// Whether its items are made of fragments ([`Items::Coded`]).
    pub fn has_fragments(&self) -> bool {
        matches!(self.items, Items::Coded(_))
    }

    /// Segment `k` of a list made of fragments, made now if it was not.
    fn made<'a>(&'a self, coded: &'a Coded, k: usize) -> &'a Made {
        coded.segment(k, self.items_of(k), k + 1 == self.starts.len())
    }

    /// Segment `k` of a list made of fragments, if it is made: what a reload
    /// keeps of the served view's.
    pub(super) fn made_segment(&self, k: usize) -> Option<&Made> {
        match &self.items {
            Items::Whole => None,
            Items::Coded(coded) => coded.made(k),
        }
    }

    /// Whether every segment holding items `items` is rendered (always, but
    /// for a list made of fragments: [`List::make_in`]).
    pub fn made_in(&self, items: Range<usize>) -> bool {
        let Items::Coded(coded) = &self.items else {
            return true;
        };
        self.by_segment(items).all(|(k, _)| coded.made(k).is_some())
    }

    /// Renders every segment holding items `items` not rendered yet, on
    /// this thread (a blocking call: on the pool's threads).
    pub fn make_in(&self, items: Range<usize>) {
        let Items::Coded(coded) = &self.items else {
            return;
        };
        for (k, _) in self.by_segment(items) {
            self.made(coded, k);
        }
    }

    /// Items `items` cut where segments end: each segment's index, and
    /// which of the items are in it.
    fn by_segment(&self, items: Range<usize>) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
        let end = items.end.min(self.len());
        let mut i = items.start;
        std::iter::from_fn(move || {
            (i < end).then(|| {
                let k = self.segment(i);
                let run = i..self.items_of(k).end.min(end);
                i = run.end;
                (k, run)
            })
        })
    }

    /// Renders every segment of a list made of fragments not made yet, on
    /// this thread and `helpers` more, until `wanted` says it no longer is
    /// (the view was replaced); says how many segments it made.
    pub fn make_all(&self, helpers: usize, wanted: &(dyn Fn() -> bool + Sync)) -> usize {
        let Items::Coded(coded) = &self.items else {
            return 0;
        };
        let before = coded.made_count();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if k >= self.starts.len() || !wanted() {
                return;
            }
            self.made(coded, k);
        };
        std::thread::scope(|scope| {
            (0..helpers).for_each(|_| {
                scope.spawn(work);
            });
            work();
        });
        coded.made_count() - before
    }

    /// The bytes of item `i` as one slice, which an item embedding it copies:
    /// `None` for a list made of fragments, whose item is its pieces
    /// ([`List::item_bytes`] copies them together).
    pub fn item(&self, i: usize) -> Option<&[u8]> {
        match self.items {
            Items::Whole => Some(self.own(i)),
            Items::Coded(_) => None,
        }
    }

    /// Item `i`'s bytes in its segment: the item itself, or its coded bytes.
    fn own(&self, i: usize) -> &[u8] {
        let k = self.segment(i);
        match &self.items {
            Items::Whole => {
                let start = self.start_in(k, i);
                &self.segments[k][start..self.ends[i] as usize]
            }
            Items::Coded(coded) => self.made(coded, k).own(i - self.starts[k] as usize),
        }
    }

    /// How many bytes item `i` takes.
    pub fn item_len(&self, i: usize) -> usize {
        match &self.items {
            Items::Whole => self.own(i).len(),
            Items::Coded(_) => self.measure(i..i + 1).0,
        }
    }

    /// How many media URLs' markers item `i` holds, where counted (made of
    /// fragments).
    pub fn markers(&self, i: usize) -> Option<usize> {
        match &self.items {
            Items::Whole => None,
            Items::Coded(_) => Some(self.measure(i..i + 1).1),
        }
    }

    /// The bytes items `items` of a list made of fragments stand for (commas
    /// not counted), and the media URLs' markers they hold: a sum a segment.
    fn measure(&self, items: Range<usize>) -> (usize, usize) {
        let Items::Coded(coded) = &self.items else {
            unreachable!("measured only made of fragments")
        };
        let (mut len, mut markers) = (0, 0);
        for (k, run) in self.by_segment(items) {
            let first = self.starts[k] as usize;
            let (l, m) = self
                .made(coded, k)
                .measure(run.start - first..run.end - first);
            (len, markers) = (len + l, markers + m);
        }
        (len, markers)
    }

    /// Appends item `i`'s bytes.
    pub fn append_item(&self, i: usize, out: &mut Vec<u8>) {
        self.expand_into(self.own(i), out);
    }

    /// Item `i` as a shared slice of the buffer (no copy), or, made of
    /// fragments, its bytes copied together.
    pub fn item_bytes(&self, i: usize) -> Bytes {
        match self.items {
            Items::Whole => {
                let k = self.segment(i);
                let start = self.start_in(k, i);
                self.segments[k].slice(start..self.ends[i] as usize)
            }
            Items::Coded(_) => {
                let mut out = Vec::with_capacity(self.item_len(i));
                self.append_item(i, &mut out);
                Bytes::from(out)
            }
        }
    }

    /// Appends the bytes that `own` (a run of a segment's bytes) stands for:
    /// itself, or made of fragments, the pieces it is coded as.
    fn expand_into(&self, own: &[u8], out: &mut Vec<u8>) {
        match &self.items {
            Items::Whole => out.extend_from_slice(own),
            Items::Coded(coded) => coded.fragments.expand_into(own, out),
        }
    }

    /// Where item `i` starts in segment `k` of a list of whole items.
    fn start_in(&self, k: usize, i: usize) -> usize {
        match self.starts[k] as usize == i {
            true => 0,
            false => self.ends[i - 1] as usize + 1,
        }
    }

    /// Items `from..to`, with their separating commas, as shared slices (no copy).
    pub fn run(&self, from: usize, to: usize) -> Run {
        if from >= to {
            return Run::default();
        }
        // Made of fragments, its pieces (dozens an item) are copied into one
        // buffer: handed out one by one they took ten times as long to send.
        if let Items::Coded(_) = self.items {
            let mut out = Vec::with_capacity(self.run_len(from..to, false, None));
            self.write_run(from..to, false, None, &mut out);
            return Run::One(Bytes::from(out));
        }
        let (first, last) = (self.segment(from), self.segment(to - 1));
        let (start, end) = (self.start_in(first, from), self.ends[to - 1] as usize);
        if first == last {
            return Run::One(self.segments[first].slice(start..end));
        }
        // A segment's bytes end with the comma before the next.
        let mut parts = vec![self.segments[first].slice(start..)];
        for k in first + 1..=last {
            parts.push(match k == last {
                true => self.segments[k].slice(..end),
                false => self.segments[k].clone(),
            });
        }
        Run::Many(parts)
    }

    /// Its items as a list made of fragments embeds them: where each lies in
    /// its segments, which the fragments share, and how many media URLs'
    /// markers each holds.
    pub(super) fn embedded(&self) -> Embedded {
        let mut embedded = Embedded::default();
        let count = |i: usize| match self.has_media_in(i, i + 1) {
            true => memchr::memchr_iter(MEDIA_BASE, self.own(i)).count() as u32,
            false => 0,
        };
        embedded.counted(Arc::clone(
            self.markers
                .get_or_init(|| (0..self.len()).map(count).collect()),
        ));
        for (k, segment) in self.segments.iter().enumerate() {
            embedded.segment(segment.clone());
            let mut start = 0;
            for i in self.items_of(k) {
                embedded.item(start..self.ends[i] as usize);
                start = self.ends[i] as usize + 1;
            }
        }
        embedded
    }

    /// Items `items`, comma-separated (after a comma too when
    /// `after_comma`), appended to `out` in one copy (made of fragments,
    /// their pieces copied together) with `base`, if given, in place of every
    /// media URL's marker: a piece of a long slice, made as it is sent
    /// ([`List::run_len`] says its length).
    pub fn write_run(
        &self,
        items: Range<usize>,
        after_comma: bool,
        base: Option<&[u8]>,
        out: &mut Vec<u8>,
    ) {
        let mut marked = Vec::new();
        for (k, run) in self.by_segment(items.clone()) {
            let first = self.starts[k] as usize;
            for i in run {
                if i > items.start || after_comma {
                    out.push(b',');
                }
                let (own, holds_media) = match &self.items {
                    Items::Whole => (self.own(i), self.has_media_in(i, i + 1)),
                    Items::Coded(coded) => {
                        let (made, j) = (self.made(coded, k), i - first);
                        (made.own(j), made.measure(j..j + 1).1 > 0)
                    }
                };
                match base.filter(|_| holds_media) {
                    Some(base) => {
                        marked.clear();
                        self.expand_into(own, &mut marked);
                        write_spliced(out, &marked, base).expect("writing to memory");
                    }
                    None => self.expand_into(own, out),
                }
            }
        }
    }

    /// How many bytes [`List::write_run`] appends for `items` with `base`.
    pub fn run_len(&self, items: Range<usize>, after_comma: bool, base: Option<&[u8]>) -> usize {
        let commas = items.len().saturating_sub(usize::from(!after_comma));
        let (len, markers) = match &self.items {
            Items::Whole => items.fold((0, 0), |(len, markers), i| {
                let own = self.own(i);
                let held = match base.is_some() && self.has_media_in(i, i + 1) {
                    true => memchr::memchr_iter(MEDIA_BASE, own).count(),
                    false => 0,
                };
                (len + own.len(), markers + held)
            }),
            Items::Coded(_) => self.measure(items),
        };
        let items = match base {
            Some(base) => len - markers + markers * base.len(),
            None => len,
        };
        items + commas
    }

    /// The bytes of its item index (where each item ends, and made of
    /// fragments, how long it is and its fragments' table), for reports.
    pub fn index_bytes(&self) -> usize {
        let coded = match &self.items {
            Items::Whole => 0,
            Items::Coded(c) => c.index_bytes(),
        };
        self.ends.capacity() * 8
            + self.starts.capacity() * 4
            + self.media.as_ref().map_or(0, Bits::heap_bytes)
            + coded
    }

    /// The size of the list's items with their commas, as answers send them
    /// (made of fragments, every segment is made first).
    pub fn byte_len(&self) -> usize {
        match &self.items {
            Items::Whole => self.own_bytes(),
            Items::Coded(_) => self.run_len(0..self.len(), false, None),
        }
    }

    /// The bytes of its items, with their commas, as answers send them, as
    /// far as rendered (made of fragments, the segments made so far).
    pub fn rendered_len(&self) -> usize {
        let Items::Coded(coded) = &self.items else {
            return self.own_bytes();
        };
        let made = (0..self.segment_count()).filter_map(|k| Some((k, coded.made(k)?)));
        let segment = |(k, made): (usize, &Made)| {
            let items = self.items_of(k).len();
            let commas = items - usize::from(k + 1 == self.segment_count());
            made.measure(0..items).0 + commas
        };
        made.map(segment).sum()
    }

    /// The segments' bytes made so far.
    pub(super) fn segment_bytes(&self) -> Box<dyn Iterator<Item = &Bytes> + '_> {
        match &self.items {
            Items::Whole => Box::new(self.segments.iter()),
            Items::Coded(coded) => Box::new(coded.made_so_far().map(|m| &m.bytes)),
        }
    }

    /// The bytes its segments hold: its items' own bytes and commas (all of
    /// them for a list not made of fragments; coded, as far as made, for
    /// one made of them).
    pub fn own_bytes(&self) -> usize {
        self.segment_bytes().map(Bytes::len).sum()
    }

    /// The bytes of the fragments its items refer to: items of the lists
    /// they embed, held by those lists.
    pub fn fragment_bytes(&self) -> usize {
        match &self.items {
            Items::Whole => 0,
            Items::Coded(coded) => coded.fragments.byte_len(),
        }
    }

    /// How many of its bytes a reload kept from the served view unrendered.
    pub fn unrendered_bytes(&self) -> usize {
        self.unrendered
    }
}

/// Consecutive items rendered together: their bytes, where each ends, and
/// which hold a media URL.
pub(super) struct Segment {
    pub(super) bytes: Bytes,
    pub(super) ends: Vec<u64>,
    pub(super) media: Option<Bits>,
}

/// Marks item `i` of `items` as holding a media URL.
pub(super) fn mark(media: &mut Option<Bits>, i: usize, items: usize) {
    media.get_or_insert_with(|| Bits::none(items)).set(i);
}

impl Segment {
    /// Items written one after another, comma-separated, ending where `ends` say.
    pub(super) fn on_heap(bytes: Vec<u8>, ends: Vec<u64>) -> Segment {
        let mut media = None;
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            if memchr::memchr(MEDIA_BASE, &bytes[start..end as usize]).is_some() {
                mark(&mut media, i, ends.len());
            }
            start = end as usize + 1;
        }
        Segment {
            media,
            bytes: Bytes::from(bytes),
            ends,
        }
    }
}

/// Consecutive items of a list, comma-separated: one shared slice of a
/// rendered list, or several where they cross segments or were written anew.
#[derive(Clone, Debug)]
pub enum Run {
    One(Bytes),
    Many(Vec<Bytes>),
}

impl Default for Run {
    fn default() -> Run {
        Run::One(Bytes::new())
    }
}

impl From<Bytes> for Run {
    fn from(bytes: Bytes) -> Run {
        Run::One(bytes)
    }
}

impl Run {
    /// Its bytes, in order.
    pub fn parts(&self) -> &[Bytes] {
        match self {
            Run::One(bytes) => std::slice::from_ref(bytes),
            Run::Many(parts) => parts,
        }
    }

    pub fn into_parts(self) -> Vec<Bytes> {
        match self {
            Run::One(bytes) => vec![bytes],
            Run::Many(parts) => parts,
        }
    }

    pub fn len(&self) -> usize {
        self.parts().iter().map(Bytes::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
