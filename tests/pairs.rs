//! The pair count (two equivalent query vertices x, y and a third, z, linked to them alone,
//! counted by the pairs each data vertex closes) against the brute force and against the
//! join that enumerates them: random cores with x and y hung on them, on random labelled
//! graphs, directed and undirected, with repeated labels.

use gsi_core::cpu::CpuEngine;
use gsi_core::{CountOnly, DataIndex, MatchOptions, PairCounts};
use gsi_graph::VertexId;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{graph, Shape};
use crate::util::{cpu_count, Spec};

/// A query whose last three vertices a count counts by their pairs: a core of 1 to 3
/// vertices (a path, closed to a triangle when drawn), x and y linked alike to a nonempty part
/// of the core, and z linked alike to x and y. Labels drawn from `0..labels` (x and y share
/// theirs), each edge's direction drawn.
pub fn with_pairs(directed: bool, labels: u32) -> impl Strategy<Value = Spec> {
    (1usize..=3, any::<bool>(), 1u32..8).prop_flat_map(move |(core, closed, attach)| {
        let n = core + 3;
        (
            prop::collection::vec(0..labels, core + 2),
            prop::collection::vec((0..labels.min(2), any::<bool>()), core + 4),
        )
            .prop_map(move |(vertex_labels, edges)| {
                // Core 0..core, then x, y, z.
                let (x, y, z) = (core, core + 1, core + 2);
                let mut labels_of = vertex_labels[..core].to_vec();
                labels_of.extend([
                    vertex_labels[core],
                    vertex_labels[core],
                    vertex_labels[core + 1],
                ]);
                let mut spec = Spec::new(directed, labels_of);
                let mut draws = edges.into_iter();
                let edge = |spec: Spec, a: usize, b: usize, draw: (u32, bool)| {
                    let (s, t) = if draw.1 && directed { (b, a) } else { (a, b) };
                    spec.edge(s as VertexId, t as VertexId, draw.0)
                };
                for c in 1..core {
                    spec = edge(spec, c - 1, c, draws.next().expect("drawn"));
                }
                if closed && core == 3 {
                    spec = edge(spec, 0, 2, draws.next().expect("drawn"));
                }
                // x and y alike to the core vertices in `attach` (one at least).
                let attached: Vec<usize> = (0..core).filter(|&c| attach & (1 << c) != 0).collect();
                let attached = if attached.is_empty() {
                    vec![0]
                } else {
                    attached
                };
                for &c in &attached {
                    let draw = draws.next().unwrap_or((0, false));
                    spec = edge(spec, c, x, draw);
                    spec = edge(spec, c, y, draw);
                }
                let draw = draws.next().unwrap_or((0, false));
                spec = edge(spec, x, z, draw);
                edge(spec, y, z, draw)
            })
            .prop_filter("a query of n vertices", move |spec| {
                spec.graph().vertex_count() == n
            })
    })
}

fn case() -> impl Strategy<Value = (Spec, Spec)> {
    (any::<bool>(), 1u32..=2).prop_flat_map(|(directed, labels)| {
        let shape = Shape {
            directed,
            vertex_labels: labels,
            edge_labels: labels.min(2),
            density: if directed { 0.4 } else { 0.55 },
            multi: false,
        };
        (graph(shape, 4..=10), with_pairs(directed, labels))
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0xa1_2026),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn pair_counts_count_what_the_brute_force_counts((data, query) in case()) {
        let (q, d) = (query.graph(), data.graph());
        let index = DataIndex::build(d.clone()).expect("index");
        let expected = brute::count(&q, &d, false);
        let report = cpu_count(&q, &index, &MatchOptions::default());
        prop_assert_eq!(report.count, expected);
        let counted = MatchOptions { pair_counts: PairCounts::Always, ..MatchOptions::default() };
        let report = cpu_count(&q, &index, &counted);
        prop_assert_eq!(report.count, expected);
        let enumerated = MatchOptions { pair_counts: PairCounts::Never, ..MatchOptions::default() };
        let report = cpu_count(&q, &index, &enumerated);
        prop_assert!(report.plan.leaves.pairs.is_none());
        prop_assert_eq!(report.count, expected);
    }
}

/// gMatch's p5 (x and y on both ends of an edge, z on x and y) on K_7: 7!/2! embeddings, each
/// unordered pair {x, y} counted once (the order bound between them kept), and the plan's
/// explanation says so.
#[test]
fn the_five_vertex_pattern_counts_its_pairs_on_a_clique() {
    let mut p5 = Spec::new(false, vec![0; 5]);
    for (a, b) in [(0, 1), (0, 2), (1, 3), (2, 4), (3, 4), (3, 2), (1, 4)] {
        p5 = p5.edge(a, b, 0);
    }
    let mut data = Spec::new(false, vec![0; 7]);
    for a in 0..7 {
        for b in a + 1..7 {
            data = data.edge(a, b, 0);
        }
    }
    let index = DataIndex::build(data.graph()).expect("index");
    let options = MatchOptions {
        pair_counts: PairCounts::Always,
        ..MatchOptions::default()
    };
    let report = cpu_count(&p5.graph(), &index, &options);
    assert_eq!(report.count, 7 * 6 * 5 * 4 * 3);
    let pairs = report.plan.leaves.pairs.expect("counted by pairs");
    assert!(!pairs.ordered, "{}", report.plan);
    assert!(
        report.plan.to_string().contains("by their pairs"),
        "{}",
        report.plan
    );
}

/// A pair count spread over engines in shares (`--devices`), its plan made ahead, as a GPU
/// run plans it: the shares cut the core alone (cutting x's candidates would lose the pairs
/// with one member on each side of a cut), and add up to the brute force's count. Before,
/// 4-cycles counted over two and four GPUs gave three different totals.
#[test]
fn pair_counts_spread_in_shares_add_up() {
    let mut checked = 0;
    for seed in 0..6u64 {
        let mut spec = gsi_generate::GraphSpec::new(40, 300, gsi_generate::Shape::ScaleFree);
        spec.seed = seed;
        let data = gsi_generate::generate_graph(&spec).expect("graph");
        let index = DataIndex::build(data.clone()).expect("index");
        let mut p5 = Spec::new(false, vec![0; 5]);
        for (a, b) in [(0, 1), (0, 2), (1, 3), (2, 4), (3, 4), (3, 2), (1, 4)] {
            p5 = p5.edge(a, b, 0);
        }
        let mut cycle = Spec::new(false, vec![0; 4]);
        for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
            cycle = cycle.edge(a, b, 0);
        }
        for query in [p5.graph(), cycle.graph()] {
            let expected = brute::count(&query, &data, false);
            let options = MatchOptions {
                pair_counts_from: Some(4),
                pair_counts: PairCounts::Always,
                ..MatchOptions::default()
            };
            let planned = gsi_core::search::plan_ahead(&query, &index, &options, true)
                .expect("planned on the host")
                .expect("planned");
            let mut engines: Vec<Box<dyn gsi_core::Engine>> = vec![
                Box::new(CpuEngine::default()),
                Box::new(CpuEngine::default()),
            ];
            let report = gsi_core::find_matches_spread(
                &mut engines,
                &query,
                &index,
                &options,
                &mut CountOnly,
                None,
                Some(planned),
            )
            .expect("counted");
            assert!(report.plan.leaves.pairs.is_some(), "{}", report.plan);
            assert_eq!(report.count, expected, "seed {seed}");
            checked += u64::from(expected > 0);
        }
    }
    assert!(checked >= 6, "only {checked} counts were not zero");
}
