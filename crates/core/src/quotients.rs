//! Counting a query whose labels repeat without enumerating it: its matches, the injective
//! homomorphisms, by inclusion–exclusion over its quotients (Möbius inversion over
//! the lattice of partitions of its vertices):
//!
//! inj(Q) = Σ over partitions π of μ(π) · hom(Q/π), with μ(π) = Π over blocks B of
//! (−1)^(|B|−1) (|B|−1)!.
//!
//! Only partitions whose blocks one data vertex could match appear: each block of one label,
//! no two of its vertices adjacent (a data graph has no self-loops, so hom(Q/π) is 0 for any
//! other), and no two that the caller knows cannot share a data vertex. The identity holds as
//! well for maps that send each vertex u into a set S(u) given beforehand, and each block of
//! Q/π into the intersection of its members' sets: where S(u) holds every data vertex a match
//! sends u to (the query's candidate sets), the terms add up to the same count, and a block
//! whose members' sets do not meet adds nothing. Each quotient's homomorphisms are counted
//! on their own: by dynamic programming where it is a tree ([`crate::tree_count`]), over its
//! 2-core where trees hang from one ([`crate::core_count`]), else by a join under
//! homomorphism.

use std::collections::{BTreeSet, HashMap, HashSet};

use gsi_graph::{Direction, Graph, GraphBuilder, VertexId};

use crate::index::DataIndex;

/// At most this many quotients are counted; a query with more is enumerated, unless its
/// join is heavy ([`HEAVY_JOIN_WORK`]).
pub const MAX_QUOTIENTS: usize = 64;

/// At most this many quotients are counted where the query's join is estimated at
/// [`HEAVY_JOIN_WORK`] or more: planning each costs milliseconds (348 in 1.5 s on two cores,
/// a 16-vertex query of the 100-label LiveJournal-sized graph), such a join hours.
pub const MAX_QUOTIENTS_OF_HEAVY_JOINS: usize = 512;

/// The join's estimated work (rows and list reads, [`crate::plan::Plan::count_work`]) from
/// which a query may have [`MAX_QUOTIENTS_OF_HEAVY_JOINS`] quotients counted (the 100-label
/// LiveJournal-sized graph's dense_12_5: 87 quotients, a join estimated at 3.0×10^12 that no
/// engine finished; its quotients count it in 86 s on two cores, docs/BENCHMARKS.md).
pub const HEAVY_JOIN_WORK: f64 = 1e11;

/// Whether every two vertices of `query` that carry one label are adjacent (edges read both
/// ways; a vertex's label, not its label set): no homomorphism into a graph without
/// self-loops and with one label a vertex can then send two query vertices to one data
/// vertex, so the homomorphisms are the matches under isomorphism.
pub fn labels_repeat_only_on_neighbours(query: &Graph) -> bool {
    let mut by_label: HashMap<u32, Vec<usize>> = HashMap::new();
    for (v, &label) in query.vertex_labels().iter().enumerate() {
        by_label.entry(label).or_default().push(v);
    }
    let adjacent = |u: usize, v: usize| {
        query
            .directions()
            .iter()
            .any(|&d| query.edges(u as VertexId, d).0.contains(&(v as VertexId)))
    };
    by_label.values().all(|class| {
        class
            .iter()
            .enumerate()
            .all(|(i, &v)| class[..i].iter().all(|&u| adjacent(u, v)))
    })
}

/// One term of the sum: a quotient of the query and its coefficient μ(π).
pub struct Quotient {
    /// Q/π.
    pub graph: Graph,
    /// μ(π).
    pub coefficient: i64,
    /// The query vertices of each vertex of Q/π (the blocks of π).
    pub members: Vec<Vec<usize>>,
}

