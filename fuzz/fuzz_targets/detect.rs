//! Fuzzes the format-detecting entry `gsi_graph::formats::read_graphs` with `Format::Auto`.
//! It reads a path, so the bytes (after a first byte that picks directed or not) go to a
//! temporary file of this process, removed after each run. Errors are fine; panics, aborts,
//! timeouts and out-of-memory are findings.
#![no_main]

use gsi_graph::formats::{read_graphs, Format, ReadOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flag, text)) = data.split_first() else {
        return;
    };
    let path = std::env::temp_dir().join(format!("gsi-fuzz-detect-{}", std::process::id()));
    std::fs::write(&path, text).expect("write the temporary graph file");
    let options = ReadOptions {
        format: Format::Auto,
        directed: flag & 1 == 1,
        vertex_labels: None,
        memory: None,
    };
    let _ = read_graphs(&path, &options);
    let _ = std::fs::remove_file(&path);
});
