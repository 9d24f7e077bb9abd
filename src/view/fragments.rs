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
//! LEB128: 7 bits a byte, the high bit set on all but the last); a reader finds
//! the marks with `memchr` and steps over the numbers.

use std::ops::Range;

use bytes::Bytes;

use crate::encoding::json::write_str;
use crate::model::{Field, Model, Type};

use super::column::Column;
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
#[derive(Debug, Default)]
pub struct Fragments {
    /// Each embedded list, in order: its model, whether it is the nested
    /// shape, its first fragment and how many items it has.
    lists: Vec<(Model, bool, u32, u32)>,
    pieces: Vec<Bytes>,
    /// How many media URLs' markers each fragment holds.
    markers: Vec<u32>,
    /// Each field's key as the item writes it after a comma (`,"name":`), by
    /// field.
    keys: Vec<Bytes>,
    /// By field, for those whose values repeat: each value with its key,
    /// after a comma (`,"name":value`), numbered in the order first met, the
    /// served list's first (so a reload keeps the segments whose records did
    /// not change).
    values: Vec<Option<Vec<Bytes>>>,
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
        lists: impl IntoIterator<Item = (Model, bool, Vec<Bytes>)>,
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
            let before = served.and_then(|s| s.values[f].as_deref());
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
        let mut table = Fragments {
            keys: fields.iter().map(|f| Bytes::from(key(f))).collect(),
            values,
            numbers,
            marker,
            ..Fragments::default()
        };
        for (model, nested, items) in lists {
            let first = table.pieces.len() as u32;
            table.lists.push((model, nested, first, items.len() as u32));
            table.pieces.extend(items);
        }
        let count = |piece: &Bytes| memchr::memchr_iter(marker, piece).count() as u32;
        table.markers = table.pieces.iter().map(count).collect();
        table
    }

    /// The fragment of item `pos` of `model`'s list in the nested shape or
    /// the plain one.
    pub fn id(&self, model: Model, nested: bool, pos: u32) -> u32 {
        let &(_, _, first, len) = self
            .lists
            .iter()
            .find(|&&(m, n, ..)| m == model && n == nested)
            .expect("a list made of fragments has a table of every list it embeds");
        debug_assert!(pos < len, "{model:?} item {pos} of {len}");
        first + pos
    }

    /// The bytes of fragment `id`.
    pub fn get(&self, id: u32) -> &Bytes {
        &self.pieces[id as usize]
    }

    /// How many media URLs' markers fragment `id` holds.
    pub fn markers(&self, id: u32) -> usize {
        self.markers[id as usize] as usize
    }

    /// Hands `f`, in order, the bytes that `coded` (items' own bytes) stands
    /// for: its own bytes between references, and the keys and fragments
    /// they name.
    pub fn expand(&self, coded: &[u8], f: &mut impl FnMut(&[u8])) {
        for piece in pieces(coded) {
            match piece {
                Piece::Own(own) => f(&coded[own]),
                Piece::Key(field) => f(field.cut(&self.keys[field.index()])),
                Piece::Fragment(id) => f(self.get(id)),
                Piece::Value(field, code) => {
                    let values = self.values[field.index()].as_ref();
                    f(field.cut(&values.expect("a field written once")[code as usize]))
                }
            }
        }
    }

    /// Appends the bytes that `coded` stands for: [`Fragments::expand`]
    /// without its pieces named, the way a page is written.
    pub fn expand_into(&self, coded: &[u8], out: &mut Vec<u8>) {
        let mut at = 0;
        while at < coded.len() {
            let rest = &coded[at..];
            let mark = match rest[0] {
                KEY | FRAGMENT | VALUE => at,
                _ => match memchr::memchr3(KEY, FRAGMENT, VALUE, rest) {
                    Some(i) => {
                        out.extend_from_slice(&rest[..i]);
                        at + i
                    }
                    None => {
                        out.extend_from_slice(rest);
                        return;
                    }
                },
            };
            at = match coded[mark] {
                KEY => {
                    let field = FieldMark(coded[mark + 1]);
                    out.extend_from_slice(field.cut(&self.keys[field.index()]));
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
                    let values = self.values[field.index()].as_ref();
                    out.extend_from_slice(
                        field.cut(&values.expect("a field written once")[code as usize]),
                    );
                    after
                }
            };
        }
    }

    /// How many bytes `coded` stands for.
    pub fn expanded_len(&self, coded: &[u8]) -> usize {
        let mut len = 0;
        self.expand(coded, &mut |b| len += b.len());
        len
    }

    /// How many media URLs' markers the bytes `coded` stands for hold.
    pub fn markers_in(&self, coded: &[u8]) -> usize {
        pieces(coded)
            .map(|piece| match piece {
                Piece::Own(own) => memchr::memchr_iter(self.marker, &coded[own]).count(),
                Piece::Key(_) | Piece::Value(..) => 0,
                Piece::Fragment(id) => self.markers(id),
            })
            .sum()
    }

    /// Whether `other` numbers the same lists' items and the same values the
    /// same way, so that items referring to its fragments and values refer to
    /// this table's alike.
    pub fn same_layout(&self, other: &Fragments) -> bool {
        let same = |(mine, theirs): (&Option<Vec<Bytes>>, &Option<Vec<Bytes>>)| match (mine, theirs)
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
        if self.values[field].is_none() {
            return false;
        }
        let code = match column {
            Column::Str(strings) => strings.code(pos),
            Column::Bool(bytes) => Some(u32::from(bytes[pos])),
            _ => None,
        };
        let Some(code) = code else { return false };
        out.extend_from_slice(&[VALUE, FieldMark::new(field, comma).0]);
        write_number(out, self.numbers[field][code as usize]);
        true
    }

    /// The bytes of the fragments (held by the lists they are items of).
    pub fn byte_len(&self) -> usize {
        self.pieces.iter().map(Bytes::len).sum()
    }

    /// The table's own heap: a handle a fragment, and the keys.
    pub fn heap_bytes(&self) -> usize {
        self.pieces.capacity() * std::mem::size_of::<Bytes>()
            + self.markers.capacity() * 4
            + self.numbers.iter().map(|n| n.capacity() * 4).sum::<usize>()
            + self.keys.iter().map(Bytes::len).sum::<usize>()
            + (self.values.iter().flatten().flatten())
                .map(|v| v.len() + 32)
                .sum::<usize>()
    }
}

