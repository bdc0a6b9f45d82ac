//! What `match`, `bench` and `verify` share: the engine opened (with its notice worded), the
//! data graph loaded and indexed once and readied on the engine's device, and queries read
//! in the data graph's terms (as directed as it, labels through its names).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use gsi_core::{DataEdges, DataIndex, Engine, EngineConfig, EngineKind};
use gsi_graph::formats::{LabelNames, ReadOptions, SkippedEdges, VertexNames};

use crate::config::{start_threads, EngineChoice, Matching};
use crate::queries::{read_query_file, Query};
use crate::query_files::QueryFiles;
use crate::signals::{self, Interrupt};
use crate::{load, progress};

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
    matching: &mut Matching,
) -> Result<(Session, Interrupt, bool)> {
    let interrupt = signals::interrupt()?;
    matching.options.interrupt = Some(interrupt.flag());
    let show = Show {
        progress: progress::wanted(quiet),
        notes: !quiet,
    };
    let session = Session::open(data, read, engine, show, matching.edges)?;
    if show.notes {
        for note in queries.notes() {
            eprintln!("gsi: {note}");
        }
    }
    Ok((session, interrupt, show.progress))
}

/// Engines (one, or one per GPU of `--devices`) and a data graph ready for queries.
pub struct Session {
    /// The engines; queries start on the first.
    pub engines: Vec<Box<dyn Engine>>,
    /// The GPUs' names and architectures, when the engines use them.
    pub gpu: Option<String>,
    pub index: DataIndex,
    /// The names the data file gave its vertices (SNAP ids, RDF terms), if any.
    pub names: Option<VertexNames>,
    /// The names the data file gave its labels, through which queries are read.
    pub labels: LabelNames,
    /// Edges the data file's reader dropped.
    pub skipped: SkippedEdges,
    pub load_time: Duration,
    pub index_time: Duration,
    /// Time to ready the index on the device; `None` for the CPU engine.
    pub upload_time: Option<Duration>,
    /// Under edge isomorphism, the data graph's line graph is what `index` holds.
    pub line: Option<DataEdges>,
}

impl Session {
    /// Bytes of the index on each GPU, once uploaded; `None` for the CPU engine.
    pub fn upload_bytes(&self) -> Option<usize> {
        self.upload_time?;
        self.engines.first().map(|e| e.device_index_bytes())
    }

