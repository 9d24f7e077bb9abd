//! The Darwin Core Archive (`/dwca.zip`): the whole collection's, made once per
//! view by the first request that asks, or read from the version's kept files
//! where `build` or `sync` made them with the links the request has (so
//! `/dwca.zip` and `/versions/N/dwca.zip` are one archive, byte for byte); or
//! a specimen question's, made for the request on the pool, its `eml.xml`
//! naming the question and the snapshot.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use crate::encoding::hex::hex;
use crate::export::dwca::{self, eml_xml, Archive, Links, Scope};
use crate::query::question::Question;
use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
use crate::serve::media::media_url;
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::state::{Served, State};
use crate::serve::work::Task;
use crate::snapshot::kept;

use super::downloads::file_name;

/// Answers `/dwca.zip`, of the whole collection or of a question.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    let links = links(&ctx);
    // Its links, in eml.xml and the photographs' rows, are where it was asked.
    if params.0.is_empty() {
        return Ok(Job::awaited(whole(ctx.state, ctx.served, links)).map_answers(Answer::addressed));
    }
    let question = Question::parse(params, &[], "/dwca.zip").map_err(|e| Answer::error(&e))?;
    let ignored = question.ignored().to_vec();
    let name = file_name(&ctx.served.view, "specimen-records-dwca", params, "zip");
    let (state, served) = (ctx.state, ctx.served);
    // Its tag is its bytes' digest (they depend on the dataset's settings too).
    Ok(Job::digested(async move {
        of_question(state, served, Some((question, name)), links)
            .await
            .ignoring(&ignored)
            .addressed()
    }))
}

/// Where an archive's photographs and pages are, as the request's media URLs
/// and links are (`--media-url`, `--public-url`, else the request's origin).
fn links(ctx: &Ctx<'_>) -> Links {
    let settings = &ctx.state.settings;
    let headers = &ctx.asked.headers;
    Links {
        media: media_url(settings, headers),
        site: origin(settings.public_url.as_ref(), headers).unwrap_or_default(),
    }
}

