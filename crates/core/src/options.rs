//! How one query is run and how it ended: the values that the engines and the join driver
//! share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gsi_graph::{EdgeLabel, VertexId};

use crate::random::mix;

/// What counts as a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    /// Injective (Definition 3 of the paper): distinct query vertices, distinct data vertices.
    #[default]
    Isomorphism,
    /// No injectivity: the join skips the set subtraction (Sec. 7, "Extensions").
    Homomorphism,
    /// Induced: injective, and two query vertices are joined by exactly the edges (labels and
    /// directions) that join their matches in the data graph — a query non-edge maps to a
    /// data non-edge.
    Induced,
}

impl Semantics {
    /// Whether distinct query vertices need distinct data vertices.
    pub fn injective(self) -> bool {
        self != Semantics::Homomorphism
    }
}

/// What the filter tests a candidate on: the paper's signature (Sec. 3.2), or its label and
/// degrees only (the filter of GpSM and GunrockSM, for the paper's filtering experiment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FilterTests {
    /// Label, degrees and the neighbourhood's signature bits.
    #[default]
    Signature,
    /// Label and degrees.
    LabelAndDegree,
}

/// How one query is run: what counts as a match, when to stop, which share, how candidates
/// are refined and the join ordered. How an engine's join goes about it is its tuning
/// ([`crate::tuning`]), set when the engine is opened.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Isomorphism, homomorphism or induced.
    pub semantics: Semantics,
    /// What the filter tests: the signature, or label and degree only (a switch for the
    /// paper's filtering experiment).
    pub filter: FilterTests,
    /// Under induced matching, the data edge labels whose absence is tested between two
    /// matched vertices where the query has no edge of that label between theirs; `None`:
    /// every label of the data graph. (Edge isomorphism needs only its line graphs' two,
    /// `gsi_graph::line::ABSENT_LABELS`.)
    pub absent_labels: Option<Vec<EdgeLabel>>,
    /// Stop after this many matches.
    pub limit: Option<u64>,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Bytes the join's tables and buffers may hold at once; larger work is split in chunks.
    /// Default: [`crate::memory::default_budget`], half of what the process may use. The
    /// engine hands it (less, where its device has less) to the join driver, which gives each
    /// backend its part; no backend reads it here.
    pub memory_budget: usize,
    /// Stop as soon as this is set (the caller was asked to stop, say by a signal).
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Set by the caller's sink once it holds every match it wants (gsi-sparql's `LIMIT`
    /// after `DISTINCT` or `FILTER`): the search then ends as at its `limit`, and
    /// `interrupt` stays the caller's own.
    pub enough: Option<Arc<AtomicBool>>,
    /// Set once a count made beside this one has finished first (the query's programs beside
    /// its join, or the join beside its programs, [`MatchOptions::programs_beside_after`]):
    /// the search ends as if interrupted, and its report is dropped.
    pub overtaken: Option<Arc<AtomicBool>>,
    /// When only the count is wanted, finish depth-first from a step with at least this many
    /// rows: `None` leaves it to the engine, `Some(0)` goes depth-first at once, `Some(usize::MAX)`
    /// never (a switch for tests and measurements).
    pub depth_first_rows: Option<usize>,
    /// Join leaves and isolated query vertices last, and count them as products
    /// ([`crate::plan::LeafSuffix`]); off for tests and measurements of the plain join.
    pub postpone_leaves: bool,
    /// Find only this share of the matches (to spread one query over processes or machines).
    /// A share is planned alike by every engine: what pays before the join is then judged by
    /// these options (a GPU's judgment where they leave it open), not by the engine.
    pub share: Option<Share>,
    /// How a query is cut into shares: by rows, or as a grid of its first vertices (a switch
    /// for tests and measurements). Every share of one query must be cut the same way.
    pub share_cut: ShareCut,
    /// Rows of the table a query cut by rows deals, at least, for each share (and for 32
    /// where there are fewer; at most 2^20 in all, [`crate::plan::RowShare::rows_to_deal`]):
    /// the more, the more evenly a heavy row's work falls, but each share makes the steps
    /// before that table whole. 0 deals the first table's rows, `f64::INFINITY` those of the
    /// widest it may deal, or of the first of 2^20 rows (switches for tests and
    /// measurements). Every share of one query must be cut the same way.
    pub rows_per_share: f64,
    /// Shares per engine of a query spread over several ([`crate::find_matches_spread`]).
    pub shares_per_engine: u32,
    /// Rounds of neighbourhood refinement after the signature filter ([`crate::plan::refine`]);
    /// 0 keeps the paper's candidate sets.
    pub refine_rounds: usize,
    /// How the join order is chosen.
    pub join_order: JoinOrder,
    /// Estimated partial matches per neighbour-list entry the planner would read from which
    /// refining and sampling pay ([`crate::plan::estimate`]): the joining engine's
    /// ([`crate::Engine::planning_pays_from`]), which the search sets when it is `None`.
    pub planning_pays_from: Option<f64>,
    /// Estimated partial matches from which a query counts as heavy: its join order is then
    /// chosen by sampling under [`JoinOrder::Sampled`] ([`crate::plan::estimate`]); 0 treats every
    /// query so.
    pub heavy_query_work: f64,
    /// Estimated work of a count over a query's quotients from which its sets, where the
    /// engine's plan left them unrefined (a GPU's), are refined for the programs that count
    /// it on the host ([`REFINE_FOR_PROGRAMS_FROM`]); `f64::INFINITY`: never.
    pub refine_for_programs_from: f64,
    /// Estimated work of a query's join ([`crate::plan::Plan::count_work`]) from which a
    /// query with cycles, trees hanging from its core, has its quotients weighed against it
    /// ([`CYCLIC_QUOTIENTS_FROM`]); `f64::INFINITY`: only where forced.
    pub cyclic_quotients_from: f64,
    /// Where the estimates chose the join of a count that programs could make instead (a
    /// tree's dynamic program, its quotients', its core's), how long the join runs before
    /// they start on the host beside it, the first to finish giving the count: `None` leaves
    /// it to the engine ([`crate::Engine::programs_beside_after`]: a GPU's join leaves the
    /// host's threads free, the CPU's does not), `Some(Duration::MAX)` never (a switch for
    /// tests and measurements).
    pub programs_beside_after: Option<Duration>,
    /// How long the join of a count whose plan the first walks judged light may run before
    /// the query is planned again by sampling and joined anew
    /// ([`crate::Engine::light_join_budget`] where `None`); `Some(Duration::MAX)` never (a
    /// switch for tests and measurements).
    pub light_join_budget: Option<Duration>,
    /// Counts one match per class of the query's automorphisms and multiplies (isomorphism
    /// without a limit, [`crate::plan::symmetry`]); off for tests and measurements.
    pub symmetry: bool,
    /// When a tree-shaped query whose homomorphisms are its matches is counted by dynamic
    /// programming instead of a join ([`crate::tree_count`]).
    pub tree_counts: TreeCounts,
    /// Counts the 2-core of a query counted over its core ([`crate::core_count`]) by dynamic
    /// programming with one vertex pinned, where that vertex leaves a forest, rather than by
    /// its join; off for tests and measurements.
    pub pinned_cores: bool,
    /// A pinned core's program finds each tree edge's candidate edges once, where they fit
    /// the memory budget, rather than read whole neighbour lists for each candidate of the
    /// pinned vertex ([`crate::candidates::CandidateEdgeLists`]); off for tests and measurements.
    pub program_candidate_edges: bool,
    /// The CPU filter scans, for a query vertex, a pinned neighbour's list or the vertices
    /// with an edge of one of its labels where fewer than its label's ([`crate::cpu::pools`]);
    /// off for tests and measurements.
    pub narrow_pools: bool,
    /// Counts equivalent query vertices (same labels, same neighbours by the same edges)
    /// from one extension set instead of enumerating them, where the engine can
    /// ([`crate::plan::equivalence_classes`]); off for tests and measurements.
    pub equivalent_vertices: bool,
    /// When the last three query vertices are counted by their pairs, where the query ends in
    /// two equivalent vertices and a third linked to them alone ([`crate::plan::PairCount`]).
    /// Needs `equivalent_vertices`.
    pub pair_counts: PairCounts,
    /// Whether a count's symmetry breaking leaves the interchanges of the leaf suffix's
    /// vertices to its products ([`crate::plan::LeafSuffix`]) or breaks them, which sends
    /// those vertices back into the enumeration.
    pub suffix_interchanges: SuffixInterchanges,
    /// Fewest query vertices from which a count takes the pair count: the joining engine's
    /// ([`crate::Engine::pair_counts_from`]), which the search sets when it is `None`.
    pub pair_counts_from: Option<usize>,
    /// How many of the join's estimated reads cost as much as one of a counting program's
    /// (a tree's, its quotients', its core's, all run on the host): the joining engine's
    /// ([`crate::Engine::program_cost`]), which the search sets when it is `None`.
    pub program_cost: Option<f64>,
    /// The share of candidates lacking a candidate neighbour (in a sample of each set) from
    /// which the sets are refined ([`crate::plan::refine`]): the joining engine's
    /// ([`crate::Engine::refine_from_share`]), which the search sets when it is `None`.
    pub refine_from_share: Option<f64>,
    /// Query vertices fixed to one data vertex each, `(u, v)`: C(u) keeps only `v`, if the
    /// filter let it in (a SPARQL constant). Applied right after filtering.
    pub pinned: Vec<(usize, VertexId)>,
}

