//! The filtering phase on the CPU (Sec. 3.2): signature containment plus the exact label
//! check, parallel over the data vertices that carry the query vertex's label.

use gsi_graph::{Direction, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::engine::Semantics;
use crate::index::DataIndex;
use crate::signature::{Saturation, Signature, SIGNATURE_WORDS};

/// Fewest same-label data vertices worth filtering in parallel.
const PARALLEL_MIN_VERTICES: usize = 1 << 14;

/// C(u) for every query vertex.
///
/// Beyond the signature, under isomorphism a candidate must have at least the query vertex's
/// degree (per direction in a directed graph): an injective match needs that many distinct
/// edges, and the test costs nothing.
pub(crate) fn candidates(query: &Graph, data: &DataIndex, semantics: Semantics) -> CandidateSets {
    let saturation = match semantics {
        Semantics::Isomorphism => Saturation::Counting,
        Semantics::Homomorphism => Saturation::PresenceOnly,
    };
    let table = data.signatures();
    let n = table.vertex_count();
    let words = table.words();
    let graph = data.graph();
    let lists = (0..query.vertex_count() as VertexId)
        .map(|u| {
            let sig = Signature::of(query, u, saturation);
            let out_degree = query.degree(u, Direction::Out);
            let in_degree = if query.is_directed() {
                query.degree(u, Direction::In)
            } else {
                0
            };
            let admits = |&v: &VertexId| {
                (1..SIGNATURE_WORDS).all(|w| {
                    let d = words[w * n + v as usize];
                    d & sig.0[w] == sig.0[w]
                }) && (semantics == Semantics::Homomorphism
                    || (graph.degree(v, Direction::Out) >= out_degree
                        && (in_degree == 0 || graph.degree(v, Direction::In) >= in_degree)))
            };
            let same_label = data.vertices_with_label(query.label(u));
            // Below this many vertices a thread hand-off costs more than the tests.
            if same_label.len() < PARALLEL_MIN_VERTICES {
                same_label.iter().copied().filter(admits).collect()
            } else {
                same_label.par_iter().copied().filter(admits).collect()
            }
        })
        .collect();
    CandidateSets::from_lists(lists, n)
}
