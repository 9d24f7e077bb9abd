//! The command line: `build`, `inspect`, `serve` (the default), `generate`,
//! `sync`, `dataset init`, `export dwca`, `gbif register`, `openapi` and
//! `probe`. [`args`] is what clap reads; [`commands`], [`dataset`], [`gbif`]
//! and [`serving`] are what each command does.

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;

/// `println!` that returns an error instead of panicking. A reader that has
/// gone (`catalogue inspect FILE | head -1`) is no error: what it read was all
/// it wanted, so the rest is not written and the command goes on (a build
/// still writes its snapshot) and ends as it would have.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::say(format_args!($($arg)*))
    };
}

mod args;
mod commands;
mod dataset;
mod gbif;
mod serving;

use args::{Cli, Command, DatasetCommand, Export, GbifCommand, ServeCommand};
use commands::{build_command, export_dwca, generate, init_logging, inspect, probe, sync};
use serving::serve;

/// Runs the command line.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Serve(Box::new(ServeCommand::parse_from(["catalogue"]).args)));
    let result = match command {
        Command::Build(args) => build_command(&args),
        Command::Inspect { snapshot } => inspect(&snapshot),
        Command::Serve(args) => serve(*args),
        Command::Sync(args) => sync(&args),
        Command::Generate {
            specimens,
            seed,
            output,
        } => generate(specimens, seed, &output),
        Command::Dataset {
            action: DatasetCommand::Init { snapshot, output },
        } => dataset::init(&snapshot, &output),
        Command::Export {
            format:
                Export::Dwca {
                    snapshot,
                    output,
                    dataset,
                    links,
                },
        } => {
            let links = links.links();
            export_dwca(&snapshot, &output, &dataset, &links)
        }
        Command::Gbif {
            action: GbifCommand::Register(args),
        } => gbif::register(&args),
        Command::Probe { addr, path } => probe(addr, &path),
        Command::Openapi { max_limit } => {
            let doc = crate::serve::openapi(max_limit);
            say!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("a JSON value prints")
            )
            .map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether stdout's reader has closed its end of the pipe.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes a line to stdout, as [`say!`] does.
fn say(line: std::fmt::Arguments) -> anyhow::Result<()> {
    use std::io::Write as _;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    match writeln!(std::io::stdout().lock(), "{line}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        written => written.context("cannot write to stdout"),
    }
}
