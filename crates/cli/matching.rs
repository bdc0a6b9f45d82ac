//! `gsi match`: load and index the data graph once, then answer every query in order.
//!
//! Each query's outcome is recorded by phase: a query that cannot be read or matched is
//! reported (status `error`) and the others still run; only a failure to write matches, which
//! no later query could escape either, ends the run early. A SIGINT or SIGTERM stops the query
//! under way, starts no other, and still prints the summary (status `interrupted`).

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::spread::SPREAD_AFTER;
use gsi_core::{find_matches_spread, CountOnly, MatchReport, MatchSink, Status};

use crate::config::MatchConfig;
use crate::exit::input_error;
use crate::exit::Exit;
use crate::flags::OutputIds;
use crate::output::{
    is_stdout, match_printer, ms, report_stream, FileSink, QueryJson, SummaryJson,
};
use crate::progress;
use crate::session;

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
    let mut file_sink = match &cfg.output {
        Some(path) => Some(
            FileSink::create(
                path,
                names.as_ref(),
                session.line.as_ref().map(|l| l.edges.as_slice()),
            )
            .map_err(|e| {
                // As for every command's output: a path that cannot be created is bad usage.
                input_error(format!("--output {}: {e}", path.display()))
            })?,
        ),
        None => None,
    };
    let matches_on_stdout = cfg.output.as_deref().is_some_and(is_stdout);
    let mut printer = match_printer(cfg.json, report_stream(matches_on_stdout));
    printer.header()?;
    let bar = progress::bar(show_progress, cfg.queries.files.len() as u64);
    let mut summary = SummaryJson {
        kind: "summary",
        data: cfg.data.display().to_string(),
        vertices: session.data_vertices(),
        edges: session.data_edges(),
        load_ms: ms(session.load_time),
        index_ms: ms(session.index_time),
        upload_ms: session.upload_time.map(ms),
        partition: cfg.matching.options.share.map(|s| s.to_string()),
        ..SummaryJson::default()
    };
    let several = cfg.queries.files.len() > 1;
    let mut times = Vec::with_capacity(cfg.queries.files.len());
    let mut exit = Exit::Success;
    let mut output_failed = false;
    'files: for path in &cfg.queries.files {
        if interrupt.is_set() {
            break;
        }
        let queries = session.queries(path, &cfg.query_read);
        bar.inc_length(queries.len().saturating_sub(1) as u64);
        let several = several || queries.len() > 1;
        for query in queries {
            if interrupt.is_set() {
                break 'files;
            }
            // The hints speak of the query's own labels, not of its line graph's.
            if !cfg.quiet && session.line.is_none() {
                for hint in query.hints(&session.index) {
                    bar.suspend(|| eprintln!("gsi: {hint}"));
                }
            }
            let name = query.name;
            let started = Instant::now();
            let output_before = file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed);
            let result = query.graph.and_then(|graph| {
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
                let report = find_matches_spread(
                    &mut session.engines,
                    &graph,
                    &session.index,
                    &options,
                    sink,
                    Some(SPREAD_AFTER),
                );
                let written = match file_sink.as_mut() {
                    Some(file) => file.flush().map_err(gsi_core::Error::Output),
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
                    summary.matches += report.count;
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
                    output_failed = is_output_error(&err);
                    exit = exit.max(if output_failed {
                        Exit::Failure
                    } else {
                        Exit::of_error(&err)
                    });
                    summary.errors += 1;
                    Err(message)
                }
            };
            summary.queries += 1;
            times.push(elapsed);
            summary.queries_ms += ms(elapsed);
            let record = QueryJson::of(name, &report, elapsed, output_time, cfg.explain);
            bar.suspend(|| printer.query(&record))?;
            bar.inc(1);
            if output_failed {
                // No later query could write its matches either.
                break 'files;
            }
        }
    }
    bar.finish_and_clear();
    let interrupted = interrupt.is_set();
    summary.status = if interrupted {
        "interrupted"
    } else {
        "complete"
    };
    // A failed output is dropped unfinished: the file it would replace stays as it was.
    if let (Some(file), false) = (file_sink, output_failed) {
        file.finish(interrupted.then_some("interrupted before every match was written"))
            .context("writing matches")?;
    }
    summary.median_ms = crate::output::median_ms(&times);
    summary.complete = summary.ok == summary.queries && !interrupted;
    printer.summary(&summary)?;
    if interrupted {
        return Ok(interrupt.exit());
    }
    Ok(exit)
}
