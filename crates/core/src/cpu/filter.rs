//! The filtering phase on the CPU (Sec. 3.2): signature containment plus the exact label
//! check, parallel over the data vertices of the query vertex's pool ([`crate::cpu::pools`]):
//! those of its label, or fewer that hold every candidate.

use std::collections::HashMap;
use std::sync::Arc;

use gsi_graph::{Direction, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::cpu::pools::{pool_of, Pool};
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::options::{MatchOptions, Status};
use crate::signature::QuerySignatures;

/// Fewest vertex tests worth spreading over threads (below, a hand-off costs more).
const PARALLEL_MIN_TESTS: usize = 1 << 15;

/// C(u) for every query vertex, in parallel over query vertices and, for large label classes,
/// over data vertices.
///
/// Beyond the signature, under isomorphism a candidate must have at least the query vertex's
/// degree in each direction ([`QuerySignatures::min_degrees`]).
///
/// # Errors
/// [`Error::FilterStopped`] where the search must stop (out of time, interrupted) before
/// every query vertex is filtered.
pub(crate) fn candidates(
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
) -> Result<CandidateSets> {
    let prepared = QuerySignatures::of(query, options.semantics, options.filter);
    let table = data.signatures();
    let n = table.vertex_count();
    let words = table.words();
    let graph = data.graph();
    // Query vertices that ask the same (labels, signature, degrees) share one scan: in an
    // unlabelled pattern most do, and each scan may test millions of vertices.
    let asks = |u: VertexId| {
        let u = u as usize;
        (
            query.labels_of(u as VertexId),
            prepared.signatures[u],
            prepared.min_degrees[u],
        )
    };
    let q = query.vertex_count() as VertexId;
    let pools: Vec<Pool> = (0..q).map(|u| pool_of(query, u, data, options)).collect();
    // By a table, not by comparing pairs: a query may have hundreds of thousands of vertices.
    let mut first_of = HashMap::new();
    let first_asking: Vec<VertexId> = (0..q)
        .map(|u| *first_of.entry((asks(u), pools[u as usize])).or_insert(u))
        .collect();
    let distinct: Vec<VertexId> = (0..q).filter(|&u| first_asking[u as usize] == u).collect();
    // Query vertices are filtered in parallel when their pools hold many data vertices.
    let tests: usize = distinct
        .iter()
        .map(|&u| pools[u as usize].vertices(data).len())
        .sum();
    let watch = tests >= PARALLEL_MIN_TESTS;
    // Where the filter's work is large (`watch`), out of time or interrupted, the query
    // vertices not yet filtered are left out and the filter ends with the status
    // (`options.stop()` stays set); a small one finishes, and planning reads the clock.
    let stopped = || watch && options.stop().is_some();
    let filter = |u: VertexId| -> Option<Vec<VertexId>> {
        if stopped() {
            return None;
        }
        let sig = &prepared.signatures[u as usize];
        let [out_degree, in_degree] = prepared.min_degrees[u as usize].map(|d| d as usize);
        // One pass over the vertices, each tested against the words the query sets (a
        // column of the column-first table is read in ascending vertex order, the label
        // lists being sorted) and its degrees.
        let columns: Vec<(&[u32], u32)> = sig
            .0
            .iter()
            .enumerate()
            .skip(1)
            .filter(|&(_, &need)| need != 0)
            .map(|(w, &need)| (&words[w * n..(w + 1) * n], need))
            .collect();
        let scan = |vertices: &[VertexId]| -> Vec<VertexId> {
            vertices
                .iter()
                .copied()
                .filter(|&v| {
                    columns
                        .iter()
                        .all(|&(column, need)| column[v as usize] & need == need)
                        && (out_degree == 0 || graph.degree(v, Direction::Out) >= out_degree)
                        && (in_degree == 0 || graph.degree(v, Direction::In) >= in_degree)
                })
                .collect()
        };
        // The vertices that carry every label of the query vertex: of its rarest label's,
        // those that carry the others too; of another pool, those that carry them all.
        let labels = query.labels_of(u);
        let pool = pools[u as usize];
        let scan = |vertices: &[VertexId]| -> Vec<VertexId> {
            let mut kept = scan(vertices);
            if labels.len() > 1 || !matches!(pool, Pool::Label(_)) {
                kept.retain(|&v| graph.has_labels(v, labels));
            }
            kept
        };
        // Large pools are split over the threads (collect keeps their order).
        let pool = pool.vertices(data);
        Some(if pool.len() < PARALLEL_MIN_TESTS {
            scan(pool)
        } else {
            // Each chunk's survivors as a list of its own, copied into one in parallel
            // (a list of millions of vertices: one thread would take as long as the scan).
            let chunks: Vec<Vec<VertexId>> = pool
                .par_chunks(PARALLEL_MIN_TESTS)
                .map(|chunk| match stopped() {
                    true => Vec::new(),
                    false => scan(chunk),
                })
                .collect();
            let mut list = vec![0; chunks.iter().map(Vec::len).sum()];
            let mut rest = list.as_mut_slice();
            let mut places = Vec::with_capacity(chunks.len());
            for chunk in &chunks {
                let (place, after) = rest.split_at_mut(chunk.len());
                places.push(place);
                rest = after;
            }
            places
                .into_par_iter()
                .zip(&chunks)
                .for_each(|(place, chunk)| place.copy_from_slice(chunk));
            list
        })
    };
    let list = |u: VertexId| filter(u).map(Arc::new);
    let scanned: Option<Vec<Arc<Vec<VertexId>>>> = match watch {
        false => distinct.iter().map(|&u| list(u)).collect(),
        true => distinct.par_iter().map(|&u| list(u)).collect(),
    };
    // A query vertex left out, or a scan cut short: no bitset is made for lists no one
    // will read.
    let stop = options.stop().filter(|_| watch);
    let (Some(scanned), None) = (scanned, stop) else {
        return Err(Error::FilterStopped(stop.unwrap_or(Status::Timeout)));
    };
    // The query vertices that ask the same share its list and bitset.
    let lists = first_asking
        .iter()
        .map(|first| {
            let k = distinct
                .binary_search(first)
                .expect("each first asker is scanned");
            Arc::clone(&scanned[k])
        })
        .collect();
    Ok(CandidateSets::from_shared(lists, n))
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;
    use crate::testing::graph;

    #[test]
    fn a_large_label_class_is_filtered_by_degree_in_chunks() {
        // One label, so a candidate of an isomorphism is any vertex of at least the query
        // vertex's degree (the signatures add nothing): a class of many chunks.
        let n = 5 * PARALLEL_MIN_TESTS as u32 + 123;
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for v in 0..n {
            // Vertex v has about (v % 5) + 1 neighbours after it.
            for k in 1..=(v % 5) + 1 {
                if v + k * 17 < n {
                    b.add_edge(v, v + k * 17, 0).unwrap();
                }
            }
        }
        let data = DataIndex::build(b.build().unwrap()).unwrap();
        let star = graph(
            false,
            &[0; 5],
            &[(0, 1, 0), (0, 2, 0), (0, 3, 0), (0, 4, 0)],
        );
        let sets = candidates(&star, &data, &MatchOptions::default()).unwrap();
        assert!(
            sets.list(0).len() < n as usize,
            "some vertices have fewer than 4"
        );
        let degree = |v: VertexId| data.graph().degree(v, Direction::Out);
        for (u, least) in [(0, 4), (1, 1)] {
            let expected: Vec<VertexId> = (0..n).filter(|&v| degree(v) >= least).collect();
            assert!(expected.len() > PARALLEL_MIN_TESTS);
            assert_eq!(sets.list(u), &expected[..]);
            assert!(expected.iter().all(|&v| sets.contains(u, v)));
        }
    }
}
