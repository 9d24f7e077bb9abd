//! The share of the server that streamed documents get: label sheets, downloads
//! and pages too long to make whole are written a piece at a time for as long
//! as their clients read, so each is admitted by what it costs, and together
//! they are bounded in number, per client address and in the memory their
//! pieces hold. Their pieces are made on threads of their own (`Work`'s
//! documents' lane), so fresh questions never wait behind them.
//!
//! A document costs one unit and one more for each [`ITEMS_PER_UNIT`] items
//! (labels, rows) it holds, up to the whole share; it is admitted while the
//! units in use, its own included, fit the share and half of it for its
//! client's address. Otherwise, or while the pieces in memory already fill
//! `--stream-memory`, it is refused at once with 503 and `Retry-After`. An
//! admitted document waits, before each piece, until the pieces held fall
//! under the budget again: its client only reads slower.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::Notify;

use crate::query::ApiError;

/// Items (labels, rows) that cost one unit more.
pub const ITEMS_PER_UNIT: usize = 25_000;

/// What streamed documents may take together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// Units admitted at once, overall (`--stream-share`); a client address
    /// gets half.
    pub units: usize,
    /// Bytes their pieces may hold at once, made and not yet sent
    /// (`--stream-memory`).
    pub memory: usize,
}

impl Default for Share {
    fn default() -> Self {
        Share {
            units: 64,
            memory: 64 << 20,
        }
    }
}

/// The documents being streamed: their units, by client address, and the
/// bytes their pieces hold.
pub struct Streams {
    share: Share,
    used: Mutex<Used>,
    held: AtomicUsize,
    freed: Notify,
}

#[derive(Default)]
struct Used {
    total: usize,
    by_client: HashMap<Option<IpAddr>, usize>,
}

/// An admitted document's place in the share, given back when dropped (its
/// body sent, or its client gone).
pub struct Ticket {
    streams: Arc<Streams>,
    client: Option<IpAddr>,
    units: usize,
}

impl Streams {
    pub fn new(share: Share) -> Arc<Streams> {
        Arc::new(Streams {
            share: Share {
                units: share.units.max(1),
                memory: share.memory,
            },
            used: Mutex::default(),
            held: AtomicUsize::new(0),
            freed: Notify::new(),
        })
    }

    /// The most one client address may take.
    fn per_client(&self) -> usize {
        (self.share.units / 2).max(1)
    }

    /// What a document of `items` costs: one unit, one more per
    /// [`ITEMS_PER_UNIT`], never more than a client may take (a document
    /// larger than that is admitted alone).
    pub fn cost(&self, items: usize) -> usize {
        (1 + items / ITEMS_PER_UNIT).min(self.per_client())
    }

    /// Admits a document of `items` for `client`, or says why not.
    pub fn admit(self: &Arc<Self>, client: Option<IpAddr>, items: usize) -> Result<Ticket, Full> {
        let units = self.cost(items);
        let held = self.held.load(Ordering::Acquire);
        if self.share.memory > 0 && held >= self.share.memory {
            return Err(Full::Memory {
                held,
                budget: self.share.memory,
            });
        }
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let of_client = used.by_client.get(&client).copied().unwrap_or(0);
        if used.total + units > self.share.units {
            return Err(Full::Share {
                used: used.total,
                units,
                share: self.share.units,
            });
        }
        if of_client + units > self.per_client() {
            return Err(Full::Client {
                used: of_client,
                units,
                share: self.per_client(),
            });
        }
        used.total += units;
        *used.by_client.entry(client).or_default() += units;
        Ok(Ticket {
            streams: self.clone(),
            client,
            units,
        })
    }

    /// A ticket of no units for `client`'s body that is sent a piece at a
    /// time but is no document (a long page copied as it is sent): never
    /// refused, its pieces count against the memory and wait for room.
    pub fn pieces(self: &Arc<Self>, client: Option<IpAddr>) -> Ticket {
        Ticket {
            streams: self.clone(),
            client,
            units: 0,
        }
    }

    /// Units in use, and bytes held by pieces.
    pub fn in_use(&self) -> (usize, usize) {
        let used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        (used.total, self.held.load(Ordering::Acquire))
    }

    /// Waits until the pieces held fit the memory budget.
    async fn room(&self) {
        loop {
            let freed = self.freed.notified();
            if self.share.memory == 0 || self.held.load(Ordering::Acquire) < self.share.memory {
                return;
            }
            freed.await;
        }
    }
}

impl Ticket {
    /// Waits until a piece may be made within the memory budget.
    pub async fn room(&self) {
        self.streams.room().await;
    }

