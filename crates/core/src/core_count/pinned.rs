//! The weighted homomorphisms of a 2-core that one vertex x turns into a forest (a cycle,
//! cycles through one vertex, two vertices joined by several paths), by dynamic programming
//! with x pinned in turn to each of its candidates: a tree decomposition whose bags are the
//! forest's edges, each with x added (treewidth 2).
//!
//! For each candidate v of x, each tree T of the core without x is counted as a tree
//! ([`crate::tree_count`]), its vertices adjacent to x restricted to v's neighbours; the
//! core's count is Σ over v of w_x(v) · Π over T of Σ over T's root of its values. Every leaf
//! of T is adjacent to x (the core has no vertex of one edge), so every value depends on v:
//! they are kept for the few data vertices they reach from v's neighbours alone, found by
//! pushing each child's values along its edge or pulling them into the parent's candidates,
//! whichever reads fewer lists. A join enumerates each walk around the cycle; the program
//! adds up the walks that meet at one data vertex. Where the budget allows, each tree edge's
//! candidate edges are found once, both ways ([`CandidateEdgeLists`]): each of x's candidates then
//! reads the few neighbours of a vertex that are candidates, not its whole list.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::{CandidateEdgeLists, CandidateSets, Ranks};
use crate::index::DataIndex;

/// An edge of the core seen from one end: the other end, the label, and the direction in
/// which the other end's match is a neighbour of this end's.
pub(super) type Link = (usize, EdgeLabel, Direction);

/// A core with one vertex pinned: the trees left without it, and its edges into them.
#[derive(Clone, Debug)]
pub(crate) struct PinnedCore {
    /// The pinned core vertex x.
    pinned: usize,
    /// For each core vertex, its edges from x: the label and the direction in which the
    /// vertex's match is a neighbour of x's.
    from_pinned: Vec<Vec<(EdgeLabel, Direction)>>,
    /// For each core vertex, its children in its tree.
    children: Vec<Vec<Link>>,
    /// Each tree's vertices, children before their parent (its root last).
    trees: Vec<Vec<usize>>,
}

impl PinnedCore {
    /// The core `core` with the vertex of fewest candidates (`sizes`) pinned among those whose
    /// removal leaves a forest; `None` where no vertex does.
    pub(crate) fn of(core: &Graph, sizes: &[usize]) -> Option<PinnedCore> {
        (0..core.vertex_count())
            .filter(|&x| leaves_forest(core, x))
            .min_by_key(|&x| sizes[x])
            .and_then(|x| PinnedCore::at(core, x))
    }

    /// The core `core` with `pinned` pinned; `None` where its removal leaves no forest.
    pub(crate) fn at(core: &Graph, pinned: usize) -> Option<PinnedCore> {
        if !leaves_forest(core, pinned) {
            return None;
        }
        let n = core.vertex_count();
        let mut from_pinned = vec![Vec::new(); n];
        for &direction in core.directions() {
            let (neighbors, labels) = core.edges(pinned as VertexId, direction);
            for (&t, &label) in neighbors.iter().zip(labels) {
                from_pinned[t as usize].push((label, direction));
            }
        }
        let mut children = vec![Vec::new(); n];
        let mut trees = Vec::new();
        let mut placed = vec![false; n];
        placed[pinned] = true;
        for start in 0..n {
            if placed[start] {
                continue;
            }
            let root = center(core, pinned, start);
            // Breadth-first from the root; reversed, children come before their parent.
            let mut order = vec![root];
            placed[root] = true;
            let mut at = 0;
            while at < order.len() {
                let u = order[at];
                at += 1;
                for (w, label, direction) in links(core, u) {
                    if !placed[w] {
                        placed[w] = true;
                        order.push(w);
                        children[u].push((w, label, direction));
                    }
                }
            }
            order.reverse();
            trees.push(order);
        }
        Some(PinnedCore {
            pinned,
            from_pinned,
            children,
            trees,
        })
    }

    /// The pinned core vertex.
    pub(crate) fn pinned(&self) -> usize {
        self.pinned
    }

