fn main() -> std::process::ExitCode {
    catalogue::cli::run()
}
