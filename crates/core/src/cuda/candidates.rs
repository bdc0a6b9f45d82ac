//! Candidate sets on the device, as the GPU filter leaves them and the GPU join reads them.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

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
