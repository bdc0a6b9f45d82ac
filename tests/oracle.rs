//! Property tests on small random labelled graphs: gsi's CPU engine against the brute force
//! and against the `vf2` crate, for counts and for the matches themselves.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicUsize, Ordering};

use gsi_core::cpu::CpuEngine;
use gsi_core::options::FilterTests;
use gsi_core::options::REFINE_ROUNDS;
use gsi_core::CpuTuning;
use gsi_core::{
    find_matches, CountOnly, DataIndex, Engine, JoinOrder, MatchOptions, MatchReport, MatchSink,
    Semantics, ShareCut, SharesCut, Status, SuffixInterchanges, TreeCounts,
};
use gsi_graph::{Direction, Graph, VertexId};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use crate::brute;
use crate::util::{clique, path, JudgedAsGpu, Spec};

/// A sink that keeps every match.
#[derive(Default)]
pub struct Collect {
    pub rows: Vec<Vec<VertexId>>,
}

impl MatchSink for Collect {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        assert!(
            width > 0 && rows.len().is_multiple_of(width),
            "a batch of whole rows"
        );
        self.rows
            .extend(rows.chunks_exact(width).map(<[_]>::to_vec));
        Ok(())
    }
}

/// Runs gsi's CPU engine.
pub fn gsi(
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
) -> MatchReport {
    gsi_tuned(query, data, options, CpuTuning::default(), sink)
}

/// Runs gsi's CPU engine with its join tuned by `tuning`.
pub fn gsi_tuned(
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    tuning: CpuTuning,
    sink: &mut dyn MatchSink,
) -> MatchReport {
    find_matches(&mut CpuEngine::new(tuning), query, data, options, sink).expect("gsi runs")
}

fn options(semantics: Semantics) -> MatchOptions {
    MatchOptions {
        semantics,
        ..MatchOptions::default()
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x6751_2020),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Vertex pairs that may carry an edge: `i < j` when undirected, `i != j` when directed.
fn pairs(n: usize, directed: bool) -> Vec<(VertexId, VertexId)> {
    let n = n as VertexId;
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in 0..n {
            if i < j || (directed && i != j) {
                pairs.push((i, j));
            }
        }
    }
    pairs
}

/// How random graphs are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub directed: bool,
    pub vertex_labels: u32,
    pub edge_labels: u32,
    /// Chance that a pair carries an edge of a given label (simple) or of each label (multi).
    pub density: f64,
    /// Whether a pair may carry several edges with different labels.
    pub multi: bool,
}

/// A random graph: each vertex pair carries edges with probability `density`.
pub fn graph(shape: Shape, sizes: RangeInclusive<usize>) -> impl Strategy<Value = Spec> {
    sizes.prop_flat_map(move |n| {
        let per_pair: BoxedStrategy<Vec<u32>> = if shape.multi {
            prop::collection::vec(
                prop::bool::weighted(shape.density),
                shape.edge_labels as usize,
            )
            .prop_map(|bits| {
                (0..bits.len() as u32)
                    .filter(|&l| bits[l as usize])
                    .collect()
            })
            .boxed()
        } else {
            prop::option::weighted(shape.density, 0..shape.edge_labels)
                .prop_map(|l| l.into_iter().collect())
                .boxed()
        };
        let pairs = pairs(n, shape.directed);
        (
            prop::collection::vec(0..shape.vertex_labels, n),
            prop::collection::vec((per_pair, any::<bool>()), pairs.len()),
        )
            .prop_map(move |(labels, chosen)| {
                let mut spec = Spec::new(shape.directed, labels);
                for (&(i, j), (edge_labels, flip)) in pairs.iter().zip(chosen) {
                    // Undirected edges are given in either orientation.
                    let (s, t) = if flip && !shape.directed {
                        (j, i)
                    } else {
                        (i, j)
                    };
                    for l in edge_labels {
                        spec.edges.push((s, t, l));
                    }
                }
                spec
            })
    })
}

/// A random connected graph: a random graph plus a random spanning tree over the vertex pairs
/// that have no edge yet.
pub fn connected(shape: Shape, sizes: RangeInclusive<usize>) -> impl Strategy<Value = Spec> {
    graph(shape, sizes).prop_flat_map(move |spec| {
        let n = spec.len();
        let tree = prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0..shape.edge_labels,
                any::<bool>(),
            ),
            n.saturating_sub(1),
        );
        (Just(spec), tree).prop_map(|(mut spec, tree)| {
            for (v, (parent, label, flip)) in tree.into_iter().enumerate() {
                let v = v as VertexId + 1;
                let p = parent.index(v as usize) as VertexId;
                let linked = spec
                    .edges
                    .iter()
                    .any(|&(s, t, _)| (s, t) == (p, v) || (s, t) == (v, p));
                if !linked {
                    spec.edges
                        .push(if flip { (v, p, label) } else { (p, v, label) });
                }
            }
            spec
        })
    })
}

/// A data graph and a query cut out of it: some of its vertices, in random order, with each
/// edge among them kept or dropped. The query has at least one match.
pub fn data_and_subgraph(
    shape: Shape,
    sizes: RangeInclusive<usize>,
    query_max: usize,
) -> impl Strategy<Value = (Spec, Spec)> {
    graph(shape, sizes)
        .prop_flat_map(move |data| (Just(data.clone()), subgraph_of(&data, query_max)))
}

/// A query cut out of `data`: 1 to `query_max` of its vertices in random order, each edge among
/// them kept or dropped.
pub fn subgraph_of(data: &Spec, query_max: usize) -> impl Strategy<Value = Spec> {
    let data = data.clone();
    let n = data.len();
    assert!(n > 0, "a query needs a vertex to start from");
    let chosen =
        prop::sample::subsequence((0..n as VertexId).collect::<Vec<_>>(), 1..=n.min(query_max))
            .prop_shuffle();
    let keep = prop::collection::vec(prop::bool::weighted(0.75), data.edges.len());
    (chosen, keep).prop_map(move |(chosen, keep)| {
        let labels = chosen.iter().map(|&v| data.labels[v as usize]).collect();
        let mut query = Spec::new(data.directed, labels);
        let at = |v: VertexId| chosen.iter().position(|&c| c == v);
        for (&(s, t, l), kept) in data.edges.iter().zip(keep) {
            if let (Some(a), Some(b), true) = (at(s), at(t), kept) {
                query.edges.push((a as VertexId, b as VertexId, l));
            }
        }
        query
    })
}

