//! The data graph's index, built once and shared by every query and both engines: the
//! signature table (Sec. 3.2), PCSR per edge label (Sec. 4) and label statistics for the plan.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId, VertexLabel};
use rayon::prelude::*;

use crate::pcsr::{runs, PcsrLayout, PcsrSet};
use crate::signature::SignatureTable;
use crate::vertex_order::{VertexNumbering, VertexOrder};
use crate::{Error, Result};

/// How the index is built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexOptions {
    /// Hash groups per PCSR partition.
    pub pcsr_layout: PcsrLayout,
    /// How the index numbers the vertices inside ([`VertexOrder`]): by degree where it
    /// pays, by default.
    pub numbering: VertexNumbering,
}

/// Bytes held in host memory, part by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IndexBytes {
    /// The graph's CSR: row offsets.
    pub csr_offsets: usize,
    /// The graph's CSR: neighbours.
    pub csr_neighbors: usize,
    /// The graph's CSR: the label of every stored edge.
    pub csr_edge_labels: usize,
    /// One label per vertex.
    pub vertex_labels: usize,
    /// The vertices of each label, for the filter.
    pub label_lists: usize,
    /// The signature table (Sec. 3.2).
    pub signatures: usize,
    /// PCSR hash groups, all partitions.
    pub pcsr_groups: usize,
    /// PCSR column indexes, all partitions.
    pub pcsr_column_index: usize,
}

impl IndexBytes {
    /// Every part together.
    pub fn total(&self) -> usize {
        self.csr_offsets
            + self.csr_neighbors
            + self.csr_edge_labels
            + self.vertex_labels
            + self.label_lists
            + self.signatures
            + self.pcsr_groups
            + self.pcsr_column_index
    }

    /// What the GPU engine copies to the device: the signature table and the PCSRs.
    pub fn device(&self) -> usize {
        self.signatures + self.pcsr_groups + self.pcsr_column_index
    }
}

/// A data graph with everything the engines read.
///
/// Inside, vertices may be numbered otherwise than in the graph given
/// ([`IndexOptions::numbering`]): [`DataIndex::graph`] and everything the engines read use
/// the index's numbering, and matches, pins and [`DataIndex::original_graph`] the graph's own.
#[derive(Debug)]
pub struct DataIndex {
    /// Distinguishes indexes, so that an engine can keep a copy on its device.
    id: u64,
    options: IndexOptions,
    /// The graph in the index's numbering.
    graph: Graph,
    /// The graph's own ids of the index's vertices, when they differ.
    order: Option<VertexOrder>,
    signatures: SignatureTable,
    pcsr: PcsrSet,
    /// Number of edges per edge label: the paper's freq(l).
    edge_label_counts: HashMap<EdgeLabel, usize>,
    /// Vertices of each label, sorted.
    vertices_by_label: HashMap<VertexLabel, Vec<VertexId>>,
}

impl DataIndex {
    /// Builds the signature table and the PCSRs of `graph` with the default options.
    ///
    /// # Errors
    /// As [`DataIndex::build_with`].
    pub fn build(graph: Graph) -> Result<DataIndex> {
        DataIndex::build_with(graph, IndexOptions::default())
    }

    /// Builds the signature table and the PCSRs of `graph`.
    ///
    /// # Errors
    /// [`Error::GraphTooLarge`] when one edge-label partition has 2^32 or more neighbour
    /// entries, which PCSR's 32-bit offsets cannot address.
    pub fn build_with(graph: Graph, options: IndexOptions) -> Result<DataIndex> {
        let (graph, order) = if options.numbering.by_degree(&graph) {
            let order = VertexOrder::by_degree(&graph);
            (graph.renumbered(order.originals()), Some(order))
        } else {
            (graph, None)
        };
        let edge_label_counts = edge_label_counts(&graph);
        let per_direction = if graph.is_directed() { 1 } else { 2 };
        if let Some((&l, &count)) = edge_label_counts
            .iter()
            .find(|(_, &c)| c * per_direction >= u32::MAX as usize)
        {
            return Err(Error::GraphTooLarge(format!(
                "edge label {l} has {count} edges; one label can have at most {} in gsi's 32-bit index",
                (u32::MAX as usize - 1) / per_direction
            )));
        }
        let (signatures, pcsr) = rayon::join(
            || SignatureTable::build(&graph),
            || PcsrSet::build(&graph, options.pcsr_layout),
        );
        Ok(DataIndex::from_parts(
            graph,
            order,
            options,
            signatures,
            pcsr,
            edge_label_counts,
        ))
    }

    /// The index of `graph` (in the index's numbering, `order` giving the graph's own ids)
    /// from its parts, built with `options` (a saved index); the label lists are gathered
    /// again from the graph.
    pub fn from_parts(
        graph: Graph,
        order: Option<VertexOrder>,
        options: IndexOptions,
        signatures: SignatureTable,
        pcsr: PcsrSet,
        edge_label_counts: HashMap<EdgeLabel, usize>,
    ) -> DataIndex {
        // In parallel; rayon joins the pieces in vertex order, so each list stays sorted. A
        // vertex of several labels is in the list of each.
        let vertices_by_label = (0..graph.vertex_count() as VertexId)
            .into_par_iter()
            .fold(
                HashMap::new,
                |mut lists: HashMap<VertexLabel, Vec<VertexId>>, v| {
                    for &l in graph.labels_of(v) {
                        lists.entry(l).or_default().push(v);
                    }
                    lists
                },
            )
            .reduce(HashMap::new, |mut left, right| {
                for (l, mut vertices) in right {
                    left.entry(l).or_default().append(&mut vertices);
                }
                left
            });
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        DataIndex {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            options,
            graph,
            order,
            signatures,
            pcsr,
            edge_label_counts,
            vertices_by_label,
        }
    }

