//! Counts made by programs rather than one join ([`crate::quotients`], [`crate::core_count`]):
//! a query whose labels repeat planned as its quotients' homomorphisms, one with cycles as its
//! 2-core's with the trees hanging from it, and their counts.

use std::time::Instant;

use gsi_graph::Graph;
use rayon::prelude::*;

use super::{plan_filtered, plan_query, Planned};
use crate::candidates::CandidateSets;
use crate::core_count::{CoreAndTrees, PinnedBlocks, WeightedSum};
use crate::cpu::CpuEngine;
use crate::engine::{Candidates, Engine};
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::options::{
    JoinPaths, MatchOptions, Semantics, Status, TreeCounts, CPU_REFINE_FROM_SHARE,
};
use crate::plan::refine::refine;
use crate::plan::{Plan, TreeCountChoice};
use crate::quotients::{self, Quotient};
use crate::report::MatchReport;
use crate::sink::CountOnly;
use crate::tree_count;

/// A query counted over its 2-core ([`crate::core_count`]).
pub(super) struct CorePlan {
    split: CoreAndTrees,
    /// How the core's weighted homomorphisms are counted.
    core: CoreCount,
}

/// How a core's weighted homomorphisms are counted.
pub(super) enum CoreCount {
    /// By the programs of the core's blocks, each with one vertex pinned, where that leaves
    /// a forest in each and the options allow.
    Pinned(PinnedBlocks),
    /// From the core's join, a listing of its homomorphisms.
    Joined(Box<Planned>),
}

impl CorePlan {
    /// The estimated work of the count: the hanging trees' program, then the core's.
    pub(super) fn work(&self, sizes: &[usize], data: &DataIndex) -> f64 {
        let core = match &self.core {
            CoreCount::Pinned(pinned) => pinned.work(&self.split.core_sizes(sizes), data),
            CoreCount::Joined(core) => core.plan.count_work(),
        };
        self.split.trees_work(sizes, data) + core
    }

    /// The plan for `engine`: a joined core's plan adopted by it ([`Planned::adopted_by`]).
    ///
    /// # Errors
    /// Device failures.
    pub(super) fn adopted_by(&self, engine: &mut dyn Engine) -> Result<CorePlan> {
        Ok(CorePlan {
            split: self.split.clone(),
            core: match &self.core {
                CoreCount::Pinned(pinned) => CoreCount::Pinned(pinned.clone()),
                CoreCount::Joined(core) => CoreCount::Joined(Box::new(core.adopted_by(engine)?)),
            },
        })
    }
}

