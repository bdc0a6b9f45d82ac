//! [`GraphBuilder`]: collects vertices and edges, then lays them out as CSR.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::graph::{Csr, EdgeLabel, Graph, LabelSets, VertexId, VertexLabel};
use crate::{Error, Result};

/// Builds a [`Graph`]: add every vertex, then every edge, then call [`GraphBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    directed: bool,
    vertex_labels: Vec<VertexLabel>,
    /// Labels of vertices beyond the one in `vertex_labels`.
    more_labels: Vec<(VertexId, VertexLabel)>,
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
            ..GraphBuilder::default()
        }
    }

    /// A builder holding all its vertices and edges at once, moved in without copying.
    ///
    /// # Errors
    /// A self-loop, or an endpoint that is not a vertex, as in [`GraphBuilder::add_edge`].
    pub fn with_edges(
        directed: bool,
        vertex_labels: Vec<VertexLabel>,
        edges: Vec<(VertexId, VertexId, EdgeLabel)>,
    ) -> Result<GraphBuilder> {
        let n = vertex_labels.len();
        let invalid = |&(s, t, _): &(VertexId, VertexId, EdgeLabel)| {
            s == t || s as usize >= n || t as usize >= n
        };
        let bad = if edges.len() < PARALLEL_MIN_EDGES {
            edges.iter().position(invalid)
        } else {
            edges.par_iter().position_first(invalid)
        };
        if let Some(err) = bad.and_then(|i| edge_error(edges[i].0, edges[i].1, n)) {
            return Err(err);
        }
        Ok(GraphBuilder {
            directed,
            vertex_labels,
            more_labels: Vec::new(),
            edges,
        })
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

    /// Gives vertex `v` the label `label` too: a vertex may carry several labels
    /// ([`Graph::labels_of`]).
    ///
    /// # Errors
    /// A vertex that does not exist yet.
    pub fn add_label(&mut self, v: VertexId, label: VertexLabel) -> Result<()> {
        if v as usize >= self.vertex_labels.len() {
            return Err(Error::Build(format!(
                "label {label} for vertex {v}, which does not exist"
            )));
        }
        self.more_labels.push((v, label));
        Ok(())
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
        if let Some(err) = edge_error(source, target, self.vertex_labels.len()) {
            return Err(err);
        }
        self.edges.push((source, target, label));
        Ok(())
    }

    /// Lays the graph out as CSR.
    ///
    /// # Errors
    /// [`Error::DuplicateEdge`] when the same edge (same endpoints, same label; in either
    /// orientation for an undirected graph) was added twice: repeated edges would make every
    /// match through them count twice. [`Error::OutOfMemory`] when the graph's arrays cannot
    /// be allocated.
    pub fn build(self) -> Result<Graph> {
        self.try_build().map_err(|(err, _)| err)
    }

    /// As [`GraphBuilder::build`], but gives the builder back with the error so that the
    /// caller can look at the edges it held.
    pub(crate) fn try_build(mut self) -> std::result::Result<Graph, (Error, Box<GraphBuilder>)> {
        let (out, inc, label_sets) = match self.lay_out() {
            Ok(parts) => parts,
            Err(err) => return Err((err, Box::new(self))),
        };
        Ok(Graph {
            directed: self.directed,
            vertex_labels: self.vertex_labels.into(),
            label_sets,
            out,
            inc,
            edge_count: self.edges.len(),
        })
    }

    /// The out- and in-adjacency (empty when undirected) and the label sets; leaves each
    /// vertex's smallest label in `vertex_labels`.
    fn lay_out(&mut self) -> Result<(Csr, Csr, LabelSets)> {
        let n = self.vertex_labels.len();
        let (out, inc) = if self.directed {
            // Duplicates are rejected in the out-adjacency, before the in-adjacency is built.
            let out = csr(n, &self.edges, Entries::Forward)?;
            (out, csr(n, &self.edges, Entries::Backward)?)
        } else {
            (csr(n, &self.edges, Entries::Both)?, Csr::default())
        };
        let more = std::mem::take(&mut self.more_labels);
        Ok((out, inc, label_sets(&mut self.vertex_labels, more)?))
    }
}

