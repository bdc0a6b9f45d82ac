//! The filtering phase on the GPU (host side of `filter.cu`): one launch tests every data
//! vertex against every query vertex's signature; a prefix sum over the bitset words' counts
//! places the sorted candidate lists.

use cudarc::driver::{CudaSlice, PushKernelArg};
use gsi_graph::{Direction, Graph, VertexId};

use super::device::{gpu_error, Device};
use super::index::DeviceIndex;
use super::launch::per_element;
use super::scan::exclusive_scan;
use crate::candidates::CandidateSets;
use crate::engine::Semantics;
use crate::signature::{Saturation, Signature};
use crate::Result;

/// C(u) for every query vertex, on the device.
pub struct DeviceCandidates {
    /// Bitsets, `words` u32 per query vertex.
    pub(crate) bits: CudaSlice<u32>,
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
    pub fn range(&self, u: usize) -> std::ops::Range<usize> {
        self.starts[u] as usize..self.starts[u + 1] as usize
    }

    /// Uploads candidate sets computed on the host.
    pub fn upload(
        device: &Device,
        candidates: &CandidateSets,
        query_vertices: usize,
        vertex_count: usize,
    ) -> Result<DeviceCandidates> {
        let words = vertex_count.div_ceil(32).max(1);
        let mut bits = vec![0u32; words * query_vertices];
        let mut lists = Vec::new();
        let mut starts = vec![0u32];
        for u in 0..query_vertices {
            for &v in candidates.list(u) {
                bits[u * words + v as usize / 32] |= 1 << (v % 32);
            }
            lists.extend_from_slice(candidates.list(u));
            starts.push(lists.len() as u32);
        }
        Ok(DeviceCandidates {
            bits: device.upload(&bits, "candidate bitsets")?,
            words,
            lists: device.upload(&lists, "candidate lists")?,
            starts,
        })
    }

    /// A host copy.
    pub fn to_host(&self, device: &Device, vertex_count: usize) -> Result<CandidateSets> {
        let total = *self.starts.last().unwrap_or(&0) as usize;
        let all = device.read(&self.lists, 0, total, "candidate lists")?;
        let lists = self
            .starts
            .windows(2)
            .map(|w| all[w[0] as usize..w[1] as usize].to_vec())
            .collect();
        Ok(CandidateSets::from_lists(lists, vertex_count))
    }
}

/// Runs the filter for every vertex of `query`.
pub fn candidates(
    device: &Device,
    index: &DeviceIndex,
    query: &Graph,
    semantics: Semantics,
) -> Result<DeviceCandidates> {
    let q = query.vertex_count();
    let n = index.vertex_count;
    let saturation = match semantics {
        Semantics::Isomorphism => Saturation::Counting,
        Semantics::Homomorphism => Saturation::PresenceOnly,
    };
    let mut signatures = Vec::with_capacity(q * 16);
    let mut degrees = Vec::with_capacity(2 * q);
    for u in 0..q as VertexId {
        signatures.extend_from_slice(&Signature::of(query, u, saturation).0);
        let injective = semantics == Semantics::Isomorphism;
        let out = query.degree(u, Direction::Out) as u32;
        let inc = if query.is_directed() {
            query.degree(u, Direction::In) as u32
        } else {
            0
        };
        degrees.extend_from_slice(&if injective { [out, inc] } else { [0, 0] });
    }
    // One copy to the device: the signatures, then the degrees.
    let signature_words = signatures.len();
    signatures.extend_from_slice(&degrees);
    let query = device.upload(&signatures, "the query's signatures")?;
    let query_signatures = query.slice(0..signature_words);
    let query_degrees = query.slice(signature_words..);
    let words = n.div_ceil(32).max(1);
    let total_words = words * q;
    let mut bits = device.alloc(total_words, "candidate bitsets")?;
    let mut word_counts = device.alloc(total_words, "candidate counts")?;
    let (n32, words32) = (n as u32, words as u32);
    // SAFETY: gsi_filter_signatures(signatures[16n], n, out_degree[n], in_degree[n],
    // query_signatures[16q], query_degrees[2q], q <= MAX_WIDTH, words, bits[q*words],
    // word_counts[q*words]); one thread per data vertex (a warp per bitset word).
    unsafe {
        device
            .stream
            .launch_builder(device.kernels.get("gsi_filter_signatures"))
            .arg(&index.signatures)
            .arg(&n32)
            .arg(&index.out_degree)
            .arg(index.in_degree.as_ref().unwrap_or(&index.out_degree))
            .arg(&query_signatures)
            .arg(&query_degrees)
            .arg(&(q as u32))
            .arg(&words32)
            .arg(&mut bits)
            .arg(&mut word_counts)
            .launch(per_element(u64::from(n32)))
    }
    .map_err(gpu_error("launching gsi_filter_signatures"))?;
    let (word_offsets, total) =
        exclusive_scan(device, &word_counts.slice(0..total_words), total_words)?;
    let mut lists = device.alloc(total as usize, "candidate lists")?;
    let total_words64 = total_words as u64;
    // SAFETY: gsi_filter_compact(bits[total_words], word_offsets[total_words + 1], total_words,
    // words, lists[total]), one thread per word.
    unsafe {
        device
            .stream
            .launch_builder(device.kernels.get("gsi_filter_compact"))
            .arg(&bits)
            .arg(&word_offsets)
            .arg(&total_words64)
            .arg(&words32)
            .arg(&mut lists)
            .launch(per_element(total_words64))
    }
    .map_err(gpu_error("launching gsi_filter_compact"))?;
    let mut starts_dev = device.alloc(q + 1, "candidate list starts")?;
    let q32 = q as u32;
    // SAFETY: gsi_filter_list_starts(word_offsets[q*words + 1], words, q, starts[q + 1]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernels.get("gsi_filter_list_starts"))
            .arg(&word_offsets)
            .arg(&words32)
            .arg(&q32)
            .arg(&mut starts_dev)
            .launch(per_element(q as u64 + 1))
    }
    .map_err(gpu_error("launching gsi_filter_list_starts"))?;
    let starts = device.read(&starts_dev, 0, q + 1, "candidate list starts")?;
    Ok(DeviceCandidates {
        bits,
        words,
        lists,
        starts,
    })
}
