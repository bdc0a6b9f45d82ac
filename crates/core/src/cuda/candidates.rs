//! Candidate sets on the device, as the GPU filter leaves them and the GPU join reads them,
//! and their moves between host and device.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::device::Device;
use crate::candidates::CandidateSets;
use crate::error::{driver, Result};

/// C(u) for every query vertex, on the device: a bitset per query vertex (for the join's
/// membership test) and the sorted lists one after another (to start the join and size its
/// buffers). The list starts stay on the host, so sizes need no copy.
pub struct DeviceCandidates {
    /// The stream the buffers belong to.
    pub(crate) stream: Arc<CudaStream>,
    /// Data vertices the bitsets cover.
    pub(crate) vertex_count: usize,
    /// Bitsets, `words` u32 per query vertex.
    pub(crate) bits: CudaSlice<u32>,
    /// Words per bitset.
    pub(crate) words: usize,
    /// The sorted lists, one after another.
    pub(crate) lists: CudaSlice<u32>,
    /// `starts[u]..starts[u + 1]` is C(u) in `lists`.
    pub(crate) starts: Vec<u32>,
}

impl DeviceCandidates {
    /// A copy of `sets` on `device`.
    ///
    /// # Errors
    /// The device cannot hold or take the copy.
    pub fn upload(sets: &CandidateSets, device: &Device) -> Result<DeviceCandidates> {
        let vertex_count = sets.vertex_count();
        let words = vertex_count.div_ceil(32).max(1);
        let mut bits = vec![0u32; words * sets.lists().len()];
        let mut lists = Vec::new();
        let mut starts = vec![0u32];
        for (u, list) in sets.lists().enumerate() {
            for &v in list {
                bits[u * words + v as usize / 32] |= 1 << (v % 32);
            }
            lists.extend_from_slice(list);
            starts.push(lists.len() as u32);
        }
        Ok(DeviceCandidates {
            stream: device.stream.clone(),
            vertex_count,
            bits: device.upload(&bits, "candidate bitsets")?,
            words,
            lists: device.upload(&lists, "candidate lists")?,
            starts,
        })
    }

    /// A copy of the sets in host memory.
    ///
    /// # Errors
    /// The copy from the device fails.
    pub fn download(&self) -> Result<CandidateSets> {
        let total = *self.starts.last().unwrap_or(&0) as usize;
        let all = if total == 0 {
            Vec::new()
        } else {
            self.stream
                .clone_dtoh(&self.lists.slice(0..total))
                .map_err(driver("reading candidate lists"))?
        };
        let lists = self
            .starts
            .windows(2)
            .map(|w| all[w[0] as usize..w[1] as usize].to_vec())
            .collect();
        Ok(CandidateSets::from_lists(lists, self.vertex_count))
    }

    /// |C(u)| per query vertex.
    pub fn sizes(&self) -> Vec<usize> {
        (0..self.starts.len() - 1)
            .map(|u| self.range(u).len())
            .collect()
    }

    /// Where C(u) lies in `lists`.
    pub fn range(&self, u: usize) -> Range<usize> {
        self.starts[u] as usize..self.starts[u + 1] as usize
    }
}
