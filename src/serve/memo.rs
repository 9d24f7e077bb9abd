//! Answers replayed. A GET that asks exactly what earlier ones asked of the
//! same view (its path and query, and the request headers any answer reads:
//! [`ASKED_BY`]) gets the earlier answer's headers and body again, without
//! routing, reading the query or working out a header. Only answers the view alone
//! decides are kept: made whole, 200, with a strong tag (which already promises
//! the same bytes for the same request), and only when their request is asked a
//! second time, so a request asked once costs no more than a lookup. Each view
//! has its own memo, so a reload starts an empty one; a budget bounds what it
//! holds, and a request that does not fit a key is answered as usual.
//!
//! What is kept is decided as TinyLFU caches decide it: a sketch counts how
//! often each key was asked (four counters of four bits a key, halved as it
//! fills, so old counts fade); when the memo is full, an answer is kept only if
//! its key was asked more often than the least asked of a few answers held,
//! which it then replaces. A flood of new keys asked twice each cannot push out
//! the pages asked all the time.
//!
//! A page of a list made of fragments (the specimens') is its own bytes, tens
//! of kilobytes for 20 items, where a page cut from a rendered list costs a
//! handle: 16 MiB held a few hundred. Such a page is kept as its bytes while
//! the memo is under half its budget, and past that as made again
//! ([`Remade`]: its items' range, media base and envelope, a few hundred
//! bytes), checked to make the very bytes first; a replay writes its items
//! again from the view, no routing or query read.
//!
//! Routing, reading the request and building the headers took most of a page's
//! CPU outside the kernel: a 20-item page measured 26,400 requests a second made,
//! and 40,000 when the head and body made the first time were sent again (nginx:
//! 36,800 on the same bytes).
//!
//! Why not a cache crate: measured against quick_cache 0.6.24 and moka 0.12.16
//! holding the same 8,192 answers (a throwaway criterion bench, 2 cores),
//! quick_cache finds a held answer faster (about 600 ns against 860; ours
//! counts the asking in its sketch), misses cost the same (56-78 ns), and on
//! two threads of mixed questions ours answered 1.48 M lookups a second to
//! its 1.30 M (moka: 0.37 M, and slower on each). But after 200,000 new keys
//! asked twice each, both crates held none of 1,000 pages asked ten times
//! before; this memo held all of them. Keeping what is asked often is its
//! job, so it stays.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{OnceLock, RwLock};

use bytes::Bytes;
use hashbrown::HashTable;
use warp::http::{header, HeaderMap, HeaderName, HeaderValue, Method};

use crate::memfile;
use crate::model::Endpoint;
use crate::view::View;

use super::memory;
use super::origin::{X_FORWARDED_HOST, X_FORWARDED_PROTO};

/// The request headers an answer may depend on: representation, content coding,
/// media URLs (from `Host`, or a trusted proxy's forwarded address) and CORS.
/// The first four are the names `Vary` can say; the forwarded pair reach an
/// answer only from a trusted proxy (`origin`), whose own cache keys on what
/// they say. No other header of a GET is read but `If-None-Match` and
/// `If-Modified-Since`, whose requests the memo leaves alone.
pub const ASKED_BY: [HeaderName; 6] = [
    header::ACCEPT,
    header::ACCEPT_ENCODING,
    header::HOST,
    header::ORIGIN,
    X_FORWARDED_PROTO,
    X_FORWARDED_HOST,
];

/// The most a key holds.
const KEY_BYTES: usize = 1024;
/// What a memo holds unless told otherwise (`--replay-budget`): everything its
/// entries hold ([`Kept::of`]): slices of the view's rendered lists
/// in memory files are the view's and cost only their handles.
pub const DEFAULT_BUDGET: usize = 16 << 20;

/// How many answers a budget holds at most (8,192 in the default budget): a
/// bound on the table's length whatever its entries cost.
fn most(budget: usize) -> usize {
    budget / 2048
}

/// An answer as the memo keeps it: one block of the kept heap
/// ([`memory::kept`]) holds its key, its headers as lines `name:value\n` and
/// the bytes of its parts that are not slices of the view's memory files, so
/// that it pins no page of the shared heap (a map of its headers would take
/// more than its values, among short-lived buffers); the map is made again
/// for each replay. Where the kept heap has no room, the block is one exact
/// allocation of the shared heap.
struct Kept {
    key: Bytes,
    head: Bytes,
    parts: Box<[Bytes]>,
    slot: usize,
    /// Kept as the page's items made again: `parts` are the envelope's
    /// head and tail, the items written between them for each replay.
    remade: Option<Remade>,
}

