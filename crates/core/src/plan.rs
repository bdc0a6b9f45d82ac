//! The join plan: the order in which query vertices join (GSI, ICDE 2020, Algorithm 2) and,
//! for each step, the linking edges back to vertices already joined with the "first edge" of
//! Algorithm 4 — the one whose label is rarest in the data graph, which bounds the
//! pre-allocated buffers. The plan is plain data, shared by both engines; `--explain` prints it.

use std::fmt;

use gsi_graph::{Direction, EdgeLabel, Graph, VertexId};

mod clique;
mod count_choice;
pub mod estimate;
mod grid;
mod leaves;
mod pairs;
pub mod refine;
mod shape;
mod step;
pub mod symmetry;
pub mod walks;

pub use count_choice::TreeCountChoice;
pub use leaves::{
    equivalence_classes, LeafGroup, LeafSuffix, LeafTerm, PairCount, Postpone, MAX_LEAF_GROUP,
    MAX_LEAF_LINKS,
};
pub use pairs::wedge;
pub use shape::{core_numbers, triangle_counts};
pub use step::{JoinStep, LinkEdge, OrderBound};

use self::leaves::{postponable, query_neighbours};
use self::refine::CandidateEdges;
use self::symmetry::Symmetry;
use crate::index::DataIndex;
use crate::options::Share;

/// The whole join order.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// One step per query vertex; step i fills column i of the table.
    pub steps: Vec<JoinStep>,
    /// |C(u)| per query vertex, as the plan saw them.
    pub candidate_sizes: Vec<usize>,
    /// Whether the query's edges have a direction (for printing).
    pub directed: bool,
    /// The steps a count multiplies rather than enumerates.
    pub leaves: LeafSuffix,
    /// Rows Algorithm 2's order is expected to produce, summed over its steps: each step
    /// multiplies the rows by the first edge's average list length in the data and by the
    /// share of data vertices that are candidates (a step without a first edge multiplies by
    /// |C(u)|). `auto` compares it with its threshold.
    pub estimated_rows: f64,
    /// How the order was chosen, for `--explain`.
    pub choice: PlanChoice,
    /// The symmetry the steps' bounds break: each match found stands for
    /// [`Symmetry::classes`] matches.
    pub symmetry: Symmetry,
    /// Whether leaves of different labels never share a match (every data vertex has one
    /// label), so that the leaf suffix groups them by label; otherwise in one group.
    pub leaf_groups_by_label: bool,
    /// What the plan joins last to multiply.
    pub postponed: Postpone,
    /// Where the plan is a share's cut by rows ([`crate::options::ShareCut::Rows`]): the rows
    /// of its first steps the join keeps.
    pub row_share: Option<RowShare>,
}

/// A share of a query cut by rows ([`crate::options::ShareCut::Rows`]): the join makes its
/// first tables whole until one holds [`RowShare::rows_to_deal`] rows, or is the widest it may
/// deal ([`Plan::widest_dealt_table`]), and keeps of that table the rows `share` holds
/// ([`Share::holds_row`]). The tables are those of every engine, so every share deals the
/// same one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowShare {
    /// The share whose rows the join keeps.
    pub share: Share,
    /// Rows of the dealt table for each share, at least
    /// ([`crate::options::MatchOptions::rows_per_share`]).
    pub rows_per_share: f64,
}

/// Shares a dealt table has rows for, at least, however few a query is cut into: on gw12's
/// query_dense_12_4, 2,048 rows dealt to 8 shares left the largest 2.5 times the mean's
/// matches, 8,192 rows 1.2 (and its 8 shares took 17.9 s together on the development machine
/// against 19.0); yeast's four heavy queries stayed within 1.2 (docs/DISTRIBUTED.md).
const DEALT_SHARES_MIN: u32 = 32;

/// The most rows a dealt table must hold, whatever the share count (`--partition` may ask for
/// millions of shares): the rows gathered before they are dealt stay below it.
const DEALT_ROWS_MAX: f64 = (1 << 20) as f64;

impl RowShare {
    /// Rows a table must hold to be dealt: [`RowShare::rows_per_share`] for each share, and
    /// for [`DEALT_SHARES_MIN`] at least, up to [`DEALT_ROWS_MAX`].
    pub fn rows_to_deal(&self) -> f64 {
        let shares = self.share.count().max(DEALT_SHARES_MIN);
        (self.rows_per_share * f64::from(shares)).min(DEALT_ROWS_MAX)
    }
}

