//! gsi-sparql: SPARQL basic graph patterns answered by gsi's subgraph matcher.
//!
//! A query is parsed by spargebra and cut down to the fragment gsi answers ([`parse`]): one
//! basic graph pattern (BGP) under `SELECT`, `ASK` or `SELECT (COUNT(*) AS ?n)`. Its BGP
//! becomes a query graph in the data graph's numbering ([`bgp`]): variables and blank nodes
//! are query vertices, constants are query vertices pinned to their data vertex, predicates
//! are edge labels and `rdf:type` with a constant class is a vertex label (with a variable
//! class, its triples are matched through their subject's classes); variable predicates
//! take each of the data's predicates in turn ([`predicates`]). The matcher finds
//! its homomorphisms, which are the BGP's solutions with their multiplicities, and
//! [`answer`] writes them in the W3C result formats as they come ([`results`]), or once
//! sorted under `ORDER BY` ([`order`], in SPARQL's order of terms: [`compare`]), those
//! where the group's `FILTER` holds ([`filter`]) alone.

pub mod answer;
pub mod bgp;
pub mod compare;
mod error;
mod explain;
pub mod filter;
pub mod order;
pub mod parse;
pub mod predicates;
pub mod results;
mod rows;
pub mod spelling;

pub use answer::{answer, answer_explained, RdfData};
pub use error::{Error, Result};
pub use parse::{parse, Form, Query, SortKey};
pub use results::ResultsFormat;
