//! One query spread over several engines (`--devices`, here CPU engines), planned ahead (the
//! engines then share one split of the cut vertices' candidates) or by each engine, over the
//! grid weighed by work and the evenest (which cuts a star's equivalent leaves apart): the
//! count is the brute force's, and each share is answered once.

use gsi_core::cpu::CpuEngine;
use gsi_core::{find_matches_spread, CountOnly, DataIndex, Engine, MatchOptions, ShareCut};
use gsi_graph::Graph;

use crate::brute;
use crate::util::{clique, path, shares_of, Spec};

#[test]
fn shares_planned_ahead_or_by_each_engine_add_up() {
    let mut star = Spec::new(false, vec![0, 1, 1, 1]);
    for leaf in 1..4 {
        star = star.edge(0, leaf, 0);
    }
    let queries: Vec<Graph> = vec![
        clique(false, 4, 0).graph(),
        path(false, 5, 0).graph(),
        star.graph(),
    ];
    let mut counted = 0;
    for seed in 0..3u64 {
        let mut spec = gsi_generate::GraphSpec::new(60, 400, gsi_generate::Shape::ScaleFree);
        spec.seed = seed;
        spec.vertex_labels = 2;
        let data = gsi_generate::generate_graph(&spec).expect("graph");
        let index = DataIndex::build(data.clone()).expect("index");
        for query in &queries {
            let expected = brute::count(query, &data, false);
            for (ahead, share_cut) in [
                (false, ShareCut::Rows),
                (true, ShareCut::Rows),
                (false, ShareCut::Grid),
                (true, ShareCut::Grid),
                (true, ShareCut::EvenGrid),
            ] {
                let options = MatchOptions {
                    share_cut,
                    ..MatchOptions::default()
                };
                let planned = ahead.then(|| {
                    gsi_core::search::plan_ahead(query, &index, &options, true)
                        .expect("planned on the host")
                        .expect("planned")
                });
                let mut engines: Vec<Box<dyn Engine>> = (0..3)
                    .map(|_| Box::new(CpuEngine::default()) as Box<dyn Engine>)
                    .collect();
                let report = find_matches_spread(
                    &mut engines,
                    query,
                    &index,
                    &options,
                    &mut CountOnly,
                    None,
                    planned,
                )
                .expect("counted");
                let what = format!("seed {seed}, ahead {ahead}, {share_cut:?}");
                assert_eq!(report.count, expected, "{what}: {}", report.plan);
                let spread = report.spread.expect("spread at once");
                let parts = spread.shares.iter().map(|t| t.part).max().unwrap_or(0) + 1;
                for part in 0..parts {
                    let shares = shares_of(&spread.shares, part);
                    let n = shares.first().map_or(0, |s| s.1);
                    let all: Vec<(u32, u32)> = (0..n).map(|i| (i, n)).collect();
                    assert_eq!(shares, all, "{what}: part {part}");
                }
            }
            counted += u32::from(expected > 0);
        }
    }
    assert!(counted >= 6, "only {counted} counts were not zero");
}
