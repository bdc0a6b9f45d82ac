//! [`GraphBuilder`]: collects vertices and edges, then lays them out as CSR.

use rayon::prelude::*;

use crate::graph::{Csr, EdgeLabel, Graph, VertexId, VertexLabel};
use crate::{Error, Result};

/// Builds a [`Graph`]: add every vertex, then every edge, then call [`GraphBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    directed: bool,
    vertex_labels: Vec<VertexLabel>,
    edges: Vec<(VertexId, VertexId, EdgeLabel)>,
}

impl GraphBuilder {
    /// An empty builder for a directed or undirected graph.
    pub fn new(directed: bool) -> GraphBuilder {
        GraphBuilder {
            directed,
            ..GraphBuilder::default()
        }
    }

    /// An empty builder whose vertices are given up front, one label each.
    pub fn with_vertices(directed: bool, vertex_labels: Vec<VertexLabel>) -> GraphBuilder {
        GraphBuilder {
            directed,
            vertex_labels,
            edges: Vec::new(),
        }
    }

    /// Reserves room for `additional` more edges.
    pub fn reserve_edges(&mut self, additional: usize) {
        self.edges.reserve(additional);
    }

    /// Adds a vertex and returns its id.
    pub fn add_vertex(&mut self, label: VertexLabel) -> VertexId {
        self.vertex_labels.push(label);
        (self.vertex_labels.len() - 1) as VertexId
    }

    /// Number of vertices added so far.
    pub fn vertex_count(&self) -> usize {
        self.vertex_labels.len()
    }

    /// The edges added so far, in the order they were added.
    pub fn edges(&self) -> &[(VertexId, VertexId, EdgeLabel)] {
        &self.edges
    }

    /// Adds the edge `source -- target` (or `source -> target` when directed).
    ///
    /// # Errors
    /// A self-loop, or an endpoint that is not a vertex yet.
    pub fn add_edge(&mut self, source: VertexId, target: VertexId, label: EdgeLabel) -> Result<()> {
        let n = self.vertex_labels.len();
        if source as usize >= n || target as usize >= n {
            return Err(Error::Build(format!(
                "edge {source} -- {target} names a vertex that does not exist (the graph has {n} vertices)"
            )));
        }
        if source == target {
            return Err(Error::Build(format!("self-loop at vertex {source}")));
        }
        self.edges.push((source, target, label));
        Ok(())
    }

    /// Lays the graph out as CSR.
    ///
    /// # Errors
    /// [`Error::DuplicateEdge`] when the same edge (same endpoints, same label; in either
    /// orientation for an undirected graph) was added twice: repeated edges would make every
    /// match through them count twice.
    pub fn build(self) -> Result<Graph> {
        let n = self.vertex_labels.len();
        let edge_count = self.edges.len();
        let out = if self.directed {
            csr(n, self.edges.iter().map(|&(s, t, l)| (s, t, l)))
        } else {
            csr(
                n,
                self.edges
                    .iter()
                    .flat_map(|&(s, t, l)| [(s, t, l), (t, s, l)]),
            )
        };
        let out = out.map_err(|(s, t, l)| {
            let (source, target) = if self.directed {
                (s, t)
            } else {
                (s.min(t), s.max(t))
            };
            Error::DuplicateEdge {
                from: source,
                to: target,
                label: l,
            }
        })?;
        let inc = if self.directed {
            // Duplicates were already rejected in the out-adjacency.
            csr(n, self.edges.iter().map(|&(s, t, l)| (t, s, l))).expect("no duplicate edges")
        } else {
            Csr::default()
        };
        Ok(Graph {
            directed: self.directed,
            vertex_labels: self.vertex_labels,
            out,
            inc,
            edge_count,
        })
    }
}

/// Builds one CSR from `(from, to, label)` entries; on a repeated entry returns it.
fn csr(
    n: usize,
    entries: impl Iterator<Item = (VertexId, VertexId, EdgeLabel)> + Clone,
) -> std::result::Result<Csr, (VertexId, VertexId, EdgeLabel)> {
    let mut offsets = vec![0usize; n + 1];
    for (from, _, _) in entries.clone() {
        offsets[from as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    // Pack (label, neighbour) into one u64 so one sort orders both.
    let mut keys = vec![0u64; offsets[n]];
    let mut cursor = offsets.clone();
    for (from, to, label) in entries {
        keys[cursor[from as usize]] = (u64::from(label) << 32) | u64::from(to);
        cursor[from as usize] += 1;
    }
    let mut segments = Vec::with_capacity(n);
    let mut rest = keys.as_mut_slice();
    for v in 0..n {
        let (head, tail) = rest.split_at_mut(offsets[v + 1] - offsets[v]);
        segments.push((v as VertexId, head));
        rest = tail;
    }
    let duplicate = segments
        .into_par_iter()
        .filter_map(|(v, seg)| {
            seg.sort_unstable();
            seg.windows(2)
                .find(|w| w[0] == w[1])
                .map(|w| (v, w[0] as u32, (w[0] >> 32) as u32))
        })
        .min();
    if let Some(d) = duplicate {
        return Err(d);
    }
    let neighbors = keys.par_iter().map(|&k| k as u32).collect();
    let labels = keys.par_iter().map(|&k| (k >> 32) as u32).collect();
    Ok(Csr {
        offsets,
        neighbors,
        labels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_edges_are_rejected_in_either_orientation() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 0]);
        b.add_edge(0, 1, 0).unwrap();
        b.add_edge(1, 0, 0).unwrap();
        let err = b.build().unwrap_err();
        assert!(matches!(
            err,
            Error::DuplicateEdge {
                from: 0,
                to: 1,
                label: 0
            }
        ));
    }

    #[test]
    fn same_pair_with_two_labels_is_two_edges() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 0]);
        b.add_edge(0, 1, 0).unwrap();
        b.add_edge(1, 0, 1).unwrap();
        let g = b.build().unwrap();
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.degree(0, crate::Direction::Out), 2);
    }

    #[test]
    fn antiparallel_edges_are_distinct_when_directed() {
        let mut b = GraphBuilder::with_vertices(true, vec![0, 0]);
        b.add_edge(0, 1, 0).unwrap();
        b.add_edge(1, 0, 0).unwrap();
        assert_eq!(b.build().unwrap().edge_count(), 2);
    }

    #[test]
    fn self_loops_and_unknown_vertices_are_rejected() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 0]);
        assert!(b.add_edge(1, 1, 0).is_err());
        assert!(b.add_edge(0, 2, 0).is_err());
    }
}