    /// A number no other index of this process has.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The options the index was built with.
    pub fn options(&self) -> IndexOptions {
        self.options
    }

    /// The data graph in the index's numbering: what the engines read. Its vertex ids are
    /// not the graph's own where [`DataIndex::vertex_order`] is set.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The data graph with its own vertex ids (renumbered back when the index numbers
    /// them otherwise).
    pub fn original_graph(&self) -> Cow<'_, Graph> {
        match &self.order {
            Some(order) => Cow::Owned(self.graph.renumbered(order.internals())),
            None => Cow::Borrowed(&self.graph),
        }
    }

    /// The data graph with its own vertex ids, the index dropped.
    pub fn into_graph(self) -> Graph {
        match &self.order {
            Some(order) => self.graph.renumbered(order.internals()),
            None => self.graph,
        }
    }

    /// The index's numbering of the graph's vertices, when it is not the graph's own.
    pub fn vertex_order(&self) -> Option<&VertexOrder> {
        self.order.as_ref()
    }

    /// The index's id of the graph's vertex `v`; `None` when the graph has no such vertex.
    pub fn internal_id(&self, v: VertexId) -> Option<VertexId> {
        match &self.order {
            Some(order) => order.internal(v),
            None => ((v as usize) < self.graph.vertex_count()).then_some(v),
        }
    }

    /// Number of data edges of every edge label.
    pub fn edge_label_counts(&self) -> &HashMap<EdgeLabel, usize> {
        &self.edge_label_counts
    }

    /// The signature table.
    pub fn signatures(&self) -> &SignatureTable {
        &self.signatures
    }

    /// The PCSR partitions.
    pub fn pcsr(&self) -> &PcsrSet {
        &self.pcsr
    }

    /// Number of data edges labelled `label`.
    pub fn edge_label_count(&self, label: EdgeLabel) -> usize {
        self.edge_label_counts.get(&label).copied().unwrap_or(0)
    }

    /// The data vertices labelled `label`, sorted.
    pub fn vertices_with_label(&self, label: VertexLabel) -> &[VertexId] {
        self.vertices_by_label
            .get(&label)
            .map_or(&[], Vec::as_slice)
    }

    /// Bytes held, part by part.
    pub fn bytes(&self) -> IndexBytes {
        let graph = self.graph.bytes();
        let (pcsr_groups, pcsr_column_index) = self.pcsr.bytes();
        IndexBytes {
            csr_offsets: graph.offsets,
            csr_neighbors: graph.neighbors,
            csr_edge_labels: graph.edge_labels,
            vertex_labels: graph.vertex_labels,
            label_lists: self.vertices_by_label.values().map(|l| 4 * l.len()).sum(),
            signatures: 4 * self.signatures.words().len(),
            pcsr_groups,
            pcsr_column_index,
        }
    }
}

/// The number of edges of each label.
pub fn edge_label_counts(graph: &Graph) -> HashMap<EdgeLabel, usize> {
    let add_all = |mut a: HashMap<EdgeLabel, usize>, b: HashMap<EdgeLabel, usize>| {
        for (l, count) in b {
            *a.entry(l).or_default() += count;
        }
        a
    };
    // Every edge once, as `Graph::edge_iter` gives it, a vertex's out-list at a time on every
    // thread (88 M edges at 100 M triples), each run of one label counted at once.
    (0..graph.vertex_count() as VertexId)
        .into_par_iter()
        .fold(HashMap::new, |mut counts: HashMap<EdgeLabel, usize>, v| {
            for (l, list) in runs(graph, v, Direction::Out) {
                let once = match graph.is_directed() {
                    true => list.len(),
                    false => list.iter().filter(|&&w| v < w).count(),
                };
                if once > 0 {
                    *counts.entry(l).or_default() += once;
                }
            }
            counts
        })
        .reduce(HashMap::new, add_all)
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;

    #[test]
    fn the_edges_of_each_label_are_counted_once() {
        for directed in [false, true] {
            let mut b = GraphBuilder::with_vertices(directed, vec![0; 3_000]);
            for v in 0..3_000u32 {
                for k in 1..=(v % 5) {
                    let w = (v * 31 + k * 977) % 3_000;
                    if w != v {
                        // Repeats and reversed twins are skipped by the builder.
                        let _ = b.add_edge(v, w, (v + k) % 4);
                    }
                }
            }
            let graph = b.build().unwrap();
            let mut expected: HashMap<EdgeLabel, usize> = HashMap::new();
            for (_, _, l) in graph.edge_iter() {
                *expected.entry(l).or_default() += 1;
            }
            assert_eq!(edge_label_counts(&graph), expected, "directed: {directed}");
            assert_eq!(expected.values().sum::<usize>(), graph.edge_count());
        }
    }

    #[test]
    fn the_vertices_of_each_label_are_listed_in_order() {
        // Enough vertices for the parallel gathering to split them.
        let labels: Vec<VertexLabel> = (0..200_000u32).map(|v| (v * 7 + v / 3) % 11).collect();
        let graph = GraphBuilder::with_vertices(false, labels.clone())
            .build()
            .unwrap();
        let index = DataIndex::build(graph).unwrap();
        for l in 0..11 {
            let expected: Vec<VertexId> = (0..labels.len() as VertexId)
                .filter(|&v| labels[v as usize] == l)
                .collect();
            assert_eq!(index.vertices_with_label(l), expected, "label {l}");
        }
        assert!(index.vertices_with_label(11).is_empty());
    }
}
