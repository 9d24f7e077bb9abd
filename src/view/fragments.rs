//! Items made of fragments: a list whose items embed records (a specimen's
//! taxa, places, people, trip) holds only each item's own bytes, coded: where
//! an embedded record goes, a reference to a shared fragment (the record's
//! item in its own list, rendered once: the service's exact JSON); where one
//! of the item's keys goes, a reference to it, each key of the model written
//! once; and where a field whose values repeat (a sex, a month, a method, a
//! date) goes, key and value, a reference to them, each written once.
//!
//! A list is made of fragments when its items embed others and no list embeds
//! its items (an embedded record is copied from one slice of its list's bytes,
//! [`super::render::Embeds`]). [`super::render::List`] cuts a page from them:
//! the own bytes between references, and the fragments and keys they name,
//! copied together.
//!
//! The coding needs no index beside the bytes: JSON output never holds a raw
//! control character (strings escape them), so [`KEY`], [`FRAGMENT`] and
//! [`VALUE`] mark a reference, followed by the field's number (one byte, its
//! high bit set when the comma before the key goes too), the fragment's
//! number, or the field's and its value's (numbers other than a field's are
//! LEB128: 7 bits a byte, the high bit set on all but the last); a reader
//! finds the marks (a few bytes a byte at a time, then with `memchr`) and
//! steps over the numbers.

use std::ops::Range;

use bytes::Bytes;

use crate::encoding::json::write_str;
use crate::model::{Field, Model, Type};

use super::column::{Column, NULL_BOOL};
use super::table::Table;

/// A field's values are written once and referred to when its rows hold, on
/// average, each of them this many times or more.
const REPEATED: usize = 4;

/// Whether the items of `model`'s lists are made of fragments: they embed
/// records, and no model embeds them.
pub fn made_of_fragments(model: Model) -> bool {
    !embedded(model).is_empty()
        && Model::ALL
            .iter()
            .all(|&other| !embedded(other).contains(&model))
}

/// The models whose records an item of `model` embeds, in either shape (not
/// only names by id).
pub fn embedded(model: Model) -> Vec<Model> {
    let mut found = Vec::new();
    for field in model.fields() {
        let named = match field.ty {
            Type::Parent(m) | Type::Embed(m) | Type::EmbedMany(m) => vec![m],
            Type::Taxon => Model::RANKS.to_vec(),
            _ => Vec::new(),
        };
        for m in named {
            if !found.contains(&m) {
                found.push(m);
            }
        }
    }
    found
}

/// The fragments a list's items refer to: every item of each list they embed
/// (in one shape), in one table, shared with those lists rather than copied.
///
/// A page is copied from it a few bytes at a time, a hundred times an item,
/// so what it looks up lies close together: each fragment is a span of one
/// of a few buffers, and the keys and the values lie end to end ([`PackedStrings`]),
/// not each behind a handle of its own (a page's copy waited on the cache for
/// most of those handles).
#[derive(Debug, Default)]
pub struct Fragments {
    /// Each embedded list, in order: its model, whether it is the nested
    /// shape, its first fragment and how many items it has.
    lists: Vec<(Model, bool, u32, u32)>,
    /// By model index, twice (plain, nested): which of `lists` it is, found
    /// once per reference without a search.
    list_of: Vec<Option<u32>>,
    /// The buffers the fragments lie in: their lists' segments.
    buffers: Vec<Bytes>,
    /// Where each fragment lies.
    spans: Vec<Span>,
    /// How many media URLs' markers each fragment holds.
    markers: Vec<u32>,
    /// Each field's key as the item writes it after a comma (`,"name":`), by
    /// field.
    keys: PackedStrings,
    /// By field, for those whose values repeat: each value with its key,
    /// after a comma (`,"name":value`), numbered in the order first met, the
    /// served list's first (so a reload keeps the segments whose records did
    /// not change).
    values: Vec<Option<PackedStrings>>,
    /// By field written once, each value's number by its code in its column
    /// (a string's code, a boolean's byte).
    numbers: Vec<Vec<u32>>,
    /// The byte that marks a media URL.
    marker: u8,
}

