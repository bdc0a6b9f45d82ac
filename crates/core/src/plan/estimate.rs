//! Choosing a join order by sampling. Estimates from candidate-set sizes and pairwise
//! selectivities assume the edges independent, which dense regions of a graph are not (on
//! yeast they predicted a 24-vertex query's last step to keep no row; it kept 7.2 million).
//! Random walks down a plan (WanderJoin, Li et al., SIGMOD 2016) estimate without bias how
//! many partial matches each step produces, so a few candidate orders are sampled and the one
//! with the least estimated work is run.
//!
//! The walks themselves are in [`crate::plan::walks`].

use gsi_graph::Graph;
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::options::{JoinOrder, MatchOptions};
use crate::plan::refine::{refine, sample, CandidateEdges, READ_SAMPLE};
use crate::plan::walks::{JoinForWalks, Sampler, Work, BRANCHES};
use crate::plan::{core_numbers, triangle_counts, Plan, Postpone, Strategy};

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
/// Estimated partial matches from which close orders are walked again: lighter joins take
/// milliseconds, about what the walks would.
const CONTENDER_WORK: f64 = 1e6;
/// How much cheaper the longer walks must find another order to take it over the one the
/// first walks chose: a closer estimate is no better a guess of the time (on wordnet's
/// query_dense_12_10 and _16_32, 1,024 walks put another order 1.3 to 1.9 times under the one
/// chosen, whose join took half its time).
const CONTENDER_SWITCH: f64 = 2.0;

/// The share of the data's wedges that close ([`DataIndex::closed_wedges`]) under which a
/// query's triangles first ([`Strategy::Triangles`]) is one of the orders weighed. Where
/// triangles are rare, a query's triangle cuts its rows most (wordnet, 0.006: its
/// query_sparse_8_48 past 5 s → 0.32 s on one CPU thread); where they abound (yeast 0.05,
/// hprd 0.05), the walks of that order die at the triangle and misjudge it (yeast's
/// query_sparse_24_127 183 → 1,966 ms).
const TRIANGLES_FIRST_BELOW: f64 = 0.02;

