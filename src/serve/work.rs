//! Answers that cost work (filters, sorts, searches, projections, facets) run on a
//! bounded set of blocking threads, so the async workers stay free for the answers
//! cut from rendered bytes: a cheap request never waits behind an expensive one.
//! A bounded queue waits for a thread; past it the request is refused at once (503
//! with `Retry-After`) rather than letting every latency grow. Each client
//! (by the address a request came from, [`CLIENT`]) takes at most half the
//! threads and the queue at once: its further requests wait behind each
//! other, at a gate of its own, not in front of everyone's, so one client
//! looping expensive questions slows its own answers, not the others'.
//!
//! Documents written a piece at a time for as long as their clients read (label
//! sheets, downloads, archives of a question, pages too long to make whole) have
//! a lane of their own, as many threads again, run at a lower priority (nice
//! 10): however many are streamed, a fresh question never waits behind one of
//! their pieces, for a thread or for a core. What the documents may take
//! together is `streams`' to say.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// What a job on the pool is for, as its counters say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Making an answer (filtering, sorting, searching, projecting, counting
    /// facets, writing a page's rows), or checking a request against the view.
    Answer,
    /// Compressing a body for one response.
    Compress,
    /// Measuring a large body's length once its media base is in.
    Measure,
    /// Making a document's first part, on the documents' lane.
    Document,
}

tokio::task_local! {
    /// The client a request being answered came from (the router sets it):
    /// whose share of the questions' lane its jobs take.
    pub static CLIENT: IpAddr;
}

/// The threads for expensive answers and the queue in front of them, for
/// questions and for documents.
pub struct Work {
    questions: Lane,
    /// Each client's gate to the questions' lane.
    clients: Clients,
    documents: Lane,
    /// The documents' own threads.
    below: Below,
    /// Jobs run, by [`Task`].
    ran: [AtomicU64; 4],
}

/// Threads and the queue in front of them.
struct Lane {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
}

impl Lane {
    fn new(threads: usize, queue: usize) -> Lane {
        Lane {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            waiting: AtomicUsize::new(0),
            queue,
        }
    }

    /// A thread of the lane, once one is free; `None` when all are busy and
    /// the queue is full.
    async fn thread(&self) -> Option<OwnedSemaphorePermit> {
        match self.permits.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                let place = Waiting::enter(&self.waiting, self.queue)?;
                let permit = self.permits.clone().acquire_owned().await;
                drop(place);
                Some(permit.expect("the semaphore is never closed"))
            }
        }
    }
}

/// Runs `job` on a blocking thread, holding `permit` meanwhile.
async fn on_thread<T: Send + 'static>(
    permit: OwnedSemaphorePermit,
    job: impl FnOnce() -> T + Send + 'static,
) -> T {
    let done = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        job()
    })
    .await;
    // A job that panicked panics its request again, with the job's own
    // message: the router answers it 500 and counts it.
    match done {
        Ok(made) => made,
        Err(e) => match e.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("a job on the pool was cancelled: {e}"),
        },
    }
}

impl Work {
    /// At most `threads` answers made at once, at most `queue` waiting; as
    /// many documents beside them (at least one waiting: a document's last
    /// piece may still hold a thread when its client has read it all and asks
    /// for the next).
    pub fn new(threads: usize, queue: usize) -> Work {
        Work {
            questions: Lane::new(threads, queue),
            clients: Clients {
                gates: Default::default(),
                share: threads.div_ceil(2).max(1),
                queue,
            },
            documents: Lane::new(threads, queue.max(1)),
            below: Below::new(threads.max(1)),
            ran: Default::default(),
        }
    }

    /// How many jobs for `task` were run (or began to run) so far.
    pub fn ran(&self, task: Task) -> u64 {
        self.ran[task as usize].load(Ordering::Relaxed)
    }

    /// Runs `job`, a further piece of a document already under way (a
    /// streamed answer's next chunk), on a thread of the documents' lane once
    /// one is free: it waits however long the queue, since its request was
    /// admitted already.
    pub async fn more<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> T {
        let permit = self.documents.permits.clone().acquire_owned().await;
        self.below
            .run(permit.expect("the semaphore is never closed"), job)
            .await
    }

    /// Runs `job`, the start of a document (a label sheet laid out, a
    /// download's or an archive's records chosen), on the documents' lane;
    /// `None` when its threads are busy and its queue is full.
    pub async fn document<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let permit = self.documents.thread().await?;
        self.ran[Task::Document as usize].fetch_add(1, Ordering::Relaxed);
        Some(self.below.run(permit, job).await)
    }

    /// Runs `job`, for `task`, on a blocking thread once one is free; `None`
    /// when all are busy and the queue is full. Counted once it has a thread.
    pub async fn run<T: Send + 'static>(
        &self,
        task: Task,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        // The client's own gate first: its share of the lane at most.
        let _share = match CLIENT.try_with(|c| *c) {
            Ok(client) => Some(self.clients.enter(client).await?),
            Err(_) => None,
        };
        let permit = self.questions.thread().await?;
        self.ran[task as usize].fetch_add(1, Ordering::Relaxed);
        Some(on_thread(permit, job).await)
    }
}

