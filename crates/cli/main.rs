//! The `gsi` command: flags in, results out. No matching logic lives here; this is the one
//! place where errors become exit codes and messages (`gsi: ...` on stderr).

mod bench;
mod config;
mod convert;
mod demo;
mod exit;
mod flags;
mod generate;
mod index;
mod info;
mod load;
mod matching;
mod memory;
mod merge;
mod messages;
mod output;
mod progress;
mod queries;
mod query_files;
mod serve;
mod session;
mod signals;
mod sparql;
mod system;
mod verify;

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, Parser};

use crate::config::{BenchConfig, MatchConfig};
use crate::exit::Exit;
use crate::flags::{Cli, Command, EngineArg};

#[global_allocator]
static ALLOCATOR: memory::ReportingAllocator = memory::ReportingAllocator;

fn main() -> ExitCode {
    // The command runs on a thread of the stack a query needs.
    let outcome = std::thread::Builder::new()
        .name("gsi".into())
        .stack_size(gsi_core::config::MATCHING_STACK_BYTES)
        .spawn(run)
        .map(|thread| thread.join());
    let outcome = match outcome {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // No thread to be had: run on this one.
        Err(_) => run(),
    };
    match outcome {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gsi: {}", crate::exit::message(&err));
            Exit::of_error(&err).into()
        }
    }
}

/// A closed stdout (as in `gsi ... | head`) ends gsi quietly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run() -> Result<Exit> {
    let cli = Cli::parse();
    signals::watch_file_changes()?;
    match cli.command {
        None => demo::run(EngineArg::Auto),
        Some(Command::Demo(args)) => demo::run(args.engine),
        Some(Command::Match(args)) => matching::run(MatchConfig::from_args(args)?),
        Some(Command::Bench(args)) => bench::run(BenchConfig::from_args(args)?),
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Index(args)) => index::run(args),
        Some(Command::Convert(args)) => convert::run(args),
        Some(Command::Generate(args)) => generate::run(args.what),
        Some(Command::Verify(args)) => verify::run(args),
        Some(Command::Sparql(args)) => sparql::run(args),
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Merge(args)) => merge::run(args),
        Some(Command::Completions(args)) => {
            let mut command = Cli::command();
            clap_complete::generate(args.shell, &mut command, "gsi", &mut std::io::stdout());
            Ok(Exit::Success)
        }
        Some(Command::Man(args)) => {
            clap_mangen::Man::new(manual_page(&args.command)?).render(&mut std::io::stdout())?;
            Ok(Exit::Success)
        }
    }
}

/// The command whose manual page `gsi man WORDS...` prints, named `gsi-WORD-...` as the pages
/// of the top one refer to it.
fn manual_page(words: &[String]) -> Result<clap::Command> {
    let mut command = Cli::command();
    command.build();
    let mut name = String::from("gsi");
    for word in words {
        let Some(sub) = command.find_subcommand(word).cloned() else {
            let known: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
            return Err(exit::input_error(format!(
                "gsi man: `{name}` has no command `{}`; its commands: {}",
                exit::escape_controls(word),
                known.join(", ")
            )));
        };
        name = format!("{name}-{word}");
        command = sub.name(name.clone());
    }
    Ok(command)
}
