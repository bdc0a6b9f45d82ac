//! The Prealloc-Combine join (GSI, ICDE 2020, Algorithms 3 and 4): one driver for both
//! engines.
//!
//! Each step joins one query vertex u to the intermediate table M:
//! 1. (Alg. 4) for every row, the bound |N(v', l0)| of the first edge e0 (or |C(u)| when u has
//!    no edge to the vertices before it); an exclusive prefix sum places each row's buffer in
//!    one combined array, the GBA;
//! 2. (Alg. 3, lines 5-12) each row's buffer is filled with the first edge's list minus the
//!    row's vertices (skipped under homomorphism), kept to C(u) and intersected with every
//!    other linking edge's list;
//! 3. (lines 13-19) a second prefix sum over the buffers' counts lays out the new table M'.
//!
//! The driver owns what both engines share: the first table (C(u0), Algorithm 2 line 8),
//! one-vertex queries, the memory budget, the deadline and interrupt, the limit and the peak
//! of bytes held. The [`JoinBackend`] of each engine does the work on its own memory.
//!
//! Memory stays bounded: each step may hold `budget / |V(Q)|` bytes of GBA and new table.
//! When a step's rows would need more, they are split into the longest runs that fit, and
//! each run goes through all remaining steps before the next (depth-first), so one live table
//! per step is kept; a single row over the budget is taken a window of its first-edge list at
//! a time, where the backend can. When only the count is wanted, the last step counts per row
//! and writes no table.

use std::ops::Range;
use std::time::{Duration, Instant};

use gsi_graph::VertexId;

mod backend;
mod dealing;

pub(crate) use backend::{BufferLayout, FilledBuffers, JoinBackend, SmallEnd, SmallSteps};
use dealing::Dealing;

use crate::error::{Error, Result};
use crate::options::{Counted, JoinOutcome, JoinPaths, MatchOptions, RowsDealt, Status, StepPath};
use crate::plan::Plan;
use crate::sink::MatchSink;

/// Rows handed to one count-only call, so that the stop conditions are seen between calls.
const COUNT_ROWS_PER_CALL: usize = 1 << 22;

/// How long one run of a paced step should take (its fill, link or emit, without the steps
/// after it): runs double while faster and halve when four times slower, so that matches
/// stream out early and the stop conditions are seen every few tens of milliseconds.
const PACE: Duration = Duration::from_millis(10);

/// Runs the join of `plan` on `backend`, whose candidate sets have sizes `sizes`, within
/// `budget` bytes.
///
/// # Errors
/// Backend and sink failures.
pub(crate) fn run<B: JoinBackend>(
    backend: B,
    plan: &Plan,
    sizes: &[usize],
    options: &MatchOptions,
    budget: usize,
    sink: &mut dyn MatchSink,
    engine: &'static str,
) -> Result<JoinOutcome> {
    let width = plan.width();
    let count_only = !sink.wants_matches();
    // A listing or a limit wants its first matches soon: its runs are paced. A count
    // without a limit takes the longest runs that fit, for throughput.
    let paced = !count_only || options.limit.is_some();
    let run_rows = if paced {
        vec![backend.first_run_rows(); width]
    } else {
        vec![usize::MAX; width]
    };
    let mut driver = Driver {
        run_rows,
        paced,
        backend,
        plan,
        options,
        count_only,
        sink,
        budget,
        step_budget: budget / width.max(1),
        count: 0,
        status: Status::Complete,
        live_bytes: 0,
        peak_bytes: 0,
        paths: vec![StepPath::default(); width],
        small_steps: 0,
        dealing: match plan.row_share {
            Some(_) => Dealing::Seeking,
            None => Dealing::Off,
        },
        gathered: Vec::new(),
        rows_dealt: None,
    };
    if width > 0 && !sizes.contains(&0) {
        let first = driver.backend.first_table(plan.steps[0].vertex)?;
        let rows = sizes[plan.steps[0].vertex];
        driver.begin(&first, rows)?;
    }
    let depth_first_from = driver.depth_first_from();
    let mut steps = std::mem::take(&mut driver.paths);
    // The small steps' launch does without the load balance.
    for (i, st) in steps.iter_mut().enumerate().skip(1 + driver.small_steps) {
        let read_lists = st.breadth_first_rows > 0 || st.counted_as == Some(Counted::LastStep);
        if read_lists {
            st.balance = driver.backend.balance(i);
        }
    }
    if driver.count == u128::MAX {
        return Err(Error::CountBeyond128Bits);
    }
    Ok(JoinOutcome {
        count: driver.count,
        status: driver.status,
        peak_bytes: driver.peak_bytes,
        engine,
        paths: JoinPaths {
            steps,
            depth_first_from,
            depth_first_kind: driver.backend.depth_first_kind(),
            small_steps: driver.small_steps,
            skipped_by_failing_sets: driver.backend.skipped_by_failing_sets(),
            tree_counted: false,
            programs_beside: false,
            rows_dealt: driver.rows_dealt,
        },
    })
}

