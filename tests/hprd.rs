//! The HPRD test set of the subgraph-matching benchmarks: 200 queries of 16 vertices on the
//! HPRD protein-interaction graph, with the published count of every query.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::TestDir;

/// `expected_output.res`: lines `name:count`.
pub fn expected_counts(path: &Path) -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(path).expect("read expected_output.res");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, count) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("malformed line {l:?}"));
            let count = count
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("malformed count in {l:?}"));
            (name.trim().to_owned(), count)
        })
        .collect()
}

/// Every query of the set through `gsi match`, counts against the published ones.
pub fn every_hprd_query_has_its_published_count(shared: &Path) {
    let set = shared.join("hprd-test");
    let expected = expected_counts(&set.join("expected_output.res"));
    assert_eq!(expected.len(), 200, "the test set has 200 queries");

    let dir = TestDir::new();
    let data = set.join("data_graph/HPRD.graph");
    let queries = set.join("query_graph");
    let run = dir
        .gsi([
            "match".as_ref(),
            "--data".as_ref(),
            data.as_os_str(),
            "--query".as_ref(),
            queries.as_os_str(),
            "--json".as_ref(),
            "--engine".as_ref(),
            "cpu".as_ref(),
        ])
        .ok();
    let out = run.json();
    assert_eq!(out.queries.len(), expected.len());
    assert_eq!(out.summary.queries, expected.len());
    assert_eq!(out.summary.ok, expected.len());
    assert_eq!(out.summary.errors, 0);

    let mut wrong = Vec::new();
    let mut total = 0;
    for q in &out.queries {
        let name = Path::new(&q.query)
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("query file name");
        let want = *expected
            .get(name)
            .unwrap_or_else(|| panic!("{name} has no expected count"));
        assert_eq!(q.status, "ok", "{name}");
        assert_eq!(
            q.candidates.len(),
            16,
            "{name}: one candidate set per vertex"
        );
        if q.matches != u128::from(want) {
            wrong.push(format!("{name}: gsi {} expected {want}", q.matches));
        }
        total += u128::from(want);
    }
    assert!(wrong.is_empty(), "wrong counts:\n{}", wrong.join("\n"));
    assert_eq!(out.summary.matches, total);
    // Each query once.
    let mut names: Vec<&str> = out.queries.iter().map(|q| q.query.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), expected.len());
}

/// The first queries again, one file at a time and with every match written out: the same
/// counts, and every written line a distinct match (checked by the CLI tests' own reader);
/// every other query through a saved index of the graph (`gsi index`).
pub fn hprd_matches_written_to_a_file_are_valid(shared: &Path) {
    let set = shared.join("hprd-test");
    let expected = expected_counts(&set.join("expected_output.res"));
    let text_path = set.join("data_graph/HPRD.graph");
    let data = crate::util::read_sunluo(&text_path, false);
    let dir = TestDir::new();
    dir.gsi([
        "index".as_ref(),
        text_path.as_os_str(),
        "-o".as_ref(),
        "hprd.gsidx".as_ref(),
    ])
    .ok();
    let saved_path = dir.path("hprd.gsidx");
    for i in 1..=10 {
        let data_path = if i % 2 == 0 { &saved_path } else { &text_path };
        let name = format!("query_dense_16_{i}");
        let query_path = set.join(format!("query_graph/{name}.graph"));
        let query = crate::util::read_sunluo(&query_path, false);
        let run = dir
            .gsi([
                "match".as_ref(),
                "--data".as_ref(),
                data_path.as_os_str(),
                "--query".as_ref(),
                query_path.as_os_str(),
                "--output".as_ref(),
                "m.txt".as_ref(),
                "--json".as_ref(),
            ])
            .ok();
        let reported = run.json().queries[0].matches;
        assert_eq!(reported, u128::from(expected[&name]), "{name}");
        let rows = crate::util::output_rows(&dir.read("m.txt"));
        crate::util::assert_valid_matches(&query, &data, &rows, false);
        assert_eq!(rows.len() as u128, reported, "{name}");
    }
}
