//! Fuzzes the Sun–Luo reader `gsi_graph::formats::sunluo::parse` on raw bytes, read both
//! as an undirected and as a directed graph, and where it refuses them, the path of labels
//! written as names (`number_label_names`, then the parse of what it gives), as the reader
//! takes it. Errors are fine; panics, aborts, timeouts and out-of-memory are findings.
#![no_main]

use std::path::Path;

use gsi_graph::formats::sunluo;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for directed in [false, true] {
        if sunluo::parse(Path::new("fuzz.graph"), data, directed).is_err() {
            if let Some((text, _)) = sunluo::number_label_names(data) {
                let _ = sunluo::parse(Path::new("fuzz.graph"), text.as_bytes(), directed);
            }
        }
    }
});
