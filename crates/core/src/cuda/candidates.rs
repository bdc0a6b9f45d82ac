//! Candidate sets on the device, as the GPU filter leaves them and the GPU join reads them,
//! and their moves between host and device.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::CudaStream;
use rayon::prelude::*;

use super::device::Device;
use crate::candidates::CandidateSets;
use crate::cuda::buffers::Buffer;
use crate::error::{driver, Error, Result};

/// Fewest bitset words, over every set, worth writing in parallel for an upload.
const PARALLEL_MIN_WORDS: usize = 1 << 14;

/// C(u) for every query vertex, on the device: a bitset per query vertex (for the join's
/// membership test) and the sorted lists one after another (to start the join and size its
/// buffers). Where each list lies stays on the host, so sizes need no copy.
pub struct DeviceCandidates {
    /// The stream the buffers belong to.
    pub(crate) stream: Arc<CudaStream>,
    /// Data vertices the bitsets cover.
    pub(crate) vertex_count: usize,
    /// Bitsets, `words` u32 per query vertex.
    pub(crate) bits: Buffer<u32>,
    /// Words per bitset.
    pub(crate) words: usize,
    /// The sorted lists, one after another (with room between them in a share's sets,
    /// [`DeviceCandidates::for_shares`]).
    pub(crate) lists: Buffer<u32>,
    /// Where C(u) lies in `lists`, for every u.
    pub(crate) ranges: Vec<Range<usize>>,
}