/// Every check against the brute force: the count, and the emitted matches (distinct, each one
/// valid, exactly the brute force's set).
fn check_against_brute(
    query: &Spec,
    data: &Spec,
    semantics: Semantics,
) -> Result<(), TestCaseError> {
    let q = query.graph();
    let d = data.graph();
    let homomorphism = semantics == Semantics::Homomorphism;
    let expected = match semantics {
        Semantics::Induced => brute::induced_matches(&q, &d),
        _ => brute::matches(&q, &d, homomorphism),
    };
    let brute_accepts = |row: &[VertexId]| match semantics {
        Semantics::Induced => brute::is_induced_match(&q, &d, row),
        _ => brute::is_match(&q, &d, row, homomorphism),
    };
    let index = DataIndex::build(d.clone()).expect("index");
    let options = options(semantics);

    // Counted breadth-first to the end, depth-first at once, and as the engine chooses; with
    // leaves counted as products, and enumerated.
    // With and without symmetry breaking.
    for (postpone_leaves, symmetry) in [(true, true), (false, true), (true, false), (false, false)]
    {
        for depth_first_rows in [Some(usize::MAX), Some(0), None] {
            let options = MatchOptions {
                depth_first_rows,
                postpone_leaves,
                symmetry,
                ..options.clone()
            };
            let counted = gsi(&q, &index, &options, &mut CountOnly);
            prop_assert_eq!(counted.status, Status::Complete);
            prop_assert_eq!(
                counted.count,
                expected.len() as u128,
                "count-only run, depth-first from {:?} rows, leaf products {}, symmetry {}",
                depth_first_rows,
                postpone_leaves,
                symmetry
            );
        }
    }
    // The leaf suffix's interchanges broken (its vertices enumerated again) and left to its
    // products, whatever the estimates say.
    for suffix_interchanges in [SuffixInterchanges::Broken, SuffixInterchanges::Counted] {
        for depth_first_rows in [Some(usize::MAX), Some(0)] {
            let options = MatchOptions {
                suffix_interchanges,
                depth_first_rows,
                ..options.clone()
            };
            let counted = gsi(&q, &index, &options, &mut CountOnly);
            prop_assert_eq!(
                counted.count,
                expected.len() as u128,
                "suffix interchanges {:?}, depth-first from {:?} rows",
                suffix_interchanges,
                depth_first_rows
            );
        }
    }
    // The filter on label and degree only (the paper's filtering experiment): larger sets,
    // the same count.
    for depth_first_rows in [Some(usize::MAX), Some(0)] {
        let options = MatchOptions {
            filter: FilterTests::LabelAndDegree,
            depth_first_rows,
            ..options.clone()
        };
        let counted = gsi(&q, &index, &options, &mut CountOnly);
        prop_assert_eq!(
            counted.count,
            expected.len() as u128,
            "label and degree filter, depth-first from {:?} rows",
            depth_first_rows
        );
    }
    // Every join order, with the paper's candidate sets and refined ones, depth-first at
    // once with and without the CPU's local candidates, failing sets and kept extensions.
    for join_order in [
        JoinOrder::Paper,
        JoinOrder::Growth,
        JoinOrder::Links,
        JoinOrder::Core,
        JoinOrder::Triangles,
        JoinOrder::Sampled,
    ] {
        for refine_rounds in [0, REFINE_ROUNDS] {
            for (local_candidates, failing_sets, kept_extensions) in [
                (true, true, true),
                (false, true, true),
                (true, false, true),
                (false, false, true),
                (true, true, false),
                (false, true, false),
            ] {
                let options = MatchOptions {
                    depth_first_rows: Some(0),
                    join_order,
                    refine_rounds,
                    heavy_query_work: 0.0,
                    ..options.clone()
                };
                let tuning = CpuTuning {
                    local_candidates,
                    failing_sets_from: failing_sets.then_some(0),
                    kept_extensions,
                    ..CpuTuning::default()
                };
                let counted = gsi_tuned(&q, &index, &options, tuning, &mut CountOnly);
                prop_assert_eq!(
                    counted.count,
                    expected.len() as u128,
                    "{:?} order, {} refinement rounds, local candidates {}, failing sets {}, \
                     kept extensions {}",
                    join_order,
                    refine_rounds,
                    local_candidates,
                    failing_sets,
                    kept_extensions
                );
            }
        }
    }
    let counted = gsi(&q, &index, &options, &mut CountOnly);

    let mut sink = Collect::default();
    let listed = gsi(&q, &index, &options, &mut sink);
    prop_assert_eq!(listed.status, Status::Complete);
    prop_assert_eq!(
        listed.count,
        counted.count,
        "count with and without matches wanted"
    );
    prop_assert_eq!(
        sink.rows.len() as u128,
        listed.count,
        "rows emitted vs count reported"
    );
    let distinct: HashSet<&Vec<VertexId>> = sink.rows.iter().collect();
    prop_assert_eq!(distinct.len(), sink.rows.len(), "a match was emitted twice");
    for row in &sink.rows {
        prop_assert!(brute_accepts(row), "not a match: {:?}", row);
        prop_assert!(
            gsi_core::verify::is_match(&q, &d, row, semantics),
            "verify rejects {:?}",
            row
        );
    }
    let mut found = sink.rows;
    found.sort();
    prop_assert_eq!(found, expected, "emitted matches vs brute force");
    Ok(())
}

pub fn semantics() -> impl Strategy<Value = Semantics> {
    prop_oneof![Just(Semantics::Isomorphism), Just(Semantics::Homomorphism)]
}

/// The semantics the brute force checks: isomorphism, homomorphism and induced.
fn every_semantics() -> impl Strategy<Value = Semantics> {
    prop_oneof![
        Just(Semantics::Isomorphism),
        Just(Semantics::Homomorphism),
        Just(Semantics::Induced)
    ]
}

pub const UNDIRECTED_MULTI: Shape = Shape {
    directed: false,
    vertex_labels: 2,
    edge_labels: 2,
    density: 0.35,
    multi: true,
};

pub const DIRECTED_MULTI: Shape = Shape {
    directed: true,
    vertex_labels: 2,
    edge_labels: 2,
    density: 0.25,
    multi: true,
};

pub const UNDIRECTED_SIMPLE: Shape = Shape {
    directed: false,
    vertex_labels: 2,
    edge_labels: 2,
    density: 0.5,
    multi: false,
};

