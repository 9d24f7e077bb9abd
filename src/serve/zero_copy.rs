//! A TCP connection that sends rendered lists without copying them: a slice of
//! a memory file ([`crate::memfile`]) goes out with `sendfile`, which hands the
//! file's pages to the socket, as a static file server sends its files. What
//! comes before it in the same write (the status line and headers, the page's
//! envelope, and the slice up to its first page boundary) goes out first, held
//! back (`MSG_MORE`) so it leaves with the slice; anything else is written as
//! usual.
//!
//! A write smaller than [`COPY_BELOW`] is copied whole, in one call: a 20-item
//! page (63 KB) then leaves in one packet, which the client reads at once,
//! where `sendfile` sends the slice and the envelope's tail after it (nginx
//! corks the socket for the same reason).
//!
//! hyper writes a response's pieces as they were given to it, in one vectored
//! write, so the slices it hands over are the ones the answer was made of.

use std::io::{self, IoSlice};
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use crate::memfile;

/// Slices shorter than this are copied: a second system call costs more.
const SEND_FILE_ABOVE: usize = 16 * 1024;

/// Writes smaller than this are copied, head, slices and tail in one call and
/// one packet. Against nginx on the same bytes (100k specimens, wrk -c32): a
/// 63 KB page 0.65x copied against 0.57x sent from the file, a 331 KB page
/// 0.83x against 0.85x, a 1.6 MB page 0.72x against 0.82x.
const COPY_BELOW: usize = 256 * 1024;

/// A connection whose writes send memory files' pages rather than copies.
pub struct ZeroCopy {
    stream: TcpStream,
}

impl ZeroCopy {
    pub fn new(stream: TcpStream) -> ZeroCopy {
        ZeroCopy { stream }
    }

    /// Runs the non-blocking `call` once the socket takes data, until it does not
    /// say "would block".
    fn poll_send(
        &self,
        cx: &mut Context<'_>,
        call: impl Fn(RawFd) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        let fd = self.stream.as_raw_fd();
        loop {
            ready!(self.stream.poll_write_ready(cx))?;
            match self.stream.try_io(Interest::WRITABLE, || call(fd)) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                done => return Poll::Ready(done),
            }
        }
    }
}

/// Where a slice lies in a memory file, if it is worth sending from there.
fn in_file(slice: &[u8]) -> Option<(RawFd, u64)> {
    match slice.len() >= SEND_FILE_ABOVE {
        true => memfile::locate(slice),
        false => None,
    }
}

/// The most a `sendfile` call sends: what the kernel's pipe between the file and
/// the socket holds at once (16 pages), from `offset` on. The kernel splits a
/// longer call into rounds anyway; as separate calls, a 70 KB page of a 1M list
/// went from 18,743 to 32,303 requests a second (nginx: 35,340 in the same run).
const PIPE_PAGES: u64 = 16;
const PAGE: u64 = memfile::PAGE as u64;

/// `sendfile(2)` of up to `len` bytes of `file` from `offset`.
fn send_file(socket: RawFd, file: RawFd, offset: u64, len: usize) -> io::Result<usize> {
    let len = len.min((PIPE_PAGES * PAGE - offset % PAGE) as usize);
    let mut offset = offset as libc::off_t;
    // SAFETY: both descriptors are open (the file by the slice's owner); the
    // kernel reads `len` bytes of the file and writes nothing of ours.
    let sent = unsafe { libc::sendfile(socket, file, &mut offset, len) };
    match sent {
        n if n >= 0 => Ok(n as usize),
        _ => Err(io::Error::last_os_error()),
    }
}

/// `sendmsg(2)` of `bufs` with `MSG_MORE`: more follows at once, so the kernel
/// holds a part-filled packet for it.
fn send_more(socket: RawFd, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
    // SAFETY: a zeroed msghdr is valid; its iovecs are `bufs` (IoSlice is
    // ABI-compatible with iovec), read by the kernel during the call only.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = bufs.as_ptr() as *mut libc::iovec;
    message.msg_iovlen = bufs.len().min(libc::UIO_MAXIOV as usize) as _;
    let flags = libc::MSG_MORE | libc::MSG_NOSIGNAL;
    // SAFETY: see above.
    let sent = unsafe { libc::sendmsg(socket, &message, flags) };
    match sent {
        n if n >= 0 => Ok(n as usize),
        _ => Err(io::Error::last_os_error()),
    }
}