/// The plan to run for `query` over `sets`, which are refined first ([`crate::plan::refine`]);
/// `join` extends the walks' partial matches.
///
/// With [`JoinOrder::Sampled`], a light query (Algorithm 2's plan estimated under
/// `options.heavy_query_work` partial matches by a few walks) runs Algorithm 2's plan; a
/// heavy one the order of the least estimated work among Algorithm 2's, the least estimated
/// growth ([`Strategy::Growth`]), the most links ([`Strategy::Links`]) and, when the query
/// has cycles, its innermost core first ([`Strategy::Core`]) and, when it has triangles, those
/// first ([`Strategy::Triangles`]); where every order's walks died
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
    let light = |mut plan: Plan, reason: String| {
        plan.choice.light = true;
        keep(plan, reason)
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
            return light(paper, "light, or costlier to refine than to join".into());
        }
        unrefined = Some((paper, work));
    }
    let filtered: usize = sets.sizes().iter().sum();
    let shrank = refine(
        query,
        data,
        sets,
        options.refine_rounds,
        options.refine_from_share(),
        &stop,
    ) > 0;
    let sizes = sets.sizes();
    let refined = |mut plan: Plan| {
        let now: usize = sizes.iter().sum();
        plan.choice.filtered_total = (now < filtered).then_some(filtered);
        plan
    };
    let plan = |strategy| Plan::with_strategy(query, &sizes, data, postpone, strategy, &stop);
    let edges = || CandidateEdges::count(query, data, sets, &stop);
    refined(match options.join_order {
        JoinOrder::Paper => plan(Strategy::Paper),
        JoinOrder::Growth => plan(Strategy::Growth(&edges())),
        JoinOrder::Links => plan(Strategy::Links),
        JoinOrder::Core => plan(Strategy::Core),
        JoinOrder::Triangles => plan(Strategy::Triangles),
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
            // Out of time: no other order is made or walked (each costs passes over the
            // query, seconds for one of 100,000 vertices); the join stops at once.
            if stop() {
                work.record(&mut paper);
                return refined(keep(paper, "out of time".into()));
            }
            if work.total < options.heavy_query_work && !work.blind(options) {
                let reason = format!("light: {:.0} partial matches estimated", work.total);
                work.record(&mut paper);
                return refined(light(paper, reason));
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
            // Its triangles first, where it has any, that order is not one of the others, and
            // the data closes few of its wedges (drawn once per index, on every thread: 18 ms
            // on one core for a 1 M-vertex, 8 M-edge graph).
            if triangle_counts(query).iter().any(|&t| t > 0) {
                let triangles = plan(Strategy::Triangles);
                if plans.iter().all(|p| p.order() != triangles.order())
                    && data.closed_wedges() < TRIANGLES_FIRST_BELOW
                {
                    plans.push(triangles);
                }
            }
            // Each order once (strategies often agree: yeast's query_dense_8_37 gets one
            // order from three).
            let orders: Vec<Vec<usize>> = plans
                .iter()
                .map(|p| p.steps.iter().map(|s| s.vertex).collect())
                .collect();
            let distinct: Vec<usize> = (0..plans.len())
                .filter(|&i| !orders[..i].contains(&orders[i]))
                .collect();
            let mut works = walk_each(&distinct, |&i| sampler.work(&plans[i], walks));
            // Each plan's estimate is its order's, sampled once: `works[walked[i]]`.
            let walked: Vec<usize> = orders
                .iter()
                .map(|order| {
                    distinct
                        .iter()
                        .position(|&j| orders[j] == *order)
                        .expect("every order's first plan is sampled")
                })
                .collect();
            // The plan of the least estimated work. Orders estimated alike (walks that all
            // died at the same step before the orders part) go to the innermost core first,
            // which fails soonest where the query is densest (on wordnet's
            // query_dense_12_86, 94 ms against 600 for Algorithm 2's).
            let least = |works: &[Work]| {
                let core_first = |i: usize| plans[i].choice.strategy != Strategy::Core.name();
                (0..plans.len())
                    .min_by(|&a, &b| {
                        works[walked[a]]
                            .total
                            .total_cmp(&works[walked[b]].total)
                            .then(core_first(a).cmp(&core_first(b)))
                    })
                    .expect("three plans or more")
            };
            // Where every order's walks died before the leaf suffix, they saw nothing of what
            // survivors do: every order is walked again with walks that branch.
            let blind = works.iter().all(|w| w.blind(options));
            if blind {
                works = walk_each(&distinct, |&i| sampler.walk(&plans[i], WALKS, BRANCHES));
            }
            let mut chosen = least(&works);
            let mut kept = None;
            let least_work = works[walked[chosen]].total;
            let contenders: Vec<usize> = (0..works.len())
                .filter(|&k| works[k].total <= least_work * CONTENDER_FACTOR)
                .collect();
            if !blind
                && least_work >= CONTENDER_WORK
                && contenders.len() > 1
                && walks < CONTENDER_WALKS
            {
                let walked_again = walk_each(&contenders, |&k| {
                    sampler.work(&plans[distinct[k]], CONTENDER_WALKS)
                });
                for (k, work) in contenders.into_iter().zip(walked_again) {
                    works[k] = work;
                }
                // The first choice stands unless the longer walks find another clearly
                // cheaper: orders within twice each other's estimate take about as long.
                let other = least(&works);
                if works[walked[other]].total * CONTENDER_SWITCH <= works[walked[chosen]].total {
                    chosen = other;
                } else if walked[other] != walked[chosen] {
                    kept = Some(format!(
                        "the first walks' choice: none under half its estimate on \
                         {CONTENDER_WALKS} walks"
                    ));
                }
            }
            // Triangles first only where the longer walks of it and of the next order still
            // find it clearly cheaper: where triangles abound in the data (yeast), short walks
            // of it die at the triangle and underestimate it (query_dense_24_169: 3.5×10^3
            // partial matches on 32 walks, 2.4×10^6 on 1,024; its join fifteen times slower
            // than the growth order's). Blind walks, longer already, are only compared.
            let triangles = Strategy::Triangles.name();
            let next_order = |works: &[Work]| {
                (0..plans.len())
                    .filter(|&i| plans[i].choice.strategy != triangles)
                    .min_by(|&a, &b| works[walked[a]].total.total_cmp(&works[walked[b]].total))
            };
            if let (true, Some(next)) = (
                plans[chosen].choice.strategy == triangles,
                next_order(&works),
            ) {
                if !blind {
                    let pair = [walked[chosen], walked[next]];
                    let again = walk_each(&pair, |&k| {
                        sampler.work(&plans[distinct[k]], CONTENDER_WALKS)
                    });
                    for (k, work) in pair.into_iter().zip(again) {
                        works[k] = work;
                    }
                }
                let next = next_order(&works).expect("found above");
                if works[walked[chosen]].total * CONTENDER_SWITCH > works[walked[next]].total {
                    chosen = next;
                    kept = Some(format!(
                        "triangles first: not under half the next order's estimate{}",
                        if blind { "" } else { " on 1,024 walks" }
                    ));
                }
            }
            let sampled = plans
                .iter()
                .enumerate()
                .map(|(i, p)| (p.choice.strategy, works[walked[i]].total))
                .collect();
            let work = &works[walked[chosen]];
            let mut best = plans.swap_remove(chosen);
            best.choice.kept_because = kept;
            best.choice.sampled = sampled;
            work.record(&mut best);
            best
        }
    })
}

