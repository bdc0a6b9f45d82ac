//! Label names, and query labels renumbered into the data graph's numbering.
//!
//! A reader that names its labels (N-Triples: classes and predicates) numbers them in order of
//! first appearance in *its own* file, so a query file and a data file number the same
//! predicate differently. A query is matched only after [`LabelNames::translate`] has
//! renumbered its labels through the data graph's dictionaries; a name the data graph lacks
//! gets a number no data label has, so the query has no match, and is reported.

use std::fmt;

use crate::formats::names::Dictionary;
use crate::{Error, Graph, GraphBuilder, Result, VertexId};

/// The names of a graph's labels, where its file gave names rather than numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelNames {
    /// Vertex label names (N-Triples: the class IRIs, numbered from 1; label 0 means "no
    /// `rdf:type`" and has no name).
    pub vertex: Option<Dictionary>,
    /// Edge label names (N-Triples: the predicate IRIs, numbered from 0).
    pub edge: Option<Dictionary>,
}

/// Which kind of label a name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelKind {
    /// A vertex label (an RDF class).
    Vertex,
    /// An edge label (an RDF predicate).
    Edge,
}

/// A label name of a query that the data graph does not have: the query has no match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLabel {
    /// Vertex or edge label.
    pub kind: LabelKind,
    /// The name as the query file wrote it.
    pub name: String,
}

impl fmt::Display for LabelKind {
    /// `vertex` or `edge`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LabelKind::Vertex => "vertex",
            LabelKind::Edge => "edge",
        })
    }
}

impl fmt::Display for UnknownLabel {
    /// `edge label <http://x/likes>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} label {}", self.kind, self.name)
    }
}

/// A query graph in the data graph's label numbering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranslatedQuery {
    /// The query with the data graph's label numbers.
    pub graph: Graph,
    /// Names the data graph does not have, each once, in order of first use.
    pub unknown: Vec<UnknownLabel>,
}

impl LabelNames {
    /// Whether neither kind of label has names.
    pub fn is_empty(&self) -> bool {
        self.vertex.is_none() && self.edge.is_none()
    }

    /// Renumbers the labels of `query`, named by `query_names`, into the numbering of these
    /// (the data graph's) names. Numbered labels (no names on the query's side) are taken to
    /// be in the data graph's numbering already and are kept.
    ///
    /// # Errors
    /// [`Error::NamedQueryLabels`]: the query names a kind of label that the data graph only
    /// numbers.
    pub fn translate(&self, query: Graph, query_names: &LabelNames) -> Result<TranslatedQuery> {
        if query_names.is_empty() {
            return Ok(TranslatedQuery {
                graph: query,
                unknown: Vec::new(),
            });
        }
        let mut unknown = Vec::new();
        let vertex = Renumber::new(
            query_names.vertex.as_ref(),
            self.vertex.as_ref(),
            LabelKind::Vertex,
        )?;
        let edge = Renumber::new(
            query_names.edge.as_ref(),
            self.edge.as_ref(),
            LabelKind::Edge,
        )?;
        let vertices = 0..query.vertex_count() as VertexId;
        let sets: Vec<Vec<u32>> = vertices
            .map(|v| {
                let set = query.labels_of(v).iter();
                set.map(|&l| vertex.apply(l, &mut unknown)).collect()
            })
            .collect();
        let edges: Vec<_> = query
            .edge_iter()
            .map(|(s, t, l)| (s, t, edge.apply(l, &mut unknown)))
            .collect();
        // Distinct names get distinct numbers, so the edges stay distinct.
        let labels = sets.iter().map(|set| set[0]).collect();
        let mut builder = GraphBuilder::with_edges(query.is_directed(), labels, edges)?;
        for (v, set) in sets.iter().enumerate() {
            for &l in &set[1..] {
                builder.add_label(v as VertexId, l)?;
            }
        }
        let graph = builder.build()?;
        Ok(TranslatedQuery { graph, unknown })
    }
}

/// One kind of label: from the query's dictionary to the data graph's.
struct Renumber<'a> {
    /// `None`: the labels are kept as they are.
    dictionaries: Option<(&'a Dictionary, &'a Dictionary)>,
    kind: LabelKind,
}

