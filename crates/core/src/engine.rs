//! The engine interface: one filter and one join per engine, the plan and index shared.

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
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            semantics: Semantics::Isomorphism,
            limit: None,
            deadline: None,
            memory_budget: 1 << 30,
        }
    }
}

impl MatchOptions {
    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
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

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every match was found.
    Complete,
    /// The `limit` was reached.
    Limit,
    /// The deadline passed: the count is of the matches found until then.
    Timeout,
}

impl Status {
    /// The word used in output: `ok`, `limit` or `timeout`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "ok",
            Status::Limit => "limit",
            Status::Timeout => "timeout",
        }
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
pub trait Engine {
    /// Short name (`cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// The filtering phase: C(u) for every vertex of `query`.
    ///
    /// # Errors
    /// Device failures; the CPU engine never fails here.
    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<CandidateSets>;

    /// The joining phase: every match of `plan` over `candidates`, pushed into `sink`.
    ///
    /// # Errors
    /// Sink and device failures.
    fn join(
        &mut self,
        plan: &Plan,
        candidates: &CandidateSets,
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
/// [`crate::Error::NoGpu`] when the GPU engine was asked for and cannot run.
pub fn select(kind: EngineKind, _device: usize) -> Result<Selected> {
    match kind {
        EngineKind::Cpu | EngineKind::Auto => Ok(Selected {
            engine: Box::new(crate::cpu::CpuEngine),
            note: None,
        }),
        EngineKind::Gpu => Err(crate::Error::NoGpu(
            "--engine gpu: this build has no GPU engine yet; use --engine cpu or auto".into(),
        )),
    }
}
