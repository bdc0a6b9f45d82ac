//! `gsi match`: load and index the data graph once, then answer every query in order.
//!
//! A reader thread reads the query files ahead of the joins; with a GPU it also filters and
//! plans each query on the host while the device joins the one before (where the candidate
//! sets are small enough to plan on the host), so the device waits less between queries.
//! A query's time runs from the end of the one before.
//!
//! Each query's outcome is recorded by phase: a query that cannot be read or matched is
//! reported (status `error`) and the others still run; after a failure to write matches,
//! which no later query could escape either, the rest are reported as not run and the summary
//! says `failed`. A SIGINT, SIGTERM or SIGHUP stops the query under way, starts no other, and
//! still prints the summary (status `interrupted`).

use std::sync::mpsc::SyncSender;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::search::Planned;
use gsi_core::spread::SPREAD_AFTER;
use gsi_core::{find_matches_spread, CountOnly, MatchReport, MatchSink, Status};
use indicatif::ProgressBar;

use crate::config::MatchConfig;
use crate::exit::input_error;
use crate::exit::Exit;
use crate::flags::OutputIds;
use crate::output::{
    is_stdout, match_printer, ms, report_stream, FileSink, QueryJson, SummaryJson,
};
use crate::progress;
use crate::session::{self, QueryReader};
use crate::signals::Interrupt;

/// Queries read and planned ahead of the one being joined, at most.
const PLANNED_AHEAD: usize = 2;

/// A query read (and planned, when the reader thread plans ahead) for the joining side.
struct Next {
    query: crate::queries::Query,
    /// Whether its matches are headed by its name (several queries in the run).
    several: bool,
    planned: Option<gsi_core::Result<Planned>>,
}

/// The reader thread: reads the query files in order and hands each query to the joining
/// side through `ahead`, filtered and planned on the host first when `plan` says for what
/// (`Some(counting)`), until the files end, the run is interrupted or the joining side stops.
fn read_ahead(
    cfg: &MatchConfig,
    reader: QueryReader<'_>,
    bar: &ProgressBar,
    interrupt: &Interrupt,
    plan: Option<bool>,
    ahead: SyncSender<Next>,
) {
    let several = cfg.queries.files.len() > 1;
    for path in &cfg.queries.files {
        if interrupt.is_set() {
            return;
        }
        let queries = reader.queries(path, &cfg.query_read);
        bar.inc_length(queries.len().saturating_sub(1) as u64);
        let several = several || queries.len() > 1;
        for query in queries {
            let planned = match (&query.graph, plan) {
                (Ok(graph), Some(counting)) => {
                    let options = cfg.matching.options_from(Instant::now());
                    gsi_core::search::plan_ahead(graph, reader.index, &options, counting)
                }
                _ => None,
            };
            let next = Next {
                query,
                several,
                planned,
            };
            // The joining side has stopped: read no further.
            if ahead.send(next).is_err() {
                return;
            }
        }
    }
}

/// Ends the matches of a query stopped by its timeout with `# incomplete: ...`, as a run
/// stopped by a signal ends its file.
fn timeout_marker(
    file: &mut FileSink<'_>,
    name: &str,
    report: Option<&MatchReport>,
) -> std::io::Result<()> {
    match report {
        Some(report) if report.status == Status::Timeout => file.comment(&format!(
            "incomplete: {name} reached its --timeout after {} matches",
            report.count
        )),
        _ => Ok(()),
    }
}

/// Whether `err` comes from writing matches, the one failure that ends the run.
fn is_output_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<gsi_core::Error>(),
            Some(gsi_core::Error::Output(_))
        )
    })
}

