//! Line graphs, for edge isomorphism (the paper's Sec. "Extensions"): each edge of an
//! undirected graph becomes a vertex, and two of them are joined when their edges share an
//! endpoint: by an edge labelled [`MEETS`], and by one labelled [`shared_label`] of each
//! distinct label of the endpoints they share (and by one labelled [`PARALLEL`] when they
//! share both). A line vertex is labelled by its edge's label and its two endpoints' labels
//! together ([`LineLabel`]), so that a leaf's label, which no line edge carries, still counts.
//! Matching Q's line graph in G's, induced over [`ABSENT_LABELS`] only, finds exactly the edge
//! isomorphisms of Q in G: injective maps of Q's edges to G's that keep edge labels and
//! endpoint labels and under which two edges share as many endpoints as their images, of the
//! same labels. (Induced over every label would test the absence of each vertex label's
//! edge between every two line vertices: hundreds of tests a step on a graph of many labels.)

use std::collections::{HashMap, HashSet};

use crate::{EdgeLabel, Graph, GraphBuilder, VertexId, VertexLabel};

/// What a line vertex stands for: its edge's label and its endpoints' labels, lower first.
pub type LineLabel = (EdgeLabel, VertexLabel, VertexLabel);

/// The label of the line edge between every two line vertices whose edges meet.
pub const MEETS: EdgeLabel = 0;
/// The label of the line edge between two line vertices whose edges share both endpoints.
pub const PARALLEL: EdgeLabel = 1;
/// The labels whose absence edge isomorphism tests: two query edges that do not meet map to
/// data edges that do not, and two that are not parallel to data edges that are not.
pub const ABSENT_LABELS: [EdgeLabel; 2] = [MEETS, PARALLEL];

/// The label of the line edge that says two edges share an endpoint labelled `label`.
pub fn shared_label(label: VertexLabel) -> EdgeLabel {
    label.saturating_add(2)
}

/// Why a graph has no line graph here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// Edge isomorphism is defined for undirected graphs.
    #[error("edge isomorphism needs undirected graphs; this one is directed")]
    Directed,
    /// The line graph labels its edges by the shared vertex's one label.
    #[error("{}", self.naming(|v| format!("vertex {v}")))]
    LabelSets {
        /// A vertex of several labels.
        vertex: VertexId,
    },
    /// A vertex without edges has no place in a line graph.
    #[error("{}", self.naming(|v| format!("vertex {v}")))]
    IsolatedVertex {
        /// The vertex.
        vertex: VertexId,
    },
    /// The line graph would be too large.
    #[error(
        "its line graph would have {edges} edges (two for each two edges at a vertex), over the \
         {limit} allowed"
    )]
    TooLarge {
        /// Edges the line graph would have.
        edges: u64,
        /// The most allowed.
        limit: u64,
    },
}

impl LineError {
    /// The message, with the vertex it is about (if any) called `name(vertex)`: its number,
    /// or the name its caller knows it by.
    pub fn naming(&self, name: impl Fn(VertexId) -> String) -> String {
        match self {
            LineError::LabelSets { vertex } => format!(
                "edge isomorphism needs one label per vertex; {} has several",
                name(*vertex)
            ),
            LineError::IsolatedVertex { vertex } => format!(
                "{} has no edge, so edge isomorphism cannot match it",
                name(*vertex)
            ),
            other => other.to_string(),
        }
    }
}

/// A graph's line graph, with the edge each of its vertices stands for.
#[derive(Debug, Clone)]
pub struct LineGraph {
    /// The line graph: vertex i is edge `edges[i]` of the original.
    pub graph: Graph,
    /// The original edge of each line vertex, lower endpoint first.
    pub edges: Vec<[VertexId; 2]>,
}

