//! Errors of the core.

/// Everything that can go wrong while indexing or matching.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The query graph has no vertices.
    #[error("the query graph has no vertices")]
    EmptyQuery,
    /// One graph is directed and the other is not.
    #[error("the query and the data graph must both be directed or both undirected")]
    DirectionMismatch,
    /// The data graph exceeds what the index can address.
    #[error("the data graph is too large: {0}")]
    GraphTooLarge(String),
    /// The GPU engine cannot run.
    #[error("{0}")]
    NoGpu(String),
    /// `join` was called before `filter`.
    #[error("internal error: the join ran before the filter")]
    NoCandidates,
    /// A CUDA driver, NVRTC or kernel failure.
    #[error("GPU error while {what}: {message}")]
    Gpu {
        /// What gsi was doing.
        what: String,
        /// What the driver said.
        message: String,
    },
    /// The engine cannot run this query (for example, too many query vertices for the GPU).
    #[error("{0}")]
    Unsupported(String),
    /// Writing matches failed.
    #[error("writing matches: {0}")]
    Output(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
