//! Candidate sets C(u), the output of the filtering phase (Sec. 3.2): for each query vertex a
//! sorted list (to start the join and to size buffers) and a bitset over the data vertices (so
//! that the join tests membership in one read, Sec. 5 "GPU-friendly Set Operation").
//!
//! These are the sets in host memory; [`crate::Candidates`] says where a filter left them,
//! and the GPU engine moves them to and from its device (`cuda/candidates.rs`).

use fixedbitset::FixedBitSet;
use gsi_graph::VertexId;

/// C(u) for every query vertex u, in host memory.
#[derive(Clone, Debug)]
pub struct CandidateSets {
    lists: Vec<Vec<VertexId>>,
    bits: Vec<FixedBitSet>,
}

/// C(u)'s bitset with a count per block: the position of a candidate in the sorted C(u).
pub(crate) struct Ranks<'a> {
    blocks: &'a [usize],
    before: Vec<u32>,
}

impl Ranks<'_> {
    /// The position in C(u) of `v`, which must be in it.
    pub(crate) fn position(&self, v: VertexId) -> u32 {
        let (block, bit) = (v as usize / usize::BITS as usize, v % usize::BITS);
        self.before[block] + (self.blocks[block] & ((1usize << bit) - 1)).count_ones()
    }
}

impl CandidateSets {
    /// Builds the sets from one sorted list per query vertex over `data_vertex_count` vertices.
    pub fn from_lists(lists: Vec<Vec<VertexId>>, data_vertex_count: usize) -> CandidateSets {
        let bits = lists
            .iter()
            .map(|list| {
                let mut set = FixedBitSet::with_capacity(data_vertex_count);
                for &v in list {
                    set.insert(v as usize);
                }
                set
            })
            .collect();
        CandidateSets { lists, bits }
    }

    /// C(u) as a sorted list.
    pub fn list(&self, u: usize) -> &[VertexId] {
        &self.lists[u]
    }

    /// C(u)'s bitset, as blocks of `usize::BITS` data vertices (bit i of block b is vertex
    /// b · `usize::BITS` + i).
    pub(crate) fn blocks(&self, u: usize) -> &[usize] {
        self.bits[u].as_slice()
    }

    /// Whether `v` is in C(u).
    pub fn contains(&self, u: usize, v: VertexId) -> bool {
        self.bits[u].contains(v as usize)
    }

    /// Positions in C(u) found in constant time: the candidates before each block of C(u)'s
    /// bitset.
    pub(crate) fn ranks(&self, u: usize) -> Ranks<'_> {
        let blocks = self.bits[u].as_slice();
        let mut before = Vec::with_capacity(blocks.len());
        let mut count = 0;
        for block in blocks {
            before.push(count);
            count += block.count_ones();
        }
        Ranks { blocks, before }
    }

    /// Keeps in C(u) only the vertices for which `keep` holds.
    pub fn retain(&mut self, u: usize, keep: impl Fn(VertexId) -> bool) {
        let bits = &mut self.bits[u];
        self.lists[u].retain(|&v| {
            let kept = keep(v);
            if !kept {
                bits.set(v as usize, false);
            }
            kept
        });
    }

    /// Replaces C(u) by `kept`, a sorted sublist of it.
    pub(crate) fn keep(&mut self, u: usize, kept: Vec<VertexId>) {
        let bits = &mut self.bits[u];
        bits.clear();
        for &v in &kept {
            bits.insert(v as usize);
        }
        self.lists[u] = kept;
    }

    /// |C(u)| for every u.
    pub fn sizes(&self) -> Vec<usize> {
        self.lists.iter().map(Vec::len).collect()
    }

    /// C(u) as a sorted list, for every u in turn.
    pub fn lists(&self) -> impl ExactSizeIterator<Item = &[VertexId]> {
        self.lists.iter().map(Vec::as_slice)
    }

    /// Data vertices the bitsets cover.
    pub fn vertex_count(&self) -> usize {
        self.bits.first().map_or(0, FixedBitSet::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_give_each_candidate_its_position() {
        let lists = vec![
            vec![0, 1, 2, 63, 64, 65, 127, 128, 300, 511],
            vec![5],
            (0..512).step_by(3).collect(),
        ];
        let sets = CandidateSets::from_lists(lists.clone(), 512);
        for (u, list) in lists.iter().enumerate() {
            let ranks = sets.ranks(u);
            for (i, &v) in list.iter().enumerate() {
                assert_eq!(ranks.position(v), i as u32, "C({u}) at {v}");
            }
        }
    }
}