pub const DIRECTED_SIMPLE: Shape = Shape {
    directed: true,
    vertex_labels: 2,
    edge_labels: 2,
    density: 0.35,
    multi: false,
};

/// `spec` with up to `more` further labels on each vertex, drawn from `0..labels`.
pub fn with_label_sets(spec: Spec, labels: u32, more: usize) -> impl Strategy<Value = Spec> {
    let n = spec.len();
    prop::collection::vec(prop::collection::vec(0..labels, 0..=more), n).prop_map(move |extra| {
        Spec {
            more_labels: extra
                .into_iter()
                .enumerate()
                .flat_map(|(v, ls)| ls.into_iter().map(move |l| (v as VertexId, l)))
                .collect(),
            ..spec.clone()
        }
    })
}

/// A data graph whose vertices carry up to three labels of three, and a connected query whose
/// vertices carry up to two.
fn label_sets(shape: Shape) -> impl Strategy<Value = (Spec, Spec)> {
    let shape = Shape {
        vertex_labels: 3,
        ..shape
    };
    (graph(shape, 1..=10), connected(query_shape(shape), 1..=4)).prop_flat_map(
        move |(data, query)| {
            (
                with_label_sets(data, shape.vertex_labels, 2),
                with_label_sets(query, shape.vertex_labels, 1),
            )
        },
    )
}

/// Queries: sparse, few labels, so that matches are frequent.
pub fn query_shape(data: Shape) -> Shape {
    Shape {
        density: data.density / 2.0,
        ..data
    }
}

proptest! {
    #![proptest_config(config(200))]

    /// Vertices of several labels (the paper's extension): a query vertex matches a data
    /// vertex that carries all of its labels; with edges of several labels (parallel edges of
    /// different labels) too, every semantics and path against the brute force.
    #[test]
    fn vertices_of_several_labels_agree_with_brute_force(
        (data, query) in prop_oneof![label_sets(UNDIRECTED_MULTI), label_sets(DIRECTED_MULTI)],
        semantics in every_semantics(),
    ) {
        check_against_brute(&query, &data, semantics)?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn undirected_connected_queries_agree_with_brute_force(
        data in graph(UNDIRECTED_MULTI, 1..=12),
        query in connected(query_shape(UNDIRECTED_MULTI), 1..=5),
        semantics in every_semantics(),
    ) {
        check_against_brute(&query, &data, semantics)?;
    }

    #[test]
    fn undirected_disconnected_queries_agree_with_brute_force(
        data in graph(UNDIRECTED_MULTI, 1..=10),
        query in graph(query_shape(UNDIRECTED_MULTI), 1..=5),
        semantics in every_semantics(),
    ) {
        check_against_brute(&query, &data, semantics)?;
    }

    #[test]
    fn directed_queries_agree_with_brute_force(
        data in graph(DIRECTED_MULTI, 1..=12),
        query in prop_oneof![
            connected(query_shape(DIRECTED_MULTI), 1..=5),
            graph(query_shape(DIRECTED_MULTI), 1..=4),
        ],
        semantics in every_semantics(),
    ) {
        check_against_brute(&query, &data, semantics)?;
    }

    #[test]
    fn subgraph_queries_agree_with_brute_force(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 5),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 5),
        ],
        semantics in every_semantics(),
    ) {
        prop_assert!(!brute::matches(&query.graph(), &data.graph(), false).is_empty());
        check_against_brute(&query, &data, semantics)?;
    }
}

/// The `vf2` crate's view of a [`Spec`]: an adjacency built from the edge list alone.
struct Vf2Graph {
    directed: bool,
    labels: Vec<u32>,
    out: Vec<Vec<(usize, u32)>>,
    inc: Vec<Vec<(usize, u32)>>,
}

impl Vf2Graph {
    /// Requires at most one edge per vertex pair (per ordered pair when directed).
    fn new(spec: &Spec) -> Vf2Graph {
        let n = spec.len();
        let mut g = Vf2Graph {
            directed: spec.directed,
            labels: spec.labels.clone(),
            out: vec![Vec::new(); n],
            inc: vec![Vec::new(); n],
        };
        for &(s, t, l) in &spec.edges {
            let (s, t) = (s as usize, t as usize);
            assert!(
                !g.out[s].iter().any(|&(w, _)| w == t),
                "vf2 needs simple graphs"
            );
            g.out[s].push((t, l));
            g.inc[t].push((s, l));
            if !spec.directed {
                assert!(
                    !g.out[t].iter().any(|&(w, _)| w == s),
                    "vf2 needs simple graphs"
                );
                g.out[t].push((s, l));
                g.inc[s].push((t, l));
            }
        }
        g
    }
}

impl vf2::Graph for Vf2Graph {
    type NodeLabel = u32;
    type EdgeLabel = u32;

    fn is_directed(&self) -> bool {
        self.directed
    }

    fn node_count(&self) -> usize {
        self.labels.len()
    }

    fn node_label(&self, node: vf2::NodeIndex) -> Option<&u32> {
        self.labels.get(node)
    }

    fn neighbors(
        &self,
        node: vf2::NodeIndex,
        direction: vf2::Direction,
    ) -> impl Iterator<Item = vf2::NodeIndex> {
        let list = match direction {
            vf2::Direction::Outgoing => &self.out[node],
            vf2::Direction::Incoming => &self.inc[node],
        };
        list.iter().map(|&(w, _)| w)
    }

    fn contains_edge(&self, source: vf2::NodeIndex, target: vf2::NodeIndex) -> bool {
        self.edge_label(source, target).is_some()
    }

    fn edge_label(&self, source: vf2::NodeIndex, target: vf2::NodeIndex) -> Option<&u32> {
        self.out[source]
            .iter()
            .find(|&&(w, _)| w == target)
            .map(|(_, l)| l)
    }
}

fn vf2_count(query: &Spec, data: &Spec) -> u128 {
    if query.len() > data.len() {
        // vf2 refuses such a pair; there is no injective map.
        return 0;
    }
    let q = Vf2Graph::new(query);
    let d = Vf2Graph::new(data);
    vf2::subgraph_isomorphisms(&q, &d)
        .node_eq(|a: &u32, b: &u32| a == b)
        .edge_eq(|a: &u32, b: &u32| a == b)
        .iter()
        .count() as u128
}

