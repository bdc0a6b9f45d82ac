//! Fuzzes the GSI reader `gsi_graph::formats::gsi::parse` (several graphs per file) on raw
//! bytes, read both as undirected and as directed graphs. Errors are fine; panics, aborts,
//! timeouts and out-of-memory are findings.
#![no_main]

use std::path::Path;

use gsi_graph::formats::gsi;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for directed in [false, true] {
        let _ = gsi::parse(Path::new("fuzz.gsi"), data, directed);
    }
});
