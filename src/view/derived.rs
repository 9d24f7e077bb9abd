//! What a view derives on first use and keeps as long as it lives (GBIF's
//! Darwin Core columns, the checklists' identified taxa), held by type: each
//! feature declares its own (`view::Derive`), and the view knows none of them.

use std::any::{Any, TypeId};
use std::sync::OnceLock;

/// How many types a block holds before the next is made.
const BLOCK: usize = 8;

/// A type's value, made at most once.
type Slot = OnceLock<(TypeId, OnceLock<Box<dyn Any + Send + Sync>>)>;

/// Slots for types, and the block after them, made once these are taken.
#[derive(Default)]
struct Block {
    slots: [Slot; BLOCK],
    next: OnceLock<Box<Block>>,
}

/// A view's derived values, a map by type: each value in the first slot free
/// when its type was first asked for, the slots in blocks one after another,
/// as many as there are types. A type is found by looking at the slots in
/// order, so it is never in two (a slot is taken whole, before any later
/// one), and reading takes no lock: each slot and each block is set once.
#[derive(Default)]
pub struct Derived {
    first: Block,
}

impl Derived {
    /// The value of type `T`, made by `make` if none was yet. Two threads
    /// asking at once wait for one making, as `OnceLock` does.
    pub fn get_or_init<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> &T {
        let id = TypeId::of::<T>();
        let mut block = &self.first;
        let value = loop {
            let found = (block.slots.iter())
                .map(|slot| slot.get_or_init(|| (id, OnceLock::new())))
                .find(|(taken, _)| *taken == id);
            match found {
                Some((_, value)) => break value,
                None => block = block.next.get_or_init(Box::default),
            }
        };
        value
            .get_or_init(|| Box::new(make()))
            .downcast_ref::<T>()
            .expect("a slot holds the type it is found by")
    }

    /// The value of type `T`, if it was made.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        let blocks = std::iter::successors(Some(&self.first), |b| b.next.get().map(|b| &**b));
        blocks
            .flat_map(|b| b.slots.iter())
            .map_while(|slot| slot.get())
            .find(|(taken, _)| *taken == id)
            .and_then(|(_, value)| value.get())
            .and_then(|value| value.downcast_ref::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As many types as are asked for, beyond a block's slots (a ninth type
    /// once found eight slots full, and its request panicked), each found
    /// again as made.
    #[test]
    fn types_beyond_a_block_are_kept_too() {
        struct Kind<const N: usize>(usize);
        let derived = Derived::default();
        macro_rules! each {
            ($($n:literal)*) => {$(
                assert_eq!(derived.get_or_init(|| Kind::<$n>($n)).0, $n);
            )*
            $(
                assert_eq!(derived.get::<Kind<$n>>().map(|k| k.0), Some($n));
                assert_eq!(derived.get_or_init(|| Kind::<$n>(0)).0, $n);
            )*};
        }
        each!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39);
        assert_eq!(derived.get::<u8>(), None);
    }

    #[test]
    fn each_type_is_made_once() {
        let derived = Derived::default();
        let made = std::sync::atomic::AtomicUsize::new(0);
        let make = || {
            made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            7u32
        };
        assert_eq!(*derived.get_or_init(make), 7);
        assert_eq!(*derived.get_or_init(make), 7);
        assert_eq!(derived.get_or_init(|| String::from("x")), "x");
        assert_eq!(*derived.get_or_init(make), 7);
        assert_eq!(derived.get::<u32>(), Some(&7));
        assert_eq!(derived.get::<u64>(), None);
        assert_eq!(made.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
