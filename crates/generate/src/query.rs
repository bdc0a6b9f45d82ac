//! Query generation by random walks over a data graph.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use gsi_graph::{Direction, EdgeLabel, Graph, GraphBuilder, VertexId};
use rand_pcg::Pcg64;
use rayon::prelude::*;

use crate::random::{below, stream, Purpose};
use crate::{Error, Result};

/// Which edges among the walked vertices a query keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Density {
    /// Every edge of the data graph among the walked vertices (the induced subgraph).
    #[default]
    Dense,
    /// The spanning tree the walk drew (the edge that first reached each vertex) and
    /// `K / 4` more edges among the walked vertices, chosen at random.
    Sparse,
}

impl Density {
    /// The name [`Density::from_str`] accepts and [`fmt::Display`] prints.
    pub fn name(self) -> &'static str {
        match self {
            Density::Dense => "dense",
            Density::Sparse => "sparse",
        }
    }
}

impl fmt::Display for Density {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Density {
    type Err = Error;

    /// Accepts `dense` and `sparse`, in any case.
    fn from_str(s: &str) -> Result<Density> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dense" => Ok(Density::Dense),
            "sparse" => Ok(Density::Sparse),
            _ => Err(Error::Invalid(format!(
                "unknown query density `{s}`: expected dense or sparse"
            ))),
        }
    }
}

/// What [`generate_queries`] makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySpec {
    /// Vertices per query, K (at least 1).
    pub vertices: usize,
    /// Number of queries.
    pub count: usize,
    /// Which edges to keep.
    pub density: Density,
    /// The seed: query `i` depends only on the data graph, the spec and `i`.
    pub seed: u64,
}

/// A generated query and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query {
    /// The query graph: vertices `0..K` in the order the walk reached them, labels copied
    /// from the data graph, directed when the data graph is.
    pub graph: Graph,
    /// The data vertex each query vertex was walked from: one embedding of the query, so
    /// every generated query has at least one match.
    pub origin: Vec<VertexId>,
}

/// Random walks (per query) before giving up.
const MAX_WALKS: usize = 1000;

/// Generates `spec.count` connected queries of exactly `spec.vertices` vertices from
/// random walks over `data`.
///
/// Each walk starts at a random vertex that has an edge and moves to a random neighbour
/// (along edges in either direction for a directed graph) until it has visited `K`
/// distinct vertices; a walk that takes too many steps (stuck in a small component)
/// restarts elsewhere. The query keeps the visited vertices and, by [`Density`], the
/// edges among them with their labels. Queries are made in parallel; query `i` depends
/// only on `data`, `spec` and `i`.
///
/// # Errors
/// [`Error::Invalid`] when `K` is 0 or larger than the data graph, or when no walk finds
/// `K` connected vertices (the graph has no edge, or only components smaller than `K`).
pub fn generate_queries(data: &Graph, spec: &QuerySpec) -> Result<Vec<Query>> {
    let k = spec.vertices;
    if k == 0 {
        return Err(Error::Invalid("queries need at least 1 vertex".into()));
    }
    if k > data.vertex_count() {
        return Err(Error::Invalid(format!(
            "queries of {k} vertices cannot come from a data graph of {} vertices",
            data.vertex_count()
        )));
    }
    (0..spec.count)
        .into_par_iter()
        .map(|i| generate_query(data, spec, i as u64))
        .collect()
}

/// Neighbours of `v` in both directions of a directed graph.
fn walk_degree(data: &Graph, v: VertexId) -> usize {
    let out = data.degree(v, Direction::Out);
    if data.is_directed() {
        out + data.degree(v, Direction::In)
    } else {
        out
    }
}

/// The `i`-th edge of `v` in [`walk_degree`]'s order, as (neighbour, data edge).
fn walk_edge(data: &Graph, v: VertexId, i: usize) -> (VertexId, (VertexId, VertexId, EdgeLabel)) {
    let (out, labels) = data.edges(v, Direction::Out);
    if i < out.len() {
        (out[i], (v, out[i], labels[i]))
    } else {
        let (inc, labels) = data.edges(v, Direction::In);
        let j = i - out.len();
        (inc[j], (inc[j], v, labels[j]))
    }
}

fn random_start(data: &Graph, rng: &mut Pcg64, need_edge: bool) -> Option<VertexId> {
    let n = data.vertex_count() as u64;
    if !need_edge {
        return Some(below(rng, n) as VertexId);
    }
    for _ in 0..64 {
        let v = below(rng, n) as VertexId;
        if walk_degree(data, v) > 0 {
            return Some(v);
        }
    }
    // Mostly isolated vertices: take the first vertex with an edge from a random place.
    let from = below(rng, n) as usize;
    (from..n as usize)
        .chain(0..from)
        .map(|v| v as VertexId)
        .find(|&v| walk_degree(data, v) > 0)
}