pub fn run(mut cfg: MatchConfig) -> Result<Exit> {
    let (mut session, interrupt, show_progress) = session::start(
        &cfg.data,
        &cfg.read,
        &cfg.engine,
        &cfg.queries,
        cfg.quiet,
        &mut cfg.matching,
    )?;
    let names = match cfg.output_ids {
        Some(OutputIds::Dense) => None,
        _ => session.names.take(),
    };
    // With a GPU, a reader thread reads and plans the next queries on the host while the
    // device joins this one (the CPU engine's join wants every host thread itself).
    let plan_ahead = cfg.plan_ahead && session.gpu.is_some();
    // The hints speak of the query's own labels, not of its line graph's.
    let hints = !cfg.quiet && session.line.is_none();
    let mut summary = SummaryJson {
        kind: "summary",
        data: crate::exit::shown(&cfg.data),
        vertices: session.data_vertices(),
        edges: session.data_edges(),
        load_ms: ms(session.load_time),
        index_ms: ms(session.index_time),
        upload_ms: session.upload_time.map(ms),
        upload_bytes: session.upload_bytes(),
        partition: cfg.matching.options.share.map(|s| s.to_string()),
        ..SummaryJson::default()
    };
    let (engines, reader) = session.split();
    let mut file_sink = match &cfg.output {
        Some(path) => Some(
            FileSink::create(path, names.as_ref(), reader.line).map_err(|e| {
                // As for every command's output: a path that cannot be created is bad usage.
                input_error(format!("--output {}: {e}", path.display()))
            })?,
        ),
        None => None,
    };
    let counting = file_sink.is_none();
    let matches_on_stdout = cfg.output.as_deref().is_some_and(is_stdout);
    let mut printer = match_printer(cfg.json, report_stream(matches_on_stdout));
    printer.header()?;
    let bar = progress::bar(show_progress, cfg.queries.files.len() as u64);
    let mut times = Vec::with_capacity(cfg.queries.files.len());
    let mut exit = Exit::Success;
    // Why matches could no longer be written, once they could not.
    let mut output_failed: Option<String> = None;
    std::thread::scope(|scope| -> Result<()> {
        let (ahead, queries) = std::sync::mpsc::sync_channel(PLANNED_AHEAD);
        let (cfg, bar, interrupt) = (&cfg, &bar, &interrupt);
        let plan = plan_ahead.then_some(counting);
        scope.spawn(move || read_ahead(cfg, reader, bar, interrupt, plan, ahead));
        // A query's time runs from the end of the one before: reading and planning that the
        // reader thread did not finish ahead counts too.
        let mut started = Instant::now();
        for Next {
            query,
            several,
            planned,
        } in queries
        {
            if interrupt.is_set() {
                break;
            }
            if let Some(why) = &output_failed {
                let name = query.name;
                let report = Err(format!("{name}: not run: {why}"));
                summary.queries += 1;
                summary.errors += 1;
                let record = QueryJson::of(name, &report, Duration::ZERO, Duration::ZERO, None);
                bar.suspend(|| printer.query(&record))?;
                bar.inc(1);
                continue;
            }
            if hints {
                for hint in query.hints(reader.index, cfg.matching.options.semantics.injective()) {
                    bar.suspend(|| eprintln!("gsi: {hint}"));
                }
            }
            let legend = cfg.explain.then(|| query.legend().unwrap_or_default());
            let name = query.name;
            let output_before = file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed);
            let result = query.graph.and_then(|graph| {
                // The deadline counts from where the query's time does.
                let options = cfg.matching.options_from(started);
                let sink: &mut dyn MatchSink = match file_sink.as_mut() {
                    Some(file) => {
                        if several {
                            file.comment(&name).map_err(gsi_core::Error::Output)?;
                        }
                        file
                    }
                    None => &mut CountOnly,
                };
                let planned = planned.transpose()?;
                let report = find_matches_spread(
                    engines,
                    &graph,
                    reader.index,
                    &options,
                    sink,
                    Some(SPREAD_AFTER),
                    planned,
                );
                let written = match file_sink.as_mut() {
                    Some(file) => timeout_marker(file, &name, report.as_ref().ok())
                        .and_then(|()| file.flush())
                        .map_err(gsi_core::Error::Output),
                    None => Ok(()),
                };
                report
                    .and_then(|report| written.map(|()| report))
                    .with_context(|| format!("matching {name}"))
            });
            let elapsed = started.elapsed();
            let output_time =
                file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed) - output_before;
            let report: Result<MatchReport, String> = match result {
                Ok(report) => {
                    summary.matches = crate::output::add_counts(summary.matches, report.count)?;
                    match report.status {
                        Status::Complete => summary.ok += 1,
                        Status::Timeout => summary.timeouts += 1,
                        Status::Limit => summary.limits += 1,
                        Status::Interrupted => {}
                    }
                    Ok(report)
                }
                Err(err) => {
                    let message = crate::exit::message(&err);
                    if !cfg.quiet && !cfg.json {
                        bar.suspend(|| eprintln!("gsi: {message}"));
                    }
                    if is_output_error(&err) {
                        output_failed = Some(message.clone());
                        exit = exit.max(Exit::Failure);
                    } else {
                        exit = exit.max(Exit::of_error(&err));
                    }
                    summary.errors += 1;
                    Err(message)
                }
            };
            summary.queries += 1;
            times.push(elapsed);
            let record = QueryJson::of(name, &report, elapsed, output_time, legend);
            bar.suspend(|| printer.query(&record))?;
            bar.inc(1);
            started = Instant::now();
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let interrupted = interrupt.is_set();
    // A failed output is dropped unfinished: the file it would replace stays as it was.
    if let (Some(file), None) = (file_sink, &output_failed) {
        let finished = file
            .finish(interrupted.then_some("interrupted before every match was written"))
            .context("writing matches");
        if let Err(err) = finished {
            let message = crate::exit::message(&err);
            eprintln!("gsi: {message}");
            output_failed = Some(message);
            exit = exit.max(Exit::Failure);
        }
    }
    summary.status = if interrupted {
        "interrupted"
    } else if output_failed.is_some() {
        "failed"
    } else {
        "finished"
    };
    // Rounded once, from the sum: a sum of rounded times carries float noise.
    summary.queries_ms = ms(times.iter().sum());
    summary.median_ms = crate::output::median_ms(&times);
    summary.complete = summary.ok == summary.queries && !interrupted && output_failed.is_none();
    printer.summary(&summary)?;
    if interrupted {
        return Ok(interrupt.exit());
    }
    Ok(exit)
}
