//! Errors of the core: typed, so that the caller decides the wording and the advice.

use std::fmt;

/// Why the GPU engine cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoGpu {
    /// `libcuda` cannot be loaded.
    NoDriver,
    /// `libnvrtc` cannot be loaded.
    NoNvrtc,
    /// `libcuda` or `libnvrtc` loads but lacks a function gsi calls.
    MissingFunction {
        /// The library.
        library: &'static str,
        /// The first function it lacks.
        function: &'static str,
    },
    /// The driver cannot list its devices.
    CannotList(String),
    /// The driver lists no device.
    NoDevice,
    /// The device asked for does not exist.
    NoSuchDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices there are.
        count: usize,
    },
    /// The device exists but cannot be opened.
    CannotOpen {
        /// The ordinal asked for.
        ordinal: usize,
        /// What the driver said.
        message: String,
    },
}

impl fmt::Display for NoGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoGpu::NoDriver => f.write_str("no NVIDIA driver found (libcuda.so could not be loaded)"),
            NoGpu::NoNvrtc => f.write_str("NVRTC not found (libnvrtc.so could not be loaded); install the CUDA runtime compiler, e.g. `pip install nvidia-cuda-nvrtc`, and add its lib folder to LD_LIBRARY_PATH"),
            NoGpu::MissingFunction { library, function } => write!(
                f,
                "the {library}.so found lacks the function {function}: it is not a usable CUDA library (check LD_LIBRARY_PATH)"
            ),
            NoGpu::CannotList(message) => write!(f, "the NVIDIA driver cannot list devices: {message}"),
            NoGpu::NoDevice => f.write_str("the NVIDIA driver reports no GPU"),
            NoGpu::NoSuchDevice { ordinal, count } => write!(
                f,
                "there is no GPU {ordinal}: this machine has {count}, numbered from 0"
            ),
            NoGpu::CannotOpen { ordinal, message } => write!(f, "cannot open GPU {ordinal}: {message}"),
        }
    }
}

/// Everything that can go wrong while indexing or matching.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The query graph has no vertices.
    #[error("the query graph has no vertices")]
    EmptyQuery,
    /// The filter stopped before every query vertex had its candidates (out of time,
    /// interrupted): the search answers with this status and no match, planning nothing over
    /// partial sets. Never returned by the matching functions, which report the status.
    #[error("the filter stopped: {0:?}")]
    FilterStopped(crate::options::Status),
    /// One graph is directed and the other is not.
    #[error("the query and the data graph must both be directed or both undirected")]
    DirectionMismatch,
    /// The data graph exceeds what the index can address.
    #[error("the data graph is too large: {0}")]
    GraphTooLarge(String),
    /// The data graph's PCSR exceeds the 32-bit offsets of the GPU index.
    #[error("the data graph is too large for the GPU index: {entries} neighbour entries and {words} words locating their lists exceed its 32-bit offsets")]
    GpuIndexTooLarge {
        /// Neighbour entries the partitions hold.
        entries: usize,
        /// Words that locate the lists (PCSR groups, or CSR's or CR's arrays).
        words: usize,
    },
    /// The candidate sets of a query are beyond the 32-bit offsets of the GPU's lists.
    #[error("the query's candidate sets are too large for the GPU: up to {entries} entries (its {query_vertices} vertices over {data_vertices} data vertices) exceed its 32-bit offsets; use the CPU engine")]
    CandidatesTooLargeForGpu {
        /// Entries the lists could hold.
        entries: u64,
        /// Vertices of the query.
        query_vertices: usize,
        /// Vertices of the data graph.
        data_vertices: usize,
    },
    /// Keeping the matches found would take more than the memory budget.
    #[error("keeping more than {matches} matches ({bytes} bytes) would exceed the memory limit of {budget} bytes")]
    MemoryLimit {
        /// Matches kept when the next batch would have gone over.
        matches: u64,
        /// Bytes they and the next batch would take.
        bytes: usize,
        /// The budget.
        budget: usize,
    },
    /// A count reached 2^128 − 1, the most gsi holds.
    #[error("the count reaches 2^128 - 1 or more, beyond what gsi counts")]
    CountBeyond128Bits,
    /// The GPU engine cannot run.
    #[error("{0}")]
    NoGpu(NoGpu),
    /// A CUDA driver call failed.
    #[error("GPU error while {what}: {source}")]
    Driver {
        /// What gsi was doing.
        what: String,
        /// What the driver said.
        source: cudarc::driver::DriverError,
    },
    /// NVRTC could not compile a kernel module.
    #[error("GPU error while compiling {module}: {log}")]
    Compile {
        /// The `.cu` file.
        module: &'static str,
        /// NVRTC's message and log.
        log: String,
    },
    /// A compiled module lacks a kernel that gsi-kernels lists (a build mismatch).
    #[error("kernel {name} is missing from {module}")]
    MissingKernel {
        /// The kernel's entry name.
        name: &'static str,
        /// The `.cu` file.
        module: &'static str,
    },
    /// A saved index cannot be written or read (damaged, stale, of another version).
    #[error(transparent)]
    Saved(#[from] gsi_graph::Error),
    /// Writing matches failed.
    #[error("writing matches: {0}")]
    Output(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Wraps a driver error with what gsi was doing.
pub(crate) fn driver(what: impl Into<String>) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    let what = what.into();
    move |source| Error::Driver { what, source }
}
