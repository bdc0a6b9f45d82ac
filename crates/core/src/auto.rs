//! `--engine auto` with a GPU: per query, the faster engine. GPU matchers pay milliseconds of
//! launches and copies per query while an easy query takes the CPU well under one, so each
//! phase goes where its estimated work says: the filter to the GPU only when the query's labels
//! cover many data vertices, the join to the GPU only when the plan predicts a large table or
//! has many steps (thresholds in [`EngineConfig`]), and a count's programs beside the join only
//! where the join is the GPU's. The candidate sets are a value: the join converts them to
//! where it runs.

use std::time::Duration;

use gsi_graph::{Graph, VertexId};

use crate::candidates::CandidateSets;
use crate::config::EngineConfig;
use crate::cpu::pools::pool_of;
use crate::cpu::CpuEngine;
use crate::cuda::GpuEngine;
use crate::engine::{Candidates, Engine, Notice};
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{JoinOutcome, MatchOptions};
use crate::plan::Plan;
use crate::sink::MatchSink;
use crate::tuning::Tuning;

/// The per-query choice between the CPU and GPU engines.
pub struct AutoEngine {
    cpu: CpuEngine,
    gpu: GpuEngine,
    gpu_filter_min_tests: usize,
    gpu_join_min_rows: f64,
    gpu_join_min_steps: usize,
    /// Set when the index could not be copied to the GPU: every phase then runs on the CPU.
    gpu_unusable: bool,
}

impl AutoEngine {
    /// Chooses between the CPU and `gpu` with the thresholds of `config`.
    pub fn new(gpu: GpuEngine, config: &EngineConfig) -> AutoEngine {
        AutoEngine {
            cpu: CpuEngine::new(config.tuning.cpu),
            gpu,
            gpu_filter_min_tests: config.auto_gpu_filter_min_tests,
            gpu_join_min_rows: config.auto_gpu_join_min_rows,
            gpu_join_min_steps: config.auto_gpu_join_min_steps,
            gpu_unusable: false,
        }
    }

    /// Whether `plan`'s join goes to the GPU: a large table expected, or many steps.
    fn joins_on_gpu(&self, plan: &Plan) -> bool {
        !self.gpu_unusable
            && (plan.expected_rows() > self.gpu_join_min_rows
                || plan.width() >= self.gpu_join_min_steps)
    }
}

impl Engine for AutoEngine {
    fn device(&self) -> Option<String> {
        Some(self.gpu.describe())
    }

    fn device_index_bytes(&self) -> usize {
        self.gpu.index_bytes()
    }

    fn tune(&mut self, tuning: &Tuning) {
        self.cpu.tune(tuning);
        self.gpu.tune(tuning);
    }

    fn prepare(&mut self, data: &DataIndex) -> Result<Option<Notice>> {
        match self.gpu.prepare(data) {
            Ok(notice) => Ok(notice),
            Err(err) => {
                self.gpu_unusable = true;
                Ok(Some(Notice::IndexNotOnGpu(err)))
            }
        }
    }

    fn query_answered(&mut self) {
        self.gpu.query_answered();
    }

    fn adopt(&mut self, sets: &CandidateSets) -> Result<Candidates> {
        match self.gpu_unusable {
            true => self.cpu.adopt(sets),
            false => self.gpu.adopt(sets),
        }
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Candidates> {
        // The CPU's filter tests each query vertex's pool, often far fewer vertices than its
        // label's, which the GPU's filter tests (docs/BENCHMARKS.md, twenty-second round).
        let tests: usize = (0..query.vertex_count() as VertexId)
            .map(|u| pool_of(query, u, data, options).vertices(data).len())
            .sum();
        // (A query whose sets the GPU's offsets cannot hold is filtered here.)
        let fits = crate::cuda::candidates_fit(query.vertex_count(), data.graph().vertex_count());
        if !self.gpu_unusable && tests > self.gpu_filter_min_tests && fits.is_ok() {
            self.gpu.filter(query, data, options)
        } else {
            self.cpu.filter(query, data, options)
        }
    }

    fn join(
        &mut self,
        plan: &Plan,
        candidates: &Candidates,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        if self.joins_on_gpu(plan) {
            self.gpu.join(plan, candidates, data, options, sink)
        } else {
            self.cpu.join(plan, candidates, data, options, sink)
        }
    }

    fn programs_beside_after(&self, plan: &Plan) -> Option<Duration> {
        match self.joins_on_gpu(plan) {
            true => self.gpu.programs_beside_after(plan),
            false => self.cpu.programs_beside_after(plan),
        }
    }
}