fn vf2_induced_count(query: &Spec, data: &Spec) -> u128 {
    if query.len() > data.len() {
        return 0;
    }
    let q = Vf2Graph::new(query);
    let d = Vf2Graph::new(data);
    vf2::induced_subgraph_isomorphisms(&q, &d)
        .node_eq(|a: &u32, b: &u32| a == b)
        .edge_eq(|a: &u32, b: &u32| a == b)
        .iter()
        .count() as u128
}

fn gsi_count(query: &Spec, data: &Spec) -> u128 {
    gsi_count_as(query, data, Semantics::Isomorphism)
}

fn gsi_count_as(query: &Spec, data: &Spec, semantics: Semantics) -> u128 {
    let index = DataIndex::build(data.graph()).expect("index");
    let options = MatchOptions {
        depth_first_rows: Some(0),
        semantics,
        ..MatchOptions::default()
    };
    let report = gsi(&query.graph(), &index, &options, &mut CountOnly);
    assert_eq!(report.status, Status::Complete);
    report.count
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn undirected_counts_agree_with_vf2(
        data in graph(UNDIRECTED_SIMPLE, 1..=12),
        query in prop_oneof![
            connected(query_shape(UNDIRECTED_SIMPLE), 1..=5),
            graph(query_shape(UNDIRECTED_SIMPLE), 1..=4),
        ],
    ) {
        prop_assert_eq!(gsi_count(&query, &data), vf2_count(&query, &data));
    }

    #[test]
    fn undirected_subgraph_counts_agree_with_vf2(
        (data, query) in data_and_subgraph(UNDIRECTED_SIMPLE, 1..=12, 5),
    ) {
        let count = gsi_count(&query, &data);
        prop_assert!(count > 0);
        prop_assert_eq!(count, vf2_count(&query, &data));
    }

    #[test]
    fn induced_counts_agree_with_vf2(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_SIMPLE, 1..=12, 5),
            data_and_subgraph(DIRECTED_SIMPLE, 1..=12, 5),
            (graph(UNDIRECTED_SIMPLE, 1..=12), connected(query_shape(UNDIRECTED_SIMPLE), 1..=5)),
            (graph(DIRECTED_SIMPLE, 1..=12), connected(query_shape(DIRECTED_SIMPLE), 1..=4)),
        ],
    ) {
        prop_assert_eq!(
            gsi_count_as(&query, &data, Semantics::Induced),
            vf2_induced_count(&query, &data)
        );
    }

    #[test]
    fn directed_counts_agree_with_vf2(
        (data, query) in prop_oneof![
            data_and_subgraph(DIRECTED_SIMPLE, 1..=12, 5),
            (graph(DIRECTED_SIMPLE, 1..=12), connected(query_shape(DIRECTED_SIMPLE), 1..=4)),
        ],
    ) {
        prop_assert_eq!(gsi_count(&query, &data), vf2_count(&query, &data));
    }
}

/// The floor of the join's memory documented in `crates/core/src/cpu/join.rs`: one row's
/// buffers, (max degree) × (|V(Q)| + 1) × 4 bytes.
/// The bound documented in `cpu/join.rs` for budgets below it: |V(Q)| × (|V(Q)| + 2) × 4.
pub fn documented_floor(query: &Graph, _data: &Graph) -> usize {
    let k = query.vertex_count();
    k * (k + 2) * 4
}

fn max_degree(data: &Graph) -> usize {
    (0..data.vertex_count() as VertexId)
        .map(|v| {
            data.degree(v, Direction::Out)
                .max(data.degree(v, Direction::In))
        })
        .max()
        .unwrap_or(0)
}

/// What the chunking can promise: each of the |V(Q)| steps holds at most its share of the
/// budget or, when one row alone needs more, one row's buffer and new-table slice (16 bytes of
/// bookkeeping included). A row's buffer holds one neighbour list, or a whole candidate set
/// for a step without a linking edge (the first step, a new component), so it is bounded by
/// the larger of the maximum degree and the largest label class.
pub fn chunking_bound(budget: usize, query: &Graph, data: &Graph) -> usize {
    let mut class = std::collections::HashMap::<u32, usize>::new();
    for &l in data.vertex_labels() {
        *class.entry(l).or_default() += 1;
    }
    let widest = max_degree(data).max(class.into_values().max().unwrap_or(0));
    let n = query.vertex_count();
    let one_row = 4 * widest * (n + 1) + 16;
    budget.max(n * one_row)
}

proptest! {
    #![proptest_config(config(300))]

    /// A tiny memory budget splits the join into many chunks; the answer must not change.
    #[test]
    fn a_tiny_memory_budget_gives_the_same_answer(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 5),
            (graph(UNDIRECTED_MULTI, 1..=12), connected(query_shape(UNDIRECTED_MULTI), 1..=5)),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 5),
        ],
        semantics in semantics(),
        budget in prop_oneof![Just(0usize), Just(64), Just(512), Just(4096)],
    ) {
        let q = query.graph();
        let index = DataIndex::build(data.graph()).expect("index");
        let unlimited = options(semantics);
        let limited = MatchOptions { memory_budget: budget, ..unlimited.clone() };
        let bound = chunking_bound(budget, &q, index.graph());

        let free = gsi(&q, &index, &unlimited, &mut CountOnly);
        let tight = gsi(&q, &index, &limited, &mut CountOnly);
        prop_assert_eq!(tight.status, Status::Complete);
        prop_assert_eq!(tight.count, free.count);
        prop_assert!(tight.peak_join_bytes <= bound,
            "count-only: peak {} > bound {}", tight.peak_join_bytes, bound);

        let mut all = Collect::default();
        gsi(&q, &index, &unlimited, &mut all);
        let mut chunked = Collect::default();
        let listed = gsi(&q, &index, &limited, &mut chunked);
        prop_assert_eq!(listed.count, free.count);
        prop_assert!(listed.peak_join_bytes <= bound,
            "with matches: peak {} > bound {}", listed.peak_join_bytes, bound);
        all.rows.sort();
        chunked.rows.sort();
        prop_assert_eq!(chunked.rows, all.rows);
    }

    /// The graph built from a specification holds exactly its edges, and reading its Sun–Luo
    /// text gives the same graph back.
    #[test]
    fn graphs_hold_their_edges_and_survive_sunluo_text(
        spec in prop_oneof![graph(UNDIRECTED_MULTI, 0..=12), graph(DIRECTED_MULTI, 0..=12)],
    ) {
        let g = spec.graph();
        prop_assert_eq!(g.vertex_count(), spec.len());
        prop_assert_eq!(g.edge_count(), spec.edges.len());
        prop_assert_eq!(g.edge_iter().collect::<std::collections::BTreeSet<_>>(), spec.edge_set());
        let path = std::path::Path::new("g.graph");
        let from_spec = gsi_graph::formats::sunluo::parse(path, spec.sunluo().as_bytes(), spec.directed);
        prop_assert_eq!(from_spec.expect("spec text parses"), g.clone());
        let from_graph = gsi_graph::formats::sunluo::parse(path, crate::util::sunluo(&g).as_bytes(), spec.directed);
        prop_assert_eq!(from_graph.expect("graph text parses"), g);
    }
}

