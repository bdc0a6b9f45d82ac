//! The pair count: a count's last three steps x, y, z where x and y are equivalent query
//! vertices (one extension set E given the core's match) and z is linked to x and y alone.
//! For a row of the core, the matches of (x, y, z) are, over the data vertices v that may
//! match z, the pairs of members of E linked to v: Σ_v C(k_v, 2), k_v = |{e ∈ E : v ∈ N(e)}|.
//! Each member's list is read once (the k_v tallied as it goes) instead of intersecting
//! N(x) ∩ N(y) for each of the |E|² pairs. gMatch's five-vertex pattern p5 (two vertices on
//! both ends of an edge, a fifth on those two) reads 8× fewer list elements so than the pairs'
//! shorter lists hold on the 1 M-vertex unlabelled graph, and is counted in 18.4 s against
//! 125.7 s joined on the LiveJournal-sized one (H100, 2026-11-27, docs/BENCHMARKS.md).

use gsi_graph::{Graph, VertexId};

use super::leaves::{components_without, equivalence_classes, PairCount, MAX_LEAF_LINKS};
use super::step::{JoinStep, OrderBound};

/// The query vertices (x, y, z) of a pair count, when `query` has them: z linked to exactly
/// two vertices, once each, x and y, which are equivalent ([`equivalence_classes`]; hence not
/// adjacent) and linked to some vertex besides z (the core, which the join enumerates, is
/// what cuts E), by at most [`MAX_LEAF_LINKS`] edges (the GPU keeps their lists' ranges in
/// shared memory); the core connected (joined without a Cartesian product). The first such z.
pub fn wedge(query: &Graph) -> Option<(usize, usize, usize)> {
    let n = query.vertex_count();
    if n < 4 {
        return None;
    }
    let classes = equivalence_classes(query);
    let around = |u: usize| -> Vec<usize> {
        query
            .directions()
            .iter()
            .flat_map(|&d| query.edges(u as VertexId, d).0)
            .map(|&w| w as usize)
            .collect()
    };
    (0..n).find_map(|z| {
        let ends = around(z);
        let (x, y) = match ends[..] {
            [x, y] if x != y && classes[x] == classes[y] => (x.min(y), x.max(y)),
            _ => return None,
        };
        let links = around(x);
        let core_connected = components_without(query, |u| u == x || u == y || u == z) == 1;
        (core_connected && links.len() <= MAX_LEAF_LINKS && links.iter().any(|&w| w != z))
            .then_some((x, y, z))
    })
}

impl PairCount {
    /// The pair count of `steps` from `from` on, once their order bounds are set: none unless
    /// x and z are bounded by the core's columns alone and y as x is, and perhaps by x (each
    /// pair counted once then, else in both orders). E is then x's extensions, y's those of
    /// them beyond x, and z's match is only looked for within its window.
    pub fn after_bounds(steps: &[JoinStep], from: usize) -> Option<PairCount> {
        let [x, y, z] = steps.get(from..)? else {
            return None;
        };
        let core = |b: &OrderBound| b.column < from;
        let mut by_core: Vec<OrderBound> = y.order_bounds.iter().copied().filter(core).collect();
        let mut of_x = x.order_bounds.clone();
        by_core.sort_by_key(|b| (b.column, b.above));
        of_x.sort_by_key(|b| (b.column, b.above));
        let to_x = y.order_bounds.len() - by_core.len();
        let fits = z.order_bounds.iter().all(core)
            && y.order_bounds.iter().all(|b| b.column <= from)
            && by_core == of_x
            && to_x <= 1;
        fits.then_some(PairCount { ordered: to_x == 0 })
    }
}
