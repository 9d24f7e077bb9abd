//! Media URLs: where they start, and how that base goes into a body at the
//! markers rendering left (`view::render::MEDIA_BASE`), a run at a time as the
//! body is sent, so that a long base never makes a whole answer larger in memory
//! than the rendered bytes it is cut from.

use bytes::Bytes;
use warp::http::HeaderMap;

use crate::encoding::json::{needs_escape, write_str};
use crate::model::Endpoint;
use crate::view::render::{write_spliced, MEDIA_BASE};
use crate::view::View;

use super::origin::origin;
use super::settings::Settings;

/// Where the media URLs of an answer start, if it holds any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    None,
    /// As the service's own lists build them: [`media_url`].
    FromHost,
    /// As Wagtail's own endpoints write them (`/api/v2/images/`'s
    /// `download_url`): `--media-url`, else `/media/`, whatever the Host.
    Configured,
}

impl Media {
    /// What the items of an endpoint hold in this view (a specimen's only
    /// where a taxon it embeds has a featured image).
    pub fn of(view: &View, endpoint: Endpoint) -> Media {
        match view.list(endpoint).has_media() {
            true => Media::FromHost,
            false => Media::None,
        }
    }

    /// The base, as JSON string content, to go where the rendered bytes mark it.
    pub fn base(self, settings: &Settings, req: &HeaderMap) -> Option<String> {
        match self {
            Media::None => None,
            Media::FromHost => Some(json_content(media_url(settings, req))),
            Media::Configured => {
                let url = settings.media_url.as_deref().unwrap_or("/media/");
                Some(json_content(url.to_string()))
            }
        }
    }
}

/// Where media URLs start: `--media-url`, else `<origin>/media/`, as the
/// existing service built it from the request (`http://<Host>/media/`; `/media/`
/// when a request names no host), or under `--public-url`. The guard has refused
/// any Host that is not `host[:port]`.
pub fn media_url(settings: &Settings, req: &HeaderMap) -> String {
    match &settings.media_url {
        Some(url) => url.clone(),
        None => match origin(settings.public_url.as_ref(), req) {
            Some(origin) => origin + "/media/",
            None => "/media/".to_string(),
        },
    }
}

/// A string as it stands between a JSON string's quotes (most often as it is:
/// the guard lets only `host[:port]` through as a Host).
fn json_content(s: String) -> String {
    if !needs_escape(&s) {
        return s;
    }
    let mut quoted = Vec::with_capacity(s.len() + 2);
    write_str(&mut quoted, &s);
    String::from_utf8_lossy(&quoted[1..quoted.len() - 1]).into_owned()
}

/// How many bytes `parts` take once every marker is replaced by `base`.
pub fn spliced_len(parts: &[Bytes], base: &[u8]) -> usize {
    parts.iter().map(|part| part_len(part, base)).sum()
}

/// The length of one part with its markers replaced by `base`.
fn part_len(part: &[u8], base: &[u8]) -> usize {
    let markers = memchr::memchr_iter(MEDIA_BASE, part).count();
    part.len() - markers + markers * base.len()
}

/// `part` with every marker replaced by `base` (the part itself when it holds
/// none), a run at a time ([`write_spliced`]: a byte-by-byte split cost a
/// third of a page's throughput). The copy holds exactly its bytes (the memo charges their
/// length): a guessed capacity doubled past a dozen markers.
pub fn splice(part: Bytes, base: &[u8]) -> Bytes {
    if memchr::memchr(MEDIA_BASE, &part).is_none() {
        return part;
    }
    let mut out = Vec::with_capacity(part_len(&part, base));
    write_spliced(&mut out, &part, base).expect("writing to memory");
    Bytes::from(out)
}

/// The bytes of a body sent at a time while its base is spliced in: what a
/// connection holds beyond the shared rendered bytes, whatever the Host.
const PIECE: usize = 64 * 1024;

/// The parts cut into pieces of at most [`PIECE`] bytes (shared, not copied),
/// each spliced only when the body's stream reaches it.
pub fn spliced_pieces(parts: Vec<Bytes>, base: Bytes) -> impl Iterator<Item = Bytes> {
    parts
        .into_iter()
        .flat_map(|part| {
            let n = part.len().div_ceil(PIECE);
            (0..n).map(move |i| part.slice(i * PIECE..((i + 1) * PIECE).min(part.len())))
        })
        .map(move |piece| splice(piece, &base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_media_base_goes_at_every_marker() {
        let m = MEDIA_BASE as char;
        let parts = vec![
            Bytes::from(format!("{m}a{m}{m}b{m}")),
            Bytes::from_static(b"no marker"),
            Bytes::from(format!("\"{m}x.jpg\"")),
        ];
        let base = b"http://h/media/";
        let want = [
            "http://h/media/ahttp://h/media/http://h/media/bhttp://h/media/",
            "no marker",
            "\"http://h/media/x.jpg\"",
        ];
        assert_eq!(spliced_len(&parts, base), want.concat().len());
        let out: Vec<Bytes> = parts.into_iter().map(|p| splice(p, base)).collect();
        assert_eq!(out, want.map(|s| Bytes::from(s.to_string())));
    }

    #[test]
    fn pieces_splice_a_long_body_the_same() {
        let m = MEDIA_BASE as char;
        let item = format!("{{\"file\":\"{m}a/b.jpg\"}},");
        let body = Bytes::from(item.repeat(20_000));
        let base = Bytes::from_static(b"http://example.org/media/");
        let whole = splice(body.clone(), &base);
        let pieces: Vec<Bytes> = spliced_pieces(vec![body.clone()], base.clone()).collect();
        assert!(pieces.len() > 2, "{} pieces", pieces.len());
        assert!(pieces.iter().all(|p| p.len() <= PIECE * base.len()));
        assert_eq!(pieces.concat(), whole.to_vec());
        assert_eq!(spliced_len(&[body], &base), whole.len());
    }
}
