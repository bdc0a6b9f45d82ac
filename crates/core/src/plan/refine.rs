//! After the paper's signature filter (Sec. 3.2), a second pass over the candidate sets:
//! a data vertex stays in C(u) only when, for every query edge (u, w), it has a neighbour
//! along that edge's label and direction inside C(w) (the neighbourhood refinement of
//! GraphQL, CFL-Match and DP-iso). Removing one candidate can strand others, so the pass
//! repeats until nothing changes or its rounds are spent. It runs on the host, over sets the
//! size of a query's candidates.
//!
//! The same walk counts the candidate edges of every query edge, |{(v, x) : v ∈ C(u),
//! x ∈ C(w) ∩ N(v, l)}| (over a sample of a large C(u)), from which [`crate::plan`]
//! estimates how many rows each step keeps.

use std::collections::HashMap;

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;

/// Fewest candidates of one query vertex worth spreading over threads.
const PARALLEL_MIN_CANDIDATES: usize = 1 << 12;

/// Bitmap probes one binary search is worth, roughly.
const PROBES_PER_SEARCH: usize = 8;

/// Candidates of a query vertex that stand for all of its set where reading every
/// candidate's list would cost more than it tells ([`refine`]'s first look,
/// [`CandidateEdges::count`], the planner's judgement of whether planning pays): on an
/// unlabelled graph of a million vertices, a pass over every candidate's lists took 200 ms,
/// more than the rest of a small query's planning.
pub(crate) const READ_SAMPLE: usize = 1 << 14;

/// Candidates of each set looked at before refining.
const SUPPORT_SAMPLE: usize = 1 << 10;

/// Candidates of a query vertex whose lists stand for all of its set in
/// [`CandidateEdges::count`], which reads each list whole for every query edge: fewer than
/// [`READ_SAMPLE`], which cost 50-75 ms for a 5-vertex pattern on an unlabelled graph of a
/// million vertices.
const EDGES_SAMPLE: usize = 1 << 11;

/// At most `at_most` elements of `list`, evenly spaced, and how many of the list each stands
/// for.
pub(crate) fn sample(list: &[VertexId], at_most: usize) -> (impl Iterator<Item = &VertexId>, f64) {
    let stride = list.len().div_ceil(at_most).max(1);
    let taken = list.len().div_ceil(stride).max(1);
    (
        list.iter().step_by(stride),
        list.len() as f64 / taken as f64,
    )
}

/// One query edge seen from one of its ends: `u` reaches `w` along `label` in `direction`.
#[derive(Clone, Copy, Debug)]
struct Arc {
    u: usize,
    w: usize,
    label: EdgeLabel,
    direction: Direction,
}

/// Every query edge from both of its ends (a directed graph keeps both directions, an
/// undirected one stores each edge both ways).
fn arcs(query: &Graph) -> Vec<Arc> {
    let mut arcs = Vec::new();
    for u in 0..query.vertex_count() {
        for &direction in query.directions() {
            let (neighbors, labels) = query.edges(u as VertexId, direction);
            for (&w, &label) in neighbors.iter().zip(labels) {
                arcs.push(Arc {
                    u,
                    w: w as usize,
                    label,
                    direction,
                });
            }
        }
    }
    arcs
}

/// Every query edge from both of its ends, by the end it is seen from.
fn arcs_by_vertex(query: &Graph) -> Vec<Vec<Arc>> {
    let mut arcs_of: Vec<Vec<Arc>> = vec![Vec::new(); query.vertex_count()];
    for a in arcs(query) {
        arcs_of[a.u].push(a);
    }
    arcs_of
}

