//! The data index on the device: the signature table in column-first layout (Sec. 3.2), the
//! degrees, and every PCSR partition (Sec. 4) concatenated, uploaded once per data graph and
//! reused by every query.

use std::collections::HashMap;

use cudarc::driver::{CudaSlice, DeviceRepr};
use gsi_graph::{Direction, EdgeLabel, VertexId};

use super::device::Device;
use crate::index::DataIndex;
use crate::pcsr::{PartitionKey, GROUP_WORDS};
use crate::Result;

/// A partition as a kernel reads it (`struct Link` in `prelude.cuh`): the table column whose
/// vertex's neighbours are read, and where the partition lies in the concatenated arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Column of the intermediate table.
    pub column: u32,
    /// First group of the partition.
    pub group_base: u32,
    /// Groups of the partition (0: no edge has this label).
    pub group_count: u32,
    /// First column-index entry of the partition.
    pub ci_base: u32,
}

// SAFETY: `Link` is `repr(C)`, four u32, the layout of the kernels' `struct Link`.
unsafe impl DeviceRepr for Link {}

/// Where a partition lies, and its longest list.
#[derive(Clone, Copy, Debug)]
struct Partition {
    group_base: u32,
    group_count: u32,
    ci_base: u32,
    max_degree: usize,
}

/// The index, resident on the device.
pub struct DeviceIndex {
    /// `DataIndex::id` of the index uploaded.
    pub(crate) id: u64,
    pub(crate) vertex_count: usize,
    pub(crate) directed: bool,
    pub(crate) signatures: CudaSlice<u32>,
    pub(crate) out_degree: CudaSlice<u32>,
    pub(crate) in_degree: CudaSlice<u32>,
    pub(crate) groups: CudaSlice<u32>,
    pub(crate) column_index: CudaSlice<u32>,
    partitions: HashMap<PartitionKey, Partition>,
    /// Bytes on the device.
    pub(crate) bytes: usize,
}

impl DeviceIndex {
    /// Uploads `data`'s index.
    pub fn upload(device: &Device, data: &DataIndex) -> Result<DeviceIndex> {
        let graph = data.graph();
        let n = graph.vertex_count();
        let degrees = |d: Direction| -> Vec<u32> {
            (0..n as VertexId)
                .map(|v| graph.degree(v, d) as u32)
                .collect()
        };
        let out_degree = degrees(Direction::Out);
        let in_degree = if graph.is_directed() {
            degrees(Direction::In)
        } else {
            out_degree.clone()
        };
        let mut groups = Vec::new();
        let mut column_index = Vec::new();
        let mut partitions = HashMap::new();
        for (key, pcsr) in data.pcsr().partitions() {
            partitions.insert(
                key,
                Partition {
                    group_base: (groups.len() / GROUP_WORDS) as u32,
                    group_count: pcsr.group_count() as u32,
                    ci_base: column_index.len() as u32,
                    max_degree: pcsr.max_degree(),
                },
            );
            groups.extend_from_slice(pcsr.groups());
            column_index.extend_from_slice(pcsr.column_index());
        }
        if column_index.len() >= u32::MAX as usize
            || groups.len() / GROUP_WORDS >= u32::MAX as usize
        {
            return Err(crate::Error::GraphTooLarge(format!(
                "{} neighbour entries exceed the GPU index's 32-bit offsets; use --engine cpu",
                column_index.len()
            )));
        }
        let signatures = device.upload(data.signatures().words(), "the signature table")?;
        let out_degree_dev = device.upload(&out_degree, "degrees")?;
        let in_degree_dev = device.upload(&in_degree, "degrees")?;
        let groups_dev = device.upload(&groups, "PCSR groups")?;
        let ci_dev = device.upload(&column_index, "PCSR column index")?;
        let bytes =
            4 * (data.signatures().words().len() + 2 * n + groups.len() + column_index.len());
        Ok(DeviceIndex {
            id: data.id(),
            vertex_count: n,
            directed: graph.is_directed(),
            signatures,
            out_degree: out_degree_dev,
            in_degree: in_degree_dev,
            groups: groups_dev,
            column_index: ci_dev,
            partitions,
            bytes,
        })
    }

    fn partition(&self, label: EdgeLabel, direction: Direction) -> Option<Partition> {
        let direction = if self.directed {
            direction
        } else {
            Direction::Out
        };
        self.partitions.get(&(label, direction)).copied()
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
