//! One query from start to end: filter, plan, join, each phase timed.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use gsi_graph::{Graph, VertexId};

use crate::candidates::CandidateSets;
use crate::core_count::CoreAndTrees;
use crate::cpu::CpuEngine;
use crate::engine::{Candidates, Engine};
use crate::error::{Error, Result};
use crate::fit::misfit;
use crate::index::DataIndex;
use crate::options::{
    JoinOrder, JoinPaths, MatchOptions, PairCounts, Semantics, Share, ShareCut, Status, TreeCounts,
    HEAVY_QUERY_WORK,
};
use crate::plan::estimate::{cheaper_count, plan_on_host};
use crate::plan::symmetry::Symmetry;
use crate::plan::{wedge, Plan, Postpone, RowShare, Strategy, TreeCountChoice};
use crate::report::{MatchReport, PhaseTimes};
use crate::shares::{ShareSpace, SharedClasses};
use crate::sink::{Images, MatchSink, OriginalIds};
use crate::tree_count;

mod beside;
mod light;
mod programs;
mod symmetry;

use symmetry::{break_symmetry, symmetry_of, Unbroken};

pub(crate) use programs::quotient_sum;
use programs::{by_core, by_quotients, core_count_of, under_homomorphism, CorePlan};

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
        .and_then(|planned| planned.join_checking_light(engine, data, options, sink));
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
    /// Whether programs could count it (a tree's, its quotients', its core's) where the
    /// estimates chose its join, over candidate sets on the host: they may then run beside
    /// the join ([`MatchOptions::programs_beside_after`]).
    programs_beside: bool,
    /// The candidate sets readied for shares, when the query is joined in shares on one
    /// engine ([`ShareSpace`]).
    shares: Mutex<Option<ShareSpace>>,
    /// The cut vertices' candidates split by class for the shares, shared with the plans
    /// adopted from this one ([`Planned::adopted_by`]).
    splits: Arc<SharedClasses>,
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
    // Quotients and cores count a whole query: not with pins, nor for a limit. In a share
    // they count it whole in the first share, where that is estimated to cost less than the
    // share's part of the join ([`TreeCountChoice::by`]): joined in each of 8 shares, gw12's
    // dense_12_4 took 1.0-1.4 s a share on two cores against 25 ms for its quotients.
    let programs = counting
        && options.limit.is_none()
        && options.pinned.is_empty()
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
    let in_paper_order;
    let planning = match by_program_whatever_the_order {
        true => {
            in_paper_order = MatchOptions {
                join_order: JoinOrder::Paper,
                refine_rounds: 0,
                ..options.clone()
            };
            &in_paper_order
        }
        false => options,
    };
    let mut make_plan = |postpone: Postpone| -> Result<(Plan, Symmetry)> {
        let plan = match to_host(&mut candidates, query, data, planning)? {
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
        Ok(break_symmetry(plan, query, options, counting))
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
        let its_symmetry = symmetry_of(&paired, query, options, counting, Unbroken::Equivalents);
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
        // A query with cycles only where forced, or where trees hang from its core and its
        // join is heavy (`MatchOptions::cyclic_quotients_from`): by the estimates, the
        // unlabelled LiveJournal-sized graph's diamond and 4-cycle (all core) took their
        // quotients, whose programs on two cores did not finish in 60 s (docs/BENCHMARKS.md).
        && (query.edge_count() + 1 == query.vertex_count()
            || options.tree_counts == TreeCounts::Always
            || (plan.count_work() >= options.cyclic_quotients_from
                && CoreAndTrees::of(query)
                    .is_some_and(|s| s.vertices.len() < query.vertex_count())))
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
    let by_tree = plan.choice.tree_count.as_ref().is_some_and(|c| c.chosen)
        && by_quotients.is_none()
        && by_core.is_none();
    // Programs the estimates weighed and passed over (not the options: the tree's, the
    // quotients', the core's, whichever was weighed last), for a count over sets on the host.
    let programs_beside = options.tree_counts == TreeCounts::ByEstimate
        && matches!(candidates, Candidates::Host(_))
        && plan.choice.tree_count.as_ref().is_some_and(|c| !c.chosen);
    Ok(Planned {
        by_tree,
        by_quotients,
        by_core,
        programs_beside,
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
            programs_beside: false,
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
            Some(by_core) => Some(Box::new(by_core.adopted_by(engine)?)),
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
            programs_beside: false,
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

    /// Whether the count is a sum over the query's quotients ([`Planned::parts`]).
    pub(crate) fn by_quotients(&self) -> bool {
        self.answered.is_none() && self.by_quotients.is_some()
    }

    /// Whether the query's shares are cut by rows under `options`: not where it is a tree
    /// counted by its dynamic program, which makes no rows (a grid then).
    fn cuts_rows(&self, options: &MatchOptions) -> bool {
        options.share_cut == ShareCut::Rows && !self.by_tree
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
            // Quotients are not cut into shares: the first share counts them whole, the
            // others nothing (the plan weighed that against a share's part of the join).
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
        if self.programs_beside && share.is_none() && !sink.wants_matches() {
            let after = options
                .programs_beside_after
                .or_else(|| engine.programs_beside_after(&self.plan));
            if let Some(after) = after.filter(|&after| after != Duration::MAX) {
                return self.join_beside(engine, data, options, sink, after);
            }
        }
        let started = Instant::now();
        if let Some(share) = share.filter(|_| self.cuts_rows(options)) {
            let plan = Plan {
                row_share: Some(RowShare {
                    share,
                    rows_per_share: options.rows_per_share,
                }),
                ..self.plan.clone()
            };
            let mut report = self.join_sets(engine, data, options, &plan, None, sink, started)?;
            report.plan = plan;
            return Ok(report);
        }
        let mut space = self.shares.lock().unwrap_or_else(PoisonError::into_inner);
        let shared = match share {
            Some(share) => {
                let sides = self.plan.share_grid(share.count(), options.share_cut);
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
        let report = self.join_sets(
            engine,
            data,
            options,
            &self.plan,
            shared.as_ref(),
            sink,
            started,
        );
        if let (Some(space), Some(shared)) = (space.as_mut(), shared) {
            space.restore(shared);
        }
        report
    }

    /// Joins the query by `plan` (the query's, or a share's of its rows) over `shared`, a
    /// share's candidate sets, or over the whole sets; the share was cut from `started` on.
    #[allow(clippy::too_many_arguments)]
    fn join_sets(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        plan: &Plan,
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
        let symmetry = &plan.symmetry;
        let outcome = if symmetry.is_trivial() || !sink.wants_matches() {
            engine.join(plan, candidates, data, options, sink)?
        } else {
            let mut images = Images::new(symmetry, sink);
            engine.join(plan, candidates, data, options, &mut images)?
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
