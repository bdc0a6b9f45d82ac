//! Candidate sets on the device, as the GPU filter leaves them and the GPU join reads them,
//! and their moves between host and device.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use rayon::prelude::*;

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
    /// A copy of `sets` on `device`: the host's bitsets as they are, the lists without a
    /// concatenation on the host ([`Device::upload_buffers`]).
    ///
    /// # Errors
    /// The device cannot hold or take the copy.
    pub fn upload(sets: &CandidateSets, device: &Device) -> Result<DeviceCandidates> {
        let vertex_count = sets.vertex_count();
        let words = vertex_count.div_ceil(32).max(1);
        let count = sets.lists().len();
        let mut bits = vec![0u32; words * count];
        bits.par_chunks_mut(words)
            .enumerate()
            .for_each(|(u, out)| bitset_words(sets.blocks(u), out));
        let mut starts = vec![0u32];
        for list in sets.lists() {
            starts.push(starts[starts.len() - 1] + list.len() as u32);
        }
        let parts: Vec<&[u32]> = sets.lists().collect();
        let mut uploaded = device.upload_buffers(&[
            (&[&bits[..]], "candidate bitsets"),
            (&parts, "candidate lists"),
        ])?;
        let lists = uploaded.pop().expect("two buffers");
        let bits = uploaded.pop().expect("two buffers");
        Ok(DeviceCandidates {
            stream: device.stream.clone(),
            vertex_count,
            bits,
            words,
            lists,
            starts,
        })
    }

    /// A copy of these sets, on the same device, with C(u) replaced by `list` for each `(u,
    /// list)` of `replaced` (a sorted sublist of C(u)): the other sets copied on the device,
    /// the new lists and their bitsets uploaded. A share of a query is cut so
    /// ([`crate::options::Share`]): millions of candidates stay on the device.
    ///
    /// # Errors
    /// The device cannot hold or take the copy.
    pub fn with_lists(&self, replaced: &[(usize, Vec<u32>)]) -> Result<DeviceCandidates> {
        let err = || driver("copying candidate sets for a share");
        let new_list = |u: usize| replaced.iter().find(|(w, _)| *w == u).map(|(_, l)| l);
        let count = self.starts.len() - 1;
        let mut starts = vec![0u32];
        for u in 0..count {
            let len = new_list(u).map_or(self.range(u).len(), Vec::len);
            starts.push(starts[u] + len as u32);
        }
        let total = starts[count] as usize;
        // SAFETY: every element is written below, each list's range by one copy.
        let mut lists = unsafe { self.stream.alloc::<u32>(total.max(1)) }.map_err(err())?;
        let mut bits = self.stream.clone_dtod(&self.bits).map_err(err())?;
        let mut words = vec![0u32; self.words];
        for u in 0..count {
            let to = starts[u] as usize..starts[u + 1] as usize;
            match new_list(u) {
                Some(list) => {
                    words.fill(0);
                    for &v in list {
                        words[v as usize / 32] |= 1 << (v % 32);
                    }
                    let set = u * self.words..(u + 1) * self.words;
                    self.stream
                        .memcpy_htod(&words, &mut bits.slice_mut(set))
                        .map_err(err())?;
                    if !to.is_empty() {
                        self.stream
                            .memcpy_htod(list, &mut lists.slice_mut(to))
                            .map_err(err())?;
                    }
                }
                None if !to.is_empty() => self
                    .stream
                    .memcpy_dtod(&self.lists.slice(self.range(u)), &mut lists.slice_mut(to))
                    .map_err(err())?,
                None => {}
            }
            // `words` is written again for the next list: its copy must be done.
            self.stream.synchronize().map_err(err())?;
        }
        Ok(DeviceCandidates {
            stream: self.stream.clone(),
            vertex_count: self.vertex_count,
            bits,
            words: self.words,
            lists,
            starts,
        })
    }

    /// C(u) alone, copied to the host.
    ///
    /// # Errors
    /// The copy from the device fails.
    pub fn download_list(&self, u: usize) -> Result<Vec<u32>> {
        let range = self.range(u);
        if range.is_empty() {
            return Ok(Vec::new());
        }
        self.stream
            .clone_dtoh(&self.lists.slice(range))
            .map_err(driver("reading a candidate list"))
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

/// Writes a host bitset's blocks as the device's 32-bit words (bit `v % 32` of word `v / 32`
/// is vertex v), as many as `out` holds.
fn bitset_words(blocks: &[usize], out: &mut [u32]) {
    let halves = blocks
        .iter()
        .flat_map(|&b| (0..usize::BITS / 32).map(move |i| (b >> (32 * i)) as u32));
    for (word, half) in out.iter_mut().zip(halves) {
        *word = half;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_words_keep_every_vertex_in_its_place() {
        let vertices = [0u32, 1, 31, 32, 63, 64, 100, 129];
        let sets = CandidateSets::from_lists(vec![vertices.to_vec()], 130);
        let mut words = vec![0u32; 130usize.div_ceil(32)];
        bitset_words(sets.blocks(0), &mut words);
        let found: Vec<u32> = (0..130u32)
            .filter(|&v| words[v as usize / 32] & (1 << (v % 32)) != 0)
            .collect();
        assert_eq!(found, vertices);
    }
}
