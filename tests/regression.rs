//! Regressions: each test is named after the defect it pins down, with the issue it came from.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::brute;
use crate::util::{Spec, TestDir};

// ---------------------------------------------------------------------------------------------
// Issue 11: N-Triples queries were matched with their own dictionaries, so a query's predicate
// number 0 was compared with the data's predicate number 0, whatever their names.

/// Writes `spec` as N-Triples: vertex `v` is `<{prefix}{v}>`, edge label `l` is predicate
/// `<p{l}>`, vertex label `c > 0` is `rdf:type <C{c}>`. Triples go in the order given by
/// `order` (indexes into the edges), so that the file's own first-appearance numbering differs
/// from the test's.
fn ntriples(spec: &Spec, prefix: &str, order: &[usize]) -> String {
    let mut text = String::new();
    for (v, &c) in spec.labels.iter().enumerate().rev() {
        if c > 0 {
            text += &format!(
                "<{prefix}{v}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <C{c}> .\n"
            );
        }
    }
    for &i in order {
        let (s, t, l) = spec.edges[i];
        text += &format!("<{prefix}{s}> <p{l}> <{prefix}{t}> .\n");
    }
    text
}

#[test]
fn issue_11_ntriples_queries_use_the_data_graphs_predicates() {
    let dir = TestDir::new();
    dir.write("d2.nt", "<a> <knows> <b> .\n<b> <worksAt> <c> .\n");
    dir.write("likes.nt", "<x> <likes> <y> .\n");
    dir.write("works.nt", "<x> <worksAt> <y> .\n");
    let run = dir
        .match_files(
            "d2.nt",
            &["likes.nt", "works.nt"],
            &["--json", "--output", "m.txt"],
        )
        .ok();
    let out = run.json();
    assert_eq!(out.queries[0].matches, 0, "no data triple uses <likes>");
    assert_eq!(out.queries[1].matches, 1);
    assert!(
        run.stderr.contains("has no edge label <likes>"),
        "the unknown predicate is named: {}",
        run.stderr
    );
    let rows: Vec<String> = dir
        .read("m.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert_eq!(rows, ["<b> <c>"]);
}

#[test]
fn issue_11_ntriples_queries_use_the_data_graphs_classes() {
    let dir = TestDir::new();
    let type_of = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    dir.write(
        "d.nt",
        format!(
            "<a> {type_of} <Person> .\n<b> {type_of} <Org> .\n<a> <at> <b> .\n<b> <at> <a> .\n"
        ),
    );
    // In the query's own file <Org> is class 1, in the data's it is class 2.
    dir.write(
        "q.nt",
        format!("<x> {type_of} <Org> .\n<x> <at> <y> .\n<y> {type_of} <Person> .\n"),
    );
    dir.write(
        "unknown.nt",
        format!("<x> {type_of} <Robot> .\n<x> <at> <y> .\n"),
    );
    let run = dir
        .match_files("d.nt", &["q.nt", "unknown.nt"], &["--json"])
        .ok();
    let out = run.json();
    assert_eq!(
        out.queries[0].matches, 1,
        "only b -> a goes from an Org to a Person"
    );
    assert_eq!(out.queries[1].matches, 0);
    assert!(
        run.stderr.contains("vertex label <Robot>"),
        "{}",
        run.stderr
    );
}

#[test]
fn issue_11_an_ntriples_query_on_numbered_data_is_an_error_for_that_query() {
    let dir = TestDir::new();
    dir.write("d.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    dir.write("q.nt", "<x> <p> <y> .\n");
    dir.write("q.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    let run = dir.match_files("d.graph", &["q.nt", "q.graph"], &["--json", "--directed"]);
    assert_eq!(run.code, Some(2), "{run:#?}");
    let out = run.json();
    assert_eq!(out.queries[0].status, "error");
    let error = out.queries[0].error.as_deref().unwrap_or_default();
    assert!(error.contains("names its"), "{error}");
    assert_eq!(out.queries[1].matches, 1, "the other query still runs");
}

/// Vertex labels, edges and a seed for the order of the triples.
type RandomGraph = (Vec<u32>, Vec<(u32, u32, u32)>, u64);

/// Random edge-labelled directed graphs written as N-Triples with shuffled triples: gsi's
/// count equals the brute force on the graphs as the test numbered them.
#[test]
fn issue_11_ntriples_counts_equal_the_brute_force_whatever_the_triple_order() {
    let graph = |max_n: usize, max_m: usize| {
        (2..=max_n).prop_flat_map(move |n| {
            let labels = proptest::collection::vec(0u32..3, n);
            let edges = proptest::collection::vec((0..n as u32, 0..n as u32, 0u32..4), 1..=max_m);
            (labels, edges, any::<u64>())
        })
    };
    let mut runner = TestRunner::new(Config {
        cases: 12,
        ..Config::default()
    });
    runner
        .run(&(graph(9, 24), graph(4, 4)), |(data, query)| {
            let spec = |(labels, edges, _): &RandomGraph| {
                let mut spec = Spec::new(true, labels.clone());
                for &(s, t, l) in edges {
                    if s != t && !spec.edges.iter().any(|&(a, b, c)| (a, b, c) == (s, t, l)) {
                        spec = spec.edge(s, t, l);
                    }
                }
                spec
            };
            let (data_spec, query_spec) = (spec(&data), spec(&query));
            // A file without triples is no graph at all.
            prop_assume!(!data_spec.edges.is_empty() && !query_spec.edges.is_empty());
            let shuffled = |spec: &Spec, seed: u64| {
                let mut order: Vec<usize> = (0..spec.edges.len()).collect();
                order.sort_by_key(|&i| (i as u64 + 1).wrapping_mul(seed | 1).rotate_left(17));
                order
            };
            let dir = TestDir::new();
            dir.write(
                "d.nt",
                ntriples(&data_spec, "d", &shuffled(&data_spec, data.2)),
            );
            dir.write(
                "q.nt",
                ntriples(&query_spec, "q", &shuffled(&query_spec, query.2)),
            );
            // Vertices without a triple are not in an N-Triples graph: compare on the
            // graphs gsi can see, which hold every vertex that has an edge or a type.
            let data_graph = visible(&data_spec);
            let query_graph = visible(&query_spec);
            let expected = brute::count(&query_graph.graph(), &data_graph.graph(), false);
            let run = dir.match_files("d.nt", &["q.nt"], &["--json"]).ok();
            prop_assert_eq!(run.json().queries[0].matches, expected);
            Ok(())
        })
        .unwrap();
}

/// The part of `spec` an N-Triples file shows: vertices with an edge or a type, renumbered.
fn visible(spec: &Spec) -> Spec {
    let seen: Vec<bool> = (0..spec.len() as u32)
        .map(|v| {
            spec.labels[v as usize] > 0 || spec.edges.iter().any(|&(s, t, _)| s == v || t == v)
        })
        .collect();
    let mut number = vec![u32::MAX; spec.len()];
    let mut labels = Vec::new();
    for v in 0..spec.len() {
        if seen[v] {
            number[v] = labels.len() as u32;
            labels.push(spec.labels[v]);
        }
    }
    let mut out = Spec::new(spec.directed, labels);
    for &(s, t, l) in &spec.edges {
        out = out.edge(number[s as usize], number[t as usize], l);
    }
    out
}