    /// The program's work for the core's candidate sets of `sizes`, in the units of
    /// [`crate::tree_count::work`]: for each candidate of x, a mean list read for each edge
    /// of the core (how far the values reach from x's neighbours is not estimated).
    pub(crate) fn work(&self, sizes: &[usize], data: &DataIndex) -> f64 {
        let graph = data.graph();
        let lists_per_edge = if graph.is_directed() { 1.0 } else { 2.0 };
        let mean_list =
            lists_per_edge * graph.edge_count() as f64 / graph.vertex_count().max(1) as f64;
        self.lists(sizes) * mean_list
    }

    /// The lists the program reads for the core's candidate sets of `sizes`: one an edge for
    /// each candidate of x.
    pub(crate) fn lists(&self, sizes: &[usize]) -> f64 {
        let edges: usize = self.children.iter().map(Vec::len).sum::<usize>()
            + self.from_pinned.iter().map(Vec::len).sum::<usize>();
        sizes[self.pinned] as f64 * edges as f64
    }

    /// For each candidate v of x (in the order of its list in `sets`, the core's candidate
    /// sets): Σ over the core's homomorphisms φ into `sets` with φ(x) = v of Π over its
    /// vertices r of `weights`' w_r(φ(r)) (1 where a vertex has none), saturated at
    /// `u128::MAX`; `None` when `stop` says so. The tree edges' candidate edges are found
    /// first where they fit `edges_budget` bytes (`None`: whole lists are read).
    pub(crate) fn values(
        &self,
        sets: &CandidateSets,
        weights: &[Option<Vec<u128>>],
        data: &DataIndex,
        edges_budget: Option<usize>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<Vec<u128>> {
        let graph = data.graph();
        let ranks: Vec<Ranks<'_>> = (0..self.children.len()).map(|u| sets.ranks(u)).collect();
        let program = Program {
            core: self,
            sets,
            weights,
            ranks: &ranks,
            graph,
            edges: edges_budget.and_then(|budget| TreeEdges::of(self, sets, graph, budget)),
        };
        let stopped = AtomicBool::new(false);
        let pinned = self.pinned;
        // One scratch a thread, made at its first use: arrays over the keys of the vertices
        // (their positions in the largest set where the candidate edges were found, else
        // every data vertex).
        let keys = match program.edges {
            Some(_) => (0..self.children.len())
                .map(|u| sets.list(u).len())
                .max()
                .unwrap_or(0),
            None => graph.vertex_count(),
        };
        let scratches: Vec<Mutex<Option<Scratch>>> = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(None))
            .collect();
        let values = sets
            .list(pinned)
            .par_iter()
            .enumerate()
            .map(|(at, &v)| {
                if stopped.load(Ordering::Relaxed) || stop() {
                    stopped.store(true, Ordering::Relaxed);
                    return 0;
                }
                let thread = rayon::current_thread_index().unwrap_or(0) % scratches.len();
                let mut scratch = scratches[thread]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let scratch = scratch.get_or_insert_with(|| Scratch::new(keys));
                let own = weights[pinned].as_ref().map_or(1, |w| w[at]);
                self.trees
                    .iter()
                    .try_fold(own, |product, tree| {
                        match program.tree_sum(tree, v, scratch) {
                            0 => None,
                            sum => Some(product.saturating_mul(sum)),
                        }
                    })
                    .unwrap_or(0)
            })
            .collect();
        (!stopped.load(Ordering::Relaxed)).then_some(values)
    }
}

/// The pinned core's program over one query's candidate sets and weights.
struct Program<'a> {
    core: &'a PinnedCore,
    sets: &'a CandidateSets,
    weights: &'a [Option<Vec<u128>>],
    /// Each core vertex's candidates' positions in its set.
    ranks: &'a [Ranks<'a>],
    graph: &'a Graph,
    edges: Option<TreeEdges>,
}

/// The candidate edges of every tree edge, both ways.
struct TreeEdges {
    /// For the i-th child c of u, at `[u][i]`: from C(u) into C(c), and from C(c) into C(u).
    edges: Vec<Vec<(CandidateEdgeLists, CandidateEdgeLists)>>,
}

