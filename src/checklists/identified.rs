//! What a species checklist counts of each specimen, as plain numbers: its
//! taxon (one numbering across the ranks), its year and which (taxon,
//! locality) pair it is, and the taxa in the order a checklist lists them.
//! Built once per view on first use (a few milliseconds at 100,000 specimens),
//! so that counting a broad question is one pass over an array of 12-byte
//! records instead of three generic column reads a specimen: a taxon's
//! localities are counted by marking pairs seen, with no grouping, and its
//! taxa come out in order by walking them in that order, with no sort.

use ahash::AHashMap;

use crate::encoding::json::{write_int, write_str};
use crate::model::{Model, Type};

use crate::view::name::scientific_name_field;
use crate::view::{Derive, Value, View};

/// No taxon, no locality.
pub const NONE: u32 = u32::MAX;
/// No year.
pub const NO_YEAR: i32 = i32::MIN;

/// The ranks a taxon may have, most specific first, as numbered here.
pub const RANKS: [Model; 7] = Model::RANKS;

/// What is read of one specimen.
#[derive(Clone, Copy, Debug)]
pub struct Specimen {
    /// Its taxon's number, or [`NONE`].
    pub taxon: u32,
    /// Its year, or [`NO_YEAR`].
    pub year: i32,
    /// The number of its (taxon, locality) pair, or [`NONE`] without a
    /// locality or a taxon: specimens share a number when they share both.
    pub pair: u32,
}

/// The higher ranks a checklist's row names, from the least specific.
pub const CLASSIFICATION: [Model; 6] = [
    Model::Order,
    Model::Family,
    Model::Subfamily,
    Model::Tribe,
    Model::Genus,
    Model::Species,
];

/// A taxon's names: what a checklist's row says of it besides its counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaxonNames {
    pub rank: Model,
    /// Its id in its rank's table.
    pub id: i64,
    /// Its full name: a binomial, a trinomial, or the rank's name.
    pub scientific_name: Box<str>,
    pub authority: Box<str>,
    pub common_name: Box<str>,
    /// The names of the ranks above it and its own, by [`CLASSIFICATION`]
    /// (a species' name is its binomial); `None` where it has none.
    pub classification: [Option<Box<str>>; 6],
    /// Its JSON row before the counts (`{"id":..,"common_name":"..",`) and
    /// after them (`,"order":..,"species":..}`), written once, so a checklist
    /// of a thousand taxa copies them rather than escaping every name again.
    pub json_head: Box<[u8]>,
    pub json_tail: Box<[u8]>,
}

/// The columns.
#[derive(Debug, Default)]
pub struct Identified {
    /// Where each rank's taxa start in the one numbering (by [`RANKS`]), and
    /// the number of taxa last.
    starts: [u32; RANKS.len() + 1],
    /// Every specimen, by position.
    pub specimens: Vec<Specimen>,
    /// How many (taxon, locality) pairs there are.
    pub pairs: usize,
    /// The taxa's numbers in a checklist's order: by full name (binomial,
    /// trinomial or name), then by rank (most specific first), then by id.
    pub in_order: Vec<u32>,
    /// Every taxon's names, by its number.
    pub named: Vec<TaxonNames>,
}

impl Derive for Identified {
    fn derive(view: &View) -> Identified {
        Identified::build(view)
    }
}

impl Identified {
    /// Reads every specimen's taxon, year and locality, and orders the taxa.
    pub fn build(view: &View) -> Identified {
        let mut starts = [0u32; RANKS.len() + 1];
        for (r, &rank) in RANKS.iter().enumerate() {
            starts[r + 1] = starts[r] + view.table(rank).len() as u32;
        }
        let specimens = view.table(Model::SpecimenRecord);
        let field = |name: &str| {
            let f = Model::SpecimenRecord
                .field_index(name)
                .unwrap_or_else(|| panic!("a specimen has a field {name}"));
            specimens.column(f)
        };
        let (taxon, year, locality) = (field("taxon"), field("year"), field("locality"));
        let n = specimens.len();
        let mut out = Identified {
            starts,
            specimens: Vec::with_capacity(n),
            pairs: 0,
            in_order: Vec::new(),
            named: Vec::new(),
        };
        let mut pairs: AHashMap<(u32, u32), u32> = AHashMap::new();
        for pos in 0..n {
            let taxon = match taxon.get(pos) {
                Value::Ref(rank, p) => out.number(rank, p).unwrap_or(NONE),
                _ => NONE,
            };
            let pair = match locality.get(pos) {
                Value::Ref(_, l) if taxon != NONE => {
                    let next = pairs.len() as u32;
                    *pairs.entry((taxon, l)).or_insert(next)
                }
                _ => NONE,
            };
            let year = match year.get(pos) {
                Value::Int(y) => i32::try_from(y).unwrap_or(NO_YEAR),
                _ => NO_YEAR,
            };
            out.specimens.push(Specimen { taxon, year, pair });
        }
        out.pairs = pairs.len();
        out.named = (0..out.taxa() as u32)
            .map(|t| {
                let (rank, p) = out.taxon(t);
                named(view, rank, p)
            })
            .collect();
        out.in_order = in_order(&out.named);
        out
    }

