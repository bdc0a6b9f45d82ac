//! One query over several engines, one per GPU (`--devices`): the join cut into shares as
//! `--partition` cuts it ([`Share`]), many more shares than engines, dealt to the engines as
//! they come free; the counts added up. A query counted over its quotients is dealt as each
//! quotient's shares in turn, and their counts summed with the quotients' coefficients (in a
//! share of `--partition`, the first share counts the quotients whole). Each engine
//! holds the whole index and filters the query itself; the plan is the same on every engine,
//! so the shares are disjoint and together the whole.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use gsi_graph::Graph;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::options::{MatchOptions, Share, SharesCut, Status};
use crate::report::{EngineShares, MatchReport, ShareTime, SpreadReport};
#[cfg(doc)]
use crate::search::{find_matches, plan_ahead};
use crate::search::{plan_query, quotient_sum, Planned};
use crate::sink::{CountOnly, MatchSink};

/// The first engine tries a query whole for this long while the others plan it: most queries
/// end within it (the others are then called off), and the rest are spread.
pub const SPREAD_AFTER: Duration = Duration::from_millis(10);

/// Rows the plan expects ([`crate::plan::Plan::expected_rows`]) from which a query is spread
/// at once, without the trial. On gw12 (2 × H200, 2026-11-27) the walks estimated 1.2×10^6 to
/// 7.7×10^8 rows for the queries of 21 ms to 2.3 s on one GPU, and 63 to 5.2×10^5 for those
/// of 1.5 to 7 ms, two of which (dense_12_9 and _11, 2.5×10^5 and 5.2×10^5 rows) took 0.27
/// and 0.76 times as long spread at once from 10^5 rows, 0.96 and 0.99 from 10^6.
/// (Algorithm 2's estimate alone could not tell them apart: 103 rows for a query of 2.3×10^10
/// matches.)
pub const SPREAD_AT_ONCE_ROWS: f64 = 1e6;

/// What the first engine did with a query: answered it whole within the trial, or took its
/// part of the shares (with the report of its filter and plan).
enum FirstEngine {
    Whole(MatchReport),
    Shares(MatchReport, Parts, Vec<PartShare>, EngineShares),
}

/// The coefficient of each part of a spread query ([`Planned::parts`]), and whether they are
/// its quotients.
#[derive(Clone)]
struct Parts {
    coefficients: Vec<i64>,
    quotients: bool,
}

/// One share of one part of a query, as an engine answered it.
type PartShare = (ShareTime, MatchReport);

/// A unit of the deal ([`deal`]): a part of the query, and its share (`None`: whole).
type Unit = (usize, Option<Share>);

/// How often the first engine, done, looks for a stop while the others finish: short, since a
/// light query answered whole waits this long for the others to be called off.
const STOP_POLL: Duration = Duration::from_micros(200);

/// How often the other engines, planned, look whether to take shares or stop.
const WAIT_POLL: Duration = Duration::from_micros(50);

/// How far a quotient's work may exceed its estimate: of gw12's dense_12_1's 30 quotients,
/// three estimated at 2.7×10^7 to 1.5×10^8 took as long each as the 19 shares of one
/// estimated at 1.4×10^10 together, and four estimated at 10^6 over a tenth of that (four CPU
/// engines, development machine, 2026-11-27).
const UNDERESTIMATE: f64 = 100.0;

/// How a spread query is dealt over `engines`, given the estimate of each of its parts' work
/// ([`Planned::parts`], [`Planned::work`]) and which are counted by a tree's dynamic program
/// (`by_tree`, [`Planned::by_tree`]: each share would read most of what the whole does, so
/// they are taken whole; cut into four, gw12's dense_12_9, 24 ms on one H100, took 96 ms
/// on four, 2026-11-27): the parts heaviest first, each as its shares in turn, `(part,
/// share)`, the share `None` for a part taken whole. A lone part is cut into `count` shares; a query's quotients share the `count` among them by their estimates, at
/// least one each, so that the light ones are not cut: each share repeats its quotient's
/// set-up, and with every quotient cut into `count` shares, gw12's dense_12_2 (6 quotients)
/// took 558–910 ms on two H100s against 400–426 ms whole on one (2026-11-26). A quotient that,
/// were its work [`UNDERESTIMATE`] times its estimate, would outweigh a share of the whole is
/// cut into a share per engine at least: whole, dense_12_1's underestimated quotients took
/// 782 and 823 ms of the 1,079 its four H200s took (2,477 on one; 2026-11-27).
fn deal(weights: &[f64], by_tree: &[bool], count: u32, engines: u32) -> Vec<Unit> {
    let total: f64 = weights.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
    let mut units = Vec::new();
    for at in order {
        let share = weights[at] / total;
        let cut = if by_tree[at] {
            1
        } else if weights.len() == 1 {
            count
        } else if share.is_finite() {
            let by_estimate = (f64::from(count) * share)
                .round()
                .clamp(1.0, f64::from(count)) as u32;
            let at_least = match f64::from(count) * share * UNDERESTIMATE >= 1.0 {
                true => engines.min(count),
                false => 1,
            };
            by_estimate.max(at_least)
        } else {
            // No estimate, or one beyond measure: each part whole.
            1
        };
        if cut == 1 {
            units.push((at, None));
        } else {
            units.extend((0..cut).map(|i| (at, Share::new(i, cut))));
        }
    }
    units
}

