//! `occurrence.txt`: one tab-separated row per specimen record, ascending by id,
//! its columns the terms of [`COLUMNS`] as `view::occurrence` reads them.

use std::io::Write;

use crate::model::Model;
use crate::view::occurrence::{Occurrences, Sink, COLUMNS};
use crate::view::View;

use super::dataset::Dataset;

/// One row of `occurrence.txt` being written: cells are separated by tabs, and a
/// tab, newline or carriage return inside a value becomes a space.
struct Line {
    buf: Vec<u8>,
    cells: usize,
}

impl Line {
    fn number(&mut self, n: Option<impl std::fmt::Display>) {
        match n {
            Some(n) => self.text(&n.to_string()),
            None => self.text(""),
        }
    }
}

impl Sink for Line {
    fn text(&mut self, s: &str) {
        if self.cells > 0 {
            self.buf.push(b'\t');
        }
        self.cells += 1;
        self.buf.extend(s.bytes().map(|b| {
            if matches!(b, b'\t' | b'\n' | b'\r') {
                b' '
            } else {
                b
            }
        }));
    }

    fn int(&mut self, n: Option<i64>) {
        self.number(n);
    }

    fn float(&mut self, n: Option<f64>) {
        self.number(n);
    }
}

/// The header line and one line per specimen record, ascending by id.
pub fn write(out: &mut impl Write, view: &View, dataset: &Dataset) -> std::io::Result<()> {
    let mut line = Line {
        buf: Vec::with_capacity(2048),
        cells: 0,
    };
    for (term, _) in COLUMNS {
        line.text(term);
    }
    line.buf.push(b'\n');
    out.write_all(&line.buf)?;
    let occurrences = Occurrences::new(view, &dataset.institution_code, &dataset.collection_code);
    for pos in 0..view.table(Model::SpecimenRecord).len() {
        line.buf.clear();
        line.cells = 0;
        occurrences.terms(pos, &mut line);
        line.buf.push(b'\n');
        out.write_all(&line.buf)?;
    }
    Ok(())
}