impl LineGraph {
    /// The line graph of `graph`, whose line vertices take their labels from `label_of`
    /// (called once per edge with its [`LineLabel`]). Isolated vertices are refused when
    /// `isolated_allowed` is false (a query's would be lost), and a line graph of more than
    /// `max_edges` edges is refused.
    ///
    /// # Errors
    /// [`LineError`].
    pub fn of(
        graph: &Graph,
        mut label_of: impl FnMut(LineLabel) -> VertexLabel,
        isolated_allowed: bool,
        max_edges: u64,
    ) -> Result<LineGraph, LineError> {
        if graph.is_directed() {
            return Err(LineError::Directed);
        }
        let n = graph.vertex_count();
        if let Some(v) = (0..n as VertexId).find(|&v| graph.labels_of(v).len() > 1) {
            return Err(LineError::LabelSets { vertex: v });
        }
        let direction = graph.directions()[0];
        let degree = |v: usize| graph.degree(v as VertexId, direction);
        if let Some(v) = (0..n)
            .find(|&v| degree(v) == 0)
            .filter(|_| !isolated_allowed)
        {
            return Err(LineError::IsolatedVertex {
                vertex: v as VertexId,
            });
        }
        // Two line edges (meeting, and the shared label) for each two edges at a vertex.
        let line_edges: u64 = (0..n)
            .map(|v| {
                let d = degree(v) as u64;
                d * d.saturating_sub(1)
            })
            .sum();
        if line_edges > max_edges {
            return Err(LineError::TooLarge {
                edges: line_edges,
                limit: max_edges,
            });
        }
        // Each edge once, from its lower endpoint, in the order `--output` documents: by lower
        // endpoint, then higher, then label. `incident[v]` lists the line vertices at v.
        let mut edges = Vec::with_capacity(graph.edge_count());
        let mut labels = Vec::with_capacity(graph.edge_count());
        let mut incident: Vec<Vec<VertexId>> = vec![Vec::new(); n];
        let mut higher: Vec<(VertexId, EdgeLabel)> = Vec::new();
        for u in 0..n as VertexId {
            let (neighbors, edge_labels) = graph.edges(u, direction);
            higher.clear();
            higher.extend(
                neighbors
                    .iter()
                    .zip(edge_labels)
                    .filter(|&(&v, _)| v >= u)
                    .map(|(&v, &label)| (v, label)),
            );
            higher.sort_unstable();
            for &(v, label) in &higher {
                let id = edges.len() as VertexId;
                let (a, b) = (graph.label(u), graph.label(v));
                labels.push(label_of((label, a.min(b), a.max(b))));
                edges.push([u, v]);
                incident[u as usize].push(id);
                incident[v as usize].push(id);
            }
        }
        let mut builder = GraphBuilder::with_vertices(false, labels);
        builder.reserve_edges(line_edges as usize);
        // Two parallel edges (of different labels) are met at both endpoints: their meeting
        // and parallel edges once, a shared label's edge once per distinct label.
        let mut parallel: HashSet<(VertexId, VertexId)> = HashSet::new();
        let mut parallel_shared: HashSet<(VertexId, VertexId, VertexLabel)> = HashSet::new();
        for (v, at) in incident.iter().enumerate() {
            let shared = graph.label(v as VertexId);
            for (i, &x) in at.iter().enumerate() {
                for &y in &at[i + 1..] {
                    let (x, y) = (x.min(y), x.max(y));
                    let mut join = |label| builder.add_edge(x, y, label).expect("line vertices");
                    if edges[x as usize] != edges[y as usize] {
                        join(MEETS);
                        join(shared_label(shared));
                        continue;
                    }
                    if parallel.insert((x, y)) {
                        join(MEETS);
                        join(PARALLEL);
                    }
                    if parallel_shared.insert((x, y, shared)) {
                        join(shared_label(shared));
                    }
                }
            }
        }
        let graph = builder.build().expect("one line edge per pair and label");
        Ok(LineGraph { graph, edges })
    }
}

/// The labels of line vertices, numbered as the data graph's line graph first met them;
/// a query's labels the data graph lacks get numbers past them (and so match nothing).
#[derive(Debug, Clone, Default)]
pub struct LineLabels {
    ids: HashMap<LineLabel, VertexLabel>,
}

impl LineLabels {
    /// The number of `label`, given it the next one when new (for the data graph).
    pub fn number(&mut self, label: LineLabel) -> VertexLabel {
        let next = self.ids.len() as VertexLabel;
        *self.ids.entry(label).or_insert(next)
    }

    /// A numbering for one query: the data graph's, and past them new numbers for the rest.
    pub fn for_query(&self) -> impl FnMut(LineLabel) -> VertexLabel + '_ {
        let mut unknown: HashMap<LineLabel, VertexLabel> = HashMap::new();
        move |label| match self.ids.get(&label) {
            Some(&id) => id,
            None => {
                let next = (self.ids.len() + unknown.len()) as VertexLabel;
                *unknown.entry(label).or_insert(next)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(labels: &[VertexLabel], edges: &[(VertexId, VertexId, EdgeLabel)]) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, labels.to_vec());
        for &(s, t, l) in edges {
            b.add_edge(s, t, l).unwrap();
        }
        b.build().unwrap()
    }

