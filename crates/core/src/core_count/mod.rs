//! Counting the homomorphisms of a query with cycles without enumerating the trees that hang
//! from them: the query's 2-core (what is left once its leaves are peeled off, again and
//! again) is joined, and each of the core's matches counts the homomorphisms of the trees
//! hanging from its vertices, found beforehand by the trees' dynamic program
//! ([`crate::tree_count`]):
//!
//! hom(Q) = Σ over the core's homomorphisms φ of Π over core vertices r of f_r(φ(r)),
//!
//! f_r(v) being the homomorphisms of the trees hanging from r that map r to v. A join of the
//! whole query enumerates those trees' matches; on a graph whose hubs have thousands of
//! neighbours of a label, they are most of its rows.
//!
//! Where one core vertex leaves a forest (a cycle, say), the core is counted by a program of
//! its own ([`PinnedCore`]) rather than joined; where one vertex does so in each of the
//! core's blocks (two cycles joined by a path), block by block ([`PinnedBlocks`]).

mod blocks;
mod pinned;

pub(crate) use blocks::PinnedBlocks;
use pinned::PinnedCore;

use gsi_graph::{Graph, GraphBuilder, VertexId};

use crate::candidates::{CandidateSets, Ranks};
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::sink::MatchSink;
use crate::tree_count::{self, TreeEdge};

/// A connected query split into its 2-core and the trees that hang from it.
#[derive(Clone)]
pub(crate) struct CoreAndTrees {
    /// The core as a query of its own: its vertex i is the query's `vertices[i]`.
    pub graph: Graph,
    /// The query vertex of each core vertex.
    pub vertices: Vec<usize>,
    /// The hanging trees' edges, breadth-first from the core, each child after its parent.
    edges: Vec<TreeEdge>,
}

impl CoreAndTrees {
    /// The split of `query`, where it has a cycle (perhaps no tree: all core); `None` for a
    /// tree (no core), a disconnected query, one with a self-loop, or one whose vertices carry
    /// label sets (the core keeps one label a vertex).
    pub(crate) fn of(query: &Graph) -> Option<CoreAndTrees> {
        let n = query.vertex_count();
        if query.has_label_sets() {
            return None;
        }
        let incident = |u: usize| {
            query
                .directions()
                .iter()
                .flat_map(|&d| query.edges(u as VertexId, d).0.iter().copied())
                .collect::<Vec<VertexId>>()
        };
        if (0..n).any(|u| incident(u).contains(&(u as VertexId))) {
            return None;
        }
        // Peel vertices of one incident edge until none is left: what stays is the 2-core
        // (nothing of a tree: its last vertex is left without an edge).
        let mut left: Vec<usize> = (0..n).map(|u| incident(u).len()).collect();
        let mut peeled = vec![false; n];
        let mut queue: Vec<usize> = (0..n).filter(|&u| left[u] == 1).collect();
        while let Some(u) = queue.pop() {
            if peeled[u] || left[u] != 1 {
                continue;
            }
            peeled[u] = true;
            let w = incident(u).into_iter().find(|&w| !peeled[w as usize])? as usize;
            left[u] = 0;
            left[w] -= 1;
            if left[w] == 1 {
                queue.push(w);
            }
        }
        let vertices: Vec<usize> = (0..n).filter(|&u| !peeled[u] && left[u] > 0).collect();
        if vertices.is_empty() {
            return None;
        }
        // The hanging trees, breadth-first from the core.
        let mut in_core = vec![false; n];
        for &u in &vertices {
            in_core[u] = true;
        }
        let mut reached = in_core.clone();
        let mut edges = Vec::with_capacity(n - vertices.len());
        tree_count::grow_trees(query, &vertices, &mut reached, &mut edges);
        if reached.iter().any(|&r| !r) {
            return None;
        }
        Some(CoreAndTrees {
            graph: induced(query, &vertices)?,
            vertices,
            edges,
        })
    }

    /// Whether trees hang from the core.
    pub(crate) fn hangs_trees(&self) -> bool {
        !self.edges.is_empty()
    }

    /// The dynamic program's work over the hanging trees, for the query's candidate sets of
    /// `sizes` (in the units of [`tree_count::work`]): the core's join is weighed apart.
    pub(crate) fn trees_work(&self, sizes: &[usize], data: &DataIndex) -> f64 {
        let hanging: f64 = self.edges.iter().map(|e| sizes[e.child] as f64).sum();
        hanging + tree_count::edges_work(&self.edges, sizes, data)
    }

    /// The sizes of the core's candidate sets, from the query's `sizes`.
    pub(crate) fn core_sizes(&self, sizes: &[usize]) -> Vec<usize> {
        self.vertices.iter().map(|&u| sizes[u]).collect()
    }

