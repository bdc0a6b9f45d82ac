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
