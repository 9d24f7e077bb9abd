//! A sheet: the labels of the specimens a question chose, in its order, laid
//! out page by page. It is written as PDF, as CSV of the label lines, or as a
//! preview of its first page, each a piece at a time from the view; and it says
//! which labels do not fit before any of them is written.

use std::fmt::Write as _;

use crate::encoding::csv::Record;
use crate::encoding::xml;
use crate::view::View;

use super::address::Address;
use super::content::{lines, plain, Kind, Label, Line, Reader};
use super::layout::{Layout, Mark};
use super::note;
use super::pdf::PdfWriter;
use super::qr::Symbol;

/// Labels written in one CSV piece.
const CSV_ROWS: usize = 2000;

/// A label that does not fit: its USI and the lines that overflow (`code` when
/// its code cannot hold the address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    pub usi: String,
    pub lines: Vec<&'static str>,
}

/// The labels of a question, laid out.
pub struct Sheet {
    pub kind: Kind,
    pub layout: Layout,
    /// What the codes say, when the labels carry codes.
    pub code: Address,
    /// The specimens' positions, in the question's order.
    pub positions: Vec<usize>,
}

impl Sheet {
    /// Pages the sheet takes (one, empty, for no labels).
    pub fn pages(&self) -> usize {
        self.positions.len().div_ceil(self.layout.per_page()).max(1)
    }

    fn label(&self, reader: &Reader, at: usize) -> Label {
        reader.label(self.kind, self.positions[at])
    }

    /// Measures every label once, in the sheet's order: the sheet ready to be
    /// drawn, and the labels that do not fit (`code` among their lines when
    /// the code cannot hold the address).
    pub fn fit(self, view: &View) -> (Fitted, Vec<Overflow>) {
        let reader = Reader::new(view);
        let mut sizes = Vec::with_capacity(self.positions.len() * lines(self.kind).len());
        let mut found = Vec::new();
        for at in 0..self.positions.len() {
            let label = self.label(&reader, at);
            let fit = self.layout.fit(&label);
            debug_assert_eq!(fit.sizes.len(), lines(self.kind).len());
            sizes.extend_from_slice(&fit.sizes);
            let mut lines: Vec<&'static str> = fit.overflow.iter().map(|l| l.name()).collect();
            let address = self
                .layout
                .has_code()
                .then(|| self.code.fill(view, &label.usi, label.id));
            if address.is_some_and(|a| a.len() > Symbol::MAX_BYTES) {
                lines.push("code");
            }
            if !lines.is_empty() {
                found.push(Overflow {
                    usi: label.usi,
                    lines,
                });
            }
        }
        (Fitted { sheet: self, sizes }, found)
    }

    /// The CSV's header: the USI, a column a line, and the code's text where the
    /// labels carry one.
    pub fn csv_header(&self) -> Vec<u8> {
        // The USI first, as the specimen's name, unless it is a line already.
        let mut names: Vec<&str> = Vec::new();
        if !lines(self.kind).contains(&Line::Usi) {
            names.push("usi");
        }
        names.extend(lines(self.kind).iter().map(|l| l.name()));
        let mut row = names.join(",");
        if self.layout.has_code() {
            row.push_str(",code");
        }
        row.push_str("\r\n");
        row.into_bytes()
    }

    /// CSV rows `piece * CSV_ROWS ..`, or `None` past the last.
    pub fn csv_rows(&self, view: &View, piece: usize) -> Option<Vec<u8>> {
        let from = piece * CSV_ROWS;
        if from >= self.positions.len() {
            return None;
        }
        let to = (from + CSV_ROWS).min(self.positions.len());
        let reader = Reader::new(view);
        let mut out = Vec::new();
        for at in from..to {
            let label = self.label(&reader, at);
            let mut cells = Vec::with_capacity(label.lines.len() + 2);
            if !lines(self.kind).contains(&Line::Usi) {
                cells.push(label.usi.clone());
            }
            cells.extend(label.lines.iter().map(|l| plain(l)));
            let mut record = Record::new(&mut out);
            cells.iter().for_each(|cell| record.cell(cell));
            if self.layout.has_code() {
                record.cell(&self.code.fill(view, &label.usi, label.id));
            }
            record.end();
        }
        Some(out)
    }
}

/// A sheet whose labels are measured: each line's size, label after label in
/// the sheet's order, so a page is drawn without measuring again.
pub struct Fitted {
    pub sheet: Sheet,
    sizes: Vec<f32>,
}

impl Fitted {
    /// The marks of page `page`.
    pub fn marks(&self, view: &View, page: usize) -> Vec<Mark> {
        let sheet = &self.sheet;
        let reader = Reader::new(view);
        let per_page = sheet.layout.per_page();
        let per_label = lines(sheet.kind).len();
        let from = (page * per_page).min(sheet.positions.len());
        let to = (from + per_page).min(sheet.positions.len());
        let mut marks = Vec::new();
        for at in from..to {
            let label = sheet.label(&reader, at);
            let symbol = sheet
                .layout
                .has_code()
                .then(|| Symbol::encode(&sheet.code.fill(view, &label.usi, label.id)))
                .flatten();
            let sizes = &self.sizes[at * per_label..(at + 1) * per_label];
            marks.extend(sheet.layout.place(at - from, &label, symbol, sizes));
        }
        marks
    }

