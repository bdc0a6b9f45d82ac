//! Counting by symmetry (beyond the paper): a query with automorphisms has its matches in
//! classes of equal size — composing a match with an automorphism of the query gives another
//! match — so the join may find one match per class and multiply.
//!
//! The classes are cut by order constraints between query vertices (Grochow and Kellis,
//! RECOMB 2007): along a stabiliser chain of the automorphism group G, the vertex v_i fixed
//! at stage i must get a smaller data vertex than every other vertex of its orbit under the
//! automorphisms that fix v_1..v_{i-1}. The matches that keep every constraint are
//! |G_k| / |G| of all, where G_k fixes v_1..v_k, so the count is theirs times the product of
//! the orbits' sizes; and every match is one of them composed with exactly one element of
//! a right transversal of G_k in G, which is how the matches themselves are listed.
//!
//! Only vertices of two or more edges are fixed: leaves and isolated vertices are left to
//! the leaf products ([`crate::plan::LeafSuffix`]), which count their choices without
//! enumerating them. The chain may stop at any stage and stay exact; it stops where an
//! automorphism search runs out of its budget, and, when the matches are listed, before the
//! transversal grows past [`MAX_IMAGES`].

use gsi_graph::{Graph, VertexId};

/// Search nodes all automorphism searches of one query may visit together; past it the chain
/// stops at the last complete stage.
const SEARCH_BUDGET: usize = 1 << 20;

/// Most matches one found match stands for when the matches are listed.
pub const MAX_IMAGES: u64 = 1 << 12;

/// The symmetry a join breaks: order constraints between query vertices, and the
/// automorphisms that give back the matches they cut away.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symmetry {
    /// Each (a, b): a match maps query vertex a to a smaller data vertex than b.
    pub constraints: Vec<(usize, usize)>,
    /// Per stage of the chain, its fixed vertex and, for each vertex w of that vertex's orbit,
    /// the inverse of an automorphism (fixing the vertices of the stages before) that maps
    /// the fixed vertex to w; the identity first.
    stages: Vec<(usize, Vec<Vec<u32>>)>,
    /// |Aut(Q)| as far as the chain went: the product of its orbits' sizes.
    classes: u64,
}

impl Symmetry {
    /// No symmetry broken: every match is found.
    pub fn none() -> Symmetry {
        Symmetry {
            classes: 1,
            ..Symmetry::default()
        }
    }

    /// The constraints of `query`'s automorphisms (vertex labels, edge labels and directions
    /// kept), with the chain cut before the transversal exceeds `max_images`.
    pub fn of(query: &Graph, max_images: u64) -> Symmetry {
        let n = query.vertex_count();
        let first: Vec<usize> = (0..n).collect();
        Symmetry::of_keeping(query, max_images, &vec![false; n], &first)
    }

