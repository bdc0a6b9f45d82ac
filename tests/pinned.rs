//! Pinned query vertices (`MatchOptions::pinned`, SPARQL's constants) against the brute force:
//! the matches are exactly the brute force's whose pinned vertices map to their data vertices.

use gsi_core::{CountOnly, DataIndex, MatchOptions, Semantics, Status};
use gsi_graph::VertexId;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use crate::brute;
use crate::oracle::{connected, graph, gsi, query_shape, semantics, Collect, DIRECTED_MULTI};
use crate::util::Spec;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        rng_seed: RngSeed::Fixed(0x6751_2027),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Counted breadth-first to the end, depth-first at once and as the engine chooses, with
    /// and without leaves counted as products; and listed.
    #[test]
    fn pinned_matches_agree_with_brute_force(
        data in graph(DIRECTED_MULTI, 1..=10),
        query in prop_oneof![
            connected(query_shape(DIRECTED_MULTI), 1..=4),
            graph(query_shape(DIRECTED_MULTI), 1..=3),
        ],
        picks in prop::collection::vec((0..4usize, 0..10 as VertexId), 1..=2),
        semantics in semantics(),
    ) {
        let (q, d) = (query.graph(), data.graph());
        let homomorphism = semantics == Semantics::Homomorphism;
        let mut pinned: Vec<(usize, VertexId)> = Vec::new();
        for (u, v) in picks {
            let (u, v) = (u % q.vertex_count(), v % d.vertex_count() as VertexId);
            if pinned.iter().all(|&(w, _)| w != u) {
                pinned.push((u, v));
            }
        }
        let mut expected = brute::matches(&q, &d, homomorphism);
        expected.retain(|row| pinned.iter().all(|&(u, v)| row[u] == v));

        let index = DataIndex::build(d.clone()).expect("index");
        let options = MatchOptions { semantics, pinned, ..MatchOptions::default() };
        for (depth_first_rows, postpone_leaves) in
            [(Some(usize::MAX), false), (Some(0), true), (None, true)]
        {
            let options = MatchOptions { depth_first_rows, postpone_leaves, ..options.clone() };
            let counted = gsi(&q, &index, &options, &mut CountOnly);
            prop_assert_eq!(counted.status, Status::Complete);
            prop_assert_eq!(counted.count, expected.len() as u128);
        }
        let mut listed = Collect::default();
        gsi(&q, &index, &options, &mut listed);
        listed.rows.sort();
        prop_assert_eq!(listed.rows, expected);
    }
}

/// Under isomorphism, pins tell automorphic query vertices apart: a 2-cycle whose ends are
/// pinned to the ends of the data's 2-cycle has one match, not the two of its automorphism
/// class (found by proptest).
#[test]
fn pins_break_the_query_automorphisms() {
    let cycle = Spec::new(true, vec![1, 1]).edge(0, 1, 1).edge(1, 0, 1);
    let (q, d) = (cycle.graph(), cycle.graph());
    let index = DataIndex::build(d.clone()).expect("index");
    let pinned = vec![(0, 0), (1, 1)];
    let mut expected = brute::matches(&q, &d, false);
    expected.retain(|row| pinned.iter().all(|&(u, v)| row[u] == v));
    assert_eq!(expected, vec![vec![0, 1]]);
    let options = MatchOptions {
        pinned,
        ..MatchOptions::default()
    };
    assert_eq!(gsi(&q, &index, &options, &mut CountOnly).count, 1);
    let mut listed = Collect::default();
    gsi(&q, &index, &options, &mut listed);
    assert_eq!(listed.rows, expected);
}
