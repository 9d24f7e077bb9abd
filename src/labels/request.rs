//! A label sheet's request: which kind of label, sent as what, laid out how,
//! and the specimen question whose records it labels (the list's filters,
//! search, sort and paging, as a [`Plan`]). Every 400 a sheet can get comes from
//! here, before anything is made; `labels` lays out and writes what it says.

use crate::model::{Endpoint, Model};
use crate::view::View;

use crate::query::plan::known_specimen_parameters;
use crate::query::{form, nearest, ApiError, Limits, Params, Plan};

/// A kind of label, as `kind=` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The service's QR sheet: a code and the USI.
    Qr,
    /// The collecting event: where, when, how and by whom.
    Data,
    /// Who determined the specimen as what.
    Determination,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Qr, Kind::Data, Kind::Determination];

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Qr => "qr",
            Kind::Data => "data",
            Kind::Determination => "determination",
        }
    }
}

/// The page sizes a sheet is printed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    Letter,
    A4,
}

impl Paper {
    pub fn parse(s: &str) -> Option<Paper> {
        match s {
            "letter" => Some(Paper::Letter),
            "a4" => Some(Paper::A4),
            _ => None,
        }
    }

    /// Width and height in points.
    pub fn size(self) -> [f32; 2] {
        match self {
            Paper::Letter => [612.0, 792.0],
            Paper::A4 => [595.2756, 841.8898],
        }
    }
}

/// What a request chose of the layout; `None` is the kind's default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Choices {
    pub paper: Option<Paper>,
    pub width_mm: Option<f32>,
    pub height_mm: Option<f32>,
    pub font_pt: Option<f32>,
    pub margin_mm: Option<f32>,
    pub gap_mm: Option<f32>,
    /// Whether a data or determination label carries the code too.
    pub qr: bool,
}

impl Choices {
    /// Whether nothing of the layout was chosen: `kind=qr` is then the
    /// service's sheet.
    pub fn none(&self) -> bool {
        self.paper.is_none()
            && self.width_mm.is_none()
            && self.height_mm.is_none()
            && self.font_pt.is_none()
            && self.margin_mm.is_none()
            && self.gap_mm.is_none()
    }
}

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
    pub min: f64,
    pub max: f64,
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
#[derive(Clone, Debug)]
pub struct SheetRequest {
    pub kind: Kind,
    pub output: Output,
    pub choices: Choices,
    /// The specimen question: the list's filters, search, sort and paging.
    pub plan: Plan,
}

fn bad(message: String) -> ApiError {
    ApiError::bad_request(message)
}

impl SheetRequest {
    /// Reads a sheet's parameters, and the specimen question of the rest (its
    /// filters, search, sort and paging) as a plan of at most `max_labels`.
    /// An empty value is no value, as a form with fields left empty sends it, and
    /// surrounding whitespace is trimmed.
    pub fn parse(params: &Params, max_labels: usize) -> Result<SheetRequest, ApiError> {
        let given = params.given();
        let value = |name| given.get(name).and_then(form::trimmed);
        let kind = match value("kind") {
            None => Kind::Qr,
            Some(k) => Kind::parse(k)
                .ok_or_else(|| bad(format!("kind must be qr, data or determination, not {k:?}")))?,
        };
        let output = match value("format") {
            None | Some("pdf") => Output::Pdf,
            Some("csv") => Output::Csv,
            Some("html") => Output::Preview,
            Some(f) => return Err(bad(format!("format must be pdf, csv or html, not {f:?}"))),
        };
        let paper = match value("paper") {
            None => None,
            Some(p) => Some(
                Paper::parse(p)
                    .ok_or_else(|| bad(format!("paper must be letter or a4, not {p:?}")))?,
            ),
        };
        let qr = match value("qr") {
            None | Some("false") | Some("0") => false,
            Some("true") | Some("1") => true,
            Some(q) => return Err(bad(format!("qr must be true or false, not {q:?}"))),
        };
        let [width_mm, height_mm, font_pt, margin_mm, gap_mm] =
            MEASURES.map(|m| measure(value(m.name), &m));
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
        if !plan.unknown().is_empty() {
            let mut known = known_specimen_parameters();
            known.extend(PARAMETERS);
            return Err(nearest::unknown_parameters(
                "a label sheet",
                plan.unknown(),
                &known,
            ));
        }
        Ok(SheetRequest {
            kind,
            output,
            choices,
            plan,
        })
    }