    #[test]
    fn a_path_becomes_an_edge_labelled_by_its_middle() {
        // 0(a) -x- 1(b) -y- 2(c): two line vertices joined through 1: they meet, at a b.
        let g = graph(&[10, 11, 12], &[(0, 1, 7), (1, 2, 8)]);
        let mut labels = LineLabels::default();
        let line = LineGraph::of(&g, |l| labels.number(l), false, 100).unwrap();
        assert_eq!(line.edges, vec![[0, 1], [1, 2]]);
        assert_eq!(line.graph.vertex_count(), 2);
        assert_eq!(line.graph.edge_count(), 2);
        let out = line.graph.directions()[0];
        assert_eq!(line.graph.neighbors(0, MEETS, out), &[1]);
        assert_eq!(line.graph.neighbors(0, shared_label(11), out), &[1]);
        // The line vertices' labels stand for (edge label, endpoint labels).
        let mut query = labels.for_query();
        assert_eq!(line.graph.label(0), query((7, 10, 11)));
        assert_eq!(line.graph.label(1), query((8, 11, 12)));
        // A label the data lacks gets a number of its own.
        assert!(query((9, 10, 11)) >= 2);
    }

    #[test]
    fn line_vertices_follow_the_edges_by_endpoints_then_label() {
        let g = graph(&[0, 1, 1], &[(0, 2, 0), (0, 1, 3), (0, 1, 1), (1, 2, 0)]);
        let line = LineGraph::of(&g, |(l, _, _)| l, false, 100).unwrap();
        assert_eq!(line.edges, vec![[0, 1], [0, 1], [0, 2], [1, 2]]);
        assert_eq!(line.graph.vertex_labels(), &[1, 3, 0, 0]);
    }

    #[test]
    fn a_triangle_and_a_claw_have_the_same_line_graph() {
        // Whitney's exception: three edges meeting pairwise, at three vertices or at one.
        let triangle = graph(&[0, 0, 0], &[(0, 1, 0), (1, 2, 0), (0, 2, 0)]);
        let claw = graph(&[0, 0, 0, 0], &[(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
        let mut labels = LineLabels::default();
        let a = LineGraph::of(&triangle, |l| labels.number(l), false, 100).unwrap();
        let b = LineGraph::of(&claw, |l| labels.number(l), false, 100).unwrap();
        assert_eq!(a.graph.edge_count(), 6);
        assert_eq!(b.graph.edge_count(), 6);
        assert_eq!(a.graph.label(0), b.graph.label(0));
    }

    #[test]
    fn parallel_edges_share_two_endpoints() {
        // Two edges 0 -- 1 of labels 1 and 2: meeting, parallel, and one line edge per
        // distinct endpoint label.
        let g = graph(&[4, 5], &[(0, 1, 1), (0, 1, 2)]);
        let line = LineGraph::of(&g, |(l, _, _)| l, false, 100).unwrap();
        assert_eq!(line.graph.edge_count(), 4);
        let same = graph(&[4, 4], &[(0, 1, 1), (0, 1, 2)]);
        let line = LineGraph::of(&same, |(l, _, _)| l, false, 100).unwrap();
        assert_eq!(line.graph.edge_count(), 3);
    }

    #[test]
    fn what_has_no_line_graph_is_refused() {
        let directed = {
            let mut b = GraphBuilder::with_vertices(true, vec![0, 0]);
            b.add_edge(0, 1, 0).unwrap();
            b.build().unwrap()
        };
        assert_eq!(
            LineGraph::of(&directed, |_| 0, false, 100).unwrap_err(),
            LineError::Directed
        );
        let isolated = graph(&[0, 0, 0], &[(0, 1, 0)]);
        assert_eq!(
            LineGraph::of(&isolated, |_| 0, false, 100).unwrap_err(),
            LineError::IsolatedVertex { vertex: 2 }
        );
        assert!(LineGraph::of(&isolated, |_| 0, true, 100).is_ok());
        let star = graph(&[0; 5], &[(0, 1, 0), (0, 2, 0), (0, 3, 0), (0, 4, 0)]);
        assert_eq!(
            LineGraph::of(&star, |_| 0, false, 11).unwrap_err(),
            LineError::TooLarge {
                edges: 12,
                limit: 11
            }
        );
    }
}
