//! Files: the pages' own (`/static/...`) and the collection's media
//! (`/media/...`, from `--media-dir`).

use crate::serve::answer::Answer;
use crate::serve::route::{Ctx, Job, Parsed};
use crate::serve::{assets, descriptors, media_files};
use crate::view::generalised::Located;

/// A file the pages load.
pub fn asset(ctx: Ctx<'_>) -> Parsed<'_> {
    let asked = ctx.asked;
    let answer = assets::answer(&asked.path, asked.coding).unwrap_or_else(Answer::not_found);
    Ok(Job::ready(answer))
}

/// A media file, read when asked (the directory may change under the server).
pub fn media(ctx: Ctx<'_>) -> Parsed<'_> {
    let settings = &ctx.state.settings;
    let (dir, max) = (settings.media_dir.as_deref(), settings.media_max_bytes);
    let path = ctx.asked.path.as_str();
    // Its file is held open while the client reads: a descriptor of the
    // client's share.
    let held = (ctx.state.descriptors.take(ctx.asked.peer, 1))
        .map_err(|e| Answer::error(&e).retry_after(descriptors::RETRY_SECONDS))?;
    // A covered record's photographs are served without their location.
    let located = ctx.served.view.derived::<Located>();
    Ok(Job::awaited(media_files::answer(
        dir, path, max, held, located,
    )))
}
