//! The query's shape, as the join orders read it: each vertex's core number and the
//! triangles it lies in.

use gsi_graph::Graph;

use super::leaves::query_neighbours;

/// Each query vertex's neighbours other than itself, sorted, once each.
fn distinct_neighbours(query: &Graph) -> Vec<Vec<usize>> {
    (0..query.vertex_count())
        .map(|u| {
            let mut around = query_neighbours(query, u);
            around.retain(|&w| w != u);
            around
        })
        .collect()
}

/// Each query vertex's core number: the largest k such that it lies in the k-core of
/// `query`, what is left once vertices with fewer than k distinct neighbours are removed,
/// again and again (0 for an isolated vertex, 1 on a tree, 2 or more on a cycle).
pub fn core_numbers(query: &Graph) -> Vec<usize> {
    let n = query.vertex_count();
    let neighbours = distinct_neighbours(query);
    let mut degree: Vec<usize> = neighbours.iter().map(Vec::len).collect();
    let mut core = vec![0; n];
    let mut removed = vec![false; n];
    // Peels the vertex of least remaining degree (the first of them), again and again
    // (Batagelj–Zaversnik), kept in order by (degree, vertex).
    let mut left: std::collections::BTreeSet<(usize, usize)> =
        (0..n).map(|u| (degree[u], u)).collect();
    let mut k = 0;
    while let Some((d, u)) = left.pop_first() {
        k = k.max(d);
        core[u] = k;
        removed[u] = true;
        for &w in &neighbours[u] {
            if !removed[w] {
                left.remove(&(degree[w], w));
                degree[w] -= 1;
                left.insert((degree[w], w));
            }
        }
    }
    core
}

/// Work (neighbour pairs compared) up to which [`triangle_counts`] counts a query's triangles.
const TRIANGLE_COUNT_MAX_WORK: usize = 1 << 20;

/// How many of the query's triangles each query vertex lies in (all zero for a query whose
/// count would compare more than [`TRIANGLE_COUNT_MAX_WORK`] neighbour pairs: one of
/// 100,000 vertices with hubs).
pub fn triangle_counts(query: &Graph) -> Vec<usize> {
    let n = query.vertex_count();
    let neighbours = distinct_neighbours(query);
    let mut triangles = vec![0; n];
    let work: usize = neighbours.iter().map(|a| a.len() * a.len()).sum();
    if work > TRIANGLE_COUNT_MAX_WORK {
        return triangles;
    }
    // Each triangle u < w < x once, from its edge u -- w.
    for u in 0..n {
        for &w in neighbours[u].iter().filter(|&&w| w > u) {
            for &x in neighbours[w].iter().filter(|&&x| x > w) {
                if neighbours[u].binary_search(&x).is_ok() {
                    for v in [u, w, x] {
                        triangles[v] += 1;
                    }
                }
            }
        }
    }
    triangles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{cube_less_a_corner, graph};

    #[test]
    fn core_numbers_peel_trees_then_cycles() {
        // A triangle 0-1-2 with a path 2-3-4 hanging off it.
        let edges = [(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 3, 0), (3, 4, 0)];
        let query = graph(false, &[0; 5], &edges);
        assert_eq!(core_numbers(&query), [2, 2, 2, 1, 1]);
        let tree = graph(false, &[0; 4], &[(0, 1, 0), (1, 2, 0), (1, 3, 0)]);
        assert!(core_numbers(&tree).iter().all(|&c| c == 1));
        // Parallel edges with two labels are one neighbour: two vertices make no cycle.
        let pair = graph(false, &[0; 2], &[(0, 1, 0), (0, 1, 1)]);
        assert_eq!(core_numbers(&pair), [1, 1]);
        // A 4-clique 0..3 joined to a triangle 4-5-6 by the edge 3-4, and an isolated 7.
        let mut edges = vec![(3, 4, 0), (4, 5, 0), (5, 6, 0), (6, 4, 0)];
        for a in 0..4 {
            for b in a + 1..4 {
                edges.push((a, b, 0));
            }
        }
        let query = graph(false, &[0; 8], &edges);
        assert_eq!(core_numbers(&query), [3, 3, 3, 3, 2, 2, 2, 0]);
    }

    #[test]
    fn triangles_are_counted_at_each_of_their_vertices() {
        assert_eq!(
            triangle_counts(&cube_less_a_corner()),
            [0, 0, 0, 0, 0, 1, 1, 1]
        );
        // A 4-clique: each vertex in three of its four triangles; a pendant 4 in none.
        // Parallel edges of two labels add none.
        let mut edges = vec![(3, 4, 0), (0, 1, 1)];
        for a in 0..4 {
            for b in a + 1..4 {
                edges.push((a, b, 0));
            }
        }
        assert_eq!(
            triangle_counts(&graph(false, &[0; 5], &edges)),
            [3, 3, 3, 3, 0]
        );
        // Directed edges count as their undirected ones.
        let cycle = graph(true, &[0; 3], &[(0, 1, 0), (1, 2, 0), (2, 0, 0)]);
        assert_eq!(triangle_counts(&cycle), [1, 1, 1]);
    }
}
