//! The pages' files (`html::assets`): named by their content, so cached for a year;
//! compressed once per coding, the first time a client takes that coding.

use std::sync::OnceLock;

use bytes::Bytes;
use warp::http::{header, HeaderMap};

use crate::html::assets::{self, Asset, ASSETS};

use super::compress::{self, Coding, Effort};
use super::response::Answer;

/// `Cache-Control` of an asset: its URL changes with its content.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Each asset's gzip and brotli bodies, made on first use.
fn compressed(index: usize, coding: Coding) -> Option<Bytes> {
    static BODIES: OnceLock<Vec<[OnceLock<Bytes>; 2]>> = OnceLock::new();
    let bodies = BODIES.get_or_init(|| ASSETS.iter().map(|_| Default::default()).collect());
    let slot = match coding {
        Coding::Gzip => 0,
        Coding::Brotli => 1,
        Coding::Identity => return None,
    };
    let bytes = ASSETS[index].bytes;
    Some(
        bodies[index][slot]
            .get_or_init(|| Bytes::from(compress::compress(coding, &[bytes], Effort::PerResponse)))
            .clone(),
    )
}

/// Whether an asset gains from compression (images are compressed already).
fn compressible(asset: &Asset) -> bool {
    !asset.content_type.starts_with("image/")
}

/// The answer for a path under the assets' prefix, or `None` if it names none.
pub fn answer(path: &str, headers: &HeaderMap) -> Option<Answer> {
    let asset = assets::find(path)?;
    let index = ASSETS.iter().position(|a| std::ptr::eq(a, asset))?;
    let coding = match compressible(asset) {
        true => compress::negotiate(
            headers
                .get(header::ACCEPT_ENCODING)
                .and_then(|v| v.to_str().ok()),
        ),
        false => Coding::Identity,
    };
    let body = compressed(index, coding).unwrap_or_else(|| Bytes::from_static(asset.bytes));
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