/// Marks a key: the next byte is the field's number in its model.
pub const KEY: u8 = 0x02;

/// Marks a fragment: its number follows.
pub const FRAGMENT: u8 = 0x03;

/// Marks a field's key and value: the field's number (one byte) and the
/// value's follow.
pub const VALUE: u8 = 0x04;

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
    before: Option<&[Bytes]>,
) -> Option<(Vec<Bytes>, Vec<u32>)> {
    let with_key = |value: &dyn Fn(&mut Vec<u8>)| {
        let mut out = key.clone();
        value(&mut out);
        Bytes::from(out)
    };
    let written: Vec<Bytes> = match column {
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
    let mut values = before.map_or_else(Vec::new, <[Bytes]>::to_vec);
    let mut number: ahash::AHashMap<Bytes, u32> = (values.iter().cloned()).zip(0..).collect();
    let numbers = written
        .into_iter()
        .map(|value| {
            *number.entry(value.clone()).or_insert_with(|| {
                values.push(value);
                values.len() as u32 - 1
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
        // Most references follow one another: a mark first is not searched for.
        let first = matches!(rest[0], KEY | FRAGMENT | VALUE).then_some(0);
        let Some(i) = first.or_else(|| memchr::memchr3(KEY, FRAGMENT, VALUE, rest)) else {
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
                    vec![piece("{\"id\":1}"), piece("{\"id\":2}")],
                ),
                (Model::Person, false, vec![piece("{\"u\":\"\u{1}a\"}")]),
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
        fragments.expand(&coded, &mut |b| out.extend_from_slice(b));
        let mut written = Vec::new();
        fragments.expand_into(&coded, &mut written);
        assert_eq!(written, out);
        let name = &Model::Country.fields()[1].name;
        let expected = format!("{{\"id\":7,\"{name}\":{{\"id\":2}}}}");
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(fragments.expanded_len(&coded), expected.len());
        assert_eq!(fragments.markers_in(&coded), 0);
        write_fragment(&mut coded, 2);
        assert_eq!(fragments.markers_in(&coded), 1);
        assert_eq!(pieces(b"").count(), 0);
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
        fragments.expand(&coded, &mut |b| out.extend_from_slice(b));
        assert_eq!(out, b",\"name\":\"Land\"\"name\":\"Land\"");
        let id = Model::Country.field_index("id").unwrap();
        assert!(!fragments.write_value(&mut coded, (id, true), countries.column(id), 3));
    }
}