/// The join's memory with a budget far below one row per step stays within the budget or the
/// documented floor: a row over the budget is taken a window of its list at a time.
#[test]
fn peak_join_bytes_stays_within_budget_or_documented_one_row_floor() {
    let data = crate::util::clique(false, 12, 0).graph();
    let query = crate::util::path(false, 5, 0).graph();
    let index = DataIndex::build(data).expect("index");
    let budget = 256;
    let options = MatchOptions {
        memory_budget: budget,
        ..MatchOptions::default()
    };
    let bound = budget.max(documented_floor(&query, index.graph()));
    let report = gsi(&query, &index, &options, &mut CountOnly);
    assert_eq!(report.count, 12 * 11 * 10 * 9 * 8);
    assert!(
        report.peak_join_bytes <= bound,
        "peak {} > max(budget {budget}, floor {})",
        report.peak_join_bytes,
        documented_floor(&query, index.graph())
    );
}

proptest! {
    #![proptest_config(config(200))]

    /// A limit stops at exactly `k` matches, all real, when more exist; else finds them all.
    #[test]
    fn a_limit_gives_exactly_k_valid_matches(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 4),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 4),
        ],
        semantics in semantics(),
        k in 1u128..40,
        budget in prop_oneof![Just(64usize), Just(1 << 20)],
    ) {
        let (q, d) = (query.graph(), data.graph());
        let homomorphism = semantics == Semantics::Homomorphism;
        let total = brute::count(&q, &d, homomorphism);
        let index = DataIndex::build(d.clone()).expect("index");
        let options = MatchOptions { semantics, limit: Some(k as u64), memory_budget: budget, ..MatchOptions::default() };
        let expected_status = if total > k { Status::Limit } else { Status::Complete };

        let counted = gsi(&q, &index, &options, &mut CountOnly);
        prop_assert_eq!((counted.count, counted.status), (total.min(k), expected_status));
        let at_once = MatchOptions { depth_first_rows: Some(0), ..options.clone() };
        let counted = gsi(&q, &index, &at_once, &mut CountOnly);
        prop_assert_eq!((counted.count, counted.status), (total.min(k), expected_status));

        let mut sink = Collect::default();
        let listed = gsi(&q, &index, &options, &mut sink);
        prop_assert_eq!((listed.count, listed.status), (total.min(k), expected_status));
        prop_assert_eq!(sink.rows.len() as u128, total.min(k));
        let checker = brute::Checker::new(&q, &d, homomorphism);
        prop_assert!(sink.rows.iter().all(|row| checker.is_match(row)));
        let distinct: HashSet<&Vec<VertexId>> = sink.rows.iter().collect();
        prop_assert_eq!(distinct.len(), sink.rows.len());
    }
}

/// Stars and spiders whose leaves share labels, so that the leaf products' inclusion–exclusion
/// over groups of up to four same-label leaves is exercised, against the brute force.
#[test]
fn leaf_products_with_same_label_leaves_equal_the_brute_force() {
    let mut runner = proptest::test_runner::TestRunner::new(config(48));
    let data_shape = Shape {
        directed: false,
        vertex_labels: 2,
        edge_labels: 1,
        density: 0.4,
        multi: false,
    };
    let shape = (
        graph(data_shape, 6..=12),
        1u32..=5,
        proptest::collection::vec(0u32..2, 0..=4),
    );
    runner
        .run(&shape, |(data, leaves, extra_labels)| {
            // A centre of label 0 with `leaves` leaves of label 1, and a second arm whose
            // leaves take `extra_labels`.
            let mut query = Spec::new(false, vec![0]);
            for _ in 0..leaves {
                let v = query.labels.len() as u32;
                query.labels.push(1);
                query = query.edge(0, v, 0);
            }
            let arm = query.labels.len() as u32;
            query.labels.push(0);
            query = query.edge(0, arm, 0);
            for label in extra_labels {
                let v = query.labels.len() as u32;
                query.labels.push(label);
                query = query.edge(arm, v, 0);
            }
            let (q, d) = (query.graph(), data.graph());
            let index = DataIndex::build(d.clone()).expect("index");
            for semantics in [Semantics::Isomorphism, Semantics::Homomorphism] {
                let expected = brute::count(&q, &d, semantics == Semantics::Homomorphism);
                let options = MatchOptions {
                    semantics,
                    ..MatchOptions::default()
                };
                let report = gsi(&q, &index, &options, &mut CountOnly);
                prop_assert_eq!(report.count, expected, "{:?}", semantics);
            }
            Ok(())
        })
        .unwrap();
}