impl Fragments {
    /// A table for items of `model` (whose records `rows` holds): its keys,
    /// the values of its fields whose values repeat (or that the `served`
    /// table wrote once), and the items of each list given (model, nested
    /// shape, items); each `marker` byte in them marks a media URL.
    pub fn new(
        model: Model,
        (rows, served): (&Table, Option<&Fragments>),
        lists: impl IntoIterator<Item = (Model, bool, Embedded)>,
        marker: u8,
    ) -> Fragments {
        let key = |field: &Field| {
            let mut key = Vec::with_capacity(field.name.len() + 4);
            key.push(b',');
            write_str(&mut key, field.name);
            key.push(b':');
            key
        };
        let fields = model.fields();
        let (mut values, mut numbers) = (Vec::new(), Vec::new());
        for (f, field) in fields.iter().enumerate() {
            let before = served.and_then(|s| s.values[f].as_ref());
            let column = (rows.column(f), rows.len());
            match repeated_values(field, column, key(field), before) {
                Some((written, numbered)) => {
                    values.push(Some(written));
                    numbers.push(numbered);
                }
                None => {
                    values.push(None);
                    numbers.push(Vec::new());
                }
            }
        }
        let mut keys = PackedStrings::default();
        fields.iter().for_each(|f| keys.push(&key(f)));
        let mut table = Fragments {
            keys,
            values,
            numbers,
            marker,
            ..Fragments::default()
        };
        table.list_of = vec![None; Model::ALL.len() * 2];
        for (model, nested, items) in lists {
            table.list_of[model.index() * 2 + usize::from(nested)] = Some(table.lists.len() as u32);
            let first = table.spans.len() as u32;
            table
                .lists
                .push((model, nested, first, items.spans.len() as u32));
            let buffer = u32::try_from(table.buffers.len()).expect("fewer than 2^32 buffers");
            let moved = |span: Span| Span {
                buffer: span.buffer + buffer,
                ..span
            };
            table.spans.extend(items.spans.into_iter().map(moved));
            table.buffers.extend(items.buffers);
            let markers: Vec<u32> = match items.markers {
                Some(counted) => counted.to_vec(),
                None => (first..table.spans.len() as u32)
                    .map(|id| memchr::memchr_iter(marker, table.get(id)).count() as u32)
                    .collect(),
            };
            table.markers.extend(markers);
        }
        table
    }

    /// The fragment of item `pos` of `model`'s list in the nested shape or
    /// the plain one.
    pub fn id(&self, model: Model, nested: bool, pos: u32) -> u32 {
        let list = self.list_of[model.index() * 2 + usize::from(nested)]
            .expect("a list made of fragments has a table of every list it embeds");
        let (_, _, first, len) = self.lists[list as usize];
        debug_assert!(pos < len, "{model:?} item {pos} of {len}");
        first + pos
    }

    /// The bytes of fragment `id`.
    pub fn get(&self, id: u32) -> &[u8] {
        let Span { buffer, start, len } = self.spans[id as usize];
        let start = start as usize;
        &self.buffers[buffer as usize][start..start + len as usize]
    }

    /// How many media URLs' markers fragment `id` holds.
    pub fn markers(&self, id: u32) -> usize {
        self.markers[id as usize] as usize
    }

    /// The key and value that field `field`'s value `code` is written as.
    fn value(&self, field: FieldMark, code: u32) -> &[u8] {
        let values = self.values[field.index()].as_ref();
        field.cut(values.expect("a field written once").get(code))
    }

    /// Appends the bytes that `coded` (items' own bytes) stands for: its own
    /// bytes between references, and the keys, fragments and values they
    /// name, the way a page is written.
    pub fn expand_into(&self, coded: &[u8], out: &mut Vec<u8>) {
        let mut at = 0;
        while at < coded.len() {
            let mark = match next_mark(&coded[at..]) {
                Some(0) => at,
                Some(i) => {
                    out.extend_from_slice(&coded[at..at + i]);
                    at + i
                }
                None => {
                    out.extend_from_slice(&coded[at..]);
                    return;
                }
            };
            at = match coded[mark] {
                KEY => {
                    let field = FieldMark(coded[mark + 1]);
                    out.extend_from_slice(field.cut(self.keys.get(field.index() as u32)));
                    mark + 2
                }
                FRAGMENT => {
                    let (id, after) = read_number(coded, mark + 1);
                    out.extend_from_slice(self.get(id));
                    after
                }
                _ => {
                    let field = FieldMark(coded[mark + 1]);
                    let (code, after) = read_number(coded, mark + 2);
                    out.extend_from_slice(self.value(field, code));
                    after
                }
            };
        }
    }

