//! Content negotiation and compression of response bodies, and the bodies
//! compressed once and kept (whole lists, the pages' files).

use std::io::Write;
use std::sync::OnceLock;

use bytes::Bytes;

use super::negotiate::weighted;

/// Bodies smaller than this are not worth compressing.
pub const COMPRESS_ABOVE: usize = 1024;
/// Bodies larger than this are sent as they are: compressing hundreds of megabytes
/// per request would hold a core for seconds.
pub const COMPRESS_BELOW: usize = 8 * 1024 * 1024;

/// A body's gzip and brotli forms, each made once off the request path and then
/// read by every request that takes it; empty until made.
#[derive(Debug, Default)]
pub struct Compressed([OnceLock<Bytes>; 2]);

impl Compressed {
    /// The body in `coding`, once made (never for identity).
    pub fn get(&self, coding: Coding) -> Option<Bytes> {
        self.0[Compressed::slot(coding)?].get().cloned()
    }

    /// Makes both forms of the concatenation of `parts`, as hard as is worth once.
    pub fn fill(&self, parts: &[&[u8]]) {
        for coding in [Coding::Gzip, Coding::Brotli] {
            let body = Bytes::from(compress(coding, parts, Effort::Once));
            if let Some(slot) = Compressed::slot(coding) {
                let _ = self.0[slot].set(body);
            }
        }
    }

    fn slot(coding: Coding) -> Option<usize> {
        match coding {
            Coding::Gzip => Some(0),
            Coding::Brotli => Some(1),
            Coding::Identity => None,
        }
    }
}

/// A content coding the server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Gzip,
    Brotli,
}

impl Coding {
    /// The `Content-Encoding` token, or `None` for identity.
    pub fn token(self) -> Option<&'static str> {
        match self {
            Coding::Identity => None,
            Coding::Gzip => Some("gzip"),
            Coding::Brotli => Some("br"),
        }
    }
}

/// How hard to try.
///
/// Measured on this project's 2-core machine, 2026-11-22, on a 20-item specimen page
/// (67 KB) and a whole 2,000-item nested-localities list (1.16 MB):
///
/// | level | page | whole list |
/// | --- | --- | --- |
/// | gzip 1 / 4 / 6 / 9 | 25.7 / 16.7 / 15.9 / 15.8 % in 0.47 / 0.95 / 1.46 / 2.12 ms | 15.2 / 9.5 / 8.9 / 8.8 % in 2.9 / 9.3 / 18.6 / 31.9 ms |
/// | br 1 / 4 / 6 / 9 / 11 | 18.5 / 15.9 / 14.3 / 14.0 / 12.0 % in 0.78 / 1.69 / 1.93 / 14.1 / 107 ms | 10.2 / 6.8 / 6.1 / 5.8 / 4.9 % in 3.8 / 7.9 / 16.9 / 55 / 1243 ms |
///
/// Per response, gzip 4 and brotli 4 cost about a millisecond a page for most of
/// the gain; once per view (in the background) gzip 9 and brotli 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    PerResponse,
    Once,
}

impl Effort {
    fn gzip(self) -> u32 {
        match self {
            Effort::PerResponse => 4,
            Effort::Once => 9,
        }
    }

    fn brotli(self) -> u32 {
        match self {
            Effort::PerResponse => 4,
            Effort::Once => 9,
        }
    }
}

const BROTLI_WINDOW: u32 = 22;

/// Picks a coding from an `Accept-Encoding` header: the highest q-value among
/// br, gzip and identity (br first on ties, identity when nothing else is wanted).
pub fn negotiate(accept: Option<&str>) -> Coding {
    let Some(accept) = accept else {
        return Coding::Identity;
    };
    let mut q = [
        (Coding::Brotli, None),
        (Coding::Gzip, None),
        (Coding::Identity, None),
    ];
    let mut star = None;
    for (name, weight) in weighted(accept) {
        match name.to_ascii_lowercase().as_str() {
            "br" => q[0].1 = Some(weight),
            "gzip" | "x-gzip" => q[1].1 = Some(weight),
            "identity" => q[2].1 = Some(weight),
            "*" => star = Some(weight),
            _ => {}
        }
    }
    let mut best = (Coding::Identity, 0.0f32);
    for (coding, weight) in q {
        let w = weight.or(star).unwrap_or(if coding == Coding::Identity {
            0.001
        } else {
            0.0
        });
        if w > best.1 {
            best = (coding, w);
        }
    }
    best.0
}

/// Compresses the concatenation of `parts`.
pub fn compress(coding: Coding, parts: &[&[u8]], effort: Effort) -> Vec<u8> {
    let size: usize = parts.iter().map(|p| p.len()).sum();
    encode(coding, effort, size, |w| {
        parts.iter().try_for_each(|p| w.write_all(p))
    })
}

/// Compresses what `write` writes (about `size` bytes) in memory.
pub fn encode(
    coding: Coding,
    effort: Effort,
    size: usize,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Vec<u8> {
    match coding {
        Coding::Identity => {
            let mut out = Vec::with_capacity(size);
            write(&mut out).expect("writing to memory");
            out
        }
        Coding::Gzip => {
            let mut e = flate2::write::GzEncoder::new(
                Vec::with_capacity(size / 4),
                flate2::Compression::new(effort.gzip()),
            );
            write(&mut e).expect("writing to memory");
            e.finish().expect("writing to memory")
        }
        Coding::Brotli => {
            let mut out = Vec::with_capacity(size / 4);
            {
                let mut e = brotli::CompressorWriter::new(
                    &mut out,
                    64 * 1024,
                    effort.brotli(),
                    BROTLI_WINDOW,
                );
                write(&mut e).expect("writing to memory");
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn negotiation_honours_q_values() {
        assert_eq!(negotiate(None), Coding::Identity);
        assert_eq!(negotiate(Some("")), Coding::Identity);
        assert_eq!(negotiate(Some("gzip")), Coding::Gzip);
        assert_eq!(negotiate(Some("gzip, deflate, br")), Coding::Brotli);
        assert_eq!(negotiate(Some("br;q=0.5, gzip;q=0.8")), Coding::Gzip);
        assert_eq!(negotiate(Some("br;q=0, gzip;q=0")), Coding::Identity);
        assert_eq!(negotiate(Some("*")), Coding::Brotli);
        assert_eq!(negotiate(Some("*;q=0.5, br;q=0.1")), Coding::Gzip);
        assert_eq!(
            negotiate(Some("identity;q=1, gzip;q=0.5")),
            Coding::Identity
        );
        assert_eq!(negotiate(Some("deflate")), Coding::Identity);
        assert_eq!(negotiate(Some("GZIP;Q=1")), Coding::Gzip);
        assert_eq!(negotiate(Some("gzip;q=abc, br;q=2")), Coding::Identity);
    }

    #[test]
    fn compressed_bodies_decompress_to_the_parts() {
        let parts: [&[u8]; 3] = [b"{\"items\":[", b"{\"a\":1},{\"a\":2}", b"]}"];
        let whole = parts.concat();
        for effort in [Effort::PerResponse, Effort::Once] {
            let mut out = Vec::new();
            let gz = compress(Coding::Gzip, &parts, effort);
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, whole);
            let mut out = Vec::new();
            let br = compress(Coding::Brotli, &parts, effort);
            brotli::Decompressor::new(&br[..], 4096)
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, whole);
            assert_eq!(compress(Coding::Identity, &parts, effort), whole);
        }
    }
}