/// How a plan's order was chosen: which strategy, and what refinement and sampling saw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanChoice {
    /// The strategy of the order: `paper`, `growth` or `links`.
    pub strategy: &'static str,
    /// Σ |C(u)| as the filter left them, when refinement cut them (to the plan's sizes).
    pub filtered_total: Option<usize>,
    /// Each order sampled with its estimated work (partial matches), when orders were sampled.
    pub sampled: Vec<(&'static str, f64)>,
    /// Why no other order was tried, when none was.
    pub kept_because: Option<String>,
    /// The partial matches of this order as random walks estimated them, when walks ran
    /// ([`crate::plan::estimate`]); unlike [`Plan::estimated_rows`], not misled by dense regions.
    pub estimated_work: Option<f64>,
    /// That estimate step by step (empty when no walks ran): what cutting the work into
    /// shares weighs ([`crate::options::Share`]).
    pub estimated_steps: Vec<f64>,
    /// The elements of the lists a count reads, as the walks estimated them (`None` when no
    /// walks ran): each row reads its step's list, and at the leaf suffix each leaf's, however
    /// few of their vertices are candidates (with 100 vertex labels, one in a hundred; on a
    /// hub, lists of a million).
    pub estimated_reads: Option<f64>,
    /// The share of the walks that reached the leaf suffix (or the plan's end), when walks ran:
    /// 0 says the estimate saw nothing of what the rows that survive do.
    pub walks_reached: Option<f64>,
    /// For a count the tree's dynamic program could answer: which method counts it, and why.
    pub tree_count: Option<TreeCountChoice>,
    /// Whether the first walks judged the query light, so that no other order was sampled.
    pub light: bool,
    /// Where the join of the plan judged light ran past its budget and was stopped, how long
    /// it had run: this plan was made again by sampling.
    pub planned_again_after: Option<std::time::Duration>,
    /// Whether automorphisms that move vertices of the leaf suffix were left to its products
    /// rather than broken (which would have sent those vertices back into the enumeration).
    pub suffix_interchanges_counted: bool,
}

impl Strategy<'_> {
    /// The strategy's name, as `--join-order` takes it.
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Paper => "paper",
            Strategy::Growth(_) => "growth",
            Strategy::Links => "links",
            Strategy::Core => "core",
            Strategy::Triangles => "triangles",
        }
    }
}

/// How a plan chooses the next query vertex among those connected to the ones joined.
#[derive(Clone, Copy, Debug)]
pub enum Strategy<'e> {
    /// Algorithm 2's score alone.
    Paper,
    /// The least growth of the rows, estimated from candidate edges; the score breaks ties.
    Growth(&'e CandidateEdges),
    /// The most edges to the vertices joined (RI's rule); the score breaks ties.
    Links,
    /// The query's innermost core first, from its vertex of the least score, then each
    /// vertex of the highest core number among those linked to the joined ones: the densest
    /// part before the cycles around it and the trees hanging off them (CFL-Match's
    /// core-first order, Bi et al., SIGMOD 2016, is its 2-core case; RapidMatch orders by
    /// a nucleus decomposition alike); the score within each.
    Core,
    /// As [`Strategy::Core`], ties in links going to the vertex in the most of the query's
    /// triangles, from the very first: its densest part first where triangles are rare in the
    /// data (wordnet's query_sparse_8_48, a cube less a corner: 3.5 s from a vertex of its
    /// core, 0.24 s from its one triangle, on one CPU thread). Only a candidate for the
    /// sampler: where triangles abound (yeast), it misled the estimates on 15 of 122
    /// queries whose order it changed as the core order's tie-break (up to 15 times slower).
    Triangles,
}

/// Extensions a row is expected to get through an edge labelled `label` read in `direction`
/// towards a vertex of `candidates` candidates: the partition's average list length, times
/// the share of data vertices that are candidates.
fn expansion(data: &DataIndex, label: EdgeLabel, direction: Direction, candidates: usize) -> f64 {
    let n = data.graph().vertex_count().max(1) as f64;
    let average = data
        .pcsr()
        .partition_index(label, direction)
        .map(|i| data.pcsr().partition(i))
        .map_or(0.0, |p| {
            p.column_index().len() as f64 / p.vertex_count().max(1) as f64
        });
    average * candidates as f64 / n
}

/// The rows expected into each of `steps` in turn (Algorithm 2's estimate): each step's
/// first edge multiplies the rows by its label's average degree, scaled to C(u).
fn step_rows<'s>(
    data: &'s DataIndex,
    steps: &'s [JoinStep],
    candidate_sizes: &'s [usize],
) -> impl Iterator<Item = f64> + 's {
    steps.iter().scan(1.0f64, move |rows, step| {
        let candidates = candidate_sizes[step.vertex];
        *rows *= match step.first {
            None => candidates as f64,
            Some(e) => expansion(data, e.label, e.direction, candidates),
        };
        *rows = rows.min(1e30);
        Some(*rows)
    })
}