/// Each vertex's smallest label, and every vertex's label set when some vertex has more than
/// one (`more`: further labels by vertex, in any order, repeats allowed).
fn label_sets(
    labels: &mut [VertexLabel],
    mut more: Vec<(VertexId, VertexLabel)>,
) -> Result<LabelSets> {
    more.retain(|&(v, l)| labels[v as usize] != l);
    if more.is_empty() {
        return Ok(LabelSets::default());
    }
    reserve(&mut more, labels.len(), "the vertices' label sets")?;
    more.extend(labels.iter().enumerate().map(|(v, &l)| (v as VertexId, l)));
    more.sort_unstable();
    more.dedup();
    let mut offsets = vec_for(labels.len() + 1, "the vertices' label sets")?;
    offsets.push(0);
    let mut set_labels = vec_for(more.len(), "the vertices' label sets")?;
    let mut pairs = more.iter().peekable();
    for (v, smallest) in labels.iter_mut().enumerate() {
        *smallest = pairs.peek().expect("every vertex has its label").1;
        while let Some(&(_, l)) = pairs.next_if(|&&(w, _)| w as usize == v) {
            set_labels.push(l);
        }
        offsets.push(set_labels.len());
    }
    let sets = LabelSets {
        offsets: offsets.into(),
        labels: set_labels.into(),
    };
    Ok(sets)
}

/// Why `source -- target` cannot be an edge of a graph of `n` vertices, if it cannot.
fn edge_error(source: VertexId, target: VertexId, n: usize) -> Option<Error> {
    if source as usize >= n || target as usize >= n {
        return Some(Error::Build(format!(
            "edge {source} -- {target} names a vertex that does not exist (the graph has {n} vertices)"
        )));
    }
    if source == target {
        return Some(Error::Build(format!("self-loop at vertex {source}")));
    }
    None
}

/// Which adjacency entries each edge `(s, t, l)` gives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entries {
    /// `s -> t`.
    Forward,
    /// `t -> s`.
    Backward,
    /// Both.
    Both,
}

/// Fewest edges worth building in parallel.
const PARALLEL_MIN_EDGES: usize = 1 << 15;

/// Room for `additional` more values in `values`, or [`Error::OutOfMemory`] for `what`.
///
/// # Errors
/// The allocation failed.
fn reserve<T>(values: &mut Vec<T>, additional: usize, what: &'static str) -> Result<()> {
    values
        .try_reserve_exact(additional)
        .map_err(|_| Error::OutOfMemory {
            what,
            bytes: additional.saturating_mul(std::mem::size_of::<T>()),
        })
}

/// An empty vector with room for `len` values, or [`Error::OutOfMemory`] for `what`.
///
/// # Errors
/// The allocation failed.
pub fn vec_for<T>(len: usize, what: &'static str) -> Result<Vec<T>> {
    let mut values = Vec::new();
    reserve(&mut values, len, what)?;
    Ok(values)
}

