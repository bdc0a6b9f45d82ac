//! The data graph's index, built once and shared by every query and both engines: the
//! signature table (Sec. 3.2), PCSR per edge label (Sec. 4) and label statistics for the plan.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId, VertexLabel};
use rayon::prelude::*;

use crate::pcsr::{runs, PcsrLayout, PcsrSet};
use crate::random::SplitMix;
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
    /// The share of the graph's wedges that close ([`DataIndex::closed_wedges`]), once asked.
    closed_wedges: OnceLock<f64>,
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
            closed_wedges: OnceLock::new(),
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

    /// The share of the graph's wedges (two edges at one vertex, whatever their labels and
    /// directions) whose other ends are adjacent, its transitivity: how often a triangle of
    /// a query closes in the data. Drawn from [`WEDGES_DRAWN`] wedges, alike on every run,
    /// the first time it is asked for (two passes over the vertices' degrees); 0 where the
    /// graph has no wedge. Wordnet's is about 0.006, yeast's 0.05.
    pub fn closed_wedges(&self) -> f64 {
        *self.closed_wedges.get_or_init(|| {
            let labels: Vec<EdgeLabel> = self.edge_label_counts.keys().copied().collect();
            closed_wedges(&self.graph, &labels)
        })
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

/// Wedges drawn for [`DataIndex::closed_wedges`]: its share to within about ±0.01 where it is
/// near 0.05.
pub const WEDGES_DRAWN: usize = 4096;

/// Vertices a thread reads at a time for [`DataIndex::closed_wedges`].
const WEDGE_RUN: VertexId = 1 << 16;

/// [`DataIndex::closed_wedges`] of `graph`, whose edges carry `labels`: wedges drawn
/// uniformly, each centre with the chance of its pairs of neighbour entries, then one pair of
/// them; a pair of one vertex (parallel edges) is drawn again.
fn closed_wedges(graph: &Graph, labels: &[EdgeLabel]) -> f64 {
    let directions = Direction::kept(graph.is_directed());
    let pairs = |v: VertexId| {
        let d = graph.total_degree(v) as u128;
        d * d.saturating_sub(1) / 2
    };
    // The vertices in runs, each run's pairs summed on every thread, then each run's wedges
    // drawn on a thread with its own generator: alike however many threads there are.
    let n = graph.vertex_count() as VertexId;
    let runs: Vec<Range<VertexId>> = (0..n.div_ceil(WEDGE_RUN))
        .map(|r| r * WEDGE_RUN..n.min((r + 1) * WEDGE_RUN))
        .collect();
    let in_run: Vec<u128> = runs
        .par_iter()
        .map(|r| r.clone().map(pairs).sum())
        .collect();
    let total: u128 = in_run.iter().sum();
    if total == 0 {
        return 0.0;
    }
    let below = |random: &mut SplitMix, n: u128| {
        (u128::from(random.next()) << 64 | u128::from(random.next())) % n
    };
    let mut random = SplitMix(0x7e1a);
    let mut targets: Vec<u128> = (0..WEDGES_DRAWN)
        .map(|_| below(&mut random, total))
        .collect();
    targets.sort_unstable();
    // The `i`-th neighbour entry of `v`, its lists in the order the graph keeps them.
    let entry = |v: VertexId, mut i: usize| {
        for &direction in directions {
            let list = graph.edges(v, direction).0;
            match list.get(i) {
                Some(&w) => return w,
                None => i -= list.len(),
            }
        }
        unreachable!("fewer entries than the degree")
    };
    let adjacent = |a: VertexId, b: VertexId| {
        directions.iter().any(|&direction| {
            (labels.iter()).any(|&l| graph.neighbors(a, l, direction).binary_search(&b).is_ok())
        })
    };
    let starts: Vec<u128> = in_run
        .iter()
        .scan(0u128, |sum, &pairs| {
            let start = *sum;
            *sum += pairs;
            Some(start)
        })
        .collect();
    let (closed, drawn) = (runs.par_iter().zip(&starts).enumerate())
        .map(|(at, (run, &start))| {
            let mut random = SplitMix(0x7e1a ^ at as u64);
            let (mut closed, mut drawn) = (0usize, 0usize);
            let mut next = targets.partition_point(|&t| t < start);
            let mut before = start;
            for v in run.clone() {
                let here = pairs(v);
                while next < targets.len() && targets[next] < before + here {
                    let d = graph.total_degree(v);
                    // A pair of two vertices, within a few draws.
                    for _ in 0..8 {
                        let i = below(&mut random, d as u128) as usize;
                        let j = (i + 1 + below(&mut random, (d - 1) as u128) as usize) % d;
                        let (a, b) = (entry(v, i), entry(v, j));
                        if a != b {
                            drawn += 1;
                            closed += usize::from(adjacent(a, b));
                            break;
                        }
                    }
                    next += 1;
                }
                before += here;
            }
            (closed, drawn)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    match drawn {
        0 => 0.0,
        _ => closed as f64 / drawn as f64,
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

    fn index_of(directed: bool, n: usize, edges: &[(u32, u32, u32)]) -> DataIndex {
        let mut b = GraphBuilder::with_vertices(directed, vec![0; n]);
        for &(u, v, l) in edges {
            b.add_edge(u, v, l).unwrap();
        }
        DataIndex::build(b.build().unwrap()).unwrap()
    }

    #[test]
    fn closed_wedges_are_the_graph_s_transitivity() {
        // K5: every wedge closes; a star and a 5-cycle: none; no wedge at all: 0.
        let clique: Vec<_> = (0..5)
            .flat_map(|u| (u + 1..5).map(move |v| (u, v, 0)))
            .collect();
        assert_eq!(index_of(false, 5, &clique).closed_wedges(), 1.0);
        let star: Vec<_> = (1..6).map(|v| (0, v, 0)).collect();
        assert_eq!(index_of(false, 6, &star).closed_wedges(), 0.0);
        let cycle: Vec<_> = (0..5).map(|u| (u, (u + 1) % 5, 0)).collect();
        assert_eq!(index_of(false, 5, &cycle).closed_wedges(), 0.0);
        assert_eq!(index_of(false, 2, &[(0, 1, 0)]).closed_wedges(), 0.0);
        // Two triangles on the edge 0 -- 1: 6 of its 8 wedges close.
        let diamond = [(0, 1, 0), (0, 2, 0), (1, 2, 0), (0, 3, 0), (1, 3, 0)];
        let share = index_of(false, 4, &diamond).closed_wedges();
        assert!((share - 0.75).abs() < 0.03, "{share}");
        // Directions, labels and parallel edges: a directed triangle still closes every
        // wedge between distinct vertices.
        let edges = [(0, 1, 0), (1, 0, 1), (1, 2, 2), (2, 0, 0), (2, 1, 0)];
        assert_eq!(index_of(true, 3, &edges).closed_wedges(), 1.0);
    }

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
