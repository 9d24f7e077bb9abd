//! Items made of fragments: a list whose items embed records (a specimen's
//! taxa, places, people, trip) holds only each item's own bytes, and where each
//! embedded record goes in them, a reference to a shared fragment: the record's
//! item in its own list, rendered once (the service's exact JSON).
//!
//! A list is made of fragments when its items embed others and no list embeds
//! its items (an embedded record is copied from one slice of its list's bytes,
//! [`super::render::Embeds`]): at a million specimens the lists' memory
//! files hold 1.0 GB where they held 3.5 GB, the few thousand records the
//! specimens embed held once. [`super::render::List`] cuts a page from them, as
//! slices of its own bytes with the fragments between them.

use bytes::Bytes;

use crate::model::{Model, Type};

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
}

impl Fragments {
    /// A table of the items of each list given (model, nested shape, items);
    /// those holding the `marker` byte hold a media URL.
    pub fn new(
        lists: impl IntoIterator<Item = (Model, bool, Vec<Bytes>)>,
        marker: u8,
    ) -> Fragments {
        let mut table = Fragments::default();
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

    /// Whether `other` numbers the same lists' items the same way, so that
    /// items referring to its fragments refer to this table's alike.
    pub fn same_layout(&self, other: &Fragments) -> bool {
        self.lists == other.lists
    }

    /// The bytes of the fragments (held by the lists they are items of).
    pub fn byte_len(&self) -> usize {
        self.pieces.iter().map(Bytes::len).sum()
    }

    /// The table's own heap: a handle a fragment.
    pub fn heap_bytes(&self) -> usize {
        self.pieces.capacity() * std::mem::size_of::<Bytes>()
            + self.media.as_ref().map_or(0, Bits::heap_bytes)
    }
}

/// Where the fragments go in a list's items: per item, its inserts in order,
/// each an offset in its segment's bytes and the fragment placed there.
#[derive(Debug, Default)]
pub struct Inserts {
    pub fragments: Fragments,
    /// Item `i`'s inserts are `first[i]..first[i + 1]`.
    first: Vec<u32>,
    at: Vec<u32>,
    which: Vec<u32>,
    /// The bytes all items take from fragments.
    inserted: usize,
}

impl Inserts {
    pub fn new(fragments: Fragments) -> Inserts {
        Inserts {
            fragments,
            first: vec![0],
            ..Default::default()
        }
    }

    /// Adds the next item's inserts: (offset in its segment, fragment).
    pub fn push_item(&mut self, inserts: impl IntoIterator<Item = (u32, u32)>) {
        for (at, which) in inserts {
            self.inserted += self.fragments.get(which).len();
            self.at.push(at);
            self.which.push(which);
        }
        let n = u32::try_from(self.at.len()).expect("fewer than 2^32 inserts in a list");
        self.first.push(n);
    }

    /// Item `i`'s inserts, in order: (offset in its segment, fragment).
    pub fn of(&self, i: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let range = self.first[i] as usize..self.first[i + 1] as usize;
        (self.at[range.clone()].iter().map(|&a| a as usize)).zip(self.which[range].iter().copied())
    }

    /// The bytes item `i` takes from fragments.
    pub fn inserted_len(&self, i: usize) -> usize {
        self.of(i).map(|(_, w)| self.fragments.get(w).len()).sum()
    }

    /// The bytes all items take from fragments.
    pub fn inserted(&self) -> usize {
        self.inserted
    }

    /// The heap its index takes (not the fragments' bytes).
    pub fn heap_bytes(&self) -> usize {
        (self.first.capacity() + self.at.capacity() + self.which.capacity()) * 4
            + self.fragments.heap_bytes()
    }
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
    fn inserts_name_their_fragments_in_order() {
        let piece = |s: &'static str| Bytes::from_static(s.as_bytes());
        let fragments = Fragments::new(
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
        let mut inserts = Inserts::new(fragments);
        inserts.push_item([(3, 0), (9, 2)]);
        inserts.push_item([]);
        inserts.push_item([(5, 1)]);
        assert_eq!(inserts.of(0).collect::<Vec<_>>(), [(3, 0), (9, 2)]);
        assert_eq!(inserts.of(1).count(), 0);
        assert_eq!(inserts.inserted_len(2), 8);
        assert_eq!(inserts.inserted(), 8 + 10 + 8);
    }
}
