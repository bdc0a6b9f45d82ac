//! Wordnet's few-label queries whose joins once ran into dead ends: each was given up after
//! 10 s by both engines (the build of 2026-11-27), where one RapidMatch thread counts it in
//! 0.1–1 s. The counts below are RapidMatch's (RapidsAtHKUST/RapidMatch 24f08cc, `-order nd`),
//! an answer of its own; each query must be answered within the limit given here, 20 s.

use std::path::Path;

use crate::util::TestDir;

/// The queries and RapidMatch's counts: two parts joined only through three equivalent
/// vertices (dense_12_129); three equivalent vertices beside a tail that a count once joined
/// before them (dense_12_171); a pair count whose core held a path the other plan cuts early
/// (dense_12_137); a dense part beyond a path from the vertex of the least score (dense_16_43).
const QUERIES: [(&str, u128); 4] = [
    ("query_dense_12_129", 1_397_496),
    ("query_dense_12_171", 880_224),
    ("query_dense_12_137", 73_924_272),
    ("query_dense_16_43", 118_623),
];

/// Each query through `gsi match --engine ENGINE --timeout 20`: finished, RapidMatch's count.
pub fn dead_ends_are_cut_where_labels_do_not_prune(shared: &Path, engine: &str) {
    let set = shared.join("wordnet");
    let dir = TestDir::new();
    let data = set.join("data_graph/wordnet.graph");
    let mut args = vec![
        "match".into(),
        "--data".into(),
        data.into_os_string(),
        "--json".into(),
        "--engine".into(),
        engine.into(),
        "--timeout".into(),
        "20".into(),
        "--query".into(),
    ];
    for (name, _) in QUERIES {
        args.push(
            set.join(format!("query_graph/{name}.graph"))
                .into_os_string(),
        );
    }
    let out = dir.gsi(args).ok().json();
    assert_eq!(out.queries.len(), QUERIES.len());
    for (q, (name, want)) in out.queries.iter().zip(QUERIES) {
        assert!(q.query.ends_with(&format!("{name}.graph")), "{}", q.query);
        assert_eq!(q.status, "ok", "{name} on the {engine} engine");
        assert_eq!(q.matches, want, "{name} on the {engine} engine");
    }
}
