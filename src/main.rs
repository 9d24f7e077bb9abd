/// mimalloc, told to give freed memory back soon: a reload frees a whole view,
/// and with glibc's allocator the fragments left behind made resident memory
/// creep up by 1-2% with every swap. Not at once: a request's buffers (a filter's
/// candidates) are then freshly faulted and zeroed pages for the next request,
/// which cost up to a fifth of a filtered answer's time; a quarter second keeps
/// them warm under load and still returns a dropped view's memory promptly.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` and `mi_option_purge_delay` in mimalloc.h.
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const PURGE_DELAY_MS: std::ffi::c_long = 250;

fn main() -> std::process::ExitCode {
    // SAFETY: plain option setters, called before any thread is started.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
    }
    catalogue::cli::run()
}
