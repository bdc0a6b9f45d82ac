//! Equivalent query vertices (same labels, same neighbours by the same edges) counted from one
//! extension set, against the brute force and against enumerating them: K_{2,m}, the 4-cycle,
//! books of triangles on one edge and stars, on random labelled graphs, directed and
//! undirected, under every semantics, with repeated labels.

use gsi_core::{DataIndex, MatchOptions, MatchReport, Semantics};
use gsi_graph::{Direction, VertexId};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{graph, Shape};
use crate::util::{clique, cpu_count, Spec};

/// A query of `hubs` vertices each joined to every one of `members` others (K_{hubs,members};
/// with one hub a star, with two and the hubs joined a book of triangles): the members are
/// equivalent where their labels agree. Labels of vertices and edges drawn from `0..labels`,
/// each edge's direction drawn.
fn with_equivalents(directed: bool, labels: u32) -> impl Strategy<Value = Spec> {
    (1usize..=2, 2usize..=5, any::<bool>()).prop_flat_map(move |(hubs, members, book)| {
        let n = hubs + members;
        let edges = hubs * members + usize::from(book && hubs == 2);
        (
            prop::collection::vec(0..labels, n),
            prop::collection::vec((0..labels.min(2), any::<bool>()), edges),
        )
            .prop_map(move |(vertex_labels, edge_draws)| {
                let mut spec = Spec::new(directed, vertex_labels);
                let mut pairs: Vec<(VertexId, VertexId)> = (0..hubs)
                    .flat_map(|h| (hubs..n).map(move |m| (h as VertexId, m as VertexId)))
                    .collect();
                if book && hubs == 2 {
                    pairs.push((0, 1));
                }
                for (&(a, b), &(label, flip)) in pairs.iter().zip(&edge_draws) {
                    let (s, t) = if flip && directed { (b, a) } else { (a, b) };
                    spec = spec.edge(s, t, label);
                }
                spec
            })
    })
}

fn case() -> impl Strategy<Value = (Semantics, Spec, Spec)> {
    (any::<bool>(), 1u32..=2, 0usize..3).prop_flat_map(|(directed, labels, semantics)| {
        let shape = Shape {
            directed,
            vertex_labels: labels,
            edge_labels: labels.min(2),
            density: if directed { 0.35 } else { 0.5 },
            multi: false,
        };
        let semantics = [
            Semantics::Isomorphism,
            Semantics::Homomorphism,
            Semantics::Induced,
        ][semantics];
        (
            Just(semantics),
            graph(shape, 1..=9),
            with_equivalents(directed, labels),
        )
    })
}

/// Whether the plan counted a group of equivalent vertices rather than enumerating it.
fn counted_equivalents(report: &MatchReport) -> bool {
    report.plan.leaves.groups.iter().any(|g| g.equivalent)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0xe9_2026),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn equivalent_vertices_count_what_the_brute_force_counts((semantics, data, query) in case()) {
        let (q, d) = (query.graph(), data.graph());
        let index = DataIndex::build(d.clone()).expect("index");
        let expected = match semantics {
            Semantics::Induced => brute::induced_matches(&q, &d).len() as u128,
            _ => brute::count(&q, &d, semantics == Semantics::Homomorphism),
        };
        // Joined, so that the leaves and equivalent vertices are what counts them.
        let options = MatchOptions { semantics, tree_counts: gsi_core::TreeCounts::Never, ..MatchOptions::default() };
        prop_assert_eq!(cpu_count(&query.graph(), &index, &options).count, expected);
        let enumerated = MatchOptions { equivalent_vertices: false, ..options };
        let report = cpu_count(&query.graph(), &index, &enumerated);
        prop_assert!(!counted_equivalents(&report));
        prop_assert_eq!(report.count, expected);
    }
}

/// K_{2,3} of one label in K_8, its two hubs joined (a book of three triangles): the three
/// equivalent vertices are counted from one extension set (8·7·6·5·4 isomorphisms;
/// homomorphisms as the brute force counts them), and the plan's explanation says so.
#[test]
fn a_complete_bipartite_query_counts_its_equivalent_side() {
    let mut query = Spec::new(false, vec![0; 5]).edge(0, 1, 0);
    for hub in 0..2 {
        for member in 2..5 {
            query = query.edge(hub, member, 0);
        }
    }
    let data = clique(false, 8, 0);
    let index = DataIndex::build(data.graph()).expect("index");
    for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
        let options = MatchOptions {
            semantics,
            tree_counts: gsi_core::TreeCounts::Never,
            ..MatchOptions::default()
        };
        let report = cpu_count(&query.graph(), &index, &options);
        let expected = brute::count(
            &query.graph(),
            &data.graph(),
            semantics == Semantics::Homomorphism,
        );
        assert_eq!(report.count, expected, "{semantics:?}");
        assert!(
            counted_equivalents(&report),
            "{semantics:?}: {}",
            report.plan
        );
        assert!(
            report.plan.to_string().contains("equivalent vertices"),
            "{}",
            report.plan
        );
    }
    assert_eq!(
        cpu_count(&query.graph(), &index, &MatchOptions::default()).count,
        8 * 7 * 6 * 5 * 4
    );
}

