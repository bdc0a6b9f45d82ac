//! Queries with cycles whose homomorphisms are their matches, counted over their 2-core
//! (`gsi_core`'s core counts: the core joined, the trees hanging from it counted by dynamic
//! programming) against the brute force: undirected and directed, under homomorphism (any
//! labels) and isomorphism (all labels distinct, or repeated only on neighbours), on one
//! engine and spread over three.

use gsi_core::{DataIndex, MatchOptions, Semantics, TreeCounts};
use gsi_graph::VertexId;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{graph, Shape};
use crate::util::{clique, cpu_count, labels_repeat_only_on_neighbours, spread_count, Spec};

/// A cycle of 3 to 5 vertices, 1 to 4 more vertices each hanging from a random earlier one
/// (3 to 4 and 1 to 2 for distinct labels),
/// and up to two more edges between two random vertices (more cycles, meeting the first or
/// joined to it by a path: a core of several blocks; or a second edge between two vertices); edges of labels drawn from `0..edge_labels` pointing either way; vertex labels drawn from
/// `0..labels`, or a shuffle of `0..n` when `distinct`.
fn cyclic(
    directed: bool,
    labels: u32,
    edge_labels: u32,
    distinct: bool,
) -> impl Strategy<Value = Spec> {
    // Distinct labels are few in the data: smaller queries match more often.
    let (cycles, trees) = match distinct {
        true => (3usize..=4, 1usize..=2),
        false => (3usize..=5, 1usize..=4),
    };
    (cycles, trees).prop_flat_map(move |(k, m)| {
        let n = k + m;
        let parents: Vec<BoxedStrategy<usize>> = (k..n).map(|i| (0..i).boxed()).collect();
        let vertex_labels = if distinct {
            Just((0..n as u32).collect::<Vec<u32>>())
                .prop_shuffle()
                .boxed()
        } else {
            prop::collection::vec(0..labels, n).boxed()
        };
        (
            parents,
            prop::collection::vec((0..edge_labels, any::<bool>()), n),
            prop::collection::vec((0..n, 0..n), 0..=2),
            vertex_labels,
        )
            .prop_map(move |(parents, edges, chords, labels)| {
                let mut spec = Spec::new(directed, labels);
                let add = |spec: Spec, i: usize, a: usize, b: usize| {
                    let (l, flip) = edges[i];
                    let (s, t) = if flip { (b, a) } else { (a, b) };
                    spec.edge(s as VertexId, t as VertexId, l)
                };
                for i in 0..k {
                    spec = add(spec, i, i, (i + 1) % k);
                }
                for (j, &p) in parents.iter().enumerate() {
                    spec = add(spec, k + j, k + j, p);
                }
                for (a, b) in chords.into_iter().filter(|(a, b)| a != b) {
                    let (a, b) = (a as VertexId, b as VertexId);
                    let there = spec.edges.iter().any(|&(s, t, l)| {
                        l == edge_labels - 1
                            && ((s, t) == (a, b) || (!directed && (s, t) == (b, a)))
                    });
                    if !there {
                        spec = spec.edge(a, b, edge_labels - 1);
                    }
                }
                spec
            })
    })
}

/// Whether `query` (connected) has a 2-core and trees hanging from it: peeling vertices of one
/// edge, again and again, leaves some and takes some.
fn hangs_trees(query: &Spec) -> bool {
    let core = core_of(query);
    core.len() < query.labels.len() && !core.is_empty()
}

/// Whether some vertex of `query`'s 2-core leaves a forest: as many edges as vertices less
/// components.
fn one_vertex_leaves_forest(query: &Spec) -> bool {
    let core = core_of(query);
    core.iter().any(|&x| {
        let kept: Vec<usize> = core.iter().copied().filter(|&u| u != x).collect();
        let edges: Vec<(usize, usize)> = query
            .edges
            .iter()
            .map(|&(s, t, _)| (s as usize, t as usize))
            .filter(|(s, t)| kept.contains(s) && kept.contains(t))
            .collect();
        // Components by repeated merging of labels.
        let mut component: Vec<usize> = (0..query.labels.len()).collect();
        let find = |component: &Vec<usize>, mut u: usize| {
            while component[u] != u {
                u = component[u];
            }
            u
        };
        let mut merges = 0;
        for &(s, t) in &edges {
            let (a, b) = (find(&component, s), find(&component, t));
            if a != b {
                component[a] = b;
                merges += 1;
            }
        }
        // A forest: every edge merged two components.
        merges == edges.len()
    })
}

