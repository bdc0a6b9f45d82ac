//! `gsi sparql`: a SPARQL query answered over an RDF graph (gsi-sparql does the work).

use std::io::{BufWriter, Write};

use anyhow::{Context, Result};
use gsi_core::MatchOptions;
use gsi_graph::formats::{Format, ReadOptions};
use gsi_sparql::results::ResultsWriter;
use gsi_sparql::{answer, answer_explained, RdfData, ResultsFormat};

use crate::config::engine_choice;
use crate::exit::{input_error, Exit};
use crate::flags::{ResultsArg, SparqlArgs};
use crate::progress;
use crate::session::{Session, Show};
use crate::signals;

pub fn run(args: SparqlArgs) -> Result<Exit> {
    let text = match (&args.query, &args.expression) {
        (Some(path), _) => std::fs::read_to_string(path)
            .map_err(|e| input_error(format!("reading query {}: {e}", path.display())))?,
        (None, Some(text)) => text.clone(),
        (None, None) => unreachable!("clap requires --query or -e"),
    };
    // The query is checked before the data is loaded.
    let query = gsi_sparql::parse(&text).map_err(sparql_error)?;
    let format = match args.results {
        ResultsArg::Json => ResultsFormat::Json,
        ResultsArg::Xml => ResultsFormat::Xml,
        ResultsArg::Tsv => ResultsFormat::Tsv,
        ResultsArg::Csv => ResultsFormat::Csv,
    };
    let stdout = std::io::stdout();
    let writer = (!args.count)
        .then(|| ResultsWriter::new(format, &query.form, BufWriter::new(stdout.lock())))
        .transpose()
        .map_err(sparql_error)?;
    if let Some(devices) = &args.engine.devices {
        return Err(input_error(format!(
            "--devices {devices}: gsi sparql answers a query on one GPU; choose it with --device"
        )));
    }
    let engine = engine_choice(&args.engine, gsi_core::Tuning::default())?;
    let show = Show {
        progress: progress::wanted(args.quiet),
        notes: !args.quiet,
    };
    let read = ReadOptions {
        format: Format::Auto,
        directed: true,
        vertex_labels: None,
        memory: Some(crate::config::process_bound()),
    };
    let interrupt = signals::interrupt()?;
    let mut session = Session::open(&args.data, &read, &engine, show, false)?;
    let data = RdfData::new(
        &session.index,
        session.names.as_ref(),
        &session.labels,
        &session.skipped,
    )
    .map_err(sparql_error)
    .with_context(|| format!("data {}", args.data.display()))?;
    let engine = session.engines[0].as_mut();
    let options = MatchOptions {
        interrupt: Some(interrupt.flag()),
        ..MatchOptions::default()
    };
    let count = writer.is_none();
    let answered = match args.explain {
        true => answer_explained(&query, &data, engine, &options, writer).map(|(n, explained)| {
            eprint!("{explained}");
            n
        }),
        false => answer(&query, &data, engine, &options, writer),
    };
    let n = match answered {
        // The solutions written so far are a part of the answer: the exit code says so.
        Err(gsi_sparql::Error::Interrupted) if interrupt.is_set() => {
            eprintln!("gsi: interrupted; the results written are incomplete");
            return Ok(interrupt.exit());
        }
        answered => answered.map_err(sparql_error)?,
    };
    if count {
        writeln!(stdout.lock(), "{n}")?;
    }
    Ok(Exit::Success)
}

/// gsi-sparql's errors: the user's query, data or format are bad input (exit code 2).
fn sparql_error(err: gsi_sparql::Error) -> anyhow::Error {
    match err {
        gsi_sparql::Error::Match(core) => core.into(),
        err if err.is_input() => input_error(err.to_string()),
        err => err.into(),
    }
}