struct Driver<'a, B> {
    /// Most rows of one run, per step. Unbounded for a count without a limit; when paced,
    /// each step's runs start small and follow [`PACE`], so the first matches come after a
    /// few rows' work per level (depth-first) instead of after whole levels.
    run_rows: Vec<usize>,
    /// Whether the runs follow [`PACE`].
    paced: bool,
    backend: B,
    plan: &'a Plan,
    options: &'a MatchOptions,
    sink: &'a mut dyn MatchSink,
    count_only: bool,
    /// Bytes the whole join may hold.
    budget: usize,
    /// Bytes one step may hold.
    step_budget: usize,
    /// Saturated at `u128::MAX`: a count that reaches it is an error.
    count: u128,
    status: Status,
    live_bytes: usize,
    peak_bytes: usize,
    /// What each step did, for `--explain`.
    paths: Vec<StepPath>,
    /// Steps from the first joined in one go by [`JoinBackend::join_small`].
    small_steps: usize,
    /// Where the join of a share cut by rows stands.
    dealing: Dealing,
    /// The rows of the table being gathered before it is dealt ([`Dealing::Gathering`]).
    gathered: Vec<VertexId>,
    /// The table a share cut by rows dealt, and what it kept.
    rows_dealt: Option<RowsDealt>,
}