/// `walk` of each of `items`, side by side on the engine's threads unless it has one
/// (handing them to the pool then costs more than it saves).
fn walk_each(items: &[usize], walk: impl Fn(&usize) -> Work + Sync + Send) -> Vec<Work> {
    if rayon::current_num_threads() == 1 {
        items.iter().map(walk).collect()
    } else {
        items.par_iter().map(walk).collect()
    }
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

/// Neighbour-list entries up to which refining and sampling cost a few milliseconds on the
/// host and pay, on any engine, where the walks estimate the join at one partial match per
/// entry or more: on graphs whose hubs carry the work the walks underestimate it most. Under
/// a GPU's rule alone (100), wordnet's query_sparse_8_153 (about 10^6 entries) kept Algorithm
/// 2's order and took 425 ms, 12 ms planned; with this rule 927 of the 937 wordnet queries
/// RapidMatch finishes in 10 s finished within a fifth of its time against 915, 23.6 s in all
/// against 28.9 (H200, 2026-11-29, docs/BENCHMARKS.md). The 100-label LiveJournal-sized
/// graph's queries whose verdict a rule of 1 would change read 4 to 61 million entries.
const MODEST_PLANNING_READS: usize = 1 << 21;

/// Whether refining and sampling are worth their cost, from `work`, what a few walks over the
/// filter's own sets estimate (they underestimate rather than overestimate: a heavy verdict
/// is trusted, a light one only when it is very light, [`TRIVIAL_WORK`]): when the
/// candidates' neighbour lists are short ([`CHEAP_PLANNING_READS`]), or when the walks
/// estimate the join's work at `pays_from` times their length (the joining engine's
/// [`crate::Engine::planning_pays_from`] in `options`), or at their length where they are of
/// modest length ([`MODEST_PLANNING_READS`]), or when the walks were blind
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
    // Each set's entries from a sample of its candidates, scaled; once a list, which query
    // vertices asking alike share (every vertex of an unlabelled query of 60,000: seconds).
    let holders = sets.holders();
    let mut reads_of: Vec<Option<f64>> = vec![None; query.vertex_count()];
    let reads: f64 = (0..query.vertex_count())
        .map(|u| {
            *reads_of[holders[u]].get_or_insert_with(|| {
                let (taken, scale) = sample(sets.list(u), READ_SAMPLE);
                taken.map(|&v| graph.total_degree(v)).sum::<usize>() as f64 * scale
            })
        })
        .sum();
    let pays_from = match reads <= MODEST_PLANNING_READS as f64 {
        true => options.planning_pays_from().min(1.0),
        false => options.planning_pays_from(),
    };
    reads <= CHEAP_PLANNING_READS as f64 || work.total >= pays_from * reads
}

#[cfg(test)]
mod tests {
    use gsi_graph::{GraphBuilder, VertexId};

    use super::*;
    use crate::options::{Semantics, CPU_PLANNING_PAYS_FROM, GPU_PLANNING_PAYS_FROM};
    use crate::plan::walks::tests::{clique, complete_bipartite, path, ByDefinition};

    /// Why [`plan_on_host`] kept its plan for `query` over `data`, every set holding every
    /// data vertex.
    fn kept_over_all(query: &Graph, data: &DataIndex, options: &MatchOptions) -> Option<String> {
        let n = data.graph().vertex_count();
        let all: Vec<VertexId> = (0..n as VertexId).collect();
        let mut sets = CandidateSets::from_lists(vec![all; query.vertex_count()], n);
        let plan = plan_on_host(
            query,
            &mut sets,
            data,
            options,
            Postpone::Nothing,
            &ByDefinition,
        );
        plan.choice.kept_because
    }

