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

/// The edge label that stands for `rdf:type` in a predicate variable's assignment
/// (`crate::predicates`): no data edge has it.
pub const RDF_TYPE: EdgeLabel = EdgeLabel::MAX;

/// The data a BGP is translated for: its vertices' terms and its label dictionaries.
#[derive(Clone, Debug)]
pub struct Terms<'d> {
    /// Every data vertex's term, then the classes that are no vertex.
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
                vertices: TermIndex::new(vertices, "term")?.with_after(classes),
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
    /// Constants' vertices of the graph with their data vertices.
    pub pinned: Vec<(usize, VertexId)>,
    /// The query vertex of each variable.
    variables: HashMap<String, usize>,
    /// Each query vertex's term as SPARQL writes it (`?x`, `_:b`, `<iri>`, `"text"@en`).
    terms: Vec<String>,
    /// The `rdf:type` triples of variable predicates, matched through classes; `None`
    /// without them, when the graph's vertices are the query vertices.
    pub typing: Option<Typing>,
    /// Query vertices.
    vertex_count: usize,
}

impl QueryGraph {
    /// The query graph of `patterns` over `data`, each predicate variable of `variables`
    /// taking the predicate of the same place in `assignment` (a variable without one leaves
    /// the query without solutions).
    ///
    /// # Errors
    /// Where the graph of the patterns cannot be built.
    pub fn build(
        patterns: &[TriplePattern],
        data: &Terms<'_>,
        variables: &[Variable],
        assignment: &[EdgeLabel],
    ) -> Result<QueryGraph> {
        let mut nodes: HashMap<Node, usize> = HashMap::new();
        let mut labels: Vec<(usize, VertexLabel)> = Vec::new();
        let mut edges: Vec<(usize, usize, EdgeLabel)> = Vec::new();
        // Triples whose variable predicate is rdf:type: subject and class vertices.
        let mut typed: Vec<(usize, usize)> = Vec::new();
        // Vertices that are a subject, or an object other than a typed triple's class.
        let mut nodes_seen: Vec<usize> = Vec::new();
        let mut solvable = true;
        for pattern in patterns {
            let subject = vertex(&mut nodes, &pattern.subject);
            nodes_seen.push(subject);
            let label = match &pattern.predicate {
                NamedNodePattern::Variable(v) => variables
                    .iter()
                    .position(|w| w == v)
                    .and_then(|i| assignment.get(i).copied()),
                NamedNodePattern::NamedNode(predicate) if predicate.as_ref() == rdf::TYPE => {
                    let class = match &pattern.object {
                        TermPattern::NamedNode(class) => class.to_string(),
                        TermPattern::Literal(class) => class.to_string(),
                        // A variable (or blank) class: matched through the subject's
                        // classes, as a variable predicate's rdf:type triple is.
                        _ => {
                            typed.push((subject, vertex(&mut nodes, &pattern.object)));
                            continue;
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
                Some(RDF_TYPE) => typed.push((subject, object)),
                Some(label) if subject != object => {
                    nodes_seen.push(object);
                    edges.push((subject, object, label));
                }
                _ => solvable = false,
            }
        }
        let vertex_count = nodes.len();
        let mut is_node = vec![false; vertex_count];
        for u in nodes_seen {
            is_node[u] = true;
        }
        // The query vertex of each matched vertex: all but those that are only classes.
        let matched: Vec<usize> = (0..vertex_count).filter(|&u| is_node[u]).collect();
        let mut compact = vec![usize::MAX; vertex_count];
        for (i, &u) in matched.iter().enumerate() {
            compact[u] = i;
        }
        let mut pinned = Vec::new();
        let mut variables = HashMap::new();
        let mut terms = vec![String::new(); vertex_count];
        // The class each constant of a typed triple's class names.
        let mut constant_classes: HashMap<usize, VertexLabel> = HashMap::new();
        for (node, u) in nodes {
            match node {
                Node::Variable(name) => {
                    terms[u] = format!("?{name}");
                    variables.insert(name, u);
                }
                Node::Blank(name) => terms[u] = format!("_:{name}"),
                Node::Constant(term) => {
                    if typed.iter().any(|&(_, o)| o == u) {
                        match data.classes.id(&term) {
                            Some(class) => {
                                constant_classes.insert(u, class);
                            }
                            None => solvable = false,
                        }
                    }
                    if is_node[u] {
                        match data.vertices.id(&term) {
                            Some(v) => pinned.push((compact[u], v)),
                            None => solvable = false,
                        }
                    }
                    terms[u] = term;
                }
            }
        }
        pinned.sort_unstable();
        // A constant class is a vertex label of its subjects, as under a constant rdf:type.
        for &(s, o) in &typed {
            if let Some(&class) = constant_classes.get(&o) {
                labels.push((s, class));
            }
        }
        let typing = (!typed.is_empty())
            .then(|| Typing::new(&typed, &is_node, &constant_classes, matched.clone()));
        let graph = if solvable {
            let mut edges: Vec<(VertexId, VertexId, EdgeLabel)> = edges
                .into_iter()
                .map(|(s, o, label)| (compact[s] as VertexId, compact[o] as VertexId, label))
                .collect();
            edges.sort_unstable();
            edges.dedup();
            labels.sort_unstable();
            labels.dedup();
            let mut builder = GraphBuilder::with_edges(true, vec![0; matched.len()], edges)?;
            for (u, label) in labels {
                builder.add_label(compact[u] as VertexId, label)?;
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
            typing,
            vertex_count,
        })
    }

    /// The term of vertex `u` of [`QueryGraph::graph`] as SPARQL writes it (`?x`, `_:b`,
    /// `<iri>`, `"text"@en`).
    pub fn term(&self, u: usize) -> &str {
        let vertex = self.typing.as_ref().map_or(u, |t| t.matched[u]);
        &self.terms[vertex]
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

/// How the triples `s ?p o` whose predicate variable is assigned `rdf:type` are answered:
/// they are no edges of the graph matched, and the class `o` must be one of the labels of
/// `s`'s data vertex. Where `o` is a subject or object elsewhere, it is matched and its term
/// is checked to be such a class (`checks`); where it is not, it is no vertex of the graph,
/// and each match is repeated for each class its subjects share (`classes`).
#[derive(Clone, Debug)]
pub struct Typing {
    /// The query vertex of each vertex of the graph.
    pub matched: Vec<usize>,
    /// Query vertices `(s, o)`: `o`'s term is a class of `s`.
    pub checks: Vec<(usize, usize)>,
    /// Query vertices that are only classes, each with its subjects and, for a constant,
    /// its class.
    pub classes: Vec<(usize, Vec<usize>, Option<VertexLabel>)>,
}

impl Typing {
    fn new(
        typed: &[(usize, usize)],
        is_node: &[bool],
        constant_classes: &HashMap<usize, VertexLabel>,
        matched: Vec<usize>,
    ) -> Typing {
        let checks = typed.iter().copied().filter(|&(_, o)| is_node[o]).collect();
        let mut classes: Vec<(usize, Vec<usize>, Option<VertexLabel>)> = Vec::new();
        for &(s, o) in typed.iter().filter(|&&(_, o)| !is_node[o]) {
            match classes.iter_mut().find(|(u, _, _)| *u == o) {
                Some((_, subjects, _)) => subjects.push(s),
                None => classes.push((o, vec![s], constant_classes.get(&o).copied())),
            }
        }
        Typing {
            matched,
            checks,
            classes,
        }
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
    fn a_variable_class_is_matched_through_its_subjects_classes() {
        let loaded = data();
        for bgp in ["?x a ?c", "?x a _:c", "?x :knows ?y . ?x a ?c"] {
            let query = build(&loaded, bgp).unwrap();
            let typing = query.typing.as_ref().expect("a typed triple");
            let x = query.vertex_of(&Variable::new_unchecked("x")).unwrap();
            // The class is no vertex of the graph: each match repeats per class of ?x.
            assert_eq!(typing.classes.len(), 1, "{bgp}");
            assert_eq!(typing.classes[0].1, vec![x], "{bgp}");
            assert_eq!(typing.classes[0].2, None, "{bgp}");
            assert!(typing.checks.is_empty(), "{bgp}");
        }
        // A class that is also an object elsewhere is matched, and checked to be a class.
        let query = build(&loaded, "?x a ?c . ?y :knows ?c").unwrap();
        assert_eq!(query.typing.unwrap().checks.len(), 1);
    }
}
