//! Fuzzes the saved-index reader `gsi_core::SavedIndex::open` on raw bytes written to a
//! file (checksums are not checked in a fuzzing build, so that mutations reach the checks of
//! every section's contents), then reads what it accepted: every adjacency and PCSR list,
//! and a triangle query on the CPU engine. Errors are fine; panics, aborts, timeouts and
//! out-of-memory are findings.
#![no_main]

use gsi_core::cpu::CpuEngine;
use gsi_core::{find_matches, CountOnly, MatchOptions, SavedIndex};
use gsi_graph::{Direction, GraphBuilder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("gsi-fuzz-saved-{}", std::process::id()));
    std::fs::write(&path, data).expect("written");
    let Ok(saved) = SavedIndex::open(&path) else {
        return;
    };
    let index = &saved.index;
    let graph = index.graph();
    for v in 0..graph.vertex_count() as u32 {
        assert!(graph.labels_of(v).contains(&graph.label(v)));
        for &direction in graph.directions() {
            let (neighbors, labels) = graph.edges(v, direction);
            for &l in labels {
                let _ = index.pcsr().neighbors(v, l, direction);
            }
            assert_eq!(neighbors.len(), labels.len());
        }
        let _ = index.signatures().get(v);
        let _ = index.pcsr().neighbors(v, 0, Direction::In);
    }
    let directed = graph.is_directed();
    let mut triangle = GraphBuilder::new(directed);
    for _ in 0..3 {
        triangle.add_vertex(0);
    }
    for (a, b) in [(0, 1), (1, 2), (2, 0)] {
        triangle.add_edge(a, b, 0).expect("an edge");
    }
    let query = triangle.build().expect("a triangle");
    let _ = find_matches(&mut CpuEngine::default(), &query, index, &MatchOptions::default(), &mut CountOnly);
});
