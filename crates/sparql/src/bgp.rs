//! A BGP as a query graph in the data graph's numbering.
//!
//! Each variable, blank node and constant term of a subject or object is one query vertex;
//! a constant is pinned to the data vertex of the same term. A triple `s <p> o` is the edge
//! `s -> o` labelled with `<p>`'s number in the data's predicate dictionary; `s rdf:type C`
//! with a constant `C` gives `s` the label of `C` in the data's class dictionary. Every query
//! vertex also carries label 0, which every data vertex has, so an untyped one matches any
//! vertex. Whatever the data lacks (a predicate, a class, a constant) and a triple from a term
//! to itself (the data keeps no such triple) leave the query without solutions. Terms are
//! found as RDF compares them ([`TermIndex`]).

use std::collections::HashMap;

use gsi_graph::formats::{Dictionary, LabelNames};
use gsi_graph::{EdgeLabel, Graph, GraphBuilder, VertexId, VertexLabel};
use oxrdf::vocab::rdf;
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};

use crate::error::{Error, Result};
use crate::parse::Variable;
use crate::spelling::TermIndex;

/// The data a BGP is translated for: its vertices' terms and its label dictionaries.
#[derive(Clone, Debug)]
pub struct Terms<'d> {
    /// Every data vertex's term.
    pub vertices: TermIndex<'d>,
    /// The predicates (edge labels).
    pub predicates: TermIndex<'d>,
    /// The classes (vertex labels from 1).
    pub classes: TermIndex<'d>,
}

impl<'d> Terms<'d> {
    /// The dictionaries of an N-Triples graph.
    ///
    /// # Errors
    /// [`Error::Data`] when `labels` are not those of RDF (another format's graph), or when
    /// the file spelled one term two ways ([`TermIndex::new`]).
    pub fn of(vertices: &'d Dictionary, labels: &'d LabelNames) -> Result<Terms<'d>> {
        match (&labels.edge, &labels.vertex) {
            (Some(predicates), Some(classes)) => Ok(Terms {
                vertices: TermIndex::new(vertices, "term")?,
                predicates: TermIndex::new(predicates, "predicate")?,
                classes: TermIndex::new(classes, "class")?,
            }),
            _ => Err(Error::Data(
                "the data graph has no RDF predicates and classes".into(),
            )),
        }
    }
}

/// A query vertex's term in the BGP.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    Variable(String),
    Blank(String),
    /// A constant, spelled as N-Triples writes it.
    Constant(String),
}

/// The query graph of a BGP.
#[derive(Clone, Debug)]
pub struct QueryGraph {
    /// The graph; `None` when the BGP can have no solution in this data.
    pub graph: Option<Graph>,
    /// Constants' query vertices with their data vertices.
    pub pinned: Vec<(usize, VertexId)>,
    /// The query vertex of each variable.
    variables: HashMap<String, usize>,
    /// Each query vertex's term as SPARQL writes it (`?x`, `_:b`, `<iri>`, `"text"@en`).
    terms: Vec<String>,
    /// Query vertices.
    vertex_count: usize,
}

impl QueryGraph {
    /// The query graph of `patterns` over `data`, each predicate variable of `variables`
    /// taking the predicate of the same place in `assignment` (a variable without one leaves
    /// the query without solutions).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for `rdf:type` with a variable or blank class.
    pub fn build(
        patterns: &[TriplePattern],
        data: &Terms<'_>,
        variables: &[Variable],
        assignment: &[EdgeLabel],
    ) -> Result<QueryGraph> {
        let mut nodes: HashMap<Node, usize> = HashMap::new();
        let mut labels: Vec<(usize, VertexLabel)> = Vec::new();
        let mut edges: Vec<(VertexId, VertexId, EdgeLabel)> = Vec::new();
        let mut solvable = true;
        for pattern in patterns {
            let subject = vertex(&mut nodes, &pattern.subject);
            let label = match &pattern.predicate {
                NamedNodePattern::Variable(v) => variables
                    .iter()
                    .position(|w| w == v)
                    .and_then(|i| assignment.get(i).copied()),
                NamedNodePattern::NamedNode(predicate) if predicate.as_ref() == rdf::TYPE => {
                    let class = match &pattern.object {
                        TermPattern::NamedNode(class) => class.to_string(),
                        TermPattern::Literal(class) => class.to_string(),
                        _ => {
                            return Err(Error::Unsupported(
                                "rdf:type with a variable or blank class".into(),
                            ))
                        }
                    };
                    match data.classes.id(&class) {
                        Some(label) => labels.push((subject, label)),
                        None => solvable = false,
                    }
                    continue;
                }
                NamedNodePattern::NamedNode(predicate) => {
                    data.predicates.id(&predicate.to_string())
                }
            };
            let object = vertex(&mut nodes, &pattern.object);
            match label {
                Some(label) if subject != object => {
                    edges.push((subject as VertexId, object as VertexId, label))
                }
                _ => solvable = false,
            }
        }
        let vertex_count = nodes.len();
        let mut pinned = Vec::new();
        let mut variables = HashMap::new();
        let mut terms = vec![String::new(); vertex_count];
        for (node, u) in nodes {
            match node {
                Node::Variable(name) => {
                    terms[u] = format!("?{name}");
                    variables.insert(name, u);
                }
                Node::Blank(name) => terms[u] = format!("_:{name}"),
                Node::Constant(term) => {
                    match data.vertices.id(&term) {
                        Some(v) => pinned.push((u, v)),
                        None => solvable = false,
                    }
                    terms[u] = term;
                }
            }
        }
        pinned.sort_unstable();
        let graph = if solvable {
            edges.sort_unstable();
            edges.dedup();
            labels.sort_unstable();
            labels.dedup();
            let mut builder = GraphBuilder::with_edges(true, vec![0; vertex_count], edges)?;
            for (u, label) in labels {
                builder.add_label(u as VertexId, label)?;
            }
            Some(builder.build()?)
        } else {
            None
        };
        Ok(QueryGraph {
            graph,
            pinned,
            variables,
            terms,
            vertex_count,
        })
    }

