//! The connections being served: when each last began a request, and a way to
//! ask any of them to close once its answer in flight (if any) is sent. Out of
//! descriptors, the accept loop closes those idle longest so that a new client,
//! a health probe among them, is still answered; at the stop, all of them close
//! so.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{watch, Notify};

/// How many connections a failed accept closes at most, the idlest first.
pub const CLOSED_FOR_ROOM: usize = 64;

/// One connection's handle: when it last began a request (milliseconds since
/// the server started), and the signal asking it to close.
struct Handle {
    active: Arc<AtomicU64>,
    close: Arc<Notify>,
}

/// The connections being served.
pub struct Connections {
    started: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Handle>>,
    stop: watch::Sender<bool>,
}

/// What a connection's service holds: where to say that a request began.
#[derive(Clone)]
pub struct Activity {
    started: Instant,
    active: Arc<AtomicU64>,
}

impl Activity {
    /// Notes that a request began now.
    pub fn began(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.active.store(now, Ordering::Relaxed);
    }
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            started: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
            stop: watch::channel(false).0,
        }
    }
}

/// A connection's serving, as hyper's are: a future, and a way to finish the
/// answer in flight and close.
pub trait Closable: Future {
    fn close_after_answer(self: std::pin::Pin<&mut Self>);
}

impl<I, B, S> Closable for hyper::server::conn::http1::Connection<I, S>
where
    S: hyper::service::HttpService<hyper::body::Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    fn close_after_answer(self: std::pin::Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// A connection's place among those open, given up when dropped.
struct Open<'a> {
    connections: &'a Connections,
    id: u64,
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.connections.lock().remove(&self.id);
    }
}

impl Connections {
    /// A new connection's activity, before it is served.
    pub fn activity(&self) -> Activity {
        let active = Arc::new(AtomicU64::new(self.started.elapsed().as_millis() as u64));
        Activity {
            started: self.started,
            active,
        }
    }

    /// Serves `connection` (whose service notes requests on `activity`) until
    /// it ends, closing it after its answer in flight when asked to or at the
    /// stop.
    pub fn serve<C>(
        self: &Arc<Self>,
        activity: Activity,
        connection: C,
    ) -> impl Future<Output = C::Output>
    where
        C: Closable,
    {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let close = Arc::new(Notify::new());
        let handle = Handle {
            active: activity.active.clone(),
            close: close.clone(),
        };
        self.lock().insert(id, handle);
        let (me, mut stop) = (self.clone(), self.stop.subscribe());
        async move {
            // Forgotten however the connection ends, a panic unwinding
            // through it included: the stop never waits for one gone.
            let _open = Open {
                connections: &me,
                id,
            };
            let mut connection = pin!(connection);
            let asked = async {
                tokio::select! {
                    () = close.notified() => {}
                    _ = stop.wait_for(|stopping| *stopping) => {}
                }
            };
            let out = tokio::select! {
                out = connection.as_mut() => out,
                () = asked => {
                    connection.as_mut().close_after_answer();
                    connection.await
                }
            };
            out
        }
    }

    /// Asks the `n` connections idle longest (those whose last request began
    /// earliest) to close after their answer: how many were asked.
    pub fn close_idlest(&self, n: usize) -> usize {
        let open = self.lock();
        let mut by_age: Vec<(u64, &Handle)> = open
            .values()
            .map(|h| (h.active.load(Ordering::Relaxed), h))
            .collect();
        let n = n.min(by_age.len());
        if n == 0 {
            return 0;
        }
        by_age.select_nth_unstable_by_key(n - 1, |(at, _)| *at);
        by_age[..n].iter().for_each(|(_, h)| h.close.notify_one());
        n
    }

    /// Asks every connection to close after its answer, and waits until all
    /// have or `wait` has passed: whether all have.
    pub async fn stop(&self, wait: Duration) -> bool {
        self.stop.send_replace(true);
        let deadline = Instant::now() + wait;
        while !self.lock().is_empty() {
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Handle>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection that never ends by itself, and ends when asked to close.
    struct Idle(Arc<Notify>);

    impl Future for Idle {
        type Output = ();
        fn poll(
            self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            let notified = self.0.notified();
            let mut notified = pin!(notified);
            match notified.as_mut().poll(cx) {
                std::task::Poll::Ready(()) => std::task::Poll::Ready(()),
                std::task::Poll::Pending => std::task::Poll::Pending,
            }
        }
    }

    impl Closable for Idle {
        fn close_after_answer(self: std::pin::Pin<&mut Self>) {
            self.0.notify_one();
        }
    }

    /// A connection whose serving panics (a bug in making an answer).
    struct Panicking;

    impl Future for Panicking {
        type Output = ();
        fn poll(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            panic!("a bug while serving")
        }
    }

    impl Closable for Panicking {
        fn close_after_answer(self: std::pin::Pin<&mut Self>) {}
    }

    #[tokio::test]
    async fn a_connection_that_panicked_is_not_waited_for_at_the_stop() {
        let connections = Arc::new(Connections::default());
        let served = tokio::spawn(connections.serve(connections.activity(), Panicking));
        assert!(served.await.unwrap_err().is_panic());
        let started = Instant::now();
        assert!(connections.stop(Duration::from_secs(5)).await);
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn the_idlest_close_first_and_all_at_the_stop() {
        let connections = Arc::new(Connections::default());
        let mut tasks = Vec::new();
        let mut activities = Vec::new();
        for _ in 0..3 {
            let activity = connections.activity();
            activities.push(activity.clone());
            tasks.push(tokio::spawn(
                connections.serve(activity, Idle(Arc::new(Notify::new()))),
            ));
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // The first began a request last: the second is now the idlest.
        activities[0].began();
        assert_eq!(connections.close_idlest(1), 1);
        tokio::time::timeout(Duration::from_secs(1), tasks.remove(1))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(connections.lock().len(), 2);
        assert!(connections.stop(Duration::from_secs(1)).await);
        assert_eq!(connections.close_idlest(5), 0);
    }
}