    /// The first page as SVG, one unit a point, drawn from the same marks as
    /// the PDF.
    pub fn preview(&self, view: &View) -> String {
        let [w, h] = self.sheet.layout.page;
        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sheet\" viewBox=\"0 0 {w} {h}\" \
             font-family=\"Liberation Sans, Arial, Helvetica, sans-serif\">\
             <rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>"
        );
        for (k, mark) in self.marks(view, 0).into_iter().enumerate() {
            match mark {
                Mark::Border {
                    x,
                    y,
                    w,
                    h: bh,
                    line,
                } => {
                    let top = h - y - bh;
                    let _ = write!(
                        svg,
                        "<rect x=\"{x:.2}\" y=\"{top:.2}\" width=\"{w:.2}\" height=\"{bh:.2}\" \
                         fill=\"none\" stroke=\"#000\" stroke-width=\"{line}\"/>"
                    );
                }
                Mark::Code { x, y, size, symbol } => {
                    let m = size / symbol.span() as f32;
                    let quiet = super::qr::QUIET as f32 * m;
                    let (left, top) = (x + quiet, h - y - size + quiet);
                    let _ = write!(
                        svg,
                        "<path transform=\"translate({left:.3} {top:.3}) scale({m:.4})\" d=\""
                    );
                    for (row, col, len) in &symbol.runs {
                        let _ = write!(svg, "M{col} {row}h{len}v1h-{len}z");
                    }
                    svg.push_str("\"/>");
                }
                Mark::Text {
                    x,
                    y,
                    size,
                    end,
                    spans,
                } => {
                    // Placed by the PDF's widths, so the preview shows what prints.
                    let start = Mark::text_start(x, size, end, &spans);
                    let _ = write!(
                        svg,
                        "<text x=\"{start:.2}\" y=\"{:.2}\" font-size=\"{size:.2}\">",
                        h - y
                    );
                    for span in &spans {
                        let italic = match span.style {
                            super::font::Style::Italic => " font-style=\"italic\"",
                            super::font::Style::Regular => "",
                        };
                        let _ = write!(svg, "<tspan{italic}>");
                        xml::push_escaped(&mut svg, &span.text);
                        svg.push_str("</tspan>");
                    }
                    svg.push_str("</text>");
                }
                // A label's content stays inside it, as in the PDF.
                Mark::Clip { x, y, w, h: ch } => {
                    let top = h - y - ch;
                    let _ = write!(
                        svg,
                        "<clipPath id=\"c{k}\"><rect x=\"{x:.2}\" y=\"{top:.2}\" width=\"{w:.2}\" \
                         height=\"{ch:.2}\"/></clipPath><g clip-path=\"url(#c{k})\">"
                    );
                }
                Mark::Unclip => svg.push_str("</g>"),
            }
        }
        svg.push_str("</svg>");
        svg
    }
}

/// A PDF sheet being written, a page a piece: the labels' pages, then the
/// note's (`note`), then the file's end.
pub struct PdfPieces {
    sheet: Fitted,
    writer: Option<PdfWriter>,
    next: usize,
    /// The note's pages, written after the labels'.
    note: std::vec::IntoIter<Vec<Mark>>,
}

impl PdfPieces {
    /// The pieces of `sheet`, which ends with a page of `note` (its lines) when
    /// there is one, and the file's first bytes.
    pub fn new(sheet: Fitted, note: Option<Vec<String>>) -> (PdfPieces, Vec<u8>) {
        let page = sheet.sheet.layout.page;
        let (writer, head) = PdfWriter::new(page);
        let note = note
            .map(|lines| note::pages(page, &lines))
            .unwrap_or_default();
        let pieces = PdfPieces {
            sheet,
            writer: Some(writer),
            next: 0,
            note: note.into_iter(),
        };
        (pieces, head)
    }

    /// The next page, then the file's end, then `None`.
    pub fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        let writer = self.writer.as_mut()?;
        let sheet = &self.sheet.sheet;
        if self.next < sheet.pages() && !sheet.positions.is_empty() {
            let marks = self.sheet.marks(view, self.next);
            self.next += 1;
            return Some(writer.page(&marks));
        }
        if let Some(marks) = self.note.next() {
            return Some(writer.page(&marks));
        }
        self.writer.take().map(PdfWriter::finish)
    }
}

/// A CSV sheet being written, rows a piece.
pub struct CsvPieces {
    sheet: Sheet,
    next: usize,
}

impl CsvPieces {
    /// The pieces of `sheet`, and its header row.
    pub fn new(sheet: Sheet) -> (CsvPieces, Vec<u8>) {
        let head = sheet.csv_header();
        (CsvPieces { sheet, next: 0 }, head)
    }

    pub fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        let rows = self.sheet.csv_rows(view, self.next)?;
        self.next += 1;
        Some(rows)
    }
}
