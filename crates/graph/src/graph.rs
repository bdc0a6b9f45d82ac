//! The graph itself: CSR adjacency with vertex and edge labels.

use rayon::prelude::*;

use crate::buffer::Buffer;

/// Index of a vertex: dense, from 0 to `vertex_count - 1`.
pub type VertexId = u32;
/// Label of a vertex.
pub type VertexLabel = u32;
/// Label of an edge; edges of files without edge labels get label 0.
pub type EdgeLabel = u32;

/// Which adjacency of a vertex to read. In an undirected graph both are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Edges leaving the vertex (`v -> w`).
    Out = 0,
    /// Edges entering the vertex (`w -> v`).
    In = 1,
}

impl Direction {
    /// The other direction.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::Out => Direction::In,
            Direction::In => Direction::Out,
        }
    }

    /// The adjacencies a graph keeps: `[Out]` when undirected (every edge is stored both
    /// ways there), `[Out, In]` when directed. The one place that decides it.
    pub fn kept(directed: bool) -> &'static [Direction] {
        if directed {
            &[Direction::Out, Direction::In]
        } else {
            &[Direction::Out]
        }
    }

    /// The adjacency that holds the edges read in this direction: this one in a directed
    /// graph, `Out` in an undirected one.
    pub fn stored(self, directed: bool) -> Direction {
        if directed {
            self
        } else {
            Direction::Out
        }
    }
}

/// One adjacency in CSR form.
///
/// Invariants: `offsets.len() == vertex_count + 1`, `offsets[0] == 0`, the last offset equals
/// `neighbors.len() == labels.len()`, and each vertex's slice is sorted by (label, neighbour)
/// without repeats.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    pub(crate) offsets: Buffer<usize>,
    pub(crate) neighbors: Buffer<VertexId>,
    pub(crate) labels: Buffer<EdgeLabel>,
    /// The label of every entry, when they all have the same: lists are then read without
    /// looking at their labels.
    pub(crate) only_label: Option<EdgeLabel>,
    /// With one label: how many of each vertex's neighbours have a smaller id than its own,
    /// made at the first [`Graph::neighbors_above`].
    pub(crate) below: std::sync::OnceLock<Vec<u32>>,
}

impl Csr {
    /// The adjacency of these arrays (which keep the invariants above).
    pub(crate) fn new(
        offsets: Buffer<usize>,
        neighbors: Buffer<VertexId>,
        labels: Buffer<EdgeLabel>,
    ) -> Csr {
        let only_label = match labels.first() {
            Some(&first) if labels.par_iter().all(|&l| l == first) => Some(first),
            _ => None,
        };
        Csr {
            offsets,
            neighbors,
            labels,
            only_label,
            below: std::sync::OnceLock::new(),
        }
    }

    fn range(&self, v: VertexId) -> std::ops::Range<usize> {
        self.offsets[v as usize]..self.offsets[v as usize + 1]
    }
}

/// Two adjacencies are equal when their arrays are (whether their cut points are made yet
/// does not matter).
impl PartialEq for Csr {
    fn eq(&self, other: &Csr) -> bool {
        self.offsets == other.offsets
            && self.neighbors == other.neighbors
            && self.labels == other.labels
    }
}

impl Eq for Csr {}

/// The label sets of a graph whose vertices may carry several labels: CSR over every
/// vertex, each set sorted and without repeats. Empty when every vertex has one label.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LabelSets {
    pub(crate) offsets: Buffer<usize>,
    pub(crate) labels: Buffer<VertexLabel>,
}

impl LabelSets {
    pub(crate) fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }
}

/// Bytes a [`Graph`] holds, part by part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphBytes {
    /// CSR row offsets, every kept adjacency.
    pub offsets: usize,
    /// CSR neighbours, every kept adjacency.
    pub neighbors: usize,
    /// The label of every stored edge.
    pub edge_labels: usize,
    /// One label per vertex, and the label sets of a multi-labelled graph.
    pub vertex_labels: usize,
}

/// A vertex- and edge-labelled graph, undirected or directed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub(crate) directed: bool,
    /// Each vertex's smallest label (its only one, unless `label_sets` says otherwise).
    pub(crate) vertex_labels: Buffer<VertexLabel>,
    /// Every vertex's labels, when some vertex has several.
    pub(crate) label_sets: LabelSets,
    /// Out-edges; for an undirected graph every edge appears here in both directions.
    pub(crate) out: Csr,
    /// In-edges; empty for an undirected graph.
    pub(crate) inc: Csr,
    /// Number of edges as given (an undirected edge counts once).
    pub(crate) edge_count: usize,
}