impl Kept {
    /// What `replay`, the answer to `key`, keeps, and the heap it holds as
    /// the allocator gives it: its block and the handle its slices share it
    /// by, and its parts' handles. (Its slot in the table is the table's:
    /// [`table_bytes`].) `tests::what_is_charged_is_the_heap_the_memo_takes`
    /// measures both.
    fn of(key: &Key, replay: &Replay) -> (Kept, usize) {
        Kept::made(key, replay, None)
    }

    /// [`Kept::of`] as a page made again (`remade`, which [`Remade::remakes`]
    /// the answer): its envelope's bytes and the base held, not its items.
    fn remade(key: &Key, replay: &Replay, remade: &Remade) -> (Kept, usize) {
        let whole: Vec<u8> = replay
            .parts
            .iter()
            .flat_map(|p| p.iter().copied())
            .collect();
        let envelope = Replay {
            headers: replay.headers.clone(),
            parts: vec![
                Bytes::copy_from_slice(&whole[..remade.head]),
                Bytes::copy_from_slice(&whole[whole.len() - remade.tail..]),
            ],
            slot: replay.slot,
        };
        let (kept, cost) = Kept::made(key, &envelope, Some(remade));
        let base = remade.base.as_ref().map_or(0, Bytes::len);
        (kept, cost + std::mem::size_of::<Remade>() + base)
    }

    fn made(key: &Key, replay: &Replay, remade: Option<&Remade>) -> (Kept, usize) {
        /// The handle the slices of a block share it by.
        const SHARED: usize = 4 * std::mem::size_of::<usize>();
        let own = |part: &&Bytes| memfile::locate(part).is_none();
        let lines = replay
            .headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 2);
        let head = lines.sum::<usize>();
        let owned = replay
            .parts
            .iter()
            .filter(own)
            .map(Bytes::len)
            .sum::<usize>();
        let fill = |block: &mut [u8]| {
            let mut at = 0;
            let mut put = |bytes: &[u8]| {
                block[at..at + bytes.len()].copy_from_slice(bytes);
                at += bytes.len();
            };
            put(key.as_bytes());
            for (name, value) in &replay.headers {
                put(name.as_str().as_bytes());
                put(b":");
                put(value.as_bytes());
                put(b"\n");
            }
            replay.parts.iter().filter(own).for_each(|part| put(part));
        };
        let len = key.len + head + owned;
        let (block, size) = memory::kept(len, fill).unwrap_or_else(|| {
            let mut block = vec![0; len];
            fill(&mut block);
            (Bytes::from(block), len)
        });
        let mut at = 0;
        let mut next = |n: usize| {
            at += n;
            block.slice(at - n..at)
        };
        let kept = Kept {
            key: next(key.len),
            head: next(head),
            parts: replay
                .parts
                .iter()
                .map(|part| match own(&part) {
                    true => next(part.len()),
                    false => part.clone(),
                })
                .collect(),
            slot: replay.slot,
            remade: remade.cloned(),
        };
        let cost = size + SHARED + kept.parts.len() * std::mem::size_of::<Bytes>();
        (kept, cost)
    }

    /// The answer again, its headers' map made from their lines (a page
    /// kept as [`Remade`], its items written again from `view`).
    fn replay(&self, view: &View) -> Replay {
        let lines = memchr::memchr_iter(b'\n', &self.head).count();
        let mut headers = HeaderMap::with_capacity(lines);
        let mut at = 0;
        for line in self
            .head
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
        {
            let colon = line.iter().position(|&b| b == b':').unwrap_or(0);
            let value = self.head.slice(at + colon + 1..at + line.len());
            at += line.len() + 1;
            let name = HeaderName::from_bytes(&line[..colon]);
            let value = HeaderValue::from_maybe_shared(value);
            if let (Ok(name), Ok(value)) = (name, value) {
                headers.append(name, value);
            }
        }
        let parts = match &self.remade {
            None => self.parts.to_vec(),
            Some(remade) => {
                let items = Bytes::from(remade.write(view));
                vec![self.parts[0].clone(), items, self.parts[1].clone()]
            }
        };
        Replay {
            headers,
            parts,
            slot: self.slot,
        }
    }
}