/// Rounds of refinement by default: enough for the sets to settle on the queries measured
/// (yeast and gowalla-shaped, 8 to 32 vertices), few enough to bound a pass that does not.
pub const REFINE_ROUNDS: usize = 4;

/// Estimated partial matches per neighbour-list entry read from which a query's join on a
/// GPU is expected to outweigh its planning ([`crate::plan::estimate`]; an entry read costs
/// a few nanoseconds on the host, a partial match about one on the GPU): a GPU engine's
/// [`crate::Engine::planning_pays_from`].
pub const GPU_PLANNING_PAYS_FROM: f64 = 100.0;

/// Fewest query vertices from which a GPU engine's count takes the pair count
/// ([`crate::Engine::pair_counts_from`]): its packed count takes plans of four steps at once,
/// and counted the unlabelled LiveJournal-sized graph's 4-cycles in 1.96 s against 2.68-2.84 s
/// by their pairs, where 5-vertex p5 took 18.5 s by its pairs against 125.7 s joined (H100,
/// 2026-11-27, docs/BENCHMARKS.md).
pub const GPU_PAIR_COUNTS_FROM: usize = 5;

/// The same for the CPU's count, which has no packed count: the 1 M-vertex unlabelled graph's
/// 4-cycles took 7.0 s by their pairs against over 60 s joined (development machine,
/// 2026-11-27).
pub const CPU_PAIR_COUNTS_FROM: usize = 4;

