//! Counts beyond 64 bits, against formulas: homomorphisms of a path of k edges in the complete
//! graph K_n, n·(n−1)^k, counted by dynamic programming; a star whose leaves carry several
//! labels in a labelled complete graph, counted by joining its centre and multiplying its
//! leaves; a count past 2^128 − 1 an error. Through the library, the `gsi` command's text and
//! JSON output, and `gsi merge` of its shares.

use gsi_core::cpu::CpuEngine;
use gsi_core::options::Counted;
use gsi_core::{find_matches, CountOnly, DataIndex, Error, MatchOptions, Semantics, TreeCounts};
use gsi_graph::VertexId;

use crate::util::{clique, labelled_clique, path, star_of_labels, Spec, TestDir};

/// n·(n−1)^k: homomorphisms of a path of k edges into K_n.
fn path_homomorphisms(n: u128, k: u32) -> u128 {
    n * (n - 1).pow(k)
}

/// n (n−1) ... (n−k+1).
fn falling(n: u128, k: u128) -> u128 {
    (0..k).map(|i| n - i).product()
}

fn count(query: &Spec, data: &DataIndex, options: &MatchOptions) -> gsi_core::Result<u128> {
    let report = find_matches(
        &mut CpuEngine::default(),
        &query.graph(),
        data,
        options,
        &mut CountOnly,
    )?;
    Ok(report.count)
}

#[test]
fn a_path_in_a_clique_is_counted_beyond_64_bits_by_dynamic_programming() {
    let data = DataIndex::build(clique(false, 100, 0).graph()).expect("index");
    let options = MatchOptions {
        semantics: Semantics::Homomorphism,
        ..MatchOptions::default()
    };
    let expected = path_homomorphisms(100, 10);
    assert!(expected > u128::from(u64::MAX));
    let report = find_matches(
        &mut CpuEngine::default(),
        &path(false, 11, 0).graph(),
        &data,
        &options,
        &mut CountOnly,
    )
    .expect("counted");
    assert!(report.paths.tree_counted);
    assert_eq!(report.count, expected);
}

#[test]
fn leaves_are_multiplied_beyond_64_bits() {
    // K_200 in 5 labels of 40 vertices; a centre of label 0 with 4 leaves of each other label.
    let data = DataIndex::build(labelled_clique(200, 5).graph()).expect("index");
    let star = star_of_labels(5, 4);
    let isomorphisms = 40 * falling(40, 4).pow(4);
    let homomorphisms = 40u128.pow(17);
    for (semantics, tree_counts, expected) in [
        (Semantics::Isomorphism, TreeCounts::Always, isomorphisms),
        (Semantics::Homomorphism, TreeCounts::Never, homomorphisms),
        (Semantics::Homomorphism, TreeCounts::Always, homomorphisms),
    ] {
        assert!(expected > u128::from(u64::MAX));
        let options = MatchOptions {
            semantics,
            tree_counts,
            ..MatchOptions::default()
        };
        let report = find_matches(
            &mut CpuEngine::default(),
            &star.graph(),
            &data,
            &options,
            &mut CountOnly,
        )
        .expect("counted");
        assert_eq!(
            report.count, expected,
            "{semantics:?}, tree counts {tree_counts:?}"
        );
        let multiplied = report
            .paths
            .steps
            .iter()
            .any(|s| s.counted_as == Some(Counted::LeafProducts));
        assert!(
            multiplied || report.paths.tree_counted,
            "{semantics:?}: {}",
            report.paths
        );
    }
}

#[test]
fn a_count_past_128_bits_is_an_error() {
    let k100 = DataIndex::build(clique(false, 100, 0).graph()).expect("index");
    let homomorphism = MatchOptions {
        semantics: Semantics::Homomorphism,
        ..MatchOptions::default()
    };
    // 100 · 99^20 > 2^128, by dynamic programming.
    assert!(matches!(
        count(&path(false, 21, 0), &k100, &homomorphism),
        Err(Error::CountBeyond128Bits)
    ));
    // 20^37 > 2^128, by the join's leaf products.
    let data = DataIndex::build(labelled_clique(200, 10).graph()).expect("index");
    let joined = MatchOptions {
        tree_counts: TreeCounts::Never,
        ..homomorphism
    };
    assert!(matches!(
        count(&star_of_labels(10, 4), &data, &joined),
        Err(Error::CountBeyond128Bits)
    ));
    // Below: 20^26 < 2^128 (3 leaves of each label but the last, which has 1).
    let mut star = star_of_labels(9, 3);
    star.labels.push(9);
    let leaf = (star.labels.len() - 1) as VertexId;
    star = star.edge(0, leaf, 0);
    assert_eq!(
        count(&star, &data, &joined).expect("counted"),
        20u128.pow(26)
    );
}

/// The `gsi` command prints a count beyond 2^64 exactly, as text and as a JSON string, and
/// `gsi merge` adds up its shares exactly.
#[test]
fn the_command_prints_and_merges_counts_beyond_64_bits() {
    let dir = TestDir::new();
    dir.write_spec("k100.graph", &clique(false, 100, 0));
    dir.write_spec("path.graph", &path(false, 11, 0));
    let expected = path_homomorphisms(100, 10).to_string();
    let text = dir
        .match_files("k100.graph", &["path.graph"], &["--homomorphism"])
        .ok();
    assert!(
        text.stdout.contains(&expected),
        "{expected} in {}",
        text.stdout
    );
    let json = dir
        .match_files("k100.graph", &["path.graph"], &["--json", "--homomorphism"])
        .ok();
    let first: serde_json::Value =
        serde_json::from_str(json.stdout.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["matches"], serde_json::json!(expected));
    assert_eq!(
        json.json().summary.matches,
        path_homomorphisms(100, 10),
        "summary"
    );
    for i in 0..3 {
        let share = dir
            .match_files(
                "k100.graph",
                &["path.graph"],
                &["--json", "--homomorphism", "--partition", &format!("{i}/3")],
            )
            .ok();
        dir.write(&format!("s{i}.jsonl"), &share.stdout);
    }
    let merged = dir.gsi(["merge", "--json", "s0.jsonl", "s1.jsonl", "s2.jsonl"]);
    assert_eq!(merged.code, Some(0), "{merged:#?}");
    let lines: Vec<serde_json::Value> = merged
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines[0]["matches"], serde_json::json!(expected));
    assert_eq!(lines[1]["matches"], serde_json::json!(expected));
}

/// A count past 2^128 − 1 is a message and a failure, never a number.
#[test]
fn the_command_refuses_a_count_past_128_bits() {
    let dir = TestDir::new();
    dir.write_spec("k100.graph", &clique(false, 100, 0));
    dir.write_spec("path.graph", &path(false, 21, 0));
    let run = dir.match_files("k100.graph", &["path.graph"], &["--json", "--homomorphism"]);
    run.no_panic();
    let first: serde_json::Value =
        serde_json::from_str(run.stdout.lines().next().expect("a line")).expect("JSON");
    assert_eq!(first["status"], "error", "{first}");
    assert!(
        first["error"].as_str().is_some_and(|e| e.contains("2^128")),
        "{first}"
    );
    assert_ne!(run.code, Some(0));
}
