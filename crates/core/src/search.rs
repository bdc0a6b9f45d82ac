//! One query from start to end: filter, plan, join, each phase timed.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use gsi_graph::{Graph, VertexId};
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::core_count::{CoreAndTrees, PinnedBlocks, WeightedSum};
use crate::cpu::CpuEngine;
use crate::engine::{Candidates, Engine};
use crate::error::{Error, Result};
use crate::fit::misfit;
use crate::index::DataIndex;
use crate::options::{
    JoinOrder, JoinPaths, MatchOptions, PairCounts, Semantics, Share, Status, TreeCounts,
    HEAVY_QUERY_WORK,
};
use crate::plan::estimate::{cheaper_count, plan_on_host};
use crate::plan::symmetry::{Symmetry, MAX_IMAGES};
use crate::plan::{wedge, Plan, Postpone, Strategy, TreeCountChoice};
use crate::quotients::{self, Quotient};
use crate::report::{MatchReport, PhaseTimes};
use crate::shares::{ShareSpace, SharedClasses};
use crate::sink::{CountOnly, Images, MatchSink, OriginalIds};
use crate::tree_count;

/// Finds the matches of `query` in the indexed data graph with `engine`.
///
/// # Errors
/// [`Error::EmptyQuery`] for a query without vertices, [`Error::DirectionMismatch`] when one
/// graph is directed and the other is not; engine and sink failures.
pub fn find_matches(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
) -> Result<MatchReport> {
    let report = plan_query(engine, query, data, options, !sink.wants_matches())
        .and_then(|planned| planned.join(engine, data, options, options.share, sink));
    engine.query_answered();
    report
}

/// A query filtered and planned, ready to join whole or in shares.
pub struct Planned {
    candidates: Candidates,
    plan: Plan,
    filter: Duration,
    planning: Duration,
    /// Whether the plan was made for a count (leaves multiplied) rather than a listing.
    counting: bool,
    /// Where the join answers at once, with no match and this status: [`Status::Complete`]
    /// for a query that cannot match at all ([`misfit`]), or why the filter stopped (out of
    /// time, interrupted: its sets may lack candidates, so nothing is planned over them).
    answered: Option<Status>,
    /// The query.
    query: Box<Graph>,
    /// Whether its count is its tree's homomorphism count ([`tree_count`]): no join.
    by_tree: bool,
    /// Where it is counted by inclusion–exclusion over its quotients ([`quotients`]): each
    /// quotient's coefficient and its homomorphisms' plan.
    by_quotients: Option<Vec<(i64, Planned)>>,
    /// Where its homomorphisms are counted over its 2-core ([`crate::core_count`]).
    by_core: Option<Box<CorePlan>>,
    /// The candidate sets readied for shares, when the query is joined in shares on one
    /// engine ([`ShareSpace`]).
    shares: Mutex<Option<ShareSpace>>,
    /// The cut vertices' candidates split by class for the shares, shared with the plans
    /// adopted from this one ([`Planned::adopted_by`]).
    splits: Arc<SharedClasses>,
}

/// A query counted over its 2-core ([`crate::core_count`]).
struct CorePlan {
    split: CoreAndTrees,
    /// How the core's weighted homomorphisms are counted.
    core: CoreCount,
}

/// How a core's weighted homomorphisms are counted.
enum CoreCount {
    /// By the programs of the core's blocks, each with one vertex pinned, where that leaves
    /// a forest in each and the options allow.
    Pinned(PinnedBlocks),
    /// From the core's join, a listing of its homomorphisms.
    Joined(Box<Planned>),
}

impl CorePlan {
    /// The estimated work of the count: the hanging trees' program, then the core's.
    fn work(&self, sizes: &[usize], data: &DataIndex) -> f64 {
        let core = match &self.core {
            CoreCount::Pinned(pinned) => pinned.work(&self.split.core_sizes(sizes), data),
            CoreCount::Joined(core) => core.plan.count_work(),
        };
        self.split.trees_work(sizes, data) + core
    }
}