/// Failing sets (the CPU's depth-first count skips the extensions a failed sibling's failing
/// set rules out): connected queries of up to seven vertices in sparse graphs with few labels,
/// where searches fail often, counted depth-first with and without them, with leaves joined
/// and multiplied, under isomorphism and induced matching, against the brute force; the sets
/// must skip extensions in many cases (a test where they never did would prove nothing).
#[test]
fn failing_sets_skip_extensions_and_keep_the_brute_force_count() {
    let mut runner = proptest::test_runner::TestRunner::new(config(120));
    let shape = Shape {
        directed: false,
        vertex_labels: 2,
        edge_labels: 1,
        density: 0.3,
        multi: false,
    };
    let skipping = AtomicUsize::new(0);
    let cases = (
        graph(shape, 12..=20),
        connected(query_shape(shape), 4..=7),
        prop::bool::ANY,
    );
    runner
        .run(&cases, |(data, query, induced)| {
            let (q, d) = (query.graph(), data.graph());
            let expected = match induced {
                true => brute::induced_matches(&q, &d).len() as u128,
                false => brute::count(&q, &d, false),
            };
            let semantics = match induced {
                true => Semantics::Induced,
                false => Semantics::Isomorphism,
            };
            let index = DataIndex::build(d).expect("index");
            let mut skipped = 0;
            for (failing_sets, postpone_leaves, local_candidates, paper, kept_extensions) in [
                (true, true, true, false, true),
                (true, true, false, false, false),
                (true, false, true, false, true),
                (true, false, false, false, true),
                (true, false, true, true, true),
                (false, false, true, true, true),
            ] {
                // The paper's sets and order leave more to fail than refined ones.
                let (refine_rounds, join_order) = match paper {
                    true => (0, JoinOrder::Paper),
                    false => (REFINE_ROUNDS, JoinOrder::Sampled),
                };
                let options = MatchOptions {
                    semantics,
                    depth_first_rows: Some(0),
                    postpone_leaves,
                    refine_rounds,
                    join_order,
                    ..MatchOptions::default()
                };
                let tuning = CpuTuning {
                    local_candidates,
                    failing_sets_from: failing_sets.then_some(0),
                    kept_extensions,
                    ..CpuTuning::default()
                };
                let report = gsi_tuned(&q, &index, &options, tuning, &mut CountOnly);
                prop_assert_eq!(
                    report.count,
                    expected,
                    "failing sets {}, leaf products {}, local candidates {}, paper's order {}, \
                     kept extensions {}",
                    failing_sets,
                    postpone_leaves,
                    local_candidates,
                    paper,
                    kept_extensions
                );
                if !failing_sets {
                    prop_assert_eq!(report.paths.skipped_by_failing_sets, 0);
                }
                skipped += report.paths.skipped_by_failing_sets;
            }
            if skipped > 0 {
                skipping.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let skipping = skipping.into_inner();
    assert!(
        skipping >= 10,
        "failing sets skipped extensions in only {skipping} of 120 cases"
    );
}

/// Symmetric queries (cycles, cliques, bowties, with few labels), so that symmetry breaking
/// cuts the join: the count on every path, and the matches listed (one per class, expanded
/// by the automorphisms), against the brute force; most plans of queries that fit their data
/// must break a symmetry (a test that exercised no constraint would prove nothing).
#[test]
fn symmetric_queries_count_and_list_what_the_brute_force_finds() {
    let mut runner = proptest::test_runner::TestRunner::new(config(40));
    let data_shape = Shape {
        directed: false,
        vertex_labels: 2,
        edge_labels: 1,
        density: 0.5,
        multi: false,
    };
    let shapes: [&[(u32, u32)]; 5] = [
        &[(0, 1), (1, 2), (2, 3), (3, 0)],
        &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)],
        &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
        &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)],
        &[(0, 1), (1, 2), (2, 0), (1, 3), (3, 2), (0, 4), (4, 5)],
    ];
    let broken = AtomicUsize::new(0);
    let fitting = AtomicUsize::new(0);
    let cases = (
        graph(data_shape, 10..=16),
        0..shapes.len(),
        prop::bool::ANY,
        prop::bool::ANY,
    );
    runner
        .run(&cases, |(data, shape, directed, two_labels)| {
            let edges = shapes[shape];
            let n = 1 + edges.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0) as usize;
            // Labels 0,0,..., or alternating 0,1 (a symmetry that keeps them remains).
            let labels = (0..n as u32)
                .map(|u| u32::from(two_labels) * (u % 2))
                .collect();
            let data = Spec { directed, ..data };
            let mut query = Spec::new(directed, labels);
            for &(a, b) in edges {
                query = query.edge(a, b, 0);
            }
            let (q, d) = (query.graph(), data.graph());
            let mut expected = brute::matches(&q, &d, false);
            expected.sort();
            let index = DataIndex::build(d.clone()).expect("index");
            let options = options(Semantics::Isomorphism);
            for depth_first_rows in [Some(usize::MAX), Some(0), None] {
                for (local_candidates, failing_sets) in [(true, true), (false, true), (true, false)]
                {
                    let options = MatchOptions {
                        depth_first_rows,
                        ..options.clone()
                    };
                    let tuning = CpuTuning {
                        local_candidates,
                        failing_sets_from: failing_sets.then_some(0),
                        ..CpuTuning::default()
                    };
                    let counted = gsi_tuned(&q, &index, &options, tuning, &mut CountOnly);
                    prop_assert_eq!(counted.count, expected.len() as u128);
                }
            }
            let mut sink = Collect::default();
            let listed = gsi(&q, &index, &options, &mut sink);
            // A query that cannot fit the data is answered without a plan to break.
            if gsi_core::fit::misfit(&q, &index).is_none() {
                fitting.fetch_add(1, Ordering::Relaxed);
                if listed.plan.symmetry.classes() > 1 {
                    broken.fetch_add(1, Ordering::Relaxed);
                }
            }
            prop_assert_eq!(listed.count, expected.len() as u128);
            sink.rows.sort();
            prop_assert_eq!(sink.rows, expected, "listed matches vs brute force");
            Ok(())
        })
        .unwrap();
    // Most of these queries have automorphisms (directed cliques and some labellings do not).
    let (broken, fitting) = (broken.into_inner(), fitting.into_inner());
    assert!(fitting >= 30, "only {fitting} of 40 queries fit their data");
    assert!(
        2 * broken >= fitting,
        "symmetry broken in only {broken} of {fitting} queries that fit their data"
    );
}