/// A GPU engine's [`crate::Engine::program_cost`]: a read of a counting program on the host
/// weighs as ten of the GPU join's estimated reads. The 100-label LiveJournal-sized graph's
/// dense_8_1, whose quotients' programs were estimated at a third of its join, took 297 ms
/// over them and 77 ms joined on an H100; dense_12_1, estimated at a 73rd, 1.5 s over them and
/// more than 10 s joined (docs/BENCHMARKS.md).
pub const GPU_PROGRAM_COST: f64 = 10.0;

/// How long a GPU engine's join of a count runs before the programs that could make the
/// count instead start beside it on the host ([`crate::Engine::programs_beside_after`]): the
/// estimates that chose the join can be 10^5 too low (the 100-label LiveJournal-sized graph's
/// dense_12_7: a join estimated at 7.1×10^4 rows ran past 10 s on an H200, its two quotients
/// took 0.3 s on two cores; docs/BENCHMARKS.md), and most joins of a count end sooner.
pub const GPU_PROGRAMS_BESIDE_AFTER: Duration = Duration::from_millis(250);

/// The same for the CPU's join, where a partial match costs as much as an entry read or more:
/// wordnet's query_dense_16_6, 9×10^7 partial matches estimated against about 10^6 entries,
/// took 20 s joined on one thread in Algorithm 2's order, and 2.1 s, 58 ms of it planning, in
/// the order sampling chose (development machine, 2026-11-26, docs/BENCHMARKS.md).
pub const CPU_PLANNING_PAYS_FROM: f64 = 1.0;

/// The share of candidates lacking a candidate neighbour from which a GPU engine's query is
/// refined ([`crate::Engine::refine_from_share`]). On yeast's and gw12's queries 30-66% lack
/// one, and refining cuts their sets 2 to 20 times; on wordnet's dense 12- and 16-vertex
/// queries 1-8% do, and four rounds cut 1-10% of the candidates at most of the planning's
/// cost: on an H100 the 400 queries took 48.5 s unrefined against 52.9 s refined (2.3 s of
/// planning against 16.9), 296 of 301 within a fifth of RapidMatch's time against 289, where
/// yeast's dense 16- and 32-vertex queries took 25.3 s unrefined against 15.0 (2026-11-27,
/// docs/BENCHMARKS.md).
pub const GPU_REFINE_FROM_SHARE: f64 = 0.1;

/// The same for the CPU's join, which gains from every candidate cut: unrefined, one thread
/// finished 288 of the same 400 wordnet queries in 2 s against 298 refined (development
/// machine, 2026-11-27). Only where no sampled candidate lacks one are the sets left as they
/// are.
pub const CPU_REFINE_FROM_SHARE: f64 = 0.0;

/// Estimated work of a count over quotients (reads of its programs) from which the query's
/// sets are refined for them where the engine left them unrefined: about 10^8 reads take
/// seconds on the host, against a refinement's few passes over the candidates' lists.
pub const REFINE_FOR_PROGRAMS_FROM: f64 = 1e8;

/// Estimated work of a join from which a query with cycles and trees hanging from its core
/// has its quotients weighed: planning each of up to 64 quotients costs more than a light
/// query's join (most of yeast's, hprd's and wordnet's queries have cycles, trees and
/// repeated labels), while about 10^9 reads take a second on the host. The 100-label
/// LiveJournal-sized graph's dense_12_11 (a 5-cycle, seven vertices hanging), its join
/// estimated at 3.0×10^10, ran past 10 s joined and took 1.0 s over its 8 quotients on two
/// cores (docs/BENCHMARKS.md).
pub const CYCLIC_QUOTIENTS_FROM: f64 = 1e9;

/// How long the CPU engine's join of a count judged light runs before the query is planned
/// again by sampling ([`MatchOptions::light_join_budget`]): about what that planning costs
/// (20-35 ms for wordnet's 8-vertex queries on one core), so a light verdict the walks got
/// wrong costs at most about twice what planning would have (wordnet's query_sparse_8_1 and
/// dense_8_152, light by 32 walks over hubs they missed: 2.4 s and 0.5 s joined, 0.38 s and
/// 0.20 s planned).
pub const CPU_LIGHT_JOIN_BUDGET: Duration = Duration::from_millis(64);

