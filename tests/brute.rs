//! A brute-force matcher, small enough to be obviously right: query vertices are assigned in
//! index order, each to every data vertex in turn (or, for a query vertex with an edge to an
//! assigned one, to every data vertex at the other end of a data edge of that label and
//! direction: the only ones that can keep it), and a partial assignment survives only while
//! labels agree (each label of the query vertex is one of its data vertex's), (under
//! isomorphism) no data vertex is used twice, and every query edge between assigned vertices
//! exists in the data with the same label and direction.
//!
//! It reads nothing of gsi but the graph's labels and edge list.

use std::collections::HashSet;

use gsi_graph::{Graph, VertexId};

/// A graph as the brute force sees it: labels and a set of edges.
struct Plain {
    /// Every vertex's labels.
    labels: Vec<Vec<u32>>,
    /// Every edge as `(source, target, label)`; both orientations when undirected.
    edges: HashSet<(VertexId, VertexId, u32)>,
    /// Query edges by their later endpoint: `(earlier, label, later is source)`.
    back: Vec<Vec<(usize, u32, bool)>>,
    /// Every vertex's edges as `(label, is source, other end)`, sorted; both orientations
    /// when undirected.
    ends: Vec<Vec<(u32, bool, VertexId)>>,
}

/// Whether a data vertex of labels `own` carries every label of `wanted`.
fn carries(own: &[u32], wanted: &[u32]) -> bool {
    wanted.iter().all(|l| own.contains(l))
}

impl Plain {
    fn new(graph: &Graph) -> Plain {
        let n = graph.vertex_count();
        let labels = (0..n as VertexId)
            .map(|v| graph.labels_of(v).to_vec())
            .collect();
        let mut edges = HashSet::new();
        let mut back = vec![Vec::new(); n];
        let mut ends = vec![Vec::new(); n];
        for (s, t, l) in graph.edge_iter() {
            edges.insert((s, t, l));
            ends[s as usize].push((l, true, t));
            ends[t as usize].push((l, false, s));
            if !graph.is_directed() {
                edges.insert((t, s, l));
                ends[s as usize].push((l, false, t));
                ends[t as usize].push((l, true, s));
            }
            let (s, t) = (s as usize, t as usize);
            if s < t {
                back[t].push((s, l, false));
            } else {
                back[s].push((t, l, true));
            }
        }
        for list in &mut ends {
            list.sort_unstable();
            list.dedup();
        }
        Plain {
            labels,
            edges,
            back,
            ends,
        }
    }

