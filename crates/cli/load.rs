//! Reading graph files for every command: text graphs or a saved index (told by its magic
//! number), with a spinner, timing and the note on dropped edges; the index built where the
//! file did not bring one; `--vertex-labels` and `--directed` checked against the file.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::{DataIndex, IndexOptions, SavedIndex};
use gsi_graph::formats::{read_graphs, LoadedGraph, ReadOptions};
use gsi_graph::saved::{is_saved_index, GraphFacts};
use indicatif::ProgressBar;

use crate::exit::input_error;

/// A graph as its file gave it: text still to be indexed, or a saved index ready to use.
pub enum DataFile {
    Text(Box<LoadedGraph>),
    Saved(Box<SavedIndex>),
}

impl DataFile {
    /// The graph and what its file said; a saved index's own index dropped.
    pub fn into_loaded(self) -> LoadedGraph {
        match self {
            DataFile::Text(loaded) => *loaded,
            DataFile::Saved(saved) => saved.facts.join(saved.index.into_graph()),
        }
    }

    /// The graph's index, built from text with `options` (showing `indexing PATH` on
    /// `spinner`) or the saved one as it was saved; with what the file said and the time the
    /// build took (zero for a saved index).
    pub fn into_index(
        self,
        options: IndexOptions,
        path: &Path,
        spinner: &ProgressBar,
    ) -> Result<(DataIndex, GraphFacts, Duration)> {
        match self {
            DataFile::Text(loaded) => {
                let (graph, facts) = GraphFacts::split(*loaded);
                let (index, time) = index(graph, options, path, spinner)?;
                Ok((index, facts, time))
            }
            DataFile::Saved(saved) => Ok((saved.index, saved.facts, Duration::ZERO)),
        }
    }
}

/// Whether two paths name one existing file (an output that would replace its input).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Graphs read from one file, and how long that took.
pub struct Loaded {
    pub graphs: Vec<DataFile>,
    pub time: Duration,
}

/// Opens the saved index `path`, refusing read options that would have shaped the graph
/// differently than when it was saved (`--format` is not one: it may be meant for the
/// queries).
fn open_saved(path: &Path, options: &ReadOptions) -> Result<DataFile> {
    let saved = SavedIndex::open(path)
        .map_err(|e| input_error(format!("reading saved index {}: {e}", path.display())))?;
    let directed = saved.index.graph().is_directed();
    // `--format` may name the queries' format; the saved index knows its own.
    let refused = if options.vertex_labels.is_some() {
        Some("--vertex-labels applies to SNAP text, not to a saved index".to_string())
    } else if options.directed && !directed {
        Some("--directed does not apply: the saved index holds an undirected graph; index the text again with --directed".to_string())
    } else {
        None
    };
    match refused {
        Some(why) => Err(input_error(format!("{}: {why}", path.display()))),
        None => Ok(DataFile::Saved(Box::new(saved))),
    }
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
    if is_saved_index(path) {
        let graph = open_saved(path, options)?;
        return Ok(Loaded {
            graphs: vec![graph],
            time: started.elapsed(),
        });
    }
    let graphs =
        read_graphs(path, options).with_context(|| format!("reading {what} {}", path.display()))?;
    let time = started.elapsed();
    if notes {
        for graph in graphs.iter().filter(|g| !g.skipped.is_empty()) {
            spinner.suspend(|| eprintln!("gsi: {}: {}", crate::exit::shown(path), graph.skipped));
        }
    }
    Ok(Loaded {
        graphs: graphs
            .into_iter()
            .map(|g| DataFile::Text(Box::new(g)))
            .collect(),
        time,
    })
}

/// Reads the one graph of `path`, as [`read_file`].
pub fn read_one(
    path: &Path,
    options: &ReadOptions,
    what: &str,
    spinner: &ProgressBar,
    notes: bool,
) -> Result<(DataFile, Duration)> {
    let loaded = read_file(path, options, what, spinner, notes)?;
    let count = loaded.graphs.len();
    match <[DataFile; 1]>::try_from(loaded.graphs) {
        Ok([graph]) => Ok((graph, loaded.time)),
        Err(_) => Err(input_error(format!(
            "reading {what} {}: the file holds {count} graphs, expected one",
            path.display()
        ))),
    }
}

/// Builds the index of a data graph, showing `indexing PATH` on `spinner`.
fn index(
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
