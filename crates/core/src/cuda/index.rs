//! The data index on the device: the signature table in column-first layout (Sec. 3.2), the
//! degrees, and the PCSR partitions (Sec. 4) concatenated, uploaded once per data graph and
//! reused by every query; when the partitions do not fit, each query gets a copy of just the
//! partitions its plan reads.

use std::collections::{HashMap, HashSet};

use cudarc::driver::{CudaSlice, DeviceRepr};
use gsi_graph::{Direction, EdgeLabel, VertexId};

use super::device::Device;
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::pcsr::{PartitionKey, GROUP_WORDS};
use crate::plan::Plan;

/// A partition as a kernel reads it (`struct Link` in `prelude.cuh`): the table column whose
/// vertex's neighbours are read, and where the partition lies in the concatenated arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Column of the intermediate table.
    pub column: u32,
    /// First group of the partition.
    pub group_base: u32,
    /// Groups that the partition's vertices hash to (0: no edge has this label).
    pub group_count: u32,
    /// First column-index entry of the partition.
    pub ci_base: u32,
}

// SAFETY: `Link` is `repr(C)`, four u32, the layout of the kernels' `struct Link`.
unsafe impl DeviceRepr for Link {}

/// Where a partition lies in concatenated arrays, and its longest list.
#[derive(Clone, Copy, Debug)]
struct Partition {
    group_base: u32,
    group_count: u32,
    ci_base: u32,
    max_degree: usize,
}

/// PCSR partitions on the device: groups and column indexes concatenated, and where each
/// partition lies in them.
pub struct DevicePcsr {
    directed: bool,
    pub(crate) groups: CudaSlice<u32>,
    pub(crate) column_index: CudaSlice<u32>,
    layout: HashMap<PartitionKey, Partition>,
    /// Bytes on the device.
    pub(crate) bytes: usize,
}

impl DevicePcsr {
    /// Uploads the partitions of `data` whose keys `wanted` accepts.
    fn upload(
        device: &Device,
        data: &DataIndex,
        wanted: impl Fn(PartitionKey) -> bool,
    ) -> Result<DevicePcsr> {
        let mut groups = Vec::new();
        let mut column_index = Vec::new();
        let (mut group_words, mut entries) = (0, 0);
        let mut layout = HashMap::new();
        for (key, pcsr) in data.pcsr().partitions().filter(|(key, _)| wanted(*key)) {
            layout.insert(
                key,
                Partition {
                    group_base: (group_words / GROUP_WORDS) as u32,
                    group_count: pcsr.hashed_groups(),
                    ci_base: entries as u32,
                    max_degree: pcsr.max_degree(),
                },
            );
            groups.push(pcsr.groups());
            column_index.push(pcsr.column_index());
            group_words += pcsr.groups().len();
            entries += pcsr.column_index().len();
            if entries >= u32::MAX as usize || group_words / GROUP_WORDS >= u32::MAX as usize {
                return Err(Error::GpuIndexTooLarge { entries });
            }
        }
        Ok(DevicePcsr {
            directed: data.graph().is_directed(),
            bytes: 4 * (group_words + entries),
            groups: device.upload_parts(&groups, "PCSR groups")?,
            column_index: device.upload_parts(&column_index, "PCSR column index")?,
            layout,
        })
    }

    fn partition(&self, label: EdgeLabel, direction: Direction) -> Option<Partition> {
        self.layout
            .get(&(label, direction.stored(self.directed)))
            .copied()
    }

    /// The kernel's view of N(row[column], label) in `direction`.
    pub fn link(&self, column: usize, label: EdgeLabel, direction: Direction) -> Link {
        let p = self.partition(label, direction);
        Link {
            column: column as u32,
            group_base: p.map_or(0, |p| p.group_base),
            group_count: p.map_or(0, |p| p.group_count),
            ci_base: p.map_or(0, |p| p.ci_base),
        }
    }

    /// The longest list of a partition (0 if no edge has the label).
    pub fn max_degree(&self, label: EdgeLabel, direction: Direction) -> usize {
        self.partition(label, direction).map_or(0, |p| p.max_degree)
    }
}

/// The index on the device: the signature table and degrees always; the PCSR partitions all
/// together when they fit in the share of device memory the index may take, or else only
/// those a query's plan reads, copied for that query (Sec. 4: one partition at a time is
/// enough for a join step).
pub struct DeviceIndex {
    /// `DataIndex::id` of the index uploaded.
    pub(crate) id: u64,
    pub(crate) vertex_count: usize,
    pub(crate) signatures: CudaSlice<u32>,
    pub(crate) out_degree: CudaSlice<u32>,
    /// In-degrees of a directed graph; an undirected graph has only `out_degree`.
    pub(crate) in_degree: Option<CudaSlice<u32>>,
    /// Every partition, when they fit.
    pub(crate) resident: Option<DevicePcsr>,
    /// Bytes on the device.
    pub(crate) bytes: usize,
}

impl DeviceIndex {
    /// Uploads `data`'s signature table and degrees, and its PCSR partitions when they take at
    /// most `pcsr_limit` bytes.
    pub fn upload(device: &Device, data: &DataIndex, pcsr_limit: usize) -> Result<DeviceIndex> {
        let graph = data.graph();
        let n = graph.vertex_count();
        let degrees = |d: Direction| -> Vec<u32> {
            (0..n as VertexId)
                .map(|v| graph.degree(v, d) as u32)
                .collect()
        };
        let signatures =
            device.upload_parts(&[data.signatures().words()], "the signature table")?;
        let out_degree = device.upload_parts(&[&degrees(Direction::Out)], "degrees")?;
        let in_degree = match graph.is_directed() {
            true => Some(device.upload_parts(&[&degrees(Direction::In)], "degrees")?),
            false => None,
        };
        let resident = if data.pcsr().size_bytes() <= pcsr_limit {
            Some(DevicePcsr::upload(device, data, |_| true)?)
        } else {
            None
        };
        let degree_arrays = if in_degree.is_some() { 2 } else { 1 };
        let bytes = 4 * (data.signatures().words().len() + degree_arrays * n)
            + resident.as_ref().map_or(0, |p| p.bytes);
        Ok(DeviceIndex {
            id: data.id(),
            vertex_count: n,
            signatures,
            out_degree,
            in_degree,
            resident,
            bytes,
        })
    }

    /// The partitions `plan` reads: the resident ones, or a copy of just those for this query.
    pub fn partitions_for<'a>(
        &'a self,
        device: &Device,
        data: &DataIndex,
        plan: &Plan,
    ) -> Result<PartitionsFor<'a>> {
        if let Some(resident) = &self.resident {
            return Ok(PartitionsFor::Resident(resident));
        }
        let directed = data.graph().is_directed();
        let keys: HashSet<PartitionKey> = plan
            .steps
            .iter()
            .flat_map(|s| s.links())
            .map(|e| (e.label, e.direction.stored(directed)))
            .collect();
        Ok(PartitionsFor::Copied(DevicePcsr::upload(
            device,
            data,
            |key| keys.contains(&key),
        )?))
    }
}

/// The PCSR partitions a query reads.
pub enum PartitionsFor<'a> {
    /// All partitions stay on the device.
    Resident(&'a DevicePcsr),
    /// Only this query's partitions, copied for it.
    Copied(DevicePcsr),
}

impl std::ops::Deref for PartitionsFor<'_> {
    type Target = DevicePcsr;

    fn deref(&self) -> &DevicePcsr {
        match self {
            PartitionsFor::Resident(p) => p,
            PartitionsFor::Copied(p) => p,
        }
    }
}