/// How many bytes from the start of `bufs` lie one after another in `file` from
/// `offset` (where the first does): a page that crosses from one segment of a
/// list to the next is two slices of the same file, sent with one call.
fn contiguous(bufs: &[IoSlice<'_>], file: RawFd, offset: u64) -> usize {
    let mut len = bufs[0].len();
    for next in &bufs[1..] {
        let follows = next.as_ptr() == bufs[0].as_ptr().wrapping_add(len);
        if !follows || memfile::locate(next) != Some((file, offset + len as u64)) {
            break;
        }
        len += next.len();
    }
    len
}

impl AsyncRead for ZeroCopy {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ZeroCopy {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match in_file(buf).filter(|_| buf.len() >= COPY_BELOW) {
            Some((file, offset)) => self.poll_send(cx, |s| send_file(s, file, offset, buf.len())),
            None => Pin::new(&mut self.stream).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if bufs.iter().map(|b| b.len()).sum::<usize>() < COPY_BELOW {
            return Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        }
        // The first slice of a memory file: what precedes it goes first (a partial
        // write is fine: the caller writes the rest again).
        let first = bufs
            .iter()
            .enumerate()
            .find_map(|(k, b)| Some((k, in_file(b)?)));
        match first {
            None => Pin::new(&mut self.stream).poll_write_vectored(cx, bufs),
            Some((0, (file, offset))) => {
                let len = contiguous(bufs, file, offset);
                self.poll_send(cx, |s| send_file(s, file, offset, len))
            }
            Some((k, (_, offset))) => {
                // The file's slice up to its first page boundary goes with what
                // precedes it: `sendfile` then starts on a page and sends up to
                // `PIPE_PAGES` whole pages in one call, wherever the slice began.
                let to_page = ((PAGE - offset % PAGE) % PAGE) as usize;
                let ahead = match bufs[k].len() > to_page + SEND_FILE_ABOVE {
                    true => &bufs[k][..to_page],
                    false => &[][..],
                };
                let mut first = [IoSlice::new(&[]); 8];
                let n = k.min(first.len() - 1);
                first[..n].copy_from_slice(&bufs[..n]);
                if n == k {
                    first[n] = IoSlice::new(ahead);
                }
                self.poll_send(cx, |s| send_more(s, &first[..=n]))
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A response of headers, two adjacent slices of a memory file and a tail,
    /// written as hyper writes it, arrives whole and in order, too big for the
    /// socket's buffer at once; the slices are one run of the file.
    #[tokio::test]
    async fn slices_of_memory_files_arrive_in_order() {
        let mut writer = memfile::Writer::new().expect("memory files on Linux");
        let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        writer.append(&body).unwrap();
        let mapped = writer.finish().unwrap();
        // Two parts one after another in the file (a page across two segments).
        let (first, second) = (
            mapped.part(100..1_500_000),
            mapped.part(1_500_000..2_900_000),
        );
        let bufs = [
            IoSlice::new(&first),
            IoSlice::new(&second),
            IoSlice::new(b"]"),
        ];
        let (fd, offset) = memfile::locate(&first).expect("in the file");
        assert_eq!(contiguous(&bufs, fd, offset), 2_899_900);
        assert_eq!(contiguous(&bufs[1..], fd, offset + 1_499_900), 1_400_000);
        let apart = [IoSlice::new(&second), IoSlice::new(&first)];
        assert_eq!(contiguous(&apart, fd, offset + 1_499_900), 1_400_000);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let reader = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut got = Vec::new();
            socket.read_to_end(&mut got).await.unwrap();
            got
        });
        let mut stream = ZeroCopy::new(TcpStream::connect(addr).await.unwrap());
        let parts: [&[u8]; 4] = [b"HTTP/1.1 200 OK\r\n\r\n[", &first, &second, b"]"];
        let mut expected = Vec::new();
        parts.iter().for_each(|p| expected.extend_from_slice(p));
        // As hyper does: a vectored write of what is left, until none is.
        let (mut part, mut within) = (0, 0);
        while part < parts.len() {
            let slices: Vec<IoSlice> = std::iter::once(IoSlice::new(&parts[part][within..]))
                .chain(parts[part + 1..].iter().map(|p| IoSlice::new(p)))
                .collect();
            let mut n = stream.write_vectored(&slices).await.unwrap();
            while part < parts.len() && n >= parts[part].len() - within {
                n -= parts[part].len() - within;
                (part, within) = (part + 1, 0);
            }
            within += n;
        }
        stream.shutdown().await.unwrap();
        drop(stream);
        assert_eq!(reader.await.unwrap(), expected);
    }
}