/// The table's own heap when it holds `n` entries: a power of two of slots,
/// at most seven eighths of them used, an entry and a control byte each.
fn table_bytes(n: usize) -> usize {
    match n {
        0 => 0,
        n => (n * 8).div_ceil(7).next_power_of_two() * (std::mem::size_of::<Entry>() + 1),
    }
}

/// What a request asks, as the memo finds its answer: its path and query and
/// the headers of [`ASKED_BY`], every line, in one buffer on the stack, hashed
/// once.
pub struct Key {
    len: usize,
    hash: u64,
    bytes: [u8; KEY_BYTES],
}

/// The keys' hasher: seeded at random once per process, so a client cannot
/// choose keys that collide.
fn hasher() -> &'static ahash::RandomState {
    static HASHER: OnceLock<ahash::RandomState> = OnceLock::new();
    HASHER.get_or_init(ahash::RandomState::new)
}

impl Key {
    /// The key of a request, if its answer may be replayed: a GET, without
    /// `If-None-Match` or `If-Modified-Since`, whose key fits.
    pub fn of(method: &Method, path: &str, query: &str, headers: &HeaderMap) -> Option<Key> {
        if method != Method::GET
            || headers.contains_key(header::IF_NONE_MATCH)
            || headers.contains_key(header::IF_MODIFIED_SINCE)
        {
            return None;
        }
        let mut key = Key {
            len: 0,
            hash: 0,
            bytes: [0; KEY_BYTES],
        };
        key.push(path.as_bytes())?;
        key.push(b"?")?;
        key.push(query.as_bytes())?;
        // A header value holds neither NUL nor a line feed (hyper refuses
        // them): these part what the key holds without ambiguity.
        for name in &ASKED_BY {
            key.push(b"\0")?;
            for value in headers.get_all(name) {
                key.push(value.as_bytes())?;
                key.push(b"\n")?;
            }
        }
        key.hash = hasher().hash_one(key.as_bytes());
        Some(key)
    }

    fn matches(&self, entry: &Entry) -> bool {
        entry.hash == self.hash && entry.kept.key == self.as_bytes()
    }