impl TreeEdges {
    /// Found where they fit `budget` bytes and some child's set prunes
    /// ([`CandidateEdgeLists::worth_reading`]).
    fn of(
        core: &PinnedCore,
        sets: &CandidateSets,
        graph: &Graph,
        budget: usize,
    ) -> Option<TreeEdges> {
        let tree_edges = || {
            core.children.iter().enumerate().flat_map(|(u, children)| {
                children
                    .iter()
                    .map(move |&(c, _, direction)| (u, c, direction))
            })
        };
        let bytes: usize = tree_edges()
            .map(|(u, c, direction)| {
                CandidateEdgeLists::bytes_bound(graph, sets, u, direction)
                    + CandidateEdgeLists::bytes_bound(graph, sets, c, back(graph, direction))
            })
            .sum();
        let prunes = tree_edges().any(|(u, c, _)| {
            CandidateEdgeLists::worth_reading(graph, sets, u)
                || CandidateEdgeLists::worth_reading(graph, sets, c)
        });
        if bytes > budget || !prunes {
            return None;
        }
        let edges = core
            .children
            .par_iter()
            .enumerate()
            .map(|(u, children)| {
                children
                    .iter()
                    .map(|&(c, label, direction)| {
                        let back = back(graph, direction);
                        (
                            CandidateEdgeLists::between(graph, sets, (u, c), label, direction),
                            CandidateEdgeLists::between(graph, sets, (c, u), label, back),
                        )
                    })
                    .collect()
            })
            .collect();
        Some(TreeEdges { edges })
    }
}

/// The i-th tree edge of u, (u, i), seen from its parent's end or its child's.
#[derive(Clone, Copy)]
struct TreeEdge {
    parent: usize,
    child: usize,
    at: usize,
    label: EdgeLabel,
    direction: Direction,
}

/// The data neighbours of a vertex by a tree edge, each with its key ([`Program::key`]): among
/// the far end's candidates where the edge's candidate edges were found, else its whole list.
enum Near<'a> {
    Candidates(std::slice::Iter<'a, u32>, &'a [VertexId]),
    Whole(std::slice::Iter<'a, VertexId>),
}

impl Iterator for Near<'_> {
    type Item = (usize, VertexId);

    fn next(&mut self) -> Option<(usize, VertexId)> {
        match self {
            Near::Candidates(positions, list) => {
                positions.next().map(|&p| (p as usize, list[p as usize]))
            }
            Near::Whole(vertices) => vertices.next().map(|&z| (z as usize, z)),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Near::Candidates(positions, _) => positions.size_hint(),
            Near::Whole(vertices) => vertices.size_hint(),
        }
    }
}

impl ExactSizeIterator for Near<'_> {}

/// A tree's values at some data vertices: (vertex, value), each value above 0.
type Values = Vec<(VertexId, u128)>;

impl Program<'_> {
    /// The neighbours of `z` by `edge`: of a candidate of its parent among its child's
    /// candidates (`from_parent`), or of a candidate of its child among its parent's.
    fn near(&self, edge: TreeEdge, from_parent: bool, z: VertexId) -> Near<'_> {
        let (from, to) = match from_parent {
            true => (edge.parent, edge.child),
            false => (edge.child, edge.parent),
        };
        match &self.edges {
            Some(found) => {
                let (down, up) = &found.edges[edge.parent][edge.at];
                let lists = if from_parent { down } else { up };
                let p = self.ranks[from].position(z);
                Near::Candidates(lists.of(p).iter(), self.sets.list(to))
            }
            None => {
                let direction = match from_parent {
                    true => edge.direction,
                    false => back(self.graph, edge.direction),
                };
                Near::Whole(self.graph.neighbors(z, edge.label, direction).iter())
            }
        }
    }

    /// Where the scratch arrays keep a value of `z`, a candidate of `u`: its position in C(u)
    /// where the candidate edges were found, else the vertex itself.
    fn key(&self, u: usize, z: VertexId) -> usize {
        match &self.edges {
            Some(_) => self.ranks[u].position(z) as usize,
            None => z as usize,
        }
    }

    /// w_u(z) for z in C(u).
    fn weight(&self, u: usize, z: VertexId) -> u128 {
        self.weights[u]
            .as_ref()
            .map_or(1, |w| w[self.ranks[u].position(z) as usize])
    }

    /// Σ over the tree's root of its values, x pinned to `v`.
    fn tree_sum(&self, tree: &[usize], v: VertexId, scratch: &mut Scratch) -> u128 {
        let mut values: Vec<Option<Values>> = vec![None; self.core.children.len()];
        for &u in tree {
            // A vertex adjacent to x: its values are over v's neighbours alone.
            let mut own = self.next_to_pinned(u, v);
            for (at, &(c, label, direction)) in self.core.children[u].iter().enumerate() {
                let child = values[c].take().unwrap_or_default();
                let edge = TreeEdge {
                    parent: u,
                    child: c,
                    at,
                    label,
                    direction,
                };
                own = Some(match own {
                    None => scratch.push(self, &child, edge),
                    Some(own) => scratch.combine(self, own, &child, edge),
                });
                if own.as_ref().is_some_and(Vec::is_empty) {
                    break;
                }
            }
            values[u] = Some(own.unwrap_or_default());
        }
        let root = *tree.last().expect("a tree has a vertex");
        values[root]
            .take()
            .unwrap_or_default()
            .iter()
            .fold(0u128, |s, &(_, value)| s.saturating_add(value))
    }

    /// u's values before its children's where u is adjacent to x pinned to `v`: its weight
    /// at each candidate that is a neighbour of `v` by each of its edges from x; `None` where
    /// u is not adjacent to x.
    fn next_to_pinned(&self, u: usize, v: VertexId) -> Option<Values> {
        let (&(label, direction), others) = self.core.from_pinned[u].split_first()?;
        Some(
            self.graph
                .neighbors(v, label, direction)
                .iter()
                .filter(|&&z| {
                    self.sets.contains(u, z)
                        && others.iter().all(|&(label, direction)| {
                            self.graph
                                .neighbors(v, label, direction)
                                .binary_search(&z)
                                .is_ok()
                        })
                })
                .map(|&z| (z, self.weight(u, z)))
                .filter(|&(_, w)| w != 0)
                .collect(),
        )
    }
}

