//! The leaf suffix of a plan: the last steps, independent of each other, that a count
//! multiplies instead of joining (CFL-Match's postponed Cartesian products).

use std::collections::HashMap;

use gsi_graph::{Graph, VertexId, VertexLabel};

use super::step::JoinStep;

/// Most leaves of one vertex label that a count multiplies: a group of k leaves costs an
/// inclusion–exclusion over the Bell(k) partitions of the group (15 for 4).
pub const MAX_LEAF_GROUP: usize = 4;

/// Most linking edges of the members of one leaf group (the GPU keeps their lists' ranges in
/// shared memory).
pub const MAX_LEAF_LINKS: usize = 16;

/// The last steps of a plan when their vertices have no query edge between them, each linked
/// only to columns before `from`: leaves (query vertices of one edge) and isolated vertices
/// moved to the end (CFL-Match's postponed Cartesian products, Bi et al., SIGMOD 2016), and
/// the steps before them that are independent of them. Given a row of the table before them,
/// their extension sets are fixed. For a count, a row of the table before them contributes
/// the product, over the groups of one vertex label, of the number of ways to give the group's
/// vertices distinct matches; groups of different labels cannot share a data vertex.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeafSuffix {
    /// The first step of the suffix (the plan's width when there is none).
    pub from: usize,
    /// The suffix's steps, grouped by vertex label.
    pub groups: Vec<LeafGroup>,
}

/// Leaves of one vertex label, and how to count their injective matches from the sizes of the
/// intersections of their extension sets: the sum over the set partitions π of the group of
/// μ(π) · Π over the blocks B of π of |∩_{j ∈ B} E_j|, with μ(π) = Π_B (-1)^{|B|-1} (|B|-1)!
/// (inclusion–exclusion on the lattice of set partitions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafGroup {
    /// The group's steps.
    pub steps: Vec<usize>,
    /// One term per set partition.
    pub terms: Vec<LeafTerm>,
}

/// One set partition of a group: its Möbius coefficient and its blocks, each a bitmask over
/// the group's members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafTerm {
    /// μ(π).
    pub coefficient: i64,
    /// The blocks.
    pub blocks: Vec<u32>,
}

impl LeafSuffix {
    /// The suffix of `steps` that starts at `from` (the postponed leaves and isolated
    /// vertices, independent of each other) or before: it takes in the steps before while
    /// their vertex has no query edge to a vertex of the suffix, its label group stays within
    /// [`MAX_LEAF_GROUP`] members and [`MAX_LEAF_LINKS`] linking edges, and one step is left
    /// before it. A suffix of one step is the ordinary last step: nothing to multiply.
    /// Steps whose vertex is `fixed` stay out of it.
    pub(super) fn of(
        query: &Graph,
        steps: &[JoinStep],
        mut from: usize,
        fixed: &[bool],
        by_label: bool,
    ) -> LeafSuffix {
        let n = steps.len();
        let key = |u: usize| leaf_key(query, u, by_label);
        let mut inside = vec![false; n];
        for st in &steps[from..] {
            inside[st.vertex] = true;
        }
        let label_load = |label: u32, inside: &[bool]| -> (usize, usize) {
            steps
                .iter()
                .filter(|st| inside[st.vertex] && key(st.vertex) == label)
                .fold((0, 0), |(members, links), st| {
                    (members + 1, links + st.links().count())
                })
        };
        while from > 1 {
            let st = &steps[from - 1];
            let u = st.vertex as VertexId;
            let adjacent = query
                .directions()
                .iter()
                .any(|&d| query.edges(u, d).0.iter().any(|&w| inside[w as usize]));
            let (members, links) = label_load(key(st.vertex), &inside);
            if adjacent
                || fixed[st.vertex]
                || members + 1 > MAX_LEAF_GROUP
                || links + st.links().count() > MAX_LEAF_LINKS
            {
                break;
            }
            inside[st.vertex] = true;
            from -= 1;
        }
        if from + 1 >= n {
            return LeafSuffix {
                from: n,
                groups: Vec::new(),
            };
        }
        let mut groups: Vec<(u32, Vec<usize>)> = Vec::new();
        for (i, step) in steps.iter().enumerate().skip(from) {
            let label = key(step.vertex);
            match groups.iter_mut().find(|(l, _)| *l == label) {
                Some((_, members)) => members.push(i),
                None => groups.push((label, vec![i])),
            }
        }
        LeafSuffix {
            from,
            groups: groups
                .into_iter()
                .map(|(_, members)| LeafGroup::new(members))
                .collect(),
        }
    }
}