/// The vertices of `query`'s 2-core.
fn core_of(query: &Spec) -> Vec<usize> {
    let mut degree = vec![0usize; query.labels.len()];
    for &(s, t, _) in &query.edges {
        degree[s as usize] += 1;
        degree[t as usize] += 1;
    }
    let mut peeled = vec![false; degree.len()];
    while let Some(u) = (0..degree.len()).find(|&u| !peeled[u] && degree[u] == 1) {
        peeled[u] = true;
        for &(s, t, _) in &query.edges {
            let (s, t) = (s as usize, t as usize);
            if s == u && !peeled[t] {
                degree[t] -= 1;
            } else if t == u && !peeled[s] {
                degree[s] -= 1;
            }
        }
    }
    (0..degree.len())
        .filter(|&u| !peeled[u] && degree[u] > 0)
        .collect()
}

/// A data graph and a query with a cycle for one case: for a query of distinct labels, a
/// graph of 10 to 16 vertices of 6 labels and one edge label, dense enough for them to
/// match; else of 4 to 9 vertices, 2 labels of each kind.
fn case() -> impl Strategy<Value = (bool, bool, Spec, Spec)> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_flat_map(
        |(directed, distinct, homomorphism)| {
            let (shape, sizes) = match distinct {
                true => (
                    Shape {
                        directed,
                        vertex_labels: 6,
                        edge_labels: 1,
                        density: if directed { 0.6 } else { 0.75 },
                        multi: false,
                    },
                    10..=16,
                ),
                false => (
                    Shape {
                        directed,
                        vertex_labels: 2,
                        edge_labels: 2,
                        density: if directed { 0.6 } else { 0.7 },
                        multi: true,
                    },
                    4..=9,
                ),
            };
            (
                Just(distinct),
                Just(homomorphism),
                graph(shape, sizes),
                cyclic(directed, shape.vertex_labels, shape.edge_labels, distinct),
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: RngSeed::Fixed(0xc02e_2026),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn queries_counted_over_their_core_equal_the_brute_force(
        (distinct, homomorphism, data, query) in case(),
    ) {
        let (q, d) = (query.graph(), data.graph());
        let semantics = if homomorphism { Semantics::Homomorphism } else { Semantics::Isomorphism };
        let index = DataIndex::build(d.clone()).expect("index");
        let expected = brute::count(&q, &d, homomorphism);
        // Pinned cores reading their candidate edges, then whole lists; cores joined.
        for (pinned_cores, program_candidate_edges) in [(true, true), (true, false), (false, true)] {
            let options = MatchOptions {
                semantics,
                tree_counts: TreeCounts::Always,
                pinned_cores,
                program_candidate_edges,
                ..MatchOptions::default()
            };
            let counted = cpu_count(&q, &index, &options);
            prop_assert_eq!(
                counted.count,
                expected,
                "pinned cores: {}, candidate edges: {}",
                pinned_cores,
                program_candidate_edges
            );
            // Counted over the core wherever homomorphisms are the matches and a tree hangs
            // from it, or, forced, a vertex pins it (unless the query cannot fit at all,
            // answered 0 before any method), pinned where a vertex leaves a forest and the
            // options allow; never where they are not, unless each block is pinned.
            let choice = counted.plan.choice.tree_count.clone();
            let pins = pinned_cores && one_vertex_leaves_forest(&query);
            let injective = homomorphism || distinct || labels_repeat_only_on_neighbours(&query);
            if injective && (hangs_trees(&query) || pins) {
                prop_assert!(counted.paths.tree_counted || expected == 0, "{}", counted.plan);
                // Where one vertex leaves a forest, so does one in each block; where none
                // does, the blocks may still be pinned one by one.
                prop_assert!(
                    choice.is_none_or(|c| c.core > 0 && c.chosen && (!pins || !c.pinned.is_empty()))
                        || expected == 0,
                    "{}",
                    counted.plan
                );
            } else {
                // Nor joined over a core with no tree: counted so only block by block.
                prop_assert!(
                    choice.is_none_or(|c| c.core == 0 || (pinned_cores && c.pinned.len() > 1)),
                    "{}",
                    counted.plan
                );
            }
        }
        let options = MatchOptions { semantics, tree_counts: TreeCounts::Always, ..MatchOptions::default() };
        let spread = spread_count(&q, &index, &options);
        prop_assert_eq!(spread.count, expected, "over three engines");
        for tree_counts in [TreeCounts::Never, TreeCounts::ByEstimate] {
            let options = MatchOptions { tree_counts, ..options.clone() };
            let counted = cpu_count(&q, &index, &options);
            prop_assert_eq!(counted.count, expected, "{:?}", tree_counts);
            if tree_counts == TreeCounts::Never {
                prop_assert!(!counted.paths.tree_counted);
            }
        }
    }
}

/// A triangle with a path of four edges hanging from each corner, under homomorphism in
/// K_12: the trees multiply the triangle's homomorphisms by 11^4 each, and the estimates
/// choose the core's count, which the plan names: by its program with a corner pinned, or by
/// its join.
#[test]
fn a_triangle_with_long_tails_is_counted_over_its_triangle() {
    let mut query = Spec::new(false, vec![0; 15])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0);
    for corner in 0..3u32 {
        let first = 3 + 4 * corner;
        query = query.edge(corner, first, 0);
        for v in first..first + 3 {
            query = query.edge(v, v + 1, 0);
        }
    }
    let data = clique(false, 12, 0);
    let index = DataIndex::build(data.graph()).expect("index");
    let expected = 12 * 11 * 10 * 11u128.pow(12);
    let options = MatchOptions {
        semantics: Semantics::Homomorphism,
        ..MatchOptions::default()
    };
    let counted = cpu_count(&query.graph(), &index, &options);
    assert_eq!(counted.count, expected);
    assert!(counted.paths.tree_counted, "{}", counted.plan);
    let choice = counted.plan.choice.tree_count.clone().expect("a choice");
    assert_eq!((choice.core, choice.chosen), (3, true), "{choice:?}");
    assert!(matches!(choice.pinned[..], [u] if u < 3), "{choice:?}");
    assert!(
        counted
            .plan
            .to_string()
            .contains("its 3-vertex 2-core counted with u"),
        "{}",
        counted.plan
    );
    // Joined instead, the core's homomorphisms listed, the count is the same.
    let joined = MatchOptions {
        pinned_cores: false,
        ..options
    };
    let counted = cpu_count(&query.graph(), &index, &joined);
    assert_eq!(counted.count, expected);
    assert!(
        counted
            .plan
            .to_string()
            .contains("the join of its 3-vertex 2-core"),
        "{}",
        counted.plan
    );
}

/// A triangle of labels 0, 0, 1 with a path of labels 2, 3 hanging from its third corner,
/// under isomorphism: its one repeated label is on two neighbours, so its homomorphisms are
/// its matches, and it is counted over its triangle, forced and by the estimates, as the
/// brute force counts it, on one engine and spread over three.
#[test]
fn a_triangle_of_repeated_neighbours_is_counted_over_its_core() {
    let query = Spec::new(false, vec![0, 0, 1, 2, 3])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 0);
    assert!(labels_repeat_only_on_neighbours(&query));
    let mut data = Spec::new(false, (0..32).map(|v| v % 4).collect());
    for v in 0..32u32 {
        for w in [v + 1, v + 2, v + 3, v + 4, v + 8] {
            if w < 32 {
                data = data.edge(v, w, 0);
            }
        }
    }
    let (q, d) = (query.graph(), data.graph());
    let index = DataIndex::build(d.clone()).expect("index");
    let expected = brute::count(&q, &d, false);
    assert!(expected > 0, "the case matches");
    let forced = MatchOptions {
        tree_counts: TreeCounts::Always,
        ..MatchOptions::default()
    };
    let counted = cpu_count(&q, &index, &forced);
    assert_eq!(counted.count, expected);
    assert!(counted.paths.tree_counted, "{}", counted.plan);
    let choice = counted.plan.choice.tree_count.clone().expect("a choice");
    assert_eq!((choice.core, choice.chosen), (3, true), "{choice:?}");
    assert_eq!(spread_count(&q, &index, &forced).count, expected, "spread");
    let by_estimate = cpu_count(&q, &index, &MatchOptions::default());
    assert_eq!(by_estimate.count, expected, "{}", by_estimate.plan);
}

