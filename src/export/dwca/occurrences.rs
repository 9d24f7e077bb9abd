//! The rows of `occurrence.txt` (tab-separated), and of a CSV download with
//! `columns=dwc` (RFC 4180): one per specimen record, its cells the terms of
//! `COLUMNS` as `view::occurrence` reads them.

use std::io::Write;

use crate::model::Model;
use crate::quality::Quality;
use crate::view::occurrence::{Occurrences, Sink, Term};
use crate::view::View;

use crate::model::dataset::Dataset;

/// How a row's cells are separated and spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `occurrence.txt`: tabs between cells, no quotes (a tab, newline or
    /// carriage return inside a value becomes a space), lines ended by LF.
    Tab,
    /// RFC 4180, as a CSV download with `columns=dwc` is: values kept whole,
    /// and after the terms an `issue` column, the record's quality flags
    /// separated by `;` (as GBIF's downloads write them).
    Csv,
}

/// A cell of a tab-separated file: a tab, newline or carriage return inside
/// the value becomes a space, and its control characters go
/// ([`crate::encoding::controls`]).
pub fn tab_cell(buf: &mut Vec<u8>, s: &str) {
    buf.extend(s.bytes().filter_map(|b| match b {
        b'\t' | b'\n' | b'\r' => Some(b' '),
        0..=0x1f | 0x7f => None,
        b => Some(b),
    }));
}

/// One row being written, in a dialect.
struct Line {
    buf: Vec<u8>,
    cells: usize,
    dialect: Dialect,
}

impl Line {
    fn end(&mut self) {
        match self.dialect {
            Dialect::Tab => self.buf.push(b'\n'),
            Dialect::Csv => crate::encoding::csv::end_record(&mut self.buf),
        }
    }

    fn number(&mut self, term: Term, n: Option<impl std::fmt::Display>) {
        match n {
            Some(n) => self.text(term, &n.to_string()),
            None => self.text(term, ""),
        }
    }
}

impl Sink for Line {
    fn text(&mut self, term: Term, s: &str) {
        // A line is written in order: a term out of its place is a bug, and
        // every test that writes a specimen finds it.
        debug_assert_eq!(
            term.index(),
            self.cells,
            "{term:?} out of its column in occurrence.txt"
        );
        if self.dialect == Dialect::Csv {
            crate::encoding::csv::write_cell(&mut self.buf, self.cells == 0, s);
            self.cells += 1;
            return;
        }
        if self.cells > 0 {
            self.buf.push(b'\t');
        }
        self.cells += 1;
        tab_cell(&mut self.buf, s);
    }

    fn int(&mut self, term: Term, n: Option<i64>) {
        self.number(term, n);
    }

    fn float(&mut self, term: Term, n: Option<f64>) {
        self.number(term, n);
    }
}

/// The header line and one line per specimen record, ascending by id, or
/// per record at `positions` in their order.
pub fn write(
    out: &mut impl Write,
    view: &View,
    dataset: &Dataset,
    positions: Option<&[usize]>,
) -> std::io::Result<()> {
    out.write_all(&header(Dialect::Tab))?;
    let all: Vec<usize>;
    let positions = match positions {
        Some(p) => p,
        None => {
            all = (0..view.table(Model::SpecimenRecord).len()).collect();
            &all
        }
    };
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in positions.chunks(256) {
        buf.clear();
        rows(&mut buf, view, dataset, chunk, Dialect::Tab);
        out.write_all(&buf)?;
    }
    Ok(())
}

/// The header line: the columns' terms.
pub fn header(dialect: Dialect) -> Vec<u8> {
    let mut line = Line {
        buf: Vec::with_capacity(1024),
        cells: 0,
        dialect,
    };
    for &term in Term::ALL {
        line.text(term, term.name());
    }
    if dialect == Dialect::Csv {
        crate::encoding::csv::write_cell(&mut line.buf, false, ISSUE);
    }
    line.end();
    line.buf
}

/// The CSV's column after the terms: the quality flags.
pub const ISSUE: &str = "issue";

/// Appends the lines of the specimen records at `positions`, in their order.
pub fn rows(
    out: &mut Vec<u8>,
    view: &View,
    dataset: &Dataset,
    positions: &[usize],
    dialect: Dialect,
) {
    let mut line = Line {
        buf: std::mem::take(out),
        cells: 0,
        dialect,
    };
    let occurrences = Occurrences::new(view, dataset);
    let quality = (dialect == Dialect::Csv).then(|| view.derived::<Quality>());
    for &pos in positions {
        line.cells = 0;
        occurrences.terms(pos, &mut line);
        if let Some(quality) = quality {
            let flags: Vec<&str> = quality.of(pos).iter().map(|f| f.name()).collect();
            crate::encoding::csv::write_cell(&mut line.buf, false, &flags.join(";"));
        }
        line.end();
    }
    *out = line.buf;
}
