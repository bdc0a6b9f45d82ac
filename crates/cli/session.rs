//! What `match`, `bench` and `verify` share: the engine opened (with its notice worded), the
//! data graph loaded and indexed once and readied on the engine's device, and queries read
//! in the data graph's terms (as directed as it, labels through its names).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::{DataIndex, Engine, EngineKind, MatchOptions};
use gsi_graph::formats::{LabelNames, ReadOptions, VertexNames};

use crate::config::{start_threads, EngineChoice};
use crate::queries::{read_query_file, Query};
use crate::query_files::QueryFiles;
use crate::signals::{self, Interrupt};
use crate::{load, messages, progress};

/// What a run may show on stderr.
#[derive(Clone, Copy, Debug)]
pub struct Show {
    /// Spinners while loading (a person at a terminal).
    pub progress: bool,
    /// Notes such as dropped edges and engine fallbacks.
    pub notes: bool,
}

/// What `match` and `bench` start with: signals caught (the interrupt set in `options`), the
/// session opened, the query files passed over named; and whether to draw progress.
pub fn start(
    data: &Path,
    read: &ReadOptions,
    engine: &EngineChoice,
    queries: &QueryFiles,
    quiet: bool,
    options: &mut MatchOptions,
) -> Result<(Session, Interrupt, bool)> {
    let interrupt = signals::interrupt()?;
    options.interrupt = Some(interrupt.flag());
    let show = Show {
        progress: progress::wanted(quiet),
        notes: !quiet,
    };
    let session = Session::open(data, read, engine, show)?;
    if show.notes {
        for note in queries.notes() {
            eprintln!("gsi: {note}");
        }
    }
    Ok((session, interrupt, show.progress))
}

/// An engine and a data graph ready for queries.
pub struct Session {
    pub engine: Box<dyn Engine>,
    /// The GPU's name and architecture, when the engine uses one.
    pub gpu: Option<String>,
    pub index: DataIndex,
    /// The names the data file gave its vertices (SNAP ids, RDF terms), if any.
    pub names: Option<VertexNames>,
    /// The names the data file gave its labels, through which queries are read.
    labels: LabelNames,
    pub load_time: Duration,
    pub index_time: Duration,
    /// Time to ready the index on the device; `None` for the CPU engine.
    pub upload_time: Option<Duration>,
}

impl Session {
    /// Opens the engine of `choice`, then loads, indexes and readies the data graph `data`.
    pub fn open(
        data: &Path,
        read: &ReadOptions,
        choice: &EngineChoice,
        show: Show,
    ) -> Result<Session> {
        start_threads(choice.threads)?;
        let opened = gsi_core::open(choice.kind, &choice.config).with_context(|| {
            if choice.kind == EngineKind::Gpu {
                "--engine gpu"
            } else {
                "opening the engine"
            }
        })?;
        let mut engine = opened.engine;
        if let (Some(notice), true) = (&opened.notice, show.notes) {
            eprintln!("gsi: {}", messages::notice(notice));
        }
        let spinner = progress::spinner(show.progress, String::new());
        let (file, load_time) = load::read_one(data, read, "data graph", &spinner, show.notes)?;
        let (index, facts, index_time) = file.into_index(choice.index, data, &spinner)?;
        let gpu = engine.device();
        let upload_time = match gpu {
            None => None,
            Some(_) => {
                spinner.set_message("copying the index to the device");
                let started = Instant::now();
                let notice = engine.prepare(&index)?;
                if let (Some(notice), true) = (notice, show.notes) {
                    spinner.suspend(|| eprintln!("gsi: {}", messages::notice(&notice)));
                }
                Some(started.elapsed())
            }
        };
        spinner.finish_and_clear();
        Ok(Session {
            engine,
            gpu,
            index,
            names: facts.names,
            labels: facts.labels,
            load_time,
            index_time,
            upload_time,
        })
    }

    /// The queries of the file `path`, read with `read` as directed as the data graph, their
    /// labels in the data graph's numbering.
    pub fn queries(&self, path: &Path, read: &ReadOptions) -> Vec<Query> {
        crate::signals::reading(path);
        let read = ReadOptions {
            directed: self.index.graph().is_directed(),
            ..read.clone()
        };
        read_query_file(path, &read, &self.labels)
    }
}