impl Plan {
    /// The partial matches the join enumerates, by the walks' estimate of each step when they
    /// ran, else Algorithm 2's: the rows of the steps before the leaf suffix, and once more
    /// those that reach it (each counts the suffix's matches as one product).
    pub fn enumerated_rows(&self, data: &DataIndex) -> f64 {
        let estimated;
        let per_step: &[f64] = match self.choice.estimated_steps.len() == self.steps.len() {
            true => &self.choice.estimated_steps,
            false => {
                estimated = step_rows(data, &self.steps, &self.candidate_sizes).collect::<Vec<_>>();
                &estimated
            }
        };
        let from = self.leaves.from.min(per_step.len());
        let reaching = match from < per_step.len() {
            true => from.checked_sub(1).map_or(1.0, |last| per_step[last]),
            false => 0.0,
        };
        per_step[..from].iter().sum::<f64>() + reaching
    }

    /// The rows the join is expected to produce, summed over its steps: the walks' estimate
    /// when they ran, else [`Plan::estimated_rows`].
    pub fn expected_rows(&self) -> f64 {
        self.choice.estimated_work.unwrap_or(self.estimated_rows)
    }

    /// A count's work by this plan, in the units of [`crate::tree_count::work`]: the rows
    /// expected, and the elements of the lists they read where the walks estimated them.
    pub fn count_work(&self) -> f64 {
        self.expected_rows() + self.choice.estimated_reads.unwrap_or(0.0)
    }

    /// Orders the query vertices by Algorithm 2.
    ///
    /// Scores start at |C(u)| / deg(u); after each vertex joins, the score of each of its query
    /// neighbours is multiplied by the relative frequency in the data graph of the label of
    /// the edge between them (freq(l) = |E(G, l)| / |E(G)|), so that vertices tied to the
    /// joined ones by more and rarer edges come first. The next vertex is always connected to
    /// those joined when any remaining one is.
    ///
    /// With `postpone_leaves` (for a count), the vertices of [`LeafSuffix`] join last, in
    /// the same order of scores, after Algorithm 2 has ordered the others (which stay
    /// connected). [`Plan::estimated_rows`] is that of Algorithm 2's own order either way.
    pub fn build(
        query: &Graph,
        candidate_sizes: &[usize],
        data: &DataIndex,
        postpone_leaves: bool,
    ) -> Plan {
        let postpone = match postpone_leaves {
            true => Postpone::Leaves,
            false => Postpone::Nothing,
        };
        Plan::with_strategy(
            query,
            candidate_sizes,
            data,
            postpone,
            Strategy::Paper,
            &|| false,
        )
    }

    /// Orders the query vertices by `strategy`; otherwise as [`Plan::build`]. Once `stop`
    /// says so (the query is out of time), the vertices not yet ordered follow as they come:
    /// the plan stays exact, and the join it is for stops at once.
    pub fn with_strategy(
        query: &Graph,
        candidate_sizes: &[usize],
        data: &DataIndex,
        postpone: Postpone,
        strategy: Strategy<'_>,
        stop: &dyn Fn() -> bool,
    ) -> Plan {
        let n = query.vertex_count();
        let paper = Plan::ordered(
            query,
            candidate_sizes,
            data,
            vec![0; n],
            Strategy::Paper,
            Postpone::Nothing,
            stop,
        );
        // Out of time, the plain order is the plan: the join stops at once, and postponing
        // costs passes over the query (a 100,000-vertex query: a tenth of a second each).
        if matches!(strategy, Strategy::Paper) && postpone == Postpone::Nothing || stop() {
            return paper;
        }
        let postponed = postponable(query, !data.graph().has_label_sets(), postpone);
        Plan {
            estimated_rows: paper.estimated_rows,
            ..Plan::ordered(
                query,
                candidate_sizes,
                data,
                postponed.into_iter().map(usize::from).collect(),
                strategy,
                postpone,
                stop,
            )
        }
    }

    /// A count's plan whose last steps are the pair count of `wedge` ([`wedge`]): the other
    /// vertices (the core) in the order of `preferred` (another plan's, x, y and z left
    /// out), each joined once a vertex before it is its neighbour, then x, y and z. Its
    /// symmetry, once broken, may leave no pair count ([`PairCount::after_bounds`]).
    pub fn with_pair_count(
        query: &Graph,
        candidate_sizes: &[usize],
        data: &DataIndex,
        (x, y, z): (usize, usize, usize),
        preferred: &[usize],
    ) -> Plan {
        let n = query.vertex_count();
        let mut left: Vec<usize> = preferred
            .iter()
            .copied()
            .filter(|&u| u != x && u != y && u != z)
            .collect();
        let mut joined = vec![false; n];
        let mut rank = vec![0; n];
        for position in 0..left.len() {
            // The first vertex left linked to one joined (the core is connected), the very
            // first to start.
            let next = left
                .iter()
                .position(|&u| query_neighbours(query, u).iter().any(|&w| joined[w]))
                .unwrap_or(0);
            let u = left.remove(next);
            joined[u] = true;
            rank[u] = position;
        }
        let core = n - 3;
        (rank[x], rank[y], rank[z]) = (core, core + 1, core + 2);
        let mut plan = Plan::ordered(
            query,
            candidate_sizes,
            data,
            rank,
            Strategy::Paper,
            Postpone::Nothing,
            &|| false,
        );
        plan.leaves = LeafSuffix {
            pairs: Some(PairCount { ordered: true }),
            ..LeafSuffix::none(n)
        }
        .starting_at(core);
        plan
    }