/// Refines `sets` for `query` for at most `rounds` rounds, unless a sample of each set finds
/// no candidate, or fewer than `from_share` of them, lacking a candidate neighbour
/// ([`crate::MatchOptions::refine_from_share`]), or once `stop` says so (what is removed by
/// then is removed rightly); returns the rounds that removed something.
pub(crate) fn refine(
    query: &Graph,
    data: &DataIndex,
    sets: &mut CandidateSets,
    rounds: usize,
    from_share: f64,
    stop: &dyn Fn() -> bool,
) -> usize {
    // Out of time: nothing is refined (the arcs alone are a pass over the query).
    if stop() || rounds == 0 {
        return 0;
    }
    let graph = data.graph();
    let arcs_of = arcs_by_vertex(query);
    let mut epochs = Epochs::new(query.vertex_count());
    let mut due: Vec<Arc> = Vec::new();
    // A first look at a sample of each set: where few candidates lack a candidate neighbour
    // (labels that hardly prune), a round cuts little, and reading every candidate's lists
    // may not be worth it.
    let look = first_look(graph, sets, &arcs_of, stop);
    if look.unsupported == 0.0 || look.unsupported < from_share {
        return 0;
    }
    // Where it read every set whole, the look was the first round: reading each set again
    // would find the same (yeast's light 8-vertex queries: over a third of the refinement's
    // instructions).
    let mut changed_rounds = 0;
    let mut rounds_left = rounds;
    if let Some(first) = look.first_round {
        *sets = first.sets;
        epochs = first.epochs;
        if first.emptied {
            return 1;
        }
        changed_rounds = usize::from(epochs.now > 0);
        rounds_left -= 1;
    }
    for _ in 0..rounds_left {
        let mut changed = false;
        for (u, arcs) in arcs_of.iter().enumerate() {
            if stop() {
                return changed_rounds + usize::from(changed);
            }
            due.clear();
            due.extend(arcs.iter().filter(|a| epochs.due(u, a)));
            if due.is_empty() {
                continue;
            }
            if check(graph, sets, u, &mut due, &mut epochs) > 0 {
                changed = true;
                if sets.list(u).is_empty() {
                    return changed_rounds + 1;
                }
            }
        }
        if !changed {
            break;
        }
        changed_rounds += 1;
    }
    changed_rounds
}

/// When each set last shrank and each vertex's candidates were last checked: each shrink of
/// a set takes the next epoch, and a vertex's candidates are checked again only along the
/// arcs whose far set shrank since their last check.
struct Epochs {
    now: usize,
    shrunk_at: Vec<usize>,
    checked_at: Vec<Option<usize>>,
}

impl Epochs {
    /// Before any check, for `n` query vertices.
    fn new(n: usize) -> Epochs {
        Epochs {
            now: 0,
            shrunk_at: vec![0; n],
            checked_at: vec![None; n],
        }
    }

    /// Whether `u`'s candidates are due a check along `arc`.
    fn due(&self, u: usize, arc: &Arc) -> bool {
        self.checked_at[u].is_none_or(|at| self.shrunk_at[arc.w] > at)
    }
}

/// Keeps in C(u) the candidates with a candidate neighbour along each of `due` (sorted here,
/// the arc to the fewest candidates first: it fails most often), recording the check and any
/// shrink in `epochs`; returns how many candidates went.
fn check(
    graph: &Graph,
    sets: &mut CandidateSets,
    u: usize,
    due: &mut [Arc],
    epochs: &mut Epochs,
) -> usize {
    epochs.checked_at[u] = Some(epochs.now);
    due.sort_by_key(|a| sets.list(a.w).len());
    let list = sets.list(u);
    let supported = |&v: &VertexId| supported(graph, sets, due, v);
    let kept: Vec<VertexId> = if list.len() < PARALLEL_MIN_CANDIDATES {
        list.iter().copied().filter(|v| supported(v)).collect()
    } else {
        list.par_iter().copied().filter(|v| supported(v)).collect()
    };
    let removed = list.len() - kept.len();
    if removed > 0 {
        sets.keep(u, kept);
        epochs.now += 1;
        epochs.shrunk_at[u] = epochs.now;
    }
    removed
}

/// What a first look at [`SUPPORT_SAMPLE`] candidates of each set saw.
struct FirstLook {
    /// The share of all candidates that lack a candidate neighbour along one of their query
    /// vertex's arcs.
    unsupported: f64,
    /// Where every set is read whole, the look is the refinement's first round.
    first_round: Option<FirstRound>,
}

/// A first round of refinement made by the first look, over a copy of the sets.
struct FirstRound {
    sets: CandidateSets,
    epochs: Epochs,
    /// Whether it left a set empty (and stopped there).
    emptied: bool,
}

/// A look at [`SUPPORT_SAMPLE`] candidates of each set, until `stop` says to stop: where
/// every set has no more, a first round of refinement, each vertex checked against the sets
/// as the vertices before it left them, as a round checks them.
fn first_look(
    graph: &Graph,
    sets: &CandidateSets,
    arcs_of: &[Vec<Arc>],
    stop: &dyn Fn() -> bool,
) -> FirstLook {
    let whole = (0..arcs_of.len()).all(|u| sets.list(u).len() <= SUPPORT_SAMPLE);
    if whole {
        return first_round(graph, sets, arcs_of, stop);
    }
    let (mut unsupported, mut all) = (0.0, 0.0);
    for (u, arcs) in arcs_of.iter().enumerate() {
        if stop() {
            break;
        }
        let (taken, scale) = sample(sets.list(u), SUPPORT_SAMPLE);
        let lacking = taken.filter(|&&v| !supported(graph, sets, arcs, v)).count();
        unsupported += lacking as f64 * scale;
        all += sets.list(u).len() as f64;
    }
    FirstLook {
        unsupported: share(unsupported, all),
        first_round: None,
    }
}

