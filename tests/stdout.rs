//! Every command that prints ends quietly, with success, when whoever reads its
//! stdout stops reading (`catalogue inspect FILE | head -1`), having done all
//! it does besides printing.

use std::process::{Command, Output, Stdio};

use crate::common;

fn catalogue() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_catalogue"));
    command
        .env("RUST_LOG", "warn")
        .env("CATALOGUE_ALLOW_NO_LICENCE", "1");
    command
}

/// What a command did, its stdout a pipe whose reading end is closed before it
/// starts: its first line already finds no reader.
fn into_a_closed_pipe(command: &mut Command) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    command
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// What a shell pipeline `COMMAND | head -1` did, with bash's `pipefail` so that
/// the command's own exit status is the pipeline's.
fn into_head(args: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -o pipefail; \"$0\" {args} | head -1; status=$?; echo \"exit $status\""
        ))
        .arg(env!("CARGO_BIN_EXE_catalogue"))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn quiet_success(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{o:?}");
}

#[test]
fn inspect_ends_quietly_on_a_closed_pipe() {
    let o = into_a_closed_pipe(catalogue().arg("inspect").arg(common::sample_snapshot()));
    quiet_success(&o);
    let snapshot = common::sample_snapshot();
    let o = into_head(&format!("inspect '{}'", snapshot.display()));
    quiet_success(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.starts_with("format version: ")
            && said.ends_with("\nexit 0\n")
            && said.lines().count() == 2,
        "{said}"
    );
}

#[test]
fn openapi_into_head_ends_quietly() {
    // The document is larger than a pipe holds (64 KiB on Linux), so its writer
    // is still writing when `head` leaves: it must meet the closed pipe.
    let whole = catalogue().arg("openapi").output().unwrap();
    assert!(
        whole.status.success() && whole.stdout.len() > 1 << 18,
        "{}",
        whole.stdout.len()
    );
    let o = into_head("openapi");
    quiet_success(&o);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "{\nexit 0\n");
}

#[test]
fn the_other_commands_that_print_do_their_work_on_a_closed_pipe() {
    let dir = common::TempDir::new("stdout-closed");
    let fixture = common::sample_fixture();
    let snapshot = dir.path("built.bin");
    let o = into_a_closed_pipe(catalogue().args([
        "build",
        fixture.to_str().unwrap(),
        "-o",
        snapshot.to_str().unwrap(),
    ]));
    quiet_success(&o);
    assert!(snapshot.exists(), "the snapshot is written all the same");
    let o = into_a_closed_pipe(catalogue().args([
        "generate",
        "--specimens",
        "3",
        "-o",
        dir.path("generated.json").to_str().unwrap(),
    ]));
    quiet_success(&o);
    assert!(dir.path("generated.json").exists());
    let sample = common::sample_snapshot();
    let o = into_a_closed_pipe(catalogue().args([
        "dataset",
        "init",
        sample.to_str().unwrap(),
        "-o",
        dir.path("dataset.toml").to_str().unwrap(),
    ]));
    quiet_success(&o);
    assert!(dir.path("dataset.toml").exists());
    let o = into_a_closed_pipe(catalogue().args([
        "export",
        "dwca",
        sample.to_str().unwrap(),
        "-o",
        dir.path("archive.zip").to_str().unwrap(),
        "--public-url",
        "https://specimens.example.org",
    ]));
    quiet_success(&o);
    assert!(dir.path("archive.zip").exists());
}
