//! Specimen labels from any question of the specimen list: the service's QR
//! sheet, data labels and determination labels, as print-ready PDF, as CSV of
//! their lines for mail merge, or as a preview of the first page.
//!
//! `content` says what each kind of label holds (one table) and reads it from
//! the view; `layout` places labels on pages and fits their lines; `qr` encodes
//! the codes, whose text `address` makes; `font` is the built-in typeface;
//! `pdf` writes pages one at a time; `sheet` ties a question's specimens to all
//! of it. Knows no HTTP: `serve::labels` parses the request and streams.

pub mod address;
pub mod content;
pub mod font;
pub mod layout;
pub mod pdf;
pub mod qr;
pub mod sheet;

use crate::model::{Endpoint, Model};
use crate::query::{ApiError, Limits, Params, Plan};
use crate::view::View;

pub use address::Template;
pub use content::Kind;
pub use layout::{Choices, Layout, Paper};
pub use sheet::{CsvPieces, Overflow, PdfPieces, Sheet};

/// The path of the label sheets.
pub use crate::model::endpoint::LABELS_PATH as PATH;

/// The most labels one sheet holds unless `--max-labels` says otherwise.
pub const DEFAULT_MAX_LABELS: usize = 100_000;

/// What a sheet is sent as (`format=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Pdf,
    Csv,
    /// The first page, in a page for people.
    Preview,
}

/// A number of the layout a request may give, and its bounds: any values within
/// them make a sheet (a label always fits a page inside its margins).
pub struct Measure {
    pub name: &'static str,
    pub min: f32,
    pub max: f32,
    pub unit: &'static str,
}

/// The layout's numbers, with their bounds.
pub const MEASURES: [Measure; 5] = [
    Measure {
        name: "width_mm",
        min: 5.0,
        max: 180.0,
        unit: "millimetres",
    },
    Measure {
        name: "height_mm",
        min: 5.0,
        max: 240.0,
        unit: "millimetres",
    },
    Measure {
        name: "font_pt",
        min: 2.0,
        max: 24.0,
        unit: "points",
    },
    Measure {
        name: "margin_mm",
        min: 0.0,
        max: 15.0,
        unit: "millimetres",
    },
    Measure {
        name: "gap_mm",
        min: 0.0,
        max: 10.0,
        unit: "millimetres",
    },
];

/// The parameters a sheet takes besides the specimen list's own.
pub const PARAMETERS: [&str; 9] = [
    "kind",
    "format",
    "paper",
    "qr",
    "width_mm",
    "height_mm",
    "font_pt",
    "margin_mm",
    "gap_mm",
];

/// A label sheet asked for, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub kind: Kind,
    pub output: Output,
    pub choices: Choices,
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request(message)
}

impl Request {
    /// Reads a sheet's parameters, and the specimen question of the rest (its
    /// filters, search, sort and paging) as a plan of at most `max_labels`.
    /// An empty value is no value, as a form with fields left empty sends it.
    pub fn parse(params: &Params, max_labels: usize) -> Result<(Request, Plan), ApiError> {
        let given = params.given();
        let kind = match given.get("kind") {
            None => Kind::Qr,
            Some(k) => Kind::parse(k)
                .ok_or_else(|| bad(format!("kind must be qr, data or determination, not {k:?}")))?,
        };
        let output = match given.get("format") {
            None | Some("pdf") => Output::Pdf,
            Some("csv") => Output::Csv,
            Some("html") => Output::Preview,
            Some(f) => return Err(bad(format!("format must be pdf, csv or html, not {f:?}"))),
        };
        let paper = match given.get("paper") {
            None => None,
            Some(p) => Some(
                Paper::parse(p)
                    .ok_or_else(|| bad(format!("paper must be letter or a4, not {p:?}")))?,
            ),
        };
        let qr = match given.get("qr") {
            None | Some("false") | Some("0") => false,
            Some("true") | Some("1") => true,
            Some(q) => return Err(bad(format!("qr must be true or false, not {q:?}"))),
        };
        let [width_mm, height_mm, font_pt, margin_mm, gap_mm] =
            MEASURES.map(|m| measure(&given, &m));
        let choices = Choices {
            paper,
            width_mm: width_mm?,
            height_mm: height_mm?,
            font_pt: font_pt?,
            margin_mm: margin_mm?,
            gap_mm: gap_mm?,
            qr,
        };
        let question = Params(
            given
                .0
                .into_iter()
                .filter(|(k, _)| !PARAMETERS.contains(&k.as_str()))
                .collect(),
        );
        // One more than a sheet holds, so that a question selecting too many
        // is told so rather than cut.
        let limits = Limits {
            default_limit: max_labels.saturating_add(1),
            max_limit: None,
        };
        let specimens = Endpoint {
            model: Model::SpecimenRecord,
            nested: false,
        };
        let plan = Plan::parse(specimens, &question, &limits)?;
        let request = Request {
            kind,
            output,
            choices,
        };
        Ok((request, plan))
    }

    /// The sheet of the question's specimens; 400 when they are more than
    /// `max_labels`.
    pub fn sheet(
        &self,
        plan: Plan,
        view: &View,
        code: Template,
        max_labels: usize,
    ) -> Result<Sheet, ApiError> {
        let selected = plan.select_page(view);
        if selected.items() > max_labels {
            return Err(bad(format!(
                "this question selects {} specimens, and a sheet holds at most {max_labels} \
                 labels (--max-labels): narrow it with filters, or print it in parts with \
                 offset and limit",
                selected.total
            )));
        }
        Ok(Sheet {
            kind: self.kind,
            layout: Layout::new(self.kind, &self.choices),
            code,
            positions: selected.positions().to_vec(),
        })
    }
}

/// One of the layout's numbers, if given: within its bounds, or a 400 saying them.
fn measure(params: &Params, m: &Measure) -> Result<Option<f32>, ApiError> {
    let Some(raw) = params.get(m.name) else {
        return Ok(None);
    };
    match raw.parse::<f32>() {
        Ok(v) if v.is_finite() && (m.min..=m.max).contains(&v) => Ok(Some(v)),
        _ => Err(bad(format!(
            "{} must be a number from {} to {} ({}), not {raw:?}",
            m.name, m.min, m.max, m.unit
        ))),
    }
}
