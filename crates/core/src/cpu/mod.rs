//! The CPU engine: the reference implementation of the filter and of the Prealloc-Combine
//! join, parallel over data vertices and table rows with rayon.

mod cliques;
pub(crate) mod filter;
pub(crate) mod join;
mod local;
pub(crate) mod pools;

use gsi_graph::Graph;

use crate::candidates::CandidateSets;
use crate::engine::{Candidates, Engine};
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{JoinOutcome, MatchOptions, CPU_PLANNING_PAYS_FROM};
use crate::plan::walks::{JoinForWalks, RowExtender};
use crate::plan::Plan;
use crate::sink::MatchSink;
use crate::tuning::{CpuTuning, Tuning};

/// The CPU engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuEngine {
    tuning: CpuTuning,
}

impl CpuEngine {
    /// The CPU engine, its join tuned by `tuning`.
    pub fn new(tuning: CpuTuning) -> CpuEngine {
        CpuEngine { tuning }
    }
}

impl Engine for CpuEngine {
    fn counts_equivalent_vertices(&self) -> bool {
        true
    }

    fn planning_pays_from(&self) -> f64 {
        CPU_PLANNING_PAYS_FROM
    }

    fn light_join_budget(&self) -> Option<std::time::Duration> {
        Some(crate::options::CPU_LIGHT_JOIN_BUDGET)
    }

    fn pair_counts_from(&self) -> usize {
        crate::options::CPU_PAIR_COUNTS_FROM
    }

    fn program_cost(&self) -> f64 {
        1.0
    }

    fn programs_beside_after(&self, _plan: &Plan) -> Option<std::time::Duration> {
        None
    }

    fn refine_from_share(&self) -> f64 {
        crate::options::CPU_REFINE_FROM_SHARE
    }

    fn on_another_thread(&self) -> Option<Box<dyn Engine>> {
        Some(Box::new(*self))
    }

    fn tune(&mut self, tuning: &Tuning) {
        self.tuning = tuning.cpu;
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Candidates> {
        Ok(Candidates::Host(filter::candidates(query, data, options)?))
    }

    fn join(
        &mut self,
        plan: &Plan,
        candidates: &Candidates,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        let sets = candidates.to_host()?;
        let backend = join::CpuJoin::new(plan, &sets, data, options, self.tuning);
        crate::join::run(
            backend,
            plan,
            &sets.sizes(),
            options,
            options.memory_budget,
            sink,
            "cpu",
        )
    }
}

/// The planner's walks extend rows as this engine's join does.
impl JoinForWalks for CpuEngine {
    fn extender<'a>(
        &self,
        plan: &'a Plan,
        sets: &'a CandidateSets,
        data: &'a DataIndex,
        options: &'a MatchOptions,
    ) -> Box<dyn RowExtender + 'a> {
        Box::new(join::CpuJoin::new(plan, sets, data, options, self.tuning))
    }
}
