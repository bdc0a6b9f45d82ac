//! A graph with its vertices renumbered: the same graph, vertex `order[i]` of the old one
//! becoming vertex `i`, every list sorted again.

use rayon::prelude::*;

use crate::buffer::Buffer;
use crate::graph::{Csr, Graph, LabelSets};
use crate::{EdgeLabel, VertexId};

/// Vertices per piece of work when lists are copied in parallel.
const VERTICES_PER_TASK: usize = 1 << 12;

impl Graph {
    /// This graph with vertex `order[i]` renumbered `i`: labels, label sets and every
    /// adjacency follow their vertex, and each list is sorted by (label, neighbour) again.
    ///
    /// # Panics
    /// When `order` is not a permutation of the graph's vertices.
    pub fn renumbered(&self, order: &[VertexId]) -> Graph {
        let n = self.vertex_count();
        assert_eq!(order.len(), n, "an order names every vertex");
        let mut new_id = vec![VertexId::MAX; n];
        for (i, &old) in order.iter().enumerate() {
            assert_eq!(
                new_id[old as usize],
                VertexId::MAX,
                "vertex {old} ordered twice"
            );
            new_id[old as usize] = i as VertexId;
        }
        let vertex_labels: Vec<_> = order.par_iter().map(|&old| self.label(old)).collect();
        let label_sets = if self.label_sets.is_empty() {
            LabelSets::default()
        } else {
            let (offsets, labels) = gather(
                order,
                |old| self.labels_of(old).len(),
                |old, out| out.copy_from_slice(self.labels_of(old)),
            );
            LabelSets {
                offsets: offsets.into(),
                labels: labels.into(),
            }
        };
        let renumber = |csr: &Csr| -> Csr {
            if csr.offsets.is_empty() {
                return Csr::default();
            }
            let range = |old: VertexId| csr.offsets[old as usize]..csr.offsets[old as usize + 1];
            // Each entry as one key, label above neighbour, so that one sort orders both.
            let (offsets, keys) = gather(
                order,
                |old| range(old).len(),
                |old, out: &mut [u64]| {
                    let r = range(old);
                    for (slot, (&l, &w)) in out
                        .iter_mut()
                        .zip(csr.labels[r.clone()].iter().zip(&csr.neighbors[r]))
                    {
                        *slot = u64::from(l) << 32 | u64::from(new_id[w as usize]);
                    }
                    out.sort_unstable();
                },
            );
            let (labels, neighbors): (Vec<EdgeLabel>, Vec<VertexId>) = keys
                .into_par_iter()
                .map(|key| ((key >> 32) as EdgeLabel, key as VertexId))
                .unzip();
            Csr::new(offsets.into(), neighbors.into(), labels.into())
        };
        let (out, inc) = rayon::join(|| renumber(&self.out), || renumber(&self.inc));
        Graph {
            directed: self.directed,
            vertex_labels: Buffer::from(vertex_labels),
            label_sets,
            out,
            inc,
            edge_count: self.edge_count,
        }
    }
}

/// The lists of the vertices `order[0]`, `order[1]`, ... one after another, with their CSR
/// offsets: `len_of(v)` entries for vertex `v`, written by `fill(v, its entries)`.
fn gather<T: Copy + Default + Send>(
    order: &[VertexId],
    len_of: impl Fn(VertexId) -> usize,
    fill: impl Fn(VertexId, &mut [T]) + Sync,
) -> (Vec<usize>, Vec<T>) {
    let mut offsets = Vec::with_capacity(order.len() + 1);
    offsets.push(0);
    for &old in order {
        offsets.push(offsets[offsets.len() - 1] + len_of(old));
    }
    let mut entries = vec![T::default(); offsets[order.len()]];
    // Disjoint slices of the entries, one per run of vertices, filled in parallel.
    let mut rest = entries.as_mut_slice();
    let mut tasks = Vec::new();
    for (k, chunk) in order.chunks(VERTICES_PER_TASK).enumerate() {
        let first = k * VERTICES_PER_TASK;
        let ends = &offsets[first..=first + chunk.len()];
        let (mine, tail) = std::mem::take(&mut rest).split_at_mut(ends[chunk.len()] - ends[0]);
        rest = tail;
        tasks.push((chunk, ends, mine));
    }
    tasks.into_par_iter().for_each(|(chunk, ends, mine)| {
        for (i, &old) in chunk.iter().enumerate() {
            fill(old, &mut mine[ends[i] - ends[0]..ends[i + 1] - ends[0]]);
        }
    });
    (offsets, entries)
}

#[cfg(test)]
mod tests {
    use crate::{Direction, GraphBuilder};

    use super::*;

    /// Every edge as (source, target, label), sorted, its ends mapped through `id`.
    fn edges(g: &Graph, id: impl Fn(VertexId) -> VertexId) -> Vec<(VertexId, VertexId, u32)> {
        let mut all: Vec<_> = g
            .edge_iter()
            .map(|(s, t, l)| {
                let (s, t) = (id(s), id(t));
                if g.is_directed() || s < t {
                    (s, t, l)
                } else {
                    (t, s, l)
                }
            })
            .collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn renumbering_moves_labels_and_edges_with_their_vertices() {
        for directed in [false, true] {
            let mut b = GraphBuilder::new(directed);
            for l in [4, 5, 6, 7] {
                b.add_vertex(l);
            }
            for (s, t, l) in [(0, 1, 1), (0, 2, 2), (3, 0, 1), (1, 3, 3), (2, 1, 1)] {
                b.add_edge(s, t, l).unwrap();
            }
            let g = b.build().unwrap();
            let order = [2, 0, 3, 1];
            let r = g.renumbered(&order);
            for (i, &old) in order.iter().enumerate() {
                assert_eq!(r.label(i as VertexId), g.label(old));
                assert_eq!(
                    r.total_degree(i as VertexId),
                    g.total_degree(old),
                    "vertex {old}"
                );
            }
            // The new graph's edges, read back through the order, are the old graph's.
            assert_eq!(edges(&r, |v| order[v as usize]), edges(&g, |v| v));
            for v in 0..4 {
                for &d in r.directions() {
                    let (list, labels) = r.edges(v, d);
                    let pairs: Vec<_> = labels.iter().zip(list).collect();
                    assert!(pairs.windows(2).all(|w| w[0] < w[1]), "sorted lists");
                }
            }
            assert_eq!(r.edge_count(), g.edge_count());
            // New vertex 1 is old 0: its edges of label 1 lead out to old 1 (now 3) and, when
            // undirected, to old 3 (now 2).
            let expected: &[VertexId] = if directed { &[3] } else { &[2, 3] };
            assert_eq!(r.neighbors(1, 1, Direction::Out), expected);
        }
    }

    #[test]
    fn label_sets_follow_their_vertex() {
        let mut b = GraphBuilder::new(false);
        b.add_vertex(1);
        b.add_label(0, 2).unwrap();
        b.add_vertex(3);
        b.add_vertex(2);
        b.add_label(2, 5).unwrap();
        b.add_label(2, 9).unwrap();
        b.add_edge(0, 2, 0).unwrap();
        let g = b.build().unwrap();
        let r = g.renumbered(&[2, 1, 0]);
        assert_eq!(r.labels_of(0), &[2, 5, 9]);
        assert_eq!(r.labels_of(1), &[3]);
        assert_eq!(r.labels_of(2), &[1, 2]);
        assert_eq!(r.neighbors(0, 0, Direction::Out), &[2]);
    }
}