/// Finds the matches of `query` with every engine of `engines` (at least one).
///
/// The query is spread over the engines when there are several, it is counted (the sink
/// wants no matches), it has no limit, it is not itself a share, and the first engine has
/// not finished it whole within `trial` (`None`, or a plan expecting
/// [`SPREAD_AT_ONCE_ROWS`]: spread at once); otherwise the first engine answers it whole.
/// The other engines filter and plan the query while the first one does (or take the plan
/// made ahead), then wait for the trial's end to take shares, or for the call-off. A spread query's report gives the first
/// engine's filter and plan times, the wall time of the trial and the shares as its join
/// time, the largest join memory of any engine, and the gravest status of any share.
///
/// `ahead` is the query as [`plan_ahead`] planned it under the same options, if it was: every
/// engine joins that plan instead of filtering and planning the query itself (a plan made
/// for a count is not used for a listing, nor the reverse).
///
/// # Errors
/// As [`find_matches`], from any engine.
///
/// # Panics
/// If `engines` is empty.
pub fn find_matches_spread(
    engines: &mut [Box<dyn Engine>],
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
    trial: Option<Duration>,
    ahead: Option<Planned>,
) -> Result<MatchReport> {
    let report = spread(engines, query, data, options, sink, trial, ahead);
    for engine in engines.iter_mut() {
        engine.query_answered();
    }
    report
}

