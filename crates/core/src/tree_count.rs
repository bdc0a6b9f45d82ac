//! Counting a tree-shaped query without enumerating it: homomorphisms by dynamic programming
//! over the data graph (Díaz, Serna and Thilikos' counting over a tree decomposition, whose
//! bags are a tree's edges). Rooted at query vertex 0, each query vertex u gets, for every
//! data vertex v, the number of homomorphisms of u's subtree that map u to v:
//! f_u(v) = [v ∈ C(u)] · Π over u's children c of Σ over w ∈ N(v, l(u, c)) of f_c(w).
//! The count is Σ_v f_root(v), in one pass over the neighbour lists per query edge.
//!
//! Under isomorphism a homomorphism is a match exactly when it is injective; when no two
//! query vertices can map to one data vertex (their labels differ and no data vertex carries
//! two labels) every homomorphism is, and the same count answers.

use gsi_graph::{Direction, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::options::Semantics;

/// Whether the counts of `query` over `data` under `semantics` are the tree's homomorphism
/// counts: a connected query of n vertices and n − 1 edges, under homomorphism, or under
/// isomorphism when its vertices' labels all differ and the data's vertices carry one label
/// each.
pub(crate) fn applies(query: &Graph, data: &DataIndex, semantics: Semantics) -> bool {
    let n = query.vertex_count();
    if n < 2 || query.edge_count() != n - 1 || !connected(query) {
        return false;
    }
    match semantics {
        Semantics::Homomorphism => true,
        Semantics::Isomorphism => {
            let mut labels = query.vertex_labels().to_vec();
            labels.sort_unstable();
            labels.dedup();
            labels.len() == n && !query.has_label_sets() && !data.graph().has_label_sets()
        }
        Semantics::Induced => false,
    }
}

/// Whether every vertex of `query` is reached from vertex 0, edges read both ways.
fn connected(query: &Graph) -> bool {
    tree_order(query).len() + 1 == query.vertex_count()
}

/// An edge of the rooted query tree: `child`'s matches are N(v, label, direction) of its
/// parent's match v.
struct TreeEdge {
    parent: usize,
    child: usize,
    label: gsi_graph::EdgeLabel,
    direction: Direction,
}

/// The query's edges from vertex 0 outwards (breadth-first), each child after its parent;
/// the vertices it reaches are those of the returned edges' children, and vertex 0.
fn tree_order(query: &Graph) -> Vec<TreeEdge> {
    let n = query.vertex_count();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n.saturating_sub(1));
    let mut queue = std::collections::VecDeque::from([0usize]);
    seen[0] = true;
    while let Some(u) = queue.pop_front() {
        for &direction in query.directions() {
            let (neighbors, labels) = query.edges(u as VertexId, direction);
            for (&w, &label) in neighbors.iter().zip(labels) {
                let w = w as usize;
                if !seen[w] {
                    seen[w] = true;
                    queue.push_back(w);
                    order.push(TreeEdge {
                        parent: u,
                        child: w,
                        label,
                        direction,
                    });
                }
            }
        }
    }
    order
}

/// The number of homomorphisms of the tree `query` into the data graph whose vertex u maps
/// into `sets`' C(u), modulo 2^64 as every count of gsi; `None` when `stop` says so between
/// two query vertices.
pub(crate) fn count(
    query: &Graph,
    sets: &CandidateSets,
    data: &DataIndex,
    stop: &dyn Fn() -> bool,
) -> Option<u64> {
    let graph = data.graph();
    let n = graph.vertex_count();
    let edges = tree_order(query);
    // f[u]: per data vertex, u's subtree's homomorphisms there; children first.
    let mut f: Vec<Option<Vec<u64>>> = (0..query.vertex_count()).map(|_| None).collect();
    let start = |u: usize| -> Vec<u64> {
        let mut values = vec![0u64; n];
        for &v in sets.list(u) {
            values[v as usize] = 1;
        }
        values
    };
    for e in edges.iter().rev() {
        if stop() {
            return None;
        }
        let child = f[e.child].take().unwrap_or_else(|| start(e.child));
        let parent = f[e.parent].get_or_insert_with(|| start(e.parent));
        parent.par_iter_mut().enumerate().for_each(|(v, value)| {
            if *value != 0 {
                let sum = graph
                    .neighbors(v as VertexId, e.label, e.direction)
                    .iter()
                    .fold(0u64, |s, &w| s.wrapping_add(child[w as usize]));
                *value = value.wrapping_mul(sum);
            }
        });
    }
    let root = f[0].take().unwrap_or_else(|| start(0));
    Some(
        root.par_iter()
            .fold(|| 0u64, |s, &x| s.wrapping_add(x))
            .reduce(|| 0, u64::wrapping_add),
    )
}
