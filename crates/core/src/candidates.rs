//! Candidate sets C(u), the output of the filtering phase (Sec. 3.2): for each query vertex a
//! sorted list (to start the join and to size buffers) and a bitset over the data vertices (so
//! that the join tests membership in one read, Sec. 5 "GPU-friendly Set Operation").

use fixedbitset::FixedBitSet;
use gsi_graph::VertexId;

/// C(u) for every query vertex u.
#[derive(Clone, Debug)]
pub struct CandidateSets {
    lists: Vec<Vec<VertexId>>,
    bits: Vec<FixedBitSet>,
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

    /// Whether `v` is in C(u).
    pub fn contains(&self, u: usize, v: VertexId) -> bool {
        self.bits[u].contains(v as usize)
    }

    /// |C(u)| for every u.
    pub fn sizes(&self) -> Vec<usize> {
        self.lists.iter().map(Vec::len).collect()
    }

    /// Whether some C(u) is empty, so that the query has no match.
    pub fn any_empty(&self) -> bool {
        self.lists.iter().any(Vec::is_empty)
    }
}