    fn push(&mut self, bytes: &[u8]) -> Option<()> {
        let end = self.len + bytes.len();
        self.bytes.get_mut(self.len..end)?.copy_from_slice(bytes);
        self.len = end;
        Some(())
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// An answer as the memo hands it out again.
#[derive(Clone)]
pub struct Replay {
    pub headers: HeaderMap,
    pub parts: Vec<Bytes>,
    /// The route slot the metrics count it under.
    pub slot: usize,
}

/// How a page of a list made of fragments is made again from the view
/// (`Page::remade`): its items, the media base spliced into them, and the
/// lengths of the envelope before and after them. A full memo keeps this
/// and the envelope's bytes in place of the page's bytes (a twentieth of
/// them, or less), and writes the items again for each replay.
#[derive(Clone, Debug)]
pub struct Remade {
    pub endpoint: Endpoint,
    pub items: Range<usize>,
    pub head: usize,
    pub tail: usize,
    pub base: Option<Bytes>,
}

impl Remade {
    /// The items, written again from the view.
    fn write(&self, view: &View) -> Vec<u8> {
        let list = view.list(self.endpoint);
        let base = self.base.as_deref();
        let mut out = Vec::with_capacity(list.run_len(self.items.clone(), false, base));
        list.write_run(self.items.clone(), false, base, &mut out);
        out
    }

    /// Whether `parts` are the envelope's head, these items as the view
    /// writes them, and the envelope's tail (a compressed answer is not).
    fn remakes(&self, parts: &[Bytes], view: &View) -> bool {
        let len: usize = parts.iter().map(Bytes::len).sum();
        if self.items.end > view.list(self.endpoint).len() || len < self.head + self.tail {
            return false;
        }
        let items = self.write(view);
        let mut whole = Vec::with_capacity(len);
        parts.iter().for_each(|p| whole.extend_from_slice(p));
        whole[self.head..len - self.tail] == items[..]
    }
}

/// One view's replayed answers.
pub struct Memo {
    table: RwLock<Table>,
    /// Bytes the answers may cost.
    budget: usize,
    /// How many answers the table holds, read without its lock: a request finds
    /// an empty memo (a new view's, or one without a budget) at no cost.
    count: AtomicUsize,
    /// How often keys were asked: an answer is kept from the second time its
    /// request is asked (and replayed from the third), so requests asked once
    /// (a crawl, a client's distinct questions) neither pay for keeping it nor
    /// push out the answers asked again; and a full memo keeps it only in
    /// place of one asked less often.
    asked: Sketch,
}

/// How many held answers a full memo compares a new one with.
const SAMPLED: usize = 8;

/// A count-min sketch of how often keys were asked: four counters a key (four
/// rows of `width` four-bit counts, one byte each here), read as the least;
/// every count is halved once `10 x width` askings were counted, so what was
/// asked long ago weighs less than what is asked now.
struct Sketch {
    counts: Box<[AtomicU8]>,
    mask: usize,
    added: AtomicUsize,
}

impl Sketch {
    const ROWS: usize = 4;
    const MOST: u8 = 15;

    fn new(width: usize) -> Sketch {
        let width = width.max(16).next_power_of_two();
        Sketch {
            counts: (0..width * Sketch::ROWS)
                .map(|_| AtomicU8::new(0))
                .collect(),
            mask: width - 1,
            added: AtomicUsize::new(0),
        }
    }

    /// The key's counter in each row: its hash mixed with the row's odd
    /// multiplier, the high half taken.
    fn slots(&self, hash: u64) -> impl Iterator<Item = usize> + '_ {
        const MIX: [u64; Sketch::ROWS] = [
            0x9E37_79B9_7F4A_7C15,
            0xC2B2_AE3D_27D4_EB4F,
            0x1656_67B1_9E37_79F9,
            0xD6E8_FEB8_6659_FD93,
        ];
        MIX.into_iter().enumerate().map(move |(row, mix)| {
            let mixed = (hash ^ (hash >> 29)).wrapping_mul(mix) >> 32;
            row * (self.mask + 1) + (mixed as usize & self.mask)
        })
    }

    /// Counts one asking of the key.
    fn add(&self, hash: u64) {
        for slot in self.slots(hash) {
            let count = &self.counts[slot];
            let now = count.load(Ordering::Relaxed);
            if now < Sketch::MOST {
                count.store(now + 1, Ordering::Relaxed);
            }
        }
        if self.added.fetch_add(1, Ordering::Relaxed) + 1 >= 10 * (self.mask + 1) {
            self.added.store(0, Ordering::Relaxed);
            for count in self.counts.iter() {
                count.store(count.load(Ordering::Relaxed) / 2, Ordering::Relaxed);
            }
        }
    }

    /// How often the key was asked (at least: collisions only add).
    fn estimate(&self, hash: u64) -> u8 {
        self.slots(hash)
            .map(|slot| self.counts[slot].load(Ordering::Relaxed))
            .min()
            .unwrap_or(0)
    }
}

#[derive(Default)]
struct Table {
    entries: HashTable<Entry>,
    cost: usize,
}

struct Entry {
    hash: u64,
    kept: Kept,
    cost: usize,
}

impl Memo {
    /// A memo of up to `budget` bytes (zero: it keeps nothing).
    pub fn new(budget: usize) -> Memo {
        if most(budget) > 0 {
            memory::reserve_kept(budget);
        }
        Memo {
            table: RwLock::new(Table::default()),
            budget,
            count: AtomicUsize::new(0),
            asked: Sketch::new(4 * most(budget)),
        }
    }

    /// Whether the memo holds no answer.
    pub fn is_empty(&self) -> bool {
        self.count.load(Ordering::Relaxed) == 0
    }

    /// Whether the memo keeps answers at all (its budget holds one).
    pub fn keeps(&self) -> bool {
        most(self.budget) > 0
    }

    /// The answer kept for `key`, if any (counted as one asking of it).
    pub fn replay(&self, key: &Key, view: &View) -> Option<Replay> {
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        let found = table.entries.find(key.hash, |e| key.matches(e))?;
        self.asked.add(key.hash);
        Some(found.kept.replay(view))
    }

    /// Whether `key` was asked before (and notes that it is now): only then is
    /// its answer worth keeping.
    pub fn asked_before(&self, key: &Key) -> bool {
        if !self.keeps() {
            return false;
        }
        self.asked.add(key.hash);
        self.asked.estimate(key.hash) >= 2
    }

