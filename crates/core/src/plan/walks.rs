//! Random walks down a plan (WanderJoin, Li et al., SIGMOD 2016): each step's partial
//! matches and the lists they read, estimated without bias from the extensions of a few
//! random partial matches; where plain walks all die early, walks that branch.
//!
//! A walk needs of a join only Algorithm 3 for one partial match ([`RowExtender`]); the
//! caller hands in the join that gives it ([`JoinForWalks`]), so the planner names no engine.

use gsi_graph::VertexId;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::options::MatchOptions;
use crate::plan::Plan;
use crate::random::SplitMix;

/// Extensions a branching walk ([`Sampler::walk`]) goes on with at each linked step, where
/// every order's plain walks died before the leaf suffix ([`Work::blind`]).
pub(super) const BRANCHES: usize = 4;

/// Rows a branching walk may take beyond a plain walk's. On wordnet's 400 dense 12- and
/// 16-vertex queries (one CPU thread, 2 s each, development machine) walks that branch where
/// the plain ones were blind finished 301 against 295, 323 s in all against 334 (256 rows:
/// 300, 325 s).
const BRANCHED_NODES: usize = 64;

/// Algorithm 3 for one partial match of one plan: what a walk asks of a join.
pub trait RowExtender {
    /// The extensions of `row`, a partial match of the plan's columns before `step`, at
    /// `step`: written to the front of `buf` (grown as needed); returns how many.
    fn extend_row(&self, step: usize, row: &[VertexId], buf: &mut Vec<VertexId>) -> usize;

    /// The length of the list `step` reads for `row` to find its extensions (the first
    /// edge's, within the step's order bounds): what a count at the leaf suffix reads per row,
    /// however few of its vertices are candidates.
    fn list_read(&self, step: usize, row: &[VertexId]) -> usize;
}

/// The join whose extensions the walks sample: it makes the [`RowExtender`] of each plan
/// sampled.
pub trait JoinForWalks: Sync {
    /// The extender of `plan` over `sets` under `options`.
    fn extender<'a>(
        &self,
        plan: &'a Plan,
        sets: &'a CandidateSets,
        data: &'a DataIndex,
        options: &'a MatchOptions,
    ) -> Box<dyn RowExtender + 'a>;
}

/// Random walks over one query's candidate sets.
pub(super) struct Sampler<'a> {
    pub(super) sets: &'a CandidateSets,
    pub(super) data: &'a DataIndex,
    pub(super) options: &'a MatchOptions,
    pub(super) join: &'a dyn JoinForWalks,
}

impl Sampler<'_> {
    /// The estimated work of `plan` from `walks` random walks: the partial matches of every
    /// step before the leaf suffix, plus, for each row at the suffix, one extension set per
    /// member; and the elements of the lists all of them read ([`RowExtender::list_read`]).
    /// A walk from a random candidate of the first step takes at each step a random
    /// extension of its partial match (Algorithm 3 for one row, as the join computes it);
    /// the product of the extension counts along the way, times the step's count, estimates
    /// the step's partial matches without bias. Walks are seeded alike, so a plan is chosen
    /// the same way every time.
    pub(super) fn work(&self, plan: &Plan, walks: usize) -> Work {
        self.walk(plan, walks, 1)
    }

    /// [`Sampler::work`] with walks that branch: at each linked step a walk goes on with up
    /// to `branches` of its row's extensions, drawn without replacement, each standing for
    /// `n / branches` of the `n` (still without bias), until the walk has taken
    /// [`BRANCHED_NODES`] more rows than a plain walk would; `branches` = 1 is the plain walk.
    /// Where every plain walk dies before the leaf suffix, the branches reach further: what
    /// one walk in a thousand survives to is seen.
    pub(super) fn walk(&self, plan: &Plan, walks: usize, branches: usize) -> Work {
        let width = plan.width();
        let from = plan.leaves.from.min(width);
        let mut descent = Descent {
            sampler: self,
            plan,
            join: self.join.extender(plan, self.sets, self.data, self.options),
            from,
            injective: self.options.semantics.injective(),
            // The leaves' draws come from a stream of their own: the walks down the prefix,
            // and so the plan chosen, stay as they were.
            leaves_bound_leaves: plan.steps[from..]
                .iter()
                .any(|st| st.order_bounds.iter().any(|b| b.column >= from)),
            random: SplitMix(0x5eed),
            leaf_random: SplitMix(0x1eaf),
            steps: vec![0.0; width],
            reads: 0.0,
            lists: vec![Vec::new(); width + 1],
            extended: vec![None; width],
            prefixes: Prefixes::new(width),
            branches,
            spare: 0,
        };
        let mut row: Vec<VertexId> = Vec::with_capacity(width);
        let mut walked = 0;
        let mut reached = 0;
        for _ in 0..walks {
            // A query out of time is not worth estimating further: its join stops at once.
            if walked > 0 && self.options.stop().is_some() {
                break;
            }
            walked += 1;
            row.clear();
            // (A plain walk's one branch a step leaves the spare rows untouched.)
            descent.spare = BRANCHED_NODES;
            if descent.down(&mut row, 1.0) {
                reached += 1;
            }
        }
        let Descent { steps, reads, .. } = descent;
        let walked = walked.max(1) as f64;
        let steps: Vec<f64> = steps.into_iter().map(|w| w / walked).collect();
        Work {
            total: steps.iter().sum(),
            steps,
            reads: reads / walked,
            reached: reached as f64 / walked,
        }
    }
}

