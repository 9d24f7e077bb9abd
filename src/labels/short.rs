//! Short links (`/s/{digits}`): a specimen named by its USI's digits, every
//! ASCII digit in order (`MEM-000367` is `000367`), as the service's QR labels
//! name it. Which specimens each code names is derived from the view once, on
//! first use (by a short link or by a sheet whose codes say them), and kept
//! with it.

use crate::model::endpoint::{API_PREFIX, SHORT_PATH};
use crate::model::Model;
use crate::view::{Derive, View};

/// A USI's digits, in order: its short code (empty for a USI without any).
pub fn digits(usi: &str) -> impl Iterator<Item = char> + '_ {
    usi.chars().filter(char::is_ascii_digit)
}

/// Whether `code` can be a short code at all: one ASCII digit or more.
pub fn is_code(code: &str) -> bool {
    !code.is_empty() && code.bytes().all(|b| b.is_ascii_digit())
}

/// The short link of `code`, from the server's root (`/s/000367`).
pub fn path(code: &str) -> String {
    SHORT_PATH.replace("{digits}", code)
}

/// Where a short link leads: the record of the specimen `id`, from the
/// server's root (`/api/v2/specimen-records/12/`).
pub fn record(id: i64) -> String {
    format!("{API_PREFIX}{}/{id}/", Model::SpecimenRecord.path())
}

/// The specimen a short code names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodedSpecimen {
    /// The lowest id of the specimens whose USI has these digits.
    pub id: i64,
    /// It is the only one.
    pub alone: bool,
}

/// The specimens whose USI has a digit, by position, ordered by their digits
/// and then by id: the specimens of a code are one run of it, the lowest id
/// first. Four bytes a specimen; a code is found by binary search, reading the
/// USIs from the view.
#[derive(Debug, Default)]
pub struct ShortLinks {
    order: Vec<u32>,
}

/// What the short links read of the specimens: the view's, or a test's.
trait Specimens {
    fn count(&self) -> usize;
    fn usi(&self, pos: u32) -> &str;
    fn id(&self, pos: u32) -> i64;
}

impl Specimens for View {
    fn count(&self) -> usize {
        self.table(Model::SpecimenRecord).len()
    }

    fn usi(&self, pos: u32) -> &str {
        self.value(Model::SpecimenRecord, pos, "usi")
            .as_str()
            .unwrap_or("")
    }

    fn id(&self, pos: u32) -> i64 {
        self.table(Model::SpecimenRecord).id(pos)
    }
}

impl Derive for ShortLinks {
    fn derive(view: &View) -> ShortLinks {
        ShortLinks::build(view)
    }
}

impl ShortLinks {
    fn build(specimens: &impl Specimens) -> ShortLinks {
        let mut order: Vec<u32> = (0..specimens.count() as u32)
            .filter(|&pos| digits(specimens.usi(pos)).next().is_some())
            .collect();
        order.sort_by_cached_key(|&pos| {
            let code: String = digits(specimens.usi(pos)).collect();
            (code, specimens.id(pos))
        });
        ShortLinks { order }
    }

    /// The specimen `code` names in `view`, if any specimen's USI has exactly
    /// these digits (`000367`, not `367`).
    pub fn find(&self, view: &View, code: &str) -> Option<CodedSpecimen> {
        self.find_in(view, code)
    }

    /// Whether the digits of `usi` name the specimen `id` and no other: its
    /// short link leads to it whatever else the collection holds.
    pub fn names_alone(&self, view: &View, usi: &str, id: i64) -> bool {
        let code: String = digits(usi).collect();
        is_code(&code) && self.find(view, &code) == Some(CodedSpecimen { id, alone: true })
    }

    fn find_in(&self, specimens: &impl Specimens, code: &str) -> Option<CodedSpecimen> {
        if !is_code(code) {
            return None;
        }
        let of = |pos: u32| digits(specimens.usi(pos)).cmp(code.chars());
        let first = self
            .order
            .partition_point(|&pos| of(pos) == std::cmp::Ordering::Less);
        let mut run = self.order[first..]
            .iter()
            .take_while(|&&pos| of(pos).is_eq());
        let lowest = *run.next()?;
        Some(CodedSpecimen {
            id: specimens.id(lowest),
            alone: run.next().is_none(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Specimens as (USI, id), by position.
    struct Rows(Vec<(&'static str, i64)>);

    impl Specimens for Rows {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn usi(&self, pos: u32) -> &str {
            self.0[pos as usize].0
        }
        fn id(&self, pos: u32) -> i64 {
            self.0[pos as usize].1
        }
    }

    fn rows() -> Rows {
        Rows(vec![
            ("MEM-000367", 12),
            ("MEM-000001", 3),
            ("UMMZ 2019-04", 40),
            ("MEM-000002", 9),
            ("OLD-000002", 5),
            ("MEM-2019-04", 41),
            ("no digits", 7),
            ("", 8),
            ("MEM-000003", 1),
        ])
    }

    #[test]
    fn a_code_is_every_digit_of_the_usi_in_order() {
        assert_eq!(digits("MEM-000367").collect::<String>(), "000367");
        assert_eq!(digits("UMMZ 2019-04 b7").collect::<String>(), "2019047");
        assert_eq!(digits("MEM-٣").collect::<String>(), "", "ASCII digits only");
        assert!(is_code("000367"));
        for not in ["", "36a", "%30", "3 6", "٣"] {
            assert!(!is_code(not), "{not:?}");
        }
        assert_eq!(path("000367"), "/s/000367");
        assert_eq!(record(12), "/api/v2/specimen-records/12/");
    }

    #[test]
    fn a_code_names_the_specimens_with_exactly_its_digits() {
        let rows = rows();
        let links = ShortLinks::build(&rows);
        let find = |code: &str| links.find_in(&rows, code);
        assert_eq!(
            find("000367"),
            Some(CodedSpecimen {
                id: 12,
                alone: true
            })
        );
        assert_eq!(find("000001"), Some(CodedSpecimen { id: 3, alone: true }));
        assert_eq!(find("000003"), Some(CodedSpecimen { id: 1, alone: true }));
        // Shared: the lowest id, not alone, whatever the order of the rows.
        assert_eq!(
            find("000002"),
            Some(CodedSpecimen {
                id: 5,
                alone: false
            })
        );
        assert_eq!(
            find("201904"),
            Some(CodedSpecimen {
                id: 40,
                alone: false
            })
        );
        // Not a prefix, a suffix or the number: the digits as written.
        for none in ["367", "0003670", "00036", "1", "0", "999999", "x", ""] {
            assert_eq!(find(none), None, "{none:?}");
        }
        // A USI without digits has no code, and is not kept.
        assert_eq!(links.order.len(), 7);
    }

    #[test]
    fn no_specimens_no_codes() {
        let rows = Rows(Vec::new());
        let links = ShortLinks::build(&rows);
        assert_eq!(links.find_in(&rows, "000001"), None);
    }
}