/// Estimated partial matches of Algorithm 2's plan from which a query counts as heavy. Below
/// it the join takes well under a millisecond, less than sampling other orders would (about
/// 1 ms on one core for yeast's 8-vertex queries).
pub const HEAVY_QUERY_WORK: f64 = 1e4;

/// When a count takes the tree's dynamic program ([`crate::tree_count`]), or, for a tree
/// whose labels repeat, the sum over its quotients ([`crate::quotients`]), rather than a join.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeCounts {
    /// Never: the query is joined (for tests and measurements).
    Never,
    /// When the program's estimated work is at most the join's
    /// ([`crate::tree_count::work`] against the plan's estimate).
    #[default]
    ByEstimate,
    /// Always (for tests and measurements).
    Always,
}

/// When a count whose query ends in a pair count's three vertices takes it
/// ([`crate::plan::PairCount`]) rather than the plan that enumerates them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairCounts {
    /// Never: they are enumerated (for tests and measurements).
    Never,
    /// When the walks estimate its work below the other plan's, where the candidate sets are
    /// on the host to walk; always where they are not.
    #[default]
    ByEstimate,
    /// Always (for tests and measurements).
    Always,
}

/// Where an automorphism of the query moves vertices of a count's leaf suffix, whether the
/// join breaks it (an order bound on them, which takes them out of the suffix: enumerated) or
/// leaves their interchanges to the suffix's products, which count them all at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SuffixInterchanges {
    /// Broken, as any other automorphism (for tests and measurements).
    Broken,
    /// Counted where the steps before the suffix keep every order bound they would have had,
    /// the bounds given up interchange suffix vertices only, and breaking them would send two
    /// steps or more back into the enumeration while a suffix stays after them; broken
    /// otherwise.
    #[default]
    ByEstimate,
    /// Counted, whatever it costs the rest of the query's symmetry (for tests and
    /// measurements).
    Counted,
}

/// How the join order is chosen ([`crate::plan::Plan::with_strategy`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JoinOrder {
    /// The paper's Algorithm 2: candidate-set sizes over degrees, edge-label frequencies.
    Paper,
    /// The least estimated growth of the rows at each step, from candidate edges.
    Growth,
    /// The most edges to the vertices joined at each step (RI's rule).
    Links,
    /// The query's innermost core first, then the cycles around it and the trees hanging off
    /// them (CFL-Match's 2-core-first order, generalised); within a core, the vertex with the
    /// most edges to those joined before it (RapidMatch's densest-nucleus-first order).
    Core,
    /// As `Core`, ties in links going to the vertex in the most of the query's triangles.
    Triangles,
    /// Algorithm 2's order for a light query; for a heavy one, of the orders above, the one of
    /// the least work estimated by sampling ([`crate::plan::estimate`]).
    #[default]
    Sampled,
}

/// Share `index` of `count` disjoint shares of a query's matches, cut as [`ShareCut`] says.
///
/// By rows (the default): a match is in the share that the hash of its first data vertices
/// falls in, those of the plan's first steps up to the width it deals the rows at
/// ([`crate::plan::RowShare`], [`Share::holds_row`]). Every share makes those first steps
/// whole, then keeps its rows of them: the work of a hub, or of a hub pair,
/// spreads over every share with the rows below it.
///
/// As a grid: the shares form a grid of `count` cells, one side per [`AXES`]: a match is in
/// the share at coordinates `(c0, ..., c4)` when the data vertex of the plan's first query
/// vertex hashes to `c0`, that of its second to `c1`, and so on (see [`Share::cut`]); each
/// share's candidate sets of those vertices are cut to their classes. The plan chooses the
/// sides ([`crate::plan::Plan::share_grid`]).
///
/// The shares of one query add up to all of its matches, whatever engine or machine answers
/// each, when all are cut the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    index: u32,
    count: u32,
}

/// Shares per engine of a query spread over several ([`crate::find_matches_spread`]), unless
/// the options say otherwise ([`MatchOptions::shares_per_engine`]).
/// Each share repeats the filter, the join's set-up and the steps before
/// its last cut vertex (about 2 ms a share on gw12's 12-vertex queries), and one share may
/// hold much of a query's work, so more shares balance better but cost more. On two H200s the
/// five heaviest gw12 queries ran 1.57× faster than on one with 4 shares per engine, 1.69× with
/// 8 and 1.59× with 16; on four H100s (2026-11-27) 16 and 32 brought gw12's dense_12_1 and p7
/// 1–3% closer to a quarter of one GPU's time and cost every other query more.
pub const SHARES_PER_ENGINE: u32 = 8;

/// [`MatchOptions::rows_per_share`] by default.
pub const ROWS_PER_SHARE: f64 = 256.0;

/// Dimensions of the grid of shares: the plan's first five query vertices.
pub const AXES: usize = 5;

