//! A count's programs run beside its join: where the estimates chose the join of a count that
//! programs could make instead (a tree's dynamic program, its quotients', its core's), and the
//! engine's join leaves the host's threads free (a GPU's), the programs start on the host once
//! the join has run past a head start, and the first of the two to finish gives the count; the
//! other is stopped. Both are exact, so the estimates' misses cost at most the head start and the
//! faster of the two (the join's estimate can be 10^5 too low: docs/BENCHMARKS.md). A join that
//! fails (out of device memory, say) leaves the count to the programs, started at once.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::Thread;
use std::time::{Duration, Instant};

use gsi_graph::Graph;

use super::{plan_filtered, Planned};
use crate::candidates::CandidateSets;
use crate::config::WORKER_STACK_BYTES;
use crate::cpu::CpuEngine;
use crate::engine::{Candidates, Engine};
use crate::error::Result;
use crate::index::DataIndex;
use crate::options::{MatchOptions, Status, TreeCounts};
use crate::report::MatchReport;
use crate::sink::{CountOnly, MatchSink};

/// How the join stands, for the programs beside it.
const JOINING: u8 = 0;
/// Ended with a report (its count, or stopped), or panicked: the programs stop, or never start.
const JOINED: u8 = 1;
/// Failed with an error: the programs start at once, and may still give the count.
const FAILED: u8 = 2;

/// Tells the programs' thread how the join ended, stops the programs where it ended, and wakes
/// the thread: on drop, so that a join that panics stops them too.
struct JoinEnds<'a> {
    state: &'a AtomicU8,
    joined: &'a AtomicBool,
    beside: Thread,
    ended: u8,
}

impl Drop for JoinEnds<'_> {
    fn drop(&mut self) {
        if self.ended == JOINED {
            self.joined.store(true, Ordering::Relaxed);
        }
        self.state.store(self.ended, Ordering::Release);
        self.beside.unpark();
    }
}

impl Planned {
    /// The count of the whole query: its join on `engine`, and after `after` its programs on
    /// the host beside it, the first to finish answering. A count the programs finish first
    /// is reported with the join's plan, the time from the join's start, and
    /// [`crate::options::JoinPaths::programs_beside`]; otherwise the join's report stands as
    /// it would alone (out of time, its count so far; failed, its error).
    pub(super) fn join_beside(
        &self,
        engine: &mut dyn Engine,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
        after: Duration,
    ) -> Result<MatchReport> {
        let Candidates::Host(sets) = &self.candidates else {
            return self.join_sets(
                engine,
                data,
                options,
                &self.plan,
                None,
                sink,
                Instant::now(),
            );
        };
        let started = Instant::now();
        let state = AtomicU8::new(JOINING);
        // Each side stops once the other has counted (besides the caller's own stops).
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
                    match state.load(Ordering::Acquire) {
                        JOINED => return None,
                        FAILED => break,
                        _ => {}
                    }
                    match after.checked_sub(started.elapsed()) {
                        Some(left) if !left.is_zero() => std::thread::park_timeout(left),
                        _ => break,
                    }
                }
                let report = count_by_programs(query, sets, data, &beside_options);
                if matches!(&report, Ok(r) if r.status == Status::Complete) {
                    counted.store(true, Ordering::Relaxed);
                }
                Some(report)
            });
            let mut ends = JoinEnds {
                state: &state,
                joined: &joined,
                beside: programs.thread().clone(),
                ended: JOINED,
            };
            let join = self.join_sets(
                engine,
                data,
                &join_options,
                &self.plan,
                None,
                sink,
                Instant::now(),
            );
            if join.is_err() {
                ends.ended = FAILED;
            }
            drop(ends);
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

/// The count of `query` over `sets` by the programs that can make it, on the host, in
/// threads of their own (the global pool's may all be the join's: the CPU's rows, a GPU's
/// host work, whose queued tasks would run before theirs), as many as the global pool's and
/// with its stacks: planned again with the programs forced, on the CPU engine (forced, they
/// are never passed over, so never raced again).
fn count_by_programs(
    query: &Graph,
    sets: &CandidateSets,
    data: &DataIndex,
    options: &MatchOptions,
) -> Result<MatchReport> {
    let options = MatchOptions {
        tree_counts: TreeCounts::Always,
        ..options.clone()
    };
    let count = || {
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
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .stack_size(WORKER_STACK_BYTES)
        .thread_name(|i| format!("gsi-beside-{i}"))
        .build()
    {
        Ok(pool) => pool.install(count),
        // No threads to be had: on this one, then.
        Err(_) => count(),
    }
}
