//! What the caller decides for the engines: which GPU, how much of its memory, the thresholds
//! of `auto`, where compiled kernels are kept, how the joins are tuned. gsi-core reads no
//! environment variable: the binary builds this value (from flags and its own environment)
//! and hands it over.

use std::path::PathBuf;

use crate::tuning::Tuning;

/// The stack of a thread that plans and joins queries: the planner's walks and the CPU's
/// search recurse once a query vertex, and a query may have tens of thousands (a
/// 60,000-vertex cycle overflowed 8 MiB). Every front end matches on such a thread (the
/// `gsi` command's, the Python package's); only the pages touched are ever committed.
pub const MATCHING_STACK_BYTES: usize = 1 << 30;

/// The stack of each thread of the worker pool, for the same recursion run there.
pub const WORKER_STACK_BYTES: usize = 256 << 20;

/// Filter on the GPU when the query's vertices have more data vertices of their labels than
/// this, all together. The CPU tests a vertex in about 10 ns, the GPU filter costs about
/// 0.08 ms (H100, wordnet: 5 ms on 16 CPU cores for 8 query vertices over 63 000 vertices).
pub const GPU_FILTER_MIN_TESTS: usize = 1 << 16;

/// Join on the GPU when the plan's expected rows ([`crate::Plan::expected_rows`], the random
/// walks' estimate), summed over the steps, exceed this. Measured on an H100 with 16 CPU cores
/// (2026-11-23, every query on both engines: yeast's 1,458 with at most 10^9 matches, and
/// the 160 8-vertex queries of yeast and hprd): always picking the faster engine would take
/// 4,910 and 84.8 ms; this threshold with [`GPU_JOIN_MIN_STEPS`] 5,187 and 87.2 ms (10 rows:
/// 5,228 and 109.7; 3,000: 5,219 and 94.6).
pub const GPU_JOIN_MIN_ROWS: f64 = 300.0;

/// Join on the GPU, whatever the estimate, from this many steps on. Walks die out more often
/// the deeper a plan goes, and the few that survive carry the estimate: on yeast, 32 walks
/// put query_dense_32_119 (251 million matches; 1.39 s on 16 CPU cores, 0.31 s on the GPU)
/// at 8,260 rows and query_dense_32_5 (15.6 million) at 67. Without this rule, the
/// threshold above left yeast's 1,458 at 5,627 ms.
pub const GPU_JOIN_MIN_STEPS: usize = 16;

/// Share of the free device memory the join may use when the memory budget allows more.
pub const DEVICE_JOIN_SHARE: f64 = 0.8;

/// Share of the free device memory the PCSR partitions may take to stay resident; the rest is
/// left to the join.
pub const RESIDENT_INDEX_SHARE: f64 = 0.5;

/// Bytes of each of the two pinned buffers through which the index goes to the device: on the
/// H100, 16 MiB uploaded a 3.45 GB index in 105-121 ms against 120-125 ms with 32 MiB (pinning
/// costs more) and 141-156 ms with 8 MiB (more stages; docs/BENCHMARKS.md).
pub const UPLOAD_STAGE_BYTES: usize = 16 << 20;

/// How the device finds a vertex's list in a partition: through the paper's PCSR (Sec. 4),
/// through a plain CSR (for every vertex of the graph, the start of its list in the
/// partition, where its neighbours of higher ids start, and its end: three words), or through
/// the compressed representation CR (the partition's vertices sorted and found by binary
/// search, then their lists' starts and ends). Every layout reads the same column index. By
/// default each partition takes CSR where its three words per vertex of the graph are no more
/// than PCSR's groups (a partition holding most of the graph's vertices, as in a graph with
/// few edge labels: a lookup is then one read of adjacent words instead of a walk through a
/// 128-byte group, and a list cut to its owner's higher-ranked neighbours costs nothing), and
/// PCSR elsewhere ([`EngineConfig::list_index`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListIndex {
    /// PCSR groups of 128 bytes, found by hashing (one transaction a lookup, nearly always).
    Pcsr,
    /// Plain CSR: `3 |V|` words a partition (start, split, end).
    Csr,
    /// CR: `3 |V(D)|` words a partition, a binary search a lookup.
    Cr,
}

/// How the engines are set up.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// The GPU to use, by ordinal.
    pub device: usize,
    /// Share of the free device memory the join may use.
    pub device_join_share: f64,
    /// Bytes of PCSR the GPU keeps resident for every query; above it each query copies only
    /// the partitions it reads. `None`: [`RESIDENT_INDEX_SHARE`] of the free memory.
    pub resident_index_limit: Option<usize>,
    /// `auto` filters on the GPU above this many vertex tests.
    pub auto_gpu_filter_min_tests: usize,
    /// `auto` joins on the GPU above this many expected rows...
    pub auto_gpu_join_min_rows: f64,
    /// ... or from this many steps on.
    pub auto_gpu_join_min_steps: usize,
    /// Where compiled kernels are cached; `None`: compiled at every start.
    pub kernel_cache: Option<PathBuf>,
    /// Bytes of each pinned staging buffer of the index upload; uploads of at most an
    /// eighth of it are copied directly.
    pub upload_stage_bytes: usize,
    /// How the GPU finds a vertex's list in every partition; `None`: each partition's own
    /// choice, CSR where it takes no more memory than PCSR, else PCSR (one layout for all, to
    /// measure them against each other).
    pub list_index: Option<ListIndex>,
    /// Whether a GPU engine keeps the device buffers its queries free for its next ones,
    /// rather than asking the driver for each (a switch for tests and measurements).
    pub keep_device_buffers: bool,
    /// How the engines' joins go about a query.
    pub tuning: Tuning,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            device: 0,
            device_join_share: DEVICE_JOIN_SHARE,
            resident_index_limit: None,
            auto_gpu_filter_min_tests: GPU_FILTER_MIN_TESTS,
            auto_gpu_join_min_rows: GPU_JOIN_MIN_ROWS,
            auto_gpu_join_min_steps: GPU_JOIN_MIN_STEPS,
            kernel_cache: None,
            upload_stage_bytes: UPLOAD_STAGE_BYTES,
            list_index: None,
            keep_device_buffers: true,
            tuning: Tuning::default(),
        }
    }
}
