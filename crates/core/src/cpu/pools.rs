//! Where the CPU filter looks for a query vertex's candidates: the shortest list of data
//! vertices known to hold them all. Sec. 3.2 scans the vertices of the query vertex's label;
//! on a knowledge graph an untyped variable's label is every vertex, while the vertices with
//! an edge of one of its edges' labels, or the neighbours of a constant it is linked to, are a
//! few thousand. Each list is a necessary condition of every semantics (a match maps each
//! query edge to a data edge of its label), so scanning it finds the candidates that the
//! whole label's scan would, less those that no match can use.
//!
//! A narrower list changes the candidate sets, so it is taken only where the sets need not
//! be the ones every engine's filter finds: not in a share (the shares of one query may be
//! filtered by different engines, and must be planned alike), not under the paper's label
//! and degree filter, and not when [`MatchOptions::narrow_pools`] is off.

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId, VertexLabel};

use crate::index::DataIndex;
use crate::options::{FilterTests, MatchOptions};

/// A narrower list is taken only where it holds at most the label's vertices divided by this
/// (a partition's vertices are gathered at their first use: not worth it for a few less).
const NARROWER_BY: usize = 2;

/// A list of data vertices that holds every candidate of a query vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pool {
    /// The vertices of a label of the query vertex (Sec. 3.2).
    Label(VertexLabel),
    /// The data vertex a constant pins it to (none: the constant names no vertex).
    Pinned(Option<VertexId>),
    /// The neighbours of `of`, a pinned neighbour's data vertex, by `label` in `direction`.
    Neighbours {
        of: VertexId,
        label: EdgeLabel,
        direction: Direction,
    },
    /// The vertices with an edge of one partition's label and direction
    /// ([`crate::pcsr::PcsrSet::partition_index`]).
    Edges(usize),
    /// No vertex: the query vertex has no label, or an edge of a label no data edge has.
    Nothing,
}

impl Pool {
    /// The pool's vertices, sorted.
    pub(crate) fn vertices<'a>(&'a self, data: &'a DataIndex) -> &'a [VertexId] {
        match self {
            Pool::Label(l) => data.vertices_with_label(*l),
            Pool::Pinned(v) => v.as_slice(),
            &Pool::Neighbours {
                of,
                label,
                direction,
            } => data.graph().neighbors(of, label, direction),
            &Pool::Edges(partition) => data.pcsr().listed_vertices(partition),
            Pool::Nothing => &[],
        }
    }
}

/// The vertices of `u`'s rarest label (Sec. 3.2's pool, the GPU filter's).
fn label_pool(query: &Graph, u: VertexId, data: &DataIndex) -> Pool {
    query
        .labels_of(u)
        .iter()
        .map(|&l| Pool::Label(l))
        .min_by_key(|pool| pool.vertices(data).len())
        .unwrap_or(Pool::Nothing)
}