    /// The core's candidate sets: the query's, for its core vertices.
    pub(crate) fn core_sets(&self, sets: &CandidateSets) -> CandidateSets {
        sets.select(&self.vertices)
    }

    /// f_r for each core vertex r with trees hanging from it, over the query's candidate sets
    /// `sets`; `None` when `stop` says so.
    pub(crate) fn weights(
        &self,
        sets: &CandidateSets,
        data: &DataIndex,
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Option<Vec<u128>>>> {
        let mut f = tree_count::subtree_values(&self.edges, sets, data, stop)?;
        Some(self.vertices.iter().map(|&u| f[u].take()).collect())
    }
}

/// The subgraph of `graph` on `vertices` (its vertex i is `vertices[i]`), every edge between
/// two of them kept; `None` where the builder refuses it.
fn induced(graph: &Graph, vertices: &[usize]) -> Option<Graph> {
    let mut place = vec![None; graph.vertex_count()];
    for (i, &u) in vertices.iter().enumerate() {
        place[u] = Some(i as VertexId);
    }
    let labels = vertices.iter().map(|&u| graph.vertex_labels()[u]).collect();
    let mut builder = GraphBuilder::with_vertices(graph.is_directed(), labels);
    for &u in vertices {
        let (neighbors, labels) = graph.edges(u as VertexId, gsi_graph::Direction::Out);
        for (&w, &label) in neighbors.iter().zip(labels) {
            if let (Some(a), Some(b)) = (place[u], place[w as usize]) {
                if graph.is_directed() || a < b {
                    builder.add_edge(a, b, label).ok()?;
                }
            }
        }
    }
    builder.build().ok()
}

/// A sink that sums, over the core's matches it takes, the product of the weights of their
/// vertices ([`CoreAndTrees::weights`]), saturated at `u128::MAX`.
pub(crate) struct WeightedSum<'a> {
    /// For each core vertex with weights: its column, its candidates' positions, the weights
    /// in that order.
    weighted: Vec<(usize, Ranks<'a>, Vec<u128>)>,
    sum: u128,
}

impl<'a> WeightedSum<'a> {
    /// A sum of `weights` (one entry per core vertex) over `core_sets`, the core's candidate
    /// sets the weights follow.
    pub(crate) fn new(weights: Vec<Option<Vec<u128>>>, core_sets: &'a CandidateSets) -> Self {
        let weighted = weights
            .into_iter()
            .enumerate()
            .filter_map(|(column, w)| Some((column, core_sets.ranks(column), w?)))
            .collect();
        WeightedSum { weighted, sum: 0 }
    }

    /// The sum.
    ///
    /// # Errors
    /// [`Error::CountBeyond128Bits`] when it does not fit in 128 bits.
    pub(crate) fn total(&self) -> Result<u128> {
        match self.sum {
            u128::MAX => Err(Error::CountBeyond128Bits),
            sum => Ok(sum),
        }
    }
}

impl MatchSink for WeightedSum<'_> {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()> {
        for row in rows.chunks_exact(width.max(1)) {
            let product = self.weighted.iter().fold(1u128, |p, (column, ranks, w)| {
                p.saturating_mul(w[ranks.position(row[*column]) as usize])
            });
            self.sum = self.sum.saturating_add(product);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::CoreAndTrees;

    #[test]
    fn a_triangle_with_a_tail_splits_into_the_triangle_and_the_tail() {
        // A triangle 0-1-2, a path 2-3-4 from it and a leaf 5 on 3.
        let mut builder = GraphBuilder::with_vertices(false, vec![0, 1, 2, 3, 4, 5]);
        for (a, b) in [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (3, 5)] {
            builder.add_edge(a, b, 0).expect("an edge");
        }
        let query = builder.build().expect("a graph");
        let split = CoreAndTrees::of(&query).expect("a core and trees");
        assert_eq!(split.vertices, [0, 1, 2]);
        assert_eq!(split.graph.edge_count(), 3);
        assert_eq!(split.graph.vertex_labels(), [0, 1, 2]);
        let hanging: Vec<(usize, usize)> =
            split.edges.iter().map(|e| (e.parent, e.child)).collect();
        assert_eq!(hanging, [(2, 3), (3, 4), (3, 5)]);
        // A path has no core; a cycle is all core, no tree.
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 3]);
        builder.add_edge(0, 1, 0).expect("an edge");
        builder.add_edge(1, 2, 0).expect("an edge");
        assert!(CoreAndTrees::of(&builder.build().expect("a graph")).is_none());
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 3]);
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            builder.add_edge(a, b, 0).expect("an edge");
        }
        let cycle = CoreAndTrees::of(&builder.build().expect("a graph")).expect("a core");
        assert_eq!(cycle.vertices, [0, 1, 2]);
        assert!(!cycle.hangs_trees());
    }
}