/// K_{2,3} whose hubs only its equivalent side joins: one member stays in the joined core, so
/// that the hubs are not joined as a Cartesian product (the plan's every step after the first
/// is linked to one before it), and the count is the brute force's.
#[test]
fn a_class_that_alone_joins_the_hubs_keeps_a_member_in_the_core() {
    let mut query = Spec::new(false, vec![0; 5]);
    for hub in 0..2 {
        for member in 2..5 {
            query = query.edge(hub, member, 0);
        }
    }
    let data = clique(false, 8, 0);
    let index = DataIndex::build(data.graph()).expect("index");
    let options = MatchOptions {
        tree_counts: gsi_core::TreeCounts::Never,
        ..MatchOptions::default()
    };
    let report = cpu_count(&query.graph(), &index, &options);
    assert_eq!(report.count, 8 * 7 * 6 * 5 * 4);
    let plan = &report.plan;
    for (i, step) in plan.steps.iter().enumerate().skip(1) {
        assert!(step.first.is_some(), "step {i} unlinked:\n{plan}");
    }
}

/// wordnet's query_dense_8_8 (two hubs on five vertices, two of which lie only between
/// them) on a scale-free graph: the class of the two hubs is not cut to one, which would leave
/// the two between on one hub alone in the core, and the count is the brute force's.
#[test]
fn a_class_whose_going_leaves_vertices_hanging_stays_in_the_core() {
    let mut query = Spec::new(false, vec![0; 8])
        .edge(1, 7, 0)
        .edge(4, 5, 0)
        .edge(4, 7, 0);
    for hub in [0, 6] {
        for w in 1..=5 {
            query = query.edge(hub, w, 0);
        }
    }
    let mut spec = gsi_generate::GraphSpec::new(40, 200, gsi_generate::Shape::ScaleFree);
    spec.seed = 3;
    let data = gsi_generate::generate_graph(&spec).expect("graph");
    let index = DataIndex::build(data.clone()).expect("index");
    let options = MatchOptions {
        tree_counts: gsi_core::TreeCounts::Never,
        ..MatchOptions::default()
    };
    let report = cpu_count(&query.graph(), &index, &options);
    assert_eq!(report.count, brute::count(&query.graph(), &data, false));
    // 2 and 3 are counted together, or each joined on both hubs.
    let plan = &report.plan;
    let counted: Vec<Vec<usize>> = plan
        .leaves
        .groups
        .iter()
        .filter(|g| g.equivalent)
        .map(|g| g.steps.iter().map(|&s| plan.steps[s].vertex).collect())
        .collect();
    for between in [2, 3] {
        let step = plan
            .steps
            .iter()
            .find(|s| s.vertex == between)
            .expect("a step");
        assert!(
            counted.contains(&vec![2, 3]) || 1 + step.others.len() == 2,
            "{plan}"
        );
    }
}

/// A star of 8 leaves of one label, beyond the 4 members a group of leaves of differing
/// sets may have: in K_12, 12 · 11!/3! isomorphisms, one group of 8.
#[test]
fn a_group_of_equivalent_leaves_has_no_cap() {
    let mut star = Spec::new(false, vec![0; 9]);
    for leaf in 1..9 {
        star = star.edge(0, leaf, 0);
    }
    let index = DataIndex::build(clique(false, 12, 0).graph()).expect("index");
    let options = MatchOptions {
        tree_counts: gsi_core::TreeCounts::Never,
        ..MatchOptions::default()
    };
    let report = cpu_count(&star.graph(), &index, &options);
    assert_eq!(report.count, 12 * (4..=11).product::<u128>());
    let groups = &report.plan.leaves.groups;
    assert!(
        groups.iter().any(|g| g.equivalent && g.steps.len() == 8),
        "{}",
        report.plan
    );
}

/// A wheel of four spokes on a graph with hubs: the rim's opposite vertices are equivalent,
/// but counting them together would leave the rim's other symmetries unbroken and order the
/// hub's wedges first. The plan enumerates them instead, with all 8 automorphisms broken,
/// and counts 8 embeddings per wheel, the wheels counted on their own: for each hub, the
/// 4-cycles among its neighbours (each pair of opposite corners a, c with k common
/// neighbours in the hub's neighbourhood closes k(k-1)/2 of them; each cycle has two such
/// pairs).
#[test]
fn a_wheels_rim_is_enumerated_with_its_symmetry_broken() {
    let mut spec = gsi_generate::GraphSpec::new(1500, 12000, gsi_generate::Shape::ScaleFree);
    spec.seed = 7;
    let data = gsi_generate::generate_graph(&spec).expect("graph");
    let index = DataIndex::build(data.clone()).expect("index");
    let mut wheel = Spec::new(false, vec![0; 5]);
    for (a, b) in [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (3, 4),
        (2, 4),
    ] {
        wheel = wheel.edge(a, b, 0);
    }
    let report = cpu_count(&wheel.graph(), &index, &MatchOptions::default());
    assert!(!counted_equivalents(&report), "{}", report.plan);
    assert!(
        report.plan.to_string().contains("8 automorphisms broken"),
        "{}",
        report.plan
    );
    let n = data.vertex_count();
    let neighbours: Vec<std::collections::BTreeSet<VertexId>> = (0..n as VertexId)
        .map(|v| {
            data.edges(v, Direction::Out)
                .0
                .iter()
                .copied()
                .filter(|&w| w != v)
                .collect()
        })
        .collect();
    let mut twice_cycles: u128 = 0;
    for hub in &neighbours {
        let around: Vec<VertexId> = hub.iter().copied().collect();
        for (i, &a) in around.iter().enumerate() {
            for &c in &around[i + 1..] {
                let k = neighbours[a as usize]
                    .intersection(&neighbours[c as usize])
                    .filter(|w| hub.contains(w))
                    .count() as u128;
                twice_cycles += k * k.saturating_sub(1) / 2;
            }
        }
    }
    assert!(twice_cycles > 0);
    assert_eq!(report.count, 8 * twice_cycles / 2);
}