    /// How many bytes `coded` stands for, and how many media URLs' markers
    /// they hold: one pass over its pieces (an item is measured as it is
    /// rendered, a million times at a million specimens).
    pub fn measure(&self, coded: &[u8]) -> (usize, usize) {
        let (mut len, mut markers) = (0, 0);
        for piece in pieces(coded) {
            match piece {
                Piece::Own(own) => {
                    len += own.len();
                    markers += memchr::memchr_iter(self.marker, &coded[own]).count();
                }
                Piece::Key(field) => len += field.cut(self.keys.get(field.index() as u32)).len(),
                Piece::Fragment(id) => {
                    len += self.get(id).len();
                    markers += self.markers(id);
                }
                Piece::Value(field, code) => len += self.value(field, code).len(),
            }
        }
        (len, markers)
    }

    /// Whether `other` numbers the same lists' items and the same values the
    /// same way, so that items referring to its fragments and values refer to
    /// this table's alike.
    pub fn same_layout(&self, other: &Fragments) -> bool {
        let same =
            |(mine, theirs): (&Option<PackedStrings>, &Option<PackedStrings>)| match (mine, theirs)
            {
                (None, None) => true,
                (Some(mine), Some(theirs)) => mine.starts_with(theirs),
                _ => false,
            };
        self.lists == other.lists && self.values.iter().zip(&other.values).all(same)
    }

    /// Writes field `field` of row `pos` of `column` as a reference to its
    /// value and key (and the comma before, if `comma`), if the field's values
    /// repeat; says whether it did.
    pub fn write_value(
        &self,
        out: &mut Vec<u8>,
        (field, comma): (usize, bool),
        column: &Column,
        pos: usize,
    ) -> bool {
        let Some(code) = self.value_code(field, column, pos) else {
            return false;
        };
        out.extend_from_slice(&[VALUE, FieldMark::new(field, comma).0]);
        write_number(out, self.numbers[field][code as usize]);
        true
    }

    /// Whether [`Fragments::write_value`] writes field `field` of row `pos`
    /// as a reference (its value is then not among the item's own bytes).
    pub fn writes_value(&self, field: usize, column: &Column, pos: usize) -> bool {
        self.value_code(field, column, pos).is_some()
    }

    /// The code of field `field`'s value in row `pos`, where the field's
    /// values are written once.
    fn value_code(&self, field: usize, column: &Column, pos: usize) -> Option<u32> {
        self.values[field].as_ref()?;
        match column {
            Column::Str(strings) => strings.code(pos),
            // A null is read, as one (and left out where the field says so).
            Column::Bool(bytes) => (bytes[pos] != NULL_BOOL).then(|| u32::from(bytes[pos])),
            _ => None,
        }
    }

    /// The bytes of the fragments (held by the lists they are items of).
    pub fn byte_len(&self) -> usize {
        self.spans.iter().map(|s| s.len as usize).sum()
    }

    /// The table's own heap: where each fragment lies, and the keys and
    /// values.
    pub fn heap_bytes(&self) -> usize {
        self.buffers.capacity() * std::mem::size_of::<Bytes>()
            + self.spans.capacity() * std::mem::size_of::<Span>()
            + self.markers.capacity() * 4
            + self.numbers.iter().map(|n| n.capacity() * 4).sum::<usize>()
            + self.keys.heap_bytes()
            + (self.values.iter().flatten())
                .map(PackedStrings::heap_bytes)
                .sum::<usize>()
    }
}

/// Where a fragment lies: its buffer, where it starts in it, its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    buffer: u32,
    start: u32,
    len: u32,
}

/// The items of a list that a list made of fragments embeds, as its table
/// takes them: the buffers they lie in, and where each item lies.
#[derive(Debug, Default)]
pub struct Embedded {
    buffers: Vec<Bytes>,
    spans: Vec<Span>,
    /// How many media URLs' markers each item holds, where its list counted
    /// them (once for every list made of fragments embedding it).
    markers: Option<std::sync::Arc<[u32]>>,
    /// The segment items are added from, and where the last buffer starts in
    /// it (a span's start is 32 bits: past 4 GiB, a buffer starts anew).
    segment: Bytes,
    base: usize,
}