    /// Opens the engine of `choice`, then loads, indexes and readies the data graph `data`
    /// (its line graph, for edge isomorphism, when `edges`).
    pub fn open(
        data: &Path,
        read: &ReadOptions,
        choice: &EngineChoice,
        show: Show,
        edges: bool,
    ) -> Result<Session> {
        start_threads(choice.threads)?;
        let ordinals = match &choice.devices {
            None => vec![choice.config.device],
            Some(devices) => match devices.ordinals() {
                Ok(list) if !list.is_empty() => list,
                // Without GPUs `auto` runs on the CPU, and its notice says why.
                _ if choice.kind == EngineKind::Auto => vec![choice.config.device],
                Ok(_) => {
                    return Err(gsi_core::Error::NoGpu(gsi_core::NoGpu::NoDevice))
                        .context("--devices all")
                }
                Err(err) => return Err(err),
            },
        };
        let mut engines = Vec::with_capacity(ordinals.len());
        for &device in &ordinals {
            let config = EngineConfig {
                device,
                ..choice.config.clone()
            };
            let opened = gsi_core::open(choice.kind, &config).with_context(|| {
                match (choice.kind, choice.devices.is_some()) {
                    (_, true) => format!("--devices: GPU {device}"),
                    (EngineKind::Gpu, false) => "--engine gpu".to_string(),
                    _ => "opening the engine".to_string(),
                }
            })?;
            if let (Some(notice), true) = (&opened.notice, show.notes) {
                eprintln!("gsi: {}", notice);
            }
            engines.push(opened.engine);
        }
        let spinner = progress::spinner(show.progress, String::new());
        let (file, load_time) = load::read_one(data, read, "data graph", &spinner, show.notes)?;
        let (mut index, facts, mut index_time) = file.into_index(choice.index, data, &spinner)?;
        let mut line = None;
        if edges {
            spinner.set_message("building the line graph");
            let started = Instant::now();
            let (data_edges, graph) = DataEdges::of(&index).with_context(|| {
                format!(
                    "--semantics edge-isomorphism: the data graph {}",
                    data.display()
                )
            })?;
            index = DataIndex::build(graph)?;
            index_time += started.elapsed();
            line = Some(data_edges);
        }
        let gpus: Vec<String> = engines.iter().filter_map(|e| e.device()).collect();
        let gpu = (!gpus.is_empty()).then(|| gpus.join(", "));
        let upload_time = match gpu {
            None => None,
            Some(_) => {
                spinner.set_message("copying the index to the device");
                let started = Instant::now();
                // Every GPU at once: each copy runs on its own bus.
                let notices = std::thread::scope(|scope| {
                    let index = &index;
                    let uploads: Vec<_> = engines
                        .iter_mut()
                        .map(|engine| scope.spawn(move || engine.prepare(index)))
                        .collect();
                    uploads
                        .into_iter()
                        .map(|u| u.join().expect("an upload thread"))
                        .collect::<gsi_core::Result<Vec<_>>>()
                })?;
                if let (Some(notice), true) = (notices.into_iter().flatten().next(), show.notes) {
                    spinner.suspend(|| eprintln!("gsi: {}", notice));
                }
                Some(started.elapsed())
            }
        };
        spinner.finish_and_clear();
        Ok(Session {
            engines,
            gpu,
            index,
            names: facts.names,
            labels: facts.labels,
            skipped: facts.skipped,
            load_time,
            index_time,
            upload_time,
            line,
        })
    }

    /// The data graph's vertices (not its line graph's).
    pub fn data_vertices(&self) -> usize {
        self.line
            .as_ref()
            .map_or(self.index.graph().vertex_count(), DataEdges::vertices)
    }

    /// The data graph's edges (not its line graph's).
    pub fn data_edges(&self) -> usize {
        self.line
            .as_ref()
            .map_or(self.index.graph().edge_count(), |l| l.edges().len())
    }

    /// The queries of the file `path` ([`QueryReader::queries`]).
    pub fn queries(&self, path: &Path, read: &ReadOptions) -> Vec<Query> {
        self.reader().queries(path, read)
    }

    /// What reads queries, apart from the engines: one thread may read and plan queries
    /// while another joins them.
    pub fn split(&mut self) -> (&mut [Box<dyn Engine>], QueryReader<'_>) {
        let reader = QueryReader {
            index: &self.index,
            labels: &self.labels,
            line: self.line.as_ref(),
        };
        (&mut self.engines, reader)
    }

    fn reader(&self) -> QueryReader<'_> {
        QueryReader {
            index: &self.index,
            labels: &self.labels,
            line: self.line.as_ref(),
        }
    }
}

/// The parts of a session that read queries in the data graph's terms.
#[derive(Clone, Copy)]
pub struct QueryReader<'s> {
    pub index: &'s DataIndex,
    labels: &'s LabelNames,
    /// Under edge isomorphism, the data graph's edges.
    pub line: Option<&'s DataEdges>,
}

impl QueryReader<'_> {
    /// The queries of the file `path`, read with `read` as directed as the data graph, their
    /// labels in the data graph's numbering.
    pub fn queries(&self, path: &Path, read: &ReadOptions) -> Vec<Query> {
        crate::signals::reading(path);
        let read = ReadOptions {
            directed: self.index.graph().is_directed(),
            ..read.clone()
        };
        let queries = read_query_file(path, &read, self.labels);
        let Some(line) = self.line else {
            return queries;
        };
        // Edge isomorphism: each query as its line graph, labels in the data graph's terms.
        queries
            .into_iter()
            .map(|mut query| {
                query.graph = query.graph.and_then(|graph| {
                    line.query(&graph)
                        .map(|built| built.graph)
                        .context("--semantics edge-isomorphism")
                });
                query
            })
            .collect()
    }
}
