//! GBIF's response shapes: an occurrence is an object keyed by Darwin Core terms
//! (the archive's columns, `key` first, a term without a value left out as GBIF
//! leaves it out, numbers as numbers, `elevation` in metres, `issues` the
//! record's quality flags), and a search is
//! `offset`, `limit`, `endOfRecords`, `count`, `results` and `facets`.

use std::io::Write as _;

use crate::encoding::json::{write_int, write_str};
use crate::model::dataset::Dataset;
use crate::quality::Quality;
use crate::view::occurrence::{Occurrences, Sink, Term};
use crate::view::View;

use super::search::{upper_snake, Found, Search};

/// Writes one occurrence's terms as `"term":value` members.
struct Members<'o> {
    out: &'o mut Vec<u8>,
    elevation: [Option<f64>; 2],
}

impl Members<'_> {
    fn key(&mut self, term: Term) {
        self.out.push(b',');
        write_str(self.out, term.name());
        self.out.push(b':');
    }
}

impl Sink for Members<'_> {
    fn text(&mut self, term: Term, s: &str) {
        if !s.is_empty() {
            self.key(term);
            write_str(self.out, s);
        }
    }

    fn int(&mut self, term: Term, n: Option<i64>) {
        if let Some(n) = n {
            self.key(term);
            write_int(self.out, n);
        }
    }

    fn float(&mut self, term: Term, n: Option<f64>) {
        match term {
            Term::MinimumElevationInMeters => self.elevation[0] = n,
            Term::MaximumElevationInMeters => self.elevation[1] = n,
            _ => {}
        }
        if let Some(n) = n {
            self.key(term);
            let _ = write!(self.out, "{n}");
        }
    }
}

/// Writes the occurrence of the specimen at `pos`.
pub fn occurrence(out: &mut Vec<u8>, view: &View, occurrences: &Occurrences, pos: usize) {
    let id = view
        .table(crate::model::Model::SpecimenRecord)
        .id(pos as u32);
    out.extend_from_slice(b"{\"key\":");
    write_int(out, id);
    let mut members = Members {
        out,
        elevation: [None, None],
    };
    occurrences.terms(pos, &mut members);
    if let [Some(low), Some(high)] = members.elevation {
        let _ = write!(out, ",\"elevation\":{}", (low + high) / 2.0);
    }
    out.extend_from_slice(b",\"issues\":[");
    for (i, flag) in view.derived::<Quality>().of(pos).iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, flag.name());
    }
    out.extend_from_slice(b"]}");
}

/// The body of one occurrence, as `dataset` publishes it (its codes and
/// occurrenceIDs, which records do not hold).
pub fn one(view: &View, dataset: &Dataset, pos: usize) -> Vec<u8> {
    let occurrences = Occurrences::new(view, dataset);
    let mut out = Vec::with_capacity(2048);
    occurrence(&mut out, view, &occurrences, pos);
    out
}

/// The body of a search's answer.
pub fn search(view: &View, dataset: &Dataset, search: &Search, found: &Found) -> Vec<u8> {
    let occurrences = Occurrences::new(view, dataset);
    let mut out = Vec::with_capacity(256 + found.page.len() * 1500);
    let _ = write!(
        out,
        "{{\"offset\":{},\"limit\":{},\"endOfRecords\":{},\"count\":{},\"results\":[",
        search.offset,
        search.limit,
        search.offset + search.limit >= found.count,
        found.count
    );
    for (i, &pos) in found.page.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        occurrence(&mut out, view, &occurrences, pos);
    }
    out.extend_from_slice(b"],\"facets\":[");
    for (i, facet) in found.facets.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"field\":");
        write_str(&mut out, &upper_snake(facet.field));
        out.extend_from_slice(b",\"counts\":[");
        for (j, (name, count)) in facet.counts.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            write_str(&mut out, name);
            let _ = write!(out, ",\"count\":{count}}}");
        }
        out.extend_from_slice(b"]}");
    }
    out.push(b']');
    if !search.notes.is_empty() {
        out.extend_from_slice(b",\"notes\":[");
        for (i, note) in search.notes.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(&mut out, note);
        }
        out.push(b']');
    }
    out.push(b'}');
    out
}