impl<B: JoinBackend> Driver<'_, B> {
    fn stopped(&mut self) -> bool {
        if self.status == Status::Complete {
            if let Some(stop) = self.options.stop() {
                self.status = stop;
            }
        }
        self.status != Status::Complete
    }

    fn hold(&mut self, bytes: usize) {
        self.live_bytes += bytes;
        self.peak_bytes = self.peak_bytes.max(self.live_bytes);
    }

    fn release(&mut self, bytes: usize) {
        self.live_bytes -= bytes;
    }

    /// Matches the limit still allows, of `available`.
    fn take(&mut self, available: usize) -> usize {
        match self.options.limit {
            Some(k) => {
                let left = u128::from(k).saturating_sub(self.count);
                if (available as u128) > left {
                    self.status = Status::Limit;
                }
                available.min(usize::try_from(left).unwrap_or(usize::MAX))
            }
            None => available,
        }
    }

    /// Bytes a run of `rows` rows with `entries` buffer entries needs at a step of `width`:
    /// the GBA and its new table, and per row its offset and count.
    fn need(width: usize, entries: usize, rows: usize) -> usize {
        entries
            .saturating_mul(4 * (width + 2))
            .saturating_add(16 * rows)
    }

    /// Answers a query from the first table's `rows` rows: a one-vertex query's are its
    /// matches (those of its share, where it is cut by rows).
    fn begin(&mut self, first: &B::Table, rows: usize) -> Result<()> {
        match (self.plan.width(), self.dealing) {
            (1, Dealing::Seeking) => {
                self.dealing = Dealing::Dealt { width: 1 };
                self.keep_share(1, first, 0..rows, Self::finish)
            }
            (1, _) => self.finish(first, rows),
            _ => self.start(first, rows),
        }
    }

    /// Joins the first table's `rows` rows through the remaining steps: a count without a
    /// limit first as far as the backend's small steps go.
    fn start(&mut self, first: &B::Table, rows: usize) -> Result<()> {
        if !self.count_only || self.options.limit.is_some() || self.dealing.before(1) {
            return self.extend(1, first, 0..rows);
        }
        let Some(small) = self.backend.join_small(1, first, rows, self.budget)? else {
            return self.extend(1, first, 0..rows);
        };
        self.small_steps = small.rows_in.len();
        let counted = matches!(small.end, SmallEnd::Counted(_));
        let suffix = self.suffix_counted_as();
        for (i, &rows_in) in small.rows_in.iter().enumerate() {
            let step = 1 + i;
            let path = &mut self.paths[step];
            if counted && i + 1 == small.rows_in.len() {
                path.counted_rows += rows_in;
                path.counted_as = Some(if step == self.plan.leaves.from {
                    suffix
                } else {
                    Counted::LastStep
                });
            } else {
                path.breadth_first_rows += rows_in;
            }
        }
        match small.end {
            SmallEnd::Counted(count) => {
                self.count = self.count.saturating_add(count);
                Ok(())
            }
            SmallEnd::Stopped {
                step,
                table: None,
                rows,
                ..
            } => self.extend(step, first, 0..rows),
            SmallEnd::Stopped {
                step,
                table: Some(table),
                rows,
                bytes,
            } => {
                self.hold(bytes);
                let result = self.extend(step, &table, 0..rows);
                self.release(bytes);
                result
            }
        }
    }

    /// A one-vertex query: its matches are C(u0).
    fn finish(&mut self, first: &B::Table, rows: usize) -> Result<()> {
        let take = self.take(rows);
        if !self.count_only {
            self.backend.emit_first(first, take, self.sink)?;
        }
        self.count += take as u128;
        Ok(())
    }

    /// Joins step `step` to `rows` of `table` (width `step`), then the steps after it: in a
    /// share cut by rows, as its dealing stands ([`Driver::extend_dealing`]).
    fn extend(&mut self, step: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        if rows.is_empty() || self.stopped() {
            return Ok(());
        }
        self.extend_dealing(step, table, rows)
    }

    /// [`Driver::extend`] over every row of `rows`.
    fn extend_rows(&mut self, step: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        if rows.is_empty() || self.stopped() {
            return Ok(());
        }
        let depth_first = !self.dealing.before(step)
            && self
                .depth_first_from()
                .is_some_and(|from| rows.len() >= from);
        let leaves = step == self.plan.leaves.from;
        let last = step + 1 == self.plan.width();
        let counted = leaves
            || if last {
                self.backend.counts_last_step()
            } else {
                depth_first
            };
        if self.count_only && counted {
            let suffix = self.suffix_counted_as();
            let path = &mut self.paths[step];
            path.counted_rows += rows.len() as u64;
            path.counted_as = Some(if leaves {
                suffix
            } else if last {
                Counted::LastStep
            } else {
                Counted::DepthFirst
            });
            let mut start = rows.start;
            while start < rows.end && !self.stopped() {
                let end = (start + COUNT_ROWS_PER_CALL).min(rows.end);
                // One past the limit tells a reached limit from an answer of exactly K.
                let enough = self
                    .options
                    .limit
                    .map(|k| u128::from(k).saturating_sub(self.count).saturating_add(1));
                let found = self
                    .backend
                    .count(step, table, start..end, enough, self.budget)?;
                self.count = self.count.saturating_add(found);
                // A backend that stopped early counted only part: say why.
                self.stopped();
                if let Some(k) = self.options.limit.filter(|&k| self.count > u128::from(k)) {
                    self.count = u128::from(k);
                    self.status = Status::Limit;
                }
                start = end;
            }
            return Ok(());
        }
        // Runs small enough that every offset fits the backend, whatever the rows' bounds.
        let per_run = (self.backend.max_run_entries() / self.backend.max_bound(step).max(1)).max(1);
        let mut start = rows.start;
        while start < rows.end && !self.stopped() {
            let end = start.saturating_add(per_run).min(rows.end);
            self.join_run(step, table, start..end)?;
            start = end;
        }
        Ok(())
    }

    /// How the rows at the leaf suffix's first step are counted: by their pairs or as
    /// products.
    fn suffix_counted_as(&self) -> Counted {
        match self.plan.leaves.pairs {
            Some(_) => Counted::Pairs,
            None => Counted::LeafProducts,
        }
    }

    /// From how many rows of a step a count goes depth-first: the options' threshold, else
    /// the backend's, when the backend can.
    fn depth_first_from(&self) -> Option<usize> {
        let engine = self.backend.depth_first_rows()?;
        Some(self.options.depth_first_rows.unwrap_or(engine))
    }

    /// Places the buffers of `rows`, then joins them in the longest runs that fit the budget.
    fn join_run(&mut self, step: usize, table: &B::Table, rows: Range<usize>) -> Result<()> {
        self.paths[step].breadth_first_rows += rows.len() as u64;
        let width = step;
        let budget_entries = self
            .step_budget
            .saturating_sub(16 * rows.len())
            .checked_div(4 * (width + 2))
            .unwrap_or(0);
        let layout = self
            .backend
            .layout(step, table, rows.clone(), budget_entries)?;
        self.hold(layout.bytes());
        let result = self.join_fitting(step, table, rows, &layout);
        self.release(layout.bytes());
        result
    }

    fn join_fitting(
        &mut self,
        step: usize,
        table: &B::Table,
        rows: Range<usize>,
        layout: &B::Layout,
    ) -> Result<()> {
        let width = step;
        let budget = self.step_budget;
        let fits = |from: usize, to: usize| -> Result<bool> {
            let entries = layout.entries(from..to)?;
            Ok(Self::need(width, entries, to - from) <= budget)
        };
        let mut start = rows.start;
        while start < rows.end && !self.stopped() {
            // The longest run from `start` that fits (entries grow with the run), at least one.
            let end = if fits(start, rows.end)? {
                rows.end
            } else if self.run_rows[step] < rows.end - start
                && fits(start, start + self.run_rows[step])?
            {
                start + self.run_rows[step]
            } else {
                let (mut low, mut high) = (start + 1, rows.end);
                while low < high {
                    let mid = low + (high - low).div_ceil(2);
                    if fits(start, mid)? {
                        low = mid;
                    } else {
                        high = mid - 1;
                    }
                }
                low
            };
            let end = end.min(start.saturating_add(self.run_rows[step]));
            if end == start + 1 && !fits(start, end)? && self.backend.windows() {
                // One row alone is over the budget: take its list a window at a time.
                let bound = layout.entries(start..end)?;
                let per_window = (self.step_budget.saturating_sub(16) / (4 * (width + 2))).max(1);
                let mut from = 0;
                while from < bound && !self.stopped() {
                    let to = (from + per_window).min(bound);
                    self.join_chunk(step, table, start..end, layout, Some(from..to))?;
                    from = to;
                }
            } else {
                self.join_chunk(step, table, start..end, layout, None)?;
            }
            start = end;
        }
        Ok(())
    }

    /// Fills the buffers of `rows` (a `window` of one row's list), then links them into the
    /// next table and goes on, or emits them at the last step.
    fn join_chunk(
        &mut self,
        step: usize,
        table: &B::Table,
        rows: Range<usize>,
        layout: &B::Layout,
        window: Option<Range<usize>>,
    ) -> Result<()> {
        let started = Instant::now();
        let filled = self
            .backend
            .fill(step, table, rows.clone(), layout, window)?;
        let filled_bytes = filled.bytes();
        self.hold(filled_bytes);
        if self.stopped() {
            self.release(filled_bytes);
            return Ok(());
        }
        if step + 1 < self.plan.width() {
            return self.link(step, table, rows, layout, filled, started);
        }
        let take = self.take(filled.new_rows());
        if self.count_only {
            // A backend that cannot count the last step as it goes: its buffers are the count.
            self.release(filled_bytes);
            self.count = self.count.saturating_add(take as u128);
            self.pace(step, rows.len(), started.elapsed());
            return Ok(());
        }
        let run = rows.len();
        let result = self
            .backend
            .emit(step, table, rows, layout, &filled, take, self.sink);
        self.release(filled_bytes);
        self.pace(step, run, started.elapsed());
        self.count = self
            .count
            .saturating_add(*result.as_ref().unwrap_or(&0) as u128);
        if result.as_ref().is_ok_and(|&emitted| emitted < take) {
            // Cut short: say why.
            self.stopped();
        }
        result.map(drop)
    }

    /// Sizes the next run of a paced `step` from how long this one of `rows` rows `took`.
    fn pace(&mut self, step: usize, rows: usize, took: Duration) {
        if !self.paced {
            return;
        }
        let run = &mut self.run_rows[step];
        if took < PACE && rows >= *run {
            *run = run.saturating_mul(2);
        } else if took > 4 * PACE {
            *run = (*run / 2).max(1);
        }
    }

    /// The new table of `rows` (whose run began at `started`), then the next step over it.
    fn link(
        &mut self,
        step: usize,
        table: &B::Table,
        rows: Range<usize>,
        layout: &B::Layout,
        filled: B::Filled,
        started: Instant,
    ) -> Result<()> {
        let new_rows = filled.new_rows();
        let run = rows.len();
        let next = self.backend.link(step, table, rows, layout, &filled)?;
        self.pace(step, run, started.elapsed());
        let next_bytes = 4 * new_rows * (step + 1);
        self.hold(next_bytes);
        // The buffers are spent once linked.
        self.release(filled.bytes());
        drop(filled);
        let result = self.extend(step + 1, &next, 0..new_rows);
        self.release(next_bytes);
        result
    }
}

