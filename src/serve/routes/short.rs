//! Short links (`/s/{digits}`), what a QR label says by default: the digits of
//! a specimen's USI, sent on (301) to its record, a page for browsers and JSON
//! for programs; 404 for digits no specimen's USI has. Where several
//! specimens' USIs have the same digits, the one with the lowest id. The
//! specimens are found by their digits on the pool, in the view's
//! `ShortLinks`, made there the first time a short link or a sheet asks.

use crate::labels::short::{self, ShortLinks};
use crate::query::ApiError;
use crate::serve::answer::Answer;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::work::Task;

/// Answers a short link; its parameters, if any, change nothing.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let code = ctx.id()?;
    if !short::is_code(code) {
        return Err(not_found(code).into());
    }
    let (state, served) = (ctx.state, ctx.served);
    let find = || {
        let (served, code) = (served.clone(), code.to_string());
        async move {
            let job = move || {
                let view = &served.view;
                match view.derived::<ShortLinks>().find(view, &code) {
                    Some(named) => Answer::located(301, short::record(named.id)),
                    None => unknown(view, &code),
                }
            };
            (state.work.run(Task::Answer, job).await).unwrap_or_else(Answer::busy)
        }
    };
    // Whether the code names a specimen is known only on the pool: `HEAD` asks
    // there too, and is answered as `GET` is.
    Ok(Job::checked(find(), find()))
}

/// The 410 of a code only a deleted specimen had, else the 404 of a code no
/// specimen has.
fn unknown(view: &crate::view::View, code: &str) -> Answer {
    let digits = |usi: &str| short::digits(usi).eq(code.chars());
    match crate::versions::changes::deleted_short_code(view, code, digits) {
        Some(gone) => Answer::error(&gone),
        None => not_found(code),
    }
}

/// The 404 of a code no specimen has.
fn not_found(code: &str) -> Answer {
    Answer::error(&ApiError::not_found(format!(
        "no specimen has the short code {code:?}: a short code is every digit of a \
         specimen's USI, in order (MEM-000367 is /s/000367)"
    )))
}