/// Filters `query` on `engine` and plans its join (leaves postponed only when `counting`).
pub(crate) fn plan_query(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    counting: bool,
) -> Result<Planned> {
    if query.vertex_count() == 0 {
        return Err(Error::EmptyQuery);
    }
    // Whether planning and the pair count pay is judged by the engine that will join, this one
    // unless the caller said otherwise. A share is judged by the options alone: the shares of
    // one query may be answered by different engines, and each must cut one plan's grid.
    let judge = options.share.is_none().then_some(&*engine);
    let options =
        &MatchOptions {
            planning_pays_from: Some(options.planning_pays_from.unwrap_or_else(|| {
                judge.map_or(options.planning_pays_from(), |e| e.planning_pays_from())
            })),
            pair_counts_from: Some(options.pair_counts_from.unwrap_or_else(|| {
                judge.map_or(options.pair_counts_from(), |e| e.pair_counts_from())
            })),
            program_cost: Some(
                options
                    .program_cost
                    .unwrap_or_else(|| judge.map_or(options.program_cost(), |e| e.program_cost())),
            ),
            refine_from_share: Some(options.refine_from_share.unwrap_or_else(|| {
                judge.map_or(options.refine_from_share(), |e| e.refine_from_share())
            })),
            ..options.clone()
        };
    if query.is_directed() != data.graph().is_directed() {
        return Err(Error::DirectionMismatch);
    }
    if options.semantics.injective() && misfit(query, data).is_some() {
        return Ok(Planned::answered(
            query,
            data,
            counting,
            Status::Complete,
            Duration::ZERO,
        ));
    }
    let started = Instant::now();
    let mut candidates = match engine.filter(query, data, options) {
        // Stopped while filtering, its sets partial: nothing is planned or joined.
        Err(Error::FilterStopped(status)) => {
            return Ok(Planned::answered(
                query,
                data,
                counting,
                status,
                started.elapsed(),
            ))
        }
        filtered => filtered?,
    };
    pin(&mut candidates, &options.pinned, data)?;
    plan_filtered(engine, query, data, options, counting, candidates, started)
}