/// The axes the evenest grid ([`Share::grid`]) cuts: the plan's first three vertices (the
/// others' sides are 1).
pub const EVEN_AXES: usize = 3;

/// How a query is cut into shares ([`Share`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShareCut {
    /// By the rows of the plan's first steps ([`Share::holds_row`]). A hub's work spreads
    /// over the shares, which no cut of single vertices does: on the development machine the
    /// largest of 32 shares of gw12's query_dense_12_5 held 12.6 times the mean's matches as
    /// a grid (docs/DISTRIBUTED.md).
    #[default]
    Rows,
    /// A grid over the plan's first vertices, from the plan's estimated work per step: the
    /// evenest whose shares together make little more work than the whole query
    /// ([`crate::plan::Plan::share_grid`]). A tree counted by its dynamic program, which
    /// makes no rows, is cut so whatever the options say.
    Grid,
    /// The evenest grid, whatever the plan ([`Share::grid`]; for tests and measurements).
    EvenGrid,
}

/// How a query was cut into shares ([`ShareCut`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharesCut {
    /// By the rows of the join's table of `width` columns ([`crate::plan::RowShare`]).
    Rows {
        /// The table's columns.
        width: usize,
    },
    /// As a grid of these sides ([`crate::plan::Plan::share_grid`]).
    Grid([u32; AXES]),
}

/// A hash seed per axis, so that the axes cut a vertex independently.
const AXIS_SEEDS: [u64; AXES] = [
    0x9e37_79b9_7f4a_7c15,
    0xd1b5_4a32_d192_ed03,
    0x8cb9_2ba7_2f3d_8dd7,
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
];

impl Share {
    /// Share `index` of `count`, when `index < count`.
    pub fn new(index: u32, count: u32) -> Option<Share> {
        (index < count).then_some(Share { index, count })
    }

    /// Which share this is, from 0.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many shares there are.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The grid's sides over the first [`EVEN_AXES`] axes, as even as `count`'s divisors
    /// allow, largest last: 64 shares are 4 × 4 × 4, 8 are 2 × 2 × 2, 12 are 2 × 2 × 3 and a
    /// prime number p of them 1 × 1 × p (the further axes 1). Each side but the last is sought
    /// among the numbers up to a root of what is left (at most 46,341 of them), the last is
    /// what is left: the time does not grow with `count`.
    pub fn grid(self) -> [u32; AXES] {
        let mut sides = [1; AXES];
        let mut rest = self.count;
        for (axis, side) in sides.iter_mut().enumerate().take(EVEN_AXES - 1) {
            let left = (EVEN_AXES - axis) as u32;
            *side = (1..=rest)
                .take_while(|&s| u64::from(s).pow(left) <= u64::from(rest))
                .filter(|&s| rest.is_multiple_of(s))
                .last()
                .unwrap_or(1);
            rest /= *side;
        }
        sides[EVEN_AXES - 1] = rest;
        sides
    }

    /// The data vertices this share keeps as images of the query vertex on `axis`
    /// (`0..AXES`) in a grid of `sides` (whose product is [`Share::count`]). Vertices are
    /// hashed, not dealt out by position, so that the shares depend on the vertex alone and
    /// the heavy vertices of a skewed graph, often numbered together, spread over the shares.
    pub fn cut(self, sides: [u32; AXES], axis: usize) -> Cut {
        debug_assert_eq!(sides.iter().product::<u32>(), self.count);
        let stride: u32 = sides[axis + 1..].iter().product();
        Cut {
            seed: AXIS_SEEDS[axis],
            classes: u64::from(sides[axis]),
            class: u64::from(self.index / stride % sides[axis]),
        }
    }

    /// The seed of a row's hash ([`Share::holds_row`]; the GPU's `gsi_join_held_rows`
    /// hashes alike).
    pub const ROW_SEED: u64 = 0x2545_f491_4f6c_dd1d;

    /// Whether this share holds the rows whose first data vertices, in the plan's order, are
    /// `row` (cut by rows, [`ShareCut::Rows`]): the row's hash falls in the share's class.
    /// Every engine hashes a row alike, so a share holds the same matches wherever it runs.
    pub fn holds_row(self, row: &[VertexId]) -> bool {
        let hash = row
            .iter()
            .fold(Share::ROW_SEED, |h, &v| mix(h ^ u64::from(v)));
        hash % u64::from(self.count) == u64::from(self.index)
    }

    /// The rows of `table` (rows of `width` columns, one after another) this share holds
    /// ([`Share::holds_row`]), one after another.
    pub fn rows_held(self, table: &[VertexId], width: usize) -> Vec<VertexId> {
        table
            .chunks_exact(width)
            .filter(|row| self.holds_row(row))
            .flatten()
            .copied()
            .collect()
    }
}

/// One axis of a [`Share`]: the data vertices whose hash falls in its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    seed: u64,
    classes: u64,
    class: u64,
}

impl Cut {
    /// Whether `v` is in this cut.
    pub fn holds(self, v: VertexId) -> bool {
        self.class_of(v) == self.class
    }

