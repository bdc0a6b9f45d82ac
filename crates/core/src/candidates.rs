//! Candidate sets C(u), the output of the filtering phase (Sec. 3.2): for each query vertex a
//! sorted list (to start the join and to size buffers) and a bitset over the data vertices (so
//! that the join tests membership in one read, Sec. 5 "GPU-friendly Set Operation").
//!
//! These are the sets in host memory; [`crate::Candidates`] says where a filter left them,
//! and the GPU engine moves them to and from its device (`cuda/candidates.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use fixedbitset::FixedBitSet;
use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;

/// A candidate set holding at least this share of the data vertices hardly prunes: candidate
/// edges into it would be nearly whole neighbour lists, read through one more indirection (an
/// unlabelled graph's, measured on a 1 M-vertex scale-free graph: twice the time).
const UNPRUNED_SHARE: f64 = 0.5;

/// Fewest candidates, over every list, whose bitsets are worth making in parallel.
const PARALLEL_MIN_VERTICES: usize = 1 << 16;

/// C(u) for every query vertex u, in host memory. Query vertices whose sets are equal may
/// share one list and one bitset (an unlabelled pattern's sets of millions of vertices each):
/// a change to one set copies it first.
#[derive(Clone, Debug)]
pub struct CandidateSets {
    lists: Vec<Arc<Vec<VertexId>>>,
    bits: Vec<Arc<FixedBitSet>>,
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
        CandidateSets::from_shared(lists.into_iter().map(Arc::new).collect(), data_vertex_count)
    }

    /// As [`CandidateSets::from_lists`], where query vertices given the same list (one `Arc`)
    /// share it and its bitset, made once.
    pub(crate) fn from_shared(
        lists: Vec<Arc<Vec<VertexId>>>,
        data_vertex_count: usize,
    ) -> CandidateSets {
        let holder = holders(&lists);
        let make =
            |u: usize| (holder[u] == u).then(|| Arc::new(bitset(&lists[u], data_vertex_count)));
        // In parallel where the lists are long: a list of millions of vertices makes a bitset
        // of megabytes.
        let made: Vec<Option<Arc<FixedBitSet>>> =
            if lists.iter().map(|list| list.len()).sum::<usize>() < PARALLEL_MIN_VERTICES {
                (0..lists.len()).map(make).collect()
            } else {
                (0..lists.len()).into_par_iter().map(make).collect()
            };
        let bits = holder
            .iter()
            .map(|&w| made[w].clone().expect("made for each list's first holder"))
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
        let bits = Arc::make_mut(&mut self.bits[u]);
        Arc::make_mut(&mut self.lists[u]).retain(|&v| {
            let kept = keep(v);
            if !kept {
                bits.set(v as usize, false);
            }
            kept
        });
    }

    /// For each query vertex, the first that shares its list (itself where none before it
    /// does).
    pub(crate) fn holders(&self) -> Vec<usize> {
        holders(&self.lists)
    }

    /// Whether C(u) and C(w) share a data vertex.
    pub(crate) fn meet(&self, u: usize, w: usize) -> bool {
        !self.bits[u].is_disjoint(&self.bits[w])
    }

    /// The sets of a query whose vertex `b` stands for the query vertices `blocks[b]` (a
    /// quotient's, [`crate::quotients`]): the data vertices in the sets of every one of them,
    /// a block of one keeping its vertex's set as it is. `None` where some block's members
    /// share no data vertex.
    pub(crate) fn merged(&self, blocks: &[Vec<usize>]) -> Option<CandidateSets> {
        let mut merged = CandidateSets {
            lists: Vec::with_capacity(blocks.len()),
            bits: Vec::with_capacity(blocks.len()),
        };
        for members in blocks {
            let (&first, rest) = members.split_first().expect("a vertex at least");
            let (list, bits) = match rest {
                [] => (self.lists[first].clone(), self.bits[first].clone()),
                _ => {
                    let mut common = (*self.bits[first]).clone();
                    for &u in rest {
                        common.intersect_with(&self.bits[u]);
                    }
                    let list = common.ones().map(|v| v as VertexId).collect();
                    (Arc::new(list), Arc::new(common))
                }
            };
            if list.is_empty() {
                return None;
            }
            merged.lists.push(list);
            merged.bits.push(bits);
        }
        Some(merged)
    }

    /// Replaces C(u) by `kept`, a sorted sublist of it.
    pub(crate) fn keep(&mut self, u: usize, kept: Vec<VertexId>) {
        self.bits[u] = Arc::new(bitset(&kept, self.bits[u].len()));
        self.lists[u] = Arc::new(kept);
    }

    /// The sets of `vertices`, in that order (those of a query made of them).
    pub(crate) fn select(&self, vertices: &[usize]) -> CandidateSets {
        CandidateSets {
            lists: vertices.iter().map(|&u| self.lists[u].clone()).collect(),
            bits: vertices.iter().map(|&u| self.bits[u].clone()).collect(),
        }
    }

    /// |C(u)| for every u.
    pub fn sizes(&self) -> Vec<usize> {
        self.lists.iter().map(|list| list.len()).collect()
    }

    /// C(u) as a sorted list, for every u in turn.
    pub fn lists(&self) -> impl ExactSizeIterator<Item = &[VertexId]> {
        self.lists.iter().map(|list| list.as_slice())
    }

    /// Data vertices the bitsets cover.
    pub fn vertex_count(&self) -> usize {
        self.bits.first().map_or(0, |bits| bits.len())
    }
}

/// For each of `lists`, the first that is the same list (one `Arc`): by a table, not by
/// comparing pairs, for a query of tens of thousands of vertices.
fn holders(lists: &[Arc<Vec<VertexId>>]) -> Vec<usize> {
    let mut first_of = HashMap::new();
    (0..lists.len())
        .map(|u| *first_of.entry(Arc::as_ptr(&lists[u])).or_insert(u))
        .collect()
}

