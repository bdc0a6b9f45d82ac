//! `--engine auto` with a GPU: per query, the faster engine. GPU matchers pay milliseconds of
//! launches and copies per query while an easy query takes the CPU well under one, so each
//! phase goes where its estimated work says: the filter to the GPU only when the query's labels
//! cover many data vertices, the join to the GPU only when the plan predicts a large table.
//! Candidate sets move between the engines when the two phases run on different ones.

use gsi_graph::{Graph, VertexId};

use crate::candidates::CandidateSets;
use crate::cpu::CpuEngine;
use crate::cuda::GpuEngine;
use crate::engine::{Engine, JoinOutcome, MatchOptions, MatchSink};
use crate::index::DataIndex;
use crate::plan::Plan;
use crate::Result;

/// Filter on the GPU when the query's vertices have more data vertices of their labels than
/// this, all together. The CPU tests a vertex in about 10 ns, the GPU filter costs about
/// 0.08 ms (H100, wordnet: 5 ms on 16 CPU cores for 8 query vertices over 63 000 vertices).
const GPU_FILTER_MIN_TESTS: usize = 1 << 16;
/// Join on the GPU when the plan's estimated intermediate rows, summed over the steps, exceed
/// this. Measured on an H100 with 16 CPU cores (2026-11-22, 240 8-vertex queries of yeast,
/// hprd and wordnet, every query on both engines): the GPU's floor is about 0.45 ms a query
/// and the CPU answers queries estimated under about 10 rows faster; this threshold came
/// within 0.4 % of always picking the faster engine. `GSI_AUTO_GPU_ROWS` overrides it.
const GPU_JOIN_MIN_ROWS: f64 = 10.0;

/// Which engine holds the current candidate sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Cpu,
    Gpu,
}

/// The per-query choice between the CPU and GPU engines.
pub struct AutoEngine {
    cpu: CpuEngine,
    gpu: GpuEngine,
    filtered_on: Side,
    joined_on: Side,
    query_vertices: usize,
    gpu_join_min_rows: f64,
    /// Set when the index could not be copied to the GPU: every phase then runs on the CPU.
    gpu_unusable: bool,
}

impl AutoEngine {
    pub(crate) fn new(gpu: GpuEngine) -> AutoEngine {
        let gpu_join_min_rows = std::env::var("GSI_AUTO_GPU_ROWS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(GPU_JOIN_MIN_ROWS);
        AutoEngine {
            cpu: CpuEngine::default(),
            gpu,
            filtered_on: Side::Cpu,
            joined_on: Side::Cpu,
            query_vertices: 0,
            gpu_join_min_rows,
            gpu_unusable: false,
        }
    }
}

impl Engine for AutoEngine {
    fn name(&self) -> &'static str {
        match self.joined_on {
            Side::Cpu => "cpu",
            Side::Gpu => "gpu",
        }
    }

    fn device(&self) -> Option<String> {
        Some(self.gpu.describe())
    }

    fn prepare(&mut self, data: &DataIndex) -> Result<Option<String>> {
        match self.gpu.prepare(data) {
            Ok(note) => Ok(note),
            Err(err) => {
                let note =
                    format!("the GPU cannot hold this graph's index ({err}); using the CPU engine");
                self.gpu_unusable = true;
                Ok(Some(note))
            }
        }
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Vec<usize>> {
        self.query_vertices = query.vertex_count();
        let tests: usize = (0..query.vertex_count() as VertexId)
            .map(|u| data.vertices_with_label(query.label(u)).len())
            .sum();
        if !self.gpu_unusable
            && tests > GPU_FILTER_MIN_TESTS
            && query.vertex_count() <= crate::cuda::launch::MAX_WIDTH
        {
            self.filtered_on = Side::Gpu;
            self.gpu.filter(query, data, options)
        } else {
            self.filtered_on = Side::Cpu;
            self.cpu.filter(query, data, options)
        }
    }

    fn candidate_sets(&mut self) -> Result<CandidateSets> {
        match self.filtered_on {
            Side::Cpu => self.cpu.candidate_sets(),
            Side::Gpu => self.gpu.candidate_sets(),
        }
    }

    fn join(
        &mut self,
        plan: &Plan,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        let large = !self.gpu_unusable && plan.estimated_rows(data) > self.gpu_join_min_rows;
        let side = if large && plan.width() <= crate::cuda::launch::MAX_WIDTH {
            Side::Gpu
        } else {
            Side::Cpu
        };
        if side != self.filtered_on {
            let candidates = self.candidate_sets()?;
            match side {
                Side::Cpu => self.cpu.set_candidates(candidates),
                Side::Gpu => self
                    .gpu
                    .set_candidates(&candidates, self.query_vertices, data)?,
            }
        }
        self.joined_on = side;
        match side {
            Side::Cpu => self.cpu.join(plan, data, options, sink),
            Side::Gpu => self.gpu.join(plan, data, options, sink),
        }
    }
}