    /// As [`Symmetry::of`], with the vertices `kept` never fixed nor constrained (equivalent
    /// vertices, whose interchanges a count makes by multiplying), and in each orbit the vertex
    /// of the least `rank` fixed (every other vertex of the orbit then kept above it).
    pub fn of_keeping(query: &Graph, max_images: u64, kept: &[bool], rank: &[usize]) -> Symmetry {
        let n = query.vertex_count();
        let mut search = Search::new(query, kept);
        let mut symmetry = Symmetry::none();
        let mut fixed: Vec<usize> = Vec::new();
        'chain: loop {
            search.colour(&fixed);
            // The orbits of the automorphisms that fix `fixed`, among vertices of degree >= 2.
            let mut class: Vec<usize> = (0..n).collect();
            for v in 0..n {
                if !search.breakable(v) || fixed.contains(&v) || find(&mut class, v) != v {
                    continue;
                }
                for w in v + 1..n {
                    // A vertex already in v's orbit, or in an orbit of a vertex before v.
                    if !search.breakable(w)
                        || !search.alike(v, w)
                        || fixed.contains(&w)
                        || find(&mut class, w) <= v
                    {
                        continue;
                    }
                    match search.automorphism(&fixed, v, w) {
                        Found::Yes(phi) => {
                            // Every vertex shares its image's orbit.
                            for (x, &y) in phi.iter().enumerate() {
                                let (a, b) = (find(&mut class, x), find(&mut class, y as usize));
                                class[a.max(b)] = a.min(b);
                            }
                        }
                        Found::No => {}
                        Found::OutOfBudget => break 'chain,
                    }
                }
            }
            // Fix the vertex of the largest orbit of vertices that may be fixed (the
            // automorphisms found move others too: leaves, kept vertices).
            let mut size = vec![0u64; n];
            for v in 0..n {
                size[find(&mut class, v)] += 1;
            }
            let Some(root) = (0..n)
                .filter(|&v| size[v] > 1 && search.breakable(v))
                .max_by_key(|&v| (size[v], n - v))
            else {
                break;
            };
            let mut orbit: Vec<usize> = (0..n).filter(|&w| find(&mut class, w) == root).collect();
            // Its vertex of the least rank first: the one fixed.
            orbit.sort_by_key(|&w| (rank[w], w));
            let v = orbit[0];
            let Some(classes) = symmetry.classes.checked_mul(size[root]) else {
                break;
            };
            if classes > max_images {
                break;
            }
            let mut inverses = Vec::with_capacity(orbit.len());
            inverses.push((0..n as u32).collect());
            for &w in &orbit[1..] {
                let Found::Yes(phi) = search.automorphism(&fixed, v, w) else {
                    break 'chain;
                };
                let mut inverse = vec![0u32; n];
                for (x, &y) in phi.iter().enumerate() {
                    inverse[y as usize] = x as u32;
                }
                inverses.push(inverse);
            }
            symmetry
                .constraints
                .extend(orbit[1..].iter().map(|&w| (v, w)));
            symmetry.stages.push((v, inverses));
            symmetry.classes = classes;
            fixed.push(v);
        }
        symmetry
    }

    /// Matches per class: each match the join finds stands for this many.
    pub fn classes(&self) -> u64 {
        self.classes
    }

    /// Whether no constraint is imposed.
    pub fn is_trivial(&self) -> bool {
        self.constraints.is_empty()
    }

    /// The vertices fixed along the chain, and the size of each one's orbit.
    pub fn orbits(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.stages.iter().map(|(v, inverses)| (*v, inverses.len()))
    }

    /// Whether query vertex `u` is in a constraint.
    pub fn constrains(&self, u: usize) -> bool {
        self.constraints.iter().any(|&(a, b)| a == u || b == u)
    }

    /// Appends to `out` every match of the class of `found` (a match in query-vertex order
    /// that keeps the constraints): `found` ∘ ρ for each ρ of the transversal, ρ being
    /// u_k⁻¹ ∘ … ∘ u_1⁻¹ over one inverse u_i⁻¹ per stage.
    pub fn images(&self, found: &[VertexId], out: &mut Vec<VertexId>) {
        let n = found.len();
        let mut digit = vec![0usize; self.stages.len()];
        loop {
            let base = out.len();
            out.extend((0..n).map(|u| {
                let mut x = u;
                for (stage, &d) in self.stages.iter().zip(&digit) {
                    x = stage.1[d][x] as usize;
                }
                found[x]
            }));
            debug_assert_eq!(out.len(), base + n);
            // The next transversal element, the first stage's digit turning fastest.
            let mut i = 0;
            loop {
                if i == digit.len() {
                    return;
                }
                digit[i] += 1;
                if digit[i] < self.stages[i].1.len() {
                    break;
                }
                digit[i] = 0;
                i += 1;
            }
        }
    }
}

/// The representative of `x`'s class (union–find, paths halved).
fn find(class: &mut [usize], mut x: usize) -> usize {
    while class[x] != x {
        class[x] = class[class[x]];
        x = class[x];
    }
    x
}

/// SplitMix64's finaliser.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What one automorphism search found.
enum Found {
    /// An automorphism: vertex x goes to `phi[x]`.
    Yes(Vec<u32>),
    No,
    OutOfBudget,
}

/// Backtracking for automorphisms of one query with some vertices' images prescribed.
struct Search<'q> {
    query: &'q Graph,
    /// Vertices never fixed ([`Symmetry::of_keeping`]).
    kept: &'q [bool],
    /// Vertices in an order where each, after the first of its component, has a neighbour
    /// before it (breadth-first), so candidates come from a neighbour's list.
    order: Vec<usize>,
    /// Search nodes left.
    budget: usize,
    /// Vertex colours that every automorphism of the current stage keeps.
    colours: Vec<u64>,
}