/// Plans the join of `query` over `candidates`, which its filter found from `started` on.
fn plan_filtered(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    counting: bool,
    mut candidates: Candidates,
    started: Instant,
) -> Result<Planned> {
    let filtered = Instant::now();
    // Leaves are multiplied only in a count, and not when induced (two leaves must then not
    // be adjacent: their matches are no longer independent).
    let induced = options.semantics == Semantics::Induced;
    // Equivalent vertices are counted from one extension set by an engine that can, and not
    // with pins or in a share (a pinned vertex, or one whose set a share cuts, is no longer
    // interchangeable with the others).
    let postpone = match options.postpone_leaves && counting && !induced {
        false => Postpone::Nothing,
        true if options.equivalent_vertices
            && options.pinned.is_empty()
            && options.share.is_none()
            && engine.counts_equivalent_vertices() =>
        {
            Postpone::Equivalents
        }
        true => Postpone::Leaves,
    };
    let tree_countable =
        counting && options.limit.is_none() && tree_count::applies(query, data, options.semantics);
    // Quotients and cores count a whole query: not with pins or in a share, nor for a limit.
    let programs = counting
        && options.limit.is_none()
        && options.pinned.is_empty()
        && options.share.is_none()
        && options.tree_counts != TreeCounts::Never
        && !tree_countable;
    // Under homomorphism with the programs forced (a quotient's terms), a tree is counted by
    // its program and a query with cycles over its core whatever the plan: no order is
    // sampled, nor are the sets refined, which the programs' passes over the edges do as
    // well (gw12's dense_12_1: 30 terms, up to 25 ms each to plan on two cores).
    let forced = options.tree_counts == TreeCounts::Always
        && options.semantics == Semantics::Homomorphism
        && options.stop().is_none();
    let forced_core = (forced && programs)
        .then(|| core_count_of(query, options, &candidates.sizes()))
        .flatten();
    let by_program_whatever_the_order = forced && (tree_countable || forced_core.is_some());
    let in_paper_order = MatchOptions {
        join_order: JoinOrder::Paper,
        refine_rounds: 0,
        ..options.clone()
    };
    let planning = match by_program_whatever_the_order {
        true => &in_paper_order,
        false => options,
    };
    let mut make_plan = |postpone: Postpone| -> Result<(Plan, Symmetry)> {
        let mut plan = match to_host(&mut candidates, query, data, planning)? {
            Some(sets) => {
                plan_on_host(query, sets, data, planning, postpone, &CpuEngine::default())
            }
            None => Plan::with_strategy(
                query,
                &candidates.sizes(),
                data,
                postpone,
                Strategy::Paper,
                &|| options.stop().is_some(),
            ),
        };
        let symmetry = symmetry_of(&plan, query, options, counting);
        plan.break_symmetry(query, symmetry.clone());
        Ok((plan, symmetry))
    };
    let (mut plan, symmetry) = make_plan(postpone)?;
    // Equivalent vertices counted together keep their interchanges unbroken, and the join
    // order must leave them last: where that costs more than it saves (a wheel's rim, whose
    // opposite vertices are equivalent), the plan that enumerates them is kept instead, by
    // the rows each enumerates (the walks' estimate, else Algorithm 2's) per match it finds,
    // and on a tie where no walk of the counting plan reached its equivalent vertices
    // (wordnet's query_dense_16_69 on one CPU thread: over 20 s counted, 1.2 s enumerated;
    // on an H100, the 14 of its dense 12- and 16-vertex queries this decides, 1.9 s counted
    // and 1.5 s enumerated together).
    if plan.leaves.groups.iter().any(|g| g.equivalent)
        && options.stop().is_none()
        && !by_program_whatever_the_order
    {
        let (enumerating, its_symmetry) = make_plan(Postpone::Leaves)?;
        // Each row found stands for the symmetry's classes of matches, times the orders of
        // each group of equivalent vertices its product counts at once.
        let per_match = |plan: &Plan, symmetry: &Symmetry| {
            let orders: f64 = plan
                .leaves
                .groups
                .iter()
                .filter(|g| g.equivalent)
                .map(|g| (1..=g.steps.len()).map(|k| k as f64).product::<f64>())
                .product();
            plan.enumerated_rows(data) / (symmetry.classes() as f64 * orders)
        };
        // Estimated alike where no walk of the counting plan reached its equivalent vertices
        // (the two orders then walk the same prefix): the estimate says nothing of the rows
        // that survive to them, and enumerating them is the safer bet.
        let blind = plan.choice.walks_reached == Some(0.0);
        let (enumerated, counted) = (
            per_match(&enumerating, &its_symmetry),
            per_match(&plan, &symmetry),
        );
        if enumerated < counted || (blind && enumerated <= counted) {
            plan = enumerating;
        }
    }
    if let Some(wedge) = pair_wedge(query, options, counting) {
        let mut paired =
            Plan::with_pair_count(query, &candidates.sizes(), data, wedge, &plan.order());
        let its_symmetry = symmetry_of(&paired, query, options, counting);
        paired.break_symmetry(query, its_symmetry);
        // Counted by its pairs where that is estimated to cost less than the plan before:
        // the pair count's core, joined first, may have to enumerate what the other plan
        // cuts early (a query whose x, y and z close its dense part). A core of a vertex or
        // an edge (gMatch's patterns) cuts nothing the other plan could: taken unweighed.
        let small_core = query.vertex_count() - 3 <= 2;
        if paired.leaves.pairs.is_some() {
            plan = match (&candidates, options.pair_counts) {
                (Candidates::Host(sets), PairCounts::ByEstimate) if !small_core => {
                    cheaper_count(plan, paired, sets, data, options, &CpuEngine::default())
                }
                _ => paired,
            };
        }
    }
    if induced {
        let labels = match &options.absent_labels {
            Some(labels) => labels.clone(),
            None => data.graph().edge_labels(),
        };
        plan.exclude_other_edges(query, &labels);
    }
    plan.choice.tree_count = tree_countable.then(|| {
        let tree_work = tree_count::work(query, &candidates.sizes(), data);
        TreeCountChoice::by(options, tree_work, &plan, 0)
    });
    let by_quotients = match programs
        && options.semantics == Semantics::Isomorphism
        // A query with cycles only where forced: by the estimates, the unlabelled
        // LiveJournal-sized graph's diamond and 4-cycle took their quotients, whose programs
        // on two cores did not finish in 60 s (docs/BENCHMARKS.md).
        && (query.edge_count() + 1 == query.vertex_count()
            || options.tree_counts == TreeCounts::Always)
    {
        true => by_quotients(engine, query, data, options, &candidates, &mut plan)?,
        false => None,
    };
    // Nor a core once out of time: finding its blocks and pins costs passes over the query
    // for each of its vertices (a 60,000-vertex cycle: minutes), and the join stops at once.
    let by_core = match programs
        && options.stop().is_none()
        && by_quotients.is_none()
        && (options.tree_counts == TreeCounts::Always || plan.count_work() >= HEAVY_QUERY_WORK)
        && tree_count::homomorphisms_are_matches(query, data, options.semantics)
    {
        true => by_core(
            engine,
            query,
            data,
            options,
            &candidates,
            &mut plan,
            forced_core,
        )?,
        false => None,
    };
    Ok(Planned {
        by_tree: plan.choice.tree_count.as_ref().is_some_and(|c| c.chosen)
            && by_quotients.is_none()
            && by_core.is_none(),
        by_quotients,
        by_core,
        candidates,
        plan,
        filter: filtered - started,
        planning: filtered.elapsed(),
        counting,
        answered: None,
        query: Box::new(query.clone()),
        shares: Mutex::new(None),
        splits: Arc::default(),
    })
}