    /// `piece` as a body's bytes, counted as held (its allocation, which may
    /// be larger than its bytes) until they are sent.
    pub fn hold(&self, piece: impl Into<Vec<u8>>) -> Bytes {
        let piece = piece.into();
        self.streams
            .held
            .fetch_add(piece.capacity(), Ordering::AcqRel);
        Bytes::from_owner(Held {
            bytes: piece,
            streams: self.streams.clone(),
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut used = self.streams.used.lock().unwrap_or_else(|e| e.into_inner());
        used.total -= self.units;
        if let Some(of_client) = used.by_client.get_mut(&self.client) {
            *of_client -= self.units;
            if *of_client == 0 {
                used.by_client.remove(&self.client);
            }
        }
    }
}

/// A piece's bytes, uncounted when the body lets them go.
struct Held {
    bytes: Vec<u8>,
    streams: Arc<Streams>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.streams
            .held
            .fetch_sub(self.bytes.capacity(), Ordering::AcqRel);
        self.streams.freed.notify_waiters();
    }
}

/// Why a document was not admitted.
#[derive(Debug, PartialEq, Eq)]
pub enum Full {
    /// The share's units are taken.
    Share {
        used: usize,
        units: usize,
        share: usize,
    },
    /// This client address's half of the share is taken.
    Client {
        used: usize,
        units: usize,
        share: usize,
    },
    /// Pieces already fill the memory budget.
    Memory { held: usize, budget: usize },
}

impl Full {
    /// The refusal said to the client (503, to retry).
    pub fn error(&self) -> ApiError {
        let message = match self {
            Full::Share { used, units, share } => format!(
                "streamed documents use {used} of the {share} units they may share, and this \
                 one needs {units} (one, and one per {ITEMS_PER_UNIT} items): retry in a few \
                 seconds, or ask for fewer items"
            ),
            Full::Client { used, units, share } => format!(
                "your address's documents being streamed use {used} of the {share} units one \
                 address may take, and this one needs {units} (one, and one per \
                 {ITEMS_PER_UNIT} items): retry once one of them is read"
            ),
            Full::Memory { held, budget } => format!(
                "streamed documents hold {held} bytes not yet read by their clients, at their \
                 budget of {budget}: retry in a few seconds"
            ),
        };
        ApiError {
            status: 503,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(last: u8) -> Option<IpAddr> {
        Some(IpAddr::from([127, 0, 0, last]))
    }

    #[test]
    fn documents_cost_by_their_items_and_are_refused_past_the_share() {
        let streams = Streams::new(Share {
            units: 8,
            memory: 0,
        });
        assert_eq!(streams.cost(0), 1);
        assert_eq!(streams.cost(ITEMS_PER_UNIT - 1), 1);
        assert_eq!(streams.cost(2 * ITEMS_PER_UNIT), 3);
        // Never more than a client may take.
        assert_eq!(streams.cost(1_000_000), 4);
        let big = streams.admit(local(1), 100_000).unwrap();
        // The first address took its half.
        assert_eq!(
            streams.admit(local(1), 0).err(),
            Some(Full::Client {
                used: 4,
                units: 1,
                share: 4
            })
        );
        let second = streams.admit(local(2), 2 * ITEMS_PER_UNIT).unwrap();
        let third = streams.admit(local(3), 0).unwrap();
        assert_eq!(
            streams.admit(local(4), 0).err(),
            Some(Full::Share {
                used: 8,
                units: 1,
                share: 8
            })
        );
        assert_eq!(streams.in_use().0, 8);
        drop((big, second, third));
        assert_eq!(streams.in_use().0, 0);
        assert!(streams.admit(local(1), 100_000).is_ok());
    }

    #[tokio::test]
    async fn pieces_held_count_until_sent_and_past_the_budget_refuse_and_wait() {
        let streams = Streams::new(Share {
            units: 8,
            memory: 1000,
        });
        let ticket = streams.admit(local(1), 10).unwrap();
        let piece = ticket.hold(vec![7; 600]);
        assert_eq!(streams.in_use().1, 600);
        let more = ticket.hold(vec![8; 600]);
        assert_eq!(&piece[..3], &[7, 7, 7]);
        assert_eq!(
            streams.admit(local(2), 10).err(),
            Some(Full::Memory {
                held: 1200,
                budget: 1000
            })
        );
        // The next piece waits until one is sent, and no longer: the waiter
        // is polled until it waits (so it is parked on the budget before the
        // piece goes, and only the piece's release can wake it).
        let short = std::time::Duration::from_millis(50);
        let mut waiting = std::pin::pin!(streams.room());
        let waited = tokio::time::timeout(short, waiting.as_mut()).await;
        assert!(waited.is_err(), "room was found over the budget");
        drop(piece);
        let long = std::time::Duration::from_secs(5);
        let woken = tokio::time::timeout(long, waiting).await;
        assert!(woken.is_ok(), "a piece sent woke no one");
        drop(more);
        assert_eq!(streams.in_use().1, 0);
        assert!(streams.admit(local(2), 10).is_ok());
    }
}
