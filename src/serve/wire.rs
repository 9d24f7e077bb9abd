//! The body hyper writes. A page is parts (the envelope's head, a slice of a
//! rendered list, the envelope's tail); as warp's body they are frames of their
//! own, and hyper writes what it has queued whenever a frame takes it past its
//! write buffer (16 KiB here, the read buffer's size), so a 60 KB page left in two
//! writes, two packets and two wake-ups of the client. As one frame of several
//! slices ([`Pieces`]) the head and every part go to one vectored write.

use std::collections::VecDeque;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body::{Frame, SizeHint};
use warp::http;
use warp::reply::Response;

/// warp's body, named through its response (its type's module is private).
pub type WarpBody = <Response as HasBody>::Body;

/// What a response's body is.
pub trait HasBody {
    type Body;
}

impl<B> HasBody for http::Response<B> {
    type Body = B;
}

/// A response's parts to be sent as one frame: carried in the response's
/// extensions from where the answer is made to [`wire`], since warp's body has
/// frames of one slice each.
#[derive(Clone)]
pub struct Parts(pub Vec<Bytes>);

/// Several slices that hyper takes as one buffer and writes with one call.
#[derive(Debug)]
pub struct Pieces {
    slices: VecDeque<Bytes>,
    remaining: usize,
}

impl Pieces {
    fn new(slices: Vec<Bytes>) -> Pieces {
        let mut slices = VecDeque::from(slices);
        slices.retain(|s| !s.is_empty());
        let remaining = slices.iter().map(Bytes::len).sum();
        Pieces { slices, remaining }
    }
}

impl Buf for Pieces {
    fn remaining(&self) -> usize {
        self.remaining
    }

    fn chunk(&self) -> &[u8] {
        self.slices.front().map_or(&[], |s| s)
    }

    fn advance(&mut self, mut count: usize) {
        assert!(
            count <= self.remaining,
            "advanced past the end of the pieces"
        );
        self.remaining -= count;
        while count > 0 {
            let first = self.slices.front_mut().expect("counted above");
            if count < first.len() {
                first.advance(count);
                return;
            }
            count -= first.len();
            self.slices.pop_front();
        }
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        for (slot, slice) in dst.iter_mut().zip(&self.slices) {
            *slot = IoSlice::new(slice);
            n += 1;
        }
        n
    }
}

/// A response body as hyper sees it: warp's (`B`), or parts as one frame.
pub enum Body<B> {
    Warp(B),
    Parts(Option<Pieces>),
}

impl<B: http_body::Body<Data = Bytes> + Unpin> http_body::Body for Body<B> {
    type Data = Pieces;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Pieces>, B::Error>>> {
        match self.get_mut() {
            Body::Warp(body) => Pin::new(body)
                .poll_frame(cx)
                .map(|frame| frame.map(|f| f.map(|f| f.map_data(|data| Pieces::new(vec![data]))))),
            Body::Parts(pieces) => Poll::Ready(pieces.take().map(|p| Ok(Frame::data(p)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Body::Warp(body) => body.is_end_stream(),
            Body::Parts(pieces) => pieces.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Warp(body) => body.size_hint(),
            Body::Parts(pieces) => {
                SizeHint::with_exact(pieces.as_ref().map_or(0, |p| p.remaining) as u64)
            }
        }
    }
}

/// A response as hyper sends it.
pub type Wire = http::Response<Body<WarpBody>>;

/// A replayed answer as hyper sends it: 200, its headers, its parts as one frame.
pub fn replayed(headers: http::HeaderMap, parts: Vec<Bytes>) -> Wire {
    let mut r = http::Response::new(Body::Parts(Some(Pieces::new(parts))));
    *r.headers_mut() = headers;
    r
}

/// The response as hyper sends it: parts left in its extensions become its one
/// frame.
pub fn wire(response: Response) -> Wire {
    let (mut head, body) = response.into_parts();
    let body = match head.extensions.remove::<Parts>() {
        Some(Parts(parts)) => Body::Parts(Some(Pieces::new(parts))),
        None => Body::Warp(body),
    };
    http::Response::from_parts(head, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;

    /// A response's parts come out as one frame of every slice, in order, and
    /// the body says its exact length; a response without parts keeps its body.
    #[tokio::test]
    async fn parts_are_one_frame_and_other_bodies_pass_through() {
        let parts = ["{\"objects\":[", "{\"id\":1},{\"id\":2}", "]}"]
            .map(|p| Bytes::from_static(p.as_bytes()));
        let mut r = Response::new(Bytes::new().into());
        r.extensions_mut().insert(Parts(parts.to_vec()));
        let mut body = wire(r).into_body();
        assert_eq!(http_body::Body::size_hint(&body).exact(), Some(31));
        let frame = body.frame().await.expect("a frame").expect("no error");
        let Ok(mut data) = frame.into_data() else {
            panic!("a data frame")
        };
        let mut io = [IoSlice::new(&[]); 8];
        assert_eq!(data.chunks_vectored(&mut io), 3);
        assert_eq!(data.copy_to_bytes(31), parts.concat());
        assert!(body.frame().await.is_none());
        let plain = wire(Response::new(Bytes::from_static(b"plain").into()));
        let collected = plain.into_body().collect().await.expect("no error");
        assert_eq!(collected.to_bytes(), "plain");
    }

    #[test]
    fn pieces_advance_across_slices_and_show_what_is_left() {
        let mut p = Pieces::new(vec![
            Bytes::from_static(b"ab"),
            Bytes::new(),
            Bytes::from_static(b"cde"),
            Bytes::from_static(b"f"),
        ]);
        assert_eq!(p.remaining(), 6);
        let mut io = [IoSlice::new(&[]); 4];
        assert_eq!(p.chunks_vectored(&mut io), 3);
        p.advance(3);
        assert_eq!((p.remaining(), p.chunk()), (3, &b"de"[..]));
        p.advance(2);
        assert_eq!(p.chunk(), b"f");
        p.advance(1);
        assert_eq!((p.remaining(), p.chunk()), (0, &b""[..]));
    }
}