impl LeafGroup {
    pub(super) fn new(steps: Vec<usize>) -> LeafGroup {
        let mut terms = Vec::new();
        set_partitions(steps.len(), &mut Vec::new(), 0, &mut terms);
        LeafGroup { steps, terms }
    }
}

/// Every set partition of members `next..k`, extending the blocks `blocks` of the members
/// before, as terms with their Möbius coefficients.
fn set_partitions(k: usize, blocks: &mut Vec<u32>, next: usize, terms: &mut Vec<LeafTerm>) {
    if next == k {
        let coefficient = blocks
            .iter()
            .map(|b| {
                let size = b.count_ones() as i64;
                let factorial: i64 = (1..size).product();
                if size % 2 == 0 {
                    -factorial
                } else {
                    factorial
                }
            })
            .product();
        terms.push(LeafTerm {
            coefficient,
            blocks: blocks.clone(),
        });
        return;
    }
    for i in 0..blocks.len() {
        blocks[i] |= 1 << next;
        set_partitions(k, blocks, next + 1, terms);
        blocks[i] &= !(1 << next);
    }
    blocks.push(1 << next);
    set_partitions(k, blocks, next + 1, terms);
    blocks.pop();
}

/// The leaf group of query vertex `u`: its label when groups go `by_label`, else one for all.
fn leaf_key(query: &Graph, u: usize, by_label: bool) -> VertexLabel {
    match by_label {
        true => query.label(u as VertexId),
        false => 0,
    }
}

/// The query vertices a plan may postpone: isolated vertices, and leaves whose one neighbour
/// is not postponed itself; at most [`MAX_LEAF_GROUP`] of one group ([`leaf_key`]); one
/// vertex stays.
pub(super) fn postponable(query: &Graph, by_label: bool) -> Vec<bool> {
    let n = query.vertex_count();
    let mut postponed = vec![false; n];
    if n < 2 {
        return postponed;
    }
    let mut per_label: HashMap<u32, usize> = HashMap::new();
    for u in 0..n as u32 {
        let leaf = match query.total_degree(u) {
            0 => true,
            1 => {
                let mut neighbors = query.directions().iter().flat_map(|&d| query.edges(u, d).0);
                let neighbor = *neighbors
                    .next()
                    .expect("a vertex of degree 1 has a neighbour");
                !postponed[neighbor as usize]
            }
            _ => false,
        };
        let group = per_label
            .entry(leaf_key(query, u as usize, by_label))
            .or_default();
        if leaf && *group < MAX_LEAF_GROUP {
            *group += 1;
            postponed[u as usize] = true;
        }
    }
    if postponed.iter().all(|&p| p) {
        postponed[0] = false;
    }
    postponed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_group_terms_count_injective_choices_from_one_set() {
        // k members drawing from one set of s vertices: s (s-1) ... (s-k+1) injective choices,
        // and every intersection of the identical sets has size s.
        for k in 1..=MAX_LEAF_GROUP {
            let group = LeafGroup::new((0..k).collect());
            let bell = [1, 1, 2, 5, 15][k];
            assert_eq!(group.terms.len(), bell, "Bell({k})");
            for s in 0..8i64 {
                let value: i64 = group
                    .terms
                    .iter()
                    .map(|t| t.coefficient * s.pow(t.blocks.len() as u32))
                    .sum();
                let falling: i64 = (0..k as i64).map(|i| s - i).product();
                assert_eq!(value, falling, "k {k}, s {s}");
            }
        }
    }
}