    /// Keeps `replay` as the answer to `key`: its bytes where they fit (a
    /// page that `remade` makes again, in half the budget), else that page as
    /// made again ([`Remade`]). When the budget is spent, it takes the place
    /// of the least asked of a few answers held, if its key was asked more
    /// often than theirs; else it is not kept. An answer that would take more
    /// than a sixteenth of the budget is not kept.
    pub fn keep(&self, key: &Key, replay: Replay, remade: Option<&Remade>, view: &View) {
        if !self.keeps() {
            return;
        }
        let (mut kept, mut cost) = Kept::of(key, &replay);
        // A page that can be made again is kept as its bytes only while the
        // memo is under half its budget: the other half holds many more
        // pages made again (a few hundred bytes each) than it would bytes.
        let share = match remade {
            Some(_) => self.budget / 2,
            None => self.budget,
        };
        let room = cost <= self.budget / 16 && {
            let table = self.table.read().unwrap_or_else(|e| e.into_inner());
            table.entries.len() < most(self.budget)
                && table.cost + cost + table_bytes(table.entries.len() + 1) <= share
        };
        if let Some(remade) = remade.filter(|r| !room && r.remakes(&replay.parts, view)) {
            (kept, cost) = Kept::remade(key, &replay, remade);
        }
        drop(replay);
        if cost > self.budget / 16 {
            return;
        }
        let mut table = self.table.write().unwrap_or_else(|e| e.into_inner());
        if table.entries.find(key.hash, |e| key.matches(e)).is_some() {
            return;
        }
        let wanted = self.asked.estimate(key.hash);
        while table.entries.len() >= most(self.budget)
            || table.cost + cost + table_bytes(table.entries.len() + 1) > self.budget
        {
            // The sample starts where the new key's hash says (seeded per
            // process, so no client chooses it): always the first few would
            // leave the rest of the table never compared, and a page asked
            // often that lands among them would shut every other one out.
            let start = (key.hash >> 7) as usize % table.entries.len().max(1);
            let victim = table
                .entries
                .iter()
                .skip(start)
                .chain(table.entries.iter())
                .take(SAMPLED)
                .map(|e| (self.asked.estimate(e.hash), e.hash))
                .min();
            let Some((asked, hash)) = victim else { break };
            if asked >= wanted {
                return;
            }
            let mut once = true;
            let dropped = table
                .entries
                .extract_if(|e| e.hash == hash && std::mem::take(&mut once))
                .next();
            match dropped {
                Some(e) => table.cost -= e.cost,
                None => break,
            }
        }
        table.cost += cost;
        let entry = Entry {
            hash: key.hash,
            kept,
            cost,
        };
        table.entries.insert_unique(key.hash, entry, |e| e.hash);
        self.count.store(table.entries.len(), Ordering::Relaxed);
    }