/// Steps of a walk between two readings of the clock.
const CLOCK_STEPS: usize = 1024;

/// One plan's walks under way ([`Sampler::walk`]): what they have estimated so far.
struct Descent<'s, 'a> {
    sampler: &'s Sampler<'a>,
    plan: &'s Plan,
    join: Box<dyn RowExtender + 's>,
    from: usize,
    injective: bool,
    leaves_bound_leaves: bool,
    random: SplitMix,
    leaf_random: SplitMix,
    steps: Vec<f64>,
    reads: f64,
    /// The extensions drawn from at each step, kept while the branches below run.
    lists: Vec<Vec<VertexId>>,
    /// At each linked step, the row whose extensions `lists` holds, in their order as found
    /// (by its [`Prefixes`] number), and how many: walks from one start (a pinned vertex)
    /// share their first rows, and a hub's list is then read once, not once a walk.
    extended: Vec<Option<(u64, usize)>>,
    /// The number of each prefix of the row under way.
    prefixes: Prefixes,
    branches: usize,
    /// Rows this walk may still take beyond a plain walk's.
    spare: usize,
}

impl Descent<'_, '_> {
    /// Extends `row`, standing for `weight` partial matches, down the plan; whether any of
    /// its branches reached the leaf suffix.
    fn down(&mut self, row: &mut Vec<VertexId>, weight: f64) -> bool {
        let step = row.len();
        // One walk down a query of tens of thousands of vertices takes seconds (each step
        // tests its row): it reads the clock too, and gives up once the query is out of time.
        if step % CLOCK_STEPS == CLOCK_STEPS - 1 && self.sampler.options.stop().is_some() {
            return false;
        }
        if step == self.from {
            self.suffix(row, weight);
            return true;
        }
        let st = &self.plan.steps[step];
        let mut list = std::mem::take(&mut self.lists[step]);
        let (n, linked) = if st.first.is_none() && st.absent.is_empty() {
            // A step without links extends by its candidates (within its order bounds):
            // drawn from C(u) in place, which may hold millions.
            let candidates = st.narrow(row, self.sampler.sets.list(st.vertex));
            self.reads += weight * candidates.len() as f64;
            let injective = self.injective;
            let taken = |v: &VertexId| injective && row.contains(v);
            let n = candidates.len()
                - row
                    .iter()
                    .filter(|&v| taken(v) && candidates.binary_search(v).is_ok())
                    .count();
            if n > 0 {
                let random = &mut self.random;
                let pick = std::iter::repeat_with(|| {
                    candidates[(random.next() % candidates.len() as u64) as usize]
                })
                .find(|v| !taken(v))
                .expect("an endless draw finds one of the n free candidates");
                list.clear();
                list.push(pick);
            }
            (n, false)
        } else {
            self.reads += weight * self.join.list_read(step, row) as f64;
            let this = self.prefixes.of(step);
            let n = match self.extended[step] {
                Some((of, n)) if of == this => n,
                _ => {
                    let n = self.join.extend_row(step, row, &mut list);
                    self.extended[step] = Some((this, n));
                    n
                }
            };
            (n, true)
        };
        self.steps[step] += weight * n as f64;
        let mut reached = false;
        if n > 0 {
            let k = match linked {
                true => self.branches.min(n).min(self.spare + 1),
                false => 1,
            };
            self.spare -= k - 1;
            let each = weight * n as f64 / k as f64;
            for j in 0..k {
                // A partial shuffle: the j-th draw from the n - j left. One draw takes its
                // vertex in place, so the list stays as found for the next walk.
                let mut pick = j;
                if linked {
                    let at = j + (self.random.next() % (n - j) as u64) as usize;
                    match k {
                        1 => pick = at,
                        _ => {
                            list.swap(j, at);
                            self.extended[step] = None;
                        }
                    }
                }
                row.push(list[pick]);
                self.prefixes.extend(step, list[pick]);
                reached |= self.down(row, each);
                row.pop();
                if k > 1 && self.sampler.options.stop().is_some() {
                    break;
                }
            }
        }
        self.lists[step] = list;
        reached
    }