    /// Query vertex `u`'s term as SPARQL writes it (`?x`, `_:b`, `<iri>`, `"text"@en`).
    pub fn term(&self, u: usize) -> &str {
        &self.terms[u]
    }

    /// The query vertex of `variable`, if the BGP has it.
    pub fn vertex_of(&self, variable: &Variable) -> Option<usize> {
        self.variables.get(variable.as_str()).copied()
    }

    /// Query vertices: variables, blank nodes and constants.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }
}

/// The query vertex of `term`, numbered on first sight.
fn vertex(nodes: &mut HashMap<Node, usize>, term: &TermPattern) -> usize {
    let node = match term {
        TermPattern::Variable(v) => Node::Variable(v.as_str().to_string()),
        TermPattern::BlankNode(b) => Node::Blank(b.as_str().to_string()),
        TermPattern::NamedNode(n) => Node::Constant(n.to_string()),
        TermPattern::Literal(l) => Node::Constant(l.to_string()),
    };
    let next = nodes.len();
    *nodes.entry(node).or_insert(next)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use gsi_graph::formats::{ntriples, LoadedGraph, VertexNames};

    use super::*;
    use crate::parse::parse;

    const DATA: &str = r#"<http://ex/a> <http://ex/knows> <http://ex/b> .
<http://ex/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://ex/Person> .
<http://ex/b> <http://ex/name> "Bob" .
<http://ex/b> <http://ex/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
"#;

    fn data() -> LoadedGraph {
        ntriples::parse(Path::new("d.nt"), DATA.as_bytes()).unwrap()
    }

    fn build(loaded: &LoadedGraph, bgp: &str) -> Result<QueryGraph> {
        let Some(VertexNames::Terms(vertices)) = &loaded.names else {
            unreachable!("N-Triples names its vertices")
        };
        let terms = Terms::of(vertices, &loaded.labels)?;
        let query = parse(&format!("PREFIX : <http://ex/> SELECT * {{ {bgp} }}"))?;
        QueryGraph::build(&query.patterns, &terms, &[], &[])
    }

    #[test]
    fn variables_blank_nodes_and_constants_are_vertices_and_classes_labels() {
        let loaded = data();
        let query = build(&loaded, "?x :knows _:y . _:y :age 42 . ?x a :Person").unwrap();
        let graph = query.graph.as_ref().unwrap();
        assert_eq!(query.vertex_count(), 3);
        let x = query.vertex_of(&Variable::new_unchecked("x")).unwrap();
        // Predicates and classes in the data's numbering: knows 0, age 2; Person 1.
        let mut edges: Vec<_> = graph.edge_iter().collect();
        edges.sort_unstable();
        assert_eq!(edges, vec![(0, 1, 0), (1, 2, 2)]);
        assert_eq!(graph.labels_of(x as VertexId), &[0, 1]);
        // The literal 42 is pinned to the data's "42"^^xsd:integer, vertex 3.
        assert_eq!(query.pinned, vec![(2, 3)]);
    }

    #[test]
    fn a_plain_string_finds_its_vertex() {
        let loaded = data();
        let query = build(&loaded, r#"?x :name "Bob""#).unwrap();
        assert_eq!(query.pinned, vec![(1, 2)]);
    }

    #[test]
    fn what_the_data_lacks_leaves_no_solution() {
        let loaded = data();
        for bgp in [
            "?x :likes ?y",
            "?x a :Robot",
            "?x :knows :nobody",
            "?x :knows ?x",
            "?x :knows ?y . ?y :likes ?z",
        ] {
            assert!(build(&loaded, bgp).unwrap().graph.is_none(), "{bgp}");
        }
        assert!(build(&loaded, "?x :knows ?y").unwrap().graph.is_some());
    }

    #[test]
    fn a_variable_class_is_refused() {
        let loaded = data();
        for bgp in ["?x a ?c", "?x a _:c"] {
            assert!(
                matches!(build(&loaded, bgp), Err(Error::Unsupported(c)) if c.contains("rdf:type")),
                "{bgp}"
            );
        }
    }
}
