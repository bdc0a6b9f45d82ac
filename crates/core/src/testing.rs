//! Small graphs for the unit tests.

use gsi_graph::{Graph, GraphBuilder};

/// A small graph from its labels and (source, target, label) edges.
pub(crate) fn graph(directed: bool, labels: &[u32], edges: &[(u32, u32, u32)]) -> Graph {
    let mut b = GraphBuilder::with_vertices(directed, labels.to_vec());
    for &(s, t, l) in edges {
        b.add_edge(s, t, l).unwrap();
    }
    b.build().unwrap()
}

/// A graph of `n` vertices of label 0 with `edges` (ends taken modulo n, loops and repeated
/// edges dropped): what a proptest's random edges make.
pub(crate) fn simple_graph(n: usize, directed: bool, edges: &[(u32, u32, u32)]) -> Graph {
    let mut b = GraphBuilder::with_vertices(directed, vec![0; n]);
    let mut seen = std::collections::HashSet::new();
    for &(s, t, l) in edges {
        let (s, t) = (s % n as u32, t % n as u32);
        let key = if directed {
            (s, t, l)
        } else {
            (s.min(t), s.max(t), l)
        };
        if s != t && seen.insert(key) {
            b.add_edge(s, t, l).unwrap();
        }
    }
    b.build().unwrap()
}

/// Wordnet's query_sparse_8_48: a cube less a corner (1..7, its one triangle 5-6-7) and
/// a leaf 0 on 1.
pub(crate) fn cube_less_a_corner() -> Graph {
    let edges = [
        (0, 1, 0),
        (1, 2, 0),
        (1, 3, 0),
        (2, 4, 0),
        (2, 5, 0),
        (3, 4, 0),
        (3, 6, 0),
        (4, 7, 0),
        (5, 6, 0),
        (5, 7, 0),
        (6, 7, 0),
    ];
    graph(false, &[0; 8], &edges)
}
