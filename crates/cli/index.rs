//! `gsi index`: a data graph read once, indexed once and saved with its index, for every
//! later command to map.

use std::time::Instant;

use anyhow::{Context, Result};
use gsi_core::{SavedIndex, SourceFile};

use crate::config::{index_options, process_bound, read_options};
use crate::exit::{input_error, Exit};
use crate::flags::IndexArgs;
use crate::output::is_stdout;
use crate::{load, progress};

pub fn run(args: IndexArgs) -> Result<Exit> {
    let read = read_options(&args.read, process_bound())?;
    let options = index_options()?;
    if is_stdout(&args.output) {
        return Err(input_error(
            "-o -: a saved index is mapped from its file by the commands that read it, so gsi \
             writes it to a file only; name one"
                .into(),
        ));
    }
    if load::same_file(&args.graph, &args.output) {
        return Err(input_error(format!(
            "-o {}: the index would replace the graph; name another file",
            args.output.display()
        )));
    }
    let spinner = progress::spinner(progress::wanted(args.quiet), String::new());
    let (file, load_time) = load::read_one(&args.graph, &read, "graph", &spinner, !args.quiet)?;
    let source = match &file {
        load::DataFile::Text(_) => SourceFile::of(&args.graph),
        load::DataFile::Saved(saved) => saved.source.clone(),
    };
    let (index, facts, index_time) = file.into_index(options, &args.graph, &spinner)?;
    spinner.set_message(format!("writing {}", args.output.display()));
    let started = Instant::now();
    let saved = SavedIndex {
        index,
        facts,
        source,
    };
    saved
        .write(&args.output)
        .with_context(|| format!("writing {}", args.output.display()))?;
    spinner.finish_and_clear();
    if !args.quiet {
        let graph = saved.index.graph();
        let bytes = std::fs::metadata(&args.output).map_or(0, |m| m.len());
        eprintln!(
            "gsi: wrote {}: {} vertices, {} edges, {:.1} MB (read in {:.3} s, indexed in {:.3} s, written in {:.3} s)",
            crate::exit::shown(&args.output),
            graph.vertex_count(),
            graph.edge_count(),
            bytes as f64 / 1e6,
            load_time.as_secs_f64(),
            index_time.as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Exit::Success)
}