impl<'q> Search<'q> {
    fn new(query: &'q Graph, kept: &'q [bool]) -> Search<'q> {
        let n = query.vertex_count();
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        for root in 0..n {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            let from = order.len();
            order.push(root);
            let mut i = from;
            while i < order.len() {
                let u = order[i] as VertexId;
                for &d in query.directions() {
                    for &w in query.edges(u, d).0 {
                        if !seen[w as usize] {
                            seen[w as usize] = true;
                            order.push(w as usize);
                        }
                    }
                }
                i += 1;
            }
        }
        Search {
            query,
            kept,
            order,
            budget: SEARCH_BUDGET,
            colours: vec![0; n],
        }
    }

    /// Colours the vertices so that an automorphism fixing `fixed` keeps every colour:
    /// label and degrees, each fixed vertex its own colour, then refined by the colours of the
    /// neighbours (with edge label and direction) until no class splits (colour refinement).
    /// Colours are hashes: two classes that collide only make the search try more.
    fn colour(&mut self, fixed: &[usize]) {
        let q = self.query;
        let n = q.vertex_count();
        let classes = |colours: &[u64]| {
            let mut sorted = colours.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            sorted.len()
        };
        let mut colours: Vec<u64> = (0..n)
            .map(|x| {
                let v = x as VertexId;
                let pinned = fixed
                    .iter()
                    .position(|&f| f == x)
                    .map_or(0, |i| i as u64 + 1);
                // Kept vertices go only to kept ones: an automorphism that took one to a vertex
                // the join enumerates would mix the counted choices into the enumerated ones.
                let kept = u64::from(self.kept[x]) << 32;
                let labels = q
                    .labels_of(v)
                    .iter()
                    .fold(mix(pinned ^ kept), |c, &l| mix(c ^ u64::from(l)));
                q.directions()
                    .iter()
                    .fold(labels, |c, &d| mix(c ^ q.degree(v, d) as u64))
            })
            .collect();
        let mut count = classes(&colours);
        loop {
            let refined: Vec<u64> = (0..n)
                .map(|x| {
                    // The neighbours' contributions summed: their order does not matter.
                    let around = q.directions().iter().fold(0u64, |sum, &d| {
                        let (neighbors, labels) = q.edges(x as VertexId, d);
                        neighbors.iter().zip(labels).fold(sum, |sum, (&z, &l)| {
                            let edge = mix(d as u64 ^ mix(u64::from(l)));
                            sum.wrapping_add(mix(edge ^ colours[z as usize]))
                        })
                    });
                    mix(colours[x] ^ mix(around))
                })
                .collect();
            let now = classes(&refined);
            colours = refined;
            if now == count {
                break;
            }
            count = now;
        }
        self.colours = colours;
    }

    /// Whether vertex `u` may be fixed: it has two or more edges and is not kept.
    fn breakable(&self, u: usize) -> bool {
        self.query.total_degree(u as VertexId) >= 2 && !self.kept[u]
    }

    /// Whether `x` may go to `y`: same colour, both kept or neither, and the same labels
    /// (colours may collide).
    fn alike(&self, x: usize, y: usize) -> bool {
        self.colours[x] == self.colours[y]
            && self.kept[x] == self.kept[y]
            && self.query.labels_of(x as VertexId) == self.query.labels_of(y as VertexId)
    }

    /// Whether every edge between `x` and the vertices already mapped (`image[z]` set) or `x`
    /// itself is an edge between `y` and their images, with its label and direction.
    fn keeps_edges(&self, image: &[Option<u32>], x: usize, y: u32) -> bool {
        let q = self.query;
        q.directions().iter().all(|&d| {
            let (neighbors, labels) = q.edges(x as VertexId, d);
            neighbors.iter().zip(labels).all(|(&z, &l)| {
                let iz = if z as usize == x {
                    Some(y)
                } else {
                    image[z as usize]
                };
                iz.is_none_or(|iz| q.neighbors(y, l, d).binary_search(&iz).is_ok())
            })
        })
    }

    /// An automorphism that fixes every vertex of `fixed` and maps `v` to `w`.
    fn automorphism(&mut self, fixed: &[usize], v: usize, w: usize) -> Found {
        let n = self.query.vertex_count();
        let mut image: Vec<Option<u32>> = vec![None; n];
        let mut used = vec![false; n];
        let pinned = fixed.iter().map(|&f| (f, f)).chain(std::iter::once((v, w)));
        for (x, y) in pinned {
            if !self.alike(x, y) || used[y] || !self.keeps_edges(&image, x, y as u32) {
                return Found::No;
            }
            image[x] = Some(y as u32);
            used[y] = true;
        }
        let order: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|&x| image[x].is_none())
            .collect();
        match self.extend(&order, &mut image, &mut used) {
            Some(true) => Found::Yes(
                image
                    .into_iter()
                    .map(|y| y.expect("every vertex mapped"))
                    .collect(),
            ),
            Some(false) => Found::No,
            None => Found::OutOfBudget,
        }
    }

    /// Maps `order` in turn; `None` when the budget ran out.
    fn extend(
        &mut self,
        order: &[usize],
        image: &mut [Option<u32>],
        used: &mut [bool],
    ) -> Option<bool> {
        let Some((&x, rest)) = order.split_first() else {
            return Some(true);
        };
        let q = self.query;
        // Candidates: the neighbours of a mapped neighbour's image, else every vertex.
        let anchor = q.directions().iter().find_map(|&d| {
            let (neighbors, labels) = q.edges(x as VertexId, d);
            neighbors
                .iter()
                .zip(labels)
                .find_map(|(&z, &l)| image[z as usize].map(|iz| (iz, l, d.reverse())))
        });
        let all: Vec<u32>;
        let candidates: &[u32] = match anchor {
            Some((iz, l, d)) => q.neighbors(iz, l, d),
            None => {
                all = (0..q.vertex_count() as u32).collect();
                &all
            }
        };
        for &y in candidates {
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            if used[y as usize] || !self.alike(x, y as usize) || !self.keeps_edges(image, x, y) {
                continue;
            }
            image[x] = Some(y);
            used[y as usize] = true;
            let found = self.extend(rest, image, used);
            if found != Some(false) {
                return found;
            }
            image[x] = None;
            used[y as usize] = false;
        }
        Some(false)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::testing::graph;

    /// Every permutation of 0..n that keeps `query`'s labels and edges, by brute force.
    fn automorphisms(query: &Graph) -> Vec<Vec<u32>> {
        fn permutations(n: usize, prefix: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
            if prefix.len() == n {
                out.push(prefix.clone());
                return;
            }
            for y in 0..n as u32 {
                if !prefix.contains(&y) {
                    prefix.push(y);
                    permutations(n, prefix, out);
                    prefix.pop();
                }
            }
        }
        let mut all = Vec::new();
        permutations(query.vertex_count(), &mut Vec::new(), &mut all);
        let edges: HashSet<_> = query.edge_iter().collect();
        all.into_iter()
            .filter(|p| {
                (0..p.len()).all(|x| query.label(x as u32) == query.label(p[x]))
                    && query.edge_iter().all(|(s, t, l)| {
                        let (a, b) = (p[s as usize], p[t as usize]);
                        edges.contains(&(a, b, l))
                            || (!query.is_directed() && edges.contains(&(b, a, l)))
                    })
            })
            .collect()
    }

    #[test]
    fn a_cycle_of_four_is_cut_into_its_eight_rotations_and_reflections() {
        let square = graph(
            false,
            &[0; 4],
            &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 0, 0)],
        );
        let symmetry = Symmetry::of(&square, u64::MAX);
        assert_eq!(symmetry.classes(), 8);
        assert_eq!(automorphisms(&square).len(), 8);
    }

    /// A 4-cycle 0-3-2-4 with 1 on 0 and 2 and 5 on 3 and 4: 8 automorphisms, one of which
    /// takes 0 to 3. With 0 and 2 kept (counted as equivalent vertices), only those that
    /// keep {0, 2} may be broken: 3 and 4 swapped (before, 0 was fixed against 3, and a count
    /// gave 4 of its 8 embeddings on the query itself).
    #[test]
    fn kept_vertices_go_only_to_kept_ones() {
        let q = graph(
            false,
            &[0; 6],
            &[
                (0, 1, 0),
                (1, 2, 0),
                (0, 3, 0),
                (0, 4, 0),
                (2, 3, 0),
                (2, 4, 0),
                (3, 5, 0),
                (4, 5, 0),
            ],
        );
        assert_eq!(Symmetry::of(&q, u64::MAX).classes(), 8);
        let kept = Symmetry::of_keeping(
            &q,
            u64::MAX,
            &[true, false, true, false, false, false],
            &[0, 1, 2, 3, 4, 5],
        );
        assert_eq!(kept.classes(), 2);
        assert_eq!(kept.constraints, vec![(3, 4)]);
    }

    /// Two stars of two leaves, their centres 4 and 5 joined, the leaves numbered first: the
    /// centres' swap moves the leaves too, but only a vertex that may be fixed (two edges or
    /// more) is, so the bound falls on the centres, not on leaves a count multiplies.
    #[test]
    fn only_vertices_of_two_edges_or_more_are_fixed() {
        let q = graph(
            false,
            &[0; 6],
            &[(0, 4, 0), (1, 4, 0), (2, 5, 0), (3, 5, 0), (4, 5, 0)],
        );
        let symmetry = Symmetry::of(&q, u64::MAX);
        assert_eq!(symmetry.constraints, vec![(4, 5)]);
        assert_eq!(symmetry.classes(), 2);
    }

    #[test]
    fn labels_and_directions_break_symmetry() {
        let labelled = graph(
            false,
            &[0, 1, 0, 1],
            &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 0, 0)],
        );
        assert_eq!(Symmetry::of(&labelled, u64::MAX).classes(), 4);
        let directed = graph(true, &[0; 4], &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 0, 0)]);
        assert_eq!(Symmetry::of(&directed, u64::MAX).classes(), 4);
        let edge_labels = graph(
            false,
            &[0; 4],
            &[(0, 1, 0), (1, 2, 1), (2, 3, 0), (3, 0, 1)],
        );
        assert_eq!(Symmetry::of(&edge_labels, u64::MAX).classes(), 4);
    }

    #[test]
    fn leaves_are_left_to_the_leaf_products() {
        // A star of three same-label leaves: all its symmetry is in the leaves.
        let star = graph(false, &[0, 1, 1, 1], &[(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
        let symmetry = Symmetry::of(&star, u64::MAX);
        assert!(symmetry.is_trivial());
        assert_eq!(symmetry.classes(), 1);
    }

    #[test]
    fn the_transversal_gives_back_every_image_once() {
        // K4 with one label: 24 automorphisms, all on vertices of degree 3.
        let k4 = graph(
            false,
            &[0; 4],
            &[
                (0, 1, 0),
                (0, 2, 0),
                (0, 3, 0),
                (1, 2, 0),
                (1, 3, 0),
                (2, 3, 0),
            ],
        );
        let symmetry = Symmetry::of(&k4, u64::MAX);
        assert_eq!(symmetry.classes(), 24);
        let found = [10, 20, 30, 40];
        let mut out = Vec::new();
        symmetry.images(&found, &mut out);
        let images: HashSet<&[u32]> = out.chunks(4).collect();
        assert_eq!(images.len(), 24);
        // A cap on the images stops the chain early.
        let capped = Symmetry::of(&k4, 12);
        assert_eq!(capped.classes(), 12);
    }

    #[test]
    fn the_chain_stops_before_its_classes_pass_64_bits() {
        // |Aut(K_22)| = 22! > 2^64: the classes are the product of the stages kept, exactly.
        let n = 22u32;
        let edges: Vec<(u32, u32, u32)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b, 0)))
            .collect();
        let clique = graph(false, &vec![0; n as usize], &edges);
        let symmetry = Symmetry::of(&clique, u64::MAX);
        let product = symmetry
            .stages
            .iter()
            .try_fold(1u64, |p, (_, images)| p.checked_mul(images.len() as u64));
        assert_eq!(Some(symmetry.classes()), product);
        assert!(
            symmetry.stages.len() >= 15,
            "{} stages",
            symmetry.stages.len()
        );
    }

    #[test]
    fn orbit_products_equal_the_group_order_on_small_graphs() {
        let cases = [
            graph(
                false,
                &[0; 5],
                &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 0)],
            ),
            graph(
                false,
                &[0; 5],
                &[
                    (0, 1, 0),
                    (1, 2, 0),
                    (2, 0, 0),
                    (2, 3, 0),
                    (3, 4, 0),
                    (4, 2, 0),
                ],
            ),
            graph(
                true,
                &[0; 5],
                &[
                    (0, 1, 0),
                    (1, 2, 0),
                    (2, 0, 0),
                    (0, 3, 0),
                    (3, 4, 0),
                    (4, 0, 0),
                ],
            ),
            graph(
                false,
                &[0; 6],
                &[
                    (0, 1, 0),
                    (1, 2, 0),
                    (2, 3, 0),
                    (3, 4, 0),
                    (4, 5, 0),
                    (5, 0, 0),
                ],
            ),
        ];
        for query in &cases {
            let symmetry = Symmetry::of(query, u64::MAX);
            // Leaves may keep part of the group; vertices of degree >= 2 here have none left.
            let group = automorphisms(query).len() as u64;
            assert_eq!(symmetry.classes(), group, "{query:?}");
        }
    }
}
