//! Automorphisms that move vertices of a count's leaf suffix: broken (an order bound that
//! sends those vertices back into the enumeration), left to the suffix's products, or chosen
//! between; each counted on random graphs against the brute force.

use std::sync::atomic::{AtomicUsize, Ordering};

use gsi_core::{DataIndex, MatchOptions, MatchReport, Semantics, SuffixInterchanges, TreeCounts};
use gsi_graph::VertexId;
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{graph, Shape};
use crate::util::{cpu_count, Spec, SPARSE_8_52_EDGES};

/// Two hubs, `members` vertices joined to both (interchangeable where their labels agree),
/// and pendants hung from members or hubs, which tie some interchanges of the members to the
/// hubs'; labels drawn from `0..labels`.
fn hubs_and_members(labels: u32) -> impl Strategy<Value = Spec> {
    (2usize..=4, prop::collection::vec(0usize..6, 0..=2)).prop_flat_map(
        move |(members, pendants)| {
            let n = 2 + members + pendants.len();
            prop::collection::vec(0..labels, n).prop_map(move |vertex_labels| {
                let mut spec = Spec::new(false, vertex_labels);
                for m in 2..2 + members {
                    spec = spec.edge(0, m as VertexId, 0).edge(1, m as VertexId, 0);
                }
                for (i, &at) in pendants.iter().enumerate() {
                    let at = at % (2 + members);
                    spec = spec.edge(at as VertexId, (2 + members + i) as VertexId, 0);
                }
                spec
            })
        },
    )
}

fn case() -> impl Strategy<Value = (Spec, Spec)> {
    (1u32..=2).prop_flat_map(|labels| {
        let shape = Shape {
            directed: false,
            vertex_labels: labels,
            edge_labels: 1,
            density: 0.45,
            multi: false,
        };
        (graph(shape, 6..=10), hubs_and_members(labels))
    })
}

/// The count of `query` over `index`, joined (no programs), with `interchanges`.
fn count(
    query: &Spec,
    index: &DataIndex,
    interchanges: SuffixInterchanges,
    equivalent_vertices: bool,
    depth_first_rows: Option<usize>,
) -> MatchReport {
    let options = MatchOptions {
        suffix_interchanges: interchanges,
        equivalent_vertices,
        depth_first_rows,
        tree_counts: TreeCounts::Never,
        ..MatchOptions::default()
    };
    cpu_count(&query.graph(), index, &options)
}

/// Whether `report`'s plan bounds a step of its leaf suffix, or the suffix starts later than
/// `from`.
fn suffix_cut(report: &MatchReport, from: usize) -> bool {
    report.plan.leaves.from > from
}