    /// The class of `v` on this cut's axis (that of every share's cut on the axis): this
    /// cut holds the vertices of one class.
    pub fn class_of(self, v: VertexId) -> u64 {
        mix(u64::from(v).wrapping_add(self.seed)) % self.classes
    }

    /// The class this cut holds.
    pub fn class(self) -> u64 {
        self.class
    }

    /// How many classes `cuts` (one vertex's, on its axes of a grid) make together, and
    /// which of them the cuts hold: their classes combined first axis first, as the GPU's
    /// `gsi_filter_classes` combines a vertex's.
    pub fn combined(cuts: &[Cut]) -> (u64, u64) {
        cuts.iter().fold((1, 0), |(classes, class), c| {
            (classes * c.classes, class * c.classes + c.class)
        })
    }

    /// How many classes the axis has.
    pub fn classes(self) -> u64 {
        self.classes
    }

    /// The axis's seed, added to a vertex before it is hashed ([`Cut::class_of`]; the GPU's
    /// `gsi_filter_classes` hashes alike).
    pub fn seed(self) -> u64 {
        self.seed
    }
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            semantics: Semantics::Isomorphism,
            filter: FilterTests::Signature,
            absent_labels: None,
            limit: None,
            deadline: None,
            memory_budget: crate::memory::default_budget(),
            interrupt: None,
            enough: None,
            overtaken: None,
            depth_first_rows: None,
            postpone_leaves: true,
            share: None,
            share_cut: ShareCut::Rows,
            rows_per_share: ROWS_PER_SHARE,
            shares_per_engine: SHARES_PER_ENGINE,
            refine_rounds: REFINE_ROUNDS,
            join_order: JoinOrder::Sampled,
            symmetry: true,
            tree_counts: TreeCounts::ByEstimate,
            pinned_cores: true,
            program_candidate_edges: true,
            narrow_pools: true,
            equivalent_vertices: true,
            pair_counts: PairCounts::ByEstimate,
            pair_counts_from: None,
            suffix_interchanges: SuffixInterchanges::ByEstimate,
            program_cost: None,
            refine_from_share: None,
            heavy_query_work: HEAVY_QUERY_WORK,
            refine_for_programs_from: REFINE_FOR_PROGRAMS_FROM,
            cyclic_quotients_from: CYCLIC_QUOTIENTS_FROM,
            programs_beside_after: None,
            light_join_budget: None,
            planning_pays_from: None,
            pinned: Vec::new(),
        }
    }
}

impl MatchOptions {
    /// [`MatchOptions::planning_pays_from`], or a GPU's where no engine has set it.
    pub fn planning_pays_from(&self) -> f64 {
        self.planning_pays_from.unwrap_or(GPU_PLANNING_PAYS_FROM)
    }

    /// [`MatchOptions::refine_from_share`], or a GPU's where no engine has set it.
    pub fn refine_from_share(&self) -> f64 {
        self.refine_from_share.unwrap_or(GPU_REFINE_FROM_SHARE)
    }

    /// [`MatchOptions::pair_counts_from`], or a GPU's where no engine has set it.
    pub fn pair_counts_from(&self) -> usize {
        self.pair_counts_from.unwrap_or(GPU_PAIR_COUNTS_FROM)
    }

    /// [`MatchOptions::program_cost`], or a GPU's where no engine has set it.
    pub fn program_cost(&self) -> f64 {
        self.program_cost.unwrap_or(GPU_PROGRAM_COST)
    }

    /// Why the search must stop now, if it must: [`Status::Interrupted`] when the interrupt
    /// is set (or `overtaken`), [`Status::Limit`] when `enough` is, [`Status::Timeout`] when
    /// the deadline has passed.
    pub fn stop(&self) -> Option<Status> {
        let set = |flag: &Option<Arc<AtomicBool>>| {
            flag.as_ref()
                .is_some_and(|flag| flag.load(Ordering::Relaxed))
        };
        if set(&self.interrupt) || set(&self.overtaken) {
            Some(Status::Interrupted)
        } else if set(&self.enough) {
            Some(Status::Limit)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Status::Timeout)
        } else {
            None
        }
    }
}

impl std::fmt::Display for Share {
    /// `I/K`, as `--partition` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every match was found.
    Complete,
    /// The `limit` was reached.
    Limit,
    /// The deadline passed: the count is of the matches found until then.
    Timeout,
    /// The interrupt was set: the count is of the matches found until then.
    Interrupted,
}

impl Status {
    /// The word used in output: `ok`, `limit`, `timeout` or `interrupted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "ok",
            Status::Limit => "limit",
            Status::Timeout => "timeout",
            Status::Interrupted => "interrupted",
        }
    }

    /// Whether every match was found.
    pub fn is_complete(self) -> bool {
        self == Status::Complete
    }
}

/// What a join found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinOutcome {
    /// Matches found (all of them when `status` is `Complete`).
    pub count: u128,
    /// How the join ended.
    pub status: Status,
    /// Most bytes of tables and buffers held at once.
    pub peak_bytes: usize,
    /// Which engine joined: `cpu` or `gpu`.
    pub engine: &'static str,
    /// How each step ran.
    pub paths: JoinPaths,
}

