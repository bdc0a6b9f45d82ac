//! The GPU engine: GSI's filter and Prealloc-Combine join as CUDA kernels (gsi-kernels),
//! driven through cudarc, which loads libcuda and libnvrtc at run time so every build has
//! this engine and a machine without a GPU gets a clear error instead.
//!
//! Each `.cu` module has its host side in the file of the same name (`filter.rs`, `scan.rs`,
//! `join.rs`), with one typed wrapper per kernel; `launch.rs` holds launch shapes and the
//! constants shared with the kernels.

mod buffers;
pub mod candidates;
pub mod device;
mod filter;
mod index;
mod join;
pub mod launch;
pub mod libraries;
pub mod modules;
mod scan;
mod shared;

use std::sync::Arc;

use gsi_graph::Graph;

pub use device::{device_count, probe, Device};
pub(crate) use filter::fits as candidates_fit;

use self::candidates::{ClassSets, DeviceCandidates};
use self::index::DeviceIndex;
use self::shared::{IndexKey, SharedGpu};
use crate::candidates::CandidateSets;
use crate::config::{EngineConfig, ListIndex, RESIDENT_INDEX_SHARE};
use crate::engine::{Candidates, Engine, Notice};
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{Cut, JoinOutcome, MatchOptions};
use crate::plan::Plan;
use crate::sink::MatchSink;
use crate::tuning::{GpuTuning, Tuning};

/// The GPU engine.
pub struct GpuEngine {
    device: Device,
    /// Share of the free device memory the join may use.
    join_share: f64,
    /// Bytes of PCSR kept resident; `None`: a share of the free memory.
    resident_limit: Option<usize>,
    /// How the partitions' lists are found on the device: one layout for all, or each
    /// partition's own.
    list_index: Option<ListIndex>,
    /// How the join goes about a query.
    tuning: GpuTuning,
    /// The index of the last data graph prepared, on the device: shared with the other
    /// engines of this process on the same GPU.
    index: Option<Arc<DeviceIndex>>,
    /// What this GPU's engines share.
    shared: Arc<SharedGpu>,
}

impl GpuEngine {
    /// Opens the GPU of `config`.
    ///
    /// # Errors
    /// [`Error::NoGpu`] with the reason when no GPU is usable; kernel compile errors.
    pub fn open(config: &EngineConfig) -> Result<GpuEngine> {
        let device = Device::open(
            config.device,
            config.kernel_cache.as_deref(),
            config.upload_stage_bytes,
        )?;
        device.keep_buffers(config.keep_device_buffers);
        Ok(GpuEngine {
            device,
            join_share: config.device_join_share,
            resident_limit: config.resident_index_limit,
            list_index: config.list_index,
            tuning: config.tuning.gpu,
            index: None,
            shared: SharedGpu::of(config.device),
        })
    }