    /// How many answers the memo holds, and what they cost of its budget
    /// (the table's slots included).
    pub fn held(&self) -> (usize, usize) {
        let table = self.table.read().unwrap_or_else(|e| e.into_inner());
        let n = table.entries.len();
        (n, table.cost + table_bytes(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in pairs {
            h.append(name, HeaderValue::from_str(value).unwrap());
        }
        h
    }

    /// The bundled sample's view, which a page kept as made again is made from.
    fn view() -> &'static View {
        static VIEW: OnceLock<View> = OnceLock::new();
        VIEW.get_or_init(|| {
            let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshot/collection.bin");
            View::load(std::path::Path::new(bundled)).expect("the bundled snapshot loads")
        })
    }

    fn key(path: &str, query: &str, h: &HeaderMap) -> Key {
        Key::of(&Method::GET, path, query, h).expect("a key")
    }

    fn replay(body: &'static str) -> Replay {
        Replay {
            headers: headers(&[(header::ETAG, "\"t\"")]),
            parts: vec![Bytes::from_static(body.as_bytes())],
            slot: 0,
        }
    }

    #[test]
    fn a_key_holds_the_path_query_and_each_header_an_answer_reads() {
        let h = headers(&[
            (header::ACCEPT, "text/html"),
            (header::ACCEPT, "*/*"),
            (header::HOST, "example.org"),
            (header::USER_AGENT, "not read"),
            (X_FORWARDED_PROTO, "https"),
        ]);
        let k = key("/api/v2/taxa/", "limit=2", &h);
        assert_eq!(
            k.as_bytes(),
            b"/api/v2/taxa/?limit=2\0text/html\n*/*\n\0\0example.org\n\0\0https\n\0"
        );
        // The headers' order on the wire, and others, do not matter; their
        // lines do.
        let h2 = headers(&[
            (X_FORWARDED_PROTO, "https"),
            (header::HOST, "example.org"),
            (header::USER_AGENT, "another"),
            (header::ACCEPT, "text/html"),
            (header::ACCEPT, "*/*"),
        ]);
        assert_eq!(
            key("/api/v2/taxa/", "limit=2", &h2).as_bytes(),
            k.as_bytes()
        );
        // One line listing both is another request (as the usual path reads
        // it, the same answer; kept twice at worst).
        let joined = headers(&[
            (header::ACCEPT, "text/html, */*"),
            (header::HOST, "example.org"),
        ]);
        assert_ne!(
            key("/api/v2/taxa/", "limit=2", &joined).as_bytes(),
            k.as_bytes()
        );
    }

    #[test]
    fn only_plain_gets_that_fit_have_a_key() {
        let none = HeaderMap::new();
        assert!(Key::of(&Method::HEAD, "/", "", &none).is_none());
        assert!(Key::of(&Method::POST, "/", "", &none).is_none());
        let conditional = headers(&[(header::IF_NONE_MATCH, "\"t\"")]);
        assert!(Key::of(&Method::GET, "/", "", &conditional).is_none());
        let since = headers(&[(header::IF_MODIFIED_SINCE, "Sun, 06 Nov 1994 08:49:37 GMT")]);
        assert!(Key::of(&Method::GET, "/", "", &since).is_none());
        let long = "a".repeat(KEY_BYTES);
        assert!(Key::of(&Method::GET, "/", &long, &none).is_none());
        assert!(Key::of(&Method::GET, "/", &long[..KEY_BYTES - 10], &none).is_some());
    }

    #[test]
    fn an_answer_kept_is_replayed_for_the_same_key_only() {
        let memo = Memo::new(DEFAULT_BUDGET);
        let none = HeaderMap::new();
        let gzip = headers(&[(header::ACCEPT_ENCODING, "gzip")]);
        memo.keep(&key("/a/", "x=1", &none), replay("one"), None, view());
        let got = memo
            .replay(&key("/a/", "x=1", &none), view())
            .expect("kept");
        assert_eq!(got.parts, [Bytes::from_static(b"one")]);
        assert_eq!(got.headers[header::ETAG], "\"t\"");
        assert!(memo.replay(&key("/a/", "x=2", &none), view()).is_none());
        assert!(memo.replay(&key("/a/", "x=1", &gzip), view()).is_none());
        // The first answer kept stays.
        memo.keep(&key("/a/", "x=1", &none), replay("two"), None, view());
        let again = memo
            .replay(&key("/a/", "x=1", &none), view())
            .expect("kept");
        assert_eq!(again.parts, [Bytes::from_static(b"one")]);
        let k = key("/a/", "x=1", &none);
        let (_, cost) = Kept::of(&k, &replay("one"));
        assert_eq!(memo.held(), (1, cost + table_bytes(1)));
    }

    #[test]
    fn an_answer_is_worth_keeping_when_its_request_comes_again() {
        let memo = Memo::new(DEFAULT_BUDGET);
        let none = HeaderMap::new();
        let (a, b) = (key("/a/", "", &none), key("/b/", "", &none));
        assert!(!memo.asked_before(&a));
        assert!(!memo.asked_before(&b));
        assert!(memo.asked_before(&a));
        assert!(memo.asked_before(&a));
        assert!(memo.asked_before(&b));
        assert!(!Memo::new(0).asked_before(&a));
    }

    #[test]
    fn the_sketch_counts_and_forgets() {
        let sketch = Sketch::new(64);
        for _ in 0..20 {
            sketch.add(7);
        }
        sketch.add(9);
        assert_eq!((sketch.estimate(7), sketch.estimate(9)), (Sketch::MOST, 1));
        assert_eq!(sketch.estimate(123_456_789), 0);
        // After ten askings a counter, every count is halved.
        for i in 0..10 * 64 {
            sketch.add(1000 + i);
        }
        assert!(
            sketch.estimate(7) <= Sketch::MOST / 2 + 1,
            "{}",
            sketch.estimate(7)
        );
    }

    #[test]
    fn a_memo_without_a_budget_keeps_nothing() {
        let memo = Memo::new(0);
        let k = key("/a/", "", &HeaderMap::new());
        memo.keep(&k, replay("x"), None, view());
        assert!(memo.replay(&k, view()).is_none());
        assert_eq!(memo.held(), (0, 0));
    }

    #[test]
    fn the_budget_bounds_what_is_held() {
        let memo = Memo::new(DEFAULT_BUDGET);
        let none = HeaderMap::new();
        for i in 0..most(DEFAULT_BUDGET) + 100 {
            memo.keep(
                &key("/a/", &i.to_string(), &none),
                replay("x"),
                None,
                view(),
            );
        }
        let (answers, cost) = memo.held();
        assert_eq!(answers, most(DEFAULT_BUDGET));
        assert!(cost <= DEFAULT_BUDGET);
        // An answer too large for a sixteenth of the budget is not kept.
        let big = Replay {
            parts: vec![Bytes::from(vec![b'x'; DEFAULT_BUDGET / 16])],
            ..replay("")
        };
        memo.keep(&key("/big/", "", &none), big, None, view());
        assert!(memo.replay(&key("/big/", "", &none), view()).is_none());
        // Large answers asked more often make room for themselves within the
        // budget; one asked no more than those held is not kept.
        let memo = Memo::new(DEFAULT_BUDGET);
        for i in 0..40 {
            let large = Replay {
                parts: vec![Bytes::from(vec![b'x'; DEFAULT_BUDGET / 32])],
                ..replay("")
            };
            let k = key("/large/", &i.to_string(), &none);
            if i == 39 {
                (0..3).for_each(|_| _ = memo.asked_before(&k));
            }
            memo.keep(&k, large, None, view());
        }
        let (answers, cost) = memo.held();
        // Each holds a block of its size class (a ninth more, at this size).
        assert!((26..40).contains(&answers), "{answers} answers");
        assert!(cost <= DEFAULT_BUDGET, "{cost}");
        assert!(memo.replay(&key("/large/", "39", &none), view()).is_some());
        assert!(memo.replay(&key("/large/", "38", &none), view()).is_none());
    }

    /// This test binary's allocator: the system's, counting what each thread
    /// holds.
    struct Counted;

    thread_local! {
        static LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
    }

    fn count(bytes: isize) {
        let _ = LIVE.try_with(|live| live.set(live.get() + bytes));
    }

    // SAFETY: every call is the system allocator's, with the same arguments.
    unsafe impl std::alloc::GlobalAlloc for Counted {
        unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
            count(layout.size() as isize);
            unsafe { std::alloc::System.alloc(layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
            count(layout.size() as isize);
            unsafe { std::alloc::System.alloc_zeroed(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
            count(-(layout.size() as isize));
            unsafe { std::alloc::System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
            count(size as isize - layout.size() as isize);
            unsafe { std::alloc::System.realloc(ptr, layout, size) }
        }
    }

    #[global_allocator]
    static COUNTED: Counted = Counted;

    /// A response's headers as `response::finish` makes them for a list's
    /// page, and its body's parts: the head written for it, the tail static.
    fn answer(i: usize, cache_control: &HeaderValue) -> (HeaderMap, Vec<Bytes>) {
        let mut h = HeaderMap::with_capacity(24);
        let fixed = [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_EXPOSE_HEADERS, "ETag, Last-Modified"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::VARY, "Accept, Accept-Encoding, Host"),
            (header::CONTENT_TYPE, "application/json"),
        ];
        for (name, value) in fixed {
            h.insert(name, HeaderValue::from_static(value));
        }
        h.insert(header::CACHE_CONTROL, cache_control.clone());
        let modified = "Sat, 28 Nov 2026 02:33:23 GMT";
        h.insert(
            header::LAST_MODIFIED,
            HeaderValue::from_str(modified).unwrap(),
        );
        let tag = format!("\"{i:032x}\"");
        h.insert(header::ETAG, HeaderValue::from_str(&tag).unwrap());
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(19_629 + i));
        let head = format!("{{\"count\":{i},\"next\":\"/api/v2/x/?offset={i}\",\"items\":[");
        let parts = vec![Bytes::from(head), Bytes::from_static(b"]}")];
        (h, parts)
    }

    /// What the memo charges its budget is within a tenth of what it takes
    /// from the allocator, its entries kept as the router keeps them (the
    /// response's headers and parts cloned, the response then dropped).
    #[test]
    fn what_is_charged_is_the_heap_the_memo_takes() {
        let cache_control = HeaderValue::from_str("public, max-age=60").unwrap();
        let host = headers(&[(header::HOST, "catalogue.example.org")]);
        for n in [100, 1000, 5000] {
            let memo = Memo::new(DEFAULT_BUDGET);
            let keys: Vec<Key> = (0..n)
                .map(|i| key("/api/v2/specimen-records/", &format!("offset={i}"), &host))
                .collect();
            let before = LIVE.with(|live| live.get()) + memory::kept_live();
            for (i, k) in keys.iter().enumerate() {
                let (headers, parts) = answer(i, &cache_control);
                let replay = Replay {
                    headers: headers.clone(),
                    parts: parts.clone(),
                    slot: 0,
                };
                drop((headers, parts));
                memo.keep(k, replay, None, view());
                // Replayed once, as a kept answer is: the same headers.
                let again = memo.replay(k, view()).expect("kept");
                assert_eq!(again.headers, answer(i, &cache_control).0);
            }
            let taken = LIVE.with(|live| live.get()) + memory::kept_live() - before;
            let (held, charged) = memo.held();
            assert_eq!(held, n);
            let ratio = taken as f64 / charged as f64;
            assert!(
                (0.9..=1.1).contains(&ratio),
                "{n} answers: {taken} bytes taken, {charged} charged"
            );
        }
    }

    #[test]
    fn a_flood_of_new_keys_asked_twice_does_not_push_out_the_pages_asked_often() {
        let memo = Memo::new(DEFAULT_BUDGET);
        let none = HeaderMap::new();
        let full = most(DEFAULT_BUDGET);
        // The memo full of pages asked five times each (kept on the second).
        let hot: Vec<Key> = (0..full)
            .map(|i| key("/hot/", &i.to_string(), &none))
            .collect();
        for _ in 0..5 {
            for k in &hot {
                if memo.replay(k, view()).is_none() && memo.asked_before(k) {
                    memo.keep(k, replay("hot"), None, view());
                }
            }
        }
        assert_eq!(memo.held().0, full);
        // 2,000 new keys, each asked twice, as a client flooding the memo would.
        for i in 0..2000 {
            let k = key("/flood/", &i.to_string(), &none);
            for _ in 0..2 {
                if memo.replay(&k, view()).is_none() && memo.asked_before(&k) {
                    memo.keep(&k, replay("flood"), None, view());
                }
            }
        }
        let kept = hot
            .iter()
            .filter(|k| memo.replay(k, view()).is_some())
            .count();
        assert!(kept * 100 >= full * 99, "{kept} of {full} hot pages kept");
        // Pages asked often keep coming in, in the place of those asked less.
        let rising = key("/rising/", "", &none);
        for _ in 0..12 {
            if memo.replay(&rising, view()).is_none() && memo.asked_before(&rising) {
                memo.keep(&rising, replay("rising"), None, view());
            }
        }
        assert!(memo.replay(&rising, view()).is_some());
    }

    #[test]
    fn pages_asked_often_take_the_places_of_pages_asked_less() {
        let memo = Memo::new(DEFAULT_BUDGET);
        let none = HeaderMap::new();
        let full = most(DEFAULT_BUDGET);
        let ask = |k: &Key, body: &'static str| {
            if memo.replay(k, view()).is_none() && memo.asked_before(k) {
                memo.keep(k, replay(body), None, view());
            }
        };
        // The memo full of pages asked twice each.
        for i in 0..full {
            let k = key("/once/", &i.to_string(), &none);
            ask(&k, "once");
            ask(&k, "once");
        }
        assert_eq!(memo.held().0, full);
        // A quarter as many pages, then asked ten times each: each finds a
        // page asked less among those sampled, wherever the table put them.
        let hot: Vec<Key> = (0..full / 4)
            .map(|i| key("/hot/", &i.to_string(), &none))
            .collect();
        for _ in 0..10 {
            hot.iter().for_each(|k| ask(k, "hot"));
        }
        let kept = hot
            .iter()
            .filter(|k| memo.replay(k, view()).is_some())
            .count();
        assert!(
            kept * 100 >= hot.len() * 95,
            "{kept} of {} hot pages kept",
            hot.len()
        );
    }
}
