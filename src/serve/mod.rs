//! The HTTP face, and the only layer that knows HTTP: warp filters route each
//! request ([`router`]), answers become responses with the same caching,
//! compression and CORS rules ([`response`]), served through our own hyper accept
//! loop (for header limits, idle timeouts and a bounded graceful stop). The
//! [`state`] holds the current view and its caches in one `ArcSwap`, which
//! [`reload`] swaps when the snapshot changes; [`metrics`] counts it all.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use std::convert::Infallible;

use futures_util::future::Either;
use futures_util::TryFutureExt as _;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use connections::{Activity, Connections};
use send_timeout::SendTimeout;
use zero_copy::ZeroCopy;

mod answer;
mod asked;
mod assets;
pub mod compress;
mod connections;
pub mod descriptors;
pub mod forms;
mod guard;
mod media;
mod media_files;
mod memo;
pub mod memory;
pub mod metrics;
pub mod negotiate;
pub mod origin;
pub mod reload;
pub mod response;
mod root;
mod route;
pub mod router;
mod routes;

/// How every route treats the records a sensitive places' rule covers.
pub use routes::sensitive;
mod routing;
mod send_timeout;
pub mod settings;
pub mod state;
pub mod streams;
mod wire;
pub mod work;
mod zero_copy;

pub use settings::Settings;
pub use state::{Served, State};

/// The largest request head (request line and headers) accepted.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;

/// The OpenAPI document of the route table, for a server that caps `limit` at
/// `max_limit` (if it does): what `/api/v2/openapi.json` answers.
pub fn openapi(max_limit: Option<usize>) -> serde_json::Value {
    route::document(routes::ROUTES, max_limit)
}

/// The state serving `view` with `settings`, its OpenAPI document rendered
/// now, at start, not on a request.
pub fn state(view: crate::view::View, settings: Settings) -> Arc<State> {
    let document =
        serde_json::to_vec(&openapi(settings.limits.max_limit)).expect("a JSON value serialises");
    State::new(view, settings, bytes::Bytes::from(document))
}

/// A connection's read buffer: a full head and the start of what follows.
const READ_BUFFER_BYTES: usize = 2 * MAX_HEAD_BYTES;
// hyper refuses (panics on) a read buffer under 8 KiB.
const _: () = assert!(READ_BUFFER_BYTES >= 8192);
/// How long shutdown waits for requests in flight.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(10);

/// How long to wait after a failed `accept`: 10 ms, doubling to a second; one log
/// line when failures start and one when they stop.
#[derive(Default)]
struct Backoff {
    wait: Option<Duration>,
    failures: u64,
}

impl Backoff {
    fn next(&mut self, e: &std::io::Error) -> Duration {
        self.failures += 1;
        let wait = match self.wait {
            None => {
                tracing::warn!(error = %e, "accept failed; backing off until it succeeds");
                Duration::from_millis(10)
            }
            Some(w) => (w * 2).min(Duration::from_secs(1)),
        };
        self.wait = Some(wait);
        wait
    }

    fn reset(&mut self) {
        if self.wait.take().is_some() {
            tracing::info!(failures = self.failures, "accept succeeds again");
            self.failures = 0;
        }
    }
}

/// Raises the soft limit on open descriptors to the hard limit: each connection
/// holds one, and the usual soft default (1,024) is far below what a server meets.
/// Logs both limits; returns the soft limit now in force.
pub fn raise_open_files_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), "cannot read the open files limit");
        return None;
    }
    let (soft, hard) = (limit.rlim_cur, limit.rlim_max);
    if soft < hard {
        limit.rlim_cur = hard;
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
            tracing::warn!(soft, hard, error = %std::io::Error::last_os_error(), "cannot raise the open files limit");
            return Some(soft);
        }
    }
    tracing::info!(was = soft, now = limit.rlim_cur, hard, "open files limit");
    Some(limit.rlim_cur)
}

