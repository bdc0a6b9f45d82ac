//! Checks one embedding against the query and the data graph, independently of any engine.

use gsi_graph::{Direction, Graph, VertexId};

use crate::options::Semantics;

/// Whether `embedding` (data vertex per query vertex) is a match of `query` in `data`: every
/// label of a query vertex carried by its match, every query edge present in the data with its label and direction, under
/// isomorphism and induced no data vertex used twice, and induced, no data edge between two
/// matches without its query edge.
pub fn is_match(query: &Graph, data: &Graph, embedding: &[VertexId], semantics: Semantics) -> bool {
    if embedding.len() != query.vertex_count()
        || embedding.iter().any(|&v| v as usize >= data.vertex_count())
    {
        return false;
    }
    if semantics.injective() {
        let mut seen = embedding.to_vec();
        seen.sort_unstable();
        if seen.windows(2).any(|w| w[0] == w[1]) {
            return false;
        }
    }
    let labels_agree = (0..query.vertex_count())
        .all(|u| data.has_labels(embedding[u], query.labels_of(u as VertexId)));
    let edges_kept = query.edge_iter().all(|(u, w, l)| {
        data.neighbors(embedding[u as usize], l, Direction::Out)
            .binary_search(&embedding[w as usize])
            .is_ok()
    });
    labels_agree
        && edges_kept
        && (semantics != Semantics::Induced || no_other_edges(query, data, embedding))
}

/// Whether every data edge between two matches of `embedding` (injective) is a query edge.
fn no_other_edges(query: &Graph, data: &Graph, embedding: &[VertexId]) -> bool {
    let of: std::collections::HashMap<VertexId, VertexId> = embedding
        .iter()
        .enumerate()
        .map(|(u, &v)| (v, u as VertexId))
        .collect();
    (0..query.vertex_count() as VertexId).all(|u| {
        let (neighbors, labels) = data.edges(embedding[u as usize], Direction::Out);
        neighbors.iter().zip(labels).all(|(y, &l)| {
            of.get(y).is_none_or(|&w| {
                query
                    .neighbors(u, l, Direction::Out)
                    .binary_search(&w)
                    .is_ok()
            })
        })
    })
}
