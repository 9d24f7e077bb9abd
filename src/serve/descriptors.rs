//! Descriptors as a budget: the files answers hold open while their clients
//! read them (a media file, a kept version's archive) take a share of the
//! process' descriptors, of which one client address takes at most half, as
//! streamed documents take theirs (`streams`). What is left is for
//! connections, health probes among them: 700 connections of one address
//! that each ask for a kept archive and read none of it hold at most half the
//! files' share, not a descriptor each. And a file not opened for want of
//! descriptors (`EMFILE`, `ENFILE`) is a 503 with `Retry-After`, never a
//! file taken for missing or damaged.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::query::ApiError;

/// The part of the open files limit that files held by answers may take.
const FILES_PART: usize = 4;

/// The fewest files held at once, whatever the limit.
const FEWEST: usize = 8;

/// When a client refused for want of descriptors asks again.
pub const RETRY_SECONDS: u32 = 1;

/// The descriptors files held by answers take, overall and by client.
#[derive(Default)]
pub struct Descriptors {
    /// The most held at once: a quarter of the open files limit, read when
    /// first asked (after the server raised it).
    most: OnceLock<usize>,
    /// A fixed most, for tests.
    fixed: Option<usize>,
    used: Mutex<HashMap<Option<IpAddr>, usize>>,
    total: AtomicUsize,
    /// Answers refused for want of a share (the whole, or a client's half).
    refused: AtomicU64,
    /// Files not opened for want of descriptors (`EMFILE`, `ENFILE`).
    out: AtomicU64,
}

/// Descriptors held for an answer, given back when dropped (its file sent, or
/// its client gone).
pub struct Held {
    descriptors: Arc<Descriptors>,
    client: Option<IpAddr>,
    n: usize,
}

impl Descriptors {
    /// Files held at most a quarter of the process' open files limit.
    pub fn new() -> Arc<Descriptors> {
        Arc::new(Descriptors::default())
    }

    /// At most `most` files held at once (a client: half).
    pub fn fixed(most: usize) -> Arc<Descriptors> {
        Arc::new(Descriptors {
            fixed: Some(most.max(2)),
            ..Descriptors::default()
        })
    }

    /// The most held at once.
    pub fn most(&self) -> usize {
        if let Some(most) = self.fixed {
            return most;
        }
        *self.most.get_or_init(|| {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: getrlimit only writes the struct given.
            let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
            let soft = match read {
                true => usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX),
                false => 1024,
            };
            (soft / FILES_PART).max(FEWEST)
        })
    }

    /// Descriptors held now, overall.
    pub fn in_use(&self) -> usize {
        self.total.load(Ordering::Acquire)
    }

    /// Answers refused for want of a share, and files not opened for want of
    /// descriptors, so far.
    pub fn refusals(&self) -> (u64, u64) {
        (
            self.refused.load(Ordering::Relaxed),
            self.out.load(Ordering::Relaxed),
        )
    }

    /// `n` descriptors for `client`'s answer, or the refusal (503) when the
    /// share, or the client's half of it, is taken.
    pub fn take(self: &Arc<Self>, client: Option<IpAddr>, n: usize) -> Result<Held, ApiError> {
        let most = self.most();
        let half = (most / 2).max(1);
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let mine = used.get(&client).copied().unwrap_or(0);
        let total = self.total.load(Ordering::Acquire);
        if total + n > most || mine + n > half {
            self.refused.fetch_add(1, Ordering::Relaxed);
            let whose = match mine + n > half {
                true => format!("this client's half of them ({half})"),
                false => format!("all {most} of them"),
            };
            return Err(busy(format!(
                "the files held open for answers take {whose}: ask again in a moment"
            )));
        }
        used.insert(client, mine + n);
        self.total.fetch_add(n, Ordering::AcqRel);
        Ok(Held {
            descriptors: self.clone(),
            client,
            n,
        })
    }
}

impl Held {
    /// The refusal of this answer's file, not opened for want of
    /// descriptors (503), counted.
    pub fn out(&self) -> ApiError {
        self.descriptors.out.fetch_add(1, Ordering::Relaxed);
        busy(
            "the server has no file descriptor left to open this file: ask again in a moment"
                .into(),
        )
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut used = (self.descriptors.used.lock()).unwrap_or_else(|e| e.into_inner());
        if let Some(mine) = used.get_mut(&self.client) {
            *mine = mine.saturating_sub(self.n);
            if *mine == 0 {
                used.remove(&self.client);
            }
        }
        self.descriptors.total.fetch_sub(self.n, Ordering::AcqRel);
    }
}

/// The refusal for want of descriptors: 503, to be asked again.
fn busy(message: String) -> ApiError {
    ApiError {
        status: 503,
        message,
    }
}

/// Whether an error is the process or the system out of descriptors.
pub fn out_of_descriptors(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Whether the process has no descriptor left now (a file that did not
/// open may have failed for that, not for being missing): one opened and
/// closed to see.
pub fn none_left() -> bool {
    std::fs::File::open("/dev/null").is_err_and(|e| out_of_descriptors(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_half_and_gives_it_back() {
        let d = Descriptors::fixed(4);
        let (a, b) = (Some([192, 0, 2, 1].into()), Some([192, 0, 2, 2].into()));
        let first = d.take(a, 1).unwrap();
        let second = d.take(a, 1).unwrap();
        let refused = d.take(a, 1).err().unwrap();
        assert_eq!(refused.status, 503);
        assert!(
            refused.message.contains("this client's half"),
            "{}",
            refused.message
        );
        let _other = d.take(b, 2).unwrap();
        assert!(d.take(None, 1).is_err());
        assert_eq!(d.refusals(), (2, 0));
        assert_eq!(first.out().status, 503);
        assert_eq!(d.refusals(), (2, 1));
        drop(first);
        assert_eq!(d.in_use(), 3);
        let _again = d.take(a, 1).unwrap();
        drop(second);
        assert!(d.used.lock().unwrap().get(&a).is_some());
    }

    #[test]
    fn out_of_descriptors_is_emfile_or_enfile() {
        assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(
            libc::EMFILE
        )));
        assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(
            libc::ENFILE
        )));
        assert!(!out_of_descriptors(&std::io::Error::from_raw_os_error(
            libc::ENOENT
        )));
        assert!(!none_left());
    }
}