/// A query whose labels repeat, planned as its quotients' homomorphisms ([`quotients`]) where
/// their estimated work is below the join's (or the options force it): each quotient with its
/// coefficient, and the choice in `plan`'s. Where the query's `candidates` are on the host,
/// each quotient vertex is kept to the candidates its members share, and two vertices whose
/// sets do not meet are never merged.
pub(super) fn by_quotients(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    candidates: &Candidates,
    plan: &mut Plan,
) -> Result<Option<Vec<(i64, Planned)>>> {
    let sets = match candidates {
        Candidates::Host(sets) => Some(sets),
        Candidates::Device(_) => None,
    };
    let may_share = |u, w| sets.is_none_or(|sets| sets.meet(u, w));
    // More quotients where the join is heavy, or where the options force the quotients.
    let heavy = plan.count_work() >= quotients::HEAVY_JOIN_WORK;
    let max = match heavy || options.tree_counts == TreeCounts::Always {
        true => quotients::MAX_QUOTIENTS_OF_HEAVY_JOINS,
        false => quotients::MAX_QUOTIENTS,
    };
    let Some(terms) = quotients::of(query, data, &may_share, max) else {
        return Ok(None);
    };
    let homomorphism = under_homomorphism(options);
    // Each quotient is counted by the tree's program, or over its core, wherever it can be:
    // its join is planned by Algorithm 2 alone where it looks light, and under homomorphism
    // that is far off (the 100-label LiveJournal-sized graph's dense_12_6: a quotient whose
    // join was estimated at 1.0e6 rows ran past 10 s; over its core, 0.2 s; dense_12_7: a
    // tree's, estimated at 6.9e6, past 2.6 s; docs/BENCHMARKS.md). The estimates weigh the
    // quotients' counts together against the query's join instead.
    let homomorphism = MatchOptions {
        tree_counts: TreeCounts::Always,
        ..homomorphism
    };
    // Each term over the candidates its vertices' members share, where the query's sets are
    // on the host: they hold every data vertex a match sends each member to, which is all
    // the identity asks ([`quotients`]), so the term is not filtered again (gw12's dense_12_1:
    // 30 terms, 2-3 ms each on two cores). A term where some share none adds none.
    let plan_term = |engine: &mut dyn Engine,
                     sets: Option<&CandidateSets>,
                     term: &Quotient|
     -> Result<Option<(i64, Planned)>> {
        let planned = match sets {
            Some(sets) => match sets.merged(&term.members) {
                Some(merged) => {
                    let candidates = Candidates::Host(merged);
                    let started = Instant::now();
                    plan_filtered(
                        engine,
                        &term.graph,
                        data,
                        &homomorphism,
                        true,
                        candidates,
                        started,
                    )?
                }
                None => return Ok(None),
            },
            None => plan_query(engine, &term.graph, data, &homomorphism, true)?,
        };
        Ok(Some((term.coefficient, planned)))
    };
    // Each term is planned on a thread of its own where the engine has another for it, or
    // where its sets are on the host and a program counts it there, whichever engine planned
    // it (gw12's dense_12_1 has 30 quotients: planned one after another in 125-232 ms on an
    // H100 machine's host, on threads of their own in 85-94 ms; 2026-11-26,
    // docs/BENCHMARKS.md).
    let plan_terms =
        |engine: &mut dyn Engine, sets: Option<&CandidateSets>| -> Result<Vec<(i64, Planned)>> {
            let apart = |term: &Quotient| {
                engine.on_another_thread().or_else(|| {
                    let on_host = sets.is_some_and(|sets| {
                        // At most the term's sizes, which decide only which vertex a block pins.
                        let sizes: Vec<usize> = (term.members.iter())
                            .map(|m| m.iter().map(|&u| sets.list(u).len()).min().unwrap_or(0))
                            .collect();
                        tree_count::applies(&term.graph, data, homomorphism.semantics)
                            || core_count_of(&term.graph, &homomorphism, &sizes)
                                .is_some_and(|(_, pinned)| pinned.is_some())
                    });
                    on_host.then(|| Box::new(CpuEngine::default()) as Box<dyn Engine>)
                })
            };
            let copies: Vec<Option<Box<dyn Engine>>> = terms.iter().map(apart).collect();
            let on_threads = terms
                .par_iter()
                .zip(copies)
                .map(|(term, copy)| copy.map(|mut copy| plan_term(copy.as_mut(), sets, term)))
                .collect::<Vec<_>>();
            // The others on the engine, one after another.
            let planned = (terms.iter().zip(on_threads))
                .map(|(term, planned)| planned.unwrap_or_else(|| plan_term(engine, sets, term)))
                .collect::<Result<Vec<_>>>()?;
            Ok(planned.into_iter().flatten().collect())
        };
    let planned = plan_terms(engine, sets)?;
    let work = planned.iter().map(|(_, p)| p.work(data)).sum();
    let choice = TreeCountChoice::by(options, work, plan, planned.len());
    let chosen = choice.chosen;
    plan.choice.tree_count = Some(choice);
    if !chosen {
        return Ok(None);
    }
    // The programs run on the host, over the sets the engine left: where it judged refining
    // them not worth its join's while (a GPU's), they are refined as the host refines its own
    // where the programs' work is heavy ([`MatchOptions::refine_for_programs_from`]), and the
    // terms planned again over them (the 100-label LiveJournal-sized graph's dense_12_5 over
    // 60 quotients: 25.3 s unrefined, 13.0 s refined, on two cores of the development
    // machine; docs/BENCHMARKS.md).
    let stop = || options.stop().is_some();
    // (An engine that refines as the host does has refined them already, where that cut any.)
    let refined_as_on_host = options.refine_from_share() <= CPU_REFINE_FROM_SHARE;
    if let Some(sets) = sets.filter(|_| {
        work >= options.refine_for_programs_from
            && !refined_as_on_host
            && plan.choice.filtered_total.is_none()
            && !stop()
    }) {
        let mut refined = sets.clone();
        let rounds = refine(
            query,
            data,
            &mut refined,
            options.refine_rounds,
            CPU_REFINE_FROM_SHARE,
            &stop,
        );
        if rounds > 0 {
            return Ok(Some(plan_terms(engine, Some(&refined))?));
        }
    }
    Ok(Some(planned))
}

