//! A label sheet's preview: its first page at scale (drawn by `labels` as SVG,
//! from the same marks as the PDF), the labels that do not fit, and the sheet's
//! downloads.

use maud::{html, PreEscaped};

use crate::html::layout::{self, Alternates, Loads};
use crate::html::CODES_FROM_REQUEST;
use crate::model::endpoint::API_PREFIX;
use crate::model::Model;
use crate::query::Params;
use crate::view::View;

use super::sheet::{Fitted, Overflow};

/// What the preview shows.
pub struct SheetPreview<'a> {
    /// The kind of label (`qr`, `data`, `determination`).
    pub kind: &'a str,
    pub labels: usize,
    pub pages: usize,
    pub per_page: usize,
    /// The first page, as an SVG element.
    pub svg: &'a str,
    /// The labels that do not fit: USI, and which lines.
    pub overflow: &'a [(String, String)],
    /// The same sheet as PDF and as CSV.
    pub pdf: &'a str,
    pub csv: &'a str,
    /// Where the codes point when the operator has not said (`--public-url`,
    /// `--label-url`): the address the sheet was asked at.
    pub unsettled: Option<&'a str>,
}

/// The preview page.
pub fn label_preview(view: &View, p: &SheetPreview) -> String {
    let title = format!("Label sheet: {} labels", p.kind);
    let specimens = format!("{API_PREFIX}{}/", Model::SpecimenRecord.path());
    let content = html! {
        h1 { (title) }
        p.summary {
            (p.labels) (if p.labels == 1 { " label on " } else { " labels on " })
            (p.pages) (if p.pages == 1 { " page" } else { " pages" })
            " (" (p.per_page) " a page). The first page, at scale: "
            a href=(p.pdf) type="application/pdf" { "Download the PDF" } " · "
            a href=(p.csv) type="text/csv" { "the label lines as CSV" }
        }
        @if let Some(at) = p.unsettled {
            section.error aria-labelledby="codes-heading" {
                h2 id="codes-heading" {
                    "The codes point at " code { (if at.is_empty() { "no host" } else { at }) }
                }
                p { (CODES_FROM_REQUEST) }
            }
        }
        @if !p.overflow.is_empty() {
            section.error aria-labelledby="overflow-heading" {
                h2 id="overflow-heading" {
                    @if p.overflow.len() == 1 { "1 label does not fit" } @else { (p.overflow.len()) " labels do not fit" }
                    ", even at 3 pt"
                }
                p { "They print, cut at the label's edge (or with an empty box for a character the typeface lacks). A larger label (width_mm, height_mm) or a smaller type (font_pt) may fit them." }
                ul.overflow {
                    @for (usi, lines) in p.overflow { li { code { (usi) } ": " (lines) } }
                }
            }
        }
        figure.sheet {
            (PreEscaped(p.svg))
            figcaption { "Page 1 of " (p.pages) }
        }
    };
    layout::page_of(
        view,
        &title,
        layout::crumbs(&[("Specimens", specimens)], "Labels"),
        &Loads::default(),
        content,
        Alternates::Sheet,
    )
}

/// The preview page of `sheet`, asked at `path` with `params`: its first page
/// at scale, the labels that do not fit, and the sheet's downloads.
pub fn page(
    view: &View,
    fitted: &Fitted,
    overflow: &[Overflow],
    path: &str,
    params: &Params,
    unsettled: Option<&str>,
) -> String {
    let asked = params.without("format");
    let link = |format: Option<&str>| {
        let q = match format {
            Some(format) => asked.with("format", format),
            None => asked.clone(),
        }
        .to_query();
        match q.is_empty() {
            true => path.to_string(),
            false => format!("{path}?{q}"),
        }
    };
    let sheet = &fitted.sheet;
    let overflow: Vec<(String, String)> = overflow
        .iter()
        .map(|o| (o.usi.clone(), o.lines.join(", ")))
        .collect();
    label_preview(
        view,
        &SheetPreview {
            kind: sheet.kind.name(),
            labels: sheet.positions.len(),
            pages: sheet.pages(),
            per_page: sheet.layout.per_page(),
            svg: &fitted.preview(view),
            overflow: &overflow,
            pdf: &link(None),
            csv: &link(Some("csv")),
            unsettled,
        },
    )
}
