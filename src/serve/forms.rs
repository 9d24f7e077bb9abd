//! What forms' bodies may hold while they arrive and are answered: a budget
//! of bytes for every connection together ([`FORMS_HELD`]), of which one
//! client address holds at most half, so a client sending many slow forms
//! fills its own half, never another's. A form is counted by what has arrived
//! (each byte [`FORM_COPIES`] times: the body, the query made of it, the
//! parameters decoded from it) plus a reservation of at most [`RESERVED`]
//! bytes ahead, never by the length it announces: 22 connections announcing
//! 1 MB and sending 10 bytes each hold 22 reservations, not 22 MB.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The bytes of forms all connections may hold at once, from the first byte
/// of a body until its answer is made: past it (or past half of it for one
/// client address), a form is refused with 503 and `Retry-After`.
pub const FORMS_HELD: usize = 64 << 20;

/// What a form's byte costs while it is answered: the body as read, the query
/// made of it, the parameters decoded from the query.
pub const FORM_COPIES: usize = 3;

/// The bytes of a form counted ahead of what has arrived (at most what it
/// announces): room for a small form's body in one step.
pub const RESERVED: usize = 64 * 1024;

/// The forms' bytes held, overall and by client address.
#[derive(Default)]
pub struct Forms {
    held: AtomicUsize,
    by_client: Mutex<HashMap<Option<IpAddr>, usize>>,
}

impl Forms {
    /// The bytes held by every form together, as counted.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// The bytes held by the forms of `client`, as counted.
    pub fn held_by(&self, client: Option<IpAddr>) -> usize {
        self.lock().get(&client).copied().unwrap_or(0)
    }

    /// A form of `client`'s, holding nothing yet.
    pub fn holding(&self, client: Option<IpAddr>) -> FormBytes<'_> {
        FormBytes {
            forms: self,
            client,
            bytes: 0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Option<IpAddr>, usize>> {
        self.by_client.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes of one form counted in what forms hold, until it is dropped (once
/// its request is answered).
pub struct FormBytes<'a> {
    forms: &'a Forms,
    client: Option<IpAddr>,
    bytes: usize,
}

impl FormBytes<'_> {
    /// Counts `n` more bytes of the form ([`FORM_COPIES`] each); false
    /// (counting none) past [`FORMS_HELD`], or past half of it for the
    /// form's client.
    pub fn take(&mut self, n: usize) -> bool {
        let n = n * FORM_COPIES;
        let mut by_client = self.forms.lock();
        let mine = by_client.get(&self.client).copied().unwrap_or(0);
        let all = self.forms.held.load(Ordering::Acquire);
        if mine + n > FORMS_HELD / 2 || all + n > FORMS_HELD {
            return false;
        }
        by_client.insert(self.client, mine + n);
        self.forms.held.fetch_add(n, Ordering::AcqRel);
        self.bytes += n;
        true
    }
}

impl Drop for FormBytes<'_> {
    fn drop(&mut self) {
        if self.bytes == 0 {
            return;
        }
        let mut by_client = self.forms.lock();
        if let Some(mine) = by_client.get_mut(&self.client) {
            *mine = mine.saturating_sub(self.bytes);
            if *mine == 0 {
                by_client.remove(&self.client);
            }
        }
        self.forms.held.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_half_and_gives_it_back() {
        let forms = Forms::default();
        let (a, b) = (Some([192, 0, 2, 1].into()), Some([192, 0, 2, 2].into()));
        let half = FORMS_HELD / 2 / FORM_COPIES;
        let mut first = forms.holding(a);
        assert!(first.take(half));
        assert!(!forms.holding(a).take(1), "a's half is full");
        let mut other = forms.holding(b);
        assert!(other.take(half), "b's half is its own");
        assert!(!forms.holding(None).take(FORM_COPIES), "the whole is full");
        assert_eq!(forms.held_by(a), half * FORM_COPIES);
        drop(first);
        assert_eq!(forms.held_by(a), 0);
        assert_eq!(forms.held(), half * FORM_COPIES);
        drop(other);
        assert_eq!(forms.held(), 0);
        assert!(forms.lock().is_empty());
    }
}