/// [`find_matches_spread`] up to the engines' [`Engine::query_answered`].
fn spread(
    engines: &mut [Box<dyn Engine>],
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
    trial: Option<Duration>,
    ahead: Option<Planned>,
) -> Result<MatchReport> {
    let (first, others) = engines.split_first_mut().expect("at least one engine");
    let counting = !sink.wants_matches();
    let ahead = ahead.filter(|planned| planned.counts() == counting);
    if others.is_empty() || !counting || options.limit.is_some() || options.share.is_some() {
        let planned = match ahead {
            Some(planned) => planned,
            None => plan_query(first.as_mut(), query, data, options, counting)?,
        };
        return planned.join_checking_light(first.as_mut(), data, options, sink);
    }
    let engines = others.len() as u32 + 1;
    let count = options.shares_per_engine.max(1) * engines;
    let next = AtomicU32::new(0);
    let started = Instant::now();
    // The first engine's deal of the query's parts, published before the others take
    // shares: each engine then takes the next unit of it until none is left.
    let dealt: OnceLock<(Parts, Vec<Unit>)> = OnceLock::new();
    let take =
        |at_engine: usize, engine: &mut dyn Engine, planned: &Planned, options: &MatchOptions| {
            let parts = planned.parts(options);
            let mut mine = EngineShares {
                ready: started.elapsed(),
                ..EngineShares::default()
            };
            let mut reports: Vec<PartShare> = Vec::new();
            let (first_parts, units) = dealt.get().expect("dealt before any engine takes shares");
            // An engine whose plan chose otherwise between a join and the quotients (its walks
            // cut short by the deadline) would count other parts: it takes no share.
            if parts.len() != first_parts.coefficients.len() {
                return Ok((reports, mine));
            }
            let planning: Vec<Duration> = parts
                .iter()
                .map(|(_, part, _)| part.report().times.plan)
                .collect();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(at, share)) = units.get(i as usize) else {
                    return Ok((reports, mine));
                };
                let (_, part, options) = &parts[at];
                let began = started.elapsed();
                let report = part.join(engine, data, options, share, &mut CountOnly)?;
                let cutting = report.times.plan.saturating_sub(planning[at]);
                let took = cutting + report.times.join;
                mine.shares += 1;
                mine.busy += took;
                mine.cutting += cutting;
                mine.longest = mine.longest.max(took);
                let time = ShareTime {
                    engine: at_engine,
                    part: at,
                    share,
                    began,
                    took,
                };
                reports.push((time, report));
            }
        };
    // The other engines take the plan made ahead, or plan the query themselves, then wait
    // until the first one has planned it (and tried it whole, when that is worth it): they
    // then take shares, or are called off.
    let go = AtomicBool::new(false);
    let called_off = Arc::new(AtomicBool::new(false));
    // A share cuts the candidate sets of the plan's first vertices, which then are no
    // longer interchangeable with their equivalents: planned without equivalent vertices.
    // Each engine plans over its own filter's sets, which must be every engine's: Sec. 3.2's
    // pools, not the CPU's narrower ones.
    let planning_options = MatchOptions {
        equivalent_vertices: false,
        narrow_pools: false,
        ..options.clone()
    };
    let others_options = MatchOptions {
        interrupt: Some(called_off.clone()),
        ..planning_options.clone()
    };
    let ahead = ahead.as_ref();
    let (first_outcome, others_results) = std::thread::scope(|scope| {
        let handles: Vec<_> = others
            .iter_mut()
            .enumerate()
            .map(|(other, engine)| {
                let (take, go, called_off, others_options) =
                    (&take, &go, &called_off, &others_options);
                scope.spawn(move || {
                    let engine = engine.as_mut();
                    let planned = match ahead {
                        Some(planned) => planned.adopted_by(engine)?,
                        None => plan_query(engine, query, data, others_options, true)?,
                    };
                    while !go.load(Ordering::Relaxed) {
                        if called_off.load(Ordering::Relaxed) {
                            return Ok((Vec::<PartShare>::new(), EngineShares::default()));
                        }
                        std::thread::sleep(WAIT_POLL);
                    }
                    take(other + 1, engine, &planned, others_options)
                })
            })
            .collect();
        let outcome = (|| -> Result<FirstEngine> {
            let own;
            let planned = match ahead {
                Some(planned) => planned,
                None => {
                    own = plan_query(first.as_mut(), query, data, &planning_options, counting)?;
                    &own
                }
            };
            let trial = trial.filter(|_| planned.expected_rows() < SPREAD_AT_ONCE_ROWS);
            if let Some(trial) = trial {
                let end = Instant::now() + trial;
                let trial_options = MatchOptions {
                    deadline: Some(options.deadline.map_or(end, |d| d.min(end))),
                    ..options.clone()
                };
                let whole = planned.join(first.as_mut(), data, &trial_options, None, sink)?;
                let out_of_time = options.deadline.is_some_and(|d| Instant::now() >= d);
                if whole.status != Status::Timeout || out_of_time {
                    return Ok(FirstEngine::Whole(whole));
                }
            }
            let parts = planned.parts(options);
            let weights: Vec<f64> = parts.iter().map(|(_, p, _)| p.work(data)).collect();
            let by_tree: Vec<bool> = parts.iter().map(|(_, p, _)| p.by_tree()).collect();
            let published = Parts {
                coefficients: parts.iter().map(|p| p.0).collect(),
                quotients: planned.by_quotients(),
            };
            let _ = dealt.set((published.clone(), deal(&weights, &by_tree, count, engines)));
            go.store(true, Ordering::Relaxed);
            let (reports, mine) = take(0, first.as_mut(), planned, options)?;
            Ok(FirstEngine::Shares(
                planned.report(),
                published,
                reports,
                mine,
            ))
        })();
        if !matches!(outcome, Ok(FirstEngine::Shares(..))) {
            called_off.store(true, Ordering::Relaxed);
        }
        // A stop asked for while the others finish their last shares reaches them too.
        while !handles.iter().all(|h| h.is_finished()) {
            if options.stop().is_some() {
                called_off.store(true, Ordering::Relaxed);
            }
            std::thread::sleep(STOP_POLL);
        }
        let rest: Vec<Result<(Vec<PartShare>, EngineShares)>> = handles
            .into_iter()
            .map(|h| h.join().expect("a share's thread"))
            .collect();
        (outcome, rest)
    });
    let (mut whole, parts, mut reports, first_part) = match first_outcome? {
        FirstEngine::Whole(report) => return Ok(report),
        FirstEngine::Shares(base, parts, reports, mine) => (base, parts, reports, mine),
    };
    let mut engines_shares = vec![first_part];
    for result in others_results {
        let (theirs, mine) = result?;
        reports.extend(theirs);
        engines_shares.push(mine);
    }
    whole.times.join = started.elapsed();
    whole.status = reports
        .iter()
        .map(|(_, r)| r.status)
        .max_by_key(|s| match s {
            Status::Complete | Status::Limit => 0,
            Status::Timeout => 1,
            Status::Interrupted => 2,
        })
        .unwrap_or(Status::Complete);
    // Shares the other engines left when the query's own stop called them off say why it
    // stopped (out of time, or interrupted), not that they were called off.
    if let (Some(reason), false) = (options.stop(), whole.status == Status::Complete) {
        whole.status = reason;
    }
    let mut counts = vec![0u128; parts.coefficients.len()];
    for (time, report) in &reports {
        let sum = counts
            .get_mut(time.part)
            .expect("a part of the first engine's deal");
        *sum = sum
            .checked_add(report.count)
            .ok_or(Error::CountBeyond128Bits)?;
    }
    // Counted by the tree's program, whole or over its quotients, in every share.
    whole.paths.tree_counted = parts.quotients
        || (!reports.is_empty() && reports.iter().all(|(_, r)| r.paths.tree_counted));
    whole.count = if !parts.quotients {
        counts[0]
    } else if whole.status == Status::Complete {
        // A quotient not counted whole leaves no bound on the sum: then 0.
        quotient_sum(parts.coefficients.into_iter().zip(counts))?
    } else {
        0
    };
    let mut shares: Vec<ShareTime> = reports.iter().map(|(time, _)| *time).collect();
    shares.sort_by_key(|time| time.began);
    let reports: Vec<MatchReport> = reports.into_iter().map(|(_, r)| r).collect();
    // Cut by rows, every share dealt the same table; a grid, the plan's.
    let cut = match reports.iter().find_map(|r| r.paths.rows_dealt) {
        Some(dealt) => SharesCut::Rows { width: dealt.width },
        None => SharesCut::Grid(whole.plan.share_grid(count, options.share_cut)),
    };
    whole.peak_join_bytes = reports.iter().map(|r| r.peak_join_bytes).max().unwrap_or(0);
    if let Some(r) = reports.first() {
        whole.engine = r.engine;
    }
    whole.spread = Some(SpreadReport {
        cut,
        engines: engines_shares,
        shares,
    });
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each unit as (part, share index, shares of that part); a whole part as (part, 0, 1).
    fn dealt(weights: &[f64], count: u32) -> Vec<(usize, u32, u32)> {
        dealt_over(weights, count, 1)
    }

    /// [`dealt`] over `engines`.
    fn dealt_over(weights: &[f64], count: u32, engines: u32) -> Vec<(usize, u32, u32)> {
        deal(weights, &vec![false; weights.len()], count, engines)
            .into_iter()
            .map(|(at, share)| {
                (
                    at,
                    share.map_or(0, |s| s.index()),
                    share.map_or(1, |s| s.count()),
                )
            })
            .collect()
    }

    #[test]
    fn a_lone_part_is_cut_into_every_share() {
        let expected: Vec<_> = (0..16).map(|i| (0, i, 16)).collect();
        assert_eq!(dealt(&[5.0], 16), expected);
        assert_eq!(dealt(&[0.0], 16), expected);
    }

    #[test]
    fn quotients_share_the_cuts_by_weight_heaviest_first() {
        let units = dealt(&[1.0, 1e-6, 3.0], 16);
        let mut expected: Vec<_> = (0..12).map(|i| (2, i, 12)).collect();
        expected.extend((0..4).map(|i| (0, i, 4)));
        expected.push((1, 0, 1));
        assert_eq!(units, expected);
        // Without estimates, or with one beyond measure, every quotient whole.
        assert_eq!(dealt(&[0.0, 0.0], 8), vec![(0, 0, 1), (1, 0, 1)]);
        let units = dealt(&[f64::INFINITY, 1.0], 8);
        assert_eq!(units.len(), 2, "{units:?}");
        assert!(
            units.contains(&(0, 0, 1)) && units.contains(&(1, 0, 1)),
            "{units:?}"
        );
    }

    #[test]
    fn a_quotient_that_may_outweigh_a_share_is_cut_for_every_engine() {
        // 32 cuts over four engines: the heaviest takes 32 by its estimate; the second, a
        // hundredth of the whole, none by its estimate but four for the engines, as a hundred
        // times it would be three shares' worth; the third, whose hundredfold is a tenth of a
        // share, stays whole.
        let units = dealt_over(&[1e10, 1e8, 3e4], 32, 4);
        let mut expected: Vec<_> = (0..32).map(|i| (0, i, 32)).collect();
        expected.extend((0..4).map(|i| (1, i, 4)));
        expected.push((2, 0, 1));
        assert_eq!(units, expected);
        // Over one engine, nothing changes.
        assert_eq!(dealt_over(&[1e10, 1e8, 3e4], 32, 1).len(), 32 + 1 + 1);
    }

    #[test]
    fn a_part_counted_by_a_tree_program_is_dealt_whole() {
        let units = deal(&[1e6, 3e6], &[true, false], 8, 4);
        let units: Vec<_> = units
            .into_iter()
            .map(|(at, share)| (at, share.map(|s| (s.index(), s.count()))))
            .collect();
        let mut expected: Vec<_> = (0..6).map(|i| (1, Some((i, 6)))).collect();
        expected.push((0, None));
        assert_eq!(units, expected);
        // A lone part counted so is one unit.
        assert_eq!(deal(&[1e9], &[true], 32, 4), vec![(0, None)]);
    }
}
