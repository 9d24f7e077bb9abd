//! The label sheets (`/api/v2/specimen-records/labels/`): the request is read
//! into a sheet and a specimen question, the question is answered and the
//! labels measured on the threads for expensive answers (503 when busy), and the
//! sheet is streamed a page (or 2,000 CSV rows) at a time on the same threads.

use warp::http::HeaderValue;

use crate::encoding::percent::form_encode;
use crate::html::{self, LabelCodes};
use crate::labels::preview;
use crate::labels::request::{Output, SheetRequest};
use crate::labels::{self as sheets, note, Address, CsvPieces, Fitted, Overflow, PdfPieces};
use crate::query::{byte_order_mark, ApiError, BYTE_ORDER_MARK};
use crate::view::View;

use crate::serve::answer::{Answer, Kind, Pieces};
use crate::serve::asked::Asked;
use crate::serve::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::state::Served;
use crate::serve::streams::{Full, Ticket};
use crate::serve::work::Task;

use super::downloads::file_name;

/// Labels named in `X-Label-Overflow`; the preview lists them all.
const NAMED_IN_HEADER: usize = 20;

impl Pieces for PdfPieces {
    fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        PdfPieces::next(self, view)
    }
}

impl Pieces for CsvPieces {
    fn next(&mut self, view: &View) -> Option<Vec<u8>> {
        CsvPieces::next(self, view)
    }
}

/// What the work threads made of a request before anything is sent.
enum Made {
    Sheet(Box<Fitted>, Vec<Overflow>, Ticket),
    Preview(String),
    /// Not admitted: refused before its labels were laid out.
    Refused(Full),
}

