//! The CPU engine: the reference implementation of the filter and of the Prealloc-Combine
//! join, parallel over data vertices and table rows with rayon.

mod filter;
mod join;

use gsi_graph::Graph;

use crate::candidates::CandidateSets;
use crate::engine::{Engine, JoinOutcome, MatchOptions, MatchSink};
use crate::index::DataIndex;
use crate::plan::Plan;
use crate::{Error, Result};

pub use join::intersect_in_place;

/// The CPU engine.
#[derive(Clone, Debug, Default)]
pub struct CpuEngine {
    candidates: Option<CandidateSets>,
}

impl CpuEngine {
    /// Joins over candidate sets computed elsewhere (the GPU's filter, say).
    pub fn set_candidates(&mut self, candidates: CandidateSets) {
        self.candidates = Some(candidates);
    }
}

impl Engine for CpuEngine {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Vec<usize>> {
        let candidates = filter::candidates(query, data, options.semantics);
        let sizes = candidates.sizes();
        self.candidates = Some(candidates);
        Ok(sizes)
    }

    fn candidate_sets(&mut self) -> Result<CandidateSets> {
        self.candidates.clone().ok_or(Error::NoCandidates)
    }

    fn join(
        &mut self,
        plan: &Plan,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        let candidates = self.candidates.as_ref().ok_or(Error::NoCandidates)?;
        join::run(plan, candidates, data, options, sink)
    }
}
