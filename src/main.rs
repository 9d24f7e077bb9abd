/// mimalloc, tuned in `serve::memory` (freed memory given back soon, huge pages
/// off while a view is built).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    catalogue::serve::memory::configure();
    catalogue::cli::run()
}