/// Two triangles joined by a path of two edges, under homomorphism in K_12: no vertex leaves a
/// forest, but each block (the triangles, the path's edges) is pinned at the vertex it shares
/// with the block before it. Its homomorphisms into K_n are its colourings with n colours:
/// n(n-1)(n-2) for the first triangle, n-1 for each vertex of the path after it, (n-1)(n-2)
/// for the second triangle's other two.
#[test]
fn two_triangles_joined_by_a_path_are_counted_block_by_block() {
    let query = Spec::new(false, vec![0; 7])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 0)
        .edge(4, 5, 0)
        .edge(5, 6, 0)
        .edge(6, 4, 0);
    let index = DataIndex::build(clique(false, 12, 0).graph()).expect("index");
    let expected = 12 * 11u128.pow(4) * 10u128.pow(2);
    let options = MatchOptions {
        semantics: Semantics::Homomorphism,
        tree_counts: TreeCounts::Always,
        ..MatchOptions::default()
    };
    let counted = cpu_count(&query.graph(), &index, &options);
    assert_eq!(counted.count, expected);
    let choice = counted.plan.choice.tree_count.clone().expect("a choice");
    assert_eq!(choice.pinned.len(), 4, "{choice:?}");
    assert!(
        counted.plan.to_string().contains("counted block by block"),
        "{}",
        counted.plan
    );
    let joined = MatchOptions {
        pinned_cores: false,
        ..options
    };
    let counted = cpu_count(&query.graph(), &index, &joined);
    assert_eq!(counted.count, expected);
    assert!(!counted.plan.to_string().contains("block by block"));
}
