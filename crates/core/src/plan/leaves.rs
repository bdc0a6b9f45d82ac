//! The leaf suffix of a plan: the last steps, independent of each other, that a count
//! multiplies instead of joining (CFL-Match's postponed Cartesian products).

use std::collections::HashMap;

use gsi_graph::{Direction, Graph, VertexId, VertexLabel};

use super::step::JoinStep;

/// Most leaves of one vertex label that a count multiplies: a group of k leaves costs an
/// inclusion–exclusion over the Bell(k) partitions of the group (15 for 4).
pub const MAX_LEAF_GROUP: usize = 4;

/// At most this many classes of equivalent vertices are postponed: a query of 64 vertices
/// has at most 32 classes of two or more, and each is weighed against the whole query.
const MAX_EQUIVALENT_CLASSES: usize = 64;

/// What a count's plan joins last and multiplies rather than enumerates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Postpone {
    /// Nothing: every step is enumerated (a listing, or a count that asks so).
    #[default]
    Nothing,
    /// Leaves, isolated vertices and independent last steps, in groups of one label of at
    /// most [`MAX_LEAF_GROUP`] members.
    Leaves,
    /// Those, and classes of equivalent query vertices ([`equivalence_classes`]) of any size,
    /// each a group counted from one extension set (the CPU join's); a class that alone joins
    /// parts of the query keeps one member in the core ([`postponable`]).
    Equivalents,
}

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
    /// Instead of groups, the suffix's three steps counted by their pairs ([`PairCount`]).
    pub pairs: Option<PairCount>,
}

/// The last three steps of a plan counted by their pairs: step `from` is x, `from + 1` y and
/// `from + 2` (the last) z (found and checked in `plan/pairs.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairCount {
    /// Whether each unordered pair {x, y} stands for both of its orders (no order bound
    /// between x and y): the count doubles.
    pub ordered: bool,
}

/// Leaves of one vertex label, and how to count their injective matches from the sizes of the
/// intersections of their extension sets: the sum over the set partitions π of the group of
/// μ(π) · Π over the blocks B of π of |∩_{j ∈ B} E_j|, with μ(π) = Π_B (-1)^{|B|-1} (|B|-1)!
/// (inclusion–exclusion on the lattice of set partitions). When the members are equivalent
/// they share one extension set E, and the count is |E| (|E| − 1) ... (|E| − k + 1), or |E|^k
/// under homomorphism.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafGroup {
    /// The group's steps.
    pub steps: Vec<usize>,
    /// One term per set partition (none for an equivalent group of more than
    /// [`MAX_LEAF_GROUP`] members).
    pub terms: Vec<LeafTerm>,
    /// Whether the members are equivalent query vertices ([`equivalence_classes`]).
    pub equivalent: bool,
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
    /// Steps whose vertex is `fixed` stay out of it. Under [`Postpone::Equivalents`] a label
    /// group whose members are all of one class of equivalent vertices has no cap.
    pub(super) fn of(
        query: &Graph,
        steps: &[JoinStep],
        mut from: usize,
        fixed: &[bool],
        by_label: bool,
        postpone: Postpone,
    ) -> LeafSuffix {
        let n = steps.len();
        let key = |u: usize| leaf_key(query, u, by_label);
        let classes = (postpone == Postpone::Equivalents).then(|| equivalence_classes(query));
        // Whether the members `members` of one group are equivalent vertices, two or more.
        let one_class = |members: &[usize]| {
            classes.as_ref().is_some_and(|c| {
                members.len() > 1
                    && members
                        .iter()
                        .all(|&i| c[steps[i].vertex] == c[steps[members[0]].vertex])
            })
        };
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
            let group: Vec<usize> = (from - 1..n)
                .filter(|&i| {
                    i == from - 1
                        || (inside[steps[i].vertex] && key(steps[i].vertex) == key(st.vertex))
                })
                .collect();
            let capped =
                members + 1 > MAX_LEAF_GROUP || links + st.links().count() > MAX_LEAF_LINKS;
            // A class of equivalent vertices stays a group of its own: joined by another
            // vertex it would be counted by inclusion–exclusion, its interchanges broken by
            // the symmetry, and so enumerated after all, last.
            let splits_class = one_class(&group[1..]) && !one_class(&group);
            if adjacent || fixed[st.vertex] || (capped && !one_class(&group)) || splits_class {
                break;
            }
            inside[st.vertex] = true;
            from -= 1;
        }
        if from + 1 >= n {
            return LeafSuffix::none(n);
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
                .map(|(_, members)| {
                    let equivalent = one_class(&members);
                    LeafGroup::new(members, equivalent)
                })
                .collect(),
            pairs: None,
        }
    }

    /// No suffix, for a plan of `width` steps.
    pub fn none(width: usize) -> LeafSuffix {
        LeafSuffix {
            from: width,
            groups: Vec::new(),
            pairs: None,
        }
    }

    /// The suffix starting at step `from`.
    pub(super) fn starting_at(self, from: usize) -> LeafSuffix {
        LeafSuffix { from, ..self }
    }
}

