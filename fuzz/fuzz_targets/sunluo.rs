//! Fuzzes the Sun–Luo reader `gsi_graph::formats::sunluo::parse` on raw bytes, read both
//! as an undirected and as a directed graph. Errors are fine; panics, aborts, timeouts and
//! out-of-memory are findings.
#![no_main]

use std::path::Path;

use gsi_graph::formats::sunluo;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for directed in [false, true] {
        let _ = sunluo::parse(Path::new("fuzz.graph"), data, directed);
    }
});
