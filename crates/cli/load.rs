//! Reading graph files for every command: the data graph with a spinner, timing and the
//! note on dropped edges, its index, and `--vertex-labels` checked against the format.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::{DataIndex, IndexOptions};
use gsi_graph::formats::{read_graphs, LoadedGraph, ReadOptions};
use indicatif::ProgressBar;

use crate::exit::input_error;

/// Graphs read from one file, and how long that took.
pub struct Loaded {
    pub graphs: Vec<LoadedGraph>,
    pub time: Duration,
}

/// Reads every graph of `path` (`what` names it in messages: "data graph", "input").
///
/// Shows `loading PATH` on `spinner` and, when `notes`, prints once on stderr how many
/// repeated edges and self-loops the reader dropped.
pub fn read_file(
    path: &Path,
    options: &ReadOptions,
    what: &str,
    spinner: &ProgressBar,
    notes: bool,
) -> Result<Loaded> {
    spinner.set_message(format!("loading {}", path.display()));
    crate::signals::reading(path);
    let started = Instant::now();
    let graphs =
        read_graphs(path, options).with_context(|| format!("reading {what} {}", path.display()))?;
    let time = started.elapsed();
    if notes {
        for graph in graphs.iter().filter(|g| !g.skipped.is_empty()) {
            spinner.suspend(|| eprintln!("gsi: {}: {}", path.display(), graph.skipped));
        }
    }
    Ok(Loaded { graphs, time })
}

/// Reads the one graph of `path`, as [`read_file`].
pub fn read_one(
    path: &Path,
    options: &ReadOptions,
    what: &str,
    spinner: &ProgressBar,
    notes: bool,
) -> Result<(LoadedGraph, Duration)> {
    let loaded = read_file(path, options, what, spinner, notes)?;
    let count = loaded.graphs.len();
    match <[LoadedGraph; 1]>::try_from(loaded.graphs) {
        Ok([graph]) => Ok((graph, loaded.time)),
        Err(_) => Err(input_error(format!(
            "reading {what} {}: the file holds {count} graphs, expected one",
            path.display()
        ))),
    }
}

/// Builds the index of a data graph, showing `indexing PATH` on `spinner`.
pub fn index(
    graph: gsi_graph::Graph,
    options: IndexOptions,
    path: &Path,
    spinner: &ProgressBar,
) -> Result<(DataIndex, Duration)> {
    spinner.set_message(format!("indexing {}", path.display()));
    let started = Instant::now();
    let index = DataIndex::build_with(graph, options)
        .with_context(|| format!("indexing data graph {}", path.display()))?;
    Ok((index, started.elapsed()))
}