/// A query with cycles whose homomorphisms are its matches, planned as its 2-core's join
/// with the trees hanging from it counted ([`crate::core_count`]) where that is estimated to
/// cost less than the join of `plan` (or the options force it): the split (`split` where
/// [`core_count_of`] has found it already) and the core's plan, the choice in `plan`'s.
pub(super) fn by_core(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    candidates: &Candidates,
    plan: &mut Plan,
    split: Option<(CoreAndTrees, Option<PinnedBlocks>)>,
) -> Result<Option<Box<CorePlan>>> {
    let sizes = candidates.sizes();
    let Some((split, pinned)) = split.or_else(|| core_count_of(query, options, &sizes)) else {
        return Ok(None);
    };
    let pins = pinned.as_ref().map_or_else(Vec::new, |p| {
        p.pins().into_iter().map(|u| split.vertices[u]).collect()
    });
    let core = match pinned {
        Some(pinned) => CoreCount::Pinned(pinned),
        None => {
            let core_candidates = engine.adopt(&split.core_sets(&*candidates.to_host()?))?;
            CoreCount::Joined(Box::new(plan_filtered(
                engine,
                &split.graph,
                data,
                &under_homomorphism(options),
                false,
                core_candidates,
                Instant::now(),
            )?))
        }
    };
    let by_core = CorePlan { split, core };
    let choice = TreeCountChoice {
        core: by_core.split.vertices.len(),
        pinned: pins,
        ..TreeCountChoice::by(options, by_core.work(&sizes, data), plan, 0)
    };
    let chosen = choice.chosen;
    plan.choice.tree_count = Some(choice);
    Ok(chosen.then(|| Box::new(by_core)))
}

/// The 2-core of `query` with the trees that hang from it, and its blocks pinned where the
/// options allow and that leaves a forest in each (for candidate sets of `sizes`): where a
/// count over the core applies ([`by_core`]).
pub(super) fn core_count_of(
    query: &Graph,
    options: &MatchOptions,
    sizes: &[usize],
) -> Option<(CoreAndTrees, Option<PinnedBlocks>)> {
    let split = CoreAndTrees::of(query)?;
    let pinned = options
        .pinned_cores
        .then(|| PinnedBlocks::of(&split.graph, &split.core_sizes(sizes)))
        .flatten();
    // A query that is all core gains only where a vertex pins it, and then is counted so
    // only where forced (as a quotient's is, `by_quotients`): its join is otherwise planned
    // as well as any.
    let counts =
        split.hangs_trees() || (pinned.is_some() && options.tree_counts == TreeCounts::Always);
    counts.then_some((split, pinned))
}

/// The count of a query from its quotients' homomorphism counts, each with its coefficient
/// ([`quotients`]).
///
/// # Errors
/// [`Error::CountBeyond128Bits`] when a term or a partial sum does not fit in 128 bits.
pub(crate) fn quotient_sum(terms: impl IntoIterator<Item = (i64, u128)>) -> Result<u128> {
    let mut sum: i128 = 0;
    for (coefficient, count) in terms {
        sum = i128::try_from(count)
            .ok()
            .and_then(|count| count.checked_mul(i128::from(coefficient)))
            .and_then(|part| sum.checked_add(part))
            .ok_or(Error::CountBeyond128Bits)?;
    }
    Ok(u128::try_from(sum).expect("a number of matches is not negative"))
}

