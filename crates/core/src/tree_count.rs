//! Counting a tree-shaped query without enumerating it: homomorphisms by dynamic programming
//! over the data graph (Díaz, Serna and Thilikos' counting over a tree decomposition, whose
//! bags are a tree's edges). Rooted at query vertex 0, each query vertex u gets, for every
//! candidate v of C(u), the number of homomorphisms of u's subtree that map u to v:
//! f_u(v) = Π over u's children c of Σ over w ∈ N(v, l(u, c)) ∩ C(c) of f_c(w).
//! The count is Σ_v f_root(v), reading for each query edge the neighbour lists of the
//! parent's candidates.
//!
//! Under isomorphism a homomorphism is a match exactly when it is injective; when no two
//! query vertices can map to one data vertex (no data vertex carries two labels, and every two
//! query vertices of one label are adjacent, a data graph having no self-loops) every
//! homomorphism is, and the same count answers.

use gsi_graph::{Direction, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::options::Semantics;
use crate::quotients;

/// Whether the counts of `query` over `data` under `semantics` are the tree's homomorphism
/// counts: a connected query of n vertices and n − 1 edges whose homomorphisms are its
/// matches ([`homomorphisms_are_matches`]).
pub(crate) fn applies(query: &Graph, data: &DataIndex, semantics: Semantics) -> bool {
    let n = query.vertex_count();
    n >= 2
        && query.edge_count() == n - 1
        && connected(query)
        && homomorphisms_are_matches(query, data, semantics)
}

/// Whether every homomorphism of `query` into `data` is a match under `semantics`: under
/// homomorphism, and under isomorphism when the data's vertices and the query's carry one
/// label each and every two query vertices of one label are adjacent (no two query vertices
/// can then share a data vertex: those of two labels cannot, nor, without self-loops, two
/// neighbours).
pub(crate) fn homomorphisms_are_matches(
    query: &Graph,
    data: &DataIndex,
    semantics: Semantics,
) -> bool {
    match semantics {
        Semantics::Homomorphism => true,
        Semantics::Isomorphism => {
            !query.has_label_sets()
                && !data.graph().has_label_sets()
                && quotients::labels_repeat_only_on_neighbours(query)
        }
        Semantics::Induced => false,
    }
}

/// The dynamic program's work over candidate sets of `sizes`, in the units of the planner's
/// estimate of rows: every candidate set read once (from the device, where the filter left
/// them there), then for each edge of the query's spanning forest, the child's candidates
/// written once and the neighbour lists of the parent's read (|C(parent)| times the mean
/// length of a list of the edge's label).
pub fn work(query: &Graph, sizes: &[usize], data: &DataIndex) -> f64 {
    let sets: f64 = sizes.iter().map(|&n| n as f64).sum();
    sets + edges_work(&spanning_forest(query).edges, sizes, data)
}

/// The dynamic program's work along `edges` ([`work`] without the candidate sets' reads).
pub(crate) fn edges_work(edges: &[TreeEdge], sizes: &[usize], data: &DataIndex) -> f64 {
    let graph = data.graph();
    // An undirected edge is in two lists; a directed one in one of each direction.
    let lists_per_edge = if graph.is_directed() { 1.0 } else { 2.0 };
    let vertices = graph.vertex_count().max(1) as f64;
    edges
        .iter()
        .map(|e| {
            let mean_list = lists_per_edge * data.edge_label_count(e.label) as f64 / vertices;
            sizes[e.child] as f64 + sizes[e.parent] as f64 * mean_list
        })
        .sum()
}

/// Whether every vertex of `query` is reached from vertex 0, edges read both ways.
fn connected(query: &Graph) -> bool {
    let forest = spanning_forest(query);
    forest.roots.len() == 1
}

/// An edge of a rooted tree of the query: `child`'s matches are N(v, label, direction) of its
/// parent's match v.
#[derive(Clone)]
pub(crate) struct TreeEdge {
    pub parent: usize,
    pub child: usize,
    pub label: gsi_graph::EdgeLabel,
    pub direction: Direction,
}

/// A spanning forest of the query: one tree per connected component (edges read both ways),
/// rooted at its least vertex.
struct SpanningForest {
    roots: Vec<usize>,
    /// The trees' edges breadth-first from their roots, each child after its parent.
    edges: Vec<TreeEdge>,
}

fn spanning_forest(query: &Graph) -> SpanningForest {
    let n = query.vertex_count();
    let mut seen = vec![false; n];
    let mut forest = SpanningForest {
        roots: Vec::new(),
        edges: Vec::with_capacity(n.saturating_sub(1)),
    };
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        forest.roots.push(root);
        grow_trees(query, &[root], &mut seen, &mut forest.edges);
    }
    forest
}