    /// Orders the vertices of `rank` 0 by `strategy`, then those of rank 1 (postponed), and
    /// so on (each rank by index once `stop` says so); unless `multiply` is
    /// [`Postpone::Nothing`], the plan's [`LeafSuffix`] starts at the postponed ones or before.
    fn ordered(
        query: &Graph,
        candidate_sizes: &[usize],
        data: &DataIndex,
        rank: Vec<usize>,
        strategy: Strategy<'_>,
        multiply: Postpone,
        stop: &dyn Fn() -> bool,
    ) -> Plan {
        let n = query.vertex_count();
        let total_edges = data.graph().edge_count().max(1) as f64;
        let freq = |l: EdgeLabel| data.edge_label_count(l) as f64 / total_edges;
        let degree = |u: usize| query.total_degree(u as u32).max(1) as f64;
        let mut score: Vec<f64> = (0..n)
            .map(|u| candidate_sizes[u] as f64 / degree(u))
            .collect();
        let mut column = vec![usize::MAX; n];
        let mut steps = Vec::with_capacity(n);
        let mut connected = vec![false; n];
        let core = rank.iter().filter(|&&r| r == 0).count();
        // The rank of the vertex that joins at each step.
        let mut ranks = rank.clone();
        ranks.sort_unstable();
        let (core_number, triangles) = match strategy {
            Strategy::Core => (core_numbers(query), vec![0; n]),
            Strategy::Triangles => (core_numbers(query), triangle_counts(query)),
            _ => (vec![0; n], vec![0; n]),
        };
        // Growth: the factor by which joining u multiplies the rows, from the candidate edges
        // to the vertices joined before it (their independence assumed); the number of those
        // edges breaks ties. A vertex that would multiply the rows without constraining any
        // vertex after it (all its neighbours joined) waits: joined later, it multiplies
        // fewer rows.
        let neighbours: Vec<Vec<usize>> = match strategy {
            Strategy::Growth(_) => (0..n).map(|u| query_neighbours(query, u)).collect(),
            _ => Vec::new(),
        };
        let growth = |edges: &CandidateEdges, u: usize, column: &[usize]| -> (bool, f64, usize) {
            let size = candidate_sizes[u] as f64;
            let mut factor = size;
            let mut links = 0;
            let mut open = false;
            for &w in &neighbours[u] {
                let Some(pairs) = edges.between(w, u) else {
                    continue;
                };
                if column[w] == usize::MAX {
                    open |= w != u;
                    continue;
                }
                let pairs_possible = candidate_sizes[w] as f64 * size;
                factor *= if pairs_possible > 0.0 {
                    pairs / pairs_possible
                } else {
                    0.0
                };
                links += 1;
            }
            (!open && factor >= 1.0, factor, links)
        };
        // Links: edges to the vertices joined before u, most first (RI, Bonnici et al. 2013).
        let joined_neighbours = |u: usize, column: &[usize]| -> usize {
            query
                .directions()
                .iter()
                .flat_map(|&d| query.edges(u as VertexId, d).0)
                .filter(|&&w| column[w as usize] != usize::MAX)
                .count()
        };
        // The vertices left once `stop` said so, in the order they join.
        let mut left: Option<std::vec::IntoIter<usize>> = None;
        for (i, &joining) in ranks.iter().enumerate() {
            if left.is_none() && stop() {
                let mut rest: Vec<usize> = (0..n).filter(|&u| column[u] == usize::MAX).collect();
                rest.sort_by_key(|&u| rank[u]);
                left = Some(rest.into_iter());
            }
            let pick = |only_connected: bool| {
                (0..n)
                    .filter(|&u| column[u] == usize::MAX && rank[u] == joining)
                    .filter(|&u| !only_connected || connected[u])
                    .min_by(|&a, &b| {
                        let by_strategy = match strategy {
                            // The innermost core first, from the very first vertex; within
                            // a core, the most links (docs/BENCHMARKS.md, sixteenth round),
                            // then (for Triangles) the most triangles.
                            Strategy::Core | Strategy::Triangles => core_number[b]
                                .cmp(&core_number[a])
                                .then(
                                    joined_neighbours(b, &column)
                                        .cmp(&joined_neighbours(a, &column)),
                                )
                                .then(triangles[b].cmp(&triangles[a])),
                            _ if !only_connected => std::cmp::Ordering::Equal,
                            Strategy::Paper => std::cmp::Ordering::Equal,
                            Strategy::Growth(edges) => {
                                let (wa, ga, la) = growth(edges, a, &column);
                                let (wb, gb, lb) = growth(edges, b, &column);
                                wa.cmp(&wb).then(ga.total_cmp(&gb)).then(lb.cmp(&la))
                            }
                            Strategy::Links => {
                                joined_neighbours(b, &column).cmp(&joined_neighbours(a, &column))
                            }
                        };
                        by_strategy.then(score[a].total_cmp(&score[b]))
                    })
            };
            let u = match left.as_mut() {
                Some(rest) => rest.next(),
                None => pick(true).or_else(|| pick(false)),
            }
            .expect("a vertex is left");
            column[u] = i;
            let mut links = Vec::new();
            for &direction in query.directions() {
                // An edge u -direction-> w is read from w's match the other way.
                let reverse = direction.reverse().stored(query.is_directed());
                let (neighbors, labels) = query.edges(u as u32, direction);
                for (&w, &l) in neighbors.iter().zip(labels) {
                    let w = w as usize;
                    if column[w] == usize::MAX {
                        score[w] *= freq(l);
                        connected[w] = true;
                    } else if column[w] < i {
                        links.push(LinkEdge {
                            column: column[w],
                            label: l,
                            direction: reverse,
                        });
                    }
                }
            }
            links.sort_by_key(|e| (data.edge_label_count(e.label), e.column));
            let mut links = links.into_iter();
            steps.push(JoinStep {
                vertex: u,
                first: links.next(),
                others: links.collect(),
                order_bounds: Vec::new(),
                absent: Vec::new(),
            });
        }
        let estimated_rows = step_rows(data, &steps, candidate_sizes).sum();
        let leaf_groups_by_label = !data.graph().has_label_sets();
        let leaves = if multiply != Postpone::Nothing {
            LeafSuffix::of(
                query,
                &steps,
                core,
                &vec![false; n],
                leaf_groups_by_label,
                multiply,
            )
        } else {
            LeafSuffix::none(n)
        };
        Plan {
            steps,
            candidate_sizes: candidate_sizes.to_vec(),
            directed: query.is_directed(),
            estimated_rows,
            leaves,
            choice: PlanChoice {
                strategy: strategy.name(),
                ..PlanChoice::default()
            },
            symmetry: Symmetry::none(),
            leaf_groups_by_label,
            postponed: multiply,
            row_share: None,
        }
    }

