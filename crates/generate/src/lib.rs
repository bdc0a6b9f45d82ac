//! Seeded generators for gsi: labelled data graphs shaped like the GSI paper's datasets,
//! and connected queries drawn from them by random walks.
//!
//! - [`generate_graph`] makes a graph of exactly `M` distinct edges on `N` vertices, laid
//!   out as a [`Shape`], with vertex and edge labels drawn from Zipf (power-law)
//!   distributions, label 0 the most frequent. [`Preset`]s give the sizes and label counts
//!   of the paper's datasets, scaled.
//! - [`generate_queries`] walks the data graph at random and keeps the visited vertices with
//!   all edges among them ([`Density::Dense`]) or a spanning tree and a few more
//!   ([`Density::Sparse`]).
//! - [`write_rdf`] writes RDF shaped like WatDiv (typed entities, 86 predicates, skewed
//!   degrees, literals with datatypes and languages) as N-Triples.
//!
//! Output depends only on the inputs and the seed: not on the platform nor on the number
//! of threads. Random numbers come from PCG streams (`rand_pcg`, pinned) and are turned
//! into ranges and floats without platform-dependent maths.
#![deny(missing_docs)]

mod graph;
mod presets;
mod query;
mod random;
mod rdf;

pub use graph::{generate_graph, GraphSpec, Shape};
pub use presets::Preset;
pub use query::{generate_queries, Density, Query, QuerySpec};
pub use rdf::{write_rdf, RdfSpec, RdfSummary, RDF_MAX_TRIPLES, RDF_MIN_TRIPLES, RDF_PREDICATES};

/// What can go wrong while generating.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request cannot be met (too many edges for the vertices, no labels, an unknown
    /// name, queries larger than the graph's components, ...).
    #[error("{0}")]
    Invalid(String),
    /// Building the graph failed (a bug: generated edges are checked).
    #[error(transparent)]
    Graph(#[from] gsi_graph::Error),
    /// Writing generated data failed.
    #[error("writing: {0}")]
    Io(#[from] std::io::Error),
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