#[test]
fn suffix_interchanges_count_what_the_brute_force_counts() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 200,
        rng_seed: RngSeed::Fixed(0x5_0ff1),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let differ = AtomicUsize::new(0);
    runner
        .run(&case(), |(data, query)| {
            let index = DataIndex::build(data.graph()).expect("index");
            let expected = brute::count(&query.graph(), &data.graph(), false);
            for equivalent_vertices in [true, false] {
                for depth_first_rows in [None, Some(0), Some(usize::MAX)] {
                    for interchanges in [
                        SuffixInterchanges::Broken,
                        SuffixInterchanges::ByEstimate,
                        SuffixInterchanges::Counted,
                    ] {
                        let report = count(
                            &query,
                            &index,
                            interchanges,
                            equivalent_vertices,
                            depth_first_rows,
                        );
                        prop_assert_eq!(
                            report.count,
                            expected,
                            "{:?}, equivalent vertices {}, depth-first from {:?}\n{}",
                            interchanges,
                            equivalent_vertices,
                            depth_first_rows,
                            report.plan
                        );
                    }
                }
            }
            let counted = count(&query, &index, SuffixInterchanges::Counted, false, None);
            let broken = count(&query, &index, SuffixInterchanges::Broken, false, None);
            if suffix_cut(&broken, counted.plan.leaves.from) {
                differ.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    // A test where no automorphism moved a suffix vertex would prove nothing.
    let differ = differ.into_inner();
    assert!(
        differ >= 20,
        "the suffix's interchanges decided only {differ} of 200 plans"
    );
}

/// wordnet's query_sparse_8_52: hubs u0 and u1 (interchangeable), u2 and u3 on both
/// (interchangeable), u4 on both and on u7, u5 on both and on u6 and u7. Broken, u3 > u2
/// sends u2 and u3 back into the enumeration; counted, they stay in the leaf suffix with u6
/// and u7, while the steps before keep their bound (u1 > u0): the estimate takes that plan.
#[test]
fn two_interchangeable_leaves_on_two_hubs_stay_in_the_suffix() {
    let labels = vec![4, 4, 2, 2, 3, 4, 1, 2];
    let mut query = Spec::new(false, labels);
    for (a, b) in SPARSE_8_52_EDGES {
        query = query.edge(a, b, 0);
    }
    // Two hub pairs over a few of each label, every label-4 vertex joined to every other
    // vertex, so that every part of the query has matches.
    let data_labels: Vec<u32> = [4, 4, 4, 2, 2, 2, 3, 3, 1, 1].to_vec();
    let mut data = Spec::new(false, data_labels.clone());
    for (a, &la) in data_labels.iter().enumerate() {
        for (b, &lb) in data_labels.iter().enumerate().skip(a + 1) {
            if la == 4 || lb == 4 || la + lb == 5 {
                data = data.edge(a as VertexId, b as VertexId, 0);
            }
        }
    }
    let index = DataIndex::build(data.graph()).expect("index");
    let expected = brute::count(&query.graph(), &data.graph(), false);
    assert!(expected > 0);
    let options = MatchOptions {
        semantics: Semantics::Isomorphism,
        tree_counts: TreeCounts::Never,
        ..MatchOptions::default()
    };
    let chosen = cpu_count(&query.graph(), &index, &options);
    let counted = count(&query, &index, SuffixInterchanges::Counted, true, None);
    let broken = count(&query, &index, SuffixInterchanges::Broken, true, None);
    for report in [&chosen, &counted, &broken] {
        assert_eq!(report.count, expected, "{}", report.plan);
    }
    assert!(
        suffix_cut(&broken, counted.plan.leaves.from),
        "{}",
        broken.plan
    );
    assert_eq!(
        chosen.plan.leaves.from, counted.plan.leaves.from,
        "{}",
        chosen.plan
    );
    assert!(chosen.plan.symmetry.classes() > 1, "{}", chosen.plan);
    let explained = chosen.plan.to_string();
    assert!(
        explained.contains("the leaf suffix's interchanges counted by its products"),
        "{explained}"
    );
    assert!(!broken.plan.to_string().contains("interchanges counted"));
}

/// Two triangles on one edge (K_4 less an edge) of one label, the two tips not counted as
/// equivalent vertices: breaking their interchange sends both back into the enumeration, and
/// no suffix is left after them (the last is a count already): by estimate broken, counted
/// only when forced; each count the brute force's.
#[test]
fn an_interchange_with_no_suffix_after_it_stays_broken() {
    let query = Spec::new(false, vec![0; 4])
        .edge(0, 1, 0)
        .edge(0, 2, 0)
        .edge(0, 3, 0)
        .edge(1, 2, 0)
        .edge(1, 3, 0);
    let mut data = Spec::new(false, vec![0; 6]);
    for a in 0..6 {
        for b in a + 1..6 {
            data = data.edge(a, b, 0);
        }
    }
    let index = DataIndex::build(data.graph()).expect("index");
    let expected = brute::count(&query.graph(), &data.graph(), false);
    let chosen = count(&query, &index, SuffixInterchanges::ByEstimate, false, None);
    let counted = count(&query, &index, SuffixInterchanges::Counted, false, None);
    assert_eq!(chosen.count, expected, "{}", chosen.plan);
    assert_eq!(counted.count, expected, "{}", counted.plan);
    assert!(
        !chosen.plan.to_string().contains("interchanges counted"),
        "{}",
        chosen.plan
    );
    assert!(
        counted.plan.to_string().contains("interchanges counted"),
        "{}",
        counted.plan
    );
}