/// How each step of a join ran, for `--explain`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinPaths {
    /// Per step of the plan.
    pub steps: Vec<StepPath>,
    /// Rows of a step from which a count goes depth-first (`None`: the engine never does).
    pub depth_first_from: Option<usize>,
    /// How the engine's depth-first count goes, where it has more than one way (the GPU:
    /// `packed`, or `with work stealing`).
    pub depth_first_kind: Option<&'static str>,
    /// Steps from the first that the engine joined in one go while they were small (the GPU:
    /// in one launch).
    pub small_steps: usize,
    /// Extensions the CPU's depth-first count skipped because a sibling's failing set showed
    /// they fail alike.
    pub skipped_by_failing_sets: u64,
    /// Whether the query was counted as a tree by dynamic programming, without a join.
    pub tree_counted: bool,
    /// Whether those programs ran beside the join, which the estimates had chosen, and
    /// finished first ([`MatchOptions::programs_beside_after`]).
    pub programs_beside: bool,
    /// Where a share cut by rows dealt them ([`crate::plan::RowShare`]).
    pub rows_dealt: Option<RowsDealt>,
}

/// The table a share cut by rows dealt, and what it kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RowsDealt {
    /// The table's columns: the steps made whole before it.
    pub width: usize,
    /// Its rows.
    pub rows: u64,
    /// Those the share kept.
    pub kept: u64,
}

/// What one step did: rows joined breadth-first into a new table (Algorithms 3 and 4), rows
/// whose matches were counted without a table, and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepPath {
    /// Rows joined into the next table.
    pub breadth_first_rows: u64,
    /// Rows whose matches were counted from this step on.
    pub counted_rows: u64,
    /// How they were counted.
    pub counted_as: Option<Counted>,
    /// How the GPU spread the step's lists over its threads.
    pub balance: StepBalance,
}

/// The parts of the GPU's load balance (Sec. 6.1) and duplicate removal (Sec. 6.2) a step's
/// warp-per-row join could use: those its lists were long enough for and that were on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepBalance {
    /// Long lists cut into pieces for whole blocks (layers 1 and 2).
    pub over_blocks: bool,
    /// Lists shared out among a block's warps (layer 3).
    pub within_blocks: bool,
    /// Short lists read once per block.
    pub duplicates_removed: bool,
}

/// How a count finished from a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    /// The last step's extensions counted per row.
    LastStep,
    /// Depth-first through every remaining step.
    DepthFirst,
    /// The leaf suffix's products.
    LeafProducts,
    /// The pair count's pairs ([`crate::plan::PairCount`]).
    Pairs,
}

/// "1 row", "2 rows".
fn rows(n: u64) -> String {
    if n == 1 {
        "1 row".to_string()
    } else {
        format!("{n} rows")
    }
}

