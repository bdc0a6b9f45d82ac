//! Choosing a join order by sampling. Estimates from candidate-set sizes and pairwise
//! selectivities assume the edges independent, which dense regions of a graph are not (on
//! yeast they predicted a 24-vertex query's last step to keep no row; it kept 7.2 million).
//! Random walks down a plan (WanderJoin, Li et al., SIGMOD 2016) estimate without bias how
//! many partial matches each step produces, so a few candidate orders are sampled and the one
//! with the least estimated work is run.
//!
//! A walk needs of a join only Algorithm 3 for one partial match ([`RowExtender`]); the
//! caller hands in the join that gives it ([`JoinForWalks`]), so the planner names no engine.

use gsi_graph::{Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::options::{JoinOrder, MatchOptions};
use crate::plan::refine::{refine, sample, CandidateEdges, READ_SAMPLE};
use crate::plan::{core_numbers, Plan, Postpone, Strategy};

/// Walks that decide whether a query is heavy enough to try other orders.
const FIRST_WALKS: usize = 32;
/// Walks per candidate order once it is, when its estimated work passes
/// [`LIGHT_SAMPLING_WORK`]; below, the first walks' number.
const WALKS: usize = 128;
/// Estimated partial matches below which the other orders are sampled with as few walks as
/// the first estimate took: their joins take about a millisecond on one core, as long as 128
/// walks for each of four orders (yeast's query_dense_8_37: 1.0 ms planning with 128, against
/// a 0.35 ms join).
const LIGHT_SAMPLING_WORK: f64 = 1e5;

/// Orders estimated within this factor of the least are walked again, with
/// [`CONTENDER_WALKS`] walks each, where the least passes [`CONTENDER_WORK`]
/// ([`CONTENDER_SWITCH`]): on a graph of
/// few labels and skewed degrees a few heavy walks hold most of an order's work, and 128 can
/// miss them all (wordnet's query_dense_12_65: 128 walks put an order at 4.2×10^6 partial
/// matches, 2.9 times under another's; 512 at 3.2×10^7, 3.6 times over it; its join took over
/// 5 s against 0.43).
const CONTENDER_FACTOR: f64 = 4.0;
/// Walks per order walked again ([`CONTENDER_FACTOR`]).
const CONTENDER_WALKS: usize = 1024;
/// Extensions a branching walk ([`Sampler::walk`]) goes on with at each linked step, where
/// every order's plain walks died before the leaf suffix ([`Work::blind`]).
const BRANCHES: usize = 4;
/// Rows a branching walk may take beyond a plain walk's. On wordnet's 400 dense 12- and
/// 16-vertex queries (one CPU thread, 2 s each, development machine) walks that branch where
/// the plain ones were blind finished 301 against 295, 323 s in all against 334 (256 rows:
/// 300, 325 s).
const BRANCHED_NODES: usize = 64;

/// Estimated partial matches from which close orders are walked again: lighter joins take
/// milliseconds, about what the walks would.
const CONTENDER_WORK: f64 = 1e6;
/// How much cheaper the longer walks must find another order to take it over the one the
/// first walks chose: a closer estimate is no better a guess of the time (on wordnet's
/// query_dense_12_10 and _16_32, 1,024 walks put another order 1.3 to 1.9 times under the one
/// chosen, whose join took half its time).
const CONTENDER_SWITCH: f64 = 2.0;

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

/// The plan to run for `query` over `sets`, which are refined first ([`crate::plan::refine`]);
/// `join` extends the walks' partial matches.
///
/// With [`JoinOrder::Sampled`], a light query (Algorithm 2's plan estimated under
/// `options.heavy_query_work` partial matches by a few walks) runs Algorithm 2's plan; a
/// heavy one the order of the least estimated work among Algorithm 2's, the least estimated
/// growth ([`Strategy::Growth`]), the most links ([`Strategy::Links`]) and, when the query
/// has cycles, its innermost core first ([`Strategy::Core`]); where every order's walks died
/// before the leaf suffix, each is walked again with walks that branch ([`BRANCHES`]), and
/// where the walks are not blind, the orders close to the least are walked again, longer
/// ([`CONTENDER_FACTOR`]). The other orders are forced. (Sampling the filter's own sets to tell light from heavy misjudged
/// yeast's query_dense_32_148: most walks died early on sets the refinement would have cut.)
pub(crate) fn plan_on_host(
    query: &Graph,
    sets: &mut CandidateSets,
    data: &DataIndex,
    options: &MatchOptions,
    postpone: Postpone,
    join: &dyn JoinForWalks,
) -> Plan {
    let keep = |mut plan: Plan, reason: String| {
        plan.choice.kept_because = Some(reason);
        plan
    };
    // Algorithm 2's plan over the filter's own sets, walked: unless refining and sampling
    // pay, it is the plan; if refining changes no set, it is still the plan to sample from.
    // Every order is cut short once the query is out of time.
    let stop = || options.stop().is_some();
    let mut unrefined = None;
    if options.join_order == JoinOrder::Sampled && options.heavy_query_work > 0.0 {
        let mut paper =
            Plan::with_strategy(query, &sets.sizes(), data, postpone, Strategy::Paper, &stop);
        let sampler = Sampler {
            sets,
            data,
            options,
            join,
        };
        let work = sampler.work(&paper, FIRST_WALKS);
        if !worth_planning(query, sets, data, &work, options) {
            work.record(&mut paper);
            return keep(paper, "light, or costlier to refine than to join".into());
        }
        unrefined = Some((paper, work));
    }
    let filtered: usize = sets.sizes().iter().sum();
    let shrank = refine(query, data, sets, options.refine_rounds) > 0;
    let sizes = sets.sizes();
    let refined = |mut plan: Plan| {
        let now: usize = sizes.iter().sum();
        plan.choice.filtered_total = (now < filtered).then_some(filtered);
        plan
    };
    let plan = |strategy| Plan::with_strategy(query, &sizes, data, postpone, strategy, &stop);
    let edges = || CandidateEdges::count(query, data, sets);
    refined(match options.join_order {
        JoinOrder::Paper => plan(Strategy::Paper),
        JoinOrder::Growth => plan(Strategy::Growth(&edges())),
        JoinOrder::Links => plan(Strategy::Links),
        JoinOrder::Core => plan(Strategy::Core),
        JoinOrder::Sampled => {
            let sampler = Sampler {
                sets,
                data,
                options,
                join,
            };
            let (mut paper, work) = match unrefined {
                Some(walked) if !shrank => walked,
                _ => {
                    let paper = plan(Strategy::Paper);
                    let work = sampler.work(&paper, FIRST_WALKS);
                    (paper, work)
                }
            };
            if work.total < options.heavy_query_work && !work.blind(options) {
                let reason = format!("light: {:.0} partial matches estimated", work.total);
                work.record(&mut paper);
                return refined(keep(paper, reason));
            }
            let walks = if work.total < LIGHT_SAMPLING_WORK {
                FIRST_WALKS
            } else {
                WALKS
            };
            let edges = edges();
            let mut plans = vec![paper, plan(Strategy::Growth(&edges)), plan(Strategy::Links)];
            // The innermost core first, where the query has cycles (an order the others
            // give too is sampled once, below).
            if core_numbers(query).iter().any(|&k| k >= 2) {
                plans.push(plan(Strategy::Core));
            }
            // Each order once (strategies often agree: yeast's query_dense_8_37 gets one
            // order from three), side by side on the engine's threads unless it has one
            // (handing them to the pool then costs more than it saves).
            let orders: Vec<Vec<usize>> = plans
                .iter()
                .map(|p| p.steps.iter().map(|s| s.vertex).collect())
                .collect();
            let distinct: Vec<usize> = (0..plans.len())
                .filter(|&i| !orders[..i].contains(&orders[i]))
                .collect();
            let sample = |&i: &usize| sampler.work(&plans[i], walks);
            let one_thread = rayon::current_num_threads() == 1;
            let mut works: Vec<Work> = if one_thread {
                distinct.iter().map(sample).collect()
            } else {
                distinct.par_iter().map(sample).collect()
            };
            // Each plan's estimate: its order's, sampled once.
            let walked = |i: usize| {
                distinct
                    .iter()
                    .position(|&j| orders[j] == orders[i])
                    .expect("every order's first plan is sampled")
            };
            // The plan of the least estimated work. Orders estimated alike (walks that all
            // died at the same step before the orders part) go to the innermost core first,
            // which fails soonest where the query is densest (on wordnet's
            // query_dense_12_86, 94 ms against 600 for Algorithm 2's).
            let least = |works: &[Work]| {
                let core_first = |i: usize| plans[i].choice.strategy != Strategy::Core.name();
                (0..plans.len())
                    .min_by(|&a, &b| {
                        works[walked(a)]
                            .total
                            .total_cmp(&works[walked(b)].total)
                            .then(core_first(a).cmp(&core_first(b)))
                    })
                    .expect("three plans or more")
            };
            // Where every order's walks died before the leaf suffix, they saw nothing of what
            // survivors do: every order is walked again with walks that branch.
            let blind = works.iter().all(|w| w.blind(options));
            if blind {
                let branched = |&i: &usize| sampler.walk(&plans[i], WALKS, BRANCHES);
                works = if one_thread {
                    distinct.iter().map(branched).collect()
                } else {
                    distinct.par_iter().map(branched).collect()
                };
            }
            let mut chosen = least(&works);
            let mut kept = None;
            let least_work = works[walked(chosen)].total;
            let contenders: Vec<usize> = (0..works.len())
                .filter(|&k| works[k].total <= least_work * CONTENDER_FACTOR)
                .collect();
            if !blind
                && least_work >= CONTENDER_WORK
                && contenders.len() > 1
                && walks < CONTENDER_WALKS
            {
                let again = |&k: &usize| sampler.work(&plans[distinct[k]], CONTENDER_WALKS);
                let walked_again: Vec<Work> = if one_thread {
                    contenders.iter().map(again).collect()
                } else {
                    contenders.par_iter().map(again).collect()
                };
                for (k, work) in contenders.into_iter().zip(walked_again) {
                    works[k] = work;
                }
                // The first choice stands unless the longer walks find another clearly
                // cheaper: orders within twice each other's estimate take about as long.
                let other = least(&works);
                if works[walked(other)].total * CONTENDER_SWITCH <= works[walked(chosen)].total {
                    chosen = other;
                } else if walked(other) != walked(chosen) {
                    kept = Some(format!(
                        "the first walks' choice: none under half its estimate on \
                         {CONTENDER_WALKS} walks"
                    ));
                }
            }
            let sampled = plans
                .iter()
                .enumerate()
                .map(|(i, p)| (p.choice.strategy, works[walked(i)].total))
                .collect();
            let work = &works[walked(chosen)];
            let mut best = plans.swap_remove(chosen);
            best.choice.kept_because = kept;
            best.choice.sampled = sampled;
            work.record(&mut best);
            best
        }
    })
}

/// Of two plans of one count, the one whose work ([`Plan::count_work`]) the walks estimate
/// the least, each walked alike ([`WALKS`] walks, their estimates recorded); `first` on a tie.
pub(crate) fn cheaper_count(
    first: Plan,
    second: Plan,
    sets: &CandidateSets,
    data: &DataIndex,
    options: &MatchOptions,
    join: &dyn JoinForWalks,
) -> Plan {
    let sampler = Sampler {
        sets,
        data,
        options,
        join,
    };
    let [first, second] = [first, second].map(|mut plan| {
        sampler.work(&plan, WALKS).record(&mut plan);
        plan
    });
    match second.count_work() < first.count_work() {
        true => second,
        false => first,
    }
}

/// Estimated partial matches over the filter's own sets below which a query is not refined:
/// its join takes microseconds. (On yeast, 32 walks estimated 189 for a query whose join
/// makes 10^8 partial matches, and 8 to 900 for joins of under 0.5 ms.)
const TRIVIAL_WORK: f64 = 100.0;

/// Neighbour-list entries of the candidates up to which refining and sampling are always
/// worth their cost (yeast's 8- to 32-vertex queries read 20 000 to 80 000; a gowalla-shaped
/// graph's 12-vertex queries 400 000 to 2.3 million, and took 4 to 68 ms to plan).
const CHEAP_PLANNING_READS: usize = 1 << 18;

/// Whether refining and sampling are worth their cost, from `work`, what a few walks over the
/// filter's own sets estimate (they underestimate rather than overestimate: a heavy verdict
/// is trusted, a light one only when it is very light, [`TRIVIAL_WORK`]): when the
/// candidates' neighbour lists are short ([`CHEAP_PLANNING_READS`]), or when the walks
/// estimate the join's work at `pays_from` times their length (the joining engine's
/// [`crate::Engine::planning_pays_from`] in `options`), or when the walks were blind
/// ([`Work::blind`]).
fn worth_planning(
    query: &Graph,
    sets: &CandidateSets,
    data: &DataIndex,
    work: &Work,
    options: &MatchOptions,
) -> bool {
    if work.total < TRIVIAL_WORK {
        return false;
    }
    if work.blind(options) {
        return true;
    }
    let graph = data.graph();
    // Each set's entries from a sample of its candidates, scaled.
    let reads: f64 = (0..query.vertex_count())
        .map(|u| {
            let (taken, scale) = sample(sets.list(u), READ_SAMPLE);
            taken.map(|&v| graph.total_degree(v)).sum::<usize>() as f64 * scale
        })
        .sum();
    reads <= CHEAP_PLANNING_READS as f64 || work.total >= options.planning_pays_from() * reads
}

/// Random walks over one query's candidate sets.
struct Sampler<'a> {
    sets: &'a CandidateSets,
    data: &'a DataIndex,
    options: &'a MatchOptions,
    join: &'a dyn JoinForWalks,
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
    fn work(&self, plan: &Plan, walks: usize) -> Work {
        self.walk(plan, walks, 1)
    }

    /// [`Sampler::work`] with walks that branch: at each linked step a walk goes on with up
    /// to `branches` of its row's extensions, drawn without replacement, each standing for
    /// `n / branches` of the `n` (still without bias), until the walk has taken
    /// [`BRANCHED_NODES`] more rows than a plain walk would; `branches` = 1 is the plain walk.
    /// Where every plain walk dies before the leaf suffix, the branches reach further: what
    /// one walk in a thousand survives to is seen.
    fn walk(&self, plan: &Plan, walks: usize, branches: usize) -> Work {
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
            descent.spare = if branches > 1 { BRANCHED_NODES } else { 0 };
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
    branches: usize,
    /// Rows this walk may still take beyond a plain walk's.
    spare: usize,
}

impl Descent<'_, '_> {
    /// Extends `row`, standing for `weight` partial matches, down the plan; whether any of
    /// its branches reached the leaf suffix.
    fn down(&mut self, row: &mut Vec<VertexId>, weight: f64) -> bool {
        let step = row.len();
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
            (self.join.extend_row(step, row, &mut list), true)
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
                // A partial shuffle: the j-th draw from the n - j left.
                if linked {
                    let at = j + (self.random.next() % (n - j) as u64) as usize;
                    list.swap(j, at);
                }
                row.push(list[j]);
                reached |= self.down(row, each);
                row.pop();
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

/// A plan's work as the walks estimated it: the partial matches of each step (each step of
/// the leaf suffix: one extension set per row at the suffix), and their sum.
struct Work {
    total: f64,
    steps: Vec<f64>,
    /// The elements of the lists a count reads: each step's rows' lists, and each leaf's at
    /// the leaf suffix.
    reads: f64,
    /// The share of the walks that reached the leaf suffix (or the plan's end).
    reached: f64,
}

impl Work {
    /// Whether no walk of an injective join reached the leaf suffix: what the survivors would
    /// do is unknown, so a light estimate says nothing and the join may run into the same
    /// dead ends (wordnet's 12-vertex queries: 3 s unplanned, 0.1 s planned). Not under
    /// homomorphism (the quotients of a tree query, whose plans only weigh the dynamic
    /// program: planned, gw12's query_dense_12_9 took a join of 6 s on the CPU instead of
    /// 0.1 s over its quotients).
    fn blind(&self, options: &MatchOptions) -> bool {
        self.reached == 0.0 && options.semantics.injective()
    }

    /// Writes the estimate into `plan`'s choice.
    fn record(&self, plan: &mut Plan) {
        plan.choice.estimated_work = Some(self.total);
        plan.choice.estimated_steps = self.steps.clone();
        plan.choice.estimated_reads = Some(self.reads);
    }
}

/// SplitMix64: a small, well-mixed generator for the walks' choices.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use gsi_graph::GraphBuilder;

    use super::*;
    use crate::options::{Semantics, CPU_PLANNING_PAYS_FROM, GPU_PLANNING_PAYS_FROM};

    /// Extensions by definition, independent of the engines' joins: the candidates of the
    /// step's vertex that are neighbours, in the data graph, of every linked column's match
    /// and, when injective, in no column.
    struct ByDefinition;

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

    fn clique(n: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for s in 0..n {
            for t in s + 1..n {
                b.add_edge(s, t, 0).unwrap();
            }
        }
        b.build().unwrap()
    }

    /// K(half, half), one label: no odd cycle.
    fn complete_bipartite(half: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; 2 * half as usize]);
        for s in 0..half {
            for t in half..2 * half {
                b.add_edge(s, t, 0).unwrap();
            }
        }
        b.build().unwrap()
    }

    /// A path of `n` vertices, one label.
    fn path(n: u32) -> Graph {
        let mut b = GraphBuilder::with_vertices(false, vec![0; n as usize]);
        for s in 1..n {
            b.add_edge(s - 1, s, 0).unwrap();
        }
        b.build().unwrap()
    }

    #[test]
    fn walks_count_every_partial_match_where_every_walk_sees_the_same() {
        // A path of three vertices in K6: every partial match of k vertices has 6 - k
        // extensions, so every walk gives the exact count of each step: 6, 6·5 and 6·5·4.
        let data = DataIndex::build(clique(6)).unwrap();
        let query = path(3);
        let all: Vec<VertexId> = (0..6).collect();
        let sets = CandidateSets::from_lists(vec![all.clone(), all.clone(), all], 6);
        let plan = Plan::build(&query, &sets.sizes(), &data, false);
        let isomorphism = MatchOptions::default();
        let sampler = Sampler {
            sets: &sets,
            data: &data,
            options: &isomorphism,
            join: &ByDefinition,
        };
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

    #[test]
    fn branching_walks_split_each_rows_weight_among_its_branches() {
        // As above, each branch of a walk stands for its share of the row's extensions.
        let data = DataIndex::build(clique(6)).unwrap();
        let query = path(3);
        let all: Vec<VertexId> = (0..6).collect();
        let sets = CandidateSets::from_lists(vec![all.clone(), all.clone(), all], 6);
        let plan = Plan::build(&query, &sets.sizes(), &data, false);
        let options = MatchOptions::default();
        let sampler = Sampler {
            sets: &sets,
            data: &data,
            options: &options,
            join: &ByDefinition,
        };
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

    #[test]
    fn plain_and_branching_walks_estimate_partial_matches_without_bias() {
        // A hub (vertex 0, on 1..24) on a sparse ring of chords: walks vary widely, and
        // their means over many walks come near the enumerated counts.
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
        let query = path(4);
        let all: Vec<VertexId> = (0..n).collect();
        let sets = CandidateSets::from_lists(vec![all; 4], n as usize);
        let plan = Plan::build(&query, &sets.sizes(), &data, false);
        let exact = partial_matches(&plan, &sets, &data);
        let options = MatchOptions::default();
        let sampler = Sampler {
            sets: &sets,
            data: &data,
            options: &options,
            join: &ByDefinition,
        };
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

    #[test]
    fn planning_pays_sooner_before_the_cpus_join_than_before_a_gpus() {
        // K(250, 250): a path of three vertices over all 500 vertices reads 3 · 500 · 250
        // list entries to plan and makes 500 + 500 · 250 + 500 · 250 · 249 partial matches,
        // 83 per entry: under a GPU's rule (100), over the CPU's (1).
        let data = DataIndex::build(complete_bipartite(250)).unwrap();
        let all: Vec<VertexId> = (0..500).collect();
        let light = Some("light, or costlier to refine than to join".to_string());
        let kept_because = |pays_from| {
            let mut sets = CandidateSets::from_lists(vec![all.clone(); 3], 500);
            let options = MatchOptions {
                planning_pays_from: Some(pays_from),
                ..MatchOptions::default()
            };
            let plan = plan_on_host(
                &path(3),
                &mut sets,
                &data,
                &options,
                Postpone::Nothing,
                &ByDefinition,
            );
            plan.choice.kept_because
        };
        assert_eq!(kept_because(GPU_PLANNING_PAYS_FROM), light);
        assert_ne!(kept_because(CPU_PLANNING_PAYS_FROM), light);
        // The search asks the engine that joins, unless the options say: the CPU engine's
        // rule here, a GPU's for a plan made ahead for a GPU.
        let options = MatchOptions::default();
        let mut cpu = crate::cpu::CpuEngine::default();
        let planned = crate::search::plan_query(&mut cpu, &path(3), &data, &options, false);
        assert_ne!(planned.unwrap().report().plan.choice.kept_because, light);
        let ahead = crate::search::plan_ahead(&path(3), &data, &options, false).unwrap();
        assert_eq!(ahead.unwrap().report().plan.choice.kept_because, light);
    }

    #[test]
    fn walks_that_all_die_do_not_call_a_query_light() {
        // K(250, 250) has no triangle: every walk of a triangle dies at its third vertex, so
        // the walks, about 0.3 partial matches per list entry, would call it light even
        // under a GPU's rule; it is planned, but under homomorphism (a tree's quotients,
        // whose plans only weigh the dynamic program) it stays light.
        let data = DataIndex::build(complete_bipartite(250)).unwrap();
        let all: Vec<VertexId> = (0..500).collect();
        let kept_because = |semantics| {
            let mut sets = CandidateSets::from_lists(vec![all.clone(); 3], 500);
            let options = MatchOptions {
                planning_pays_from: Some(GPU_PLANNING_PAYS_FROM),
                semantics,
                ..MatchOptions::default()
            };
            let plan = plan_on_host(
                &clique(3),
                &mut sets,
                &data,
                &options,
                Postpone::Nothing,
                &ByDefinition,
            );
            plan.choice.kept_because
        };
        assert_eq!(kept_because(Semantics::Isomorphism), None);
        assert_eq!(
            kept_because(Semantics::Homomorphism).as_deref(),
            Some("light, or costlier to refine than to join")
        );
    }

    #[test]
    fn the_plan_carries_the_walks_estimate_whichever_way_it_was_chosen() {
        // The path in K6 again: every walk sees 6 + 30 + 120 partial matches.
        let data = DataIndex::build(clique(6)).unwrap();
        let query = path(3);
        let all: Vec<VertexId> = (0..6).collect();
        // Light after refining, and heavy (orders sampled).
        let options = |heavy_query_work| MatchOptions {
            heavy_query_work,
            ..MatchOptions::default()
        };
        for heavy_query_work in [1e9, 0.0, 1.0] {
            let mut sets = CandidateSets::from_lists(vec![all.clone(); 3], 6);
            let plan = plan_on_host(
                &query,
                &mut sets,
                &data,
                &options(heavy_query_work),
                Postpone::Nothing,
                &ByDefinition,
            );
            assert_eq!(
                plan.choice.estimated_work,
                Some(156.0),
                "{heavy_query_work}"
            );
            assert_eq!(plan.expected_rows(), 156.0);
            assert_eq!(plan.choice.estimated_steps, [6.0, 30.0, 120.0]);
        }
        // One edge, 6 + 30 partial matches: too light to refine ([`TRIVIAL_WORK`]).
        let mut sets = CandidateSets::from_lists(vec![all.clone(); 2], 6);
        let plan = plan_on_host(
            &path(2),
            &mut sets,
            &data,
            &options(1e4),
            Postpone::Nothing,
            &ByDefinition,
        );
        assert_eq!(
            plan.choice.kept_because.as_deref(),
            Some("light, or costlier to refine than to join")
        );
        assert_eq!(plan.expected_rows(), 36.0);
        // A forced order takes no walks: Algorithm 2's own estimate stands.
        let options = MatchOptions {
            join_order: JoinOrder::Paper,
            ..MatchOptions::default()
        };
        let mut sets = CandidateSets::from_lists(vec![all.clone(); 3], 6);
        let plan = plan_on_host(
            &query,
            &mut sets,
            &data,
            &options,
            Postpone::Nothing,
            &ByDefinition,
        );
        assert_eq!(plan.choice.estimated_work, None);
        assert!(plan.choice.estimated_steps.is_empty());
        assert_eq!(plan.expected_rows(), plan.estimated_rows);
    }
}
