//! What the GPU's backend hands the join driver (`crate::join`): its tables, Algorithm 4's
//! placement of a run's buffers, and the buffers once filled, all in device memory.

use std::cell::OnceCell;
use std::ops::Range;

use crate::cuda::buffers::Buffer;
use crate::error::{driver, Result};
use crate::join::{BufferLayout, FilledBuffers};

/// A table on the device.
pub(crate) enum DeviceTable {
    /// The first table: C(u0), in place in the candidate lists from `start`.
    Candidates { start: usize },
    /// A table the join built.
    Owned(Buffer<u32>),
}

/// Algorithm 4's placement of a run's buffers.
pub(crate) enum DeviceLayout {
    /// Every row gets the step's largest bound.
    Uniform { first_row: usize, stride: usize },
    /// The prefix sum of the rows' bounds, and its host copy once a part of the run asks.
    Offsets {
        first_row: usize,
        rows: usize,
        offsets: Buffer<u32>,
        total: u32,
        host: OnceCell<Vec<u32>>,
    },
}

impl DeviceLayout {
    /// The offsets of table rows `rows` on the host (copied from the device once).
    pub(super) fn host_offsets(&self, rows: &Range<usize>) -> Result<(u32, u32)> {
        match self {
            DeviceLayout::Uniform { first_row, stride } => Ok((
                ((rows.start - first_row) * stride) as u32,
                ((rows.end - first_row) * stride) as u32,
            )),
            DeviceLayout::Offsets {
                first_row,
                rows: run,
                offsets,
                total,
                host,
            } => {
                if rows.start == *first_row && rows.len() == *run {
                    return Ok((0, *total));
                }
                let host = match host.get() {
                    Some(h) => h,
                    None => {
                        let copied = offsets
                            .stream()
                            .clone_dtoh(offsets)
                            .map_err(driver("reading buffer offsets"))?;
                        host.get_or_init(|| copied)
                    }
                };
                Ok((host[rows.start - first_row], host[rows.end - first_row]))
            }
        }
    }
}

impl BufferLayout for DeviceLayout {
    fn entries(&self, rows: Range<usize>) -> Result<usize> {
        let (from, to) = self.host_offsets(&rows)?;
        Ok((to - from) as usize)
    }

    fn bytes(&self) -> usize {
        match self {
            DeviceLayout::Uniform { .. } => 0,
            DeviceLayout::Offsets { rows, .. } => 4 * (rows + 1),
        }
    }
}

/// A run's filled buffers on the device, with where they were placed.
pub(crate) struct DeviceFilled {
    pub(super) gba: Buffer<u32>,
    pub(super) counts: Buffer<u32>,
    /// Exclusive prefix sum of `counts`: each row's first row in the new table.
    pub(super) new_offsets: Buffer<u32>,
    pub(super) new_rows: usize,
    /// The rows' first offset in their run's prefix sum (with offsets), else 0.
    pub(super) base: u32,
    pub(super) bytes: usize,
}

impl FilledBuffers for DeviceFilled {
    fn new_rows(&self) -> usize {
        self.new_rows
    }

    fn bytes(&self) -> usize {
        self.bytes
    }
}
