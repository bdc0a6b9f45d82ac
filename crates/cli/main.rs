//! The `gsi` command: flags in, results out. No matching logic lives here; this is the one
//! place where errors become exit codes and messages (`gsi: ...` on stderr).

mod config;
mod demo;
mod exit;
mod flags;
mod output;
mod progress;
mod verify;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use gsi_core::{find_matches, CountOnly, DataIndex, MatchReport, MatchSink, Status};
use gsi_graph::formats::read_graph;

use crate::config::MatchConfig;
use crate::exit::Exit;
use crate::flags::{Cli, Command, EngineArg};
use crate::output::{ms, FileSink, Printer, QueryOutcome, SummaryJson};

fn main() -> ExitCode {
    match run() {
        Ok(exit) => exit.into(),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gsi: {err:#}");
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

/// Whether `err` comes from writing matches (which no later query can succeed at either).
fn is_output_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.is::<std::io::Error>()
            || matches!(
                cause.downcast_ref::<gsi_core::Error>(),
                Some(gsi_core::Error::Output(_))
            )
    })
}

fn run() -> Result<Exit> {
    let cli = Cli::parse();
    match cli.command {
        None => demo::run(EngineArg::Auto),
        Some(Command::Demo(args)) => demo::run(args.engine),
        Some(Command::Match(args)) => run_match(MatchConfig::from_args(args)?),
        Some(Command::Verify(args)) => verify::run(args),
    }
}

fn run_match(cfg: MatchConfig) -> Result<Exit> {
    if let Some(threads) = cfg.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("starting the worker threads")?;
    }
    let show_progress = progress::wanted(cfg.json, cfg.quiet);
    let selected = gsi_core::engine::select(cfg.engine, cfg.device)?;
    let mut engine = selected.engine;
    if let (Some(note), false) = (&selected.note, cfg.quiet) {
        eprintln!("gsi: {note}");
    }

    let spinner = progress::spinner(show_progress, format!("loading {}", cfg.data.display()));
    let started = Instant::now();
    let graph = read_graph(&cfg.data, cfg.format, cfg.directed)
        .with_context(|| format!("reading data graph {}", cfg.data.display()))?;
    let load_time = started.elapsed();
    spinner.set_message(format!("indexing {}", cfg.data.display()));
    let indexed = Instant::now();
    let index = DataIndex::build(graph)?;
    let index_time = indexed.elapsed();
    spinner.set_message("copying the index to the device");
    let uploaded = Instant::now();
    engine.prepare(&index)?;
    let upload_time = uploaded.elapsed();
    spinner.finish_and_clear();

    let mut file_sink = match &cfg.output {
        Some(path) => {
            Some(FileSink::create(path).with_context(|| format!("creating {}", path.display()))?)
        }
        None => None,
    };
    let mut printer = Printer::new(cfg.json, cfg.explain);
    printer.header()?;
    let bar = progress::bar(show_progress, cfg.queries.len() as u64);
    let mut summary = SummaryJson {
        kind: "summary",
        data: cfg.data.display().to_string(),
        vertices: index.graph().vertex_count(),
        edges: index.graph().edge_count(),
        queries: cfg.queries.len(),
        load_ms: ms(load_time),
        index_ms: ms(index_time),
        upload_ms: ms(upload_time),
        ..SummaryJson::default()
    };
    let mut times = Vec::with_capacity(cfg.queries.len());
    let mut exit = Exit::Success;
    for path in &cfg.queries {
        let name = path.display().to_string();
        let started = Instant::now();
        let output_before = file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed);
        let result = (|| -> Result<MatchReport> {
            let query = read_graph(path, cfg.format, cfg.directed)
                .with_context(|| format!("reading query {name}"))?;
            let mut options = cfg.options.clone();
            options.deadline = cfg.timeout.map(|t| started + t);
            let sink: &mut dyn MatchSink = match file_sink.as_mut() {
                Some(file) => {
                    if cfg.queries.len() > 1 {
                        file.comment(&name)?;
                    }
                    file
                }
                None => &mut CountOnly,
            };
            find_matches(engine.as_mut(), &query, &index, &options, sink)
                .with_context(|| format!("matching {name}"))
        })();
        let elapsed = started.elapsed();
        let output_time = file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed) - output_before;
        let report = match result {
            Ok(report) => {
                summary.matches += report.count;
                match report.status {
                    Status::Complete => summary.ok += 1,
                    Status::Timeout => summary.timeouts += 1,
                    Status::Limit => summary.limits += 1,
                }
                Ok(report)
            }
            // A failure to write matches ends the run; any other error ends only its query.
            Err(err) if is_output_error(&err) => return Err(err),
            Err(err) => {
                if !cfg.quiet && !cfg.json {
                    bar.suspend(|| eprintln!("gsi: {err:#}"));
                }
                exit = exit.max(Exit::of_error(&err));
                summary.errors += 1;
                Err(format!("{err:#}"))
            }
        };
        times.push(elapsed);
        summary.queries_ms += ms(elapsed);
        let outcome = QueryOutcome {
            query: &name,
            report,
            elapsed,
            output_time,
        };
        bar.suspend(|| printer.query(&outcome))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    if let Some(file) = file_sink.as_mut() {
        file.finish().context("writing matches")?;
    }
    summary.median_ms = output::median_ms(&mut times);
    printer.summary(&summary)?;
    Ok(exit)
}