impl Embedded {
    /// Says how many media URLs' markers each item holds.
    pub fn counted(&mut self, markers: std::sync::Arc<[u32]>) {
        self.markers = Some(markers);
    }

    /// Items added next lie in `segment`.
    pub fn segment(&mut self, segment: Bytes) {
        self.buffers.push(segment.clone());
        (self.segment, self.base) = (segment, 0);
    }

    /// Adds an item: bytes `range` of the segment.
    pub fn item(&mut self, range: Range<usize>) {
        if u32::try_from(range.end - self.base).is_err() {
            self.buffers.push(self.segment.slice(range.start..));
            self.base = range.start;
        }
        let at = |n: usize| u32::try_from(n).expect("an item is under 4 GiB");
        self.spans.push(Span {
            buffer: at(self.buffers.len() - 1),
            start: at(range.start - self.base),
            len: at(range.len()),
        });
    }

    /// Items each in a buffer of its own.
    #[cfg(test)]
    pub fn of(items: impl IntoIterator<Item = Bytes>) -> Embedded {
        let mut embedded = Embedded::default();
        for item in items {
            let len = item.len();
            embedded.segment(item);
            embedded.item(0..len);
        }
        embedded
    }
}

/// Byte strings laid end to end in one buffer, each found by its number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PackedStrings {
    bytes: Vec<u8>,
    /// String `n` ends at `ends[n]`, and starts where the one before ends.
    ends: Vec<u32>,
}

impl PackedStrings {
    fn push(&mut self, s: &[u8]) {
        self.bytes.extend_from_slice(s);
        let end = u32::try_from(self.bytes.len()).expect("a field's values are under 4 GiB");
        self.ends.push(end);
    }

    fn get(&self, n: u32) -> &[u8] {
        let n = n as usize;
        let start = match n {
            0 => 0,
            n => self.ends[n - 1] as usize,
        };
        &self.bytes[start..self.ends[n] as usize]
    }

    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.ends.len() as u32).map(|n| self.get(n))
    }

    /// Whether its first strings are `other`'s, numbered alike.
    fn starts_with(&self, other: &PackedStrings) -> bool {
        self.ends.starts_with(&other.ends) && self.bytes.starts_with(&other.bytes)
    }

    fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4
    }
}

/// Marks a key: the next byte is the field's number in its model.
pub const KEY: u8 = 0x02;

/// Marks a fragment: its number follows.
pub const FRAGMENT: u8 = 0x03;

/// Marks a field's key and value: the field's number (one byte) and the
/// value's follow.
pub const VALUE: u8 = 0x04;

/// Where the first mark of a reference in `coded` is. Own bytes mostly run a
/// few bytes between references, found sooner a byte at a time than by a
/// vector search set up for each; a longer run (a note, a remark) is
/// searched.
fn next_mark(coded: &[u8]) -> Option<usize> {
    const SCANNED: usize = 16;
    let is_mark = |&b: &u8| matches!(b, KEY | FRAGMENT | VALUE);
    let (scanned, rest) = coded.split_at(coded.len().min(SCANNED));
    match scanned.iter().position(is_mark) {
        Some(i) => Some(i),
        None => memchr::memchr3(KEY, FRAGMENT, VALUE, rest).map(|i| i + SCANNED),
    }
}

/// A piece of a coded item: a range of its own bytes, a key, a fragment, or
/// a field's key and value (field, the value's code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Own(Range<usize>),
    Key(FieldMark),
    Fragment(u32),
    Value(FieldMark, u32),
}

/// The byte after a key's or a value's mark: the field's number, its high
/// bit set when the comma before the key goes too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldMark(u8);

impl FieldMark {
    const COMMA: u8 = 0x80;

    pub fn new(field: usize, comma: bool) -> FieldMark {
        let field = u8::try_from(field)
            .ok()
            .filter(|&f| f < FieldMark::COMMA)
            .expect("a model has fewer than 128 fields");
        FieldMark(if comma {
            field | FieldMark::COMMA
        } else {
            field
        })
    }

    pub fn index(self) -> usize {
        (self.0 & !FieldMark::COMMA) as usize
    }