/// Answers a label sheet request. Whether the question selects too many
/// specimens, and which labels do not fit, is known only once it is answered:
/// `HEAD` answers it on the pool too, measuring the labels without drawing
/// them.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let (state, served, asked) = (ctx.state, ctx.served, ctx.asked);
    let settings = &state.settings;
    let max = settings.max_labels;
    let parsed = asked
        .params
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|params| SheetRequest::parse(params, max));
    let request = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return Err(refused(served, &request_output(asked), &e).into()),
    };
    let kind = match request.output {
        Output::Pdf => Kind::Pdf,
        Output::Csv => Kind::Csv,
        Output::Preview => Kind::Html,
    };
    // A sheet without codes has no address to warn of.
    let codes = match sheets::Layout::new(request.kind, &request.choices).has_code() {
        true => settings.label_codes(),
        false => LabelCodes::Settled,
    };
    // The codes' text: the operator's template, else this server's short link
    // (or the record, where the USI's digits do not name the specimen alone).
    let code = match settings.label_url.clone() {
        Some(template) => Address::Template(template),
        None => Address::Own(
            origin::origin(settings.public_url.as_ref(), &asked.headers).unwrap_or_default(),
        ),
    };
    // What the preview warns the codes point at, when the operator has not said.
    let unsettled = match (&code, codes) {
        (Address::Own(origin), LabelCodes::FromRequest) => Some(origin.clone()),
        _ => None,
    };
    let output = request.output;
    // `bom=1` (checked with the question) begins the CSV with a byte-order mark.
    let bom = output == Output::Csv
        && asked
            .params
            .as_ref()
            .is_ok_and(|p| matches!(byte_order_mark(p), Ok(true)));
    let stem = format!("labels-{}", request.kind.name());
    let given = asked.params.clone().unwrap_or_default();
    // The question as the note page names it: what was asked but the format.
    let question = given.given().without("format").to_query();
    let name = move |extension| file_name(&served.view, &stem, &given, extension);
    let (pdf, csv) = (name("pdf"), name("csv"));
    let named = move |a: Answer| {
        let a = a.coded(codes);
        match output {
            Output::Pdf => a.named(pdf.clone()),
            Output::Csv => a.named(csv.clone()),
            Output::Preview => a,
        }
    };
    // A HEAD's headers: the refusal, or the overflow a PDF or CSV reports
    // (the labels measured, as the GET measures them; a preview shows its
    // overflow on the page).
    let check = {
        let (request, made, named) = (request.clone(), served.clone(), named.clone());
        let code = code.clone();
        async move {
            let job = move || -> Result<Vec<Overflow>, ApiError> {
                let view = &made.view;
                Ok(match output {
                    Output::Preview => request.positions(view, max).map(|_| Vec::new())?,
                    Output::Pdf | Output::Csv => {
                        sheets::sheet(&request, view, code, max)?.fit(view).1
                    }
                })
            };
            match state.work.run(Task::Answer, job).await {
                None => Answer::busy(),
                Some(Err(e)) => refused(served, &output, &e),
                Some(Ok(overflow)) => {
                    named(Answer::unmade(kind).uncached()).overflowing(report(&overflow))
                }
            }
        }
    };
    let made = served.clone();
    let (path, params) = (asked.path.clone(), asked.params.clone().unwrap_or_default());
    let (peer, streams) = (asked.peer, state.streams.clone());
    let job = move || -> Result<Made, ApiError> {
        let view = &made.view;
        let sheet = sheets::sheet(&request, view, code, max)?;
        // A sheet to send takes its share once its size is known, before the
        // work of laying it out.
        let ticket = match output {
            Output::Preview => None,
            Output::Pdf | Output::Csv => match streams.admit(peer, sheet.positions.len()) {
                Ok(ticket) => Some(ticket),
                Err(full) => return Ok(Made::Refused(full)),
            },
        };
        let (fitted, overflow) = sheet.fit(view);
        Ok(match ticket {
            None => {
                let at = unsettled.as_deref();
                Made::Preview(preview::page(view, &fitted, &overflow, &path, &params, at))
            }
            Some(ticket) => Made::Sheet(Box::new(fitted), overflow, ticket),
        })
    };
    Ok(Job::checked(check, async move {
        let (sheet, overflow, ticket) = match state.work.document(job).await {
            None => return Answer::busy(),
            Some(Err(e)) => return refused(served, &output, &e),
            Some(Ok(Made::Preview(page))) => return named(Answer::html(page).uncached()),
            Some(Ok(Made::Refused(full))) => return Answer::streams_full(&full),
            Some(Ok(Made::Sheet(sheet, overflow, ticket))) => (*sheet, overflow, ticket),
        };
        let (work, served) = (state.work.clone(), served.clone());
        let answer = match output {
            Output::Csv => {
                let (pieces, head) = CsvPieces::new(sheet.sheet);
                let head = match bom {
                    true => [BYTE_ORDER_MARK, &head].concat(),
                    false => head,
                };
                Answer::pieces(kind, head, pieces, served, work, ticket)
            }
            _ => {
                let named: Vec<(&str, &[&str])> = overflow
                    .iter()
                    .map(|o| (o.usi.as_str(), &o.lines[..]))
                    .collect();
                let note = note::lines(sheet.sheet.positions.len(), &named, &question);
                let (pieces, head) = PdfPieces::new(sheet, note);
                Answer::pieces(kind, head, pieces, served, work, ticket)
            }
        };
        named(answer).overflowing(report(&overflow))
    }))
}

/// What the request asked to be sent as, for its errors: a page when it asked
/// for the preview.
fn request_output(asked: &Asked) -> Output {
    match asked.params.as_ref().ok().and_then(|p| p.get("format")) {
        Some("html") => Output::Preview,
        _ => Output::Pdf,
    }
}

/// A refusal, as a page for the preview and as JSON otherwise.
fn refused(served: &Served, output: &Output, e: &ApiError) -> Answer {
    match output {
        Output::Preview => {
            Answer::html_error(e.status, html::error(&served.view, e.status, &e.message))
        }
        _ => Answer::error(e),
    }
}

/// `X-Label-Overflow`: how many labels do not fit, and the first of them with
/// their lines (`3 labels overflow: MEM-000003 (locality), ...`).
fn report(overflow: &[Overflow]) -> Option<HeaderValue> {
    if overflow.is_empty() {
        return None;
    }
    let mut value = match overflow.len() {
        1 => "1 label overflows: ".to_string(),
        n => format!("{n} labels overflow: "),
    };
    for (k, o) in overflow.iter().take(NAMED_IN_HEADER).enumerate() {
        if k > 0 {
            value.push_str(", ");
        }
        form_encode(&mut value, &o.usi);
        value.push_str(" (");
        value.push_str(&o.lines.join(" "));
        value.push(')');
    }
    if overflow.len() > NAMED_IN_HEADER {
        value.push_str(&format!(", and {} more", overflow.len() - NAMED_IN_HEADER));
    }
    HeaderValue::from_str(&value).ok()
}