/// The quotients of `query` (itself first, with coefficient 1) where two of its vertices of
/// one label are not adjacent and `may_share` them, the data's and its vertices carry one
/// label each, and there are at most `max`; `None` otherwise.
pub fn of(
    query: &Graph,
    data: &DataIndex,
    may_share: &dyn Fn(usize, usize) -> bool,
    max: usize,
) -> Option<Vec<Quotient>> {
    let n = query.vertex_count();
    // Labels that all differ, or repeat only on neighbours: homomorphisms are the matches.
    // (Vertices that `may_share` keeps apart leave one term too, over their sets.)
    if n < 2
        || query.has_label_sets()
        || data.graph().has_label_sets()
        || labels_repeat_only_on_neighbours(query)
    {
        return None;
    }
    let edges = edges_of(query);
    let adjacent: HashSet<(usize, usize)> = edges
        .iter()
        .flat_map(|&(a, b, _)| [(a, b), (b, a)])
        .collect();
    let labels = query.vertex_labels();
    let mut by_label: HashMap<u32, Vec<usize>> = HashMap::new();
    for (v, &label) in labels.iter().enumerate() {
        by_label.entry(label).or_default().push(v);
    }
    let apart = |u: usize, v: usize| !adjacent.contains(&(u, v));
    // A vertex that merges with no other is alone in every partition: only the others are
    // enumerated. Each of them, merged with a partner alone, makes a partition of its own, so
    // more than twice the quotients allowed have more quotients than that (and would recurse
    // once a vertex: a query may have tens of thousands).
    let merges = |u: usize, v: usize| u != v && apart(u, v) && may_share(u, v);
    let mut mergeable = Vec::new();
    for class in by_label.values() {
        for &v in class {
            if class.iter().any(|&u| merges(u, v)) {
                mergeable.push(v);
                if mergeable.len() > 2 * max {
                    return None;
                }
            }
        }
    }
    mergeable.sort_unstable();
    // The pairs that merge, asked once each (`may_share` may read two bitsets of the whole
    // data graph), not at every step of the enumeration.
    let pairs: HashSet<(usize, usize)> = mergeable
        .iter()
        .flat_map(|&v| mergeable.iter().map(move |&u| (u, v)))
        .filter(|&(u, v)| u < v && labels[u] == labels[v] && merges(u, v))
        .collect();
    let mut partitions = Vec::new();
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    if !partitions_into(
        &mergeable,
        max,
        &mut blocks,
        &mut partitions,
        &|v, block: &[usize]| block.iter().all(|&u| pairs.contains(&(u.min(v), u.max(v)))),
    ) {
        return None;
    }
    let alone = (0..n).filter(|v| mergeable.binary_search(v).is_err());
    let alone: Vec<Vec<usize>> = alone.map(|v| vec![v]).collect();
    for partition in &mut partitions {
        partition.extend(alone.iter().cloned());
        partition.sort_unstable_by_key(|block| block[0]);
    }
    let mut quotients = Vec::with_capacity(partitions.len());
    for partition in partitions {
        quotients.push(quotient(query, &edges, &partition)?);
    }
    Some(quotients)
}

/// The query's edges, each once: (from, to, label), from < to where undirected.
fn edges_of(query: &Graph) -> Vec<(usize, usize, gsi_graph::EdgeLabel)> {
    let mut edges = Vec::with_capacity(query.edge_count());
    for v in 0..query.vertex_count() {
        let (neighbors, labels) = query.edges(v as VertexId, Direction::Out);
        for (&w, &label) in neighbors.iter().zip(labels) {
            let w = w as usize;
            if query.is_directed() || v < w {
                edges.push((v, w, label));
            }
        }
    }
    edges
}

/// Adds to `out` every partition of `vertices` added to `blocks` (each vertex into a block
/// that `admits` it, or into a new one), in the order of restricted growth strings (the
/// partition into singletons first); false once there would be more than `max`.
fn partitions_into(
    vertices: &[usize],
    max: usize,
    blocks: &mut Vec<Vec<usize>>,
    out: &mut Vec<Vec<Vec<usize>>>,
    admits: &dyn Fn(usize, &[usize]) -> bool,
) -> bool {
    let Some((&v, rest)) = vertices.split_first() else {
        out.push(blocks.clone());
        return out.len() <= max;
    };
    blocks.push(vec![v]);
    let fits = partitions_into(rest, max, blocks, out, admits);
    blocks.pop();
    if !fits {
        return false;
    }
    for b in 0..blocks.len() {
        if admits(v, &blocks[b]) {
            blocks[b].push(v);
            let fits = partitions_into(rest, max, blocks, out, admits);
            blocks[b].pop();
            if !fits {
                return false;
            }
        }
    }
    true
}

