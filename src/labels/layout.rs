//! Where everything on a sheet goes: the page, the grid of labels and the order
//! they fill it, and inside a label its border, code and lines, each line
//! shrunk to fit down to a floor and reported when even that is too large. The
//! PDF and the preview draw the same [`Mark`]s.

use super::content::{lines, Kind, Label, Line, Span, Text};
use super::font::Style;
use super::qr::Symbol;
use super::request::{Choices, Paper};

/// Points in a millimetre.
pub const PT_PER_MM: f32 = 72.0 / 25.4;

/// The smallest size a line is shrunk to; past it, the line overflows.
pub const FLOOR_PT: f32 = 3.0;

/// Line spacing, in multiples of the font size.
const LEADING: f32 = 1.15;

/// The order labels fill a page in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fill {
    /// Down the first column, then the next (the service's QR sheet).
    DownColumns,
    /// Across the first row, then the next.
    AcrossRows,
}

/// Where a label's QR code goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Code {
    /// A square of `size` points, `inset` from the top and right edges.
    TopRight { size: f32, inset: f32 },
    /// A square as tall as the label less `inset` above and below, at its left.
    Left { inset: f32 },
}

/// Where a label's lines go.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lines {
    /// One line, its right end `right` points from the label's right edge and its
    /// baseline `baseline` points above the bottom.
    BottomRight { right: f32, baseline: f32 },
    /// Lines from the top left, `pad` points inside the edges (and right of a
    /// code on the left).
    Block { pad: f32 },
}

/// A sheet's geometry, in points, PDF's way up (the origin at the bottom left).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub page: [f32; 2],
    pub label: [f32; 2],
    /// The first label's left and top edges, from the page's left and top.
    left: f32,
    top: f32,
    gap: [f32; 2],
    pub columns: usize,
    pub rows: usize,
    fill: Fill,
    pub font: f32,
    /// Border line width, if drawn.
    border: Option<f32>,
    code: Option<Code>,
    lines: Lines,
}

/// Something drawn on a page: a label's border, its code, a line of text.
#[derive(Clone, Debug)]
pub enum Mark {
    Border {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        line: f32,
    },
    /// The code's square: its bottom left corner and side, quiet zone included.
    Code {
        x: f32,
        y: f32,
        size: f32,
        symbol: Symbol,
    },
    /// A line: where its baseline starts (or ends, `end`), its size, its spans.
    Text {
        x: f32,
        y: f32,
        size: f32,
        end: bool,
        spans: Text,
    },
    /// Everything after this, up to `Unclip`, stays inside the label's box.
    Clip {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
    Unclip,
}

/// A label measured: the size each line is written at (nothing for an empty
/// line of a block), and which lines do not fit. Measuring is the costly part
/// of laying a label out (every glyph's width); placing it from the sizes is
/// arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    pub sizes: Vec<f32>,
    pub overflow: Vec<Line>,
}

impl Layout {
    /// The service's QR sheet: US Letter, 25 columns of 24 rows of 24.48 x 33 pt
    /// cells filled down each column, each with a border, a 20 pt code 2 pt in
    /// from its top right corner, and the USI in 3 pt type 3 pt from its right
    /// edge on a baseline 3 pt above its bottom.
    pub fn service_sheet() -> Layout {
        Layout {
            page: Paper::Letter.size(),
            label: [24.48, 33.0],
            left: 0.0,
            top: 0.0,
            gap: [0.0, 0.0],
            columns: 25,
            rows: 24,
            fill: Fill::DownColumns,
            font: 3.0,
            border: Some(0.5),
            code: Some(Code::TopRight {
                size: 20.0,
                inset: 2.0,
            }),
            lines: Lines::BottomRight {
                right: 3.0,
                baseline: 3.0,
            },
        }
    }

    /// The layout of `kind` with the request's choices; defaults are what
    /// entomologists print: 4 pt type, 24 x 10 mm labels (10 mm wider with a
    /// code), 10 mm margins and 1 mm between labels on US Letter.
    pub fn new(kind: Kind, c: &Choices) -> Layout {
        if kind == Kind::Qr && c.none() {
            return Layout::service_sheet();
        }
        let service = Layout::service_sheet();
        let (width, height, font) = match kind {
            Kind::Qr => (
                service.label[0] / PT_PER_MM,
                service.label[1] / PT_PER_MM,
                service.font,
            ),
            Kind::Data | Kind::Determination if c.qr => (34.0, 10.0, 4.0),
            Kind::Data | Kind::Determination => (24.0, 10.0, 4.0),
        };
        let page = c.paper.unwrap_or(Paper::Letter).size();
        let label = [
            c.width_mm.unwrap_or(width) * PT_PER_MM,
            c.height_mm.unwrap_or(height) * PT_PER_MM,
        ];
        let margin = c.margin_mm.unwrap_or(10.0) * PT_PER_MM;
        let gap = c.gap_mm.unwrap_or(1.0) * PT_PER_MM;
        let fit =
            |room: f32, size: f32| (((room - 2.0 * margin + gap) / (size + gap)) as usize).max(1);
        let (code, lines) = match kind {
            Kind::Qr => (
                Some(Code::TopRight {
                    size: (label[0] - 4.0).min(label[1] - 13.0).max(1.0),
                    inset: 2.0,
                }),
                Lines::BottomRight {
                    right: 3.0,
                    baseline: 3.0,
                },
            ),
            _ => (
                c.qr.then_some(Code::Left { inset: 1.0 }),
                Lines::Block { pad: 1.5 },
            ),
        };
        Layout {
            page,
            label,
            left: margin,
            top: margin,
            gap: [gap, gap],
            columns: fit(page[0], label[0]),
            rows: fit(page[1], label[1]),
            fill: Fill::AcrossRows,
            font: c.font_pt.unwrap_or(font),
            border: Some(0.25),
            code,
            lines,
        }
    }