    /// The positions of the question's specimens, in its order; 400 when they
    /// are more than `max_labels`.
    pub fn positions(&self, view: &View, max_labels: usize) -> Result<Vec<usize>, ApiError> {
        let selected = self.plan.clone().select_page(view);
        if selected.items() > max_labels {
            return Err(bad(format!(
                "this question selects {} specimens, and a sheet holds at most {max_labels} \
                 labels (--max-labels): narrow it with filters, or print it in parts with \
                 offset and limit",
                selected.total
            )));
        }
        Ok(selected.positions().to_vec())
    }
}

/// One of the layout's numbers, if given: within its bounds, or a 400 saying them.
/// Read as the document's bounds are (a value a hair over the maximum is over it).
fn measure(raw: Option<&str>, m: &Measure) -> Result<Option<f32>, ApiError> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    match raw.parse::<f64>() {
        Ok(v) if v.is_finite() && (m.min..=m.max).contains(&v) => Ok(Some(v as f32)),
        _ => Err(bad(format!(
            "{} must be a number from {} to {} ({}), not {raw:?}",
            m.name, m.min, m.max, m.unit
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &str) -> Result<SheetRequest, ApiError> {
        SheetRequest::parse(&Params::parse(query).unwrap(), 100)
    }

    #[test]
    fn a_bare_request_is_the_services_qr_sheet_as_pdf() {
        let r = parse("").unwrap();
        assert_eq!((r.kind, r.output), (Kind::Qr, Output::Pdf));
        assert!(r.choices.none() && !r.choices.qr);
        // Empty and blank fields are no choice; values are trimmed.
        let r = parse("kind=&width_mm=+&paper=%20a4%20&qr=1&format=csv");
        let r = r.unwrap_or_else(|e| panic!("{}", e.message));
        assert_eq!((r.kind, r.output), (Kind::Qr, Output::Csv));
        assert_eq!(
            (r.choices.paper, r.choices.width_mm),
            (Some(Paper::A4), None)
        );
        assert!(r.choices.qr);
    }

    #[test]
    fn measures_are_read_within_their_bounds() {
        let r = parse("kind=data&width_mm=180&height_mm=5&font_pt=3.5").unwrap();
        assert_eq!(r.choices.width_mm, Some(180.0));
        assert_eq!(r.choices.font_pt, Some(3.5));
        for (query, message) in [
            (
                "width_mm=180.00000001",
                "width_mm must be a number from 5 to 180 (millimetres), not \"180.00000001\"",
            ),
            (
                "gap_mm=-1",
                "gap_mm must be a number from 0 to 10 (millimetres), not \"-1\"",
            ),
            (
                "font_pt=inf",
                "font_pt must be a number from 2 to 24 (points), not \"inf\"",
            ),
            ("qr=yes", "qr must be true or false, not \"yes\""),
        ] {
            assert_eq!(parse(query).unwrap_err().message, message);
        }
    }

    #[test]
    fn the_question_is_the_specimen_lists() {
        // Its filters and sort are the list's, with the list's errors.
        assert!(parse("kind=data&family=Nymph&sort=-year").is_ok());
        let list = Plan::parse(
            Endpoint {
                model: Model::SpecimenRecord,
                nested: false,
            },
            &Params::parse("sort=nowhere").unwrap(),
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(parse("sort=nowhere").unwrap_err().message, list.message);
    }
}