/// The bitset over `vertex_count` vertices of `list`'s vertices.
fn bitset(list: &[VertexId], vertex_count: usize) -> FixedBitSet {
    let mut set = FixedBitSet::with_capacity(vertex_count);
    if list.len() < PARALLEL_MIN_VERTICES {
        for &v in list {
            set.insert(v as usize);
        }
        return set;
    }
    // A long list is set in parallel, each run of blocks from its part of the sorted list.
    const RUN_BLOCKS: usize = 1 << 12;
    let bits = usize::BITS as usize;
    set.as_mut_slice()
        .par_chunks_mut(RUN_BLOCKS)
        .enumerate()
        .for_each(|(run, blocks)| {
            let first = run * RUN_BLOCKS * bits;
            let end = first + blocks.len() * bits;
            let from = list.partition_point(|&v| (v as usize) < first);
            for &v in list[from..].iter().take_while(|&&v| (v as usize) < end) {
                let at = v as usize - first;
                blocks[at / bits] |= 1 << (at % bits);
            }
        });
    set
}

/// The candidate edges from C(w) into C(u) by one edge of the query: for the candidate at
/// position p of C(w), the positions in C(u) of its neighbours there, ascending (the
/// auxiliary structure of CECI, DP-iso and RapidMatch). A vertex then reaches its few
/// neighbours that are candidates instead of reading its whole list and testing each.
pub(crate) struct CandidateEdgeLists {
    offsets: Vec<usize>,
    positions: Vec<u32>,
}

impl CandidateEdgeLists {
    /// From C(`w`) into C(`u`) in `sets`: the neighbours of each candidate of w by `label`
    /// in `direction`.
    pub(crate) fn between(
        graph: &Graph,
        sets: &CandidateSets,
        (w, u): (usize, usize),
        label: EdgeLabel,
        direction: Direction,
    ) -> CandidateEdgeLists {
        let ranks = sets.ranks(u);
        let theirs = sets.list(w);
        let mut offsets = Vec::with_capacity(theirs.len() + 1);
        let mut positions = Vec::new();
        offsets.push(0);
        for &v in theirs {
            for &x in graph.neighbors(v, label, direction) {
                if sets.contains(u, x) {
                    positions.push(ranks.position(x));
                }
            }
            offsets.push(positions.len());
        }
        CandidateEdgeLists { offsets, positions }
    }

    /// A bound on the bytes of [`CandidateEdgeLists::between`] from C(`w`) in `direction`: its
    /// candidates' degrees.
    pub(crate) fn bytes_bound(
        graph: &Graph,
        sets: &CandidateSets,
        w: usize,
        direction: Direction,
    ) -> usize {
        let entries: usize = sets
            .list(w)
            .iter()
            .map(|&v| graph.degree(v, direction) + 2)
            .sum();
        4 * entries
    }

    /// Whether candidate edges into C(`u`) read fewer entries than whole lists: whether it
    /// holds less than [`UNPRUNED_SHARE`] of the data vertices.
    pub(crate) fn worth_reading(graph: &Graph, sets: &CandidateSets, u: usize) -> bool {
        (sets.list(u).len() as f64) < graph.vertex_count() as f64 * UNPRUNED_SHARE
    }

    /// The positions in C(u) of the neighbours of the candidate at position `p` of C(w).
    pub(crate) fn of(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.positions[self.offsets[p]..self.offsets[p + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_sets_the_bits_of_its_vertices_alone() {
        // Long enough to be set in parallel, over several runs of blocks, with gaps.
        let n = 3 * (1 << 12) * usize::BITS as usize + 77;
        let list: Vec<VertexId> = (0..n as VertexId)
            .filter(|v| v % 7 == 0 || v % 11 == 3)
            .collect();
        assert!(list.len() >= PARALLEL_MIN_VERTICES);
        let set = bitset(&list, n);
        let expected: Vec<usize> = list.iter().map(|&v| v as usize).collect();
        assert_eq!(set.ones().collect::<Vec<_>>(), expected);
        assert_eq!(set.len(), n);
    }

    #[test]
    fn a_shared_set_is_copied_before_it_changes() {
        let list = Arc::new(vec![1, 4, 7, 9]);
        let mut sets =
            CandidateSets::from_shared(vec![Arc::clone(&list), list, Arc::new(vec![2])], 10);
        sets.retain(0, |v| v > 4);
        assert_eq!(sets.list(0), &[7, 9]);
        assert_eq!(sets.list(1), &[1, 4, 7, 9]);
        assert!(!sets.contains(0, 4) && sets.contains(1, 4));
        sets.keep(1, vec![9]);
        assert_eq!((sets.list(0), sets.list(1)), (&[7, 9][..], &[9][..]));
        assert!(sets.contains(0, 7) && !sets.contains(1, 7));
        assert!(sets.contains(2, 2) && !sets.contains(2, 7));
    }

    #[test]
    fn a_merged_vertex_keeps_what_its_members_share() {
        let sets = CandidateSets::from_lists(vec![vec![1, 3, 5, 8], vec![3, 4, 8], vec![2]], 10);
        let merged = sets.merged(&[vec![0, 1], vec![2]]).unwrap();
        assert_eq!(merged.list(0), &[3, 8]);
        assert!(merged.contains(0, 8) && !merged.contains(0, 1) && !merged.contains(0, 4));
        assert_eq!(merged.list(1), &[2]);
        assert_eq!(merged.vertex_count(), 10);
        assert!(sets.merged(&[vec![0], vec![1, 2]]).is_none());
    }

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
