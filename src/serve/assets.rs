//! The pages' files (`html::assets`): named by their content, so cached for a year;
//! compressed once per process at start, off the request path.

use std::sync::OnceLock;

use bytes::Bytes;

use crate::html::assets::{self, Asset, ASSETS};

use super::answer::{Answer, Kind};
use super::compress::{Coding, Compressed};

/// `Cache-Control` of an asset: its URL changes with its content.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Each asset's gzip and brotli bodies, once [`prepare`] made them.
fn bodies() -> &'static [Compressed] {
    static BODIES: OnceLock<Vec<Compressed>> = OnceLock::new();
    BODIES.get_or_init(|| ASSETS.iter().map(|_| Compressed::default()).collect())
}

/// Names the assets and compresses them, once per process, off the request path
/// (the server calls it on a thread of its own at start). Until it is done, an
/// asset is sent as it is.
pub fn prepare() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(compress_all);
}

fn compress_all() {
    let _ = assets::prefix();
    for (i, asset) in ASSETS.iter().enumerate().filter(|(_, a)| compressible(a)) {
        bodies()[i].fill(&[asset.bytes]);
    }
}

/// Whether an asset gains from compression (images are compressed already).
fn compressible(asset: &Asset) -> bool {
    !asset.content_type.starts_with("image/")
}

/// The answer for a path under the assets' prefix, in the coding the client
/// takes where it is ready, or `None` if the path names no asset.
pub fn answer(path: &str, wanted: Coding) -> Option<Answer> {
    let asset = assets::find(path)?;
    let index = ASSETS.iter().position(|a| std::ptr::eq(a, asset))?;
    let (coding, body) = match bodies()[index].get(wanted) {
        Some(body) => (wanted, body),
        None => (Coding::Identity, Bytes::from_static(asset.bytes)),
    };
    let prefix = assets::prefix();
    let tag = format!(
        "\"{}-{index}{}\"",
        &prefix[8..prefix.len() - 1],
        coding.token().map(|t| format!("-{t}")).unwrap_or_default()
    );
    let kind = Kind::Asset {
        content_type: asset.content_type,
        coding,
    };
    Some(Answer::tagged(kind, body, tag, Some(IMMUTABLE)))
}
