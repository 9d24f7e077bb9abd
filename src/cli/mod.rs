//! The command line: `build`, `inspect`, `serve` (the default), `generate`,
//! `sync`, `dataset init`, `export dwca`, `openapi` and `probe`. [`args`] is
//! what clap reads; [`commands`], [`dataset`] and [`serving`] are what each
//! command does.

use std::process::ExitCode;

use clap::Parser;

mod args;
mod commands;
mod dataset;
mod serving;

use args::{Cli, Command, DatasetCommand, Export, ServeCommand};
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
                    public_url,
                    media_url,
                },
        } => {
            let site = public_url
                .map(|u| u.as_str().to_string())
                .unwrap_or_default();
            let links = crate::export::dwca::Links {
                media: media_url.unwrap_or_else(|| format!("{site}/media/")),
                site,
            };
            export_dwca(&snapshot, &output, &dataset, &links)
        }
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