/// Keeps the elements of sorted `buf` that are also in sorted `other`; returns how many,
/// moved to the front. Uses binary search when `other` is much longer (the paper notes the
/// same choice between merge and binary search, Sec. 8.3).
pub fn intersect_in_place(buf: &mut [VertexId], other: &[VertexId]) -> usize {
    let mut kept = 0;
    if other.len() > 16 * buf.len() {
        let mut low = 0;
        for i in 0..buf.len() {
            let x = buf[i];
            low += other[low..].partition_point(|&y| y < x);
            if low < other.len() && other[low] == x {
                buf[kept] = x;
                kept += 1;
            }
        }
    } else {
        let mut j = 0;
        for i in 0..buf.len() {
            let x = buf[i];
            while j < other.len() && other[j] < x {
                j += 1;
            }
            if j < other.len() && other[j] == x {
                buf[kept] = x;
                kept += 1;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::intersect_in_place;

    #[test]
    fn intersection_keeps_common_sorted_elements() {
        let mut buf = vec![1, 3, 5, 7, 9];
        let n = intersect_in_place(&mut buf, &[2, 3, 4, 7, 10]);
        assert_eq!(&buf[..n], &[3, 7]);
        let mut buf = vec![5, 500];
        let long: Vec<u32> = (0..1000).collect();
        let n = intersect_in_place(&mut buf, &long);
        assert_eq!(&buf[..n], &[5, 500]);
        let mut buf = vec![1000, 2000];
        assert_eq!(intersect_in_place(&mut buf, &long), 0);
    }
}