/// Builds one CSR from the entries of `edges`.
///
/// # Errors
/// [`Error::DuplicateEdge`] for a repeated entry; [`Error::OutOfMemory`] when its arrays
/// cannot be allocated.
///
/// Counting and placing run in parallel with atomic counters; the order in which entries
/// land in a vertex's segment does not matter because each segment is then sorted. Entries
/// are placed straight into the neighbour and label arrays, so that the build holds no more
/// than the edges and the CSR itself (and one vertex's entries per thread, to sort them).
fn csr(n: usize, edges: &[(VertexId, VertexId, EdgeLabel)], entries: Entries) -> Result<Csr> {
    const WHAT: &str = "the graph's adjacency lists";
    // Small graphs (queries, above all) stay on this thread: a hand-off to the pool costs
    // more than their whole build.
    let parallel = edges.len() >= PARALLEL_MIN_EDGES;
    let each = |f: &(dyn Fn(VertexId, VertexId, EdgeLabel) + Sync)| {
        let visit = |&(s, t, l): &(VertexId, VertexId, EdgeLabel)| match entries {
            Entries::Forward => f(s, t, l),
            Entries::Backward => f(t, s, l),
            Entries::Both => {
                f(s, t, l);
                f(t, s, l);
            }
        };
        if parallel {
            edges.par_iter().for_each(visit);
        } else {
            edges.iter().for_each(visit);
        }
    };
    let mut counts: Vec<AtomicUsize> = vec_for(n, WHAT)?;
    counts.extend((0..n).map(|_| AtomicUsize::new(0)));
    each(&|from, _, _| {
        counts[from as usize].fetch_add(1, Ordering::Relaxed);
    });
    let mut offsets = vec_for(n + 1, WHAT)?;
    offsets.push(0usize);
    // The counters become the cursors: each vertex's next free place.
    let mut total = 0;
    for c in &counts {
        let count = c.load(Ordering::Relaxed);
        c.store(total, Ordering::Relaxed);
        total += count;
        offsets.push(total);
    }
    let mut neighbors: Vec<AtomicU32> = vec_for(total, WHAT)?;
    neighbors.extend((0..total).map(|_| AtomicU32::new(0)));
    let mut labels: Vec<AtomicU32> = vec_for(total, WHAT)?;
    labels.extend((0..total).map(|_| AtomicU32::new(0)));
    each(&|from, to, label| {
        let at = counts[from as usize].fetch_add(1, Ordering::Relaxed);
        neighbors[at].store(to, Ordering::Relaxed);
        labels[at].store(label, Ordering::Relaxed);
    });
    drop(counts);
    // Collected in place: an atomic has the layout of its integer.
    let mut neighbors: Vec<VertexId> = neighbors.into_iter().map(AtomicU32::into_inner).collect();
    let mut labels: Vec<EdgeLabel> = labels.into_iter().map(AtomicU32::into_inner).collect();
    let mut segments = vec_for(n, WHAT)?;
    let (mut rest_n, mut rest_l) = (neighbors.as_mut_slice(), labels.as_mut_slice());
    for v in 0..n {
        let len = offsets[v + 1] - offsets[v];
        let (head_n, tail_n) = rest_n.split_at_mut(len);
        let (head_l, tail_l) = rest_l.split_at_mut(len);
        segments.push((v as VertexId, head_n, head_l));
        rest_n = tail_n;
        rest_l = tail_l;
    }
    // Each segment sorted by (label, neighbour), through a buffer of packed pairs; the first
    // repeated pair is a duplicate edge.
    let sort = |keys: &mut Vec<u64>, (v, nb, lb): (VertexId, &mut [VertexId], &mut [EdgeLabel])| {
        keys.clear();
        keys.extend(
            lb.iter()
                .zip(nb.iter())
                .map(|(&l, &w)| (u64::from(l) << 32) | u64::from(w)),
        );
        keys.sort_unstable();
        for ((slot_n, slot_l), &k) in nb.iter_mut().zip(lb.iter_mut()).zip(keys.iter()) {
            *slot_n = k as u32;
            *slot_l = (k >> 32) as u32;
        }
        keys.windows(2)
            .find(|w| w[0] == w[1])
            .map(|w| (v, w[0] as u32, (w[0] >> 32) as u32))
    };
    let duplicate = if parallel {
        segments
            .into_par_iter()
            .map_init(Vec::new, sort)
            .flatten()
            .min()
    } else {
        let mut keys = Vec::new();
        segments
            .into_iter()
            .filter_map(|segment| sort(&mut keys, segment))
            .min()
    };
    if let Some((s, t, label)) = duplicate {
        let (from, to) = match entries {
            Entries::Both => (s.min(t), s.max(t)),
            Entries::Forward | Entries::Backward => (s, t),
        };
        return Err(Error::DuplicateEdge { from, to, label });
    }
    Ok(Csr::new(offsets.into(), neighbors.into(), labels.into()))
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
    fn an_allocation_too_large_is_an_error_naming_it() {
        let err = vec_for::<u64>(usize::MAX / 4, "the test's array").unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { .. }));
        assert!(err
            .to_string()
            .contains("for the test's array could not be allocated"));
    }

    #[test]
    fn self_loops_and_unknown_vertices_are_rejected() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 0]);
        assert!(b.add_edge(1, 1, 0).is_err());
        assert!(b.add_edge(0, 2, 0).is_err());
    }

    #[test]
    fn with_edges_checks_every_edge_and_builds_the_same_graph() {
        let err =
            GraphBuilder::with_edges(false, vec![0, 0], vec![(0, 1, 0), (1, 1, 0)]).unwrap_err();
        assert!(err.to_string().contains("self-loop at vertex 1"));
        let err = GraphBuilder::with_edges(false, vec![0, 0], vec![(0, 2, 0)]).unwrap_err();
        assert!(err.to_string().contains("does not exist"));
        let g = GraphBuilder::with_edges(true, vec![0, 1], vec![(1, 0, 4)])
            .unwrap()
            .build()
            .unwrap();
        let mut b = GraphBuilder::with_vertices(true, vec![0, 1]);
        b.add_edge(1, 0, 4).unwrap();
        assert_eq!(g, b.build().unwrap());
    }
}
