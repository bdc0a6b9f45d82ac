//! Edge isomorphism (the paper's Sec. "Extensions"): a query's line graph matched in the data
//! graph's, induced over [`ABSENT_LABELS`] only (`gsi_graph::line` says why that finds exactly
//! the edge isomorphisms), and each match's line vertices read back as data edges. Every
//! front end runs it through here.

use std::fmt;
use std::str::FromStr;

use gsi_graph::line::{LineError, LineGraph, LineLabels, ABSENT_LABELS};
use gsi_graph::{EdgeLabel, Graph, VertexId};

use crate::index::DataIndex;
use crate::options::Semantics;

/// Most edges of a data graph's line graph (a vertex of degree d gives d(d-1)).
pub const LINE_EDGES_MAX: u64 = 1 << 31;

/// What edge isomorphism keeps of a data graph once its line graph is built: the data edge
/// each line vertex stands for, and the numbering of line labels that queries are built in.
#[derive(Debug, Clone)]
pub struct DataEdges {
    edges: Vec<[VertexId; 2]>,
    labels: LineLabels,
    /// The data graph's own vertices.
    vertices: usize,
}

impl DataEdges {
    /// The line graph of the graph `index` holds (to be indexed and matched in its place),
    /// and what reads its matches back as data edges. Isolated data vertices are left out;
    /// a line graph of more than [`LINE_EDGES_MAX`] edges is refused.
    ///
    /// # Errors
    /// [`LineError`]: the graph is directed, has a vertex of several labels, or is too large.
    pub fn of(index: &DataIndex) -> Result<(DataEdges, Graph), LineError> {
        // In the graph's own ids: the edges are given back as the user numbers them.
        let graph = index.original_graph();
        let mut labels = LineLabels::default();
        let line = LineGraph::of(&graph, |l| labels.number(l), true, LINE_EDGES_MAX)?;
        let edges = DataEdges {
            edges: line.edges,
            labels,
            vertices: graph.vertex_count(),
        };
        Ok((edges, line.graph))
    }

    /// The line graph of `query` (in the data graph's label codes) in the data's numbering of
    /// line labels, with the query edge each of its vertices stands for.
    ///
    /// # Errors
    /// [`LineError`]: the query is directed, has a vertex of several labels or an isolated
    /// vertex.
    pub fn query(&self, query: &Graph) -> Result<LineGraph, LineError> {
        LineGraph::of(query, self.labels.for_query(), false, u64::MAX)
    }

    /// The data edge each line vertex stands for, lower endpoint first.
    pub fn edges(&self) -> &[[VertexId; 2]] {
        &self.edges
    }

    /// The data edge that the line vertex `v` of a match stands for.
    pub fn edge(&self, v: VertexId) -> [VertexId; 2] {
        self.edges[v as usize]
    }

    /// The data graph's vertices (not its line graph's).
    pub fn vertices(&self) -> usize {
        self.vertices
    }
}

/// A semantics by the name front ends give it: one of [`Semantics`], or edge isomorphism,
/// which matches line graphs ([`DataEdges`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedSemantics {
    /// Matches of query vertices to data vertices.
    Vertices(Semantics),
    /// Matches of query edges to data edges.
    EdgeIsomorphism,
}

impl NamedSemantics {
    /// Every name, with what it means, for help texts.
    pub const NAMES: [(&'static str, &'static str); 4] = [
        (
            "isomorphism",
            "Distinct data vertices, every query edge kept",
        ),
        ("homomorphism", "Data vertices may repeat"),
        (
            "induced",
            "Isomorphism, and query non-edges map to data non-edges",
        ),
        (
            "edge-isomorphism",
            "Query edges map to distinct data edges, two sharing endpoints exactly as their \
             images do (the paper's Sec. \"Extensions\"; undirected graphs)",
        ),
    ];

    /// What the join matches: edge isomorphism matches line graphs induced.
    pub fn semantics(self) -> Semantics {
        match self {
            NamedSemantics::Vertices(semantics) => semantics,
            NamedSemantics::EdgeIsomorphism => Semantics::Induced,
        }
    }

    /// The labels whose absence induced matching tests (`MatchOptions::absent_labels`):
    /// under edge isomorphism only the line graphs' meeting and parallel edges.
    pub fn absent_labels(self) -> Option<Vec<EdgeLabel>> {
        (self == NamedSemantics::EdgeIsomorphism).then(|| ABSENT_LABELS.to_vec())
    }

    /// Whether queries and data are matched as line graphs.
    pub fn edges(self) -> bool {
        self == NamedSemantics::EdgeIsomorphism
    }
}

/// A name that is none of [`NamedSemantics::NAMES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSemantics(pub String);

impl fmt::Display for UnknownSemantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown semantics {:?}", self.0)
    }
}

impl std::error::Error for UnknownSemantics {}

impl FromStr for NamedSemantics {
    type Err = UnknownSemantics;

    fn from_str(name: &str) -> Result<NamedSemantics, UnknownSemantics> {
        Ok(match name {
            "isomorphism" => NamedSemantics::Vertices(Semantics::Isomorphism),
            "homomorphism" => NamedSemantics::Vertices(Semantics::Homomorphism),
            "induced" => NamedSemantics::Vertices(Semantics::Induced),
            "edge-isomorphism" => NamedSemantics::EdgeIsomorphism,
            other => return Err(UnknownSemantics(other.to_string())),
        })
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;

    #[test]
    fn every_listed_name_parses_and_others_do_not() {
        for (name, _) in NamedSemantics::NAMES {
            assert!(name.parse::<NamedSemantics>().is_ok(), "{name}");
        }
        assert_eq!(
            "edge-isomorphism".parse::<NamedSemantics>().unwrap(),
            NamedSemantics::EdgeIsomorphism
        );
        assert_eq!(
            "edges".parse::<NamedSemantics>().unwrap_err(),
            UnknownSemantics("edges".to_string())
        );
    }

    /// A path a-b-c and a parallel pair: the line graph's vertices read back as the data
    /// edges, lower endpoint first, and a query's line graph is built in the data's labels.
    #[test]
    fn line_vertices_read_back_as_data_edges() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 1, 0, 5]);
        for (s, t, l) in [(1, 0, 0), (1, 2, 0), (2, 1, 1)] {
            b.add_edge(s, t, l).unwrap();
        }
        let index = DataIndex::build(b.build().unwrap()).unwrap();
        let (edges, line) = DataEdges::of(&index).unwrap();
        assert_eq!(edges.vertices(), 4);
        assert_eq!(edges.edges(), &[[0, 1], [1, 2], [1, 2]]);
        assert_eq!(edges.edge(2), [1, 2]);
        assert_eq!(line.vertex_count(), 3);
        // The query a-b, edge label 0: its one line vertex has the data's first line label.
        let mut q = GraphBuilder::with_vertices(false, vec![1, 0]);
        q.add_edge(0, 1, 0).unwrap();
        let query = edges.query(&q.build().unwrap()).unwrap();
        assert_eq!(query.edges, vec![[0, 1]]);
        assert_eq!(query.graph.label(0), line.label(0));
    }
}
