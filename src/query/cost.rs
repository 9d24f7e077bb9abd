//! What answering a question costs, decided when it is parsed: the one rule for
//! where an answer is made. The async workers only cut slices of bytes rendered
//! at load; everything else is made on the threads for answers that cost work.

/// What answering a plan costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    /// A run of the list's rendered bytes, cut as they are: next to nothing,
    /// made on the async workers.
    Slice,
    /// A run of the list's records written anew (`fields`, GeoJSON features, a
    /// page's rows): nothing to choose, but as much writing as the page is long.
    Run,
    /// Filtering, searching, sorting or counting facets: work in proportion to
    /// the collection (counting every distinct `usi` of a million rows takes
    /// milliseconds), never done on the async workers.
    Work,
}

impl Cost {
    /// The cost of a question whose records are a run of the list (`run`), whose
    /// items keep their rendered bytes (`rendered`), and which counts facets or not.
    pub fn of(run: bool, rendered: bool, facets: bool) -> Cost {
        match (run && !facets, rendered) {
            (true, true) => Cost::Slice,
            (true, false) => Cost::Run,
            (false, _) => Cost::Work,
        }
    }

    /// Whether the answer is made on the threads for answers that cost work.
    pub fn on_pool(self) -> bool {
        self != Cost::Slice
    }

    /// The cost of the same question answered as a page for people, whose rows
    /// are always written anew.
    pub fn as_page(self) -> Cost {
        match self {
            Cost::Slice => Cost::Run,
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rendered_runs_without_facets_are_slices() {
        assert_eq!(Cost::of(true, true, false), Cost::Slice);
        assert_eq!(Cost::of(true, false, false), Cost::Run);
        assert_eq!(Cost::of(true, true, true), Cost::Work);
        assert_eq!(Cost::of(false, true, false), Cost::Work);
        assert!(!Cost::Slice.on_pool());
        assert!(Cost::Run.on_pool() && Cost::Work.on_pool());
        assert_eq!(Cost::Slice.as_page(), Cost::Run);
        assert_eq!(Cost::Work.as_page(), Cost::Work);
    }
}