impl<'a> Renumber<'a> {
    fn new(
        query: Option<&'a Dictionary>,
        data: Option<&'a Dictionary>,
        kind: LabelKind,
    ) -> Result<Renumber<'a>> {
        let dictionaries = match (query.filter(|q| !q.is_empty()), data) {
            (None, _) => None,
            (Some(query), Some(data)) => Some((query, data)),
            (Some(_), None) => return Err(Error::NamedQueryLabels { kind }),
        };
        Ok(Renumber { dictionaries, kind })
    }

    /// The data graph's number for the query's label `label`. A name the data graph lacks is
    /// recorded in `unknown` and gets a number past every data label (one per name); a label
    /// without a name (N-Triples vertex label 0: no type) stays as it is.
    fn apply(&self, label: u32, unknown: &mut Vec<UnknownLabel>) -> u32 {
        let Some((query, data)) = self.dictionaries else {
            return label;
        };
        let Some(name) = query.name(label) else {
            return label;
        };
        if let Some(id) = data.id(name) {
            return id;
        }
        let position = match unknown
            .iter()
            .filter(|u| u.kind == self.kind)
            .position(|u| u.name == name)
        {
            Some(i) => i,
            None => {
                unknown.push(UnknownLabel {
                    kind: self.kind,
                    name: name.to_string(),
                });
                unknown.iter().filter(|u| u.kind == self.kind).count() - 1
            }
        };
        // Data labels are exactly `first .. first + len`, so these numbers are unused.
        data.first()
            .saturating_add(data.len() as u32)
            .saturating_add(position as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ntriples;
    use crate::Direction;
    use std::path::Path;

    fn read(text: &str) -> crate::formats::LoadedGraph {
        ntriples::parse(Path::new("g.nt"), text.as_bytes()).unwrap()
    }

    #[test]
    fn predicates_and_classes_take_the_data_graphs_numbers() {
        let data = read("<a> <knows> <b> .\n<b> <worksAt> <c> .\n<c> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <Org> .\n");
        let query = read(
            "<x> <worksAt> <y> .\n<y> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <Org> .\n",
        );
        // In its own file `worksAt` is predicate 0; in the data it is 1.
        assert_eq!(query.graph.edge_labels(), vec![0]);
        let t = data.labels.translate(query.graph, &query.labels).unwrap();
        assert!(t.unknown.is_empty());
        assert_eq!(t.graph.neighbors(0, 1, Direction::Out), &[1]);
        // `x` is untyped (a resource, label 0 alone), `y` a resource of type `Org`.
        assert_eq!(t.graph.labels_of(0), &[0]);
        assert_eq!(t.graph.labels_of(1), &[0, 1]);
    }

    #[test]
    fn names_the_data_lacks_get_unused_numbers_and_are_reported() {
        let data = read("<a> <knows> <b> .\n");
        let query = read("<x> <likes> <y> .\n<y> <hates> <z> .\n<z> <likes> <w> .\n");
        let t = data.labels.translate(query.graph, &query.labels).unwrap();
        let names: Vec<String> = t.unknown.iter().map(|u| u.to_string()).collect();
        assert_eq!(names, ["edge label <likes>", "edge label <hates>"]);
        let used = t.graph.edge_labels();
        assert_eq!(used, vec![1, 2]);
        assert!(!used.contains(&0), "no data label is reused");
    }

    #[test]
    fn numbered_queries_are_kept_and_named_queries_need_named_data() {
        let numbered = crate::formats::LoadedGraph::plain(
            GraphBuilder::with_edges(true, vec![0, 0], vec![(0, 1, 7)])
                .unwrap()
                .build()
                .unwrap(),
            crate::formats::Format::SunLuo,
        );
        let data = read("<a> <knows> <b> .\n");
        let t = data
            .labels
            .translate(numbered.graph.clone(), &numbered.labels)
            .unwrap();
        assert_eq!(t.graph, numbered.graph);
        let query = read("<x> <knows> <y> .\n");
        let err = numbered
            .labels
            .translate(query.graph, &query.labels)
            .unwrap_err();
        assert!(err.to_string().contains("names its edge labels"), "{err}");
    }
}
