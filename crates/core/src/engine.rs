//! The engine interface: one filter and one join per engine, the plan and index shared.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use gsi_graph::{Graph, VertexId};

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::plan::Plan;
use crate::Result;

/// Which engine answers a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The CPU engine.
    Cpu,
    /// The GPU engine.
    Gpu,
    /// The GPU when one is usable, else the CPU.
    Auto,
}

/// What counts as a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    /// Injective (Definition 3 of the paper): distinct query vertices, distinct data vertices.
    #[default]
    Isomorphism,
    /// No injectivity: the join skips the set subtraction (Sec. 7, "Extensions").
    Homomorphism,
}

/// How one query is run.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Isomorphism or homomorphism.
    pub semantics: Semantics,
    /// Stop after this many matches.
    pub limit: Option<u64>,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Bytes the join's tables and buffers may hold at once; larger work is split in chunks.
    pub memory_budget: usize,
    /// Stop as soon as this is set (the caller was asked to stop, say by a signal).
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            semantics: Semantics::Isomorphism,
            limit: None,
            deadline: None,
            memory_budget: 1 << 30,
            interrupt: None,
        }
    }
}

impl MatchOptions {
    /// Why the search must stop now, if it must: [`Status::Interrupted`] when the interrupt
    /// is set, [`Status::Timeout`] when the deadline has passed.
    pub fn stop(&self) -> Option<Status> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            Some(Status::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Status::Timeout)
        } else {
            None
        }
    }
}

/// Receives matches as they are found.
pub trait MatchSink {
    /// Whether the sink wants the matches themselves; if not, engines only count.
    fn wants_matches(&self) -> bool;

    /// Takes a batch of matches, `width` data vertices each, in query-vertex order.
    ///
    /// # Errors
    /// Whatever the sink fails with (for example, a write error); the engine stops and
    /// passes it on.
    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()>;
}

/// A sink that only counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountOnly;

impl MatchSink for CountOnly {
    fn wants_matches(&self) -> bool {
        false
    }

    fn matches(&mut self, _rows: &[VertexId], _width: usize) -> Result<()> {
        Ok(())
    }
}

/// A sink that keeps every match, `width` data vertices each, in the order found.
#[derive(Clone, Debug, Default)]
pub struct CollectMatches {
    flat: Vec<VertexId>,
    width: usize,
}

impl CollectMatches {
    /// The matches one after another.
    pub fn flat(&self) -> &[VertexId] {
        &self.flat
    }

    /// The matches, one slice each.
    pub fn rows(&self) -> impl Iterator<Item = &[VertexId]> {
        self.flat.chunks_exact(self.width.max(1))
    }
}

impl MatchSink for CollectMatches {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()> {
        self.width = width;
        self.flat.extend_from_slice(rows);
        Ok(())
    }
}

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every match was found.
    Complete,
    /// The `limit` was reached.
    Limit,
    /// The deadline passed: the count is of the matches found until then.
    Timeout,
    /// The interrupt was set: the count is of the matches found until then.
    Interrupted,
}

impl Status {
    /// The word used in output: `ok`, `limit`, `timeout` or `interrupted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "ok",
            Status::Limit => "limit",
            Status::Timeout => "timeout",
            Status::Interrupted => "interrupted",
        }
    }

    /// Whether every match was found.
    pub fn is_complete(self) -> bool {
        self == Status::Complete
    }
}

/// What a join found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinOutcome {
    /// Matches found (all of them when `status` is `Complete`).
    pub count: u64,
    /// How the join ended.
    pub status: Status,
    /// Most bytes of tables and buffers held at once.
    pub peak_bytes: usize,
}

/// An engine: the filtering phase and the joining phase of GSI.
///
/// An engine keeps the candidate sets of its last [`Engine::filter`] where it computed them
/// (host memory or device memory), and [`Engine::join`] reads them from there; only their
/// sizes travel, for the plan.
pub trait Engine {
    /// Short name of the engine that ran the last query (`cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// The GPU the engine uses, by name and architecture (`None` for the CPU engine).
    fn device(&self) -> Option<String> {
        None
    }

    /// Readies the engine for queries on `data` (the GPU engine uploads the index); the
    /// first query does it otherwise. Returns a note for the user when the engine had to
    /// change course (`auto` falling back to the CPU when the index does not fit the GPU).
    ///
    /// # Errors
    /// Device failures.
    fn prepare(&mut self, _data: &DataIndex) -> Result<Option<String>> {
        Ok(None)
    }

    /// The filtering phase: computes and keeps C(u) for every vertex of `query`; returns
    /// |C(u)| per query vertex.
    ///
    /// # Errors
    /// Device failures, or a query the engine cannot run; the CPU engine never fails here.
    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Vec<usize>>;

    /// A host copy of the candidate sets of the last [`Engine::filter`].
    ///
    /// # Errors
    /// Device failures, or no filter run yet.
    fn candidate_sets(&mut self) -> Result<CandidateSets>;

    /// The joining phase over the candidates of the last [`Engine::filter`]: every match of
    /// `plan`, pushed into `sink`.
    ///
    /// # Errors
    /// Sink and device failures.
    fn join(
        &mut self,
        plan: &Plan,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome>;
}

/// An engine chosen for a run, with a note for the user when the choice was not the one asked.
pub struct Selected {
    /// The engine.
    pub engine: Box<dyn Engine>,
    /// Say this once (for example, why `auto` fell back to the CPU).
    pub note: Option<String>,
}

/// Opens the engine of `kind` on GPU `device`.
///
/// # Errors
/// [`crate::Error::NoGpu`] when the GPU engine was asked for and cannot run; `auto` never
/// fails for lack of a GPU but says in its note that it fell back to the CPU, and why.
pub fn select(kind: EngineKind, device: usize) -> Result<Selected> {
    let cpu = || Box::new(crate::cpu::CpuEngine::default());
    match kind {
        EngineKind::Cpu => Ok(Selected {
            engine: cpu(),
            note: None,
        }),
        EngineKind::Gpu => match crate::cuda::GpuEngine::open(device) {
            Ok(gpu) => Ok(Selected {
                engine: Box::new(gpu),
                note: None,
            }),
            Err(crate::Error::NoGpu(reason)) => Err(crate::Error::NoGpu(format!(
                "--engine gpu: {reason}; use --engine cpu or auto"
            ))),
            Err(other) => Err(other),
        },
        EngineKind::Auto => match crate::cuda::GpuEngine::open(device) {
            Ok(gpu) => Ok(Selected {
                engine: Box::new(crate::auto::AutoEngine::new(gpu)),
                note: None,
            }),
            Err(err) => Ok(Selected {
                engine: cpu(),
                note: Some(format!("no usable GPU ({err}); using the CPU engine")),
            }),
        },
    }
}