impl std::fmt::Display for JoinPaths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.programs_beside {
            return writeln!(
                f,
                "join paths: the join ran past its head start, and the counting programs, \
                 started beside it on the host, finished first"
            );
        }
        if self.tree_counted {
            return writeln!(
                f,
                "join paths: none; counted as a tree by dynamic programming over the data graph"
            );
        }
        writeln!(f, "join paths (rows into each step):")?;
        if let Some(dealt) = self.rows_dealt {
            writeln!(
                f,
                "  the share kept {} of the {} of the table of {} columns (dealt by rows)",
                rows(dealt.kept),
                rows(dealt.rows),
                dealt.width
            )?;
        }
        if self.small_steps > 0 {
            writeln!(
                f,
                "  steps 1 to {} small: joined in one go",
                self.small_steps
            )?;
        }
        for (i, st) in self.steps.iter().enumerate() {
            if st.breadth_first_rows == 0 && st.counted_rows == 0 {
                continue;
            }
            write!(f, "  step {i}:")?;
            if st.breadth_first_rows > 0 {
                write!(f, " {} joined breadth-first", rows(st.breadth_first_rows))?;
            }
            if let Some(how) = st.counted_as {
                let why = match how {
                    Counted::LastStep => "counted at the last step".to_string(),
                    Counted::LeafProducts => {
                        "counted as products of the independent steps".to_string()
                    }
                    Counted::Pairs => "counted by their pairs".to_string(),
                    Counted::DepthFirst => {
                        let kind = self
                            .depth_first_kind
                            .map_or(String::new(), |kind| format!(", {kind}"));
                        match self.depth_first_from {
                            Some(from) => {
                                format!("counted depth-first{kind} (from {} on)", rows(from as u64))
                            }
                            None => format!("counted depth-first{kind}"),
                        }
                    }
                };
                write!(f, " {} {why}", rows(st.counted_rows))?;
            }
            let b = st.balance;
            for (on, what) in [
                (b.over_blocks, "long lists balanced over blocks"),
                (b.within_blocks, "lists shared out within blocks"),
                (b.duplicates_removed, "a block's repeated lists read once"),
            ] {
                if on {
                    write!(f, "; {what}")?;
                }
            }
            writeln!(f)?;
        }
        if self.skipped_by_failing_sets > 0 {
            writeln!(
                f,
                "  failing sets skipped {} extensions",
                self.skipped_by_failing_sets
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_form_the_evenest_grid() {
        let grid = |count| Share::new(0, count).unwrap().grid();
        assert_eq!(grid(1), [1, 1, 1, 1, 1]);
        assert_eq!(grid(7), [1, 1, 7, 1, 1]);
        assert_eq!(grid(8), [2, 2, 2, 1, 1]);
        assert_eq!(grid(12), [2, 2, 3, 1, 1]);
        assert_eq!(grid(64), [4, 4, 4, 1, 1]);
        assert_eq!(grid(18), [2, 3, 3, 1, 1]);
        // Large counts: a prime, a power of two, the largest.
        assert_eq!(grid(2_147_483_647), [1, 1, 2_147_483_647, 1, 1]);
        assert_eq!(grid(1 << 31), [1 << 10, 1 << 10, 1 << 11, 1, 1]);
        assert_eq!(grid(u32::MAX), [1285, 51, 65_537, 1, 1]);
        for count in 1..2000 {
            assert_eq!(grid(count).iter().product::<u32>(), count);
        }
    }

    #[test]
    fn every_row_is_in_exactly_one_share_and_a_hubs_rows_spread() {
        for count in [1, 2, 7, 8, 64] {
            let mut held = vec![0usize; count as usize];
            // One hub's rows, differing in their last vertex alone, as a heavy vertex's are.
            for v in 0..100_000u32 {
                let row = [7, 3, v];
                let owners: Vec<u32> = (0..count)
                    .filter(|&i| Share::new(i, count).unwrap().holds_row(&row))
                    .collect();
                assert_eq!(owners.len(), 1, "{row:?} of {count}");
                held[owners[0] as usize] += 1;
            }
            let mean = 100_000.0 / f64::from(count);
            for (i, &n) in held.iter().enumerate() {
                assert!(
                    (n as f64 - mean).abs() < 0.1 * mean,
                    "share {i}/{count}: {n} rows"
                );
            }
        }
    }

    #[test]
    fn the_rows_of_a_table_are_held_whole_by_one_share_each() {
        let table: Vec<VertexId> = (0..300).collect();
        let mut kept: Vec<VertexId> = (0..7)
            .flat_map(|i| Share::new(i, 7).unwrap().rows_held(&table, 3))
            .collect();
        assert_eq!(kept.len(), table.len());
        assert!(kept
            .chunks_exact(3)
            .all(|r| r[1] == r[0] + 1 && r[2] == r[0] + 2));
        kept.sort_unstable();
        assert_eq!(kept, table);
    }

    #[test]
    fn every_triple_of_images_is_in_exactly_one_share() {
        for (count, sides) in [
            (1, [1, 1, 1, 1, 1]),
            (6, [1, 2, 3, 1, 1]),
            (6, [6, 1, 1, 1, 1]),
            (8, [2, 2, 2, 1, 1]),
            (8, [4, 1, 1, 1, 2]),
            (13, [1, 1, 13, 1, 1]),
            (32, [2, 2, 2, 2, 2]),
            (64, [4, 4, 4, 1, 1]),
            (64, [64, 1, 1, 1, 1]),
        ] {
            for images in [
                [0, 0, 0, 0, 0],
                [1, 2, 3, 4, 5],
                [77, 5, 77, 5, 77],
                [u32::MAX, 3, 9, u32::MAX, 0],
            ] {
                let owners = (0..count)
                    .filter(|&i| {
                        let share = Share::new(i, count).unwrap();
                        (0..AXES).all(|axis| share.cut(sides, axis).holds(images[axis]))
                    })
                    .count();
                assert_eq!(owners, 1, "{count} shares as {sides:?}, images {images:?}");
            }
        }
    }

    #[test]
    fn a_vertex_on_several_axes_holds_one_combined_class_per_share() {
        // A vertex cut on axes 1 and 2 of a 2 × 4 × 4 grid: 16 classes together, the first
        // axis's the most significant; each share holds the combination its cuts hold, and
        // a vertex is held by the shares whose combined class is its own.
        let sides = [2, 4, 4, 1, 1];
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..32 {
            let share = Share::new(i, 32).unwrap();
            let cuts = [share.cut(sides, 1), share.cut(sides, 2)];
            let (classes, class) = Cut::combined(&cuts);
            assert_eq!(classes, 16);
            assert_eq!(class, cuts[0].class() * 4 + cuts[1].class());
            seen.insert(class);
            for v in [0, 1, 2, 77, 1_000_003, u32::MAX] {
                let own = cuts[0].class_of(v) * 4 + cuts[1].class_of(v);
                assert_eq!(
                    cuts.iter().all(|c| c.holds(v)),
                    own == class,
                    "share {i}, {v}"
                );
            }
        }
        assert_eq!(seen.len(), 16, "every combined class is some share's");
        assert_eq!(Cut::combined(&[]), (1, 0));
    }
}