/// Adds to `edges` the trees of `query` grown breadth-first from `from` (already `seen`) over
/// the vertices not yet `seen`, edges read both ways, each child after its parent; marks the
/// vertices they reach as seen.
pub(crate) fn grow_trees(
    query: &Graph,
    from: &[usize],
    seen: &mut [bool],
    edges: &mut Vec<TreeEdge>,
) {
    let mut queue: std::collections::VecDeque<usize> = from.iter().copied().collect();
    while let Some(u) = queue.pop_front() {
        for &direction in query.directions() {
            let (neighbors, labels) = query.edges(u as VertexId, direction);
            for (&w, &label) in neighbors.iter().zip(labels) {
                let w = w as usize;
                if !seen[w] {
                    seen[w] = true;
                    queue.push_back(w);
                    edges.push(TreeEdge {
                        parent: u,
                        child: w,
                        label,
                        direction,
                    });
                }
            }
        }
    }
}

/// The number of homomorphisms of a spanning forest of `query` into the data graph whose
/// vertex u maps into `sets`' C(u), saturated at `u128::MAX` (a value that says "this many or
/// more"); `None` when `stop` says so between two query edges. For a tree-shaped query it is
/// the query's homomorphism count; for any other it bounds the query's matches under every
/// semantics from above, as each match maps the forest's edges onto data edges.
pub fn forest_homomorphisms(
    query: &Graph,
    sets: &CandidateSets,
    data: &DataIndex,
    stop: &dyn Fn() -> bool,
) -> Option<u128> {
    let forest = spanning_forest(query);
    let mut f = subtree_values(&forest.edges, sets, data, stop)?;
    Some(forest.roots.iter().fold(1u128, |product, &root| {
        let sum = match f[root].take() {
            Some(values) => values
                .par_iter()
                .fold(|| 0u128, |s, &x| s.saturating_add(x))
                .reduce(|| 0, u128::saturating_add),
            None => sets.list(root).len() as u128,
        };
        product.saturating_mul(sum)
    }))
}

/// For each query vertex that is a parent in `edges` (rooted trees, breadth-first from their
/// roots, each child after its parent), its subtree's homomorphisms at each vertex of C(u),
/// in the list's order, saturated at `u128::MAX`: f_u(v) = Π over u's children c of Σ over
/// w ∈ N(v, l(u, c)) ∩ C(c) of f_c(w). `None` for a vertex without children, and in place of
/// all when `stop` says so between two edges.
pub(crate) fn subtree_values(
    edges: &[TreeEdge],
    sets: &CandidateSets,
    data: &DataIndex,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Option<Vec<u128>>>> {
    let graph = data.graph();
    // Only the candidates are kept and walked: a pass over every data vertex for each query
    // edge cost more than the sums themselves on a graph of millions.
    let mut f: Vec<Option<Vec<u128>>> = (0..sets.lists().len()).map(|_| None).collect();
    let start = |u: usize| vec![1u128; sets.list(u).len()];
    for e in edges.iter().rev() {
        if stop() {
            return None;
        }
        let child = f[e.child].take().unwrap_or_else(|| start(e.child));
        // A neighbour's value found by its place in C(child) (an array over every data
        // vertex, zeroed for each edge, cost more than the sums on a graph of millions).
        let ranks = sets.ranks(e.child);
        let parent = f[e.parent].get_or_insert_with(|| start(e.parent));
        parent
            .par_iter_mut()
            .zip(sets.list(e.parent).par_iter())
            .for_each(|(value, &v)| {
                if *value != 0 {
                    let sum = graph
                        .neighbors(v, e.label, e.direction)
                        .iter()
                        .filter(|&&w| sets.contains(e.child, w))
                        .fold(0u128, |s, &w| {
                            s.saturating_add(child[ranks.position(w) as usize])
                        });
                    *value = value.saturating_mul(sum);
                }
            });
    }
    Some(f)
}
