//! IIIF's Image API 3.0 for every photograph, from `--media-dir`:
//! `/iiif/{id}` (the image's id) redirects to `/iiif/{id}/info.json`, and
//! `/iiif/{id}/{region}/{size}/{rotation}/{quality}.{format}` is the image.
//! Each original is cut once into a tile pyramid on disk (`iiif::pyramid`,
//! in `--tiles-dir`), on first use or by the start-up's background pass
//! ([`fill`]), and every region is cut from its tiles on a blocking thread.
//! A pyramid named by the image's `file_hash` is found without opening the
//! original, and its answers are the view's own: replayed from the memo when
//! asked again. One named by its original's path, size and time, and a
//! manifest (its canvases are its photographs' sizes, read from their files),
//! may change under the view: never replayed.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use fast_image_resize::Resizer;
use sha2::{Digest, Sha256};

use crate::encoding::percent::percent_decode;
use crate::encoding::whole;
use crate::iiif::params::{ImageRequest, Limits, Refusal};
use crate::iiif::pyramid::{Cut, Key, Pyramid, Pyramids};
use crate::iiif::{activity, info, presentation, raster::RasterError};
use crate::model::Model;
use crate::query::ApiError;
use crate::serve::answer::{Answer, Kind};
use crate::serve::compress::Coding;
use crate::serve::media_files::open_original;
use crate::serve::origin::origin;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::state::State;
use crate::view::View;

/// Where the image services are.
pub const PREFIX: &str = "/iiif/";

/// How long a browser keeps an image or `info.json`: an hour, as a media
/// file may be replaced under the same name.
const CACHE: &str = "public, max-age=3600";

/// How many images are made at once: each holds the pixels of the tiles its
/// region covers (up to four times the largest size sent, 200 MB), so the
/// memory images take is bounded whatever many are asked.
static MAKING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// `info.json`'s media type for a client that asks JSON-LD.
const JSON_LD: &str = "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"";

/// An image of the view: its original's path beneath the media folder, and
/// its `file_hash`.
struct Stored {
    file: String,
    hash: String,
}