    /// Of `written` (a key or value written after its comma), what goes.
    fn cut(self, written: &[u8]) -> &[u8] {
        match self.0 & FieldMark::COMMA {
            0 => &written[1..],
            _ => written,
        }
    }
}

/// A field's values with its key, numbered (those `before` first, as they
/// are), and each value's number by its code in the column, if its rows repeat
/// them or they were written once `before`: a string's, or a boolean (false,
/// true, null).
fn repeated_values(
    field: &Field,
    (column, rows): (&Column, usize),
    key: Vec<u8>,
    before: Option<&PackedStrings>,
) -> Option<(PackedStrings, Vec<u32>)> {
    let with_key = |value: &dyn Fn(&mut Vec<u8>)| {
        let mut out = key.clone();
        value(&mut out);
        out
    };
    let written: Vec<Vec<u8>> = match column {
        Column::Str(strings) if field.ty != Type::MediaFile => {
            let distinct = strings.distinct();
            let repeats = !distinct.is_empty() && rows >= REPEATED * distinct.len();
            if !repeats && before.is_none() {
                return None;
            }
            (0..distinct.len() as u32)
                .map(|c| with_key(&|out| write_str(out, distinct.get(c))))
                .collect()
        }
        Column::Bool(_) => [&b"false"[..], b"true", b"null"]
            .iter()
            .map(|v| with_key(&|out| out.extend_from_slice(v)))
            .collect(),
        _ => return None,
    };
    let mut values = before.cloned().unwrap_or_default();
    let mut number: ahash::AHashMap<Vec<u8>, u32> =
        (values.iter().map(<[u8]>::to_vec)).zip(0..).collect();
    let numbers = written
        .into_iter()
        .map(|value| {
            let next = values.ends.len() as u32;
            *number.entry(value).or_insert_with_key(|value| {
                values.push(value);
                next
            })
        })
        .collect();
    Some((values, numbers))
}

/// The pieces of coded bytes, in order.
pub struct Pieces<'a> {
    coded: &'a [u8],
    at: usize,
    /// A reference found after the own bytes handed out last.
    next: Option<(usize, Piece)>,
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        if let Some((after, piece)) = self.next.take() {
            self.at = after;
            return Some(piece);
        }
        if self.at >= self.coded.len() {
            return None;
        }
        let rest = &self.coded[self.at..];
        let Some(i) = next_mark(rest) else {
            let own = self.at..self.coded.len();
            self.at = self.coded.len();
            return Some(Piece::Own(own));
        };
        let mark = self.at + i;
        let (after, piece) = match rest[i] {
            KEY => (mark + 2, Piece::Key(FieldMark(self.coded[mark + 1]))),
            FRAGMENT => {
                let (n, after) = read_number(self.coded, mark + 1);
                (after, Piece::Fragment(n))
            }
            _ => {
                let field = FieldMark(self.coded[mark + 1]);
                let (code, after) = read_number(self.coded, mark + 2);
                (after, Piece::Value(field, code))
            }
        };
        if i == 0 {
            self.at = after;
            return Some(piece);
        }
        self.next = Some((after, piece));
        let own = self.at..mark;
        self.at = mark;
        Some(Piece::Own(own))
    }
}

/// The pieces of `coded` (an item's own bytes, or a run of items'), in order.
pub fn pieces(coded: &[u8]) -> Pieces<'_> {
    Pieces {
        coded,
        at: 0,
        next: None,
    }
}

/// Writes a reference to field `field`'s key (and the comma before, if
/// `comma`).
pub fn write_key(out: &mut Vec<u8>, field: usize, comma: bool) {
    out.extend_from_slice(&[KEY, FieldMark::new(field, comma).0]);
}

/// Writes a reference to fragment `id`.
pub fn write_fragment(out: &mut Vec<u8>, id: u32) {
    out.push(FRAGMENT);
    write_number(out, id);
}