proptest! {
    #![proptest_config(config(150))]

    /// `--partition I/K`: the K shares' matches are disjoint and together exactly the brute
    /// force's; their counts, with leaves as products and depth-first, add up to the whole:
    /// cut by rows, dealt from the first table, the widest or one between (gathered from
    /// runs of a row or a few under a tiny memory budget), or as a grid; or counted whole by
    /// the first share's programs (quotients, a core), by the estimates or forced.
    #[test]
    fn shares_are_disjoint_and_add_up_to_the_whole(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 5),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 5),
        ],
        semantics in semantics(),
        shares in 1u32..13,
        share_cut in prop_oneof![
            Just(ShareCut::Rows),
            Just(ShareCut::Grid),
            Just(ShareCut::EvenGrid),
        ],
        rows_per_share in prop_oneof![Just(0.0), 0.0..8.0, Just(f64::INFINITY)],
        tiny_budget in prop::option::of(prop_oneof![Just(0usize), Just(512)]),
        tree_counts in prop_oneof![
            Just(TreeCounts::ByEstimate),
            Just(TreeCounts::Always),
            Just(TreeCounts::Never),
        ],
    ) {
        let (q, d) = (query.graph(), data.graph());
        let mut expected = brute::matches(&q, &d, semantics == Semantics::Homomorphism);
        expected.sort();
        let index = DataIndex::build(d.clone()).expect("index");
        let mut found = Vec::new();
        let mut counted = [0u128; 2];
        for i in 0..shares {
            let options = MatchOptions {
                semantics,
                share: gsi_core::Share::new(i, shares),
                share_cut,
                rows_per_share,
                memory_budget: tiny_budget.unwrap_or(MatchOptions::default().memory_budget),
                ..MatchOptions::default()
            };
            let mut sink = Collect::default();
            // Every other share on an engine that judges the plan as a GPU does: the shares
            // must still be one grid over one plan.
            let mut engine: Box<dyn Engine> = match i % 2 {
                0 => Box::new(CpuEngine::default()),
                _ => Box::new(JudgedAsGpu(CpuEngine::default())),
            };
            let listed = find_matches(engine.as_mut(), &q, &index, &options, &mut sink)
                .expect("gsi runs");
            prop_assert_eq!(listed.status, Status::Complete);
            prop_assert_eq!(sink.rows.len() as u128, listed.count);
            found.extend(sink.rows);
            for (total, depth_first_rows) in counted.iter_mut().zip([None, Some(0)]) {
                let options = MatchOptions { depth_first_rows, tree_counts, ..options.clone() };
                *total += find_matches(engine.as_mut(), &q, &index, &options, &mut CountOnly)
                    .expect("gsi runs")
                    .count;
            }
        }
        found.sort();
        prop_assert_eq!(found, expected.clone(), "the shares' matches vs brute force");
        prop_assert_eq!(counted, [expected.len() as u128; 2]);
    }
}

proptest! {
    #![proptest_config(config(100))]

    /// A query spread over several engines (`--devices`), forced even when small (at once, or
    /// after a whole run cut off at once), or answered whole by the first while the others
    /// are called off, the first engine planning it itself or joining a plan made ahead:
    /// the count is the brute force's, under either semantics.
    #[test]
    fn a_query_spread_over_engines_counts_what_the_brute_force_counts(
        (data, query) in prop_oneof![
            data_and_subgraph(UNDIRECTED_MULTI, 1..=12, 5),
            data_and_subgraph(DIRECTED_MULTI, 1..=12, 5),
        ],
        semantics in semantics(),
        engines in 1usize..4,
        shares_per_engine in 1u32..5,
        ahead in any::<bool>(),
        trial in prop_oneof![
            Just(None),
            Just(Some(std::time::Duration::ZERO)),
            Just(Some(std::time::Duration::from_secs(10))),
        ],
        pick in prop::option::of((0..5usize, 0..12 as VertexId)),
        share_cut in prop_oneof![Just(ShareCut::Rows), Just(ShareCut::Grid)],
        rows_per_share in prop_oneof![Just(0.0), 0.0..8.0, Just(f64::INFINITY)],
    ) {
        let (q, d) = (query.graph(), data.graph());
        // A constant, as `gsi sparql --devices` spreads them: its neighbours' pools are the
        // CPU's narrowest.
        let pinned: Vec<(usize, VertexId)> = pick
            .map(|(u, v)| (u % q.vertex_count(), v % d.vertex_count() as VertexId))
            .into_iter()
            .collect();
        let expected = brute::matches(&q, &d, semantics == Semantics::Homomorphism)
            .iter()
            .filter(|row| pinned.iter().all(|&(u, v)| row[u] == v))
            .count() as u128;
        let index = DataIndex::build(d.clone()).expect("index");
        // Every other engine filters as a GPU does (Sec. 3.2's sets, not the CPU's pools):
        // each plans the query itself, and the shares must still be one grid over one plan.
        let mut engines: Vec<Box<dyn gsi_core::Engine>> = (0..engines)
            .map(|e| match e % 2 {
                0 => Box::new(CpuEngine::default()) as Box<dyn gsi_core::Engine>,
                _ => Box::new(JudgedAsGpu(CpuEngine::default())),
            })
            .collect();
        let options = MatchOptions {
            semantics,
            shares_per_engine,
            pinned,
            share_cut,
            rows_per_share,
            ..MatchOptions::default()
        };
        // Spread at once; after a whole run that ends at once (a zero trial); or answered
        // whole within a long trial while the other engines, planned, waited and were called
        // off.
        let ahead = ahead
            .then(|| gsi_core::search::plan_ahead(&q, &index, &options, true))
            .flatten()
            .map(|planned| planned.expect("planned"));
        let report = gsi_core::find_matches_spread(
            &mut engines, &q, &index, &options, &mut CountOnly, trial, ahead,
        )
        .expect("matched");
        prop_assert_eq!(report.status, Status::Complete);
        prop_assert_eq!(report.count, expected);
    }
}

/// A triangle over an unlabelled scale-free graph, spread over four engines at once: as a
/// grid, its plan's walks find the first two steps to be its work, so the shares cut its
/// first vertex alone (32 × 1 × 1 × 1 × 1) where the evenest grid is 2 × 4 × 4; three shares
/// an engine make a grid of 12; cut by rows, its 3,000 vertices are fewer than 256 rows for
/// each of 32 shares, and its edges' rows are dealt. Each counts what the brute force
/// counts, and each engine reports its part.
#[test]
fn a_triangle_spread_over_engines_is_cut_as_its_plan_says() {
    let mut spec = gsi_generate::GraphSpec::new(3000, 15000, gsi_generate::Shape::ScaleFree);
    spec.seed = 3;
    let d = gsi_generate::generate_graph(&spec).expect("graph");
    let q = clique(false, 3, 0).graph();
    let expected = brute::count(&q, &d, false);
    assert!(expected > 1000, "{expected} triangles");
    let index = DataIndex::build(d).expect("index");
    for (share_cut, shares_per_engine, cut) in [
        (ShareCut::Grid, 8, SharesCut::Grid([32, 1, 1, 1, 1])),
        (ShareCut::EvenGrid, 8, SharesCut::Grid([2, 4, 4, 1, 1])),
        (ShareCut::Grid, 3, SharesCut::Grid([12, 1, 1, 1, 1])),
        (ShareCut::Rows, 8, SharesCut::Rows { width: 2 }),
    ] {
        let mut engines: Vec<Box<dyn gsi_core::Engine>> = (0..4)
            .map(|_| Box::new(CpuEngine::default()) as Box<dyn gsi_core::Engine>)
            .collect();
        let options = MatchOptions {
            share_cut,
            shares_per_engine,
            ..MatchOptions::default()
        };
        let report = gsi_core::find_matches_spread(
            &mut engines,
            &q,
            &index,
            &options,
            &mut CountOnly,
            None,
            None,
        )
        .expect("matched");
        assert_eq!(report.count, expected, "{share_cut:?}");
        let spread = report.spread.expect("spread");
        assert_eq!(spread.cut, cut, "{share_cut:?}");
        assert_eq!(spread.engines.len(), 4);
        assert_eq!(
            spread.engines.iter().map(|e| e.shares).sum::<u32>(),
            4 * shares_per_engine
        );
    }
}

