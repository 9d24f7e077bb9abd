//! A connection whose writes must make progress: while the server waits for the
//! peer to take more, the peer must take at least `--min-send-rate` bytes a
//! second over each `--send-timeout`, or the write fails and hyper closes the
//! connection. hyper has no write timeout of its own, and a client that reads a
//! byte a second would otherwise keep its connection (and whatever its answer
//! holds) for as long as it likes. A peer that takes enough ends the wait; one
//! that is not waited on (its answer sent, or idle) is not measured.

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
    /// Bytes the peer must take in each `limit` it is waited on (at least one).
    least: usize,
    /// Set while the peer is waited on: when the period ends, and what the
    /// peer took in it so far.
    waiting: Option<Wait>,
}

struct Wait {
    deadline: Pin<Box<Sleep>>,
    taken: usize,
}

impl Wait {
    fn new(limit: Duration) -> Wait {
        Wait {
            deadline: Box::pin(tokio::time::sleep(limit)),
            taken: 0,
        }
    }
}

impl<S> SendTimeout<S> {
    /// `inner`, whose peer must take `min_rate` bytes a second over each
    /// `limit` it is waited on (and something in any case).
    pub fn new(inner: S, limit: Duration, min_rate: u64) -> SendTimeout<S> {
        SendTimeout {
            inner,
            limit,
            least: ((min_rate as f64 * limit.as_secs_f64()) as usize).max(1),
            waiting: None,
        }
    }

    /// What a write that returned `result` (`taken` bytes of it) means: a
    /// wait starts a period, the peer taking enough (or taking anything after
    /// a period ended unmeasured) ends it, and a period ending with less taken
    /// is an error.
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<T>>,
        taken: impl Fn(&T) -> usize,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Pending => {
                let limit = self.limit;
                let wait = self.waiting.get_or_insert_with(|| Wait::new(limit));
                if wait.deadline.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                if wait.taken < self.least {
                    let taken = wait.taken;
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "the client took {taken} bytes in {limit:?}, under the {} it must",
                            self.least
                        ),
                    )));
                }
                // Enough taken: the next period starts now.
                *wait = Wait::new(limit);
                let _ = wait.deadline.as_mut().poll(cx);
                Poll::Pending
            }
            Poll::Ready(Ok(done)) => {
                if let Some(wait) = &mut self.waiting {
                    wait.taken += taken(&done);
                    if wait.taken >= self.least || wait.deadline.is_elapsed() {
                        self.waiting = None;
                    }
                }
                Poll::Ready(Ok(done))
            }
            failed => failed,
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
        self.watch(cx, result, |n| *n)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, result, |n| *n)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, result, |()| 0)
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
        let mut stream = SendTimeout::new(ours, Duration::from_millis(200), 0);
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
        let mut stream = SendTimeout::new(ours, Duration::from_millis(300), 1024);
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

    /// A peer that takes a little all the time, under the rate, is cut after
    /// a period; at the rate, it is not.
    #[tokio::test]
    async fn a_trickle_under_the_rate_is_cut() {
        for (rate, cut) in [(1024, true), (10, false)] {
            let (ours, mut theirs) = tokio::io::duplex(256);
            // 300 ms periods: 307 bytes must be taken in each at 1,024 a second.
            let mut stream = SendTimeout::new(ours, Duration::from_millis(300), rate);
            let reader = tokio::spawn(async move {
                use tokio::io::AsyncReadExt;
                let mut byte = [0; 4];
                // 4 bytes every 20 ms: 200 bytes a second.
                for _ in 0..200 {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if theirs.read(&mut byte).await.unwrap_or(0) == 0 {
                        break;
                    }
                }
            });
            let written = stream.write_all(&[1; 512]).await;
            assert_eq!(written.is_err(), cut, "at {rate} bytes a second");
            if let Err(e) = written {
                assert_eq!(e.kind(), io::ErrorKind::TimedOut);
            }
            reader.abort();
        }
    }
}