    /// The device's name and architecture, for messages.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.device.name, self.device.arch)
    }

    /// Copies each of `buffers` (the concatenation of its parts) to the device the way the
    /// index goes there, in one pipeline, and reads them back: a check of the upload path
    /// for tests and diagnostics.
    ///
    /// # Errors
    /// Driver errors.
    pub fn upload_round_trip(&self, buffers: &[&[&[u32]]]) -> Result<Vec<Vec<u32>>> {
        let named: Vec<(&[&[u32]], &str)> = buffers.iter().map(|&b| (b, "a test upload")).collect();
        let uploaded = self.device.upload_buffers(&named)?;
        buffers
            .iter()
            .zip(&uploaded)
            .map(|(parts, buffer)| {
                let len = parts.iter().map(|p| p.len()).sum();
                self.device.read(buffer, 0, len, "a test upload")
            })
            .collect()
    }

    /// Whether this engine and `other` read one copy of the data index (engines of one GPU
    /// in one process do, once prepared on the same index).
    pub fn shares_index_with(&self, other: &GpuEngine) -> bool {
        match (&self.index, &other.index) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Bytes of the data index on the device.
    pub fn index_bytes(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.bytes)
    }

    /// The index of `data` on the device, uploaded unless this engine or another of its GPU
    /// has it there already.
    fn index_of(&mut self, data: &DataIndex) -> Result<(&DeviceIndex, Option<Notice>)> {
        // Every call into the engine passes here first, from whatever thread: the device's
        // context must be current before anything of it is freed or used.
        self.device.bind()?;
        let mut notice = None;
        if self.index.as_ref().is_none_or(|i| i.id != data.id()) {
            self.release_index();
            let key = IndexKey {
                data: data.id(),
                list_index: self.list_index,
                resident_limit: self.resident_limit,
            };
            let index = self.shared.index(key, || {
                let limit = match self.resident_limit {
                    Some(limit) => limit,
                    None => (self.device.memory()?.0 as f64 * RESIDENT_INDEX_SHARE) as usize,
                };
                let index = DeviceIndex::upload(&self.device, data, limit, self.list_index)?;
                // Other engines' streams read it next: its copies must be done.
                self.device.synchronize("uploading the index")?;
                Ok(index)
            })?;
            if index.resident.is_none() {
                notice = Some(Notice::PartitionsPerQuery {
                    pcsr_bytes: data.pcsr().size_bytes(),
                });
            }
            self.index = Some(index);
        }
        Ok((self.index.as_ref().expect("uploaded"), notice))
    }

    /// Lets go of the index once this engine's work that reads it is done (another engine's
    /// stream may free it next).
    fn release_index(&mut self) {
        if self.index.is_some() {
            let _ = self.device.synchronize("finishing the last query");
            self.index = None;
        }
    }
}

impl Drop for GpuEngine {
    /// Frees the engine's device memory under its own context, whichever thread drops it.
    fn drop(&mut self) {
        // A failure leaves nothing to do: the driver reclaims the memory with the context.
        let _ = self.device.bind();
        self.release_index();
        self.device.close_buffers();
    }
}

impl Engine for GpuEngine {
    fn device(&self) -> Option<String> {
        Some(self.describe())
    }

    fn device_index_bytes(&self) -> usize {
        self.index_bytes()
    }

    fn tune(&mut self, tuning: &Tuning) {
        self.tuning = tuning.gpu;
    }

    fn prepare(&mut self, data: &DataIndex) -> Result<Option<Notice>> {
        Ok(self.index_of(data)?.1)
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Candidates> {
        self.index_of(data)?;
        let index = self.index.as_ref().expect("uploaded");
        let sets = filter::candidates(
            &self.device,
            index,
            query,
            options.semantics,
            options.filter,
        )?;
        Ok(Candidates::Device(sets))
    }

    fn query_answered(&mut self) {
        if self.device.bind().is_ok() {
            self.device.trim_pool();
        }
    }

    fn adopt(&mut self, sets: &CandidateSets) -> Result<Candidates> {
        Ok(Candidates::Device(DeviceCandidates::upload(
            sets,
            &self.device,
        )?))
    }

    fn classes_on_device(
        &mut self,
        sets: &DeviceCandidates,
        u: usize,
        cuts: &[Cut],
    ) -> Result<Option<ClassSets>> {
        if !self.tuning.classes_on_device {
            return Ok(None);
        }
        self.device.bind()?;
        Ok(Some(filter::classes(&self.device, sets, u, cuts)?))
    }

    fn join(
        &mut self,
        plan: &Plan,
        candidates: &Candidates,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome> {
        self.index_of(data)?;
        let index = self.index.as_ref().expect("uploaded");
        let uploaded;
        let sets = match candidates {
            Candidates::Device(sets) => sets,
            Candidates::Host(sets) => {
                uploaded = DeviceCandidates::upload(sets, &self.device)?;
                &uploaded
            }
        };
        let pcsr = index.partitions_for(&self.device, data, plan)?;
        // The engines of this GPU joining at once each plan with their part of its memory.
        let joining = self.shared.join_begins();
        let (free, _) = self.device.memory()?;
        let budget = options
            .memory_budget
            .min((free as f64 * self.join_share / joining.at_once() as f64) as usize);
        let listing = sink.wants_matches();
        let backend = join::GpuJoin::new(
            &self.device,
            &pcsr,
            plan,
            sets,
            options,
            self.tuning,
            listing,
        )?;
        crate::join::run(backend, plan, &sets.sizes(), options, budget, sink, "gpu")
    }
}
