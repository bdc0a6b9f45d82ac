//! Tree-shaped queries counted by dynamic programming (`gsi_core::tree_count`) against the
//! brute force: undirected and directed, under homomorphism (any labels) and isomorphism
//! (all labels distinct or repeated only on neighbours, or repeated apart: then by
//! inclusion-exclusion over the query's quotients), with the path checked to be the one taken.

use gsi_core::{DataIndex, MatchOptions, Semantics, TreeCounts};
use gsi_graph::VertexId;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{graph, Shape};
use crate::util::{clique, cpu_count, labels_repeat_only_on_neighbours, path, spread_count, Spec};

/// A random tree of 2 to 6 vertices: vertex i hangs from a random earlier vertex by an edge
/// of label 0 or 1 pointing either way; vertex labels drawn from `0..labels`, or a shuffle
/// of `0..n` when `distinct`.
fn tree(directed: bool, labels: u32, distinct: bool) -> impl Strategy<Value = Spec> {
    (2usize..=6).prop_flat_map(move |n| {
        let parents: Vec<BoxedStrategy<usize>> = (1..n).map(|i| (0..i).boxed()).collect();
        let vertex_labels = if distinct {
            Just((0..n as u32).collect::<Vec<u32>>())
                .prop_shuffle()
                .boxed()
        } else {
            prop::collection::vec(0..labels, n).boxed()
        };
        (
            parents,
            prop::collection::vec((0u32..2, any::<bool>()), n - 1),
            vertex_labels,
        )
            .prop_map(move |(parents, edges, labels)| {
                let mut spec = Spec::new(directed, labels);
                for (i, (&p, &(l, flip))) in parents.iter().zip(&edges).enumerate() {
                    let (c, p) = ((i + 1) as VertexId, p as VertexId);
                    let (s, t) = if flip { (c, p) } else { (p, c) };
                    spec = spec.edge(s, t, l);
                }
                spec
            })
    })
}