    #[test]
    fn planning_pays_sooner_before_the_cpus_join_than_before_a_gpus() {
        // Copies of K(250, 250): a path of three vertices over all their vertices reads
        // 3 · 500 · 250 list entries a copy to plan and makes 500 + 500 · 250 + 500 · 250 ·
        // 249 partial matches a copy, 83 per entry: under a GPU's rule (100), over the
        // CPU's (1), where the lists are long (six copies, 2.25 million entries); on one copy
        // (375,000 entries, a few milliseconds) planning pays on either.
        let light = Some("light, or costlier to refine than to join".to_string());
        for (copies, gpu_plans) in [(6, false), (1, true)] {
            let mut b = GraphBuilder::with_vertices(false, vec![0; 500 * copies]);
            for copy in 0..copies as u32 {
                for s in 0..250 {
                    for t in 250..500 {
                        b.add_edge(500 * copy + s, 500 * copy + t, 0).unwrap();
                    }
                }
            }
            let data = DataIndex::build(b.build().unwrap()).unwrap();
            let kept_because = |pays_from| {
                let options = MatchOptions {
                    planning_pays_from: Some(pays_from),
                    ..MatchOptions::default()
                };
                kept_over_all(&path(3), &data, &options)
            };
            assert_eq!(
                kept_because(GPU_PLANNING_PAYS_FROM) != light,
                gpu_plans,
                "{copies}"
            );
            assert_ne!(kept_because(CPU_PLANNING_PAYS_FROM), light, "{copies}");
            // The search asks the engine that joins, unless the options say: the CPU
            // engine's rule here, a GPU's for a plan made ahead for a GPU.
            let options = MatchOptions::default();
            let mut cpu = crate::cpu::CpuEngine::default();
            let planned = crate::search::plan_query(&mut cpu, &path(3), &data, &options, false);
            assert_ne!(planned.unwrap().report().plan.choice.kept_because, light);
            let ahead = crate::search::plan_ahead(&path(3), &data, &options, false).unwrap();
            let ahead = ahead.unwrap().report().plan.choice.kept_because;
            assert_eq!(ahead != light, gpu_plans, "{copies}");
        }
    }

    #[test]
    fn walks_that_all_die_do_not_call_a_query_light() {
        // K(250, 250) has no triangle: every walk of a triangle dies at its third vertex, so
        // the walks, about 0.3 partial matches per list entry, would call it light even
        // under a GPU's rule; it is planned, but under homomorphism (a tree's quotients,
        // whose plans only weigh the dynamic program) it stays light.
        let data = DataIndex::build(complete_bipartite(250)).unwrap();
        let kept_because = |semantics| {
            let options = MatchOptions {
                planning_pays_from: Some(GPU_PLANNING_PAYS_FROM),
                semantics,
                ..MatchOptions::default()
            };
            kept_over_all(&clique(3), &data, &options)
        };
        assert_eq!(kept_because(Semantics::Isomorphism), None);
        assert_eq!(
            kept_because(Semantics::Homomorphism).as_deref(),
            Some("light, or costlier to refine than to join")
        );
    }

    #[test]
    fn the_joining_engines_share_decides_whether_the_sets_are_refined() {
        // A star: centre 0 (label 1) and 2,000 leaves (label 0), the last 100 cut off from
        // it. C(leaf) holds every leaf: a twentieth lack the centre, under a GPU's share and
        // over the CPU's.
        let n = 2000u32;
        let mut labels = vec![1];
        labels.extend(std::iter::repeat_n(0, n as usize));
        let mut b = GraphBuilder::with_vertices(false, labels);
        for leaf in 1..=n - 100 {
            b.add_edge(0, leaf, 0).unwrap();
        }
        // In the graph's own numbering, as the sets below are.
        let given = crate::index::IndexOptions {
            numbering: crate::VertexNumbering::Given,
            ..crate::index::IndexOptions::default()
        };
        let data = DataIndex::build_with(b.build().unwrap(), given).unwrap();
        let mut q = GraphBuilder::with_vertices(false, vec![0, 1]);
        q.add_edge(0, 1, 0).unwrap();
        let query = q.build().unwrap();
        for (share, refined) in [
            (crate::options::GPU_REFINE_FROM_SHARE, false),
            (crate::options::CPU_REFINE_FROM_SHARE, true),
        ] {
            let options = MatchOptions {
                join_order: JoinOrder::Paper,
                refine_from_share: Some(share),
                ..MatchOptions::default()
            };
            let leaves: Vec<VertexId> = (1..=n).collect();
            let mut sets = CandidateSets::from_lists(vec![leaves, vec![0]], n as usize + 1);
            let plan = plan_on_host(
                &query,
                &mut sets,
                &data,
                &options,
                Postpone::Nothing,
                &ByDefinition,
            );
            assert_eq!(plan.choice.filtered_total.is_some(), refined, "{share}");
            let kept = if refined { n - 100 } else { n };
            assert_eq!(sets.list(0).len(), kept as usize, "{share}");
        }
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
