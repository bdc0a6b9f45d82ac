//! RDF triples as a directed, labelled graph: the mapping the N-Triples and Turtle readers
//! share. Each reader hands over its triples with every term spelled as in N-Triples
//! (`<iri>`, `_:label`, `"text"`, `"text"@lang`, `"text"^^<type>`).
//!
//! - Every subject and every object of a triple other than `rdf:type` is a vertex: IRIs,
//!   blank nodes and literals alike, numbered from 0 in order of first appearance. A
//!   vertex's name is its term as spelled, so two spellings of one literal (say with and
//!   without an escape) are two vertices.
//! - A triple `s <p> o` is the edge `s -> o` whose label is `p`'s number in the predicate
//!   dictionary (from 0, in order of first appearance).
//! - A triple `s rdf:type C` is no edge: it gives `s` the label of `C` in the class
//!   dictionary (from 1, in order of first appearance). Every vertex also carries label 0,
//!   "a resource": a query vertex matches a data vertex that has all its labels, so an
//!   untyped query vertex (label 0 alone) matches any vertex, typed or not, as an untyped
//!   variable does in RDF and SPARQL, and a typed one matches the vertices of its types. The
//!   subject is a vertex even if no other triple names it; the class is a vertex only if
//!   another triple names it.
//! - Repeated triples and triples from a vertex to itself are dropped and counted.
//!
//! The graph is always directed.

use rayon::prelude::*;

use crate::formats::names::Dictionary;
use crate::formats::{Format, LabelNames, LoadedGraph, SkippedEdges, VertexNames};
use crate::{EdgeLabel, GraphBuilder, Result, VertexId, VertexLabel};

/// The `rdf:type` predicate.
pub const RDF_TYPE: &str = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";

/// The graph of the triples added so far.
pub(crate) struct TripleGraph {
    vertices: Dictionary,
    predicates: Dictionary,
    classes: Dictionary,
    /// Label 0 for every vertex; its types are in `more_labels`.
    labels: Vec<VertexLabel>,
    more_labels: Vec<(VertexId, VertexLabel)>,
    edges: Vec<(VertexId, VertexId, EdgeLabel)>,
    skipped: SkippedEdges,
}

impl TripleGraph {
    pub(crate) fn new() -> TripleGraph {
        TripleGraph {
            vertices: Dictionary::new(0),
            predicates: Dictionary::new(0),
            classes: Dictionary::new(1),
            labels: Vec::new(),
            more_labels: Vec::new(),
            edges: Vec::new(),
            skipped: SkippedEdges::default(),
        }
    }

    /// Adds the triple `subject predicate object`, each term spelled as in N-Triples.
    ///
    /// # Errors
    /// What is wrong when a dictionary cannot number one more name.
    pub(crate) fn add(
        &mut self,
        subject: &str,
        predicate: &str,
        object: &str,
    ) -> std::result::Result<(), String> {
        let s = self.vertex(subject)?;
        if predicate == RDF_TYPE {
            let class = insert(&mut self.classes, object, "classes")?;
            self.more_labels.push((s, class));
            return Ok(());
        }
        let p = insert(&mut self.predicates, predicate, "predicates")?;
        let o = self.vertex(object)?;
        if s == o {
            self.skipped.self_loops += 1;
        } else {
            self.edges.push((s, o, p));
        }
        Ok(())
    }

    /// The number of the vertex `term`, a new one with label 0 if it is new.
    fn vertex(&mut self, term: &str) -> std::result::Result<VertexId, String> {
        let v = insert(&mut self.vertices, term, "vertices")?;
        if self.labels.len() < self.vertices.len() {
            self.labels.push(0);
        }
        Ok(v)
    }

    /// The graph with its names and dictionaries, read as `format`.
    ///
    /// # Errors
    /// The graph cannot be built (memory).
    pub(crate) fn finish(self, format: Format) -> Result<LoadedGraph> {
        let TripleGraph {
            vertices,
            predicates,
            classes,
            labels,
            more_labels,
            mut edges,
            mut skipped,
        } = self;
        edges.par_sort_unstable();
        let before = edges.len();
        edges.dedup();
        skipped.duplicates = (before - edges.len()) as u64;
        edges.shrink_to_fit();
        let mut builder = GraphBuilder::with_edges(true, labels, edges)?;
        for (v, class) in more_labels {
            builder.add_label(v, class)?;
        }
        Ok(LoadedGraph {
            graph: builder.build()?,
            format,
            names: Some(VertexNames::Terms(vertices)),
            labels: LabelNames {
                vertex: Some(classes),
                edge: Some(predicates),
            },
            skipped,
        })
    }
}

/// The number of `name` in `dictionary` (of `what`), added if new.
fn insert(dictionary: &mut Dictionary, name: &str, what: &str) -> std::result::Result<u32, String> {
    if dictionary.is_full() {
        return Err(format!("too many {what} for 32-bit numbers"));
    }
    Ok(dictionary.insert(name))
}
