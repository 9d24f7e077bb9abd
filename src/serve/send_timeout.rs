//! A connection whose writes must make progress: when the peer takes nothing for
//! `--send-timeout`, the write fails and hyper closes the connection. hyper has no
//! write timeout of its own, and a client that reads a byte a minute would
//! otherwise keep its connection (and whatever its answer holds) for as long as it
//! likes.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A stream whose pending writes time out.
pub struct SendTimeout<S> {
    inner: S,
    limit: Duration,
    /// Set while a write waits for the peer; cleared by any progress.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> SendTimeout<S> {
    pub fn new(inner: S, limit: Duration) -> SendTimeout<S> {
        SendTimeout {
            inner,
            limit,
            deadline: None,
        }
    }

    /// What a write that returned `result` means, with the deadline kept: progress
    /// clears it, waiting starts it, and waiting past it is an error.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Pending => {
                let limit = self.limit;
                let deadline = self
                    .deadline
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match deadline.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("the client took nothing for {limit:?}"),
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            ready => {
                self.deadline = None;
                ready
            }
        }
    }
}

use std::future::Future as _;

impl<S: AsyncRead + Unpin> AsyncRead for SendTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SendTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, result)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, result)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, result)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_write_the_peer_never_takes_times_out() {
        // A pipe whose other end reads nothing: 64 KiB fit, then writes wait.
        let (ours, _theirs) = tokio::io::duplex(64 * 1024);
        let mut stream = SendTimeout::new(ours, Duration::from_millis(200));
        let started = tokio::time::Instant::now();
        let mut written = 0;
        let e = loop {
            match stream.write(&[0; 8192]).await {
                Ok(n) => written += n,
                Err(e) => break e,
            }
        };
        assert_eq!(written, 64 * 1024);
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(200));
    }

    #[tokio::test]
    async fn slow_progress_is_still_progress() {
        let (ours, mut theirs) = tokio::io::duplex(1024);
        let mut stream = SendTimeout::new(ours, Duration::from_millis(300));
        let reader = tokio::spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut buf = [0; 512];
            let mut total = 0;
            while total < 8192 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                total += theirs.read(&mut buf).await.unwrap();
            }
            total
        });
        stream.write_all(&[1; 8192]).await.unwrap();
        assert_eq!(reader.await.unwrap(), 8192);
    }
}
