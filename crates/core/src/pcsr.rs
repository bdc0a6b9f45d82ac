//! PCSR, the partitioned CSR of GSI, ICDE 2020, Sec. 4 (Definition 4, Algorithm 1, Claim 1).
//!
//! The data graph is split by edge label (and, for a directed graph, by direction); each
//! partition D keeps only its column index `ci` and replaces CSR's row offsets with |V(D)|
//! hash groups. A group is GPN = 16 pairs of u32 — 128 bytes, one memory transaction for a
//! warp. Pairs 0..14 are `(vertex, offset of its neighbours in ci)`; pair 15 is `(GID, END)`:
//! the group that holds this group's overflow (or [`NO_GROUP`]) and the end in `ci` of the
//! last vertex's neighbours. A vertex's neighbours end where the next pair's begin, or at END
//! after the last pair. Vertices are hashed one-to-one (|V(D)| keys into |V(D)| groups); a group
//! with more than GPN - 1 keys continues in groups that got no key, of which Claim 1 shows
//! there are always enough.

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;

/// Pairs per group (the paper's GPN).
pub const GPN: usize = 16;
/// Vertex keys per group: the last pair is the (GID, END) flag.
pub const KEYS_PER_GROUP: usize = GPN - 1;
/// u32 words per group.
pub const GROUP_WORDS: usize = 2 * GPN;
/// Marks an unused vertex slot.
pub const EMPTY_SLOT: u32 = u32::MAX;
/// Marks "no overflow group" in the GID slot.
pub const NO_GROUP: u32 = u32::MAX;

/// The hash f of Algorithm 1: vertex id to group, uniform over `group_count` groups.
///
/// The GPU kernels compute the same function (`pcsr_group` in `prelude.cuh`).
pub fn group_of(v: VertexId, group_count: u32) -> u32 {
    // murmur3's 32-bit finaliser: a bijection on u32 that spreads consecutive ids.
    let mut h = v;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^= h >> 16;
    h % group_count
}

/// PCSR of one edge-label partition.
#[derive(Clone, Debug, Default)]
pub struct Pcsr {
    /// `group_count * GROUP_WORDS` words; see the module docs for the layout.
    groups: Vec<u32>,
    /// The neighbour lists, laid out group by group (Algorithm 1, lines 9-13).
    column_index: Vec<VertexId>,
    /// The longest neighbour list: bounds a row's buffer when this partition is a first edge.
    max_degree: usize,
}

impl Pcsr {
    /// Builds the PCSR of a partition from `(vertex, sorted neighbours)` rows, vertices distinct.
    ///
    /// # Panics
    /// If the partition has `u32::MAX` or more neighbour entries (offsets are 32-bit);
    /// [`crate::DataIndex::build`] rejects such graphs first.
    pub fn build(rows: &[(VertexId, &[VertexId])]) -> Pcsr {
        let n = rows.len();
        if n == 0 {
            return Pcsr::default();
        }
        let group_count = n as u32;
        // Lines 3-4: hash every vertex to a group; a counting sort lists each group's rows
        // (in row order) in one flat array, `members[first[g]..first[g + 1]]`.
        let hashes: Vec<u32> = rows
            .iter()
            .map(|&(v, _)| group_of(v, group_count))
            .collect();
        let mut first = vec![0usize; n + 1];
        for &h in &hashes {
            first[h as usize + 1] += 1;
        }
        for g in 0..n {
            first[g + 1] += first[g];
        }
        let mut members = vec![0usize; n];
        let mut cursor = first.clone();
        for (i, &h) in hashes.iter().enumerate() {
            members[cursor[h as usize]] = i;
            cursor[h as usize] += 1;
        }
        // Lines 5-8: a group keeps its first GPN - 1 rows; the rest continue in groups that got
        // none, linked through GID. `slots[g]` is the run of `members` that group g holds.
        let mut empty = (0..n).filter(|&g| first[g] == first[g + 1]);
        let mut slots = vec![(0usize, 0usize); n];
        let mut next_group = vec![NO_GROUP; n];
        for g in 0..n {
            let (start, end) = (first[g], first[g + 1]);
            if start == end {
                continue;
            }
            slots[g] = (start, end.min(start + KEYS_PER_GROUP));
            let mut tail = g;
            let mut from = start + KEYS_PER_GROUP;
            while from < end {
                let fresh = empty.next().expect("Claim 1: enough empty groups");
                slots[fresh] = (from, end.min(from + KEYS_PER_GROUP));
                next_group[tail] = fresh as u32;
                tail = fresh;
                from += KEYS_PER_GROUP;
            }
        }
        // Lines 9-13: lay the neighbour lists out group by group and record offsets and END.
        let total: usize = rows.iter().map(|(_, nb)| nb.len()).sum();
        assert!(total < u32::MAX as usize, "PCSR offsets are 32-bit");
        let mut groups = vec![EMPTY_SLOT; n * GROUP_WORDS];
        let mut column_index = Vec::with_capacity(total);
        for g in 0..n {
            let group = &mut groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
            let (start, end) = slots[g];
            for (slot, &i) in members[start..end].iter().enumerate() {
                let (v, neighbors) = rows[i];
                group[2 * slot] = v;
                group[2 * slot + 1] = column_index.len() as u32;
                column_index.extend_from_slice(neighbors);
            }
            group[GROUP_WORDS - 2] = next_group[g];
            group[GROUP_WORDS - 1] = column_index.len() as u32;
        }
        Pcsr {
            groups,
            column_index,
            max_degree: rows.iter().map(|(_, nb)| nb.len()).max().unwrap_or(0),
        }
    }