/// The pool of query vertex `u`: the data vertex its constant names where it is pinned, else
/// the shortest of its labels' vertices and, where a narrower list may be taken (the module's
/// comment), each of its edges' lists.
pub(crate) fn pool_of(
    query: &Graph,
    u: VertexId,
    data: &DataIndex,
    options: &MatchOptions,
) -> Pool {
    let pinned = |u: VertexId| {
        options
            .pinned
            .iter()
            .find(|&&(w, _)| w == u as usize)
            .map(|&(_, v)| data.internal_id(v))
    };
    if let Some(v) = pinned(u) {
        return Pool::Pinned(v);
    }
    let label_pool = label_pool(query, u, data);
    if label_pool == Pool::Nothing {
        return Pool::Nothing;
    }
    let label_size = label_pool.vertices(data).len();
    let narrow =
        options.narrow_pools && options.filter == FilterTests::Signature && options.share.is_none();
    if !narrow {
        return label_pool;
    }
    let pcsr = data.pcsr();
    let mut best = (label_size, label_pool);
    for &direction in query.directions() {
        let (neighbours, labels) = query.edges(u, direction);
        for (&w, &label) in neighbours.iter().zip(labels) {
            let edges = match pcsr.partition_index(label, direction) {
                Some(partition) => (
                    pcsr.partition(partition).vertex_count(),
                    Pool::Edges(partition),
                ),
                None => return Pool::Nothing,
            };
            // u -label-> w read from w's side: the neighbours of w's vertex the other way.
            let from_pin = pinned(w).map(|of| match of {
                Some(of) => {
                    let pool = Pool::Neighbours {
                        of,
                        label,
                        direction: direction.reverse(),
                    };
                    (pool.vertices(data).len(), pool)
                }
                None => (0, Pool::Nothing),
            });
            for (size, pool) in [Some(edges), from_pin].into_iter().flatten() {
                if size * NARROWER_BY <= label_size && size < best.0 {
                    best = (size, pool);
                }
            }
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::graph;

    /// Data: 0 -1-> 1, 0 -1-> 2, 3 -1-> 1, and 4..20 linked by label 3 to 0; every vertex of
    /// label 0.
    fn data() -> DataIndex {
        let mut edges = vec![(0, 1, 1), (0, 2, 1), (3, 1, 1)];
        edges.extend((4..20).map(|v| (v, 0, 3)));
        DataIndex::build(graph(true, &[0; 20], &edges)).unwrap()
    }

    #[test]
    fn the_shortest_list_that_holds_every_candidate() {
        let data = data();
        let options = MatchOptions::default();
        // u0 -1-> u1: u0 among the vertices with an out-edge of label 1 (0 and 3), u1 among
        // those with an in-edge of label 1 (1 and 2).
        let query = graph(true, &[0, 0], &[(0, 1, 1)]);
        // The index numbers vertices its own way: compared as the graph's.
        let id = |v| data.internal_id(v).unwrap();
        let sorted = |mut vertices: Vec<VertexId>| {
            vertices.sort_unstable();
            vertices
        };
        let of = |u| pool_of(&query, u, &data, &options).vertices(&data).to_vec();
        assert_eq!(of(0), sorted(vec![id(0), id(3)]));
        assert_eq!(of(1), sorted(vec![id(1), id(2)]));
        // Pinned: u1 is vertex 2, so u0 is among 2's in-neighbours by label 1.
        let pinned = MatchOptions {
            pinned: vec![(1, 2)],
            ..MatchOptions::default()
        };
        assert_eq!(
            pool_of(&query, 1, &data, &pinned),
            Pool::Pinned(Some(id(2)))
        );
        let pool = pool_of(&query, 0, &data, &pinned);
        assert!(
            matches!(pool, Pool::Neighbours { of, .. } if of == id(2)),
            "{pool:?}"
        );
        assert_eq!(pool.vertices(&data), [id(0)]);
        // A label no data edge has: no candidate.
        let none = graph(true, &[0, 0], &[(0, 1, 7)]);
        assert_eq!(pool_of(&none, 0, &data, &options), Pool::Nothing);
    }

    #[test]
    fn the_label_where_the_sets_must_be_every_engines() {
        let data = data();
        let query = graph(true, &[0, 0], &[(0, 1, 1)]);
        for options in [
            MatchOptions {
                narrow_pools: false,
                ..MatchOptions::default()
            },
            MatchOptions {
                filter: FilterTests::LabelAndDegree,
                ..MatchOptions::default()
            },
            MatchOptions {
                share: crate::options::Share::new(0, 2),
                ..MatchOptions::default()
            },
        ] {
            assert_eq!(pool_of(&query, 0, &data, &options), Pool::Label(0));
        }
        // A list of more than half the label's vertices is not worth gathering: the 16
        // vertices with an out-edge of label 3, of 20.
        let wide = graph(true, &[0, 0], &[(0, 1, 3)]);
        assert_eq!(
            pool_of(&wide, 0, &data, &MatchOptions::default()),
            Pool::Label(0)
        );
    }
}