    /// A row at the leaf suffix: each suffix step's partial matches, and each leaf's list
    /// as the count reads it for this row, found from the prefix alone unless a leaf's order
    /// bound names an earlier leaf (then the walk goes on down the suffix).
    fn suffix(&mut self, row: &mut Vec<VertexId>, weight: f64) {
        let width = self.steps.len();
        for suffix in &mut self.steps[self.from..] {
            *suffix += weight;
        }
        let prefix = row.len();
        let mut list = std::mem::take(&mut self.lists[width]);
        for step in self.from..width {
            self.reads += weight * self.join.list_read(step, row) as f64;
            if !self.leaves_bound_leaves {
                continue;
            }
            let n = self.join.extend_row(step, row, &mut list);
            if n == 0 {
                break;
            }
            list.swap(0, (self.leaf_random.next() % n as u64) as usize);
            row.push(list[0]);
        }
        row.truncate(prefix);
        self.lists[width] = list;
    }
}

/// Numbers for the prefixes of a walk's row, equal for equal prefixes that follow one
/// another at a step: each step remembers the last prefix it saw extended, as (the number of
/// the prefix one shorter, the vertex added, its own number). One number a step, where
/// keeping the rows themselves would take the square of a long query's width.
struct Prefixes {
    /// The numbers of the row under way's prefixes: `row[..s]` is `current[s]`.
    current: Vec<u64>,
    /// At each step, the last prefix made there.
    last: Vec<Option<(u64, VertexId, u64)>>,
    made: u64,
}

impl Prefixes {
    fn new(width: usize) -> Prefixes {
        Prefixes {
            current: vec![0; width + 1],
            last: vec![None; width + 1],
            made: 0,
        }
    }

    /// The number of `row[..step]`.
    fn of(&self, step: usize) -> u64 {
        self.current[step]
    }

    /// `row[..step]` extended by `v`: the number of `row[..step + 1]`.
    fn extend(&mut self, step: usize, v: VertexId) {
        let shorter = self.current[step];
        self.current[step + 1] = match self.last[step] {
            Some((of, w, number)) if of == shorter && w == v => number,
            _ => {
                self.made += 1;
                self.last[step] = Some((shorter, v, self.made));
                self.made
            }
        };
    }
}

/// A plan's work as the walks estimated it: the partial matches of each step (each step of
/// the leaf suffix: one extension set per row at the suffix), and their sum.
pub(super) struct Work {
    pub(super) total: f64,
    pub(super) steps: Vec<f64>,
    /// The elements of the lists a count reads: each step's rows' lists, and each leaf's at
    /// the leaf suffix.
    pub(super) reads: f64,
    /// The share of the walks that reached the leaf suffix (or the plan's end).
    pub(super) reached: f64,
}

impl Work {
    /// Whether no walk of an injective join reached the leaf suffix: what the survivors would
    /// do is unknown, so a light estimate says nothing and the join may run into the same
    /// dead ends (wordnet's 12-vertex queries: 3 s unplanned, 0.1 s planned). Not under
    /// homomorphism (the quotients of a tree query, whose plans only weigh the dynamic
    /// program: planned, gw12's query_dense_12_9 took a join of 6 s on the CPU instead of
    /// 0.1 s over its quotients).
    pub(super) fn blind(&self, options: &MatchOptions) -> bool {
        self.reached == 0.0 && options.semantics.injective()
    }

    /// Writes the estimate into `plan`'s choice.
    pub(super) fn record(&self, plan: &mut Plan) {
        plan.choice.estimated_work = Some(self.total);
        plan.choice.estimated_steps = self.steps.clone();
        plan.choice.estimated_reads = Some(self.reads);
        plan.choice.walks_reached = Some(self.reached);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use gsi_graph::{Graph, GraphBuilder};

    use super::*;
    use crate::options::Semantics;

    /// Extensions by definition, independent of the engines' joins: the candidates of the
    /// step's vertex that are neighbours, in the data graph, of every linked column's match
    /// and, when injective, in no column.
    pub(crate) struct ByDefinition;

    struct Defined<'a> {
        plan: &'a Plan,
        sets: &'a CandidateSets,
        data: &'a DataIndex,
        injective: bool,
    }

