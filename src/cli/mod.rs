//! The command line: `build`, `inspect`, `serve` (the default), `generate`,
//! `sync`, `export dwca`, `openapi` and `probe`. [`args`] is what clap reads;
//! [`commands`] and [`serving`] are what each command does.

use std::process::ExitCode;

use clap::Parser;

mod args;
mod commands;
mod serving;

use args::{Cli, Command, Export, ServeCommand};
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
        Command::Export {
            format:
                Export::Dwca {
                    snapshot,
                    output,
                    dataset,
                },
        } => export_dwca(&snapshot, &output, &dataset),
        Command::Probe { addr, path } => probe(addr, &path),
        Command::Openapi { max_limit } => {
            let doc = crate::serve::openapi(max_limit);
            println!(
                "{}",
                serde_json::to_string_pretty(&doc).expect("a JSON value prints")
            );
            Ok(ExitCode::SUCCESS)
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
