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