    /// Labels on a page.
    pub fn per_page(&self) -> usize {
        self.columns * self.rows
    }

    /// Whether a label carries a code.
    pub fn has_code(&self) -> bool {
        self.code.is_some()
    }

    /// The bottom left corner of the label in slot `slot` of its page.
    pub fn corner(&self, slot: usize) -> [f32; 2] {
        let (column, row) = match self.fill {
            Fill::DownColumns => (slot / self.rows, slot % self.rows),
            Fill::AcrossRows => (slot % self.columns, slot / self.columns),
        };
        let x = self.left + column as f32 * (self.label[0] + self.gap[0]);
        let top = self.top + row as f32 * (self.label[1] + self.gap[1]);
        [x, self.page[1] - top - self.label[1]]
    }

    /// Measures `label`'s lines: the size each is written at, and which do
    /// not fit (too wide even at the floor, a character the typeface cannot
    /// write, or below a block's bottom edge).
    pub fn fit(&self, label: &Label) -> Fit {
        let [w, h] = self.label;
        let mut sizes = Vec::with_capacity(label.lines.len());
        let mut overflow = Vec::new();
        match self.lines {
            Lines::BottomRight { right, .. } => {
                let room = w - right - 1.0;
                for (spans, &line) in label.lines.iter().zip(lines(label.kind)) {
                    let (size, fits) = shrink(spans, self.font, room);
                    if !fits {
                        overflow.push(line);
                    }
                    sizes.push(size);
                }
            }
            Lines::Block { pad } => {
                let (left, size) = self.block(pad, label);
                let room = w - pad - left;
                let descent = Style::Regular.face().descent;
                // From the label's bottom edge.
                let mut baseline = h - pad - Style::Regular.face().ascent * size;
                for (spans, &line) in label.lines.iter().zip(lines(label.kind)) {
                    if spans.is_empty() {
                        sizes.push(0.0);
                        continue;
                    }
                    let (line_size, fits) = shrink(spans, size, room);
                    if !fits || baseline + descent * line_size < pad - 0.01 {
                        overflow.push(line);
                    }
                    sizes.push(line_size);
                    baseline -= size * LEADING;
                }
            }
        }
        Fit { sizes, overflow }
    }

    /// A block's left edge from the label's (past a code on the left), and
    /// its size: the font, or smaller so every written line is inside.
    fn block(&self, pad: f32, label: &Label) -> (f32, f32) {
        let [w, h] = self.label;
        let code = match self.code {
            Some(Code::Left { inset }) => inset + (h - 2.0 * inset).min(w / 2.0),
            _ => 0.0,
        };
        let written = label.lines.iter().filter(|l| !l.is_empty()).count();
        let n = written.max(1) as f32;
        let size = self
            .font
            .min((h - 2.0 * pad) / (n * LEADING))
            .max(FLOOR_PT.min(self.font));
        (code + pad, size)
    }

    /// What to draw for `label` in slot `slot`, its lines at the sizes `fit`
    /// measured.
    pub fn place(
        &self,
        slot: usize,
        label: &Label,
        symbol: Option<Symbol>,
        fit: &[f32],
    ) -> Vec<Mark> {
        let [x, y] = self.corner(slot);
        let [w, h] = self.label;
        let mut marks = Vec::with_capacity(4 + label.lines.len());
        if let Some(line) = self.border {
            marks.push(Mark::Border { x, y, w, h, line });
        }
        marks.push(Mark::Clip { x, y, w, h });
        if let (Some(place), Some(symbol)) = (self.code, symbol) {
            let (cx, cy, size) = match place {
                Code::TopRight { size, inset } => {
                    (x + w - inset - size, y + h - inset - size, size)
                }
                Code::Left { inset } => {
                    let size = (h - 2.0 * inset).min(w / 2.0);
                    (x + inset, y + inset, size)
                }
            };
            marks.push(Mark::Code {
                x: cx,
                y: cy,
                size,
                symbol,
            });
        }
        match self.lines {
            Lines::BottomRight { right, baseline } => {
                for (spans, &size) in label.lines.iter().zip(fit) {
                    marks.push(Mark::Text {
                        x: x + w - right,
                        y: y + baseline,
                        size,
                        end: true,
                        spans: spans.clone(),
                    });
                }
            }
            Lines::Block { pad } => {
                let (left, size) = self.block(pad, label);
                let mut baseline = y + h - pad - Style::Regular.face().ascent * size;
                for (spans, &line_size) in label.lines.iter().zip(fit) {
                    if spans.is_empty() {
                        continue;
                    }
                    marks.push(Mark::Text {
                        x: x + left,
                        y: baseline,
                        size: line_size,
                        end: false,
                        spans: spans.clone(),
                    });
                    baseline -= size * LEADING;
                }
            }
        }
        marks.push(Mark::Unclip);
        marks
    }
}

