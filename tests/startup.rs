//! `catalogue serve` before it serves: the address is taken first, a missing
//! snapshot is said once with what to do, boolean variables take what people write.

use crate::common;

use std::process::{Command, Output};

use common::{free_addr, TempDir};

/// Runs `catalogue serve` with these arguments, in `dir`, with these variables.
fn serve(dir: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_catalogue"));
    command
        .arg("serve")
        .args(args)
        .current_dir(&dir.0)
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_snapshot_is_said_once_with_what_to_do() {
    let dir = TempDir::new("startup-missing");
    let addr = free_addr();
    let absolute = dir.path("colection.bin");
    let o = serve(
        &dir,
        &["--snapshot", absolute.to_str().unwrap(), "--addr", &addr],
        &[],
    );
    assert!(!o.status.success());
    assert_eq!(
        stderr(&o),
        format!(
            "error: there is no snapshot at {}: give its path with --snapshot or \
             CATALOGUE_SNAPSHOT, or make one with `catalogue build`\n",
            absolute.display()
        )
    );
    // The default path, relative: where it was looked for is said.
    let o = serve(&dir, &["--addr", &addr], &[]);
    assert!(!o.status.success());
    let cwd = std::fs::canonicalize(&dir.0).unwrap();
    assert_eq!(
        stderr(&o),
        format!(
            "error: there is no snapshot at snapshot/collection.bin (relative to {}): give \
             its path with --snapshot or CATALOGUE_SNAPSHOT, or make one with `catalogue build`\n",
            cwd.display()
        )
    );
}

#[test]
fn a_taken_port_fails_before_the_snapshot_is_read() {
    let dir = TempDir::new("startup-taken");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    // The snapshot is missing too: the address is the first thing tried.
    let o = serve(&dir, &["--snapshot", "missing.bin", "--addr", &addr], &[]);
    assert!(!o.status.success());
    let said = stderr(&o);
    assert!(
        said.starts_with(&format!("error: cannot listen on {addr}: ")),
        "{said}"
    );
    assert!(!said.contains("snapshot"), "{said}");
}

#[test]
fn boolean_variables_take_yes_no_one_zero_on_off() {
    let dir = TempDir::new("startup-booleans");
    let addr = free_addr();
    for value in [
        "1", "0", "yes", "no", "true", "false", "on", "off", "YES", "True",
    ] {
        let o = serve(
            &dir,
            &["--snapshot", "missing.bin", "--addr", &addr],
            &[("CATALOGUE_NO_WATCH", value)],
        );
        // Past the command line, to the snapshot.
        assert!(
            stderr(&o).starts_with("error: there is no snapshot at missing.bin"),
            "CATALOGUE_NO_WATCH={value}: {}",
            stderr(&o)
        );
    }
    let o = serve(
        &dir,
        &["--snapshot", "missing.bin", "--addr", &addr],
        &[("CATALOGUE_NO_WATCH", "maybe")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'maybe' for '--no-watch'"),
        "{}",
        stderr(&o)
    );
}
