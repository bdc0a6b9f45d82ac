//! `gsi match`: load and index the data graph once, then answer every query in order.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::{find_matches, CountOnly, MatchReport, MatchSink, Status};

use crate::config::MatchConfig;
use crate::exit::Exit;
use crate::flags::OutputIds;
use crate::output::{ms, FileSink, Printer, QueryOutcome, SummaryJson};
use crate::queries::read_query_file;
use crate::{engines, load, progress};

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

pub fn run(mut cfg: MatchConfig) -> Result<Exit> {
    let show_progress = progress::wanted(cfg.json, cfg.quiet);
    let notes = !cfg.quiet && !cfg.json;
    let mut engine = engines::open(&cfg.engine, !cfg.quiet)?.engine;

    let spinner = progress::spinner(show_progress, String::new());
    let (loaded, load_time) = load::read_one(&cfg.data, &cfg.read, "data graph", &spinner, notes)?;
    let names = match cfg.output_ids {
        Some(OutputIds::Dense) => None,
        _ => loaded.names,
    };
    let data_labels = loaded.labels;
    let (index, index_time) = load::index(loaded.graph, &cfg.data, &spinner)?;
    // Queries are as directed as the data graph (N-Triples data always is).
    cfg.query_read.directed = index.graph().is_directed();
    let upload_time = load::prepare(engine.as_mut(), &index, &spinner, notes)?;
    spinner.finish_and_clear();

    let mut file_sink = match &cfg.output {
        Some(path) => Some(
            FileSink::create(path, names.as_ref())
                .with_context(|| format!("creating {}", path.display()))?,
        ),
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
        load_ms: ms(load_time),
        index_ms: ms(index_time),
        upload_ms: ms(upload_time),
        ..SummaryJson::default()
    };
    let several = cfg.queries.len() > 1;
    let mut times = Vec::with_capacity(cfg.queries.len());
    let mut exit = Exit::Success;
    for path in &cfg.queries {
        let queries = read_query_file(path, &cfg.query_read, &data_labels);
        bar.inc_length(queries.len().saturating_sub(1) as u64);
        let several = several || queries.len() > 1;
        for query in queries {
            if let (Some(note), false) = (query.unknown_labels_note(), cfg.quiet) {
                bar.suspend(|| eprintln!("gsi: {note}"));
            }
            let name = query.name;
            let started = Instant::now();
            let output_before = file_sink.as_ref().map_or(Duration::ZERO, |s| s.elapsed);
            let result = query.graph.and_then(|graph| {
                let options = cfg.matching.options_from(started);
                let sink: &mut dyn MatchSink = match file_sink.as_mut() {
                    Some(file) => {
                        if several {
                            file.comment(&name)?;
                        }
                        file
                    }
                    None => &mut CountOnly,
                };
                find_matches(engine.as_mut(), &graph, &index, &options, sink)
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
                    }
                    Ok(report)
                }
                // A failure to write matches ends the run; any other error ends only its query.
                Err(err) if is_output_error(&err) => return Err(err),
                Err(err) => {
                    if !cfg.quiet && !cfg.json {
                        bar.suspend(|| eprintln!("gsi: {}", crate::exit::message(&err)));
                    }
                    exit = exit.max(Exit::of_error(&err));
                    summary.errors += 1;
                    Err(crate::exit::message(&err))
                }
            };
            summary.queries += 1;
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
    }
    bar.finish_and_clear();
    if let Some(file) = file_sink.as_mut() {
        file.finish().context("writing matches")?;
    }
    summary.median_ms = crate::output::median_ms(&times);
    printer.summary(&summary)?;
    Ok(exit)
}
