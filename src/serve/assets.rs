//! The pages' files (`html::assets`): named by their content, so cached for a year;
//! compressed once per process at start, off the request path.

use std::sync::OnceLock;

use bytes::Bytes;
use warp::http::{header, HeaderMap};

use crate::html::assets::{self, Asset, ASSETS};

use super::compress::{self, Coding, Effort};
use super::response::Answer;

/// `Cache-Control` of an asset: its URL changes with its content.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Each asset's gzip and brotli bodies, once [`prepare`] made them.
fn bodies() -> &'static [[OnceLock<Bytes>; 2]] {
    static BODIES: OnceLock<Vec<[OnceLock<Bytes>; 2]>> = OnceLock::new();
    BODIES.get_or_init(|| ASSETS.iter().map(|_| Default::default()).collect())
}

fn slot(coding: Coding) -> Option<usize> {
    match coding {
        Coding::Gzip => Some(0),
        Coding::Brotli => Some(1),
        Coding::Identity => None,
    }
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
        for coding in [Coding::Gzip, Coding::Brotli] {
            let body = compress::compress(coding, &[asset.bytes], Effort::Once);
            let _ = bodies()[i][slot(coding).expect("a coding")].set(Bytes::from(body));
        }
    }
}

/// An asset's body in a coding, if [`prepare`] has made it.
fn compressed(index: usize, coding: Coding) -> Option<Bytes> {
    bodies()[index][slot(coding)?].get().cloned()
}

/// Whether an asset gains from compression (images are compressed already).
fn compressible(asset: &Asset) -> bool {
    !asset.content_type.starts_with("image/")
}

/// The answer for a path under the assets' prefix, or `None` if it names none.
pub fn answer(path: &str, headers: &HeaderMap) -> Option<Answer> {
    let asset = assets::find(path)?;
    let index = ASSETS.iter().position(|a| std::ptr::eq(a, asset))?;
    let wanted = compress::negotiate(
        headers
            .get(header::ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let (coding, body) = match compressed(index, wanted) {
        Some(body) => (wanted, body),
        None => (Coding::Identity, Bytes::from_static(asset.bytes)),
    };
    let mut a = Answer::json(200, body);
    a.content_type = asset.content_type;
    a.compressible = false;
    a.encoded = coding.token();
    a.cache_control = Some(IMMUTABLE);
    let prefix = assets::prefix();
    a.etag = Some(format!(
        "\"{}-{index}{}\"",
        &prefix[8..prefix.len() - 1],
        coding.token().map(|t| format!("-{t}")).unwrap_or_default()
    ));
    Some(a)
}
