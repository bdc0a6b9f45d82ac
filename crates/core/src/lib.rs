//! gsi-core: GSI, "GPU-friendly Subgraph Isomorphism" (ICDE 2020), on the CPU and the GPU.
//!
//! The pipeline: a data graph is indexed once ([`DataIndex`]: signature table and PCSR); for
//! each query an [`Engine`] computes candidate sets (the filtering phase), a [`Plan`] orders
//! the join, and the engine runs the Prealloc-Combine join, pushing matches into a
//! [`MatchSink`]. [`find_matches`] runs the whole pipeline and times each phase. Every engine
//! gives the same answers; they differ only in speed.
#![deny(missing_docs)]

mod auto;
pub mod candidates;
pub mod cpu;
pub mod cuda;
pub mod engine;
mod error;
pub mod index;
pub mod pcsr;
pub mod plan;
pub mod signature;
pub mod verify;

use std::time::{Duration, Instant};

use gsi_graph::Graph;

pub use candidates::CandidateSets;
pub use engine::{
    CollectMatches, CountOnly, Engine, EngineKind, JoinOutcome, MatchOptions, MatchSink, Semantics,
    Status,
};
pub use error::{Error, Result};
pub use index::DataIndex;
pub use plan::Plan;

/// Time spent in each phase of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Filtering: candidate sets.
    pub filter: Duration,
    /// Planning: join order and first edges.
    pub plan: Duration,
    /// Joining, output included.
    pub join: Duration,
}

/// The result of one query.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Matches found.
    pub count: u64,
    /// How the search ended.
    pub status: Status,
    /// Time per phase.
    pub times: PhaseTimes,
    /// The plan that was run.
    pub plan: Plan,
    /// Most bytes the join held at once (device bytes for the GPU engine).
    pub peak_join_bytes: usize,
    /// The plan's estimate of the rows the join produces ([`Plan::estimated_rows`]).
    pub estimated_rows: f64,
    /// Which engine ran it.
    pub engine: &'static str,
}

/// Finds the matches of `query` in the indexed data graph with `engine`.
///
/// # Errors
/// [`Error::EmptyQuery`] for a query without vertices, [`Error::DirectionMismatch`] when one
/// graph is directed and the other is not; engine and sink failures.
pub fn find_matches(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
) -> Result<MatchReport> {
    if query.vertex_count() == 0 {
        return Err(Error::EmptyQuery);
    }
    if query.is_directed() != data.graph().is_directed() {
        return Err(Error::DirectionMismatch);
    }
    let started = Instant::now();
    let sizes = engine.filter(query, data, options)?;
    let filtered = Instant::now();
    let plan = Plan::build(query, &sizes, data);
    let planned = Instant::now();
    let outcome = engine.join(&plan, data, options, sink)?;
    let joined = Instant::now();
    let estimated_rows = plan.estimated_rows(data);
    Ok(MatchReport {
        count: outcome.count,
        status: outcome.status,
        times: PhaseTimes {
            filter: filtered - started,
            plan: planned - filtered,
            join: joined - planned,
        },
        plan,
        peak_join_bytes: outcome.peak_bytes,
        estimated_rows,
        engine: engine.name(),
    })
}