impl Graph {
    /// Whether edges have a direction.
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// The adjacencies this graph keeps ([`Direction::kept`]).
    pub fn directions(&self) -> &'static [Direction] {
        Direction::kept(self.directed)
    }

    /// Number of edges at `v` in every kept adjacency: the degree of an undirected graph,
    /// out-degree plus in-degree of a directed one.
    pub fn total_degree(&self, v: VertexId) -> usize {
        self.directions().iter().map(|&d| self.degree(v, d)).sum()
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertex_labels.len()
    }

    /// Number of edges; an undirected edge counts once.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Label of vertex `v`: its smallest, when it has several ([`Graph::labels_of`]).
    pub fn label(&self, v: VertexId) -> VertexLabel {
        self.vertex_labels[v as usize]
    }

    /// Each vertex's label ([`Graph::label`]), indexed by vertex.
    pub fn vertex_labels(&self) -> &[VertexLabel] {
        &self.vertex_labels
    }

    /// Whether some vertex carries several labels.
    pub fn has_label_sets(&self) -> bool {
        !self.label_sets.is_empty()
    }

    /// Every label of vertex `v`, sorted: a vertex (of a query) with labels L matches a data
    /// vertex whose labels include all of L.
    pub fn labels_of(&self, v: VertexId) -> &[VertexLabel] {
        if self.label_sets.is_empty() {
            return std::slice::from_ref(&self.vertex_labels[v as usize]);
        }
        let sets = &self.label_sets;
        &sets.labels[sets.offsets[v as usize]..sets.offsets[v as usize + 1]]
    }

    /// A hint that [`Graph::labels_of`] will read `v`'s labels soon: asks the processor to
    /// bring where they start into its cache.
    pub fn prefetch_labels(&self, v: VertexId) {
        if self.label_sets.is_empty() {
            if let Some(label) = self.vertex_labels.get(v as usize) {
                prefetch(label);
            }
        } else if let Some(start) = self.label_sets.offsets.get(v as usize) {
            prefetch(start);
        }
    }

    /// Whether vertex `v` carries every label of `labels` (sorted).
    pub fn has_labels(&self, v: VertexId, labels: &[VertexLabel]) -> bool {
        let own = self.labels_of(v);
        match labels {
            [label] => own.binary_search(label).is_ok(),
            _ => labels.iter().all(|l| own.binary_search(l).is_ok()),
        }
    }

    fn csr(&self, direction: Direction) -> &Csr {
        match direction.stored(self.directed) {
            Direction::In => &self.inc,
            Direction::Out => &self.out,
        }
    }

    /// Neighbours of `v` in `direction` with their edge labels, sorted by (label, neighbour).
    pub fn edges(&self, v: VertexId, direction: Direction) -> (&[VertexId], &[EdgeLabel]) {
        let csr = self.csr(direction);
        let r = csr.range(v);
        (&csr.neighbors[r.clone()], &csr.labels[r])
    }

    /// N(v, l): the sorted neighbours of `v` reached by edges labelled `label` in `direction`.
    pub fn neighbors(&self, v: VertexId, label: EdgeLabel, direction: Direction) -> &[VertexId] {
        let csr = self.csr(direction);
        if let Some(only) = csr.only_label {
            return match only == label {
                true => &csr.neighbors[csr.range(v)],
                false => &[],
            };
        }
        let (neighbors, labels) = self.edges(v, direction);
        // Most lists hold one label: no search then.
        if labels.first() == Some(&label) && labels.last() == Some(&label) {
            return neighbors;
        }
        let start = labels.partition_point(|&l| l < label);
        let end = start + labels[start..].partition_point(|&l| l == label);
        &neighbors[start..end]
    }

    /// The part of N(v, l) above `v` itself: the higher-ranked neighbours, when ids follow
    /// degree. A one-label adjacency finds it at once (its cut points made at the first call).
    pub fn neighbors_above(
        &self,
        v: VertexId,
        label: EdgeLabel,
        direction: Direction,
    ) -> &[VertexId] {
        let list = self.neighbors(v, label, direction);
        let csr = self.csr(direction);
        if csr.only_label != Some(label) {
            return &list[list.partition_point(|&w| w <= v)..];
        }
        let below = match csr.below.get() {
            Some(below) => below,
            None => {
                // Made outside the cell: a rayon thread waiting for the parallel work of an
                // initializer runs other tasks meanwhile, and one that asked for the cell
                // from inside `get_or_init` would wait for itself (callers asking at once
                // may each make it; one is kept).
                let made = (0..self.vertex_count() as VertexId)
                    .into_par_iter()
                    .map(|u| csr.neighbors[csr.range(u)].partition_point(|&w| w <= u) as u32)
                    .collect();
                csr.below.get_or_init(|| made)
            }
        };
        &list[below[v as usize] as usize..]
    }

    /// A hint that `v`'s lists in `direction` will be read soon: asks the processor to bring
    /// their place in the adjacency (the offsets and, once made, the cut point of
    /// [`Graph::neighbors_above`]) into its cache. Changes nothing else.
    pub fn prefetch_place(&self, v: VertexId, direction: Direction) {
        let csr = self.csr(direction);
        if let Some(offset) = csr.offsets.get(v as usize) {
            prefetch(offset);
        }
        if let Some(cut) = csr.below.get().and_then(|below| below.get(v as usize)) {
            prefetch(cut);
        }
    }

    /// A hint that N(v, label) in `direction` (only its part above `v` with `above`, as
    /// [`Graph::neighbors_above`] gives it) will be read soon: asks the processor to bring its
    /// start into its cache. It reads only `v`'s offset and cut point (which
    /// [`Graph::prefetch_place`] brings in); a labelled list's start is its vertex's first
    /// entry, and the cut above `v` is used where it is known at once.
    pub fn prefetch_neighbors(
        &self,
        v: VertexId,
        label: EdgeLabel,
        direction: Direction,
        above: bool,
    ) {
        let csr = self.csr(direction);
        let Some(&start) = csr.offsets.get(v as usize) else {
            return;
        };
        let cut = match (above && csr.only_label == Some(label), csr.below.get()) {
            (true, Some(below)) => below.get(v as usize).map_or(0, |&b| b as usize),
            _ => 0,
        };
        if let Some(first) = csr.neighbors.get(start + cut) {
            prefetch(first);
        }
    }

    /// Number of edges at `v` in `direction` (all of them in an undirected graph).
    pub fn degree(&self, v: VertexId, direction: Direction) -> usize {
        self.csr(direction).range(v).len()
    }

    /// The distinct edge labels that occur, sorted.
    pub fn edge_labels(&self) -> Vec<EdgeLabel> {
        let mut labels = self.out.labels.to_vec();
        labels.sort_unstable();
        labels.dedup();
        labels
    }

    /// Bytes held, part by part.
    pub fn bytes(&self) -> GraphBytes {
        let csrs = [&self.out, &self.inc];
        GraphBytes {
            offsets: csrs
                .iter()
                .map(|c| size_of::<usize>() * c.offsets.len())
                .sum(),
            neighbors: csrs.iter().map(|c| 4 * c.neighbors.len()).sum(),
            edge_labels: csrs.iter().map(|c| 4 * c.labels.len()).sum(),
            vertex_labels: 4 * self.vertex_labels.len()
                + size_of::<usize>() * self.label_sets.offsets.len()
                + 4 * self.label_sets.labels.len(),
        }
    }

    /// Iterates over every edge once as `(source, target, label)`; for an undirected graph
    /// each edge is reported with `source < target`.
    pub fn edge_iter(&self) -> impl Iterator<Item = (VertexId, VertexId, EdgeLabel)> + '_ {
        (0..self.vertex_count() as VertexId).flat_map(move |v| {
            let (neighbors, labels) = self.edges(v, Direction::Out);
            neighbors
                .iter()
                .zip(labels)
                .filter(move |(&w, _)| self.directed || v < w)
                .map(move |(&w, &l)| (v, w, l))
        })
    }
}

