//! Errors of graph construction and reading.

use std::path::PathBuf;

/// Everything that can go wrong while reading or building a graph.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// Writing a file failed after it was created (a full disk, a device error): not the
    /// input's fault.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A line of the file is malformed.
    #[error("{}:{line}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// One-based line number.
        line: usize,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The file as a whole is inconsistent (for example, header counts disagree with the body).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The input holds more bytes than may be held in memory.
    #[error("{}: more than {} bytes to hold in memory ({})", path.display(), bound.bytes, bound.source)]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The bound it exceeds.
        bound: crate::formats::MemoryBound,
    },
    /// The same edge was given twice.
    #[error("duplicate edge {from} -- {to} with label {label}")]
    DuplicateEdge {
        /// One endpoint (the smaller id for an undirected edge).
        from: u32,
        /// The other endpoint.
        to: u32,
        /// The edge label.
        label: u32,
    },
    /// A query names its labels (N-Triples) but the data graph only numbers them, so the
    /// names cannot be matched.
    #[error("the query names its {kind} labels but the data graph numbers them; write the query in the data graph's format")]
    NamedQueryLabels {
        /// Which labels.
        kind: crate::formats::LabelKind,
    },
    /// Memory for a graph could not be allocated.
    #[error("out of memory: {bytes} bytes for {what} could not be allocated")]
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// How many bytes.
        bytes: usize,
    },
    /// A graph built in memory is inconsistent.
    #[error("{0}")]
    Build(String),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