impl Mark {
    /// Where a line's baseline starts: at its `x`, or its width before it when
    /// `x` is its end (the PDF and the preview place it alike).
    pub fn text_start(x: f32, size: f32, end: bool, spans: &[Span]) -> f32 {
        match end {
            true => x - width(spans, size),
            false => x,
        }
    }
}

/// How wide spans are at `size` points.
pub fn width(spans: &[Span], size: f32) -> f32 {
    spans
        .iter()
        .map(|s| s.style.face().width(&s.text, size))
        .sum()
}

/// The size a line is written at to fit `room` points: `size`, or smaller down to
/// the floor; and whether it fits at that.
/// A character the typeface has no glyph for prints as an empty box: the line
/// does not fit either.
fn shrink(spans: &Text, size: f32, room: f32) -> (f32, bool) {
    let (em, written) = spans.iter().fold((0.0, true), |(em, all), s| {
        let (w, ok) = s.style.face().measure(&s.text);
        (em + w, all && ok)
    });
    if em * size <= room {
        return (size, written);
    }
    let floor = FLOOR_PT.min(size);
    let fitted = (room / em).max(floor);
    (fitted, written && em * fitted <= room + 0.001)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(kind: Kind, lines: &[&str]) -> Label {
        Label {
            id: 1,
            usi: "MEM-000001".into(),
            kind,
            lines: lines
                .iter()
                .map(|t| match t.is_empty() {
                    true => Vec::new(),
                    false => vec![Span {
                        text: t.to_string(),
                        style: Style::Regular,
                    }],
                })
                .collect(),
        }
    }

    #[test]
    fn the_service_sheet_fills_columns_of_24_cells_with_no_margin() {
        let l = Layout::service_sheet();
        assert_eq!(l.per_page(), 600);
        assert_eq!(l.corner(0), [0.0, 792.0 - 33.0]);
        assert_eq!(l.corner(1), [0.0, 792.0 - 66.0]);
        assert_eq!(l.corner(23), [0.0, 0.0]);
        let [x, y] = l.corner(24);
        assert!((x - 24.48).abs() < 1e-4 && (y - 759.0).abs() < 1e-4);
        let [x, y] = l.corner(599);
        assert!((x - 587.52).abs() < 1e-3 && y.abs() < 1e-4);
        assert_eq!(Layout::new(Kind::Qr, &Choices::default()), l);
    }

    #[test]
    fn the_code_and_usi_sit_where_the_service_drew_them() {
        let l = Layout::service_sheet();
        let usi = label(Kind::Qr, &["MEM-000001"]);
        let fit = l.fit(&usi);
        assert!(fit.overflow.is_empty());
        let marks = l.place(0, &usi, Symbol::encode("x"), &fit.sizes);
        let code = marks.iter().find_map(|m| match m {
            Mark::Code { x, y, size, .. } => Some((*x, *y, *size)),
            _ => None,
        });
        let (x, y, size) = code.unwrap();
        assert!((x - 2.48).abs() < 1e-4 && y == 770.0 && size == 20.0);
        let text = marks.iter().find_map(|m| match m {
            Mark::Text {
                x, y, size, end, ..
            } => Some((*x, *y, *size, *end)),
            _ => None,
        });
        assert_eq!(text, Some((21.48, 759.0 + 3.0, 3.0, true)));
    }

    #[test]
    fn a_long_line_shrinks_to_the_floor_then_overflows() {
        let l = Layout::new(Kind::Data, &Choices::default());
        let fits = l.fit(&label(Kind::Data, &["USA: Michigan", "", "", "", ""]));
        assert!(fits.overflow.is_empty());
        let gardens = label(
            Kind::Data,
            &["", "Matthaei Botanical Gardens, Ann Arbor", "", "", ""],
        );
        let shrunk = l.fit(&gardens);
        assert!(shrunk.overflow.is_empty());
        // The line is drawn at the size measured.
        let size = l
            .place(0, &gardens, None, &shrunk.sizes)
            .iter()
            .find_map(|m| match m {
                Mark::Text { size, .. } => Some(*size),
                _ => None,
            });
        assert_eq!(size, Some(shrunk.sizes[1]));
        assert!(
            size.is_some_and(|s| (FLOOR_PT..4.0).contains(&s)),
            "{size:?}"
        );
        let long = "x".repeat(300);
        let over = l.fit(&label(Kind::Data, &["", &long, "", "", ""]));
        assert_eq!(over.overflow, vec![Line::Locality]);
        // A name the typeface cannot write is reported too.
        let unwritten = l.fit(&label(Kind::Data, &["", "", "", "", "leg. 山田"]));
        assert_eq!(unwritten.overflow, vec![Line::Collectors]);
    }
}
