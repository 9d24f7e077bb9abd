//! The HTTP face, and the only layer that knows HTTP: warp filters route each
//! request ([`router`]), answers become responses with the same caching,
//! compression and CORS rules ([`response`]), served through our own hyper accept
//! loop (for header limits, idle timeouts and a bounded graceful stop). The
//! [`state`] holds the current view and its caches in one `ArcSwap`, which
//! [`reload`] swaps when the snapshot changes; [`metrics`] counts it all.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};

pub mod compress;
pub mod metrics;
pub mod reload;
pub mod response;
pub mod router;
pub mod state;

pub use state::{Served, Settings, State};

/// The largest request head (request line and headers) accepted.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;
/// A connection's read buffer: a full head and the start of what follows.
const READ_BUFFER_BYTES: usize = 2 * MAX_HEAD_BYTES;
// hyper refuses (panics on) a read buffer under 8 KiB.
const _: () = assert!(READ_BUFFER_BYTES >= 8192);
/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(10);

/// Serves on a bound listener until `shutdown` resolves, then stops accepting and
/// gives requests in flight up to ten seconds to finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<State>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let idle = state.settings.idle_timeout;
    let service = warp::service(router::routes(state));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait, then go on.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(idle)
            .max_buf_size(READ_BUFFER_BYTES)
            .max_header_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(stream),
                hyper_util::service::TowerToHyperService::new(service.clone()),
            );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN) => tracing::warn!("requests still running after {DRAIN:?}; stopping anyway"),
    }
}
