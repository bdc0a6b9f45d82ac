//! A count's programs run beside its join: where the estimates chose the join of a count that
//! programs could make instead (a tree's dynamic program, its quotients', its core's), and the
//! engine's join leaves the host's threads free (a GPU's), the programs start on the host once
//! the join has run past a head start, and the first of the two to finish gives the count; the
//! other is stopped. Both are exact, so the estimates' misses cost at most the head start and the
//! faster of the two (the join's estimate can be 10^5 too low: docs/BENCHMARKS.md).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gsi_graph::Graph;

use super::{plan_filtered, Planned};
use crate::candidates::CandidateSets;
use crate::cpu::CpuEngine;
use crate::engine::{Candidates, Engine};
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{MatchOptions, Status, TreeCounts};
use crate::report::MatchReport;
use crate::sink::{CountOnly, MatchSink};

impl Planned {
    /// The count of the whole query: its join on `engine`, and after `after` its programs on
    /// the host beside it, the first to finish answering. A count the programs finish first
    /// is reported with the join's plan, the time from the join's start, and
    /// [`crate::options::JoinPaths::programs_beside`]; otherwise the join's report stands as
    /// it would alone (out of time, its count so far).
    pub(super) fn join_beside(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
        after: Duration,
    ) -> Result<MatchReport> {
        let Candidates::Host(sets) = &self.candidates else {
            return self.join_sets(engine, data, options, None, sink, Instant::now());
        };
        let started = Instant::now();
        let joined = Arc::new(AtomicBool::new(false));
        let counted = Arc::new(AtomicBool::new(false));
        let beside_options = MatchOptions {
            overtaken: Some(joined.clone()),
            ..options.clone()
        };
        let join_options = MatchOptions {
            overtaken: Some(counted.clone()),
            ..options.clone()
        };
        let query = &*self.query;
        let (join, programs) = std::thread::scope(|scope| {
            let programs = scope.spawn(|| {
                // The join's head start, unless it ends first (it wakes this thread then).
                loop {
                    if joined.load(Ordering::Acquire) {
                        return None;
                    }
                    match after.checked_sub(started.elapsed()) {
                        Some(left) if !left.is_zero() => std::thread::park_timeout(left),
                        _ => break,
                    }
                }
                // Threads of their own: the global pool's may all be the join's (the CPU's
                // rows, a GPU's host work), whose queued tasks would run before theirs.
                let pool = rayon::ThreadPoolBuilder::new()
                    .thread_name(|i| format!("gsi-beside-{i}"))
                    .build()
                    .ok()?;
                let report = pool.install(|| count_by_programs(query, sets, data, &beside_options));
                if matches!(&report, Ok(r) if r.status == Status::Complete) {
                    counted.store(true, Ordering::Release);
                }
                Some(report)
            });
            let join = self.join_sets(engine, data, &join_options, None, sink, Instant::now());
            joined.store(true, Ordering::Release);
            programs.thread().unpark();
            let programs = programs
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (join, programs)
        });
        match programs {
            // Counted first, exactly: whatever became of the join (stopped, or failed).
            Some(Ok(counted)) if counted.status == Status::Complete => {
                let mut report = self.report();
                report.count = counted.count;
                report.times.join = started.elapsed();
                report.engine = self.filtering_engine();
                report.paths = counted.paths;
                report.paths.programs_beside = true;
                Ok(report)
            }
            _ => join,
        }
    }
}

/// The count of `query` over `sets` by the programs that can make it, on the host: planned
/// and counted as the CPU engine would with the programs forced, never beside a join again.
fn count_by_programs(
    query: &Graph,
    sets: &CandidateSets,
    data: &DataIndex,
    options: &MatchOptions,
) -> Result<MatchReport> {
    let options = MatchOptions {
        tree_counts: TreeCounts::Always,
        programs_beside_after: Some(Duration::MAX),
        ..options.clone()
    };
    let mut cpu = CpuEngine::default();
    let candidates = Candidates::Host(sets.clone());
    let planned = plan_filtered(
        &mut cpu,
        query,
        data,
        &options,
        true,
        candidates,
        Instant::now(),
    )?;
    planned.join(&mut cpu, data, &options, None, &mut CountOnly)
}