    /// The data vertices `v` that may take query vertex `u` given `assignment`, ascending:
    /// every vertex, or where `u` has edges `(w, label, u is source)` to assigned vertices,
    /// the ends of the edges of that label, `v` on `u`'s side, of the `assignment[w]` with
    /// the fewest edges.
    fn choices(&self, back: &[(usize, u32, bool)], assignment: &[VertexId]) -> Vec<VertexId> {
        let fewest = back
            .iter()
            .min_by_key(|&&(w, _, _)| self.ends[assignment[w] as usize].len());
        let Some(&(w, label, u_is_source)) = fewest else {
            return (0..self.labels.len() as VertexId).collect();
        };
        let mut found: Vec<VertexId> = self.ends[assignment[w] as usize]
            .iter()
            .filter(|&&(l, w_is_source, _)| l == label && w_is_source != u_is_source)
            .map(|&(_, _, v)| v)
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// Calls `found` with every match of `query` in `data`, in lexicographic order.
pub fn for_each_match(
    query: &Graph,
    data: &Graph,
    homomorphism: bool,
    found: &mut dyn FnMut(&[VertexId]),
) {
    assert_eq!(query.is_directed(), data.is_directed());
    let q = Plain::new(query);
    let d = Plain::new(data);
    let mut assignment = Vec::with_capacity(q.labels.len());
    extend(&q, &d, homomorphism, &mut assignment, found);
}

fn extend(
    q: &Plain,
    d: &Plain,
    homomorphism: bool,
    assignment: &mut Vec<VertexId>,
    found: &mut dyn FnMut(&[VertexId]),
) {
    let u = assignment.len();
    if u == q.labels.len() {
        found(assignment);
        return;
    }
    for v in d.choices(&q.back[u], assignment) {
        if !carries(&d.labels[v as usize], &q.labels[u]) {
            continue;
        }
        if !homomorphism && assignment.contains(&v) {
            continue;
        }
        let edges_kept = q.back[u].iter().all(|&(w, label, u_is_source)| {
            let edge = if u_is_source {
                (v, assignment[w], label)
            } else {
                (assignment[w], v, label)
            };
            d.edges.contains(&edge)
        });
        if edges_kept {
            assignment.push(v);
            extend(q, d, homomorphism, assignment, found);
            assignment.pop();
        }
    }
}

/// The number of matches.
pub fn count(query: &Graph, data: &Graph, homomorphism: bool) -> u128 {
    let mut n = 0u128;
    for_each_match(query, data, homomorphism, &mut |_| n += 1);
    n
}

/// Every match, sorted.
pub fn matches(query: &Graph, data: &Graph, homomorphism: bool) -> Vec<Vec<VertexId>> {
    let mut all = Vec::new();
    for_each_match(query, data, homomorphism, &mut |m| all.push(m.to_vec()));
    all
}

/// Whether the injective `embedding` adds no edge: every data edge between two of its vertices
/// is a query edge between theirs (with its label and direction).
fn adds_no_edge(q: &Plain, d: &Plain, embedding: &[VertexId]) -> bool {
    let of: std::collections::HashMap<VertexId, VertexId> = embedding
        .iter()
        .enumerate()
        .map(|(u, &v)| (v, u as VertexId))
        .collect();
    d.edges
        .iter()
        .all(|&(s, t, l)| match (of.get(&s), of.get(&t)) {
            (Some(&a), Some(&b)) => q.edges.contains(&(a, b, l)),
            _ => true,
        })
}

/// Every induced match, sorted: the injective matches that add no edge.
pub fn induced_matches(query: &Graph, data: &Graph) -> Vec<Vec<VertexId>> {
    let (q, d) = (Plain::new(query), Plain::new(data));
    let mut all = matches(query, data, false);
    all.retain(|m| adds_no_edge(&q, &d, m));
    all
}

/// Whether one embedding is an induced match, checked directly.
pub fn is_induced_match(query: &Graph, data: &Graph, embedding: &[VertexId]) -> bool {
    is_match(query, data, embedding, false)
        && adds_no_edge(&Plain::new(query), &Plain::new(data), embedding)
}

/// Checks embeddings of one query in one data graph directly against the definition.
pub struct Checker {
    q: Plain,
    d: Plain,
    homomorphism: bool,
}

impl Checker {
    pub fn new(query: &Graph, data: &Graph, homomorphism: bool) -> Checker {
        assert_eq!(query.is_directed(), data.is_directed());
        Checker {
            q: Plain::new(query),
            d: Plain::new(data),
            homomorphism,
        }
    }

    /// Whether `embedding` (data vertex per query vertex) is a match.
    pub fn is_match(&self, embedding: &[VertexId]) -> bool {
        let (q, d) = (&self.q, &self.d);
        if embedding.len() != q.labels.len()
            || embedding.iter().any(|&v| v as usize >= d.labels.len())
        {
            return false;
        }
        let distinct = embedding.iter().collect::<HashSet<_>>().len() == embedding.len();
        let labels =
            (0..q.labels.len()).all(|u| carries(&d.labels[embedding[u] as usize], &q.labels[u]));
        let edges = q.edges.iter().all(|&(s, t, l)| {
            d.edges
                .contains(&(embedding[s as usize], embedding[t as usize], l))
        });
        (self.homomorphism || distinct) && labels && edges
    }
}

/// Whether one embedding is a match, checked directly.
pub fn is_match(query: &Graph, data: &Graph, embedding: &[VertexId], homomorphism: bool) -> bool {
    Checker::new(query, data, homomorphism).is_match(embedding)
}

/// The edge isomorphisms of `query` in `data` (undirected), counted from the definition.
pub fn edge_isomorphism_count(query: &Graph, data: &Graph) -> u128 {
    let mut count = 0;
    for_each_edge_isomorphism(query, data, &mut |_| count += 1);
    count
}

/// A data edge as its endpoints, lower first.
pub type Ends = (VertexId, VertexId);

/// The edge isomorphisms of `query` in `data`, each as the data edges of the query's edges
/// ordered by lower endpoint, then higher, then label (`--output`'s order).
pub fn edge_isomorphisms(query: &Graph, data: &Graph) -> Vec<Vec<Ends>> {
    let mut found = Vec::new();
    for_each_edge_isomorphism(query, data, &mut |image| found.push(image.to_vec()));
    found
}

/// Calls `each` with every edge isomorphism of `query` in `data` (undirected), found from the
/// definition: injective maps of the query's edges to the data's that keep each edge's label
/// and its endpoints' labels, and under which two query edges share as many endpoints as their
/// images, of the same labels (none, when they share none). Query edges in the order of
/// [`edge_isomorphisms`].
fn for_each_edge_isomorphism(query: &Graph, data: &Graph, each: &mut dyn FnMut(&[Ends])) {
    let edges = |g: &Graph| -> Vec<(VertexId, VertexId, u32)> {
        let mut edges: Vec<_> = g
            .edge_iter()
            .map(|(s, t, l)| (s.min(t), s.max(t), l))
            .collect();
        edges.sort_unstable();
        edges
    };
    let (q, d) = (edges(query), edges(data));
    let ends = |g: &Graph, &(s, t, _): &(VertexId, VertexId, u32)| {
        let (a, b) = (g.label(s), g.label(t));
        (a.min(b), a.max(b))
    };
    // The labels of the endpoints two edges share, sorted (two for parallel edges).
    let shared = |g: &Graph, e: &(VertexId, VertexId, u32), f: &(VertexId, VertexId, u32)| {
        let mut labels: Vec<u32> = [e.0, e.1]
            .into_iter()
            .filter(|&v| v == f.0 || v == f.1)
            .map(|v| g.label(v))
            .collect();
        labels.sort_unstable();
        labels
    };
    let fits = |i: usize, j: usize, image: &[usize]| {
        q[i].2 == d[j].2
            && ends(query, &q[i]) == ends(data, &d[j])
            && image
                .iter()
                .enumerate()
                .all(|(k, &m)| shared(query, &q[i], &q[k]) == shared(data, &d[j], &d[m]))
    };
    fn assign(
        image: &mut Vec<usize>,
        fits: &dyn Fn(usize, usize, &[usize]) -> bool,
        query_edges: usize,
        data_edges: usize,
        found: &mut dyn FnMut(&[usize]),
    ) {
        let i = image.len();
        if i == query_edges {
            return found(image);
        }
        for j in 0..data_edges {
            if !image.contains(&j) && fits(i, j, image) {
                image.push(j);
                assign(image, fits, query_edges, data_edges, found);
                image.pop();
            }
        }
    }
    let mut found = |image: &[usize]| {
        let pairs: Vec<_> = image.iter().map(|&j| (d[j].0, d[j].1)).collect();
        each(&pairs);
    };
    assign(&mut Vec::new(), &fits, q.len(), d.len(), &mut found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::{clique, path, Spec};

    #[test]
    fn paths_in_a_clique() {
        // Ordered choices of 3 distinct vertices out of 5.
        let data = clique(false, 5, 0).graph();
        assert_eq!(count(&path(false, 3, 0).graph(), &data, false), 5 * 4 * 3);
        // Homomorphism: consecutive vertices differ, the ends may coincide.
        assert_eq!(count(&path(false, 3, 0).graph(), &data, true), 5 * 4 * 4);
    }

    #[test]
    fn labels_and_directions_count() {
        let data = Spec::new(true, vec![0, 1, 1])
            .edge(0, 1, 0)
            .edge(2, 0, 0)
            .edge(0, 2, 1)
            .graph();
        let query = Spec::new(true, vec![0, 1]).edge(0, 1, 0).graph();
        assert_eq!(matches(&query, &data, false), vec![vec![0, 1]]);
        let reversed = Spec::new(true, vec![1, 0]).edge(0, 1, 0).graph();
        assert_eq!(matches(&reversed, &data, false), vec![vec![2, 0]]);
        assert!(is_match(&reversed, &data, &[2, 0], false));
        assert!(!is_match(&reversed, &data, &[1, 0], false));
    }

    #[test]
    fn a_disconnected_query_counts_every_combination() {
        let data = Spec::new(false, vec![0, 0, 0]).graph();
        let query = Spec::new(false, vec![0, 0]).graph();
        assert_eq!(count(&query, &data, false), 6);
        assert_eq!(count(&query, &data, true), 9);
    }
}
