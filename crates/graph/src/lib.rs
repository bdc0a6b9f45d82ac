//! Labelled graphs for gsi.
//!
//! A [`Graph`] holds vertex labels and labelled edges in compressed sparse row (CSR) form,
//! with each vertex's neighbours sorted by (edge label, neighbour id) so that the neighbours
//! reached through one edge label, N(v, l) in the paper's notation, form one sorted slice.
//! Graphs are undirected unless built as directed; a directed graph keeps a second CSR of
//! incoming edges. The [`formats`] module reads graphs from text files (Sun–Luo, GSI, SNAP
//! edge lists, RDF N-Triples and Turtle), reporting every malformed line with the file, the line
//! number and what was expected, and writes them as Sun–Luo or GSI text or as gMatch's binary
//! CSR.
#![deny(missing_docs)]

mod buffer;
mod builder;
mod error;
pub mod formats;
mod graph;
pub mod line;
mod renumber;
pub mod saved;

pub use buffer::Buffer;
pub use builder::{vec_for, GraphBuilder};
pub use error::{Error, Result};
pub use graph::{Direction, EdgeLabel, Graph, GraphBytes, VertexId, VertexLabel};