fn generate_query(data: &Graph, spec: &QuerySpec, index: u64) -> Result<Query> {
    let k = spec.vertices;
    let mut rng = stream(spec.seed, Purpose::Query, 0, index);
    let max_steps = 200 * k + 1000;
    for _ in 0..MAX_WALKS {
        let Some(start) = random_start(data, &mut rng, k > 1) else {
            break;
        };
        let mut origin = vec![start];
        let mut position: HashMap<VertexId, VertexId> = HashMap::from([(start, 0)]);
        let mut tree: Vec<(VertexId, VertexId, EdgeLabel)> = Vec::with_capacity(k);
        let mut v = start;
        let mut steps = 0;
        while origin.len() < k && steps < max_steps {
            steps += 1;
            let degree = walk_degree(data, v);
            if degree == 0 {
                break;
            }
            let (w, edge) = walk_edge(data, v, below(&mut rng, degree as u64) as usize);
            if let std::collections::hash_map::Entry::Vacant(e) = position.entry(w) {
                e.insert(origin.len() as VertexId);
                origin.push(w);
                tree.push(edge);
            }
            v = w;
        }
        if origin.len() == k {
            return build(data, spec, &mut rng, origin, &position, &tree);
        }
    }
    Err(Error::Invalid(format!(
        "query {index}: no random walk reached {k} connected vertices after {MAX_WALKS} tries: the data graph's components may be smaller than the query"
    )))
}