/// [`first_look`] where every set is read whole: the first round of refinement, on a copy.
fn first_round(
    graph: &Graph,
    sets: &CandidateSets,
    arcs_of: &[Vec<Arc>],
    stop: &dyn Fn() -> bool,
) -> FirstLook {
    let mut round = FirstRound {
        sets: sets.clone(),
        epochs: Epochs::new(arcs_of.len()),
        emptied: false,
    };
    let (mut unsupported, mut all) = (0, 0);
    let mut due = Vec::new();
    for (u, arcs) in arcs_of.iter().enumerate() {
        if stop() {
            break;
        }
        due.clone_from(arcs);
        all += round.sets.list(u).len();
        let removed = check(graph, &mut round.sets, u, &mut due, &mut round.epochs);
        unsupported += removed;
        if removed > 0 && round.sets.list(u).is_empty() {
            round.emptied = true;
            break;
        }
    }
    FirstLook {
        unsupported: share(unsupported as f64, all as f64),
        first_round: Some(round),
    }
}

/// `part` of `all`, 0 of nothing.
fn share(part: f64, all: f64) -> f64 {
    if all == 0.0 {
        0.0
    } else {
        part / all
    }
}

/// Whether `v` has, along each of `arcs` (all from one query vertex), a neighbour in the far
/// vertex's candidate set.
fn supported(graph: &Graph, sets: &CandidateSets, arcs: &[Arc], v: VertexId) -> bool {
    // Arcs of one label and direction (all of them, most often) share N(v, l).
    let mut fetched: Option<(EdgeLabel, Direction, &[VertexId])> = None;
    arcs.iter().all(|a| {
        let neighbors = match fetched {
            Some((l, d, n)) if l == a.label && d == a.direction => n,
            _ => {
                let n = graph.neighbors(v, a.label, a.direction);
                fetched = Some((a.label, a.direction, n));
                n
            }
        };
        let theirs = sets.list(a.w);
        // Probe the shorter side: C(w) in N(v) by binary search, or N(v) in C(w) by its
        // bitmap.
        if theirs.len() * PROBES_PER_SEARCH < neighbors.len() {
            theirs.iter().any(|x| neighbors.binary_search(x).is_ok())
        } else {
            neighbors.iter().any(|&x| sets.contains(a.w, x))
        }
    })
}

/// Candidate edges between the ends of each query edge: `edges(u, w)` is the number of pairs
/// (v ∈ C(u), x ∈ C(w)) joined by a data edge that the query edge (u, w) may map to (from at
/// most [`EDGES_SAMPLE`] candidates v, scaled); 0 when u and w are not adjacent in the query
/// (several parallel query edges: the fewest).
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateEdges {
    /// By ordered pair of adjacent query vertices (a map: a query of n vertices has far
    /// fewer than n² edges).
    counts: HashMap<(usize, usize), f64>,
}

impl CandidateEdges {
    /// Counts them for `query` over `sets`, for the query edges reached before `stop` says
    /// to stop.
    pub(crate) fn count(
        query: &Graph,
        data: &DataIndex,
        sets: &CandidateSets,
        stop: &dyn Fn() -> bool,
    ) -> CandidateEdges {
        let graph = data.graph();
        let mut counts: HashMap<(usize, usize), f64> = HashMap::new();
        for a in arcs(query) {
            if stop() {
                break;
            }
            let pairs = |&v: &VertexId| {
                graph
                    .neighbors(v, a.label, a.direction)
                    .iter()
                    .filter(|&&x| sets.contains(a.w, x))
                    .count()
            };
            let (taken, scale) = sample(sets.list(a.u), EDGES_SAMPLE);
            let total = taken.map(pairs).sum::<usize>() as f64 * scale;
            for pair in [(a.u, a.w), (a.w, a.u)] {
                let count = counts.entry(pair).or_insert(total);
                *count = count.min(total);
            }
        }
        CandidateEdges { counts }
    }