    /// Imposes `symmetry`'s constraints: each becomes an order bound of the later of its two steps.
    /// A constrained vertex leaves the leaf suffix (whose products would count the matches
    /// the bounds cut), and with it the steps before it.
    pub fn break_symmetry(&mut self, query: &Graph, symmetry: Symmetry) {
        let mut column = vec![0; self.steps.len()];
        for (i, st) in self.steps.iter().enumerate() {
            column[st.vertex] = i;
        }
        for &(low, high) in &symmetry.constraints {
            let (a, b) = (column[low], column[high]);
            let (step, bound) = if a < b {
                (
                    b,
                    OrderBound {
                        column: a,
                        above: true,
                    },
                )
            } else {
                (
                    a,
                    OrderBound {
                        column: b,
                        above: false,
                    },
                )
            };
            self.steps[step].order_bounds.push(bound);
        }
        if self.leaves.pairs.is_some() {
            let from = self.leaves.from;
            self.leaves = match PairCount::after_bounds(&self.steps, from) {
                Some(pairs) => LeafSuffix {
                    pairs: Some(pairs),
                    ..LeafSuffix::none(self.width())
                }
                .starting_at(from),
                None => LeafSuffix::none(self.width()),
            };
            self.symmetry = symmetry;
            return;
        }
        let constrained: Vec<bool> = (0..self.steps.len())
            .map(|u| symmetry.constrains(u))
            .collect();
        let last_constrained = (self.leaves.from..self.steps.len())
            .rev()
            .find(|&i| constrained[self.steps[i].vertex]);
        if let Some(last) = last_constrained {
            self.leaves = LeafSuffix::of(
                query,
                &self.steps,
                last + 1,
                &constrained,
                self.leaf_groups_by_label,
                self.postponed,
            );
        }
        self.symmetry = symmetry;
    }

    /// Induced matching: gives every step the edges its match must not have to the earlier
    /// columns' matches — each label of `data_labels` in each direction that the query does not
    /// have between the two vertices.
    pub fn exclude_other_edges(&mut self, query: &Graph, data_labels: &[EdgeLabel]) {
        for i in 0..self.steps.len() {
            let u = self.steps[i].vertex as VertexId;
            let mut absent = Vec::new();
            for (column, earlier) in self.steps[..i].iter().enumerate() {
                let w = earlier.vertex as VertexId;
                for &direction in query.directions() {
                    // x in N(row[column], label, direction) is the edge w -direction-> u.
                    for &label in data_labels {
                        if query
                            .neighbors(w, label, direction)
                            .binary_search(&u)
                            .is_err()
                        {
                            absent.push(LinkEdge {
                                column,
                                label,
                                direction,
                            });
                        }
                    }
                }
            }
            self.steps[i].absent = absent;
        }
    }