/// A thread's working arrays over the vertices' keys ([`Program::key`]), all zero between two
/// uses.
struct Scratch {
    sums: Vec<u128>,
    slot: Vec<u32>,
    touched: Vec<(usize, VertexId)>,
}

impl Scratch {
    fn new(keys: usize) -> Scratch {
        Scratch {
            sums: vec![0; keys],
            slot: vec![0; keys],
            touched: Vec::new(),
        }
    }

    /// u's values from those of its child alone, pushed along their `edge` into C(u), each
    /// times u's weight.
    fn push(&mut self, program: &Program<'_>, child: &Values, edge: TreeEdge) -> Values {
        let u = edge.parent;
        for &(y, value) in child {
            for (key, z) in program.near(edge, false, y) {
                if program.sets.contains(u, z) {
                    let sum = &mut self.sums[key];
                    if *sum == 0 {
                        self.touched.push((key, z));
                    }
                    *sum = sum.saturating_add(value);
                }
            }
        }
        let mut out = Vec::with_capacity(self.touched.len());
        for (key, z) in self.touched.drain(..) {
            let sum = std::mem::take(&mut self.sums[key]);
            let value = sum.saturating_mul(program.weight(u, z));
            if value != 0 {
                out.push((z, value));
            }
        }
        out
    }

    /// `own` (u's values so far) times, at each of its vertices, the sum of `child`'s values
    /// over its neighbours by their `edge`: pulled at `own`'s vertices, or pushed from
    /// `child`'s, whichever reads fewer list entries.
    fn combine(
        &mut self,
        program: &Program<'_>,
        mut own: Values,
        child: &Values,
        edge: TreeEdge,
    ) -> Values {
        let (u, c) = (edge.parent, edge.child);
        let reads = |values: &Values, from_parent| -> usize {
            values
                .iter()
                .map(|&(z, _)| program.near(edge, from_parent, z).len())
                .sum()
        };
        if reads(&own, true) <= reads(child, false) {
            for &(y, value) in child {
                self.sums[program.key(c, y)] = value;
            }
            for (z, value) in &mut own {
                let sum = program
                    .near(edge, true, *z)
                    .fold(0u128, |s, (key, _)| s.saturating_add(self.sums[key]));
                *value = value.saturating_mul(sum);
            }
            for &(y, _) in child {
                self.sums[program.key(c, y)] = 0;
            }
        } else {
            for (at, &(z, _)) in own.iter().enumerate() {
                self.slot[program.key(u, z)] = at as u32 + 1;
            }
            let mut sums = vec![0u128; own.len()];
            for &(y, value) in child {
                for (key, _) in program.near(edge, false, y) {
                    if let Some(at) = self.slot[key].checked_sub(1) {
                        sums[at as usize] = sums[at as usize].saturating_add(value);
                    }
                }
            }
            for ((z, value), sum) in own.iter_mut().zip(sums) {
                self.slot[program.key(u, *z)] = 0;
                *value = value.saturating_mul(sum);
            }
        }
        own.retain(|&(_, value)| value != 0);
        own
    }
}