/// Each client's gate to the questions' lane: at most `share` of its
/// requests in the lane (running or in its queue) at once, at most `queue`
/// more waiting at the gate.
struct Clients {
    gates: std::sync::Mutex<ahash::AHashMap<IpAddr, Arc<Gate>>>,
    share: usize,
    queue: usize,
}

struct Gate {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// A client's place in the lane; its gate is forgotten once nothing holds
/// or waits at it.
struct Share<'c> {
    permit: Option<OwnedSemaphorePermit>,
    gate: Arc<Gate>,
    client: IpAddr,
    clients: &'c Clients,
}

impl Clients {
    /// A place in the lane for `client`, once it has one of its share free;
    /// `None` when its own queue is full.
    async fn enter(&self, client: IpAddr) -> Option<Share<'_>> {
        let gate = {
            let mut gates = self.gates.lock().unwrap_or_else(|e| e.into_inner());
            let gate = gates.entry(client).or_insert_with(|| {
                Arc::new(Gate {
                    permits: Arc::new(Semaphore::new(self.share)),
                    waiting: AtomicUsize::new(0),
                })
            });
            gate.clone()
        };
        let mut share = Share {
            permit: None,
            gate,
            client,
            clients: self,
        };
        let permits = share.gate.permits.clone();
        share.permit = Some(match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                let place = Waiting::enter(&share.gate.waiting, self.queue)?;
                let permit = permits.acquire_owned().await;
                drop(place);
                permit.expect("a gate's semaphore is never closed")
            }
        });
        Some(share)
    }
}

impl Drop for Share<'_> {
    fn drop(&mut self) {
        let mut gates = (self.clients.gates.lock()).unwrap_or_else(|e| e.into_inner());
        drop(self.permit.take());
        // Held by the map and this share alone, with every permit back.
        let idle = Arc::strong_count(&self.gate) == 2
            && self.gate.permits.available_permits() == self.clients.share;
        if idle {
            gates.remove(&self.client);
        }
    }
}

/// A job for a thread of [`Below`].
type Job = Box<dyn FnOnce() + Send>;

/// Threads of the documents' lane, at a lower priority than the questions' (a
/// thread of tokio's blocking pool, shared by both lanes, could not be given
/// its priority back). They end when the lane is dropped.
struct Below {
    jobs: std::sync::mpsc::Sender<Job>,
}

/// How much lower the documents' threads run than the process (Linux's nice:
/// each step about a tenth less of a core that questions also want).
const NICER: libc::c_int = 10;

impl Below {
    fn new(threads: usize) -> Below {
        let (jobs, waiting) = std::sync::mpsc::channel::<Job>();
        let waiting = Arc::new(std::sync::Mutex::new(waiting));
        for i in 0..threads {
            let waiting = waiting.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("documents-{i}"))
                .spawn(move || {
                    // SAFETY: getpriority and setpriority only read their
                    // arguments; on Linux `0` names the calling thread alone.
                    unsafe {
                        let nice = libc::getpriority(libc::PRIO_PROCESS, 0);
                        libc::setpriority(libc::PRIO_PROCESS, 0, (nice + NICER).min(19));
                    }
                    loop {
                        let next = waiting.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        match next {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                });
            spawned.expect("a thread can be started");
        }
        Below { jobs }
    }

    /// Runs `job` on one of the threads, holding `permit` meanwhile (so no
    /// more jobs than threads are ever given them).
    async fn run<T: Send + 'static>(
        &self,
        permit: OwnedSemaphorePermit,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> T {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _permit = permit;
            let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)));
        });
        let sent = self.jobs.send(job);
        sent.expect("the documents' threads live as long as the lane");
        match result.await.expect("a document's job sends its result") {
            Ok(made) => made,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

/// A place in the queue, given back when dropped: also when the request is
/// dropped while it waits (its client went away), or the queue would fill with
/// requests nobody waits for and refuse everything after.
struct Waiting<'q>(&'q AtomicUsize);

