//! The CPU's clique count by bitmaps (a clique's chain counted from each first vertex by the
//! adjacency of its higher neighbours) against the brute force, with the bitmaps for every
//! first vertex, for those of at most 2 higher neighbours (the others searched) and for none.

use gsi_core::cpu::CpuEngine;
use gsi_core::{
    find_matches, CountOnly, CpuTuning, DataIndex, IndexOptions, MatchOptions, Semantics,
    VertexNumbering,
};
use gsi_generate::{generate_graph, GraphSpec, Shape};

use crate::brute;
use crate::util::clique;

/// The CPU's count of `query`, its clique bitmaps up to `up_to`, and how its depth-first
/// count went.
fn cpu_count(
    query: &gsi_graph::Graph,
    index: &DataIndex,
    options: &MatchOptions,
    up_to: Option<usize>,
) -> (u128, Option<&'static str>) {
    let mut cpu = CpuEngine::new(CpuTuning {
        clique_bitmaps_up_to: up_to,
        ..CpuTuning::default()
    });
    let report = find_matches(&mut cpu, query, index, options, &mut CountOnly).expect("gsi runs");
    (report.count, report.paths.depth_first_kind)
}

const BY_BITMAPS: Option<&str> = Some("clique bitmaps, the rest searched");

/// Cliques of 3 to 6 vertices on random graphs with hubs (one or two vertex and edge labels,
/// both numberings, directed and not), depth-first from the first step, under isomorphism
/// and homomorphism: every count the brute force's, and the bitmaps taken wherever the plan
/// is a clique's chain and allowed.
#[test]
fn cliques_by_bitmaps_count_what_the_brute_force_counts() {
    let mut by_bitmaps = 0;
    for case in 0..16u64 {
        let mut spec = GraphSpec::new(30 + case as usize, 240, Shape::ScaleFree);
        spec.vertex_labels = 1 + (case % 2) as u32;
        spec.edge_labels = 1 + (case % 4 == 3) as u32;
        spec.directed = case % 5 == 4;
        spec.seed = 300 + case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let numbering = match case % 2 {
            0 => VertexNumbering::Degree,
            _ => VertexNumbering::Given,
        };
        let options = IndexOptions {
            numbering,
            ..IndexOptions::default()
        };
        let index = DataIndex::build_with(data, options).expect("index");
        for n in 3..=6 {
            let query = clique(spec.directed, n, 0).graph();
            for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
                let expected =
                    brute::count(&query, index.graph(), semantics == Semantics::Homomorphism);
                let options = MatchOptions {
                    semantics,
                    depth_first_rows: Some(0),
                    ..MatchOptions::default()
                };
                for up_to in [Some(128), Some(2), None] {
                    let (count, kind) = cpu_count(&query, &index, &options, up_to);
                    assert_eq!(
                        count, expected,
                        "case {case}, K{n}, {semantics:?}, bitmaps up to {up_to:?}"
                    );
                    by_bitmaps += u32::from(kind == BY_BITMAPS);
                    if up_to.is_none() {
                        assert_ne!(kind, BY_BITMAPS, "case {case}, K{n}: no bitmaps asked");
                    }
                }
            }
        }
    }
    assert!(by_bitmaps > 50, "only {by_bitmaps} counts took the bitmaps");
}

/// By default (no forced path) a clique on an unlabelled graph of thousands of vertices is
/// counted by the bitmaps, with the brute force's count.
#[test]
fn an_unlabelled_clique_takes_the_bitmaps_by_default() {
    let mut spec = GraphSpec::new(3_000, 30_000, Shape::ScaleFree);
    spec.seed = 7;
    let index = DataIndex::build(generate_graph(&spec).expect("graph")).expect("index");
    let query = clique(false, 4, 0).graph();
    let expected = brute::count(&query, index.graph(), false);
    let options = MatchOptions::default();
    let (count, kind) = cpu_count(&query, &index, &options, Some(128));
    assert_eq!(count, expected);
    assert!(expected > 0);
    assert_eq!(kind, BY_BITMAPS);
}
