//! One query from start to end: filter, plan, join, each phase timed.

use std::time::{Duration, Instant};

use gsi_graph::Graph;

use crate::candidates::Candidates;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::options::{MatchOptions, Share, Status};
use crate::plan::Plan;
use crate::sink::MatchSink;

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
    /// Which engine joined: `cpu` or `gpu`.
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
    let candidates = engine.filter(query, data, options.semantics)?;
    let filtered = Instant::now();
    // Leaves are multiplied only in a count.
    let counting = !sink.wants_matches();
    let postpone = options.postpone_leaves && counting;
    let plan = Plan::build(query, &candidates.sizes(), data, postpone);
    let candidates = match options.share {
        Some(share) => share_of(&candidates, &plan, share)?,
        None => candidates,
    };
    let planned = Instant::now();
    let outcome = engine.join(&plan, &candidates, data, options, sink)?;
    let joined = Instant::now();
    let estimated_rows = plan.estimated_rows;
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
        engine: outcome.engine,
    })
}

/// The candidate sets of `share`: C(u) cut to the vertices the share holds, for u the one of
/// the plan's first two vertices with more candidates, so that the share's first table, and
/// every row after, is the share's, in pieces as small as the first table allows. The plan is
/// the whole query's, the same in every share.
fn share_of(candidates: &Candidates, plan: &Plan, share: Share) -> Result<Candidates> {
    let mut sets = candidates.to_host()?.into_owned();
    let split = plan.steps[..plan.steps.len().min(2)]
        .iter()
        .map(|step| step.vertex)
        .max_by_key(|&u| (plan.candidate_sizes[u], std::cmp::Reverse(u)))
        .unwrap_or(0);
    sets.retain(split, |v| share.holds(v));
    Ok(Candidates::Host(sets))
}