    /// The longest neighbour list.
    pub fn max_degree(&self) -> usize {
        self.max_degree
    }

    /// Number of groups, |V(D)|.
    pub fn group_count(&self) -> usize {
        self.groups.len() / GROUP_WORDS
    }

    /// The groups, `GROUP_WORDS` u32 each.
    pub fn groups(&self) -> &[u32] {
        &self.groups
    }

    /// The column index `ci`.
    pub fn column_index(&self) -> &[VertexId] {
        &self.column_index
    }

    /// N(v, l) for this partition's label: follows the group chain from `v`'s hash group.
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        let group_count = self.group_count() as u32;
        if group_count == 0 {
            return &[];
        }
        let mut g = group_of(v, group_count) as usize;
        loop {
            let group = &self.groups[g * GROUP_WORDS..(g + 1) * GROUP_WORDS];
            for slot in 0..KEYS_PER_GROUP {
                let key = group[2 * slot];
                if key == v {
                    let start = group[2 * slot + 1] as usize;
                    let next = slot + 1;
                    let end = if next < KEYS_PER_GROUP && group[2 * next] != EMPTY_SLOT {
                        group[2 * next + 1]
                    } else {
                        group[GROUP_WORDS - 1]
                    } as usize;
                    return &self.column_index[start..end];
                }
                if key == EMPTY_SLOT {
                    return &[];
                }
            }
            match group[GROUP_WORDS - 2] {
                NO_GROUP => return &[],
                next => g = next as usize,
            }
        }
    }

    /// Length of the longest chain of groups a lookup may follow.
    pub fn longest_chain(&self) -> usize {
        let n = self.group_count();
        let mut is_overflow = vec![false; n];
        for g in 0..n {
            let next = self.groups[g * GROUP_WORDS + GROUP_WORDS - 2];
            if next != NO_GROUP {
                is_overflow[next as usize] = true;
            }
        }
        (0..n)
            .filter(|&g| !is_overflow[g])
            .map(|mut g| {
                let mut len = 1;
                while self.groups[g * GROUP_WORDS + GROUP_WORDS - 2] != NO_GROUP {
                    g = self.groups[g * GROUP_WORDS + GROUP_WORDS - 2] as usize;
                    len += 1;
                }
                len
            })
            .max()
            .unwrap_or(0)
    }

    /// Bytes held.
    pub fn size_bytes(&self) -> usize {
        4 * (self.groups.len() + self.column_index.len())
    }
}

/// Which partition: an edge label and, in a directed graph, the direction read.
pub type PartitionKey = (EdgeLabel, Direction);

/// The PCSR of every partition of a data graph.
#[derive(Clone, Debug, Default)]
pub struct PcsrSet {
    directed: bool,
    /// Sorted keys; `partitions[i]` belongs to `keys[i]`.
    keys: Vec<PartitionKey>,
    partitions: Vec<Pcsr>,
}

