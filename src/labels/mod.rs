//! Specimen labels from any question of the specimen list: the service's QR
//! sheet, data labels and determination labels, as print-ready PDF, as CSV of
//! their lines for mail merge, or as a preview of the first page.
//!
//! The feature's room: `request` reads the request (kind, layout choices, the
//! specimen question), so its 400s come from here and the OpenAPI document can
//! describe it; `content` says what each kind of label holds (one table) and
//! reads it from the view; `layout` places labels on pages and fits their lines;
//! `qr` encodes the codes, whose text `address` makes; `font` is the built-in
//! typeface; `pdf` writes pages one at a time; `sheet` ties a question's
//! specimens to all of it; `preview` is the page showing the first sheet;
//! `short` finds a specimen by its USI's digits, as short links name it (what
//! the codes say by default). Knows no HTTP: its routes answer
//! (`serve/routes/labels.rs`, which streams; `serve/routes/short.rs`, the short
//! links); their OpenAPI operations are `export::openapi`'s, and the label form
//! on the specimen list's page is `html`'s.

pub mod address;
pub mod content;
pub mod font;
pub mod layout;
pub mod note;
pub mod pdf;
pub mod preview;
pub mod qr;
pub mod request;
pub mod sheet;
pub mod short;

use crate::query::ApiError;
use crate::view::View;
use request::SheetRequest;

pub use address::{Address, Template};
pub use layout::Layout;
pub use sheet::{CsvPieces, Fitted, Overflow, PdfPieces, Sheet};

/// The sheet a request asks for, of the specimens its question selects (400
/// past `max_labels`), its codes saying what `code` makes of each.
pub fn sheet(
    request: &SheetRequest,
    view: &View,
    code: Address,
    max_labels: usize,
) -> Result<Sheet, ApiError> {
    Ok(Sheet {
        kind: request.kind,
        layout: Layout::new(request.kind, &request.choices),
        code,
        positions: request.positions(view, max_labels)?,
    })
}

/// The path of the label sheets.
pub use crate::model::endpoint::LABELS_PATH as PATH;

/// The most labels one sheet holds unless `--max-labels` says otherwise.
pub const DEFAULT_MAX_LABELS: usize = 100_000;
