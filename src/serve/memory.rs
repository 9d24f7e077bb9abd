//! The allocator: every mimalloc option the server changes, and the heap the
//! memo keeps its answers in.
//!
//! Freed memory goes back soon: a reload frees a whole view, and with glibc's
//! allocator the fragments left behind made resident memory creep up by 1-2% with
//! every swap. Not at once: a request's buffers (a filter's candidates) are then
//! freshly faulted and zeroed pages for the next request, which cost up to a fifth
//! of a filtered answer's time; a quarter second keeps them warm under load and
//! still returns a dropped view's memory promptly.
//!
//! Building a view at a million specimens touches about 4 GB of fresh memory. With
//! mimalloc's transparent huge pages on (its default wherever the kernel allows
//! them), each fault asks the kernel for a 2 MiB page, and on kernels whose THP
//! `defrag` setting is `madvise` (Debian's default) that fault compacts memory
//! synchronously until one is free. Measured on a 2-core VM, 1M specimens: the
//! first answer came 18.9-20.1 s after start with huge pages, 13.9 s with them off
//! while the view is built. Requests keep them: a server without huge pages
//! throughout answered a deep page and a filter about 10% fewer times a second
//! (their buffers fault in 4 KiB pages), and one that only builds without them
//! answered as many as with them. The option is the process's: during a hot
//! reload, requests answered meanwhile get memory without huge pages too.

/// `mi_option_arena_eager_commit`, `mi_option_purge_delay` and
/// `mi_option_allow_thp` in mimalloc.h (v3, as libmimalloc-sys 0.1 builds it; the
/// crate's own constants follow v2's numbering).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const ALLOW_THP: libmimalloc_sys::mi_option_t = 43;
const PURGE_DELAY_MS: std::ffi::c_long = 250;

/// Sets the options that hold for the whole run. Call it first in `main`, before
/// any thread is started; it only matters where mimalloc is the global allocator.
pub fn configure() {
    // SAFETY: plain option setters.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
    }
}

/// Runs `build` with mimalloc's transparent huge pages off, then puts the setting
/// back as it was (`MIMALLOC_ALLOW_THP=0` stays off).
pub fn without_huge_pages<T>(build: impl FnOnce() -> T) -> T {
    // SAFETY: plain option getters and setters; mimalloc reads the option on each
    // request for memory from the system, so a change takes effect at once.
    let before = unsafe { libmimalloc_sys::mi_option_get(ALLOW_THP) };
    unsafe { libmimalloc_sys::mi_option_set(ALLOW_THP, 0) };
    let built = build();
    unsafe { libmimalloc_sys::mi_option_set(ALLOW_THP, before) };
    built
}

/// Returns the memory freed so far to the system now, rather than when the
/// allocator next gets round to it: it purges freed memory only as it allocates
/// or frees again, and after a view is prepared or a replaced view is dropped
/// an idle server may do neither for hours (61 MB held once a million specimens
/// were prepared, measured with huge pages off).
pub fn give_back() {
    // SAFETY: a plain call; mimalloc collects the calling thread's heap and
    // purges the arenas' freed memory.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

/// The heap the memo keeps what its answers own in: mimalloc's, in an arena of
/// address space of its own that only this heap uses, without transparent huge
/// pages. In the shared heap a kept answer lands in a page among short-lived
/// buffers and keeps that page, and with huge pages its 2 MiB, resident: the
/// server held 1.08-1.21 times the memo's budget more than one without a memo
/// (16 MiB, 100,000 specimens), against 1.005-1.048 with huge pages off.
struct KeptHeap(*mut libmimalloc_sys::mi_heap_t);

// SAFETY: mimalloc's heaps (v3) allocate from any thread, and free from any.
unsafe impl Send for KeptHeap {}
unsafe impl Sync for KeptHeap {}

extern "C" {
    /// mimalloc.h; the crate does not declare it.
    fn mi_arena_area(
        arena: libmimalloc_sys::mi_arena_id_t,
        size: *mut usize,
    ) -> *mut std::ffi::c_void;
}

static KEPT: std::sync::OnceLock<Option<KeptHeap>> = std::sync::OnceLock::new();

/// Makes the kept heap, its arena sized by the first memo's `budget`: room
/// for two memos (a view's and, during a reload, the next one's) and
/// half as much again; address space only, committed as it is used and
/// purged as it is freed. `None` where the arena cannot be reserved.
fn kept_heap(budget: usize) -> Option<&'static KeptHeap> {
    KEPT.get_or_init(|| {
        let size = (budget * 3).next_multiple_of(64 << 20);
        let mut arena: libmimalloc_sys::mi_arena_id_t = std::ptr::null_mut();
        // SAFETY: plain calls; the arena id is written only on success.
        unsafe {
            if libmimalloc_sys::mi_reserve_os_memory_ex(size, false, false, true, &mut arena) != 0 {
                return None;
            }
            let mut length = 0;
            let area = mi_arena_area(arena, &mut length);
            if !area.is_null() {
                // Where the kernel gives huge pages to every mapping.
                libc::madvise(area, length, libc::MADV_NOHUGEPAGE);
            }
            let heap = libmimalloc_sys::mi_heap_new_in_arena(arena);
            (!heap.is_null()).then_some(KeptHeap(heap))
        }
    })
    .as_ref()
}

/// Readies the kept heap for a memo of `budget` bytes.
pub fn reserve_kept(budget: usize) {
    kept_heap(budget);
}

/// Bytes allocated in the kept heap.
struct KeptBytes {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the allocation is owned and never written once filled.
unsafe impl Send for KeptBytes {}
unsafe impl Sync for KeptBytes {}

impl AsRef<[u8]> for KeptBytes {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `len` bytes allocated and filled by `kept`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for KeptBytes {
    fn drop(&mut self) {
        #[cfg(test)]
        count_kept(self.ptr.as_ptr(), -1);
        // SAFETY: allocated by mimalloc; freed once.
        unsafe { libmimalloc_sys::mi_free(self.ptr.as_ptr().cast()) }
    }
}

/// `len` bytes written by `fill` in the kept heap, and what the allocator
/// holds for them (its size class); `None` before [`reserve_kept`] or once
/// the arena is full.
pub fn kept(len: usize, fill: impl FnOnce(&mut [u8])) -> Option<(bytes::Bytes, usize)> {
    let heap = KEPT.get()?.as_ref()?;
    // SAFETY: a plain allocation, checked for null, filled before it is read.
    let ptr = unsafe { libmimalloc_sys::mi_heap_malloc(heap.0, len.max(1)) };
    let ptr = std::ptr::NonNull::new(ptr.cast::<u8>())?;
    let usable = unsafe { libmimalloc_sys::mi_usable_size(ptr.as_ptr().cast()) };
    #[cfg(test)]
    count_kept(ptr.as_ptr(), 1);
    unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
    fill(unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), len) });
    Some((bytes::Bytes::from_owner(KeptBytes { ptr, len }), usable))
}

#[cfg(test)]
thread_local! {
    static KEPT_LIVE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// What this thread's allocations in the kept heap hold less what it freed
/// there, by the allocator's size of each block (for tests, which count the
/// shared heap's on their thread too).
#[cfg(test)]
pub fn kept_live() -> isize {
    KEPT_LIVE.with(|live| live.get())
}

#[cfg(test)]
fn count_kept(ptr: *mut u8, sign: isize) {
    // SAFETY: a block mimalloc allocated and has not freed.
    let usable = unsafe { libmimalloc_sys::mi_usable_size(ptr.cast()) } as isize;
    let _ = KEPT_LIVE.try_with(|live| live.set(live.get() + sign * usable));
}
