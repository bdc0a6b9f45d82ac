//! The CPU engine: the reference implementation of the filter and of the Prealloc-Combine
//! join, parallel over data vertices and table rows with rayon.

mod filter;
mod join;

use gsi_graph::Graph;

use crate::candidates::CandidateSets;
use crate::engine::{Engine, JoinOutcome, MatchOptions, MatchSink};
use crate::index::DataIndex;
use crate::plan::Plan;
use crate::Result;

pub use join::intersect_in_place;

/// The CPU engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuEngine;

impl Engine for CpuEngine {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<CandidateSets> {
        Ok(filter::candidates(query, data, options.semantics))
    }

    fn join(
        &mut self,
        plan: &Plan,
        candidates: &CandidateSets,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        join::run(plan, candidates, data, options, sink)
    }
}
