//! The allocator's settings: every mimalloc option the server changes.
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