    /// The candidate edges of the query edge between `u` and `w`, if they are adjacent.
    pub fn between(&self, u: usize, w: usize) -> Option<f64> {
        self.counts.get(&(u, w)).copied()
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;
    use proptest::prelude::*;

    use super::*;
    use crate::options::{CPU_REFINE_FROM_SHARE, GPU_REFINE_FROM_SHARE};
    use crate::testing::simple_graph;

    fn graph(labels: &[u32], edges: &[(u32, u32)]) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, labels.to_vec());
        for &(s, t) in edges {
            b.add_edge(s, t, 0).unwrap();
        }
        b.build().unwrap()
    }

    /// The index of `data` in the graph's own ids, which the tests' candidate sets name.
    fn index(data: Graph) -> DataIndex {
        let options = crate::IndexOptions {
            numbering: crate::vertex_order::VertexNumbering::Given,
            ..crate::IndexOptions::default()
        };
        DataIndex::build_with(data, options).unwrap()
    }

    #[test]
    fn a_candidate_without_a_candidate_neighbour_goes_and_strands_others() {
        // Data: 0(a) - 1(b) - 2(c), and 3(a) - 4(b) with 4 lacking a c neighbour.
        let data = index(graph(&[0, 1, 2, 0, 1], &[(0, 1), (1, 2), (3, 4)]));
        // Query: a - b - c.
        let query = graph(&[0, 1, 2], &[(0, 1), (1, 2)]);
        let mut sets = CandidateSets::from_lists(vec![vec![0, 3], vec![1, 4], vec![2]], 5);
        let rounds = refine(&query, &data, &mut sets, 4, GPU_REFINE_FROM_SHARE, &|| {
            false
        });
        // 4 goes in the first round (no c neighbour), 3 with it (its only b neighbour).
        assert_eq!(sets.list(0), &[0]);
        assert_eq!(sets.list(1), &[1]);
        assert_eq!(sets.list(2), &[2]);
        assert!(!sets.contains(1, 4) && !sets.contains(0, 3));
        assert!(rounds >= 1);
        let edges = CandidateEdges::count(&query, &data, &sets, &|| false);
        assert_eq!(edges.between(0, 1), Some(1.0));
        assert_eq!(edges.between(1, 0), Some(1.0));
        assert_eq!(edges.between(0, 2), None);
    }

    /// A star of `n` leaves: centre 0 (label 1), leaves 1..=n (label 0), the leaves from
    /// `first_alone` on cut off from the centre.
    fn star(n: u32, first_alone: u32) -> DataIndex {
        let mut labels = vec![1];
        labels.extend(std::iter::repeat_n(0, n as usize));
        let edges: Vec<(u32, u32)> = (1..first_alone).map(|v| (0, v)).collect();
        index(graph(&labels, &edges))
    }

    /// A query edge from a leaf (label 0) to a centre (label 1), over [`star`]'s `n` leaves:
    /// every leaf a candidate of the query's leaf, the centre of its centre.
    fn leaf_and_centre(n: u32) -> (Graph, CandidateSets) {
        let query = graph(&[0, 1], &[(0, 1)]);
        let sets = CandidateSets::from_lists(vec![(1..=n).collect(), vec![0]], n as usize + 1);
        (query, sets)
    }

    #[test]
    fn a_large_set_whose_sample_has_support_is_left_without_a_round() {
        // Every leaf of a large star has the centre: the sample finds nothing to cut, and no
        // round is made (a round would cut nothing either).
        let n = 3 * READ_SAMPLE as u32;
        let data = star(n, n + 1);
        let (query, mut sets) = leaf_and_centre(n);
        assert_eq!(
            refine(&query, &data, &mut sets, 4, GPU_REFINE_FROM_SHARE, &|| {
                false
            }),
            0
        );
        assert_eq!(sets.sizes(), vec![n as usize, 1]);
    }

    #[test]
    fn a_large_set_whose_sample_lacks_support_is_refined_exactly() {
        // A fifth of the leaves lack the centre: the sample sees it, and the round removes
        // exactly those.
        let n = 3 * READ_SAMPLE as u32;
        let alone = n - n / 5;
        let data = star(n, alone);
        let (query, mut sets) = leaf_and_centre(n);
        assert_eq!(
            refine(&query, &data, &mut sets, 4, GPU_REFINE_FROM_SHARE, &|| {
                false
            }),
            1
        );
        assert_eq!(sets.list(0), (1..alone).collect::<Vec<_>>().as_slice());
    }

    #[test]
    fn sets_that_few_candidates_would_leave_are_not_refined() {
        // A twentieth of the leaves lack the centre, under a GPU's share: the sets are left
        // as they are (the join still finds no match through those leaves); before the CPU's
        // join they are refined.
        let n = 3 * READ_SAMPLE as u32;
        let alone = n - n / 20;
        let data = star(n, alone);
        let (query, mut sets) = leaf_and_centre(n);
        let share = first_look(data.graph(), &sets, &arcs_by_vertex(&query), &|| false).unsupported;
        assert!((share - 0.05).abs() < 0.01, "{share}");
        assert_eq!(
            refine(&query, &data, &mut sets, 4, GPU_REFINE_FROM_SHARE, &|| {
                false
            }),
            0
        );
        assert_eq!(sets.sizes(), vec![n as usize, 1]);
        assert_eq!(
            refine(&query, &data, &mut sets, 4, CPU_REFINE_FROM_SHARE, &|| {
                false
            }),
            1
        );
        assert_eq!(sets.list(0), (1..alone).collect::<Vec<_>>().as_slice());
    }

    #[test]
    fn candidate_edges_of_a_large_set_are_estimated_from_a_sample() {
        // 3 · READ_SAMPLE leaves each with one edge to the centre: the sampled count, scaled,
        // is the exact count here (every sampled leaf has the same one edge).
        let n = 3 * READ_SAMPLE as u32;
        let data = star(n, n + 1);
        let (query, sets) = leaf_and_centre(n);
        let edges = CandidateEdges::count(&query, &data, &sets, &|| false);
        let between = edges.between(0, 1).expect("adjacent");
        assert!(
            (between - f64::from(n)).abs() <= 1e-6 * f64::from(n),
            "{between}"
        );
    }

    #[test]
    fn no_round_leaves_the_sets_alone() {
        let data = index(graph(&[0, 1], &[]));
        let query = graph(&[0, 1], &[(0, 1)]);
        let mut sets = CandidateSets::from_lists(vec![vec![0], vec![1]], 2);
        assert_eq!(
            refine(&query, &data, &mut sets, 0, GPU_REFINE_FROM_SHARE, &|| {
                false
            }),
            0
        );
        assert_eq!(sets.sizes(), vec![1, 1]);
        refine(&query, &data, &mut sets, 1, GPU_REFINE_FROM_SHARE, &|| {
            false
        });
        assert_eq!(sets.sizes(), vec![0, 1]);
    }

    /// The sets with every candidate lacking a candidate neighbour along some query edge
    /// removed, again and again until none is: the refinement's fixpoint by its definition,
    /// read from each vertex's whole edge list.
    fn fixpoint(query: &Graph, data: &Graph, mut sets: Vec<Vec<VertexId>>) -> Vec<Vec<VertexId>> {
        loop {
            let before = sets.clone();
            for (u, set) in sets.iter_mut().enumerate() {
                let keep = |v: VertexId| {
                    query.directions().iter().all(|&d| {
                        let (ws, labels) = query.edges(u as VertexId, d);
                        ws.iter().zip(labels).all(|(&w, &l)| {
                            let (xs, xl) = data.edges(v, d);
                            xs.iter()
                                .zip(xl)
                                .any(|(x, &lx)| lx == l && before[w as usize].contains(x))
                        })
                    })
                };
                set.retain(|&v| keep(v));
            }
            if sets == before {
                return sets;
            }
        }
    }

    proptest! {
        #[test]
        fn refinement_reaches_the_fixpoint_of_its_definition(
            n in 1usize..40,
            directed: bool,
            edges in proptest::collection::vec((0u32..40, 0u32..40, 0u32..2), 0..120),
            query_edges in proptest::collection::vec((0u32..5, 0u32..5, 0u32..2), 1..8),
            membership in proptest::collection::vec(proptest::bool::weighted(0.6), 5 * 40),
        ) {
            let data = simple_graph(n, directed, &edges);
            let query = simple_graph(5, directed, &query_edges);
            let lists: Vec<Vec<VertexId>> = (0..5)
                .map(|u| (0..n as VertexId).filter(|&v| membership[u * 40 + v as usize]).collect())
                .collect();
            let expected = fixpoint(&query, &data, lists.clone());
            let index = index(data);
            let mut sets = CandidateSets::from_lists(lists, n);
            refine(&query, &index, &mut sets, 64, CPU_REFINE_FROM_SHARE, &|| false);
            let refined: Vec<Vec<VertexId>> = (0..5).map(|u| sets.list(u).to_vec()).collect();
            // A set left empty ends the refinement (the query has no match): the fixpoint
            // then has an empty set too, and holds no more than the sets refined.
            if refined.iter().any(Vec::is_empty) {
                prop_assert!(expected.iter().any(Vec::is_empty));
                for (e, r) in expected.iter().zip(&refined) {
                    prop_assert!(e.iter().all(|v| r.contains(v)));
                }
            } else {
                prop_assert_eq!(refined, expected);
            }
        }
    }
}
