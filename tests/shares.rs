//! One query's shares (`--partition I/K`, `gsi.distributed`) answered by engines that judge
//! its plan differently — a CPU engine beside a GPU — must still be one cut of one plan: on
//! yeast, 8 of 120 queries of 8 and 16 vertices once summed to a wrong count (588,432
//! matches summed to 205,128) when every other share ran on an engine judging as a GPU does.

use std::path::Path;

use gsi_core::cpu::CpuEngine;
use gsi_core::{find_matches, CountOnly, DataIndex, Engine, MatchOptions, Share, ShareCut};
use gsi_graph::formats::{read_graph, Format};

/// Yeast queries whose shares once did not add up, and their counts by RapidMatch
/// (`../shared/bench/rapidmatch-2core.csv`), an answer of its own.
const QUERIES: [(&str, u128); 4] = [
    ("query_dense_8_28", 588_432),
    ("query_sparse_8_40", 477_304),
    ("query_sparse_8_6", 5_244_176),
    ("query_sparse_8_30", 3_095_900),
];

/// Each query cut into 4 shares, by rows and as a grid, the even ones counted on the CPU
/// engine, the odd ones on `other`: the shares add up to RapidMatch's count.
pub fn shares_on_two_engines_add_up(shared: &Path, other: &mut dyn Engine) {
    let set = shared.join("yeast");
    let data = read_graph(&set.join("data_graph/yeast.graph"), Format::SunLuo, false)
        .expect("the yeast graph");
    let index = DataIndex::build(data).expect("index");
    for (name, want) in QUERIES {
        let path = set.join(format!("query_graph/{name}.graph"));
        let query = read_graph(&path, Format::SunLuo, false).expect("the query");
        let mut cpu = CpuEngine::default();
        let shares = 4;
        for share_cut in [ShareCut::Rows, ShareCut::Grid] {
            let total: u128 = (0..shares)
                .map(|i| {
                    let engine: &mut dyn Engine = match i % 2 {
                        0 => &mut cpu,
                        _ => &mut *other,
                    };
                    let options = MatchOptions {
                        share: Share::new(i, shares),
                        share_cut,
                        ..MatchOptions::default()
                    };
                    find_matches(engine, &query, &index, &options, &mut CountOnly)
                        .expect("counted")
                        .count
                })
                .sum();
            assert_eq!(
                total, want,
                "{name}: its {shares} shares on two engines, {share_cut:?}"
            );
        }
    }
}