/// One query vertex's candidates split by class, on the device
/// ([`DeviceCandidates::upload_classes`], or split there: `cuda::filter::classes`).
pub struct ClassSets {
    /// The classes' sorted lists one after another.
    pub(super) lists: Buffer<u32>,
    /// Where each class lies in `lists`.
    pub(super) ranges: Vec<Range<usize>>,
    /// A bitset per class, as many words each as the sets' bitsets.
    pub(super) bits: Buffer<u32>,
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
        // In parallel where the bitsets are long: waking the pool's threads costs more than
        // a few kilobytes take to write (yeast's sets: 98 words each).
        let write = |(u, out): (usize, &mut [u32])| bitset_words(sets.blocks(u), out);
        if bits.len() < PARALLEL_MIN_WORDS {
            bits.chunks_mut(words).enumerate().for_each(write);
        } else {
            bits.par_chunks_mut(words).enumerate().for_each(write);
        }
        // A list the filter found for several query vertices (an unlabelled pattern's,
        // millions of vertices long) is copied once, their ranges the same.
        let lists: Vec<&[u32]> = sets.lists().collect();
        let mut ranges: Vec<Range<usize>> = Vec::with_capacity(count);
        let mut parts = Vec::with_capacity(count);
        let mut end = 0;
        for (&list, w) in lists.iter().zip(sets.holders()) {
            // w = u for the first holder of a list, not placed yet.
            match ranges.get(w) {
                Some(range) => ranges.push(range.clone()),
                None => {
                    ranges.push(end..end + list.len());
                    end += list.len();
                    parts.push(list);
                }
            }
        }
        if end > u32::MAX as usize {
            return Err(Error::CandidatesTooLargeForGpu {
                entries: end as u64,
                query_vertices: count,
                data_vertices: vertex_count,
            });
        }
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
            ranges,
        })
    }

    /// A copy of these sets on the same device, to be cut into shares
    /// ([`DeviceCandidates::cut_to`]): every list gets a room of its own (lists that were
    /// shared are copied apart), so a cut list goes where the whole one was and the others
    /// are never copied again.
    ///
    /// # Errors
    /// The device cannot hold the copy.
    pub fn for_shares(&self) -> Result<DeviceCandidates> {
        let err = || driver("copying candidate sets for the shares");
        let total: usize = self.ranges.iter().map(Range::len).sum();
        let mut lists = self
            .stream
            .alloc_zeros::<u32>(total.max(1))
            .map_err(err())?;
        let mut ranges = Vec::with_capacity(self.ranges.len());
        let mut end = 0;
        for range in &self.ranges {
            let room = end..end + range.len();
            if !room.is_empty() {
                self.stream
                    .memcpy_dtod(
                        &self.lists.slice(range.clone()),
                        &mut lists.slice_mut(room.clone()),
                    )
                    .map_err(err())?;
            }
            end = room.end;
            ranges.push(room);
        }
        Ok(DeviceCandidates {
            stream: self.stream.clone(),
            vertex_count: self.vertex_count,
            bits: self.stream.clone_dtod(&*self.bits).map_err(err())?.into(),
            words: self.words,
            lists: lists.into(),
            ranges,
        })
    }

    /// Makes C(u) of these sets `list` for each `(u, list)` of `cut`: a sorted sublist of
    /// the whole C(u) of the sets these were copied from ([`DeviceCandidates::for_shares`]),
    /// which lay at `rooms[u]`, uploaded with its bitset into that room.
    ///
    /// # Errors
    /// The device cannot take the copies.
    ///
    /// # Panics
    /// If a list is longer than its room.
    pub fn cut_to(&mut self, cut: &[(usize, Vec<u32>)], rooms: &[Range<usize>]) -> Result<()> {
        let err = || driver("uploading a share's candidate sets");
        let mut words = vec![0u32; self.words * cut.len()];
        for ((u, list), words) in cut.iter().zip(words.chunks_mut(self.words)) {
            let room = rooms[*u].clone();
            assert!(list.len() <= room.len(), "a share's C(u) is part of C(u)");
            for &v in list {
                words[v as usize / 32] |= 1 << (v % 32);
            }
            let at = room.start..room.start + list.len();
            if !at.is_empty() {
                self.stream
                    .memcpy_htod(list, &mut self.lists.slice_mut(at.clone()))
                    .map_err(err())?;
            }
            let set = u * self.words..(u + 1) * self.words;
            self.stream
                .memcpy_htod(words, &mut self.bits.slice_mut(set))
                .map_err(err())?;
            self.ranges[*u] = at;
        }
        // The host's lists and words must outlive their copies.
        self.stream.synchronize().map_err(err())
    }

    /// Uploads one query vertex's candidates split by class (`classes`, each a sorted
    /// sublist of C(u)): the lists one after another and a bitset each, so that a share's
    /// cut of C(u) is two copies on the device ([`DeviceCandidates::cut_to_class`]).
    ///
    /// # Errors
    /// The device cannot hold or take the copy.
    pub fn upload_classes(&self, classes: &[Vec<u32>]) -> Result<ClassSets> {
        let err = || driver("uploading a cut vertex's classes");
        let words = self.words;
        let mut bits = vec![0u32; words * classes.len()];
        bits.par_chunks_mut(words)
            .zip(classes.par_iter())
            .for_each(|(out, list)| {
                for &v in list {
                    out[v as usize / 32] |= 1 << (v % 32);
                }
            });
        let total: usize = classes.iter().map(Vec::len).sum();
        let mut lists = self
            .stream
            .alloc_zeros::<u32>(total.max(1))
            .map_err(err())?;
        let mut ranges = Vec::with_capacity(classes.len());
        let mut end = 0;
        for list in classes {
            let at = end..end + list.len();
            if !at.is_empty() {
                self.stream
                    .memcpy_htod(list, &mut lists.slice_mut(at.clone()))
                    .map_err(err())?;
            }
            end = at.end;
            ranges.push(at);
        }
        let bits = self.stream.clone_htod(&bits).map_err(err())?;
        // The host's lists and words must outlive their copies.
        self.stream.synchronize().map_err(err())?;
        Ok(ClassSets {
            lists: lists.into(),
            ranges,
            bits: bits.into(),
        })
    }

    /// Makes C(u) of these sets class `class` of `classes`, copied on the device into its
    /// room `room` (as [`DeviceCandidates::cut_to`] uploads a cut list).
    ///
    /// # Errors
    /// The device cannot take the copies.
    ///
    /// # Panics
    /// If the class is longer than the room.
    pub fn cut_to_class(
        &mut self,
        u: usize,
        room: Range<usize>,
        classes: &ClassSets,
        class: usize,
    ) -> Result<()> {
        let err = || driver("copying a share's candidate sets");
        let list = classes.ranges[class].clone();
        assert!(list.len() <= room.len(), "a share's C(u) is part of C(u)");
        let at = room.start..room.start + list.len();
        if !at.is_empty() {
            self.stream
                .memcpy_dtod(
                    &classes.lists.slice(list),
                    &mut self.lists.slice_mut(at.clone()),
                )
                .map_err(err())?;
        }
        let words = self.words;
        self.stream
            .memcpy_dtod(
                &classes.bits.slice(class * words..(class + 1) * words),
                &mut self.bits.slice_mut(u * words..(u + 1) * words),
            )
            .map_err(err())?;
        self.ranges[u] = at;
        Ok(())
    }

    /// Each class of `classes` (split from these sets) copied to the host: its list, and
    /// the vertices its bitset holds, in order (a check of the split for tests).
    ///
    /// # Errors
    /// The copies from the device fail.
    pub fn download_classes(&self, classes: &ClassSets) -> Result<Vec<(Vec<u32>, Vec<u32>)>> {
        let err = driver("reading a cut vertex's classes");
        let total = classes.ranges.iter().map(|r| r.end).max().unwrap_or(0);
        let lists = match total {
            0 => Vec::new(),
            _ => self
                .stream
                .clone_dtoh(&classes.lists.slice(0..total))
                .map_err(err)?,
        };
        let bits = self
            .stream
            .clone_dtoh(&classes.bits)
            .map_err(driver("reading a cut vertex's class bitsets"))?;
        Ok(classes
            .ranges
            .iter()
            .zip(bits.chunks(self.words))
            .map(|(range, words)| {
                let held = words
                    .iter()
                    .enumerate()
                    .flat_map(|(w, &word)| {
                        (0..32)
                            .filter(move |b| word >> b & 1 == 1)
                            .map(move |b| 32 * w as u32 + b)
                    })
                    .collect();
                (lists[range.clone()].to_vec(), held)
            })
            .collect())
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
        let total = self.ranges.iter().map(|r| r.end).max().unwrap_or(0);
        let all = if total == 0 {
            Vec::new()
        } else {
            self.stream
                .clone_dtoh(&self.lists.slice(0..total))
                .map_err(driver("reading candidate lists"))?
        };
        let lists = self
            .ranges
            .iter()
            .map(|r| all[r.clone()].to_vec())
            .collect();
        Ok(CandidateSets::from_lists(lists, self.vertex_count))
    }

    /// |C(u)| per query vertex.
    pub fn sizes(&self) -> Vec<usize> {
        self.ranges.iter().map(Range::len).collect()
    }

    /// Where C(u) lies in `lists`.
    pub fn range(&self, u: usize) -> Range<usize> {
        self.ranges[u].clone()
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