impl<'q> Waiting<'q> {
    fn enter(waiting: &'q AtomicUsize, queue: usize) -> Option<Waiting<'q>> {
        let place = Waiting(waiting);
        (waiting.fetch_add(1, Ordering::AcqRel) < queue).then_some(place)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The default number of threads for expensive answers: all cores but one, which
/// stays with the async workers (at least one).
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .saturating_sub(1)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    type Held = tokio::task::JoinHandle<Option<bool>>;

    /// A job holding the only thread of `work` until the sender says.
    async fn hold_the_thread(work: &Arc<Work>) -> (std::sync::mpsc::Sender<()>, Held) {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let busy = {
            let work = work.clone();
            tokio::spawn(async move { work.run(Task::Answer, move || wait.recv().is_ok()).await })
        };
        while work.questions.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        (release, busy)
    }

    /// A job that waits in the queue (once it is there).
    async fn queue_one(work: &Arc<Work>) -> tokio::task::JoinHandle<Option<i32>> {
        let queued = {
            let work = work.clone();
            tokio::spawn(async move { work.run(Task::Answer, || 2).await })
        };
        while work.questions.waiting.load(Ordering::Acquire) == 0 {
            tokio::task::yield_now().await;
        }
        queued
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn refuses_past_the_queue_and_serves_after() {
        let work = Arc::new(Work::new(1, 1));
        let (release, busy) = hold_the_thread(&work).await;
        // One may wait; the next is refused at once.
        let queued = queue_one(&work).await;
        assert_eq!(work.run(Task::Answer, || 3).await, None);
        release.send(()).unwrap();
        assert_eq!(busy.await.unwrap(), Some(true));
        assert_eq!(queued.await.unwrap(), Some(2));
        assert_eq!(work.run(Task::Answer, || 4).await, Some(4));
    }

    /// A document is made while every question thread is busy, on a thread
    /// of its own at a lower priority.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn documents_run_beside_questions_at_a_lower_priority() {
        let work = Arc::new(Work::new(1, 1));
        let (release, busy) = hold_the_thread(&work).await;
        // SAFETY: getpriority only reads; `0` is the calling thread on Linux.
        let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let lowered = work.document(nice).await.unwrap();
        assert_eq!(work.more(nice).await, lowered);
        assert_eq!(work.ran(Task::Document), 1);
        release.send(()).unwrap();
        assert_eq!(busy.await.unwrap(), Some(true));
        // A question's thread is not lowered.
        let question = work.run(Task::Answer, nice).await.unwrap();
        assert_eq!(lowered, (question + NICER).min(19));
        assert!(
            question < 19,
            "the test runs at the lowest priority: nothing to compare"
        );
    }

    /// A request dropped while it waits (its client hung up) gives its place back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_dropped_while_waiting_leaves_the_queue() {
        let work = Arc::new(Work::new(1, 1));
        let (release, busy) = hold_the_thread(&work).await;
        for _ in 0..3 {
            let queued = queue_one(&work).await;
            queued.abort();
            let _ = queued.await;
            assert_eq!(work.questions.waiting.load(Ordering::Acquire), 0);
        }
        release.send(()).unwrap();
        assert_eq!(busy.await.unwrap(), Some(true));
        assert_eq!(work.run(Task::Answer, || 4).await, Some(4));
    }

    /// One client's requests wait at its own gate, behind each other, past
    /// its share of the lane: another client's is answered at once; past
    /// its own queue the client is refused, not the others; its gate is
    /// forgotten once idle.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_waits_behind_its_own_requests_not_in_front_of_others() {
        let work = Arc::new(Work::new(2, 2));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let wait = Arc::new(std::sync::Mutex::new(wait));
        let mut held = Vec::new();
        for _ in 0..3 {
            let (work, wait) = (work.clone(), wait.clone());
            held.push(tokio::spawn(CLIENT.scope(a, async move {
                let job = move || wait.lock().unwrap().recv().is_ok();
                work.run(Task::Answer, job).await
            })));
        }
        let gate = |c: &IpAddr| work.clients.gates.lock().unwrap().get(c).cloned();
        while gate(&a).is_none_or(|g| g.waiting.load(Ordering::Acquire) < 2) {
            tokio::task::yield_now().await;
        }
        // One of the two threads is the client's; its others wait at its gate.
        assert_eq!(work.questions.permits.available_permits(), 1);
        assert_eq!(work.questions.waiting.load(Ordering::Acquire), 0);
        // Another client is answered meanwhile.
        let other = CLIENT.scope(b, work.run(Task::Answer, || 5));
        assert_eq!(
            tokio::time::timeout(Duration::from_secs(5), other).await,
            Ok(Some(5))
        );
        // The first client past its queue is refused; a request of no client is not.
        assert_eq!(CLIENT.scope(a, work.run(Task::Answer, || 6)).await, None);
        assert_eq!(work.run(Task::Answer, || 7).await, Some(7));
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        for h in held {
            assert_eq!(h.await.unwrap(), Some(true));
        }
        assert!(work.clients.gates.lock().unwrap().is_empty());
    }
}