/// The direction in which an edge's near end is a neighbour of its far end: the other one in
/// a directed graph, the same in an undirected one (whose edges are kept both ways).
fn back(graph: &Graph, direction: Direction) -> Direction {
    match graph.is_directed() {
        true => direction.reverse(),
        false => direction,
    }
}

/// The edges of `u` in `graph`, each as a [`Link`].
pub(super) fn links(graph: &Graph, u: usize) -> Vec<Link> {
    let mut out = Vec::new();
    for &direction in graph.directions() {
        let (neighbors, labels) = graph.edges(u as VertexId, direction);
        for (&w, &label) in neighbors.iter().zip(labels) {
            out.push((w as usize, label, direction));
        }
    }
    out
}

/// Whether `graph` without `x` is a forest: as many edges as vertices less components (an
/// edge kept twice, or a second edge between two vertices, makes a cycle).
fn leaves_forest(graph: &Graph, x: usize) -> bool {
    let n = graph.vertex_count();
    let mut edges = 0;
    for u in (0..n).filter(|&u| u != x) {
        for &w in graph.edges(u as VertexId, Direction::Out).0 {
            let w = w as usize;
            if w != x && (graph.is_directed() || u < w) {
                edges += 1;
            }
        }
    }
    let mut component = vec![usize::MAX; n];
    let mut components = 0;
    for start in (0..n).filter(|&u| u != x) {
        if component[start] != usize::MAX {
            continue;
        }
        components += 1;
        let mut stack = vec![start];
        component[start] = components;
        while let Some(u) = stack.pop() {
            for (w, _, _) in links(graph, u) {
                if w != x && component[w] == usize::MAX {
                    component[w] = components;
                    stack.push(w);
                }
            }
        }
    }
    edges + components == n - 1
}

/// The vertex of `start`'s tree in `graph` without `x` farthest from none of the tree's
/// vertices by the most (a center): pushing values from the leaves, it meets them halfway.
fn center(graph: &Graph, x: usize, start: usize) -> usize {
    let distances = |from: usize| {
        let mut distance = vec![usize::MAX; graph.vertex_count()];
        distance[from] = 0;
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(u) = queue.pop_front() {
            for (w, _, _) in links(graph, u) {
                if w != x && distance[w] == usize::MAX {
                    distance[w] = distance[u] + 1;
                    queue.push_back(w);
                }
            }
        }
        distance
    };
    let tree: Vec<usize> = distances(start)
        .iter()
        .enumerate()
        .filter(|&(_, &d)| d != usize::MAX)
        .map(|(u, _)| u)
        .collect();
    *tree
        .iter()
        .min_by_key(|&&u| {
            let d = distances(u);
            tree.iter().map(|&w| d[w]).max().unwrap_or(0)
        })
        .expect("start is in its tree")
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::PinnedCore;

    #[test]
    fn a_cycle_pins_its_rarest_vertex_and_a_clique_none() {
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 5]);
        for v in 0..5 {
            builder.add_edge(v, (v + 1) % 5, 0).expect("an edge");
        }
        let cycle = builder.build().expect("a graph");
        let pinned = PinnedCore::of(&cycle, &[9, 9, 3, 9, 9]).expect("a cycle has one");
        assert_eq!(pinned.pinned, 2);
        // The path 3-4-0-1 left, rooted at a middle vertex (4 or 0).
        assert_eq!(pinned.trees.len(), 1);
        assert!([4, 0].contains(pinned.trees[0].last().expect("a root")));
        let mut builder = GraphBuilder::with_vertices(false, vec![0; 4]);
        for (a, b) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            builder.add_edge(a, b, 0).expect("an edge");
        }
        assert!(PinnedCore::of(&builder.build().expect("a graph"), &[1; 4]).is_none());
    }
}