/// Q/π: a vertex per block, with its members' label, and the query's edges between blocks
/// (edges that become one are kept once); μ(π) with it.
fn quotient(
    query: &Graph,
    edges: &[(usize, usize, gsi_graph::EdgeLabel)],
    partition: &[Vec<usize>],
) -> Option<Quotient> {
    let mut block_of = vec![0; query.vertex_count()];
    for (b, block) in partition.iter().enumerate() {
        for &v in block {
            block_of[v] = b as VertexId;
        }
    }
    let labels = partition
        .iter()
        .map(|block| query.vertex_labels()[block[0]])
        .collect();
    let mut builder = GraphBuilder::with_vertices(query.is_directed(), labels);
    let mut kept = BTreeSet::new();
    for &(a, b, label) in edges {
        let (a, b) = (block_of[a], block_of[b]);
        let key = match query.is_directed() {
            true => (a, b, label),
            false => (a.min(b), a.max(b), label),
        };
        if kept.insert(key) {
            builder.add_edge(key.0, key.1, key.2).ok()?;
        }
    }
    let coefficient = partition.iter().try_fold(1i64, |mu, block| {
        let size = block.len() as i64;
        let factorial: i64 = (1..size).product();
        let sign = if size % 2 == 0 { -1 } else { 1 };
        mu.checked_mul(sign * factorial)
    })?;
    Some(Quotient {
        graph: builder.build().ok()?,
        coefficient,
        members: partition.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::{of, MAX_QUOTIENTS, MAX_QUOTIENTS_OF_HEAVY_JOINS};
    use crate::index::DataIndex;

    #[test]
    fn a_stars_leaves_of_one_label_give_the_partitions_of_the_leaves() {
        // A centre of label 1 with three leaves of label 0.
        let mut builder = GraphBuilder::with_vertices(false, vec![1, 0, 0, 0]);
        for leaf in 1..=3 {
            builder.add_edge(0, leaf, 0).expect("an edge");
        }
        let star = builder.build().expect("a graph");
        let data = DataIndex::build(star.clone()).expect("an index");
        let quotients = of(&star, &data, &|_, _| true, MAX_QUOTIENTS).expect("quotients");
        let mut terms: Vec<(usize, i64)> = quotients
            .iter()
            .map(|q| (q.graph.vertex_count(), q.coefficient))
            .collect();
        terms.sort_unstable();
        // The partitions of three leaves: all apart (1), one pair together, three ways (−1
        // each), all three together (2! = 2); the centre stays alone.
        assert_eq!(terms, [(2, 2), (3, -1), (3, -1), (3, -1), (4, 1)]);
        // A path of two labels that repeat only on neighbours has but one quotient.
        let mut builder = GraphBuilder::with_vertices(false, vec![0, 0, 1]);
        builder.add_edge(0, 1, 0).expect("an edge");
        builder.add_edge(1, 2, 0).expect("an edge");
        let path = builder.build().expect("a graph");
        assert!(of(&path, &data, &|_, _| true, MAX_QUOTIENTS).is_none());
    }

    #[test]
    fn quotients_beyond_the_cap_are_not_made() {
        // Six leaves of one label: Bell(6) = 203 partitions.
        let mut builder = GraphBuilder::with_vertices(false, vec![1, 0, 0, 0, 0, 0, 0]);
        for leaf in 1..=6 {
            builder.add_edge(0, leaf, 0).expect("an edge");
        }
        let star = builder.build().expect("a graph");
        let data = DataIndex::build(star.clone()).expect("an index");
        assert!(of(&star, &data, &|_, _| true, MAX_QUOTIENTS).is_none());
        let quotients = of(&star, &data, &|_, _| true, MAX_QUOTIENTS_OF_HEAVY_JOINS);
        assert_eq!(quotients.map(|q| q.len()), Some(203));
    }
}