/// Writes `n` in LEB128: 7 bits a byte, low first, the high bit set on all
/// but the last.
fn write_number(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The number written at `at` by [`write_number`], and where it ends.
fn read_number(coded: &[u8], mut at: usize) -> (u32, usize) {
    let (mut n, mut shift) = (0u32, 0);
    loop {
        let b = coded[at];
        at += 1;
        n |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            return (n, at);
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::records::{Collection, Country};

    #[test]
    fn the_lists_no_list_embeds_are_made_of_fragments() {
        assert!(made_of_fragments(Model::SpecimenRecord));
        let embedded = [
            Model::Order,
            Model::Species,
            Model::Person,
            Model::Image,
            Model::Country,
            Model::Locality,
        ];
        for model in embedded {
            assert!(!made_of_fragments(model), "{model:?}");
        }
    }

    #[test]
    fn coded_bytes_expand_to_their_keys_and_fragments_in_order() {
        let piece = |s: &'static str| Bytes::from_static(s.as_bytes());
        let numbered = |id| Country::numbered(id, "Land");
        let tables = super::super::rows::tables(Collection {
            countries: (1..=8).map(numbered).collect(),
            ..Default::default()
        });
        let countries = &tables[Model::Country.index()];
        let fragments = Fragments::new(
            Model::Country,
            (countries, None),
            [
                (
                    Model::Order,
                    false,
                    Embedded::of([piece("{\"id\":1}"), piece("{\"id\":2}")]),
                ),
                (
                    Model::Person,
                    false,
                    Embedded::of([piece("{\"u\":\"\u{1}a\"}")]),
                ),
            ],
            1,
        );
        assert_eq!(fragments.id(Model::Order, false, 1), 1);
        assert_eq!(fragments.id(Model::Person, false, 0), 2);
        assert_eq!((fragments.markers(2), fragments.markers(0)), (1, 0));
        // A number whose last byte is a mark's (257: 0x81 0x02) is still read
        // whole.
        let mut coded = b"{".to_vec();
        write_key(&mut coded, 0, false);
        coded.extend_from_slice(b"7");
        write_key(&mut coded, 1, true);
        write_fragment(&mut coded, 1);
        coded.push(b',');
        write_fragment(&mut coded, 257);
        coded.push(b'}');
        assert_eq!(
            pieces(&coded).collect::<Vec<_>>(),
            [
                Piece::Own(0..1),
                Piece::Key(FieldMark::new(0, false)),
                Piece::Own(3..4),
                Piece::Key(FieldMark::new(1, true)),
                Piece::Fragment(1),
                Piece::Own(8..9),
                Piece::Fragment(257),
                Piece::Own(12..13),
            ]
        );
        coded.truncate(8);
        coded.push(b'}');
        let mut out = Vec::new();
        fragments.expand_into(&coded, &mut out);
        let name = &Model::Country.fields()[1].name;
        let expected = format!("{{\"id\":7,\"{name}\":{{\"id\":2}}}}");
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(fragments.measure(&coded), (expected.len(), 0));
        write_fragment(&mut coded, 2);
        assert_eq!(fragments.measure(&coded).1, 1);
        assert_eq!(pieces(b"").count(), 0);
        // A run of own bytes longer than those scanned a byte at a time.
        let mut coded = b"{\"n\":\"a note of more than sixteen bytes\"".to_vec();
        let own = coded.len();
        write_key(&mut coded, 1, true);
        coded.extend_from_slice(b"}");
        assert_eq!(
            pieces(&coded).collect::<Vec<_>>(),
            [
                Piece::Own(0..own),
                Piece::Key(FieldMark::new(1, true)),
                Piece::Own(own + 2..own + 3),
            ]
        );
        let mut written = Vec::new();
        fragments.expand_into(&coded, &mut written);
        assert_eq!(
            written,
            format!("{},\"{name}\":}}", &String::from_utf8_lossy(&coded[..own])).as_bytes()
        );
        // The countries' names repeat: each is key and value in one reference.
        let name = Model::Country.field_index("name").unwrap();
        let mut coded = Vec::new();
        let (column, mark) = (countries.column(name), FieldMark::new(name, true));
        assert!(fragments.write_value(&mut coded, (name, true), column, 3));
        assert!(fragments.write_value(&mut coded, (name, false), column, 4));
        assert_eq!(
            pieces(&coded).collect::<Vec<_>>(),
            [
                Piece::Value(mark, 0),
                Piece::Value(FieldMark::new(name, false), 0)
            ]
        );
        let mut out = Vec::new();
        fragments.expand_into(&coded, &mut out);
        assert_eq!(out, b",\"name\":\"Land\"\"name\":\"Land\"");
        let id = Model::Country.field_index("id").unwrap();
        assert!(!fragments.write_value(&mut coded, (id, true), countries.column(id), 3));
    }
}
