//! Items made of fragments: a list whose items embed records (a specimen's
//! taxa, places, people, trip) holds only each item's own bytes, coded: where
//! an embedded record goes, a reference to a shared fragment (the record's
//! item in its own list, rendered once: the service's exact JSON), and where
//! one of the item's keys goes, a reference to it, each key of the model
//! written once.
//!
//! A list is made of fragments when its items embed others and no list embeds
//! its items (an embedded record is copied from one slice of its list's bytes,
//! [`super::render::Embeds`]). [`super::render::List`] cuts a page from them:
//! the own bytes between references, and the fragments and keys they name,
//! copied together.
//!
//! The coding needs no index beside the bytes: JSON output never holds a raw
//! control character (strings escape them), so [`KEY`] and [`FRAGMENT`] mark
//! a reference, followed by the field's number (one byte) or the fragment's
//! (four bytes, little-endian); a reader finds the marks with `memchr` and
//! steps over the numbers.

use std::ops::Range;

use bytes::Bytes;

use crate::encoding::json::write_str;
use crate::model::{Field, Model, Type};

use super::bits::Bits;

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
    /// Which fragments hold a media URL's marker.
    media: Option<Bits>,
    /// Each field's key as the item writes it (`"name":`), by field.
    keys: Vec<Bytes>,
    /// The byte that marks a media URL.
    marker: u8,
}

impl Fragments {
    /// A table for items of `model`: its keys, and the items of each list
    /// given (model, nested shape, items); those holding the `marker` byte
    /// hold a media URL.
    pub fn new(
        model: Model,
        lists: impl IntoIterator<Item = (Model, bool, Vec<Bytes>)>,
        marker: u8,
    ) -> Fragments {
        let key = |field: &Field| {
            let mut key = Vec::with_capacity(field.name.len() + 3);
            write_str(&mut key, field.name);
            key.push(b':');
            Bytes::from(key)
        };
        let mut table = Fragments {
            keys: model.fields().iter().map(key).collect(),
            marker,
            ..Fragments::default()
        };
        for (model, nested, items) in lists {
            let first = table.pieces.len() as u32;
            table.lists.push((model, nested, first, items.len() as u32));
            table.pieces.extend(items);
        }
        let n = table.pieces.len();
        for (i, piece) in table.pieces.iter().enumerate() {
            if memchr::memchr(marker, piece).is_some() {
                table.media.get_or_insert_with(|| Bits::none(n)).set(i);
            }
        }
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

    /// Whether fragment `id` holds a media URL's marker.
    pub fn has_media(&self, id: u32) -> bool {
        self.media.as_ref().is_some_and(|m| m.contains(id as usize))
    }

    /// Hands `f`, in order, the bytes that `coded` (items' own bytes) stands
    /// for: its own bytes between references, and the keys and fragments
    /// they name.
    pub fn expand(&self, coded: &[u8], f: &mut impl FnMut(&[u8])) {
        for piece in pieces(coded) {
            match piece {
                Piece::Own(own) => f(&coded[own]),
                Piece::Key(field) => f(&self.keys[field]),
                Piece::Fragment(id) => f(self.get(id)),
            }
        }
    }

    /// How many bytes `coded` stands for.
    pub fn expanded_len(&self, coded: &[u8]) -> usize {
        let mut len = 0;
        self.expand(coded, &mut |b| len += b.len());
        len
    }

    /// Whether the bytes `coded` stands for hold a media URL's marker.
    pub fn holds_media(&self, coded: &[u8]) -> bool {
        pieces(coded).any(|piece| match piece {
            Piece::Own(own) => memchr::memchr(self.marker, &coded[own]).is_some(),
            Piece::Key(_) => false,
            Piece::Fragment(id) => self.has_media(id),
        })
    }

    /// Whether `other` numbers the same lists' items the same way, so that
    /// items referring to its fragments refer to this table's alike.
    pub fn same_layout(&self, other: &Fragments) -> bool {
        self.lists == other.lists
    }

    /// The bytes of the fragments (held by the lists they are items of).
    pub fn byte_len(&self) -> usize {
        self.pieces.iter().map(Bytes::len).sum()
    }

    /// The table's own heap: a handle a fragment, and the keys.
    pub fn heap_bytes(&self) -> usize {
        self.pieces.capacity() * std::mem::size_of::<Bytes>()
            + self.media.as_ref().map_or(0, Bits::heap_bytes)
            + self.keys.iter().map(Bytes::len).sum::<usize>()
    }
}

/// Marks a key: the next byte is the field's number in its model.
pub const KEY: u8 = 0x02;

/// Marks a fragment: the next four bytes are its number, little-endian.
pub const FRAGMENT: u8 = 0x03;

/// A piece of a coded item: a range of its own bytes, a key, or a fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Own(Range<usize>),
    Key(usize),
    Fragment(u32),
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
        let Some(i) = memchr::memchr2(KEY, FRAGMENT, rest) else {
            let own = self.at..self.coded.len();
            self.at = self.coded.len();
            return Some(Piece::Own(own));
        };
        let mark = self.at + i;
        let (after, piece) = match rest[i] {
            KEY => (mark + 2, Piece::Key(self.coded[mark + 1] as usize)),
            _ => {
                let n = self.coded[mark + 1..mark + 5]
                    .try_into()
                    .expect("four bytes");
                (mark + 5, Piece::Fragment(u32::from_le_bytes(n)))
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

/// Writes a reference to field `field`'s key.
pub fn write_key(out: &mut Vec<u8>, field: usize) {
    let field = u8::try_from(field).expect("a model has fewer than 256 fields");
    out.extend_from_slice(&[KEY, field]);
}

/// Writes a reference to fragment `id`.
pub fn write_fragment(out: &mut Vec<u8>, id: u32) {
    out.push(FRAGMENT);
    out.extend_from_slice(&id.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let fragments = Fragments::new(
            Model::Country,
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
        assert!(fragments.has_media(2) && !fragments.has_media(0));
        // A fragment numbered with the marks' own bytes is still read whole.
        let mut coded = b"{".to_vec();
        write_key(&mut coded, 0);
        coded.extend_from_slice(b"7,");
        write_key(&mut coded, 1);
        write_fragment(&mut coded, 1);
        coded.push(b',');
        write_fragment(&mut coded, 0x0302_0100 + 1);
        coded.push(b'}');
        assert_eq!(
            pieces(&coded).collect::<Vec<_>>(),
            [
                Piece::Own(0..1),
                Piece::Key(0),
                Piece::Own(3..5),
                Piece::Key(1),
                Piece::Fragment(1),
                Piece::Own(12..13),
                Piece::Fragment(0x0302_0101),
                Piece::Own(18..19),
            ]
        );
        coded.truncate(12);
        coded.push(b'}');
        let mut out = Vec::new();
        fragments.expand(&coded, &mut |b| out.extend_from_slice(b));
        let name = &Model::Country.fields()[1].name;
        let expected = format!("{{\"id\":7,\"{name}\":{{\"id\":2}}}}");
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(fragments.expanded_len(&coded), expected.len());
        assert!(!fragments.holds_media(&coded));
        write_fragment(&mut coded, 2);
        assert!(fragments.holds_media(&coded));
        assert_eq!(pieces(b"").count(), 0);
    }
}