fn stored(view: &View, id: i64) -> Option<Stored> {
    let table = view.table(Model::Image);
    let pos = table.position(id)? as usize;
    let text = |name: &str| {
        let field = Model::Image.field_index(name)?;
        Some(
            table
                .get(pos, field)
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    };
    Some(Stored {
        file: text("file")?,
        hash: text("file_hash")?,
    })
}

fn refused(r: Refusal) -> Answer {
    Answer::error(&ApiError {
        status: r.status,
        message: r.message,
    })
}

fn failed(e: &RasterError) -> Answer {
    let status = match e {
        RasterError::Unknown | RasterError::TooLarge(..) | RasterError::Decode(_) => 404,
        RasterError::Encode(_) => 500,
    };
    Answer::error(&ApiError {
        status,
        message: format!("The photograph is not served: {e}."),
    })
}

/// What a path beneath `/iiif/` asks.
enum Asks {
    /// The base URI: redirected to `info.json`.
    Base,
    Info,
    Image(ImageRequest),
}

/// Any path beneath `/iiif/`.
pub fn answer(ctx: Ctx<'_>) -> Parsed<'_> {
    let (state, asked) = (ctx.state, ctx.asked);
    let rest = asked
        .path
        .strip_prefix(PREFIX)
        .ok_or_else(Answer::not_found)?;
    let decoded: Vec<_> = rest.split('/').map(|s| percent_decode(s, false)).collect();
    let segs: Vec<&str> = decoded.iter().map(|s| s.as_ref()).collect();
    match segs[0] {
        "manifests" => {
            return presented(
                ctx,
                Presented::Manifest(number(segs.get(1))?),
                segs.len() == 2,
            )
        }
        "activity" => {
            let asks = match &segs[1..] {
                [] | [""] => Presented::Activity(None),
                ["page", n] => Presented::Activity(Some(number(Some(n))?)),
                _ => return Err(Answer::not_found().into()),
            };
            return presented(ctx, asks, true);
        }
        "collections" => {
            let asks = match &segs[1..] {
                [] | [""] => Presented::Top,
                [rank, id] => Presented::Taxon(rank.to_string(), number(Some(id))?),
                _ => return Err(Answer::not_found().into()),
            };
            return presented(ctx, asks, true);
        }
        _ => {}
    }
    let id = number(segs.first())?;
    let asks = match &segs[1..] {
        [] | [""] => Asks::Base,
        ["info.json"] => Asks::Info,
        [region, size, rotation, file] => {
            Asks::Image(ImageRequest::parse(region, size, rotation, file).map_err(refused)?)
        }
        _ => return Err(Answer::not_found().into()),
    };
    let (Some(dir), Some(pyramids)) = (state.settings.media_dir.clone(), state.pyramids.clone())
    else {
        return Err(Answer::not_found().into());
    };
    let image = stored(&ctx.served.view, id).ok_or_else(Answer::not_found)?;
    let base = origin(state.settings.public_url.as_ref(), &asked.headers).unwrap_or_default();
    let service = format!("{base}{PREFIX}{id}");
    let addressed = state.settings.public_url.is_none();
    let mark = move |a: Answer| match addressed {
        true => a.addressed(),
        false => a,
    };
    let max = state.settings.media_max_bytes;
    match asks {
        Asks::Base => Ok(Job::ready(mark(Answer::located(
            303,
            format!("{service}/info.json"),
        )))),
        Asks::Info => {
            let ld = asked
                .headers
                .get_all(warp::http::header::ACCEPT)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .any(|v| v.contains("application/ld+json"));
            Ok(Job::awaited(async move {
                let made = tokio::task::spawn_blocking(move || {
                    info_answer(&dir, &pyramids, &image, &service, ld, max)
                })
                .await;
                mark(made.unwrap_or_else(|_| Answer::not_found()))
            }))
        }
        Asks::Image(request) => Ok(Job::awaited(async move {
            // A few at a time: a large region holds its tiles' pixels.
            let Ok(_turn) = MAKING.acquire().await else {
                return Answer::busy();
            };
            let made = tokio::task::spawn_blocking(move || {
                image_answer(&dir, &pyramids, &image, request, max)
            })
            .await;
            made.unwrap_or_else(|_| Answer::not_found())
        })),
    }
}

/// A path segment that is a record's id.
fn number(seg: Option<&&str>) -> Result<i64, Box<Answer>> {
    seg.and_then(|s| whole::canonical(s))
        .and_then(|id| i64::try_from(id).ok())
        .ok_or_else(|| Answer::not_found().into())
}

/// A Presentation API document asked.
enum Presented {
    Manifest(i64),
    Top,
    Taxon(String, i64),
    /// The activity stream (`None`) or one of its pages.
    Activity(Option<i64>),
}

/// A manifest (its photographs' sizes read from their files, on a blocking
/// thread) or a collection.
fn presented(ctx: Ctx<'_>, asks: Presented, plain: bool) -> Parsed<'_> {
    let (state, asked) = (ctx.state, ctx.asked);
    // Without the photographs, there is nothing to present.
    if !plain || state.settings.media_dir.is_none() {
        return Err(Answer::not_found().into());
    }
    let base = origin(state.settings.public_url.as_ref(), &asked.headers).unwrap_or_default();
    let addressed = state.settings.public_url.is_none();
    let served = ctx.served.clone();
    let settings = (
        state.settings.media_dir.clone(),
        state.settings.media_max_bytes,
    );
    // A manifest's canvases are its photographs' sizes, read from their files.
    let reads_files = matches!(asks, Presented::Manifest(_));
    Ok(Job::awaited(async move {
        let made = tokio::task::spawn_blocking(move || {
            let view = &served.view;
            let doc = match asks {
                Presented::Manifest(id) => {
                    let pos = view.table(Model::SpecimenRecord).position(id);
                    pos.and_then(|pos| {
                        let photos = presentation::photos(view, pos, |image| {
                            photo_size(view, image, &settings)
                        });
                        if photos.is_empty() {
                            return None;
                        }
                        presentation::manifest(view, id, &photos, &base, Limits::default())
                    })
                }
                Presented::Top => presentation::collection(view, None, &base),
                Presented::Activity(page) => {
                    let all = activity::activities(view);
                    match page {
                        None => Some(activity::collection(&base, all.len())),
                        Some(n) => usize::try_from(n)
                            .ok()
                            .and_then(|n| activity::page(&base, &all, n)),
                    }
                }
                Presented::Taxon(rank, id) => presentation::taxon_of(view, &rank, id)
                    .and_then(|t| presentation::collection(view, Some(t), &base)),
            };
            match doc {
                Some(doc) => {
                    let body = serde_json::to_vec(&doc).expect("a JSON value prints");
                    let digest = Sha256::digest(&body);
                    let mut tag = String::from("\"p-");
                    crate::encoding::hex::push_hex(&mut tag, &digest[..12]);
                    tag.push('"');
                    let answer = Answer::tagged(Kind::Json, Bytes::from(body), tag, Some(CACHE));
                    match reads_files {
                        true => answer.read_from_files(),
                        false => answer,
                    }
                }
                None => Answer::not_found(),
            }
        })
        .await;
        let answer = made.unwrap_or_else(|_| Answer::not_found());
        match addressed {
            true => answer.addressed(),
            false => answer,
        }
    }))
}

/// A photograph's width and height: its original's, as its header says
/// (`None` where the media folder does not hold it: no canvas for a
/// photograph that cannot be shown).
fn photo_size(
    view: &View,
    image: i64,
    (dir, max): &(Option<std::path::PathBuf>, u64),
) -> Option<(u32, u32)> {
    let dir = dir.as_ref()?;
    let image = self::stored(view, image)?;
    let (mut file, _) = open_original(dir, &image.file, *max).ok()?;
    let (_, w, h) = crate::iiif::pyramid::probe(&mut file).ok()?;
    Some((w, h))
}

/// The pyramid of `image`, built now if it was not, and whether the view
/// names it by its `file_hash` (a pyramid found by the hash is answered
/// without opening the original; one named by the original's path, size and
/// time is a file that may change under the view, not to be replayed).
fn pyramid_of(
    dir: &Path,
    pyramids: &Pyramids,
    image: &Stored,
    max: u64,
) -> Result<(Key, Pyramid, Named), Box<Answer>> {
    let hashed = Key::hashed(&image.hash);
    if let Some(found) = hashed.as_ref().and_then(|key| pyramids.get(key)) {
        let key = hashed.expect("found by it");
        return Ok((key, found, Named::ByTheView));
    }
    let named = match hashed {
        Some(_) => Named::ByTheView,
        None => Named::ByTheFile,
    };
    let (file, identity) = open_original(dir, &image.file, max).map_err(|why| {
        tracing::debug!(file = image.file, why, "a photograph's original not served");
        Box::new(Answer::not_found())
    })?;
    let key = Key::of(
        &image.hash,
        format!("{}\0{identity}", image.file).as_bytes(),
    );
    let pyramid = pyramids.get_or_build(&key, file).map_err(|e| {
        tracing::warn!(file = image.file, error = %e, "a photograph not cut into tiles");
        Box::new(failed(&e))
    })?;
    Ok((key, pyramid, named))
}

/// What names a photograph's pyramid.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Named {
    /// The image's `file_hash`, in the view: the same request, the same
    /// answer, for as long as the view is served.
    ByTheView,
    /// Its original's path, size and time.
    ByTheFile,
}

impl Named {
    fn mark(self, answer: Answer) -> Answer {
        match self {
            Named::ByTheView => answer,
            Named::ByTheFile => answer.read_from_files(),
        }
    }
}

fn info_answer(
    dir: &Path,
    pyramids: &Pyramids,
    image: &Stored,
    service: &str,
    ld: bool,
    max: u64,
) -> Answer {
    let (key, pyramid, named) = match pyramid_of(dir, pyramids, image, max) {
        Ok(found) => found,
        Err(answer) => return *answer,
    };
    let levels = pyramid.levels;
    let doc = info::document(service, levels.width, levels.height, Limits::default());
    let body = serde_json::to_vec(&doc).expect("a JSON value prints");
    let kind = match ld {
        true => Kind::Asset {
            content_type: JSON_LD,
            coding: Coding::Identity,
        },
        false => Kind::Json,
    };
    let tag = tag(&key, &[service, if ld { "ld" } else { "json" }]);
    named.mark(Answer::tagged(kind, Bytes::from(body), tag, Some(CACHE)))
}

fn image_answer(
    dir: &Path,
    pyramids: &Pyramids,
    image: &Stored,
    request: ImageRequest,
    max: u64,
) -> Answer {
    let (key, pyramid, named) = match pyramid_of(dir, pyramids, image, max) {
        Ok(found) => found,
        Err(answer) => return *answer,
    };
    let (w, h) = (pyramid.levels.width, pyramid.levels.height);
    let resolved = match request.resolve(w, h, Limits::default()) {
        Ok(r) => r,
        Err(r) => return refused(r),
    };
    let canonical = resolved.canonical(w, h);
    let body = match pyramid.cut(&resolved, &mut Resizer::new()) {
        Ok(Cut::Stored(path)) => {
            std::fs::read(&path).map_err(|e| RasterError::Decode(e.to_string()))
        }
        Ok(Cut::Made(raster)) => raster
            .quality(resolved.quality)
            .turn(resolved.rotation)
            .encode(resolved.format),
        Err(e) => Err(e),
    };
    let body = match body {
        Ok(body) => body,
        Err(e) => {
            tracing::warn!(file = image.file, error = %e, "a photograph's region not made");
            return failed(&e);
        }
    };
    let kind = Kind::Asset {
        content_type: resolved.format.content_type(),
        coding: Coding::Identity,
    };
    named.mark(Answer::tagged(
        kind,
        Bytes::from(body),
        tag(&key, &[&canonical]),
        Some(CACHE),
    ))
}

/// An answer's tag: the original's key, what was asked, and this build (whose
/// encoders made the bytes).
fn tag(key: &Key, asked: &[&str]) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    for part in asked {
        h.update(b"\0");
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    let mut tag = format!("\"iiif-{}-", &key.as_str()[..key.as_str().len().min(16)]);
    crate::encoding::hex::push_hex(&mut tag, &digest[..8]);
    tag.push('"');
    tag
}

/// Cuts, one at a time on a thread of its own, every photograph of the
/// served view whose pyramid is not made yet, so that a viewer's first tiles
/// come from disk; a request for one not reached yet makes its own.
pub fn fill(state: &Arc<State>) {
    let (Some(dir), Some(pyramids)) = (state.settings.media_dir.clone(), state.pyramids.clone())
    else {
        return;
    };
    let served = state.current();
    let max = state.settings.media_max_bytes;
    // What to cut, read now: the thread holds no view, which a reload frees.
    let images: Vec<Stored> = {
        let table = served.view.table(Model::Image);
        (0..table.len() as u32)
            .filter_map(|pos| stored(&served.view, table.id(pos)))
            .collect()
    };
    drop(served);
    let spawned = std::thread::Builder::new()
        .name("iiif-pyramids".into())
        .spawn(move || {
            let (mut made, mut failed) = (0usize, 0usize);
            for image in images {
                match open_original(&dir, &image.file, max) {
                    Ok((file, identity)) => {
                        let key =
                            Key::of(&image.hash, format!("{}\0{identity}", image.file).as_bytes());
                        if pyramids.get(&key).is_some() {
                            continue;
                        }
                        match pyramids.get_or_build(&key, file) {
                            Ok(_) => made += 1,
                            Err(_) => failed += 1,
                        }
                    }
                    Err(_) => failed += 1,
                }
            }
            tracing::info!(made, failed, root = %pyramids.root().display(), "photographs' tile pyramids filled");
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "the tile pyramids are made on first use only");
    }
}