impl LeafGroup {
    pub(super) fn new(steps: Vec<usize>, equivalent: bool) -> LeafGroup {
        let mut terms = Vec::new();
        if steps.len() <= MAX_LEAF_GROUP {
            set_partitions(steps.len(), &mut Vec::new(), 0, &mut terms);
        }
        LeafGroup {
            steps,
            terms,
            equivalent,
        }
    }
}

/// Per query vertex, the least vertex equivalent to it: of the same labels, with the same
/// neighbours by the same edge labels and directions (hence not adjacent: the graph has no
/// self-loops). Given the other vertices' matches, equivalent vertices have one extension
/// set, so that k of them have |E| (|E| − 1) ... (|E| − k + 1) injective matches.
pub fn equivalence_classes(query: &Graph) -> Vec<usize> {
    // A vertex's labels and its lists each way, borrowed as the graph keeps them (sorted by
    // label, then neighbour): equal exactly where the vertices are equivalent.
    let around = |u: usize| {
        let u = u as VertexId;
        let (out, out_labels) = query.edges(u, Direction::Out);
        let (inc, in_labels) = match query.is_directed() {
            true => query.edges(u, Direction::In),
            false => (&[][..], &[][..]),
        };
        (query.labels_of(u), out, out_labels, inc, in_labels)
    };
    // By a table, not by comparing pairs: a query may have hundreds of thousands of vertices.
    let mut first_of = std::collections::HashMap::new();
    (0..query.vertex_count())
        .map(|u| *first_of.entry(around(u)).or_insert(u))
        .collect()
}