    /// Number of query vertices.
    pub fn width(&self) -> usize {
        self.steps.len()
    }

    /// `order[i]` is the query vertex in column i.
    pub fn order(&self) -> Vec<usize> {
        self.steps.iter().map(|s| s.vertex).collect()
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = self.order();
        writeln!(f, "join order (query vertex: |C(u)|):")?;
        for (i, step) in self.steps.iter().enumerate() {
            write!(
                f,
                "  step {i}: u{} |C|={}",
                step.vertex, self.candidate_sizes[step.vertex]
            )?;
            if step.first.is_none() {
                write!(f, "  start from C(u{})", step.vertex)?;
            }
            for (k, e) in step.links().enumerate() {
                let arrow = match (self.directed, e.direction) {
                    (false, _) => "--",
                    (true, Direction::Out) => "->",
                    (true, Direction::In) => "<-",
                };
                let tag = if k == 0 { "first edge" } else { "then" };
                write!(
                    f,
                    "  {tag} u{} {arrow} (label {})",
                    order[e.column], e.label
                )?;
            }
            for b in &step.order_bounds {
                let sign = if b.above { '>' } else { '<' };
                write!(f, "  keeps u{} {sign} u{}", step.vertex, order[b.column])?;
            }
            if !step.absent.is_empty() {
                write!(f, "  no other edge ({} tested)", step.absent.len())?;
            }
            writeln!(f)?;
        }
        let choice = &self.choice;
        if let Some(total) = choice.filtered_total {
            let now: usize = self.candidate_sizes.iter().sum();
            writeln!(f, "  candidate sets refined: {total} candidates -> {now}")?;
        }
        write!(f, "  order: {}", choice.strategy)?;
        if !choice.sampled.is_empty() {
            let tried: Vec<String> = choice
                .sampled
                .iter()
                .map(|(name, work)| format!("{name} {work:.3e}"))
                .collect();
            write!(f, " (least work sampled: {})", tried.join(", "))?;
        }
        if let Some(reason) = &choice.kept_because {
            write!(f, " ({reason})")?;
        }
        if let Some(after) = choice.planned_again_after {
            write!(
                f,
                " (planned again by sampling: the join of the plan judged light stopped after \
                 {:.1} ms)",
                after.as_secs_f64() * 1e3
            )?;
        }
        writeln!(f)?;
        if let Some(tree_count) = &choice.tree_count {
            writeln!(f, "  {tree_count}")?;
        }
        if !self.symmetry.is_trivial() {
            let orbits: Vec<String> = self
                .symmetry
                .orbits()
                .map(|(v, size)| format!("u{v} in an orbit of {size}"))
                .collect();
            write!(
                f,
                "  symmetry: {} automorphisms broken ({}); each match found stands for {}",
                self.symmetry.classes(),
                orbits.join(", "),
                self.symmetry.classes()
            )?;
            if choice.suffix_interchanges_counted {
                write!(
                    f,
                    "; the leaf suffix's interchanges counted by its products"
                )?;
            }
            writeln!(f)?;
        } else if choice.suffix_interchanges_counted {
            writeln!(
                f,
                "  symmetry: the leaf suffix's interchanges counted by its products"
            )?;
        }
        if let Some(cut) = self.row_share {
            writeln!(
                f,
                "  share {}/{}: the first table of {} rows or more dealt by rows (the steps before made whole)",
                cut.share.index(),
                cut.share.count(),
                cut.rows_to_deal()
            )?;
        }
        let leaves = &self.leaves;
        if let (Some(pairs), [x, y, z]) = (leaves.pairs, &self.steps[leaves.from..]) {
            writeln!(
                f,
                "  a count counts steps {}..{} by their pairs per row of step {}: u{} and u{} from one extension set E, u{} over the data vertices linked to two members of E ({} order{})",
                leaves.from,
                self.steps.len() - 1,
                leaves.from - 1,
                x.vertex,
                y.vertex,
                z.vertex,
                if pairs.ordered { "both" } else { "one" },
                if pairs.ordered { "s" } else { "" },
            )?;
        } else if leaves.from < self.steps.len() {
            let vertices: Vec<String> = self.steps[leaves.from..]
                .iter()
                .map(|s| format!("u{}", s.vertex))
                .collect();
            writeln!(
                f,
                "  a count multiplies steps {}..{} (independent vertices {}) per row of step {}, in {} label group(s)",
                leaves.from,
                self.steps.len() - 1,
                vertices.join(" "),
                leaves.from - 1,
                leaves.groups.len()
            )?;
            for group in leaves.groups.iter().filter(|g| g.equivalent) {
                let members: Vec<String> = group
                    .steps
                    .iter()
                    .map(|&i| format!("u{}", self.steps[i].vertex))
                    .collect();
                writeln!(
                    f,
                    "  equivalent vertices {} counted, not enumerated: one extension set E, |E|!/(|E|-{k})! injective choices (|E|^{k} under homomorphism)",
                    members.join(" "),
                    k = members.len()
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::graph;

    #[test]
    fn a_dealt_table_has_rows_for_32_shares_at_least_and_a_million_at_most() {
        let cut = |count, rows_per_share| RowShare {
            share: Share::new(0, count).unwrap(),
            rows_per_share,
        };
        assert_eq!(cut(8, 256.0).rows_to_deal(), 8192.0);
        assert_eq!(cut(64, 256.0).rows_to_deal(), 16384.0);
        assert_eq!(cut(8, 0.0).rows_to_deal(), 0.0);
        assert_eq!(cut(1 << 30, 256.0).rows_to_deal(), DEALT_ROWS_MAX);
        assert_eq!(cut(8, f64::INFINITY).rows_to_deal(), DEALT_ROWS_MAX);
    }

    #[test]
    fn the_triangle_order_starts_from_the_query_s_triangle() {
        let data = DataIndex::build(graph(false, &[0; 4], &[(0, 1, 0), (1, 2, 0)])).unwrap();
        let query = crate::testing::cube_less_a_corner();
        let order = |strategy| {
            Plan::with_strategy(&query, &[9; 8], &data, Postpone::Nothing, strategy, &|| {
                false
            })
            .order()
        };
        let mut first = order(Strategy::Triangles)[..3].to_vec();
        first.sort_unstable();
        assert_eq!(first, [5, 6, 7]);
        // The core order, every vertex of the core alike, starts from the first of them.
        assert_eq!(order(Strategy::Core)[0], 1);
    }

    #[test]
    fn a_class_of_equivalent_vertices_stays_a_group_of_its_own() {
        let data = DataIndex::build(graph(false, &[0; 4], &[(0, 1, 0), (1, 2, 0)])).unwrap();
        // 4, 5 and 6 on 0 and 1 (equivalent); 3 on 0 and 2, joined last of the others and
        // independent of the class: it is not counted with it.
        let mut edges = vec![(0, 2, 0), (1, 2, 0), (2, 3, 0), (0, 3, 0)];
        for member in 4..7 {
            edges.extend([(member, 0, 0), (member, 1, 0)]);
        }
        let query = graph(false, &[0; 7], &edges);
        let sizes = [1, 1, 1, 1000, 5, 5, 5];
        let plan = Plan::with_strategy(
            &query,
            &sizes,
            &data,
            Postpone::Equivalents,
            Strategy::Paper,
            &|| false,
        );
        assert_eq!(plan.order()[3], 3, "{plan}");
        assert_eq!(plan.leaves.from, 4, "{plan}");
        let [group] = &plan.leaves.groups[..] else {
            panic!("one group: {plan}");
        };
        assert!(group.equivalent, "{plan}");
        // Out of time, nothing is postponed: the plain order, every vertex joined in it.
        let stopped = Plan::with_strategy(
            &query,
            &sizes,
            &data,
            Postpone::Equivalents,
            Strategy::Core,
            &|| true,
        );
        assert_eq!(stopped.leaves.from, 7, "{stopped}");
        assert!(stopped.leaves.groups.is_empty(), "{stopped}");
        assert_eq!(stopped.order(), [0, 1, 2, 3, 4, 5, 6], "{stopped}");
    }

    #[test]
    fn a_pair_count_joins_its_core_in_the_order_given_each_vertex_linked() {
        let data = DataIndex::build(graph(false, &[0; 4], &[(0, 1, 0), (1, 2, 0)])).unwrap();
        // Core path 0-1-2; x = 3 and y = 4 on 0; z = 5 on x and y.
        let edges = [
            (0, 1, 0),
            (1, 2, 0),
            (3, 0, 0),
            (4, 0, 0),
            (5, 3, 0),
            (5, 4, 0),
        ];
        let query = graph(false, &[0; 6], &edges);
        // 0 is given second, but joins once 1 links it to 2.
        let plan = Plan::with_pair_count(&query, &[9; 6], &data, (3, 4, 5), &[2, 0, 1, 5, 4, 3]);
        assert_eq!(plan.order(), [2, 1, 0, 3, 4, 5]);
        assert_eq!(plan.leaves.from, 3);
        assert!(plan.leaves.pairs.is_some());
        for (i, step) in plan.steps.iter().enumerate().skip(1) {
            assert!(step.links().all(|e| e.column < i), "{plan}");
        }
    }

    #[test]
    fn starts_at_smallest_score_and_stays_connected() {
        // Data: label 1 is rare, label 0 common.
        let data = graph(
            false,
            &[0; 6],
            &[(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 1)],
        );
        let data = DataIndex::build(data).unwrap();
        // Query path 0 -0- 1 -0- 2 -1- 3.
        let query = graph(false, &[0; 4], &[(0, 1, 0), (1, 2, 0), (2, 3, 1)]);
        let plan = Plan::build(&query, &[10, 10, 10, 2], &data, false);
        assert_eq!(plan.order(), vec![3, 2, 1, 0]);
        assert!(plan.steps[0].first.is_none());
        for (i, step) in plan.steps.iter().enumerate().skip(1) {
            assert!(step.first.is_some());
            assert!(step.links().all(|e| e.column < i));
        }
    }

    #[test]
    fn first_edge_has_the_rarest_label() {
        let data = graph(false, &[0; 4], &[(0, 1, 5), (1, 2, 5), (2, 3, 7)]);
        let data = DataIndex::build(data).unwrap();
        let query = graph(false, &[0; 3], &[(0, 1, 5), (0, 2, 5), (1, 2, 7)]);
        let plan = Plan::build(&query, &[1, 5, 5], &data, false);
        assert_eq!(plan.steps[2].first.unwrap().label, 7);
        assert_eq!(plan.steps[2].others.len(), 1);
    }

    #[test]
    fn directed_links_read_the_right_direction() {
        let data = DataIndex::build(graph(true, &[0, 0], &[(0, 1, 0)])).unwrap();
        let query = graph(true, &[0, 0], &[(0, 1, 0)]);
        let plan = Plan::build(&query, &[1, 5], &data, false);
        assert_eq!(plan.order(), vec![0, 1]);
        // From u0's match, u1 is reached along out-edges.
        assert_eq!(plan.steps[1].first.unwrap().direction, Direction::Out);
        let plan = Plan::build(&query, &[5, 1], &data, false);
        assert_eq!(plan.steps[1].first.unwrap().direction, Direction::In);
    }

    #[test]
    fn leaves_join_last_and_are_grouped_by_label() {
        // A star: centre 0 (label 5), leaves 1 and 2 (label 1) and 3 (label 2).
        let data = DataIndex::build(graph(
            false,
            &[5, 1, 1, 2],
            &[(0, 1, 0), (0, 2, 0), (0, 3, 0)],
        ))
        .unwrap();
        let query = graph(false, &[5, 1, 1, 2], &[(0, 1, 0), (0, 2, 0), (0, 3, 0)]);
        let plan = Plan::build(&query, &[1, 8, 8, 8], &data, true);
        assert_eq!(plan.steps[0].vertex, 0);
        assert_eq!(plan.leaves.from, 1);
        let mut groups: Vec<Vec<usize>> = plan
            .leaves
            .groups
            .iter()
            .map(|g| g.steps.iter().map(|&s| plan.steps[s].vertex).collect())
            .collect();
        groups.sort();
        assert_eq!(groups, vec![vec![1, 2], vec![3]]);
        let plain = Plan::build(&query, &[1, 8, 8, 8], &data, false);
        assert_eq!(plain.leaves.from, 4);
        // The estimate is Algorithm 2's, however the leaves join.
        assert_eq!(plan.estimated_rows, plain.estimated_rows);
        // One leaf last is just the last step: no suffix (a single edge, here).
        let edge = graph(false, &[0, 0], &[(0, 1, 0)]);
        assert_eq!(Plan::build(&edge, &[1, 8], &data, true).leaves.from, 2);
    }

    #[test]
    fn independent_last_steps_join_the_leaves_in_the_suffix() {
        let data = DataIndex::build(graph(false, &[0; 2], &[(0, 1, 0)])).unwrap();
        // A triangle 0-1-2, vertex 3 on 0 and 1 (no leaf), leaf 4 on 2.
        let query = graph(
            false,
            &[0; 5],
            &[
                (0, 1, 0),
                (1, 2, 0),
                (0, 2, 0),
                (0, 3, 0),
                (1, 3, 0),
                (2, 4, 0),
            ],
        );
        // Vertex 3 has the most candidates: Algorithm 2 joins it after the triangle.
        let plan = Plan::build(&query, &[1, 1, 1, 9, 9], &data, true);
        let suffix: Vec<usize> = plan.steps[plan.leaves.from..]
            .iter()
            .map(|s| s.vertex)
            .collect();
        assert_eq!(plan.leaves.from, 3);
        assert!(suffix.contains(&3) && suffix.contains(&4));
        assert_eq!(plan.leaves.groups.len(), 1);
        assert_eq!(plan.leaves.groups[0].steps, vec![3, 4]);
        // Without postponement, no suffix.
        assert_eq!(
            Plan::build(&query, &[1, 1, 1, 9, 9], &data, false)
                .leaves
                .from,
            5
        );
    }

    #[test]
    fn disconnected_queries_start_each_component_afresh() {
        let data = DataIndex::build(graph(false, &[0; 2], &[(0, 1, 0)])).unwrap();
        let query = graph(false, &[0; 3], &[(0, 1, 0)]);
        let plan = Plan::build(&query, &[2, 2, 1], &data, false);
        assert_eq!(plan.steps.iter().filter(|s| s.first.is_none()).count(), 2);
    }
}