/// Answers `/eml.xml`: the whole dataset's metadata, the whole archive's
/// `eml.xml`, as GBIF's IPT serves it beside its archives, made once per view.
/// Tagged by its bytes' digest, since the dataset's settings make them too.
pub fn eml(ctx: Ctx<'_>) -> Parsed<'_> {
    let params = ctx.asked.params.as_ref().map_err(Answer::error)?;
    if let Some((name, _)) = params.0.first() {
        let e = ApiError::bad_request(format!(
            "/eml.xml takes no parameters, not {name}: a question's metadata is the \
             eml.xml inside its /dwca.zip"
        ));
        return Err(Answer::error(&e).into());
    }
    // It names where the archive is downloaded: the site it was asked at.
    let site = links(&ctx).site;
    let tagged = |(_, body, tag): &(String, bytes::Bytes, String)| {
        Answer::tagged(Kind::Xml, body.clone(), tag.clone(), None).addressed()
    };
    if let Some(made) = ctx.served.eml.get().filter(|(at, ..)| *at == site) {
        return Ok(Job::ready(tagged(made)));
    }
    // The first asks derive the collection's coverage, a pass over every
    // specimen: on the pool, not where requests are read. Kept for the site
    // it was first made for; asked at another (another Host, without
    // `--public-url`), it is made for the request.
    let (state, served) = (ctx.state, ctx.served.clone());
    let kept_by = state.clone();
    Ok(Job::awaited(async move {
        let make = move || {
            let of = |site: String| {
                if let Some((body, tag)) = kept_eml(&kept_by, &served, &site) {
                    return (site, body, tag);
                }
                let body = eml_xml(&served.view, Scope::Everything, &site);
                let tag = dwca::tag_of(body.as_bytes());
                (site, bytes::Bytes::from(body), tag)
            };
            let made = served.eml.get_or_init(|| of(site.clone()));
            match made.0 == site {
                true => tagged(made),
                false => tagged(&of(site)),
            }
        };
        state
            .work
            .run(Task::Answer, make)
            .await
            .unwrap_or_else(Answer::busy)
    }))
}

/// The current version's kept file `name` and its tag, where it was made
/// from this view's snapshot, with `links` (the site alone for `eml.xml`)
/// and the dataset the snapshot describes (a blocking read).
fn kept_file(state: &State, served: &Served, name: &str, links: &Links) -> Option<(Bytes, String)> {
    if !served.as_built {
        return None;
    }
    let dir = state.settings.versions_dir.as_deref()?;
    let number = served.view.history.current();
    let manifest = kept::manifest(dir, number)?;
    let made_for =
        manifest.site == links.site && (name == kept::EML || manifest.media == links.media);
    if !made_for || manifest.checksum != hex(&served.view.header.checksum) {
        return None;
    }
    let file = manifest.files.get(name)?;
    let bytes = std::fs::read(kept::folder(dir, number).join(name)).ok()?;
    let tag = format!("\"{}\"", file.sha256.get(..32)?);
    // Read once per view: checked whole, and made from the view instead
    // where it is not what its manifest says.
    if kept::KeptFile::of(&bytes) != *file {
        state
            .metrics
            .damaged_kept_files
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::error!(
            version = number,
            "{}'s {name} is not the bytes its manifest names: made from the view instead",
            kept::folder(dir, number).display()
        );
        return None;
    }
    Some((Bytes::from(bytes), tag))
}

/// The current version's kept `eml.xml`, where it was made for `site`.
fn kept_eml(state: &State, served: &Served, site: &str) -> Option<(Bytes, String)> {
    let links = Links {
        site: site.to_string(),
        media: String::new(),
    };
    kept_file(state, served, kept::EML, &links)
}

/// Why an archive could not be made, said to the client (and logged).
fn unmakeable(e: impl std::fmt::Display) -> Answer {
    tracing::error!(error = %e, "cannot make the Darwin Core Archive");
    Answer::error(&ApiError {
        status: 500,
        message: format!("cannot make the Darwin Core Archive: {e}"),
    })
}

/// The whole collection's archive: made once, off the async workers, by the
/// first request that asks (others asking meanwhile wait for the same one).
/// It is kept for the links it was made with; asked with others (another
/// Host, without `--public-url`), it is made for the request, on the pool.
async fn whole(state: &Arc<State>, served: &Arc<Served>, links: Links) -> Answer {
    let made = served
        .archive
        .get_or_try_init(|| {
            let (served, links) = (served.clone(), links.clone());
            let state = state.clone();
            async move {
                let started = Instant::now();
                let (made, kept) = tokio::task::spawn_blocking(move || {
                    match kept_file(&state, &served, kept::ARCHIVE, &links) {
                        Some((bytes, etag)) => Ok((Archive { bytes, etag, links }, true)),
                        None => Archive::new(&served.view, &links).map(|a| (a, false)),
                    }
                })
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
                // `kept`: read from the version's kept file, not made.
                tracing::info!(
                    bytes = made.bytes.len(),
                    ms = started.elapsed().as_millis() as u64,
                    kept,
                    "Darwin Core Archive ready"
                );
                Ok::<_, String>(made)
            }
        })
        .await;
    match made {
        Ok(archive) if archive.links == links => {
            Answer::tagged(Kind::Zip, archive.bytes.clone(), archive.etag.clone(), None)
        }
        Ok(_) => of_question(state, served, None, links).await,
        Err(e) => unmakeable(e),
    }
}

/// A question's archive (the whole collection's without one): its records
/// chosen, then zipped, on the pool.
async fn of_question(
    state: &Arc<State>,
    served: &Arc<Served>,
    question: Option<(Question, String)>,
    links: Links,
) -> Answer {
    let name = question.as_ref().map(|(_, name)| name.clone());
    let made = served.clone();
    let job = move || {
        let view = &made.view;
        let Some((question, _)) = question else {
            return Archive::new(view, &links);
        };
        let selected = question.plan.select_page(view);
        let scope = Scope::Question {
            query: &question.query,
            positions: selected.positions(),
        };
        Archive::of(view, scope, &links)
    };
    match state.work.document(job).await {
        None => Answer::busy(),
        Some(Ok(archive)) => {
            let answer = Answer::tagged(Kind::Zip, archive.bytes, archive.etag, None);
            match name {
                Some(name) => answer.named(name),
                None => answer,
            }
        }
        Some(Err(e)) => unmakeable(e),
    }
}
