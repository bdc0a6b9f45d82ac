//! The data served, kept for the server's life (every request borrows it): its index, as
//! RDF where it is, and example queries made from its most frequent predicates and classes.

use gsi_core::DataIndex;
use gsi_graph::formats::{Dictionary, LabelNames, VertexNames};
use gsi_sparql::RdfData;
use serde::Serialize;

use super::protocol::Failure;
use crate::session::Session;

pub struct Dataset {
    pub index: &'static DataIndex,
    /// The data as RDF, or why it is not.
    rdf: Result<&'static RdfData<'static>, String>,
    /// The queries the page offers.
    pub examples: Vec<Example>,
}

/// A query the page offers.
#[derive(Serialize)]
pub struct Example {
    pub title: String,
    pub query: String,
}

/// Predicates and classes the examples use, the most frequent first.
const EXAMPLE_TERMS: usize = 2;

impl Dataset {
    /// The data of `session`, kept until the process ends.
    pub fn new(session: Session) -> Dataset {
        let index: &'static DataIndex = Box::leak(Box::new(session.index));
        let names: &'static Option<VertexNames> = Box::leak(Box::new(session.names));
        let labels: &'static LabelNames = Box::leak(Box::new(session.labels));
        let rdf = RdfData::new(index, names.as_ref(), labels, &session.skipped)
            .map(|rdf| &*Box::leak(Box::new(rdf)))
            .map_err(|e| e.to_string());
        let examples = match rdf {
            Ok(_) => examples(index, labels),
            Err(_) => Vec::new(),
        };
        Dataset {
            index,
            rdf,
            examples,
        }
    }

    /// The data as RDF.
    ///
    /// # Errors
    /// 400, saying why it is not.
    pub fn rdf(&self) -> Result<&'static RdfData<'static>, Failure> {
        match &self.rdf {
            Ok(rdf) => Ok(rdf),
            Err(why) => Err(Failure::bad_request(format!(
                "{why}; query it with a query graph at /match"
            ))),
        }
    }

    /// Why the data is not RDF, if it is not.
    pub fn not_rdf(&self) -> Option<&str> {
        self.rdf.as_ref().err().map(String::as_str)
    }
}

/// The names of `dictionary` of the highest `count`, the first [`EXAMPLE_TERMS`].
fn frequent(dictionary: &Dictionary, count: &dyn Fn(u32) -> usize) -> Vec<String> {
    let first = dictionary.first();
    let mut ids: Vec<u32> = (first..first + dictionary.len() as u32).collect();
    ids.sort_by_key(|&id| std::cmp::Reverse(count(id)));
    ids.into_iter()
        .take(EXAMPLE_TERMS)
        .filter_map(|id| dictionary.name(id).map(str::to_string))
        .collect()
}

/// Queries over the most frequent predicates and classes of RDF data.
fn examples(index: &DataIndex, labels: &LabelNames) -> Vec<Example> {
    let (Some(predicates), Some(classes)) = (&labels.edge, &labels.vertex) else {
        return Vec::new();
    };
    let predicates = frequent(predicates, &|l| index.edge_label_count(l));
    let classes = frequent(classes, &|l| index.vertices_with_label(l).len());
    let mut examples = Vec::new();
    if let Some(p) = predicates.first() {
        examples.push(Example {
            title: format!("Triples of {p}"),
            query: format!("SELECT ?s ?o WHERE {{\n  ?s {p} ?o .\n}}\nLIMIT 20"),
        });
        examples.push(Example {
            title: format!("How many triples of {p}"),
            query: format!("SELECT (COUNT(*) AS ?n) WHERE {{\n  ?s {p} ?o .\n}}"),
        });
    }
    if let [p, q, ..] = predicates.as_slice() {
        examples.push(Example {
            title: format!("A path: {p} then {q}"),
            query: format!("SELECT ?a ?b ?c WHERE {{\n  ?a {p} ?b .\n  ?b {q} ?c .\n}}\nLIMIT 20"),
        });
    }
    if let Some(c) = classes.first() {
        examples.push(Example {
            title: format!("Instances of {c}"),
            query: format!("SELECT ?x WHERE {{\n  ?x a {c} .\n}}\nLIMIT 20"),
        });
        if let Some(p) = predicates.first() {
            examples.push(Example {
                title: format!("Is there a {c} with {p}?"),
                query: format!("ASK {{\n  ?x a {c} .\n  ?x {p} ?y .\n}}"),
            });
        }
    }
    examples
}