/// `options` with homomorphism for semantics: how a quotient's terms are counted.
pub(super) fn under_homomorphism(options: &MatchOptions) -> MatchOptions {
    MatchOptions {
        semantics: Semantics::Homomorphism,
        ..options.clone()
    }
}

impl Planned {
    /// The count by inclusion–exclusion over the quotients `terms` ([`quotients`]): each
    /// quotient's homomorphisms counted, times its coefficient. A term that does not finish
    /// leaves no bound on the sum: the count is then 0, with the term's status.
    pub(super) fn join_quotients(
        &self,
        terms: &[(i64, Planned)],
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<MatchReport> {
        let started = Instant::now();
        let homomorphism = under_homomorphism(options);
        let mut report = self.report();
        // One term after another: a term's program runs on the host's threads, which a
        // GPU's next query, planned ahead, shares (with the terms counted side by side, two
        // 8-vertex queries of the 100-label LiveJournal-sized graph, planned ahead, took
        // 1.5-1.6 s to filter, 3-312 ms before, and ran out of their 1.5 s; H200,
        // 2026-11-28, docs/BENCHMARKS.md).
        let mut counts = Vec::with_capacity(terms.len());
        for (coefficient, term) in terms {
            let counted = term.join(engine, data, &homomorphism, None, &mut CountOnly)?;
            report.engine = counted.engine;
            if counted.status != Status::Complete {
                report.status = counted.status;
                report.times.join = started.elapsed();
                return Ok(report);
            }
            counts.push((*coefficient, counted.count));
        }
        report.count = quotient_sum(counts)?;
        report.times.join = started.elapsed();
        report.paths.tree_counted = true;
        Ok(report)
    }

    /// The count over the query's 2-core ([`crate::core_count`]): the hanging trees' weights
    /// by dynamic programming over the query's candidate sets, then the sum of their products
    /// over the core's homomorphisms, by the pinned core's program or from the core's join. A
    /// join that does not finish leaves the sum so far, a lower bound; the program, none.
    pub(super) fn join_core(
        &self,
        by_core: &CorePlan,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<MatchReport> {
        let started = Instant::now();
        let mut report = self.report();
        report.paths.tree_counted = true;
        let sets = self.candidates.to_host()?;
        let stop = || options.stop().is_some();
        let out_of_time = |mut report: MatchReport| {
            report.status = options.stop().unwrap_or(Status::Timeout);
            report.times.join = started.elapsed();
            Ok(report)
        };
        let Some(weights) = by_core.split.weights(&sets, data, &stop) else {
            return out_of_time(report);
        };
        let core_sets = by_core.split.core_sets(&sets);
        let core = match &by_core.core {
            CoreCount::Pinned(pinned) => {
                let edges_budget = options
                    .program_candidate_edges
                    .then_some(options.memory_budget);
                let Some(count) = pinned.count(&core_sets, weights, data, edges_budget, &stop)
                else {
                    return out_of_time(report);
                };
                report.count = count;
                if count == u128::MAX {
                    return Err(Error::CountBeyond128Bits);
                }
                report.times.join = started.elapsed();
                report.engine = self.filtering_engine();
                return Ok(report);
            }
            CoreCount::Joined(core) => core,
        };
        let mut sum = WeightedSum::new(weights, &core_sets);
        let listing = under_homomorphism(options);
        let outcome = engine.join(&core.plan, &core.candidates, data, &listing, &mut sum)?;
        report.count = sum.total()?;
        report.status = outcome.status;
        report.times.join = started.elapsed();
        report.peak_join_bytes = outcome.peak_bytes;
        report.engine = outcome.engine;
        report.paths = JoinPaths {
            tree_counted: true,
            ..outcome.paths
        };
        Ok(report)
    }
}