/// A data graph and a tree query for one case.
fn case() -> impl Strategy<Value = (bool, bool, Spec, Spec)> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_flat_map(
        |(directed, distinct, homomorphism)| {
            // Distinct query labels are drawn from 0..6: the data's labels too.
            let shape = Shape {
                directed,
                vertex_labels: if distinct { 6 } else { 2 },
                edge_labels: 2,
                density: if directed { 0.3 } else { 0.4 },
                multi: true,
            };
            (
                Just(distinct),
                Just(homomorphism),
                graph(shape, 1..=9),
                tree(directed, shape.vertex_labels, distinct),
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: RngSeed::Fixed(0x7ee_2026),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn trees_counted_by_dynamic_programming_equal_the_brute_force(
        (distinct, homomorphism, data, query) in case(),
    ) {
        let (q, d) = (query.graph(), data.graph());
        let semantics = if homomorphism { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let index = DataIndex::build(d.clone()).expect("index");
        let expected = brute::count(&q, &d, homomorphism);
        let options = MatchOptions { semantics, tree_counts: TreeCounts::Always, ..MatchOptions::default() };
        let counted = cpu_count(&q, &index, &options);
        prop_assert_eq!(counted.count, expected);
        // The dynamic program answers every homomorphism count of a tree, and every
        // isomorphism count where the query's labels all differ (by draw or by chance).
        let mut labels = query.labels.clone();
        labels.sort_unstable();
        labels.dedup();
        let all_differ = labels.len() == query.labels.len();
        prop_assert!(all_differ || !distinct);
        // Where labels repeat, inclusion-exclusion over the quotients answers; where they
        // repeat only on neighbours (no two of one label apart), the dynamic program alone,
        // as two neighbours never share a data vertex. Either way the count is a tree's
        // (unless the query cannot fit at all, answered 0 before any method); no data vertex
        // here carries several labels, which would leave the join alone.
        prop_assert!(!d.has_label_sets());
        prop_assert!(counted.paths.tree_counted || expected == 0);
        let joined = MatchOptions { tree_counts: TreeCounts::Never, ..options };
        let joined = cpu_count(&q, &index, &joined);
        prop_assert!(!joined.paths.tree_counted);
        prop_assert_eq!(joined.count, expected);
    }
}

/// A data graph and a tree query of repeated labels, to be matched under isomorphism.
fn repeated_labels_case() -> impl Strategy<Value = (Spec, Spec)> {
    any::<bool>().prop_flat_map(|directed| {
        let shape = Shape {
            directed,
            vertex_labels: 2,
            edge_labels: 1,
            density: if directed { 0.35 } else { 0.45 },
            multi: false,
        };
        (graph(shape, 3..=10), tree(directed, 2, false))
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: RngSeed::Fixed(0x9_0071_2026),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Trees whose labels repeat, counted by inclusion-exclusion over their quotients (forced)
    /// and chosen by the estimates, against the brute force.
    #[test]
    fn trees_of_repeated_labels_counted_over_their_quotients_equal_the_brute_force(
        (data, query) in repeated_labels_case(),
    ) {
        let (q, d) = (query.graph(), data.graph());
        let index = DataIndex::build(d.clone()).expect("index");
        let expected = brute::count(&q, &d, false);
        for tree_counts in [TreeCounts::Always, TreeCounts::ByEstimate] {
            let options = MatchOptions { tree_counts, ..MatchOptions::default() };
            let counted = cpu_count(&q, &index, &options);
            prop_assert_eq!(counted.count, expected, "{:?}", tree_counts);
            let spread = spread_count(&q, &index, &options);
            prop_assert_eq!(spread.count, expected, "{:?} over three engines", tree_counts);
            // Planned over sets never refined, then refined for the programs at any work.
            let refined_for_programs = MatchOptions {
                refine_from_share: Some(2.0),
                refine_for_programs_from: 0.0,
                ..options
            };
            let counted = cpu_count(&q, &index, &refined_for_programs);
            prop_assert_eq!(counted.count, expected, "{:?}, refined for programs", tree_counts);
        }
    }
}

/// A star of four distinct labels, a path of repeated ones, and a path whose labels repeat
/// only on neighbours, on a graph where each matches many times: the dynamic program is taken
/// (under isomorphism for the first and the last: two neighbours never share a data vertex)
/// and counts what the brute force finds.
#[test]
fn a_star_and_a_path_are_counted_as_trees() {
    let mut data = Spec::new(false, (0..30).map(|v| v % 4).collect());
    for v in 0..30u32 {
        for w in [v + 1, v + 2, v + 3, v + 4, v + 7] {
            if w < 30 {
                data = data.edge(v, w, 0);
            }
        }
    }
    let star = Spec::new(false, vec![0, 1, 2, 3])
        .edge(0, 1, 0)
        .edge(0, 2, 0)
        .edge(0, 3, 0);
    let path = Spec::new(false, vec![1, 2, 1]).edge(0, 1, 0).edge(1, 2, 0);
    let mut neighbours = Spec::new(false, vec![0, 1, 1, 2, 2, 3]);
    for v in 0..5 {
        neighbours = neighbours.edge(v, v + 1, 0);
    }
    assert!(labels_repeat_only_on_neighbours(&neighbours));
    let d = data.graph();
    let index = DataIndex::build(d.clone()).expect("index");
    for (query, semantics) in [
        (&star, Semantics::Isomorphism),
        (&star, Semantics::Homomorphism),
        (&path, Semantics::Homomorphism),
        (&neighbours, Semantics::Isomorphism),
    ] {
        let q = query.graph();
        let options = MatchOptions {
            semantics,
            tree_counts: TreeCounts::Always,
            ..MatchOptions::default()
        };
        let report = cpu_count(&q, &index, &options);
        let expected = brute::count(&q, &d, semantics == Semantics::Homomorphism);
        assert!(expected > 0, "{semantics:?}: the case matches");
        assert_eq!(report.count, expected, "{semantics:?}");
        assert!(
            report.paths.tree_counted,
            "{semantics:?}: counted as a tree"
        );
        // Spread over three engines, each share counted by the program.
        let spread = spread_count(&q, &index, &options);
        assert_eq!(spread.count, expected, "{semantics:?} spread");
        assert!(
            spread.paths.tree_counted,
            "{semantics:?}: spread, counted as a tree"
        );
    }
}

/// A star of six leaves of one label has 203 quotients, more than a light join's cap: forced,
/// they are counted, and the sum is the brute force's; by the estimates, the light join.
#[test]
fn quotients_beyond_the_cap_of_light_joins_are_counted_where_forced() {
    let mut data = Spec::new(false, (0..24).map(|v| u32::from(v % 6 == 0)).collect());
    for v in 0..24u32 {
        for w in [v + 1, v + 2, v + 3, v + 5, v + 6] {
            if w < 24 {
                data = data.edge(v, w, 0);
            }
        }
    }
    let mut star = Spec::new(false, vec![1, 0, 0, 0, 0, 0, 0]);
    for leaf in 1..=6 {
        star = star.edge(0, leaf, 0);
    }
    let (q, d) = (star.graph(), data.graph());
    let index = DataIndex::build(d.clone()).expect("index");
    let expected = brute::count(&q, &d, false);
    assert!(expected > 0, "the case matches");
    let forced = MatchOptions {
        tree_counts: TreeCounts::Always,
        ..MatchOptions::default()
    };
    let report = cpu_count(&q, &index, &forced);
    assert_eq!(report.count, expected);
    assert!(report.paths.tree_counted, "counted over its quotients");
    let by_estimate = cpu_count(&q, &index, &MatchOptions::default());
    assert_eq!(by_estimate.count, expected);
    assert!(
        !by_estimate.paths.tree_counted,
        "a light join, 203 quotients"
    );
}

/// By the estimates: a path of 10 edges in K_100 (10^21 homomorphisms) is counted by the
/// dynamic program, a path of two edges from the one vertex of a rare label on a long path by
/// a join (the program would read every candidate set, of some 2,000); either forced the
/// other way counts the same, and the plan says which and why.
#[test]
fn the_estimates_choose_between_the_tree_and_the_join() {
    let count = |query: &Spec, data: &Spec, semantics, tree_counts| {
        let index = DataIndex::build(data.graph()).expect("index");
        let options = MatchOptions {
            semantics,
            tree_counts,
            ..MatchOptions::default()
        };
        cpu_count(&query.graph(), &index, &options)
    };
    let mut rare = path(false, 2000, 0);
    rare.labels[1000] = 1;
    let arm = Spec::new(false, vec![1, 0, 0]).edge(0, 1, 0).edge(1, 2, 0);
    // n·(n−1)^k homomorphisms of a path of k edges in K_n; from the rare vertex, each of its
    // two neighbours and on away from it (label 0 only).
    for (query, data, semantics, tree, expected) in [
        (
            &path(false, 11, 0),
            &clique(false, 100, 0),
            Semantics::Homomorphism,
            true,
            100 * 99u128.pow(10),
        ),
        (&arm, &rare, Semantics::Homomorphism, false, 2),
    ] {
        let chosen = count(query, data, semantics, TreeCounts::ByEstimate);
        assert_eq!(chosen.paths.tree_counted, tree, "{}", chosen.plan);
        let choice = chosen
            .plan
            .choice
            .tree_count
            .clone()
            .expect("a tree count was possible");
        assert!(choice.chosen == tree && !choice.forced, "{choice:?}");
        let said = match tree {
            true => "count: dynamic programming over the tree",
            false => "count: a join",
        };
        assert!(chosen.plan.to_string().contains(said), "{}", chosen.plan);
        assert_eq!(chosen.count, expected);
    }
    // Forced the other way, the light query is counted alike (the heavy one has too many
    // homomorphisms to join).
    let forced = count(&arm, &rare, Semantics::Homomorphism, TreeCounts::Always);
    assert!(forced.paths.tree_counted);
    assert_eq!(forced.count, 2);
    let choice = forced
        .plan
        .choice
        .tree_count
        .expect("a tree count was possible");
    assert!(choice.chosen && choice.forced, "{choice:?}");
}

/// A tree whose labels repeat, counted over its quotients with no time left: no partial sum
/// is given for a count, as a part of the terms bounds nothing; the count is 0, timed out.
/// With time, the same query is counted exactly, on one engine and spread over three.
#[test]
fn quotients_out_of_time_give_no_partial_sum() {
    let data = clique(false, 12, 0);
    // 0 - 1 - 2 - 3, every label 0: its ends are apart, so it has quotients.
    let query = path(false, 4, 0);
    let (q, d) = (query.graph(), data.graph());
    let index = DataIndex::build(d.clone()).expect("index");
    // The quotient of its ends merged, a triangle, is joined (not counted by the program
    // of a pinned core): the one quotient that is cut into shares.
    let options = MatchOptions {
        tree_counts: TreeCounts::Always,
        pinned_cores: false,
        ..MatchOptions::default()
    };
    let counted = cpu_count(&q, &index, &options);
    assert_eq!(counted.count, 12 * 11 * 10 * 9);
    assert!(counted.paths.tree_counted, "counted over its quotients");
    // Over three engines, the quotients share the 24 cuts by their estimates, at least one
    // each, three (one an engine) where a hundred times the estimate makes a share of the
    // whole, one where a tree's program counts it: more shares than quotients, at most the
    // 24, one more each and three each.
    let spread = spread_count(&q, &index, &options);
    assert_eq!(spread.count, 12 * 11 * 10 * 9);
    assert!(spread.paths.tree_counted, "counted over its quotients");
    let spread = spread.spread.expect("spread");
    let shares = spread.engines.iter().map(|e| e.shares).sum::<u32>();
    assert!(shares > 5 && shares <= 24 + 5 + 15, "{shares} shares");
    // One record a share: each quotient whole once, or each of its cuts once.
    assert_eq!(spread.shares.len(), shares as usize);
    for part in 0..5 {
        let cuts = crate::util::shares_of(&spread.shares, part);
        let n = cuts.first().map_or(0, |c| c.1);
        let all: Vec<(u32, u32)> = (0..n).map(|i| (i, n)).collect();
        assert_eq!(cuts, all, "quotient {part}");
    }
    for (at, e) in spread.engines.iter().enumerate() {
        let busy: std::time::Duration = spread
            .shares
            .iter()
            .filter(|t| t.engine == at)
            .map(|t| t.took)
            .sum();
        assert_eq!(busy, e.busy, "engine {at}");
    }
    let late = MatchOptions {
        deadline: Some(std::time::Instant::now()),
        ..options
    };
    let spread = spread_count(&q, &index, &late);
    assert_eq!(
        (spread.count, spread.status),
        (0, gsi_core::Status::Timeout),
        "spread over three engines"
    );
    let stopped = cpu_count(&q, &index, &late);
    let choice = stopped
        .plan
        .choice
        .tree_count
        .clone()
        .expect("a tree's choice");
    // Itself, {0, 2}, {1, 3}, {0, 3}, and {0, 2} with {1, 3}.
    assert!(choice.chosen && choice.quotients == 5, "{choice:?}");
    assert_eq!(
        (stopped.count, stopped.status),
        (0, gsi_core::Status::Timeout)
    );
}

/// The weight of a program's read against the join's (`MatchOptions::program_cost`, a GPU's
/// ten, the CPU's one) turns the choice: a path of three edges in K_12 under homomorphism is
/// counted by the tree's program where its reads weigh nothing, joined where they weigh
/// everything, and counted alike either way.
#[test]
fn the_programs_cost_against_the_join_turns_the_choice() {
    let index = DataIndex::build(clique(false, 12, 0).graph()).expect("index");
    let query = path(false, 4, 0).graph();
    for (cost, counted_by_program) in [(1e-9, true), (1e9, false)] {
        let options = MatchOptions {
            semantics: Semantics::Homomorphism,
            program_cost: Some(cost),
            ..MatchOptions::default()
        };
        let counted = cpu_count(&query, &index, &options);
        assert_eq!(counted.count, 12 * 11u128.pow(3), "cost {cost}");
        let choice = counted
            .plan
            .choice
            .tree_count
            .clone()
            .expect("a tree's choice");
        assert_eq!(
            (choice.chosen, counted.paths.tree_counted, choice.forced),
            (counted_by_program, counted_by_program, false),
            "cost {cost}: {choice:?}"
        );
    }
}

/// A path whose labels repeat, on a chain that holds it and a short one whose candidates only
/// refinement removes: planned over sets the engine left unrefined, the query's sets are
/// refined for its quotients' programs, and the count is the brute force's.
#[test]
fn quotients_counted_over_sets_refined_for_their_programs() {
    // 0-1-...-9 alternating labels 1 and 2; 10-11-12 labelled 1, 2, 1: vertex 11 passes the
    // filter for u1 and u3 but has no neighbour that could be u2.
    let labels: Vec<u32> = (0..10).map(|v| 1 + v % 2).chain([1, 2, 1]).collect();
    let mut data = Spec::new(false, labels);
    for v in 0..9 {
        data = data.edge(v, v + 1, 0);
    }
    data = data.edge(10, 11, 0).edge(11, 12, 0);
    let query = Spec {
        labels: vec![1, 2, 1, 2, 1],
        ..path(false, 5, 0)
    };
    let (q, d) = (query.graph(), data.graph());
    let index = DataIndex::build(d.clone()).expect("index");
    let expected = brute::count(&q, &d, false);
    assert!(expected > 0, "the chain holds the path");
    let options = MatchOptions {
        tree_counts: TreeCounts::Always,
        refine_from_share: Some(2.0),
        refine_for_programs_from: 0.0,
        ..MatchOptions::default()
    };
    let counted = cpu_count(&q, &index, &options);
    assert_eq!(counted.count, expected);
    assert!(counted.paths.tree_counted, "{}", counted.plan);
}

/// A triangle with a path hanging from it and a 4-cycle alone, their labels repeated, on
/// random graphs, every join heavy enough to weigh quotients: with the programs made to
/// look cheap, the estimates count the first over its quotients (a query with cycles takes
/// them where trees hang from its core) and join the 4-cycle (all core: its quotients are
/// only taken where forced); made to look dear, both are joined. Every count is the brute
/// force's.
#[test]
fn cycles_with_trees_hanging_take_their_quotients_by_the_estimates() {
    let hanging = Spec::new(false, vec![0, 1, 0, 1, 0, 1])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 0)
        .edge(4, 5, 0);
    let cycle = Spec::new(false, vec![0, 1, 0, 1])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 3, 0)
        .edge(3, 0, 0);
    let mut counted_by_quotients = 0;
    for seed in 0..3u64 {
        let mut spec = gsi_generate::GraphSpec::new(40, 160, gsi_generate::Shape::ScaleFree);
        spec.seed = seed;
        spec.vertex_labels = 2;
        let data = gsi_generate::generate_graph(&spec).expect("graph");
        let index = DataIndex::build(data.clone()).expect("index");
        for (query, trees_hang) in [(&hanging, true), (&cycle, false)] {
            let q = query.graph();
            let expected = brute::count(&q, &data, false);
            for cost in [1e-9, 1e9] {
                let options = MatchOptions {
                    program_cost: Some(cost),
                    cyclic_quotients_from: 0.0,
                    ..MatchOptions::default()
                };
                let counted = cpu_count(&q, &index, &options);
                let what = format!("seed {seed}, trees hang {trees_hang}, cost {cost}");
                assert_eq!(counted.count, expected, "{what}: {}", counted.plan);
                let by_quotients = trees_hang && cost < 1.0;
                assert_eq!(
                    counted.paths.tree_counted, by_quotients,
                    "{what}: {}",
                    counted.plan
                );
                let forced = counted
                    .plan
                    .choice
                    .tree_count
                    .as_ref()
                    .is_some_and(|c| c.forced);
                assert!(!forced, "{what}");
                counted_by_quotients += u32::from(by_quotients && expected > 0);
            }
        }
    }
    assert!(
        counted_by_quotients >= 2,
        "only {counted_by_quotients} counts were not zero"
    );
}
