//! The Prealloc-Combine join on the CPU: GSI, ICDE 2020, Algorithms 3 and 4.
//!
//! Each step joins one query vertex u to the intermediate table M:
//! 1. (Alg. 4) for every row, the bound |N(v', l0)| of the first edge e0; an exclusive prefix
//!    sum gives each row's buffer in one combined array GBA;
//! 2. (Alg. 3, lines 9-10) the first edge fills the buffer with N(v', l0) minus the row's
//!    vertices (skipped under homomorphism), keeping only members of C(u) (a bitset read);
//! 3. (line 12) every further linking edge intersects the buffer with N(v'', l) in place;
//! 4. (lines 13-19) a second prefix sum over the buffer counts lays out the new table M'.
//!
//! Rows are processed in parallel. The first table is C(u0) itself. Memory stays bounded:
//! each step may hold at most `memory_budget / |V(Q)|` bytes of GBA and new table, so when a
//! step would need more, its rows are split into chunks and each chunk runs through all
//! remaining steps before the next (depth-first), keeping one live table per step; a single
//! row over the budget is taken a window of its first-edge list at a time. The join thus holds
//! at most the budget, or |V(Q)| × (|V(Q)| + 2) × 4 bytes when the budget is smaller still.
//! When only the count is wanted, the last step counts per row and writes no table (each
//! thread keeps one scratch list there, at most the longest first-edge list).

use std::sync::atomic::{AtomicBool, Ordering};

use gsi_graph::VertexId;
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::engine::{JoinOutcome, MatchOptions, MatchSink, Semantics, Status};
use crate::index::DataIndex;
use crate::plan::{JoinStep, Plan};
use crate::Result;

/// Matches handed to the sink at once.
const EMIT_BATCH_ROWS: usize = 1 << 14;
/// Fewest rows worth spreading over threads: below this a hand-off to the pool costs more than
/// the rows' work (measured on hprd 8-vertex queries).
const PARALLEL_MIN_ROWS: usize = 256;
/// Rows between two looks at the clock inside a parallel loop.
const DEADLINE_CHECK_ROWS: usize = 16;

pub(crate) fn run(
    plan: &Plan,
    candidates: &CandidateSets,
    data: &DataIndex,
    options: &MatchOptions,
    sink: &mut dyn MatchSink,
) -> Result<JoinOutcome> {
    let width = plan.width();
    let mut join = Join {
        ctx: Context {
            plan,
            candidates,
            data,
            options,
        },
        count_only: !sink.wants_matches(),
        sink,
        order: plan.order(),
        step_budget: options.memory_budget / width.max(1),
        count: 0,
        status: Status::Complete,
        live_bytes: 0,
        peak_bytes: 0,
        batch: Vec::new(),
    };
    if width > 0 && !candidates.any_empty() {
        // Step 0 joins nothing: its table is C(u0) itself (Algorithm 2, line 8).
        let start = candidates.list(plan.steps[0].vertex);
        if width == 1 {
            join.finish(start)?;
        } else {
            join.extend(1, start, start.len())?;
        }
    }
    join.flush()?;
    Ok(JoinOutcome {
        count: join.count,
        status: join.status,
        peak_bytes: join.peak_bytes,
    })
}

/// What every row of a step reads: shared by the parallel workers.
#[derive(Clone, Copy)]
struct Context<'a> {
    plan: &'a Plan,
    candidates: &'a CandidateSets,
    data: &'a DataIndex,
    options: &'a MatchOptions,
}

/// The join's own state: the sink and what it has found so far.
struct Join<'a> {
    ctx: Context<'a>,
    sink: &'a mut dyn MatchSink,
    count_only: bool,
    order: Vec<usize>,
    step_budget: usize,
    count: u64,
    status: Status,
    live_bytes: usize,
    peak_bytes: usize,
    batch: Vec<VertexId>,
}

impl Context<'_> {
    /// Whether row `i` of a parallel loop should stop: looks at the clock every
    /// `DEADLINE_CHECK_ROWS` rows and tells every worker through `timed_out`.
    fn out_of_time(&self, i: usize, timed_out: &AtomicBool) -> bool {
        if i.is_multiple_of(DEADLINE_CHECK_ROWS) && self.options.stop().is_some() {
            timed_out.store(true, Ordering::Relaxed);
        }
        timed_out.load(Ordering::Relaxed)
    }

    /// The list the first edge reads for `row`: N(v', l0), or C(u) when u has no linking edge.
    fn source(&self, st: &JoinStep, row: &[VertexId]) -> &[VertexId] {
        match st.first {
            Some(e) => self
                .data
                .pcsr()
                .neighbors(row[e.column], e.label, e.direction),
            None => self.candidates.list(st.vertex),
        }
    }

    /// Algorithm 3 for one row: fills `buf` with the row's extensions drawn from `source` (the
    /// row's first-edge list, or a window of it) and returns how many.
    fn fill(
        &self,
        st: &JoinStep,
        row: &[VertexId],
        source: &[VertexId],
        buf: &mut [VertexId],
    ) -> usize {
        let injective = self.options.semantics == Semantics::Isomorphism;
        let mut n = 0;
        // Lines 9-10: subtraction and candidate-bitset intersection, fused.
        for &x in source {
            if self.candidates.contains(st.vertex, x) && !(injective && row.contains(&x)) {
                buf[n] = x;
                n += 1;
            }
        }
        // Line 12: the other linking edges.
        for e in &st.others {
            if n == 0 {
                break;
            }
            let other = self
                .data
                .pcsr()
                .neighbors(row[e.column], e.label, e.direction);
            n = intersect_in_place(&mut buf[..n], other);
        }
        n
    }
}