/// The routes behind the guard: what warp cannot route is refused first, its
/// answer finished and counted as every other. A peer that is not a trusted
/// proxy has its forwarded address forgotten before anything reads the request.
fn guarded<S>(
    state: Arc<State>,
    routes: S,
    peer: std::net::IpAddr,
    activity: Activity,
) -> impl hyper::service::Service<
    hyper::Request<Incoming>,
    Response = wire::Wire,
    Error = Infallible,
    Future = impl Future<Output = Result<wire::Wire, Infallible>> + Send,
> + Clone
where
    S: hyper::service::Service<
            hyper::Request<Incoming>,
            Response = response::Response,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    let trusted = state.settings.trusted_proxies.contains(peer);
    hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        activity.began();
        let client = match trusted {
            true => origin::client(peer, req.headers(), &state.settings.trusted_proxies),
            false => peer,
        };
        req.extensions_mut().insert(router::Peer(client));
        if !trusted {
            origin::forget_forwarded(req.headers_mut());
        }
        match guard::refusal(&req) {
            Some(reason) => {
                let state = state.clone();
                let (method, path) = (req.method().clone(), req.uri().path().to_string());
                let headers = req.headers().clone();
                Either::Left(Either::Left(async move {
                    Ok(wire::wire(
                        router::refusal(&state, method, path, headers, reason).await,
                    ))
                }))
            }
            None => match router::replay(&state, &req) {
                Some(replayed) => Either::Left(Either::Right(std::future::ready(Ok(replayed)))),
                None => Either::Right(routes.call(req).map_ok(wire::wire)),
            },
        }
    })
}

/// Serves on a bound listener until `shutdown` resolves; then drains (a lame
/// duck: `/readyz` fails and every answer says `Connection: close`, while new
/// connections are still accepted for `settings.drain`), stops accepting and gives
/// requests in flight up to ten seconds to finish.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<State>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let (idle, send) = (state.settings.idle_timeout, state.settings.send_timeout);
    let min_rate = state.settings.min_send_rate;
    // Preparation starts with serving, off the request path: the view's
    // question indexes and compressed lists, and the pages' compressed files.
    state.prepare();
    routes::iiif::fill(&state);
    let spawned = std::thread::Builder::new()
        .name("assets".into())
        .spawn(assets::prepare);
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start compressing the pages' files; they are sent as they are");
    }
    let refusals = state.clone();
    let lame_duck = state.clone();
    let shutdown = async move {
        shutdown.await;
        lame_duck
            .draining
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let drain = lame_duck.settings.drain;
        if !drain.is_zero() {
            tracing::info!(
                ?drain,
                "draining: /readyz fails, connections close after their answer"
            );
            tokio::time::sleep(drain).await;
        }
    };
    let routes = TowerToHyperService::new(warp::service(router::routes(state)));
    let connections = Arc::new(Connections::default());
    let mut shutdown = std::pin::pin!(shutdown);
    let mut backoff = Backoff::default();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    backoff.reset();
                    (stream, peer)
                }
                Err(e) => {
                    // Out of descriptors: the connections idle longest close
                    // (after their answer, if any) to make room, and accept is
                    // asked again at once. Other failures wait longer each
                    // time rather than spin, while connections close.
                    let backed_off = backoff.next(&e);
                    let out_of_descriptors =
                        matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE));
                    let wait = match out_of_descriptors
                        && connections.close_idlest(connections::CLOSED_FOR_ROOM) > 0
                    {
                        true => Duration::from_millis(2),
                        false => backed_off,
                    };
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = &mut shutdown => break,
                    }
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let activity = connections.activity();
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(idle)
            .max_buf_size(READ_BUFFER_BYTES)
            .max_header_size(MAX_HEAD_BYTES)
            .serve_connection(
                TokioIo::new(SendTimeout::new(ZeroCopy::new(stream), send, min_rate)),
                guarded(
                    refusals.clone(),
                    routes.clone(),
                    peer.ip(),
                    activity.clone(),
                ),
            );
        let connection = connections.serve(activity, connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    if !connections.stop(IN_FLIGHT_WAIT).await {
        tracing::warn!("requests still running after {IN_FLIGHT_WAIT:?}; stopping anyway");
    }
}
