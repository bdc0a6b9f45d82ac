//! A light verdict checked as the join runs: a count whose plan the first walks judged light
//! is planned again by sampling once its join passes a budget, and still counts what the
//! brute force counts; listings, limits and shares are never planned twice.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gsi_core::cpu::CpuEngine;
use gsi_core::{find_matches, CollectMatches, DataIndex, MatchOptions, MatchReport, Share};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

use crate::brute;
use crate::oracle::{data_and_subgraph, DIRECTED_MULTI, UNDIRECTED_MULTI};
use crate::util::{clique, cpu_count};

/// Every query judged light (no order sampled first), and its join given no time before it
/// is planned again.
fn replanned_at_once() -> MatchOptions {
    MatchOptions {
        heavy_query_work: 1e18,
        light_join_budget: Some(Duration::ZERO),
        ..MatchOptions::default()
    }
}

fn planned_again(report: &MatchReport) -> bool {
    report.plan.choice.planned_again_after.is_some()
}

/// K_4 in K_40 (40·39·38·37 embeddings): judged light, stopped at once, planned again by
/// sampling, and counted exactly; `--explain` says so. With the budget `never`, or the
/// default on a query that finishes within it, it is planned once.
#[test]
fn a_light_count_past_its_budget_is_planned_again_and_counted_exactly() {
    let index = DataIndex::build(clique(false, 40, 0).graph()).expect("index");
    let query = clique(false, 4, 0).graph();
    let report = cpu_count(&query, &index, &replanned_at_once());
    assert_eq!(report.count, 40 * 39 * 38 * 37);
    assert!(planned_again(&report), "{}", report.plan);
    assert!(
        report
            .plan
            .to_string()
            .contains("planned again by sampling"),
        "{}",
        report.plan
    );
    let never = MatchOptions {
        light_join_budget: Some(Duration::MAX),
        ..replanned_at_once()
    };
    let once = cpu_count(&query, &index, &never);
    assert_eq!(once.count, 40 * 39 * 38 * 37);
    assert!(!planned_again(&once), "{}", once.plan);
}

/// A listing, a limit and a share are joined once whatever the budget: their matches are
/// handed on as found, and a share's plan must be the one every share cuts.
#[test]
fn listings_limits_and_shares_are_planned_once() {
    let data = clique(false, 12, 0);
    let index = DataIndex::build(data.graph()).expect("index");
    let query = clique(false, 3, 0).graph();
    let mut listed = CollectMatches::default();
    let report = find_matches(
        &mut CpuEngine::default(),
        &query,
        &index,
        &replanned_at_once(),
        &mut listed,
    )
    .expect("listed");
    assert!(!planned_again(&report));
    assert_eq!(listed.sorted_rows().len(), 12 * 11 * 10);
    let limited = MatchOptions {
        limit: Some(5),
        ..replanned_at_once()
    };
    assert!(!planned_again(&cpu_count(&query, &index, &limited)));
    let mut total = 0;
    for i in 0..3 {
        let share = MatchOptions {
            share: Share::new(i, 3),
            ..replanned_at_once()
        };
        let report = cpu_count(&query, &index, &share);
        assert!(!planned_again(&report));
        total += report.count;
    }
    assert_eq!(total, 12 * 11 * 10);
}

/// Random queries of random labelled graphs, directed and undirected: judged light and
/// planned again at once, the count is the brute force's; most such joins are stopped (a test
/// whose joins all finished within no time would prove nothing of the second plan).
#[test]
fn counts_planned_again_equal_the_brute_force() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 120,
        rng_seed: RngSeed::Fixed(0x11_9e7),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let again = AtomicUsize::new(0);
    let cases = prop_oneof![
        data_and_subgraph(UNDIRECTED_MULTI, 4..=14, 6),
        data_and_subgraph(DIRECTED_MULTI, 4..=14, 6),
    ];
    runner
        .run(&cases, |(data, query)| {
            let (q, d) = (query.graph(), data.graph());
            let index = DataIndex::build(d.clone()).expect("index");
            let expected = brute::count(&q, &d, false);
            let report = cpu_count(&q, &index, &replanned_at_once());
            prop_assert_eq!(report.count, expected, "{}", report.plan);
            if planned_again(&report) {
                again.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let again = again.into_inner();
    assert!(again >= 30, "only {again} of 120 counts were planned again");
}
