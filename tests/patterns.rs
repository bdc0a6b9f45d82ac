//! The query files of `benches/patterns` (gMatch's patterns for unlabelled graphs): each holds
//! the edges its pattern is defined by, and `gsi match` counts each as the brute force does.

use std::collections::BTreeSet;
use std::path::PathBuf;

use gsi_graph::VertexId;

use crate::brute;
use crate::util::{read_sunluo, TestDir};

/// Each pattern's name, vertex count and edges, as gMatch defines them.
const PATTERNS: [(&str, usize, &str); 9] = [
    ("p1", 3, "0-1 0-2 1-2"),
    ("p2", 4, "0-1 0-2 0-3 1-2 1-3 2-3"),
    ("p3", 4, "0-1 1-2 2-3 3-0 0-2"),
    ("p4", 4, "0-1 1-2 2-3 3-0"),
    ("p5", 5, "0-1 0-2 1-3 2-4 3-4 3-2 1-4"),
    ("p6", 5, "0-1 0-2 1-2 1-3 2-4 3-4 1-4 2-3"),
    ("p7", 5, "0-1 0-2 0-3 0-4 1-2 1-3 3-4 2-4"),
    ("p8", 5, "0-1 0-2 0-3 0-4 1-3 1-4 2-3 2-4 3-4"),
    ("p9", 5, "0-1 0-2 0-3 0-4 1-2 1-3 1-4 2-3 2-4 3-4"),
];

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/patterns")
}

/// Every file declares and holds exactly its pattern's vertices (label 0) and edges (no
/// label), so a typo in a file fails.
#[test]
fn each_pattern_file_holds_the_edges_of_its_pattern() {
    for (name, vertices, edges) in PATTERNS {
        let path = folder().join(format!("{name}.graph"));
        let listed: BTreeSet<(VertexId, VertexId)> = edges
            .split_whitespace()
            .map(|edge| {
                let (a, b) = edge.split_once('-').unwrap();
                let (a, b): (VertexId, VertexId) = (a.parse().unwrap(), b.parse().unwrap());
                (a.min(b), a.max(b))
            })
            .collect();
        assert_eq!(listed.len(), edges.split_whitespace().count(), "{name}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(format!("t {vertices} {}", listed.len()).as_str()),
            "{name}"
        );
        let graph = read_sunluo(&path, false);
        assert_eq!(graph.vertex_count(), vertices, "{name}");
        assert!(graph.vertex_labels().iter().all(|&l| l == 0), "{name}");
        let held: BTreeSet<(VertexId, VertexId)> = graph
            .edge_iter()
            .map(|(s, t, label)| {
                assert_eq!(label, 0, "{name}");
                (s.min(t), s.max(t))
            })
            .collect();
        assert_eq!(graph.edge_count(), listed.len(), "{name}");
        assert_eq!(held, listed, "{name}");
    }
}

/// `gsi match --engine cpu` of the folder counts each pattern's embeddings in a generated
/// unlabelled graph as the brute force does, and passes over the folder's README.
#[test]
fn the_cpu_engine_counts_each_pattern_as_the_brute_force() {
    let dir = TestDir::new();
    dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "40",
        "--edges",
        "220",
        "--shape",
        "scale-free",
        "--seed",
        "3",
        "-o",
        "g.graph",
        "--quiet",
    ])
    .ok();
    let data = read_sunluo(&dir.path("g.graph"), false);
    let patterns = folder();
    let run = dir
        .match_files("g.graph", &[patterns.to_str().unwrap()], &["--json"])
        .ok();
    assert!(run.stderr.contains("README.md"), "{run:#?}");
    let json = run.json();
    assert_eq!(json.queries.len(), PATTERNS.len(), "{run:#?}");
    for ((name, _, _), found) in PATTERNS.iter().zip(&json.queries) {
        assert!(found.query.ends_with(&format!("{name}.graph")), "{found:?}");
        let query = read_sunluo(&patterns.join(format!("{name}.graph")), false);
        let expected = brute::count(&query, &data, false);
        assert!(expected > 0, "{name}: the graph should hold the pattern");
        assert_eq!(found.matches, expected, "{name}");
    }
}