/// The connected components of `query` once the vertices `outside` names are taken out,
/// edges read both ways.
pub(super) fn components_without(query: &Graph, outside: impl Fn(usize) -> bool) -> usize {
    let n = query.vertex_count();
    let mut seen = vec![false; n];
    let mut parts = 0;
    for start in 0..n {
        if outside(start) || seen[start] {
            continue;
        }
        parts += 1;
        seen[start] = true;
        let mut stack = vec![start];
        while let Some(u) = stack.pop() {
            for &d in query.directions() {
                for &w in query.edges(u as VertexId, d).0 {
                    let w = w as usize;
                    if !outside(w) && !seen[w] {
                        seen[w] = true;
                        stack.push(w);
                    }
                }
            }
        }
    }
    parts
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

/// The query vertices adjacent to `u` by an edge of either direction, ascending, once each.
pub(super) fn query_neighbours(query: &Graph, u: usize) -> Vec<usize> {
    let mut neighbours: Vec<usize> = query
        .directions()
        .iter()
        .flat_map(|&d| query.edges(u as VertexId, d).0)
        .map(|&w| w as usize)
        .collect();
    neighbours.sort_unstable();
    neighbours.dedup();
    neighbours
}

/// The most vertices of the core (those not `outside` it) that hang on one vertex there: each
/// of two or more neighbours in the query, that vertex its only one in the core.
fn most_hanging_on_one(query: &Graph, outside: impl Fn(usize) -> bool) -> usize {
    let mut hanging_on = vec![0; query.vertex_count()];
    for u in (0..query.vertex_count()).filter(|&u| !outside(u)) {
        let mut neighbours = query_neighbours(query, u);
        neighbours.retain(|&w| w != u);
        let mut in_core = neighbours.iter().filter(|&&w| !outside(w));
        if let (Some(&w), None, true) = (in_core.next(), in_core.next(), neighbours.len() >= 2) {
            hanging_on[w] += 1;
        }
    }
    hanging_on.into_iter().max().unwrap_or(0)
}

/// The leaf group of query vertex `u`: its label when groups go `by_label`, else one for all.
fn leaf_key(query: &Graph, u: usize, by_label: bool) -> VertexLabel {
    match by_label {
        true => query.label(u as VertexId),
        false => 0,
    }
}

/// The query vertices a plan may postpone: isolated vertices, and leaves whose one neighbour
/// is not postponed itself; at most [`MAX_LEAF_GROUP`] of one group ([`leaf_key`]); under
/// [`Postpone::Equivalents`] also each class of equivalent vertices whose neighbours are not
/// postponed and whose group holds no other postponed vertex, but one member of a class that
/// alone joins parts of the query (the core's join would be their Cartesian product), and
/// none of one that would leave two vertices or more hanging on that member; one vertex stays.
pub(super) fn postponable(query: &Graph, by_label: bool, postpone: Postpone) -> Vec<bool> {
    let n = query.vertex_count();
    let mut postponed = vec![false; n];
    if n < 2 || postpone == Postpone::Nothing {
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
    if postpone == Postpone::Equivalents {
        let classes = equivalence_classes(query);
        let mut members_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (u, &c) in classes.iter().enumerate() {
            members_of.entry(c).or_default().push(u);
        }
        // The largest classes of several vertices first: they save the most enumeration. At
        // most MAX_EQUIVALENT_CLASSES of them, each weighed against the whole query.
        let mut order: Vec<Vec<usize>> = members_of
            .into_values()
            .filter(|members| members.len() > 1)
            .collect();
        order.sort_by_key(|members| (std::cmp::Reverse(members.len()), members[0]));
        order.truncate(MAX_EQUIVALENT_CLASSES);
        for members in order {
            let c = members[0];
            let group = leaf_key(query, c, by_label);
            let free = !query.directions().iter().any(|&d| {
                query
                    .edges(c as VertexId, d)
                    .0
                    .iter()
                    .any(|&w| postponed[w as usize])
            }) && (0..n)
                .all(|u| !postponed[u] || classes[u] == c || leaf_key(query, u, by_label) != group);
            if free {
                let parts_before = components_without(query, |u| postponed[u]);
                let postponed_before = postponed.clone();
                for &u in &members {
                    postponed[u] = true;
                }
                // A class that alone joins parts of the query keeps one member in the core
                // (any: they have the same neighbours), else the core's join would take the
                // parts' Cartesian product. Where two or more vertices then hang on that
                // member (of two neighbours or more, it is their one left in the core), the
                // class stays whole: the core's join would take their pairs from the
                // member's list squared. wordnet's query_dense_8_8, u0 and u6 both on
                // u1..u5: u6 postponed left u2 and u3 on u0 alone, 262,412 matches not
                // counted in 10 s, against 0.17 s for RapidMatch (H200, 2026-11-29). One
                // vertex left hanging joins from the list once, as well as before
                // (wordnet's query_dense_16_121: 0.9 s, against 6.2 s with its class kept
                // whole; development machine).
                if components_without(query, |u| postponed[u]) > parts_before {
                    postponed[members[0]] = false;
                    let hanging = most_hanging_on_one(query, |u| postponed[u]);
                    let before = most_hanging_on_one(query, |u| postponed_before[u]);
                    if hanging >= 2 && hanging > before {
                        for &u in &members {
                            postponed[u] = false;
                        }
                    }
                }
            }
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
    use crate::testing::graph;

    #[test]
    fn a_class_that_alone_joins_two_parts_keeps_a_member_in_the_core() {
        // Triangles 0-1-2 and 3-4-5, joined only through 6 and 7, each on 0 and 3.
        let mut edges = vec![
            (0, 1, 0),
            (1, 2, 0),
            (2, 0, 0),
            (3, 4, 0),
            (4, 5, 0),
            (5, 3, 0),
        ];
        edges.extend([(6, 0, 0), (6, 3, 0), (7, 0, 0), (7, 3, 0)]);
        let query = graph(false, &[0; 8], &edges);
        let postponed = postponable(&query, true, Postpone::Equivalents);
        assert_eq!(
            postponed,
            [false, false, false, false, false, false, false, true]
        );
        // Joined besides by 1-4, the parts stay one without the class: all of it waits.
        edges.push((1, 4, 0));
        let query = graph(false, &[0; 8], &edges);
        let postponed = postponable(&query, true, Postpone::Equivalents);
        assert_eq!(
            postponed,
            [false, false, false, false, false, false, true, true]
        );
    }

    #[test]
    fn a_class_whose_going_leaves_vertices_hanging_stays_whole() {
        // wordnet's query_dense_8_8: 0 and 6 each on 1..=5, 1-7, 4-5, 4-7. Postponing 6
        // (0 kept, as 2 and 3 lie only between them) would leave 2 and 3 on 0 alone: the
        // class {0, 6} stays, and the class {2, 3} goes instead.
        let mut edges = vec![(1, 7, 0), (4, 5, 0), (4, 7, 0)];
        for hub in [0, 6] {
            edges.extend((1..=5).map(|w| (hub, w, 0)));
        }
        let query = graph(false, &[0; 8], &edges);
        let postponed = postponable(&query, true, Postpone::Equivalents);
        assert_eq!(
            postponed,
            [false, false, true, true, false, false, false, false]
        );
    }

    #[test]
    fn leaf_group_terms_count_injective_choices_from_one_set() {
        // k members drawing from one set of s vertices: s (s-1) ... (s-k+1) injective choices,
        // and every intersection of the identical sets has size s.
        for k in 1..=MAX_LEAF_GROUP {
            let group = LeafGroup::new((0..k).collect(), false);
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
