//! A count's programs run beside the join the estimates chose (`programs_beside_after`):
//! the first to finish gives the count, against the brute force or a closed form, and the
//! other stops.

use std::time::{Duration, Instant};

use gsi_core::cpu::CpuEngine;
use gsi_core::{
    find_matches, Candidates, CountOnly, DataIndex, Engine, JoinOutcome, MatchOptions, MatchSink,
    Plan, Status, TreeCounts,
};
use gsi_graph::Graph;

use crate::brute;
use crate::util::{complete_multipartite, cpu_count, path_in_multipartite, Spec};

/// Options under which the estimates choose the join (a program's read weighs a billion of
/// the join's), which enumerates (no leaf products), with the programs beside it `after`.
fn join_chosen(after: Duration) -> MatchOptions {
    MatchOptions {
        program_cost: Some(1e9),
        postpone_leaves: false,
        programs_beside_after: Some(after),
        ..MatchOptions::default()
    }
}

/// The join takes seconds, the tree's program a millisecond: the programs, started at once
/// beside it, count first, and the join stops.
#[test]
fn programs_beside_a_slow_join_count_first() {
    let (query, data) = path_in_multipartite(50);
    let index = DataIndex::build(data.graph()).expect("index");
    let q = query.graph();
    let started = Instant::now();
    let report = cpu_count(&q, &index, &join_chosen(Duration::ZERO));
    assert_eq!(report.count, 50u128.pow(6));
    assert_eq!(report.status, Status::Complete);
    assert!(report.paths.programs_beside, "{}", report.paths);
    assert!(report.paths.tree_counted);
    assert!(
        report.paths.to_string().contains("finished first"),
        "{}",
        report.paths
    );
    // The plan shown is the join's, which the estimates chose.
    let choice = report.plan.choice.tree_count.clone().expect("weighed");
    assert!(!choice.chosen, "{choice:?}");
    // The join stopped once the programs had counted: alone, its 50^5 rows took 9.4 s on two
    // cores (the race, a few milliseconds).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

/// A path of labels 0, 1, 2, 0, 1, 2 in the complete 3-partite graph of 50 vertices a label:
/// its labels repeat apart, and each vertex takes any vertex of its label but the one its
/// namesake took, m^3 (m-1)^3 matches. Its quotients, started beside a join that enumerates
/// 50^3 · 49^2 rows, count first.
#[test]
fn quotients_passed_over_are_counted_beside_the_join() {
    let query = (0..5).fold(Spec::new(false, vec![0, 1, 2, 0, 1, 2]), |q, v| {
        q.edge(v, v + 1, 0)
    });
    let index = DataIndex::build(complete_multipartite(3, 50).graph()).expect("index");
    let report = cpu_count(&query.graph(), &index, &join_chosen(Duration::ZERO));
    assert_eq!(report.count, 50u128.pow(3) * 49u128.pow(3));
    let choice = report.plan.choice.tree_count.clone().expect("weighed");
    assert!(choice.quotients > 0 && !choice.chosen, "{choice:?}");
    assert!(report.paths.programs_beside, "{}", report.paths);
}

/// A triangle of labels 0, 1, 2 with a path of labels 3, 4, 5 hanging from it, in the complete
/// 6-partite graph of 30 vertices a label: 30^6 matches. The estimates weigh its count over
/// its core and pass it over; beside the join, the core's program counts first.
#[test]
fn a_core_passed_over_is_counted_beside_the_join() {
    let (_, data) = path_in_multipartite(30);
    let query = Spec::new(false, (0..6).collect())
        .edge(0, 1, 0)
        .edge(1, 2, 0)
        .edge(2, 0, 0)
        .edge(2, 3, 0)
        .edge(3, 4, 0)
        .edge(4, 5, 0);
    let index = DataIndex::build(data.graph()).expect("index");
    let report = cpu_count(&query.graph(), &index, &join_chosen(Duration::ZERO));
    assert_eq!(report.count, 30u128.pow(6));
    let choice = report.plan.choice.tree_count.clone().expect("weighed");
    assert_eq!((choice.core, choice.chosen), (3, false), "{choice:?}");
    assert!(report.paths.programs_beside, "{}", report.paths);
}

/// With a head start longer than the join, the programs never start and the join's count
/// stands; never, the same; out of time, the join's report stands and nothing waits for the
/// programs' head start.
#[test]
fn a_join_that_ends_first_stands() {
    let (query, data) = path_in_multipartite(6);
    let index = DataIndex::build(data.graph()).expect("index");
    let q = query.graph();
    for after in [Duration::from_secs(3600), Duration::MAX] {
        let report = cpu_count(&q, &index, &join_chosen(after));
        assert_eq!(report.count, 6u128.pow(6), "{after:?}");
        assert!(!report.paths.programs_beside && !report.paths.tree_counted);
    }
    let (query, data) = path_in_multipartite(40);
    let index = DataIndex::build(data.graph()).expect("index");
    let started = Instant::now();
    let options = MatchOptions {
        deadline: Some(Instant::now() + Duration::from_millis(200)),
        ..join_chosen(Duration::from_secs(3600))
    };
    let report = cpu_count(&query.graph(), &index, &options);
    assert_eq!(report.status, Status::Timeout);
    assert!(report.count < 40u128.pow(6));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

/// Trees whose labels repeat apart are counted over their quotients beside the join, and
/// trees of distinct labels by their program; whichever finishes first, the count is the
/// brute force's. The programs are taken only where the estimates passed them over: forced
/// off, the join alone counts.
#[test]
fn counts_made_beside_the_join_equal_the_brute_force() {
    let mut data = Spec::new(false, (0..24).map(|v| v % 3).collect());
    for v in 0..24u32 {
        for w in [v + 1, v + 2, v + 4, v + 5] {
            if w < 24 {
                data = data.edge(v, w, 0);
            }
        }
    }
    let d = data.graph();
    let index = DataIndex::build(d.clone()).expect("index");
    let queries = [
        // Labels 0 and 1 repeat apart: quotients.
        Spec::new(false, vec![0, 1, 0, 2, 1])
            .edge(0, 1, 0)
            .edge(1, 2, 0)
            .edge(2, 3, 0)
            .edge(3, 4, 0),
        // A star of distinct labels: the tree's program.
        Spec::new(false, vec![2, 0, 1]).edge(0, 1, 0).edge(0, 2, 0),
    ];
    for query in &queries {
        let q = query.graph();
        let expected = brute::count(&q, &d, false);
        assert!(expected > 0);
        for after in [Duration::ZERO, Duration::from_millis(1)] {
            let report = cpu_count(&q, &index, &join_chosen(after));
            assert_eq!(report.count, expected, "{after:?}\n{}", report.plan);
            assert_eq!(report.status, Status::Complete);
        }
        let never = MatchOptions {
            tree_counts: TreeCounts::Never,
            ..join_chosen(Duration::ZERO)
        };
        let report = cpu_count(&q, &index, &never);
        assert_eq!(report.count, expected);
        assert!(!report.paths.programs_beside && !report.paths.tree_counted);
    }
}

/// An engine whose joins fail at once (as a GPU's may, out of device memory), but which races
/// programs beside them after an hour's head start: the programs start once the join
/// has failed, and give the count.
struct FailingJoin(CpuEngine);

impl Engine for FailingJoin {
    fn tune(&mut self, tuning: &gsi_core::Tuning) {
        self.0.tune(tuning);
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> gsi_core::Result<Candidates> {
        self.0.filter(query, data, options)
    }

    fn join(
        &mut self,
        _plan: &Plan,
        _candidates: &Candidates,
        _data: &DataIndex,
        _options: &MatchOptions,
        _sink: &mut dyn MatchSink,
    ) -> gsi_core::Result<JoinOutcome> {
        Err(gsi_core::Error::EmptyQuery)
    }

    fn programs_beside_after(&self, _plan: &Plan) -> Option<Duration> {
        Some(Duration::from_secs(3600))
    }
}

/// A join that fails leaves the count to the programs beside it, started at once; with no
/// programs to take it (forced off), the join's error stands.
#[test]
fn a_join_that_fails_leaves_the_count_to_the_programs() {
    let (query, data) = path_in_multipartite(5);
    let index = DataIndex::build(data.graph()).expect("index");
    let options = MatchOptions {
        program_cost: Some(1e9),
        ..MatchOptions::default()
    };
    let started = Instant::now();
    let mut engine = FailingJoin(CpuEngine::default());
    let report = find_matches(
        &mut engine,
        &query.graph(),
        &index,
        &options,
        &mut CountOnly,
    )
    .expect("counted by the programs");
    assert_eq!(report.count, 5u128.pow(6));
    assert!(report.paths.programs_beside, "{}", report.paths);
    // Not after the hour's head start.
    assert!(started.elapsed() < Duration::from_secs(600));
    let never = MatchOptions {
        tree_counts: TreeCounts::Never,
        ..options
    };
    let failed = find_matches(&mut engine, &query.graph(), &index, &never, &mut CountOnly);
    assert!(matches!(failed, Err(gsi_core::Error::EmptyQuery)));
}
