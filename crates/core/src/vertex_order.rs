//! The index's vertex order: data vertices numbered by ascending degree, so that a
//! symmetry-breaking order bound (`keeps u1 > u0`) cuts a hub's neighbour list to its few
//! higher-ranked neighbours, as the degree orientation of clique counters does. Every id that
//! leaves gsi-core is translated back to the graph's own ([`crate::DataIndex`]).

use std::collections::HashSet;

use gsi_graph::{Graph, VertexId, VertexLabel};
use rayon::prelude::*;

/// How the index numbers the data vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VertexNumbering {
    /// By degree where the graph has few vertex labels ([`FEW_LABELS`]): there queries are
    /// often symmetric and their order bounds pay; elsewhere the graph's own numbering, which
    /// measured as fast (a different numbering changed which of yeast's 32-vertex queries the
    /// sampled planner misjudged, and cost 18% on its 1,457 queries).
    #[default]
    Auto,
    /// By ascending degree ([`VertexOrder::by_degree`]).
    Degree,
    /// The graph's own ids.
    Given,
}

/// At most this many distinct vertex labels make a graph "few-labelled" for
/// [`VertexNumbering::Auto`] (wordnet has 5, yeast 71, gw12 100).
pub const FEW_LABELS: usize = 8;

impl VertexNumbering {
    /// Whether `graph` is numbered by degree under this choice.
    pub fn by_degree(self, graph: &Graph) -> bool {
        graph.vertex_count() > 1
            && match self {
                VertexNumbering::Degree => true,
                VertexNumbering::Given => false,
                VertexNumbering::Auto => has_few_labels(graph),
            }
    }
}

/// Whether `graph`'s vertices carry at most [`FEW_LABELS`] distinct labels.
fn has_few_labels(graph: &Graph) -> bool {
    let mut seen: HashSet<VertexLabel> = HashSet::new();
    (0..graph.vertex_count() as VertexId).all(|v| {
        seen.extend(graph.labels_of(v));
        seen.len() <= FEW_LABELS
    })
}

/// A renumbering of a graph's vertices and its inverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexOrder {
    /// `original[i]`: the graph's own id of the index's vertex `i`.
    original: Vec<VertexId>,
    /// `internal[v]`: the index's id of the graph's vertex `v`.
    internal: Vec<VertexId>,
}

impl VertexOrder {
    /// The vertices of `graph` by ascending total degree, ties by id.
    pub fn by_degree(graph: &Graph) -> VertexOrder {
        let mut original: Vec<VertexId> = (0..graph.vertex_count() as VertexId).collect();
        original.par_sort_by_cached_key(|&v| (graph.total_degree(v), v));
        VertexOrder::from_original(original).expect("a sorted list of every vertex")
    }

    /// The order whose vertex `i` is the graph's `original[i]`.
    ///
    /// # Errors
    /// `original` is not a permutation of `0..original.len()` (says which id is wrong).
    pub fn from_original(original: Vec<VertexId>) -> Result<VertexOrder, String> {
        let mut internal = vec![VertexId::MAX; original.len()];
        for (i, &v) in original.iter().enumerate() {
            match internal.get_mut(v as usize) {
                Some(slot) if *slot == VertexId::MAX => *slot = i as VertexId,
                Some(_) => return Err(format!("vertex {v} is ordered twice")),
                None => {
                    return Err(format!(
                        "vertex {v} is out of range (the graph has {} vertices)",
                        original.len()
                    ))
                }
            }
        }
        Ok(VertexOrder { original, internal })
    }

    /// The graph's own id of the index's vertex `v`.
    pub fn original(&self, v: VertexId) -> VertexId {
        self.original[v as usize]
    }

    /// The index's id of the graph's vertex `v`; `None` when the graph has no such vertex.
    pub fn internal(&self, v: VertexId) -> Option<VertexId> {
        self.internal.get(v as usize).copied()
    }

    /// The graph's own ids of the index's vertices, in the index's order.
    pub fn originals(&self) -> &[VertexId] {
        &self.original
    }

    /// The index's ids of the graph's vertices, in the graph's order: the order that
    /// renumbers the index's graph back.
    pub fn internals(&self) -> &[VertexId] {
        &self.internal
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;

    #[test]
    fn vertices_go_by_degree_then_id() {
        // A star around 0 with one more edge 3-4: degrees 4, 1, 1, 2, 2.
        let mut b = GraphBuilder::with_vertices(false, vec![0; 5]);
        for (s, t) in [(0, 1), (0, 2), (0, 3), (0, 4), (3, 4)] {
            b.add_edge(s, t, 0).unwrap();
        }
        let order = VertexOrder::by_degree(&b.build().unwrap());
        assert_eq!(order.originals(), &[1, 2, 3, 4, 0]);
        assert_eq!(order.internal(0), Some(4));
        assert_eq!(order.original(4), 0);
        assert_eq!(order.internal(5), None);
    }

    #[test]
    fn auto_numbers_by_degree_only_graphs_of_few_labels() {
        let graph = |labels: u32| {
            let mut b = GraphBuilder::with_vertices(false, (0..20).map(|v| v % labels).collect());
            b.add_edge(0, 1, 0).unwrap();
            b.build().unwrap()
        };
        assert!(VertexNumbering::Auto.by_degree(&graph(1)));
        assert!(VertexNumbering::Auto.by_degree(&graph(FEW_LABELS as u32)));
        assert!(!VertexNumbering::Auto.by_degree(&graph(FEW_LABELS as u32 + 1)));
        assert!(VertexNumbering::Degree.by_degree(&graph(FEW_LABELS as u32 + 1)));
        assert!(!VertexNumbering::Given.by_degree(&graph(1)));
    }

    #[test]
    fn only_permutations_are_orders() {
        assert!(VertexOrder::from_original(vec![1, 0, 2]).is_ok());
        assert!(VertexOrder::from_original(vec![1, 1, 2])
            .unwrap_err()
            .contains("twice"));
        assert!(VertexOrder::from_original(vec![0, 3])
            .unwrap_err()
            .contains("out of range"));
    }
}
