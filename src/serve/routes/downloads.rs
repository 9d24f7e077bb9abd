//! Any list answer to take home (`format=csv`, `format=ndjson`): every item the
//! question selects, not a page. The question is answered on the threads for
//! expensive answers (503 when busy); the file is then an `Answer::pieces`
//! stream, a few hundred rows written at a time on the same threads as the
//! client takes the last, so a connection holds the positions and one piece
//! whatever the answer's size, and its view by a lease like a streamed list. A
//! CSV with every field copies rows the list's first such download wrote and
//! the view keeps (`Served::csv_rows`), as a JSON answer copies rendered items.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::encoding::hex::push_hex;
use crate::export::csv::{self, Columns as FieldColumns};
use crate::export::dwca::{occurrences, Dataset, Dialect};
use crate::query::plan::Selected;
use crate::query::{Columns, Format, Params, Plan, BYTE_ORDER_MARK};
use crate::view::View;

use crate::serve::answer::{Answer, Kind, Pieces};
use crate::serve::route::{Ctx, Job};

/// What a piece aims to hold: a connection holds about one piece being sent
/// and one being made, whatever the download's size.
const PIECE_BYTES: usize = 64 * 1024;
/// Rows of a download's first piece; the next hold as many rows as the last
/// piece's rows say fill [`PIECE_BYTES`], within [`MOST_ROWS`].
const FIRST_ROWS: usize = 16;
const MOST_ROWS: usize = 512;

/// How a download's rows are written.
enum Rows {
    /// One JSON item a line, as the list's.
    Lines,
    /// The kept fields, related records as their id and name.
    Fields(FieldColumns),
    /// Every field: rows written once for the list and copied.
    Rendered(Arc<csv::Rows>),
    /// The Darwin Core columns of the archive's `occurrence.txt`.
    DarwinCore(Arc<Dataset>),
}

/// A download being written: the question's positions, how far it got and
/// how many rows its next piece holds.
struct Download {
    selected: Selected,
    rows: Rows,
    at: usize,
    piece_rows: usize,
}

impl Pieces for Download {
    fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        let end = (self.at + self.piece_rows).min(self.selected.items());
        if self.at >= end {
            return None;
        }
        let range = self.at..end;
        self.at = end;
        let positions = &self.selected.positions()[range.clone()];
        let mut out = Vec::with_capacity(PIECE_BYTES + PIECE_BYTES / 4);
        match &self.rows {
            Rows::Lines => out = self.selected.write_lines(view, range.clone()),
            Rows::Fields(columns) => positions
                .iter()
                .for_each(|&pos| columns.row(&mut out, view, pos)),
            Rows::Rendered(rows) => positions
                .iter()
                .for_each(|&pos| out.extend_from_slice(rows.row(pos))),
            Rows::DarwinCore(dataset) => {
                occurrences::rows(&mut out, view, dataset, positions, Dialect::Csv)
            }
        }
        let per_row = (out.len() / range.len()).max(1);
        self.piece_rows = (PIECE_BYTES / per_row).clamp(1, MOST_ROWS);
        Some(out)
    }
}

/// The name a download is kept under: the list's (or another stem), the
/// snapshot's date and the start of its checksum, and for a question the start
/// of its hash (`specimen-records-2026-11-20-3fa2b4c1-q7d01e2a9.csv`), so that
/// two files from different snapshots or of different questions never share a
/// name. The question is `asked`'s pairs but `format` and `bom`, as
/// `name=value` sorted and joined by `&`: the same in any order or encoding.
pub fn file_name(view: &View, stem: &str, asked: &Params, extension: &str) -> String {
    let date = chrono::DateTime::from_timestamp_micros(view.header.created_at)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let checksum = view.header.checksum_hex();
    let mut pairs: Vec<String> = (asked.given().0.iter())
        .filter(|(k, _)| k != "format" && k != "bom")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    pairs.sort_unstable();
    let query = pairs.join("&");
    match query.is_empty() {
        true => format!("{stem}-{date}-{}.{extension}", &checksum[..8]),
        false => {
            let mut hash = String::with_capacity(8);
            push_hex(&mut hash, &Sha256::digest(query.as_bytes())[..4]);
            format!("{stem}-{date}-{}-q{hash}.{extension}", &checksum[..8])
        }
    }
}

/// Answers a list question in a download format: its positions chosen on the
/// pool, then written a piece at a time as the client takes them.
pub fn answer<'a>(ctx: Ctx<'a>, plan: Plan) -> Job<'a> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let format = plan.format();
    let kind = Kind::of(format);
    let endpoint = plan.endpoint();
    let stem = match format {
        Format::Csv(Columns::DarwinCore) => format!("{}-dwc", endpoint.segment()),
        _ => endpoint.segment(),
    };
    let extension = match format {
        Format::Ndjson => "ndjson",
        _ => "csv",
    };
    let name = file_name(
        &served.view,
        &stem,
        asked.params.as_ref().unwrap_or(&Params::default()),
        extension,
    );
    let cacheable = plan.cacheable();
    let bom = plan.bom();
    let head = Answer::unmade(kind)
        .with_media(asked.media)
        .named(name.clone())
        .cacheable(cacheable);
    let (made, dataset) = (served.clone(), served.view.dataset.clone());
    let job = move || {
        let selected = plan.select_page(&made.view);
        let (rows, head) = match format {
            Format::Csv(Columns::DarwinCore) => {
                (Rows::DarwinCore(dataset), occurrences::header(Dialect::Csv))
            }
            Format::Csv(Columns::Fields) => {
                let kept = selected.columns();
                let whole = kept.is_none();
                let columns = FieldColumns::new(endpoint.model, kept);
                let head = columns.header();
                match whole {
                    true => (Rows::Rendered(made.csv_rows(endpoint)), head),
                    false => (Rows::Fields(columns), head),
                }
            }
            _ => (Rows::Lines, Vec::new()),
        };
        let head = match bom {
            true => [BYTE_ORDER_MARK, &head].concat(),
            false => head,
        };
        let download = Download {
            selected,
            rows,
            at: 0,
            piece_rows: FIRST_ROWS,
        };
        (download, head)
    };
    Job::pooled(head, async move {
        let Some((download, head)) = state.work.document(job).await else {
            return Answer::busy();
        };
        let ticket = match state.streams.admit(asked.peer, download.selected.items()) {
            Ok(ticket) => ticket,
            Err(full) => return Answer::streams_full(&full),
        };
        Answer::pieces(
            kind,
            head,
            download,
            served.clone(),
            state.work.clone(),
            ticket,
        )
        .with_media(asked.media)
        .named(name)
        .cacheable(cacheable)
    })
}