/// The vertices (x, y, z) of a count's pair count ([`crate::plan::PairCount`]), where the
/// options allow one: under isomorphism, not with pins or in a share (x and y must stay
/// interchangeable, as counted equivalent vertices must), nor once out of time.
fn pair_wedge(
    query: &Graph,
    options: &MatchOptions,
    counting: bool,
) -> Option<(usize, usize, usize)> {
    let allowed = counting
        && options.pair_counts != PairCounts::Never
        && query.vertex_count() >= options.pair_counts_from()
        && options.equivalent_vertices
        && options.semantics == Semantics::Isomorphism
        && options.pinned.is_empty()
        && options.share.is_none()
        && options.stop().is_none();
    allowed.then(|| wedge(query)).flatten()
}

/// A query whose labels repeat, planned as its quotients' homomorphisms ([`quotients`]) where
/// their estimated work is below the join's (or the options force it): each quotient with its
/// coefficient, and the choice in `plan`'s. Where the query's `candidates` are on the host,
/// each quotient vertex is kept to the candidates its members share, and two vertices whose
/// sets do not meet are never merged.
fn by_quotients(
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
    let Some(terms) = quotients::of(query, data, &may_share) else {
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
    let plan_term = |engine: &mut dyn Engine, term: &Quotient| -> Result<Option<(i64, Planned)>> {
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
    let mut planned = terms
        .par_iter()
        .zip(copies)
        .map(|(term, copy)| copy.map(|mut copy| plan_term(copy.as_mut(), term)))
        .collect::<Vec<_>>();
    for (term, planned) in terms.iter().zip(&mut planned) {
        if planned.is_none() {
            *planned = Some(plan_term(engine, term));
        }
    }
    let planned = planned
        .into_iter()
        .map(|planned| planned.expect("every term planned"))
        .collect::<Result<Vec<_>>>()?;
    let planned: Vec<(i64, Planned)> = planned.into_iter().flatten().collect();
    let work = planned.iter().map(|(_, p)| p.work(data)).sum();
    let choice = TreeCountChoice::by(options, work, plan, planned.len());
    let chosen = choice.chosen;
    plan.choice.tree_count = Some(choice);
    Ok(chosen.then_some(planned))
}

/// A query with cycles whose homomorphisms are its matches, planned as its 2-core's join
/// with the trees hanging from it counted ([`crate::core_count`]) where that is estimated to
/// cost less than the join of `plan` (or the options force it): the split (`split` where
/// [`core_count_of`] has found it already) and the core's plan, the choice in `plan`'s.
fn by_core(
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
fn core_count_of(
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
fn under_homomorphism(options: &MatchOptions) -> MatchOptions {
    MatchOptions {
        semantics: Semantics::Homomorphism,
        ..options.clone()
    }
}

/// The query's automorphisms the join breaks (`plan`'s order bounds): none unless matches are
/// injective and all of them wanted (a limit wants the first few, found as well without), and
/// not for a query already out of time (the join stops at once), nor with pins (they tell
/// automorphic vertices apart). Equivalent vertices counted together keep their
/// interchanges: the count multiplies them.
fn symmetry_of(plan: &Plan, query: &Graph, options: &MatchOptions, counting: bool) -> Symmetry {
    if !(options.symmetry
        && options.semantics.injective()
        && options.limit.is_none()
        && options.pinned.is_empty()
        && options.stop().is_none())
    {
        return Symmetry::none();
    }
    let max_images = if counting { u64::MAX } else { MAX_IMAGES };
    let mut kept = vec![false; query.vertex_count()];
    for group in plan.leaves.groups.iter().filter(|g| g.equivalent) {
        for &step in &group.steps {
            kept[plan.steps[step].vertex] = true;
        }
    }
    // A pair count's plan fixes, in each orbit, the vertex it joins first, so that its bounds
    // fall on the later steps: x and z bounded by the core alone (`PairCount::after_bounds`).
    let n = query.vertex_count();
    let mut rank: Vec<usize> = (0..n).collect();
    if plan.leaves.pairs.is_some() {
        for (column, step) in plan.steps.iter().enumerate() {
            rank[step.vertex] = column;
        }
    }
    Symmetry::of_keeping(query, max_images, &kept, &rank)
}

/// Cuts C(u) to `v` alone, or to nothing where the filter left `v` out (or the graph has no
/// `v`), for each `(u, v)` of `pinned` (`v` in the graph's own ids); candidates on a device
/// are brought to the host first (the join moves them back).
fn pin(candidates: &mut Candidates, pinned: &[(usize, VertexId)], data: &DataIndex) -> Result<()> {
    if pinned.is_empty() {
        return Ok(());
    }
    let sets = candidates.on_host()?;
    for &(u, v) in pinned {
        let v = data.internal_id(v);
        sets.retain(u, |w| Some(w) == v);
    }
    Ok(())
}

/// Filters `query` with the CPU engine's filter and plans its join on the host, where its
/// candidate sets are small enough to be planned there anyway ([`HOST_PLANNING_MAX_BYTES`]):
/// for a caller that plans the next query while an engine joins this one. The sets hold
/// every match, so any engine may join the plan, and the engines of a spread all take it
/// ([`crate::find_matches_spread`]). `None` when the sets are too large: the engine that
/// joins the query then filters it itself.
pub fn plan_ahead(
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    counting: bool,
) -> Option<Result<Planned>> {
    // Planned on the host for a join on a GPU, unless the options say otherwise.
    let options = MatchOptions {
        planning_pays_from: Some(options.planning_pays_from()),
        pair_counts_from: Some(options.pair_counts_from()),
        program_cost: Some(options.program_cost()),
        refine_from_share: Some(options.refine_from_share()),
        ..options.clone()
    };
    plans_on_host(query, data)
        .then(|| plan_query(&mut CpuEngine::default(), query, data, &options, counting))
}

/// Candidate sets worth bringing to the host for refinement and sampling: their bitsets,
/// which the GPU join copies back, take at most this many bytes (yeast's 32-vertex queries
/// take 12 KiB, a 16-vertex query of a LiveJournal-sized graph 9.7 MB, a 12-vertex query of
/// a 10-million-vertex graph 15 MB). Planned without the walks' estimates, a tree of the
/// 100-label LiveJournal-sized graph was joined where its quotients count it: dense_8_7
/// past 10 s on an H100 (Algorithm 2 estimated 6,000 rows), counted over its quotients in
/// about 1 s on two cores of the development machine (docs/BENCHMARKS.md).
const HOST_PLANNING_MAX_BYTES: usize = 10 << 20;

/// Whether `query`'s candidate sets over `data` are small enough to plan on the host
/// ([`HOST_PLANNING_MAX_BYTES`]).
fn plans_on_host(query: &Graph, data: &DataIndex) -> bool {
    query.vertex_count() * data.graph().vertex_count().div_ceil(8) <= HOST_PLANNING_MAX_BYTES
}

/// The candidate sets in host memory, for planning there, unless `options` keep the paper's
/// sets and order or they are on a device and too large to bring over
/// ([`HOST_PLANNING_MAX_BYTES`]): the plan then follows Algorithm 2 on the filter's sets.
fn to_host<'c>(
    candidates: &'c mut Candidates,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
) -> Result<Option<&'c mut CandidateSets>> {
    if options.refine_rounds == 0 && options.join_order == JoinOrder::Paper {
        return Ok(None);
    }
    // A share is planned on the host wherever its sets are, as every engine plans it.
    if matches!(candidates, Candidates::Device(_))
        && options.share.is_none()
        && !plans_on_host(query, data)
    {
        return Ok(None);
    }
    Ok(Some(candidates.on_host()?))
}

impl Planned {
    /// A query answered with no match and `status` at once, its filter having taken
    /// `filter`: no candidates, and a plan over empty sets.
    fn answered(
        query: &Graph,
        data: &DataIndex,
        counting: bool,
        status: Status,
        filter: Duration,
    ) -> Planned {
        let started = Instant::now();
        let n = query.vertex_count();
        // Nothing joins it, so its vertices follow as they come (Algorithm 2's order of a
        // query of 200,000 vertices takes minutes).
        let plan = Plan::with_strategy(
            query,
            &vec![0; n],
            data,
            Postpone::Nothing,
            Strategy::Paper,
            &|| true,
        );
        Planned {
            candidates: Candidates::Host(CandidateSets::from_lists(vec![Vec::new(); n], 0)),
            plan,
            filter,
            planning: started.elapsed(),
            counting,
            answered: Some(status),
            query: Box::new(query.clone()),
            by_tree: false,
            by_quotients: None,
            by_core: None,
            shares: Mutex::new(None),
            splits: Arc::default(),
        }
    }

    /// Whether the plan counts (its leaves multiplied) rather than lists.
    pub(crate) fn counts(&self) -> bool {
        self.counting
    }

    /// The rows the plan expects ([`Plan::expected_rows`]).
    pub(crate) fn expected_rows(&self) -> f64 {
        self.plan.expected_rows()
    }

    /// The estimated work of its count: the dynamic program's where it counts a tree, its
    /// hanging trees' and its core's join where it counts over its core, else the join's
    /// ([`Plan::count_work`]; for a query counted over its quotients, the join's it was
    /// weighed against, as the quotients are dealt one by one).
    pub(crate) fn work(&self, data: &DataIndex) -> f64 {
        let sizes = || self.candidates.sizes();
        match (self.answered.is_none(), self.by_tree, &self.by_core) {
            (false, _, _) => 0.0,
            (true, true, _) => tree_count::work(&self.query, &sizes(), data),
            (true, false, Some(by_core)) => by_core.work(&sizes(), data),
            (true, false, None) => self.plan.count_work(),
        }
    }

    /// The engine a report names for a count made on the host over the candidate sets (a
    /// program's): the one that filtered them.
    fn filtering_engine(&self) -> &'static str {
        match self.candidates {
            Candidates::Device(_) => "gpu",
            Candidates::Host(_) => "cpu",
        }
    }

    /// The report of a join that found nothing yet and took no time.
    pub(crate) fn report(&self) -> MatchReport {
        MatchReport {
            count: 0,
            status: Status::Complete,
            times: PhaseTimes {
                filter: self.filter,
                plan: self.planning,
                join: Duration::ZERO,
            },
            plan: self.plan.clone(),
            peak_join_bytes: 0,
            // Beyond what a double holds (a path of 60,000 vertices), the largest one: a
            // report's numbers stay numbers.
            estimated_rows: self.plan.expected_rows().min(f64::MAX),
            engine: "",
            paths: JoinPaths::default(),
            spread: None,
        }
    }

    /// The same query, planned alike, for `engine` to join: the candidate sets where its
    /// joins read them ([`Engine::adopt`]; a GPU copies them to its device once), so that
    /// the engines of a spread query need not each filter and plan it.
    ///
    /// # Errors
    /// Device failures.
    pub(crate) fn adopted_by(&self, engine: &mut dyn Engine) -> Result<Planned> {
        let candidates = match &self.candidates {
            Candidates::Host(sets) => engine.adopt(sets)?,
            Candidates::Device(sets) => engine.adopt(&sets.download()?)?,
        };
        let by_quotients = match &self.by_quotients {
            Some(terms) => Some(
                terms
                    .iter()
                    .map(|(coefficient, term)| Ok((*coefficient, term.adopted_by(engine)?)))
                    .collect::<Result<Vec<_>>>()?,
            ),
            None => None,
        };
        let by_core = match &self.by_core {
            Some(by_core) => Some(Box::new(CorePlan {
                split: by_core.split.clone(),
                core: match &by_core.core {
                    CoreCount::Pinned(pinned) => CoreCount::Pinned(pinned.clone()),
                    CoreCount::Joined(core) => {
                        CoreCount::Joined(Box::new(core.adopted_by(engine)?))
                    }
                },
            })),
            None => None,
        };
        Ok(Planned {
            candidates,
            plan: self.plan.clone(),
            filter: Duration::ZERO,
            planning: Duration::ZERO,
            counting: self.counting,
            answered: self.answered,
            query: self.query.clone(),
            by_tree: self.by_tree,
            by_quotients,
            by_core,
            shares: Mutex::new(None),
            splits: self.splits.clone(),
        })
    }

    /// What [`crate::spread`] deals out in shares: the query's own plan, under `options`, or
    /// where it is counted over its quotients, each quotient's homomorphisms (under
    /// homomorphism), with the coefficient its count takes in the sum.
    pub(crate) fn parts(&self, options: &MatchOptions) -> Vec<(i64, &Planned, MatchOptions)> {
        match &self.by_quotients {
            Some(terms) if self.answered.is_none() => {
                let homomorphism = under_homomorphism(options);
                terms
                    .iter()
                    .map(|(coefficient, term)| (*coefficient, term, homomorphism.clone()))
                    .collect()
            }
            _ => vec![(1, self, options.clone())],
        }
    }

    /// Whether the count is its tree's dynamic program ([`tree_count`]), or its hanging
    /// trees' ([`crate::core_count`]), which a share would repeat over most of the data
    /// graph's lists: such a part is dealt whole.
    pub(crate) fn by_tree(&self) -> bool {
        self.answered.is_none() && (self.by_tree || self.by_core.is_some())
    }

    /// Whether a program counts the query on the host, no engine joining any of it: the
    /// tree's, or its core's blocks pinned.
    fn counted_on_host(&self) -> bool {
        let pinned = |c: &CorePlan| matches!(c.core, CoreCount::Pinned(_));
        self.answered.is_none() && (self.by_tree || self.by_core.as_deref().is_some_and(pinned))
    }

    /// Whether the count is a sum over the query's quotients ([`Planned::parts`]).
    pub(crate) fn by_quotients(&self) -> bool {
        self.answered.is_none() && self.by_quotients.is_some()
    }

    /// Joins the whole query, or `share` of it, on `engine` (the one that filtered it).
    pub(crate) fn join(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        share: Option<Share>,
        sink: &mut dyn MatchSink,
    ) -> Result<MatchReport> {
        if let Some(status) = self.answered {
            return Ok(MatchReport {
                status,
                ..self.report()
            });
        }
        if let Some(terms) = &self.by_quotients {
            // Quotients are not cut into shares (a query planned for a share is joined
            // instead): should one be asked for, the first share counts them whole.
            if share.is_some_and(|s| s.index() > 0) {
                return Ok(self.report());
            }
            return self.join_quotients(terms, engine, data, options);
        }
        if let Some(by_core) = &self.by_core {
            // As quotients: the first share counts it whole.
            if share.is_some_and(|s| s.index() > 0) {
                return Ok(self.report());
            }
            return self.join_core(by_core, engine, data, options);
        }
        let started = Instant::now();
        let mut space = self.shares.lock().unwrap_or_else(PoisonError::into_inner);
        let shared = match share {
            Some(share) => {
                let sides = self.plan.share_grid(share.count(), options.share_grid);
                if space.as_ref().is_none_or(|s| s.sides() != sides) {
                    *space = Some(ShareSpace::new(
                        &self.candidates,
                        &self.plan,
                        sides,
                        engine,
                        &self.splits,
                    )?);
                }
                Some(space.as_mut().expect("made above").cut(share)?)
            }
            None => None,
        };
        let report = self.join_sets(engine, data, options, shared.as_ref(), sink, started);
        if let (Some(space), Some(shared)) = (space.as_mut(), shared) {
            space.restore(shared);
        }
        report
    }

    /// The count by inclusion–exclusion over the quotients `terms` ([`quotients`]): each
    /// quotient's homomorphisms counted, times its coefficient. A term that does not finish
    /// leaves no bound on the sum: the count is then 0, with the term's status.
    fn join_quotients(
        &self,
        terms: &[(i64, Planned)],
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<MatchReport> {
        let started = Instant::now();
        let homomorphism = under_homomorphism(options);
        let mut report = self.report();
        // Terms counted by a program on the host need no engine: they are counted side by
        // side on the host's threads, the others on the engine in turn.
        let mut by_programs: Vec<Option<Result<MatchReport>>> = terms
            .par_iter()
            .map(|(_, term)| {
                let mut host = CpuEngine::default();
                let counted = || term.join(&mut host, data, &homomorphism, None, &mut CountOnly);
                term.counted_on_host().then(counted)
            })
            .collect();
        let mut counts = Vec::with_capacity(terms.len());
        for ((coefficient, term), by_program) in terms.iter().zip(&mut by_programs) {
            let counted = match by_program.take() {
                Some(counted) => counted?,
                None => term.join(engine, data, &homomorphism, None, &mut CountOnly)?,
            };
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
    fn join_core(
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
                let Some(count) = pinned.count(&core_sets, weights, data, &stop) else {
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

    /// Joins the query over `shared`, a share's candidate sets, or over the whole sets; the
    /// share was cut from `started` on.
    fn join_sets(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        shared: Option<&Candidates>,
        sink: &mut dyn MatchSink,
        started: Instant,
    ) -> Result<MatchReport> {
        let candidates = shared.unwrap_or(&self.candidates);
        let cut = started.elapsed();
        if self.by_tree {
            let mut report = self.report();
            let sets = candidates.to_host()?;
            let stop = || options.stop().is_some();
            match tree_count::forest_homomorphisms(&self.query, &sets, data, &stop) {
                Some(u128::MAX) => return Err(Error::CountBeyond128Bits),
                Some(count) => report.count = count,
                None => report.status = options.stop().unwrap_or(Status::Timeout),
            }
            report.times.plan += cut;
            report.times.join = started.elapsed() - cut;
            report.engine = self.filtering_engine();
            report.paths.tree_counted = true;
            return Ok(report);
        }
        // The engines find matches in the index's vertex ids; the sink takes the graph's.
        let mut original;
        let sink: &mut dyn MatchSink = match data.vertex_order() {
            Some(order) if sink.wants_matches() => {
                original = OriginalIds::new(order, sink);
                &mut original
            }
            _ => sink,
        };
        let symmetry = &self.plan.symmetry;
        let outcome = if symmetry.is_trivial() || !sink.wants_matches() {
            engine.join(&self.plan, candidates, data, options, sink)?
        } else {
            let mut images = Images::new(symmetry, sink);
            engine.join(&self.plan, candidates, data, options, &mut images)?
        };
        let mut report = self.report();
        // Each match found stands for its class.
        report.count = outcome
            .count
            .checked_mul(u128::from(symmetry.classes()))
            .filter(|&count| count < u128::MAX)
            .ok_or(Error::CountBeyond128Bits)?;
        report.status = outcome.status;
        report.times.plan += cut;
        report.times.join = started.elapsed() - cut;
        report.peak_join_bytes = outcome.peak_bytes;
        report.engine = outcome.engine;
        report.paths = outcome.paths;
        Ok(report)
    }
}
