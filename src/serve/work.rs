//! Answers that cost work (filters, sorts, searches, projections, facets) run on a
//! bounded set of blocking threads, so the async workers stay free for the answers
//! cut from rendered bytes: a cheap request never waits behind an expensive one.
//! A bounded queue waits for a thread; past it the request is refused at once (503
//! with `Retry-After`) rather than letting every latency grow.
//!
//! Documents written a piece at a time for as long as their clients read (label
//! sheets, downloads, archives of a question, pages too long to make whole) have
//! a lane of their own, as many threads again: however many are streamed, a
//! fresh question never waits behind one of their pieces. What the documents
//! may take together is `streams`' to say.

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

/// The threads for expensive answers and the queue in front of them, for
/// questions and for documents.
pub struct Work {
    questions: Lane,
    documents: Lane,
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
    done.expect("making an answer does not panic")
}

impl Work {
    /// At most `threads` answers made at once, at most `queue` waiting; as
    /// many documents beside them.
    pub fn new(threads: usize, queue: usize) -> Work {
        Work {
            questions: Lane::new(threads, queue),
            documents: Lane::new(threads, queue),
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
        on_thread(permit.expect("the semaphore is never closed"), job).await
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
        Some(on_thread(permit, job).await)
    }

    /// Runs `job`, for `task`, on a blocking thread once one is free; `None`
    /// when all are busy and the queue is full. Counted once it has a thread.
    pub async fn run<T: Send + 'static>(
        &self,
        task: Task,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let permit = self.questions.thread().await?;
        self.ran[task as usize].fetch_add(1, Ordering::Relaxed);
        Some(on_thread(permit, job).await)
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
}