fn build(
    data: &Graph,
    spec: &QuerySpec,
    rng: &mut Pcg64,
    origin: Vec<VertexId>,
    position: &HashMap<VertexId, VertexId>,
    tree: &[(VertexId, VertexId, EdgeLabel)],
) -> Result<Query> {
    let q = |v: VertexId| position[&v];
    let tree: Vec<(VertexId, VertexId, EdgeLabel)> =
        tree.iter().map(|&(u, v, l)| (q(u), q(v), l)).collect();
    // All edges among the walked vertices, in query ids, sorted.
    let mut induced = Vec::new();
    for &v in &origin {
        let (neighbors, labels) = data.edges(v, Direction::Out);
        for (&w, &l) in neighbors.iter().zip(labels) {
            if let Some(&qw) = position.get(&w) {
                if data.is_directed() || v < w {
                    let (a, b) = (q(v), qw);
                    let edge = if data.is_directed() {
                        (a, b, l)
                    } else {
                        (a.min(b), a.max(b), l)
                    };
                    induced.push(edge);
                }
            }
        }
    }
    induced.sort_unstable();
    let edges = match spec.density {
        Density::Dense => induced,
        Density::Sparse => {
            let normal = |&(a, b, l): &(VertexId, VertexId, EdgeLabel)| {
                if data.is_directed() {
                    (a, b, l)
                } else {
                    (a.min(b), a.max(b), l)
                }
            };
            let mut chosen: Vec<_> = tree.iter().map(normal).collect();
            chosen.sort_unstable();
            let mut rest: Vec<_> = induced
                .into_iter()
                .filter(|e| chosen.binary_search(e).is_err())
                .collect();
            let extra = (spec.vertices / 4).min(rest.len());
            for i in 0..extra {
                let j = i + below(rng, (rest.len() - i) as u64) as usize;
                rest.swap(i, j);
            }
            chosen.extend_from_slice(&rest[..extra]);
            chosen
        }
    };
    let labels = origin.iter().map(|&v| data.label(v)).collect();
    let graph = GraphBuilder::with_edges(data.is_directed(), labels, edges)?.build()?;
    Ok(Query { graph, origin })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate_graph, GraphSpec, Shape};

    fn data(shape: Shape, directed: bool) -> Graph {
        generate_graph(&GraphSpec {
            vertices: 3000,
            edges: if shape == Shape::Mesh { 5000 } else { 12_000 },
            vertex_labels: 5,
            edge_labels: 4,
            labels_per_vertex: 1,
            shape,
            directed,
            seed: 21,
        })
        .unwrap()
    }

    fn connected(g: &Graph) -> bool {
        let n = g.vertex_count();
        if n == 0 {
            return true;
        }
        let mut seen = vec![false; n];
        let mut stack = vec![0 as VertexId];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for direction in [Direction::Out, Direction::In] {
                for &w in g.edges(v, direction).0 {
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        stack.push(w);
                    }
                }
            }
        }
        seen.into_iter().all(|s| s)
    }

    /// Connected, K vertices, labels and every edge as in the data graph through `origin`.
    fn check(data: &Graph, query: &Query, k: usize) {
        let g = &query.graph;
        assert_eq!(g.vertex_count(), k);
        assert_eq!(query.origin.len(), k);
        assert_eq!(g.is_directed(), data.is_directed());
        assert!(connected(g));
        let mut distinct = query.origin.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), k);
        for v in 0..k as VertexId {
            assert_eq!(g.label(v), data.label(query.origin[v as usize]));
        }
        for (u, v, l) in g.edge_iter() {
            let (du, dv) = (query.origin[u as usize], query.origin[v as usize]);
            assert!(
                data.neighbors(du, l, Direction::Out)
                    .binary_search(&dv)
                    .is_ok(),
                "query edge {u} -> {v} ({l}) is no data edge {du} -> {dv}"
            );
        }
    }

    fn induced_count(data: &Graph, origin: &[VertexId]) -> usize {
        data.edge_iter()
            .filter(|(u, v, _)| origin.contains(u) && origin.contains(v))
            .count()
    }

    #[test]
    fn queries_are_connected_embedded_and_reproducible() {
        for shape in [Shape::ScaleFree, Shape::Mesh, Shape::Uniform] {
            for directed in [false, true] {
                let data = data(shape, directed);
                for density in [Density::Dense, Density::Sparse] {
                    let spec = QuerySpec {
                        vertices: 12,
                        count: 20,
                        density,
                        seed: 3,
                    };
                    let queries = generate_queries(&data, &spec).unwrap();
                    assert_eq!(queries.len(), 20);
                    for q in &queries {
                        check(&data, q, 12);
                        let induced = induced_count(&data, &q.origin);
                        match density {
                            Density::Dense => assert_eq!(q.graph.edge_count(), induced),
                            Density::Sparse => {
                                assert!(q.graph.edge_count() >= 11);
                                assert!(q.graph.edge_count() <= (11 + 3).min(induced));
                            }
                        }
                    }
                    assert_eq!(queries, generate_queries(&data, &spec).unwrap());
                    let other = generate_queries(&data, &QuerySpec { seed: 4, ..spec }).unwrap();
                    assert_ne!(queries, other);
                }
            }
        }
    }

    #[test]
    fn sparse_queries_are_sparser_than_dense_ones() {
        let data = generate_graph(&GraphSpec {
            vertices: 200,
            edges: 4000,
            vertex_labels: 3,
            edge_labels: 2,
            labels_per_vertex: 1,
            shape: Shape::Uniform,
            directed: false,
            seed: 1,
        })
        .unwrap();
        let spec = |density| QuerySpec {
            vertices: 16,
            count: 10,
            density,
            seed: 9,
        };
        let dense = generate_queries(&data, &spec(Density::Dense)).unwrap();
        let sparse = generate_queries(&data, &spec(Density::Sparse)).unwrap();
        for (d, s) in dense.iter().zip(&sparse) {
            // The same walk, so the same vertices.
            assert_eq!(d.origin, s.origin);
            assert_eq!(s.graph.edge_count(), 15 + 4);
            assert!(d.graph.edge_count() > s.graph.edge_count());
        }
    }

    #[test]
    fn walks_restart_out_of_small_components() {
        // Many pairs and one path of five vertices: queries of 5 must come from the path.
        let mut b = GraphBuilder::with_vertices(false, vec![0; 105]);
        for i in 0..50 {
            b.add_edge(2 * i, 2 * i + 1, 0).unwrap();
        }
        for v in 100..104 {
            b.add_edge(v, v + 1, 1).unwrap();
        }
        let data = b.build().unwrap();
        let spec = QuerySpec {
            vertices: 5,
            count: 3,
            density: Density::Dense,
            seed: 0,
        };
        for q in generate_queries(&data, &spec).unwrap() {
            check(&data, &q, 5);
            assert!(q.origin.iter().all(|&v| v >= 100));
            assert_eq!(q.graph.edge_count(), 4);
        }
    }

    #[test]
    fn single_vertex_queries_and_errors() {
        let data = GraphBuilder::with_vertices(true, vec![7, 8, 9])
            .build()
            .unwrap();
        let one = QuerySpec {
            vertices: 1,
            count: 2,
            density: Density::Sparse,
            seed: 0,
        };
        let queries = generate_queries(&data, &one).unwrap();
        assert!(queries.iter().all(|q| q.graph.vertex_count() == 1));
        let err = generate_queries(
            &data,
            &QuerySpec {
                vertices: 2,
                ..one.clone()
            },
        )
        .unwrap_err();
        assert!(err
            .to_string()
            .contains("no random walk reached 2 connected vertices"));
        let err = generate_queries(
            &data,
            &QuerySpec {
                vertices: 4,
                ..one.clone()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("data graph of 3 vertices"));
        let err = generate_queries(
            &data,
            &QuerySpec {
                vertices: 0,
                ..one.clone()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("at least 1 vertex"));
        let none = generate_queries(&data, &QuerySpec { count: 0, ..one }).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn densities_parse_by_name() {
        assert_eq!("Dense".parse::<Density>().unwrap(), Density::Dense);
        assert_eq!(
            Density::Sparse.to_string().parse::<Density>().unwrap(),
            Density::Sparse
        );
        assert!("thick".parse::<Density>().is_err());
        assert_eq!(Density::default(), Density::Dense);
    }
}
