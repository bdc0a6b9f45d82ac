//! Checks one embedding against the query and the data graph, independently of any engine.

use gsi_graph::{Direction, Graph, VertexId};

use crate::options::Semantics;

/// Whether `embedding` (data vertex per query vertex) is a match of `query` in `data`: labels
/// equal, every query edge present in the data with its label and direction, and, under
/// isomorphism, no data vertex used twice.
pub fn is_match(query: &Graph, data: &Graph, embedding: &[VertexId], semantics: Semantics) -> bool {
    if embedding.len() != query.vertex_count()
        || embedding.iter().any(|&v| v as usize >= data.vertex_count())
    {
        return false;
    }
    if semantics == Semantics::Isomorphism {
        let mut seen = embedding.to_vec();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
    }
    let labels_agree =
        (0..query.vertex_count()).all(|u| query.label(u as u32) == data.label(embedding[u]));
    labels_agree
        && query.edge_iter().all(|(u, w, l)| {
            data.neighbors(embedding[u as usize], l, Direction::Out)
                .binary_search(&embedding[w as usize])
                .is_ok()
        })
}
