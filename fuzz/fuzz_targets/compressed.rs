//! Fuzzes the compressed readers behind `gsi_graph::formats::read_graphs`: the first byte
//! picks gzip, bzip2, xz or zstd, whose magic number goes before the rest, so that every
//! input reaches a decoder; the whole is written to a temporary file of this process, removed
//! after each run, and read with `Format::Auto` under a 1 MiB memory bound. Errors are fine;
//! panics, aborts, timeouts and out-of-memory (a stream inflated past the bound) are findings.
#![no_main]

use gsi_graph::formats::{read_graphs, Format, MemoryBound, ReadOptions};
use libfuzzer_sys::fuzz_target;

/// The magic numbers of gzip, bzip2, xz and zstd.
const MAGIC: [&[u8]; 4] = [
    &[0x1f, 0x8b],
    b"BZh9",
    &[0xfd, b'7', b'z', b'X', b'Z', 0x00],
    &[0x28, 0xb5, 0x2f, 0xfd],
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let mut file = MAGIC[usize::from(pick) % MAGIC.len()].to_vec();
    file.extend_from_slice(rest);
    let path = std::env::temp_dir().join(format!("gsi-fuzz-compressed-{}", std::process::id()));
    std::fs::write(&path, file).expect("write the temporary compressed file");
    let options = ReadOptions {
        format: Format::Auto,
        directed: false,
        vertex_labels: None,
        memory: Some(MemoryBound {
            bytes: 1 << 20,
            source: "the fuzz target's bound".into(),
        }),
    };
    let _ = read_graphs(&path, &options);
    let _ = std::fs::remove_file(&path);
});