impl Join<'_> {
    fn stopped(&mut self) -> bool {
        if self.status == Status::Complete {
            if let Some(stop) = self.ctx.options.stop() {
                self.status = stop;
            }
        }
        self.status != Status::Complete
    }

    fn allocate(&mut self, bytes: usize) {
        self.live_bytes += bytes;
        self.peak_bytes = self.peak_bytes.max(self.live_bytes);
    }

    /// Joins step `step` to `table` (`rows` rows of width `step`), then the steps after it.
    fn extend(&mut self, step: usize, table: &[VertexId], rows: usize) -> Result<()> {
        if rows == 0 || self.stopped() {
            return Ok(());
        }
        let ctx = self.ctx;
        let st = &ctx.plan.steps[step];
        let last = step + 1 == self.ctx.plan.width();
        let width = step;
        let row = |i: usize| &table[i * width..(i + 1) * width];
        if last && self.count_only {
            return self.count_last(st, table, rows);
        }
        // Algorithm 4: the bound of each row's buffer.
        let bound = |i: usize| ctx.source(st, row(i)).len();
        let bounds: Vec<usize> = if rows < PARALLEL_MIN_ROWS {
            (0..rows).map(bound).collect()
        } else {
            (0..rows).into_par_iter().map(bound).collect()
        };
        let row_bytes = |b: usize| 4 * b * (width + 2) + 16;
        let mut start = 0;
        while start < rows && !self.stopped() {
            let mut end = start;
            let mut bytes = 0;
            while end < rows && (end == start || bytes + row_bytes(bounds[end]) <= self.step_budget)
            {
                bytes += row_bytes(bounds[end]);
                end += 1;
            }
            let table = &table[start * width..end * width];
            if bytes <= self.step_budget || end > start + 1 {
                self.join_chunk(step, table, &bounds[start..end], None)?;
            } else {
                // One row alone is over the budget: take its list a window at a time.
                let per_window = (self.step_budget.saturating_sub(16) / (4 * (width + 2))).max(1);
                let mut from = 0;
                while from < bounds[start] && !self.stopped() {
                    let to = (from + per_window).min(bounds[start]);
                    self.join_chunk(step, table, &[to - from], Some(from..to))?;
                    from = to;
                }
            }
            start = end;
        }
        Ok(())
    }

    /// Joins the rows of `table`, whose bounds are `bounds`; `window` restricts a single row to
    /// part of its first-edge list.
    fn join_chunk(
        &mut self,
        step: usize,
        table: &[VertexId],
        bounds: &[usize],
        window: Option<std::ops::Range<usize>>,
    ) -> Result<()> {
        let ctx = self.ctx;
        let st = &ctx.plan.steps[step];
        let width = step;
        let rows = bounds.len();
        // GBA: one buffer per row at the prefix-sum offset.
        let total: usize = bounds.iter().sum();
        let mut gba = vec![0 as VertexId; total];
        self.allocate(4 * total + 16 * rows);
        let mut buffers = Vec::with_capacity(rows);
        let mut rest = gba.as_mut_slice();
        for &b in bounds {
            let (head, tail) = rest.split_at_mut(b);
            buffers.push(head);
            rest = tail;
        }
        let timed_out = AtomicBool::new(false);
        let fill = |(i, buf): (usize, &mut [VertexId])| {
            if ctx.out_of_time(i, &timed_out) {
                return 0;
            }
            let row = &table[i * width..(i + 1) * width];
            let source = ctx.source(st, row);
            let source = window.clone().map_or(source, |w| &source[w]);
            ctx.fill(st, row, source, buf)
        };
        let counts: Vec<usize> = if rows < PARALLEL_MIN_ROWS {
            buffers.into_iter().enumerate().map(fill).collect()
        } else {
            buffers.into_par_iter().enumerate().map(fill).collect()
        };
        if timed_out.into_inner() {
            self.status = self.ctx.options.stop().unwrap_or(Status::Timeout);
        }
        let result = if self.status != Status::Complete {
            Ok(())
        } else if step + 1 == self.ctx.plan.width() {
            self.emit(table, width, bounds, &gba, &counts)
        } else {
            self.link(step, table, bounds, &gba, &counts)
        };
        self.live_bytes -= 4 * total + 16 * rows;
        result
    }

    /// Lines 13-19: the second prefix sum and the new table M', then the next step.
    fn link(
        &mut self,
        step: usize,
        table: &[VertexId],
        bounds: &[usize],
        gba: &[VertexId],
        counts: &[usize],
    ) -> Result<()> {
        let width = step;
        let new_width = width + 1;
        let new_rows: usize = counts.iter().sum();
        let mut next = vec![0 as VertexId; new_rows * new_width];
        self.allocate(4 * next.len());
        let mut pieces = Vec::with_capacity(counts.len());
        let mut rest = next.as_mut_slice();
        let mut offset = 0;
        for (i, &c) in counts.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(c * new_width);
            pieces.push((i, offset, head));
            rest = tail;
            offset += bounds[i];
        }
        let copy = |(i, at, out): (usize, usize, &mut [VertexId])| {
            let row = &table[i * width..(i + 1) * width];
            for (k, slot) in out.chunks_exact_mut(new_width).enumerate() {
                slot[..width].copy_from_slice(row);
                slot[width] = gba[at + k];
            }
        };
        if counts.len() < PARALLEL_MIN_ROWS {
            pieces.into_iter().for_each(copy);
        } else {
            pieces.into_par_iter().for_each(copy);
        }
        let result = self.extend(step + 1, &next, new_rows);
        self.live_bytes -= 4 * next.len();
        result
    }

    /// The last step when matches are wanted: hand every row, in query-vertex order, to the sink.
    fn emit(
        &mut self,
        table: &[VertexId],
        width: usize,
        bounds: &[usize],
        gba: &[VertexId],
        counts: &[usize],
    ) -> Result<()> {
        let full = width + 1;
        let mut at = 0;
        for (i, &c) in counts.iter().enumerate() {
            let row = &table[i * width..(i + 1) * width];
            for &x in &gba[at..at + c] {
                if self.limit_reached() {
                    return Ok(());
                }
                let base = self.batch.len();
                self.batch.resize(base + full, 0);
                for (column, &v) in row.iter().chain(std::iter::once(&x)).enumerate() {
                    self.batch[base + self.order[column]] = v;
                }
                self.count += 1;
                if self.batch.len() >= EMIT_BATCH_ROWS * full {
                    self.flush()?;
                }
            }
            at += bounds[i];
        }
        Ok(())
    }

    /// A one-vertex query: its matches are C(u0).
    fn finish(&mut self, candidates: &[VertexId]) -> Result<()> {
        if self.count_only {
            self.count = candidates.len() as u64;
            if let Some(k) = self.ctx.options.limit.filter(|&k| self.count > k) {
                self.count = k;
                self.status = Status::Limit;
            }
            return Ok(());
        }
        for &v in candidates {
            if self.limit_reached() {
                break;
            }
            self.batch.push(v);
            self.count += 1;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.batch.is_empty() {
            self.sink.matches(&self.batch, self.ctx.plan.width())?;
            self.batch.clear();
        }
        Ok(())
    }

    fn limit_reached(&mut self) -> bool {
        let reached = self.ctx.options.limit.is_some_and(|k| self.count >= k);
        if reached {
            self.status = Status::Limit;
        }
        reached
    }

    /// The last step when only the count is wanted: no GBA, no table.
    fn count_last(&mut self, st: &JoinStep, table: &[VertexId], rows: usize) -> Result<()> {
        let ctx = self.ctx;
        let width = ctx.plan.width() - 1;
        let timed_out = AtomicBool::new(false);
        let count = |scratch: &mut Vec<VertexId>, i: usize| {
            if ctx.out_of_time(i, &timed_out) {
                return 0;
            }
            let row = &table[i * width..(i + 1) * width];
            let source = ctx.source(st, row);
            scratch.resize(source.len(), 0);
            ctx.fill(st, row, source, scratch) as u64
        };
        let found: u64 = if rows < PARALLEL_MIN_ROWS {
            let mut scratch = Vec::new();
            (0..rows).map(|i| count(&mut scratch, i)).sum()
        } else {
            (0..rows).into_par_iter().map_init(Vec::new, count).sum()
        };
        self.count += found;
        if let Some(k) = self.ctx.options.limit.filter(|&k| self.count > k) {
            self.count = k;
            self.status = Status::Limit;
        }
        if timed_out.into_inner() && self.status == Status::Complete {
            self.status = self.ctx.options.stop().unwrap_or(Status::Timeout);
        }
        Ok(())
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