    impl JoinForWalks for ByDefinition {
        fn extender<'a>(
            &self,
            plan: &'a Plan,
            sets: &'a CandidateSets,
            data: &'a DataIndex,
            options: &'a MatchOptions,
        ) -> Box<dyn RowExtender + 'a> {
            Box::new(Defined {
                plan,
                sets,
                data,
                injective: options.semantics.injective(),
            })
        }
    }

    impl RowExtender for Defined<'_> {
        fn list_read(&self, step: usize, row: &[VertexId]) -> usize {
            let st = &self.plan.steps[step];
            match st.first {
                Some(e) => self
                    .data
                    .graph()
                    .neighbors(row[e.column], e.label, e.direction)
                    .len(),
                None => self.sets.list(st.vertex).len(),
            }
        }

        fn extend_row(&self, step: usize, row: &[VertexId], buf: &mut Vec<VertexId>) -> usize {
            let st = &self.plan.steps[step];
            let graph = self.data.graph();
            buf.clear();
            buf.extend(self.sets.list(st.vertex).iter().filter(|x| {
                !(self.injective && row.contains(x))
                    && st.links().all(|e| {
                        graph
                            .neighbors(row[e.column], e.label, e.direction)
                            .contains(x)
                    })
            }));
            buf.len()
        }
    }

    pub(crate) fn clique(n: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for s in 0..n {
            for t in s + 1..n {
                b.add_edge(s, t, 0).unwrap();
            }
        }
        b.build().unwrap()
    }

    /// K(half, half), one label: no odd cycle.
    pub(crate) fn complete_bipartite(half: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; 2 * half as usize]);
        for s in 0..half {
            for t in half..2 * half {
                b.add_edge(s, t, 0).unwrap();
            }
        }
        b.build().unwrap()
    }

    /// A path of `n` vertices, one label.
    pub(crate) fn path(n: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for s in 1..n {
            b.add_edge(s - 1, s, 0).unwrap();
        }
        b.build().unwrap()
    }

    /// Walks whose rows extend by definition ([`ByDefinition`]).
    fn by_definition<'a>(
        sets: &'a CandidateSets,
        data: &'a DataIndex,
        options: &'a MatchOptions,
    ) -> Sampler<'a> {
        Sampler {
            sets,
            data,
            options,
            join: &ByDefinition,
        }
    }

    /// A path of three vertices in K6, every vertex a candidate of each: every partial match
    /// of k vertices has 6 - k extensions, so every walk gives the exact count of each step.
    fn path_in_k6() -> (DataIndex, CandidateSets, Plan) {
        let data = DataIndex::build(clique(6)).unwrap();
        let all: Vec<VertexId> = (0..6).collect();
        let sets = CandidateSets::from_lists(vec![all.clone(), all.clone(), all], 6);
        let plan = Plan::build(&path(3), &sets.sizes(), &data, false);
        (data, sets, plan)
    }

    #[test]
    fn walks_count_every_partial_match_where_every_walk_sees_the_same() {
        // 6, 6·5 and 6·5·4 partial matches.
        let (data, sets, plan) = path_in_k6();
        let isomorphism = MatchOptions::default();
        let sampler = by_definition(&sets, &data, &isomorphism);
        let work = sampler.work(&plan, 7);
        assert_eq!(work.steps, [6.0, 30.0, 120.0]);
        assert_eq!(work.total, (6 + 30 + 120) as f64);
        let homomorphism = MatchOptions {
            semantics: Semantics::Homomorphism,
            ..MatchOptions::default()
        };
        let homomorphic = Sampler {
            options: &homomorphism,
            ..sampler
        };
        // Without injectivity the path's end may come back to its start: 6·5·5.
        assert_eq!(homomorphic.work(&plan, 7).steps, [6.0, 30.0, 150.0]);
    }

    /// [`ByDefinition`], counting the rows it is asked to extend.
    struct Counted(&'static AtomicUsize);

    struct CountedRows<'a> {
        inner: Box<dyn RowExtender + 'a>,
        asked: &'a AtomicUsize,
    }

    impl JoinForWalks for Counted {
        fn extender<'a>(
            &self,
            plan: &'a Plan,
            sets: &'a CandidateSets,
            data: &'a DataIndex,
            options: &'a MatchOptions,
        ) -> Box<dyn RowExtender + 'a> {
            Box::new(CountedRows {
                inner: ByDefinition.extender(plan, sets, data, options),
                asked: self.0,
            })
        }
    }

    impl RowExtender for CountedRows<'_> {
        fn list_read(&self, step: usize, row: &[VertexId]) -> usize {
            self.inner.list_read(step, row)
        }

        fn extend_row(&self, step: usize, row: &[VertexId], buf: &mut Vec<VertexId>) -> usize {
            self.asked.fetch_add(1, Ordering::Relaxed);
            self.inner.extend_row(step, row, buf)
        }
    }

    #[test]
    fn walks_from_one_start_extend_their_shared_row_once() {
        // The path's first vertex pinned to data vertex 0: every walk's row at the second
        // step is [0], whose 5 extensions are found once; the third step's rows differ
        // from walk to walk and are extended as they come (at most once a walk).
        let data = DataIndex::build(clique(6)).unwrap();
        let all: Vec<VertexId> = (0..6).collect();
        let sets = CandidateSets::from_lists(vec![vec![0], all.clone(), all], 6);
        let plan = Plan::build(&path(3), &sets.sizes(), &data, false);
        assert_eq!(plan.order(), [0, 1, 2], "{plan}");
        let options = MatchOptions::default();
        static ASKED: AtomicUsize = AtomicUsize::new(0);
        let counted = Counted(&ASKED);
        let sampler = Sampler {
            sets: &sets,
            data: &data,
            options: &options,
            join: &counted,
        };
        let walks = 7;
        let work = sampler.work(&plan, walks);
        assert_eq!(work.steps, [1.0, 5.0, 20.0]);
        let asked = counted.0.load(Ordering::Relaxed);
        assert!(asked <= 1 + walks, "{asked} rows extended");
    }

    #[test]
    fn branching_walks_split_each_rows_weight_among_its_branches() {
        // As above, each branch of a walk stands for its share of the row's extensions.
        let (data, sets, plan) = path_in_k6();
        let options = MatchOptions::default();
        let sampler = by_definition(&sets, &data, &options);
        for branches in [1, 2, 4, 9] {
            let work = sampler.walk(&plan, 7, branches);
            assert_eq!(work.steps, [6.0, 30.0, 120.0], "{branches} branches");
            assert_eq!(work.reached, 1.0);
        }
    }

    /// Every step's partial matches of `plan` over `sets`, by enumeration.
    fn partial_matches(plan: &Plan, sets: &CandidateSets, data: &DataIndex) -> Vec<f64> {
        let options = MatchOptions::default();
        let join = ByDefinition.extender(plan, sets, data, &options);
        let mut made = vec![0.0; plan.width()];
        let mut rows: Vec<Vec<VertexId>> = vec![Vec::new()];
        for (step, made) in made.iter_mut().enumerate() {
            let mut next = Vec::new();
            let mut buf = Vec::new();
            for row in &rows {
                let n = join.extend_row(step, row, &mut buf);
                next.extend(buf[..n].iter().map(|&v| {
                    let mut longer = row.clone();
                    longer.push(v);
                    longer
                }));
            }
            *made = next.len() as f64;
            rows = next;
        }
        made
    }

    /// A path of four vertices over a hub (vertex 0, on 1..24) on a sparse ring of chords,
    /// every vertex a candidate of each.
    fn path_on_a_hub() -> (DataIndex, CandidateSets, Plan) {
        let n = 48;
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for v in 1..n {
            b.add_edge(v, (v % (n - 1)) + 1, 0).unwrap();
            b.add_edge(v, (v * 7 + 3) % n, 0).unwrap();
            if v < 24 {
                b.add_edge(0, v, 0).unwrap();
            }
        }
        let data = DataIndex::build(b.build().unwrap()).unwrap();
        let all: Vec<VertexId> = (0..n).collect();
        let sets = CandidateSets::from_lists(vec![all; 4], n as usize);
        let plan = Plan::build(&path(4), &sets.sizes(), &data, false);
        (data, sets, plan)
    }

    #[test]
    fn plain_and_branching_walks_estimate_partial_matches_without_bias() {
        // Walks vary widely on the hub graph, and their means over many walks come near the
        // enumerated counts.
        let (data, sets, plan) = path_on_a_hub();
        let exact = partial_matches(&plan, &sets, &data);
        let options = MatchOptions::default();
        let sampler = by_definition(&sets, &data, &options);
        for branches in [1, BRANCHES] {
            let work = sampler.walk(&plan, 20_000, branches);
            for (step, (&got, &want)) in work.steps.iter().zip(&exact).enumerate() {
                assert!(
                    (got - want).abs() <= 0.05 * want,
                    "{branches} branches, step {step}: {got} against {want} ({exact:?})"
                );
            }
        }
    }
}
