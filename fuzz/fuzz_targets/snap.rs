//! Fuzzes the SNAP edge-list reader `gsi_graph::formats::snap::parse`. The input is the edge
//! list, then optionally a 0xFF byte (never in UTF-8 text) and a vertex-label file; it is
//! read both as an undirected and as a directed graph. Errors are fine; panics, aborts,
//! timeouts and out-of-memory are findings.
#![no_main]

use std::path::Path;

use gsi_graph::formats::snap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (edges, labels) = match data.iter().position(|&b| b == 0xFF) {
        Some(i) => (&data[..i], Some((Path::new("fuzz.labels"), &data[i + 1..]))),
        None => (data, None),
    };
    for directed in [false, true] {
        let _ = snap::parse(Path::new("fuzz.txt"), edges, labels, directed);
    }
});