/// Induced matches on shapes where they differ from the others: a path of k vertices in a
/// clique is never induced, a clique in a clique always is; a path in a path (with a chord or
/// not) sometimes. Counts and listed matches equal the brute force's, on every join path.
#[test]
fn induced_matches_drop_those_with_extra_edges() {
    let mut chorded = path(false, 6, 0);
    chorded.edges.push((0, 2, 0));
    let cases = [
        (clique(false, 5, 0), path(false, 3, 0)),
        (clique(false, 5, 0), clique(false, 3, 0)),
        (path(false, 6, 0), path(false, 3, 0)),
        (chorded.clone(), path(false, 3, 0)),
        (chorded, path(false, 4, 0)),
        (clique(true, 4, 0), path(true, 3, 0)),
    ];
    let mut differ = 0;
    for (data, query) in &cases {
        let (q, d) = (query.graph(), data.graph());
        let expected = brute::induced_matches(&q, &d);
        if expected.len() as u128 != brute::count(&q, &d, false) {
            differ += 1;
        }
        let index = DataIndex::build(d).expect("index");
        for depth_first_rows in [Some(0), Some(usize::MAX)] {
            for local_candidates in [true, false] {
                let options = MatchOptions {
                    semantics: Semantics::Induced,
                    depth_first_rows,
                    ..MatchOptions::default()
                };
                let tuning = CpuTuning {
                    local_candidates,
                    ..CpuTuning::default()
                };
                let counted = gsi_tuned(&q, &index, &options, tuning, &mut CountOnly);
                assert_eq!(
                    counted.count,
                    expected.len() as u128,
                    "{depth_first_rows:?}"
                );
                let mut sink = Collect::default();
                gsi_tuned(&q, &index, &options, tuning, &mut sink);
                sink.rows.sort();
                assert_eq!(sink.rows, expected);
            }
        }
    }
    assert!(
        differ >= 3,
        "only {differ} cases tell induced from isomorphism"
    );
}

/// Edge isomorphism as `--semantics edge-isomorphism` runs it: both graphs as line graphs,
/// matched induced. `None` when the query has no line graph (an isolated vertex).
fn gsi_edge_isomorphisms(query: &Spec, data: &Spec, options: &MatchOptions) -> Option<u128> {
    use gsi_core::{DataEdges, NamedSemantics};
    let data = DataIndex::build(data.graph()).expect("index");
    let (data, line) = DataEdges::of(&data).ok()?;
    let query = data.query(&query.graph()).ok()?;
    let index = DataIndex::build(line).expect("index");
    let options = MatchOptions {
        semantics: NamedSemantics::EdgeIsomorphism.semantics(),
        absent_labels: NamedSemantics::EdgeIsomorphism.absent_labels(),
        ..options.clone()
    };
    let mut listed = Collect::default();
    let counted = gsi(&query.graph, &index, &options, &mut CountOnly);
    let report = gsi(&query.graph, &index, &options, &mut listed);
    assert_eq!(counted.count, report.count, "counted and listed");
    // Each match takes distinct data edges (parallel ones are distinct line vertices).
    for row in &listed.rows {
        let distinct: HashSet<_> = row.iter().collect();
        assert_eq!(
            distinct.len(),
            row.len(),
            "a data edge used twice in {row:?}"
        );
        assert!(row.iter().all(|&v| (v as usize) < data.edges().len()));
    }
    Some(report.count)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn edge_isomorphism_counts_equal_the_brute_force(
        data in prop_oneof![graph(UNDIRECTED_SIMPLE, 3..=9), graph(UNDIRECTED_MULTI, 3..=7)],
        query in connected(query_shape(UNDIRECTED_SIMPLE), 2..=4),
        depth_first in any::<bool>(),
    ) {
        let options = MatchOptions {
            depth_first_rows: Some(if depth_first { 0 } else { usize::MAX }),
            ..MatchOptions::default()
        };
        let expected = brute::edge_isomorphism_count(&query.graph(), &data.graph());
        prop_assert_eq!(gsi_edge_isomorphisms(&query, &data, &options), Some(expected));
        if expected > 0 {
            EDGE_MATCHED.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Cases of the property above with at least one edge isomorphism.
static EDGE_MATCHED: AtomicUsize = AtomicUsize::new(0);

/// Runs after the property: most of its cases must have had matches to compare.
#[test]
fn edge_isomorphism_cases_mostly_have_matches() {
    edge_isomorphism_counts_equal_the_brute_force();
    let matched = EDGE_MATCHED.load(Ordering::Relaxed);
    assert!(
        matched >= 60,
        "only {matched} of 300 cases had an edge isomorphism"
    );
}

/// Whitney's exception: a triangle and a claw have the same line graph, so where their vertex
/// labels all agree each matches the other under edge isomorphism (3! maps of the three
/// edges), while under isomorphism neither holds the other.
#[test]
fn under_edge_isomorphism_a_triangle_matches_a_claw() {
    let triangle = Spec::new(false, vec![0; 3])
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(0, 2, 0);
    let claw = Spec::new(false, vec![0; 4])
        .edge(0, 1, 0)
        .edge(0, 2, 0)
        .edge(0, 3, 0);
    let options = MatchOptions::default();
    assert_eq!(gsi_edge_isomorphisms(&triangle, &claw, &options), Some(6));
    assert_eq!(gsi_edge_isomorphisms(&claw, &triangle, &options), Some(6));
    assert_eq!(
        brute::edge_isomorphism_count(&triangle.graph(), &claw.graph()),
        6
    );
    assert_eq!(gsi_count(&triangle, &claw), 0);
    // A leaf's label still counts: relabel one leaf of the claw.
    let mut other = claw.clone();
    other.labels[3] = 1;
    assert_eq!(gsi_edge_isomorphisms(&triangle, &other, &options), Some(0));
}