impl PcsrSet {
    /// Partitions `graph` by edge label (and direction) and builds each PCSR, in parallel.
    pub fn build(graph: &Graph) -> PcsrSet {
        // One pass over every adjacency list collects the runs of equal labels.
        let mut runs: Vec<(PartitionKey, VertexId, &[VertexId])> = Vec::new();
        for &direction in graph.directions() {
            for v in 0..graph.vertex_count() as VertexId {
                let (neighbors, labels) = graph.edges(v, direction);
                let mut start = 0;
                while start < labels.len() {
                    let l = labels[start];
                    let end = start + labels[start..].partition_point(|&x| x == l);
                    runs.push(((l, direction), v, &neighbors[start..end]));
                    start = end;
                }
            }
        }
        runs.par_sort_by_key(|&(key, v, _)| (key, v));
        let mut bounds = vec![0];
        bounds.extend((1..runs.len()).filter(|&i| runs[i].0 != runs[i - 1].0));
        bounds.push(runs.len());
        let built: Vec<(PartitionKey, Pcsr)> = bounds
            .par_windows(2)
            .filter(|w| w[0] < w[1])
            .map(|w| {
                let part = &runs[w[0]..w[1]];
                let rows: Vec<(VertexId, &[VertexId])> =
                    part.iter().map(|&(_, v, nb)| (v, nb)).collect();
                (part[0].0, Pcsr::build(&rows))
            })
            .collect();
        let (keys, partitions) = built.into_iter().unzip();
        PcsrSet {
            directed: graph.is_directed(),
            keys,
            partitions,
        }
    }

    /// Index of the partition of `label` read in `direction`, if any edge has that label.
    pub fn partition_index(&self, label: EdgeLabel, direction: Direction) -> Option<usize> {
        let key = (label, direction.stored(self.directed));
        self.keys.binary_search(&key).ok()
    }

    /// The partitions with their keys.
    pub fn partitions(&self) -> impl Iterator<Item = (PartitionKey, &Pcsr)> {
        self.keys.iter().copied().zip(&self.partitions)
    }

    /// The partition at `index` (from [`PcsrSet::partition_index`]).
    pub fn partition(&self, index: usize) -> &Pcsr {
        &self.partitions[index]
    }

    /// N(v, l) in `direction`.
    pub fn neighbors(&self, v: VertexId, label: EdgeLabel, direction: Direction) -> &[VertexId] {
        match self.partition_index(label, direction) {
            Some(i) => self.partitions[i].neighbors(v),
            None => &[],
        }
    }

    /// Bytes held by all partitions.
    pub fn size_bytes(&self) -> usize {
        self.partitions.iter().map(Pcsr::size_bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;
    use proptest::prelude::*;

    use super::*;

    fn assert_matches_csr(graph: &Graph) {
        let set = PcsrSet::build(graph);
        let labels = graph.edge_labels();
        for v in 0..graph.vertex_count() as VertexId {
            for &l in labels.iter().chain(&[u32::MAX - 1]) {
                for d in [Direction::Out, Direction::In] {
                    assert_eq!(
                        set.neighbors(v, l, d),
                        graph.neighbors(v, l, d),
                        "v={v} l={l} {d:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn overflow_chains_hold_every_vertex() {
        // Among 100 000 ids, take 64 that hash to group 0 of 64 groups, and make a star of
        // them: the partition has 65 vertices and most land in one group, forcing a long chain.
        let n = 100_000u32;
        let colliding: Vec<u32> = (1..n).filter(|&v| group_of(v, 65) == 0).take(64).collect();
        assert_eq!(colliding.len(), 64);
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for &v in &colliding {
            b.add_edge(0, v, 3).unwrap();
        }
        let g = b.build().unwrap();
        let set = PcsrSet::build(&g);
        let part = set.partition(set.partition_index(3, Direction::Out).unwrap());
        assert!(part.longest_chain() >= 5, "chain {}", part.longest_chain());
        assert_matches_csr(&g);
    }

    #[test]
    fn empty_graph_has_no_partitions() {
        let g = GraphBuilder::new(false).build().unwrap();
        assert_eq!(PcsrSet::build(&g).partitions().count(), 0);
        assert!(PcsrSet::build(&g)
            .neighbors(0, 0, Direction::Out)
            .is_empty());
    }

    proptest! {
        #[test]
        fn pcsr_agrees_with_csr(
            n in 1usize..60,
            directed: bool,
            edges in proptest::collection::vec((0u32..60, 0u32..60, 0u32..4), 0..200),
        ) {
            let mut b = GraphBuilder::with_vertices(directed, vec![0; n]);
            let mut seen = std::collections::HashSet::new();
            for (s, t, l) in edges {
                let (s, t) = (s % n as u32, t % n as u32);
                let key = if directed { (s, t, l) } else { (s.min(t), s.max(t), l) };
                if s != t && seen.insert(key) {
                    b.add_edge(s, t, l).unwrap();
                }
            }
            assert_matches_csr(&b.build().unwrap());
        }
    }
}
