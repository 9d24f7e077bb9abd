//! What a view derives on first use and keeps as long as it lives (GBIF's
//! Darwin Core columns, the checklists' identified taxa), held by type: each
//! feature declares its own (`view::Derive`), and the view knows none of them.

use std::any::{Any, TypeId};
use std::sync::OnceLock;

/// How many types a view derives at most (a test keeps the features' count
/// within it: `every_derived_type_has_a_slot`).
const SLOTS: usize = 16;

/// A type's value, made at most once.
type Slot = OnceLock<(TypeId, OnceLock<Box<dyn Any + Send + Sync>>)>;

/// A view's derived values, one per type, each in the first slot free when its
/// type was first asked for: a type is found by looking at the slots in order,
/// so it is never in two (a slot is taken whole, before any later one).
#[derive(Default)]
pub struct Derived {
    slots: [Slot; SLOTS],
}

impl Derived {
    /// The value of type `T`, made by `make` if none was yet. Two threads
    /// asking at once wait for one making, as `OnceLock` does.
    pub fn get_or_init<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> &T {
        let id = TypeId::of::<T>();
        let slot = self
            .slots
            .iter()
            .map(|slot| slot.get_or_init(|| (id, OnceLock::new())))
            .find(|(taken, _)| *taken == id)
            .map(|(_, value)| value)
            .expect("no more types derived from a view than it has slots");
        slot.get_or_init(|| Box::new(make()))
            .downcast_ref::<T>()
            .expect("a slot holds the type it is found by")
    }

    /// The value of type `T`, if it was made.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.slots
            .iter()
            .map_while(|slot| slot.get())
            .find(|(taken, _)| *taken == id)
            .and_then(|(_, value)| value.get())
            .and_then(|value| value.downcast_ref::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type a feature derives (`impl Derive for`, anywhere in `src/`)
    /// has a slot: a ninth type once found eight full, and its request
    /// panicked.
    #[test]
    fn every_derived_type_has_a_slot() {
        fn count(dir: &std::path::Path) -> usize {
            let mut n = 0;
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    n += count(&path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    n += text
                        .lines()
                        .filter(|l| l.starts_with("impl ") && l.contains("Derive for "))
                        .count();
                }
            }
            n
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let derived = count(&src);
        assert!(
            derived >= 9,
            "{derived}: the count reads the features' impls"
        );
        assert!(
            derived <= SLOTS,
            "{derived} types derived from a view, {SLOTS} slots: raise SLOTS"
        );
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