/// Asks the processor to bring the cache line of `at` in (x86-64; elsewhere nothing).
fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing the program sees and cannot fault.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use crate::GraphBuilder;

    use super::*;

    /// The cut points of `neighbors_above`, first asked for by every thread of a pool at
    /// once: made inside the cell's initializer, in parallel, this deadlocked every time (a
    /// thread waiting for the initializer's work took a task that asked for the cell again),
    /// so the test fails after a minute instead of waiting.
    #[test]
    fn neighbors_above_asked_first_by_many_threads_at_once_answers() {
        use rayon::prelude::*;
        let (done, answered) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(16)
                .build()
                .unwrap();
            for round in 0..20 {
                let n = 200_000u32;
                let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
                for v in 0..n - 1 - round {
                    b.add_edge(v, v + 1 + round, 0).unwrap();
                }
                let g = b.build().unwrap();
                let above: usize = pool.install(|| {
                    (0..n)
                        .into_par_iter()
                        .map(|v| g.neighbors_above(v, 0, Direction::Out).len())
                        .sum()
                });
                assert_eq!(
                    above,
                    (n - 1 - round) as usize,
                    "each edge once, from below"
                );
            }
            done.send(()).unwrap();
        });
        answered
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("every round answered within a minute");
    }

    #[test]
    fn neighbors_by_label_are_sorted_slices() {
        let mut b = GraphBuilder::new(false);
        for l in [0, 1, 1, 2] {
            b.add_vertex(l);
        }
        b.add_edge(0, 3, 5).unwrap();
        b.add_edge(0, 1, 5).unwrap();
        b.add_edge(0, 2, 1).unwrap();
        let g = b.build().unwrap();
        assert_eq!(g.neighbors(0, 5, Direction::Out), &[1, 3]);
        assert_eq!(g.neighbors(0, 1, Direction::In), &[2]);
        assert_eq!(g.neighbors(3, 5, Direction::Out), &[0]);
        assert!(g.neighbors(0, 7, Direction::Out).is_empty());
        assert_eq!(g.edge_iter().count(), 3);
        // Above 0 among its label-5 neighbours 1 and 3; above 1 nothing of label 5 but 0.
        assert_eq!(g.neighbors_above(0, 5, Direction::Out), &[1, 3]);
        assert!(g.neighbors_above(1, 5, Direction::Out).is_empty());
        assert!(g.neighbors_above(0, 7, Direction::Out).is_empty());
    }

    #[test]
    fn one_label_lists_are_cut_above_their_vertex() {
        let mut b = GraphBuilder::with_vertices(false, vec![0; 5]);
        for (s, t) in [(2, 0), (2, 4), (2, 3), (0, 4), (1, 4)] {
            b.add_edge(s, t, 9).unwrap();
        }
        let g = b.build().unwrap();
        for v in 0..5 {
            let all = g.neighbors(v, 9, Direction::Out);
            let above: Vec<VertexId> = all.iter().copied().filter(|&w| w > v).collect();
            assert_eq!(g.neighbors_above(v, 9, Direction::Out), above, "vertex {v}");
        }
        assert!(g.neighbors_above(2, 1, Direction::Out).is_empty());
    }

    #[test]
    fn prefetch_hints_take_any_vertex_and_change_nothing() {
        let mut b = GraphBuilder::new(false);
        for _ in 0..3 {
            b.add_vertex(0);
        }
        b.add_edge(0, 1, 0).unwrap();
        let g = b.build().unwrap();
        let before = g.neighbors_above(0, 0, Direction::Out).to_vec();
        // Vertex 2 has no edge; 3 and u32::MAX are past the end; label 1 has no edge.
        for v in [0, 1, 2, 3, VertexId::MAX] {
            g.prefetch_place(v, Direction::Out);
            for (label, above) in [(0, false), (0, true), (1, true)] {
                g.prefetch_neighbors(v, label, Direction::Out, above);
            }
        }
        assert_eq!(g.neighbors_above(0, 0, Direction::Out), before.as_slice());
        assert_eq!(g.neighbors(1, 0, Direction::Out), &[0]);
    }

    #[test]
    fn directed_graph_keeps_both_adjacencies() {
        let mut b = GraphBuilder::new(true);
        b.add_vertex(0);
        b.add_vertex(0);
        b.add_edge(0, 1, 3).unwrap();
        let g = b.build().unwrap();
        assert_eq!(g.neighbors(0, 3, Direction::Out), &[1]);
        assert!(g.neighbors(0, 3, Direction::In).is_empty());
        assert_eq!(g.neighbors(1, 3, Direction::In), &[0]);
        assert_eq!(g.edge_iter().collect::<Vec<_>>(), vec![(0, 1, 3)]);
    }
}
