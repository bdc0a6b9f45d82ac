//! Fuzzes the Turtle reader `gsi_graph::formats::turtle::parse` on raw bytes (always a
//! directed graph). Errors are fine; panics, aborts, timeouts and out-of-memory are findings.
#![no_main]

use std::path::Path;

use gsi_graph::formats::turtle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = turtle::parse(Path::new("fuzz.ttl"), data);
});