    /// The number of a rank's taxon at position `p` of its table.
    pub fn number(&self, rank: Model, p: u32) -> Option<u32> {
        let r = RANKS.iter().position(|&m| m == rank)?;
        Some(self.starts[r] + p)
    }

    /// The rank and table position of taxon number `t`.
    pub fn taxon(&self, t: u32) -> (Model, u32) {
        let r = self.starts[1..].partition_point(|&end| end <= t);
        (RANKS[r], t - self.starts[r])
    }

    /// How many taxa there are, across the ranks.
    pub fn taxa(&self) -> usize {
        self.starts[RANKS.len()] as usize
    }
}

/// The taxa's numbers sorted by full name, then rank (most specific first),
/// then id.
fn in_order(named: &[TaxonNames]) -> Vec<u32> {
    let key = |t: u32| {
        let n = &named[t as usize];
        let rank = RANKS.iter().position(|&m| m == n.rank);
        (&*n.scientific_name, rank, n.id)
    };
    let mut order: Vec<u32> = (0..named.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| key(a).cmp(&key(b)));
    order
}

/// The names of the taxon at position `p` of its rank's table.
fn named(view: &View, rank: Model, p: u32) -> TaxonNames {
    let text = |m: Model, q: u32, field: &str| -> Box<str> {
        m.field_index(field)
            .and_then(|f| view.table(m).get(q as usize, f).as_str())
            .unwrap_or_default()
            .into()
    };
    let mut classification: [Option<Box<str>>; 6] = Default::default();
    // The taxon and each rank above it, by their parents.
    let (mut m, mut q) = (rank, p);
    loop {
        if let Some(i) = CLASSIFICATION.iter().position(|&c| c == m) {
            classification[i] = Some(text(m, q, scientific_name_field(m)));
        }
        let parent = m
            .fields()
            .iter()
            .position(|f| matches!(f.ty, Type::Parent(_)));
        match parent.map(|f| view.table(m).get(q as usize, f)) {
            Some(Value::Ref(up, at)) if RANKS.contains(&up) => (m, q) = (up, at),
            _ => break,
        }
    }
    let mut named = TaxonNames {
        rank,
        id: view.table(rank).id(p),
        scientific_name: text(rank, p, scientific_name_field(rank)),
        authority: text(rank, p, "authority"),
        common_name: text(rank, p, "common_name"),
        classification,
        json_head: Box::default(),
        json_tail: Box::default(),
    };
    let mut head = b"{\"id\":".to_vec();
    write_int(&mut head, named.id);
    head.extend_from_slice(b",\"rank\":");
    write_str(&mut head, rank.rank_name().unwrap_or_default());
    for (key, value) in [
        ("scientific_name", &named.scientific_name),
        ("authority", &named.authority),
        ("common_name", &named.common_name),
    ] {
        head.push(b',');
        write_str(&mut head, key);
        head.push(b':');
        write_str(&mut head, value);
    }
    head.push(b',');
    let mut tail = Vec::new();
    for (rank, name) in CLASSIFICATION.iter().zip(&named.classification) {
        tail.push(b',');
        write_str(&mut tail, rank.rank_name().unwrap_or_default());
        tail.push(b':');
        match name {
            Some(name) => write_str(&mut tail, name),
            None => tail.extend_from_slice(b"null"),
        }
    }
    tail.push(b'}');
    (named.json_head, named.json_tail) = (head.into(), tail.into());
    named
}
