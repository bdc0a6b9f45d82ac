//! The GPU engine: GSI's filter and Prealloc-Combine join as CUDA kernels (gsi-kernels),
//! driven through cudarc, which loads libcuda and libnvrtc at run time so every build has
//! this engine and a machine without a GPU gets a clear error instead.

mod device;
mod filter;
mod index;
mod join;
pub mod launch;
pub mod modules;
mod scan;

use gsi_graph::Graph;

pub use device::{probe, Device};

use self::filter::DeviceCandidates;
use self::index::DeviceIndex;
use crate::candidates::CandidateSets;
use crate::engine::{Engine, JoinOutcome, MatchOptions, MatchSink};
use crate::index::DataIndex;
use crate::plan::Plan;
use crate::{Error, Result};

/// Share of the free device memory the join may use when `--memory-limit` allows more.
const FREE_MEMORY_SHARE: f64 = 0.8;
/// Share of the free device memory the PCSR partitions may take to stay resident; the rest is
/// left to the join.
const RESIDENT_INDEX_SHARE: f64 = 0.5;

/// `GSI_GPU_PCSR_LIMIT` (bytes) caps the resident PCSR, to exercise per-query partitions.
fn pcsr_limit() -> Option<usize> {
    std::env::var("GSI_GPU_PCSR_LIMIT").ok()?.parse().ok()
}

/// The GPU engine.
pub struct GpuEngine {
    device: Device,
    index: Option<DeviceIndex>,
    candidates: Option<DeviceCandidates>,
}

impl GpuEngine {
    /// Opens GPU `ordinal`.
    ///
    /// # Errors
    /// [`Error::NoGpu`] with the reason when no GPU is usable.
    pub fn open(ordinal: usize) -> Result<GpuEngine> {
        Ok(GpuEngine {
            device: Device::open(ordinal)?,
            index: None,
            candidates: None,
        })
    }

    /// The device's name and architecture, for messages.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.device.name, self.device.arch)
    }

    /// Bytes of the data index on the device.
    pub fn index_bytes(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.bytes)
    }

    /// Uses candidate sets computed on the host (the CPU filter) for the next join.
    pub fn set_candidates(
        &mut self,
        candidates: &CandidateSets,
        query_vertices: usize,
        data: &DataIndex,
    ) -> Result<()> {
        self.prepare(data)?;
        self.candidates = Some(DeviceCandidates::upload(
            &self.device,
            candidates,
            query_vertices,
            data.graph().vertex_count(),
        )?);
        Ok(())
    }
}

impl Engine for GpuEngine {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn device(&self) -> Option<String> {
        Some(self.describe())
    }

    /// Uploads `data`'s index unless it is already there.
    fn prepare(&mut self, data: &DataIndex) -> Result<Option<String>> {
        if self.index.as_ref().is_some_and(|i| i.id == data.id()) {
            return Ok(None);
        }
        self.index = None;
        let (free, _) = self.device.memory()?;
        let limit = pcsr_limit().unwrap_or((free as f64 * RESIDENT_INDEX_SHARE) as usize);
        let index = DeviceIndex::upload(&self.device, data, limit)?;
        let note = index.resident.is_none().then(|| {
            format!(
                "the PCSR index ({} MiB) does not fit on the GPU beside the join's buffers; each query copies only the partitions it reads",
                data.pcsr().size_bytes() >> 20
            )
        });
        self.index = Some(index);
        Ok(note)
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Vec<usize>> {
        if query.vertex_count() > launch::MAX_WIDTH {
            return Err(Error::Unsupported(format!(
                "the GPU engine handles queries of up to {} vertices; this one has {} (use --engine cpu or auto)",
                launch::MAX_WIDTH,
                query.vertex_count()
            )));
        }
        self.prepare(data)?;
        let index = self.index.as_ref().expect("prepared");
        let candidates = filter::candidates(&self.device, index, query, options.semantics)?;
        let sizes = candidates.sizes();
        self.candidates = Some(candidates);
        Ok(sizes)
    }

    fn candidate_sets(&mut self) -> Result<CandidateSets> {
        let index = self.index.as_ref().ok_or(Error::NoCandidates)?;
        self.candidates
            .as_ref()
            .ok_or(Error::NoCandidates)?
            .to_host(&self.device, index.vertex_count)
    }

    fn join(
        &mut self,
        plan: &Plan,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        self.prepare(data)?;
        let index = self.index.as_ref().expect("prepared");
        let candidates = self.candidates.as_ref().ok_or(Error::NoCandidates)?;
        let pcsr = index.partitions_for(&self.device, data, plan)?;
        let (free, _) = self.device.memory()?;
        let budget = options
            .memory_budget
            .min((free as f64 * FREE_MEMORY_SHARE) as usize);
        join::run(&self.device, &pcsr, plan, candidates, options, budget, sink)
    }
}
