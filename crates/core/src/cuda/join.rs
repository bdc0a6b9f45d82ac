//! The joining phase on the GPU (host side of `join.cu`): Prealloc-Combine, Algorithms 3 and 4,
//! step by step, with the same chunking as the CPU engine so that device memory stays within
//! the budget: a step whose buffers and new table would not fit is split by rows, and each
//! part runs through all remaining steps before the next (depth-first).

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};

use super::device::{gpu_error, Device};
use super::filter::DeviceCandidates;
use super::index::{DevicePcsr, Link};
use super::launch::{per_element, warp_per_row};
use super::scan::exclusive_scan;
use crate::engine::{JoinOutcome, MatchOptions, MatchSink, Semantics, Status};
use crate::plan::Plan;
use crate::Result;

/// A null device pointer, for the kernel arguments a mode does not use.
const NULL: u64 = 0;
/// Largest buffer (in u32 entries) one part may pre-allocate: keeps every offset in u32.
const MAX_PART_ENTRIES: usize = 1 << 31;
/// Rows counted per launch at a count-only last step, so that the deadline is checked often.
const COUNT_ROWS_PER_LAUNCH: usize = 1 << 22;

/// Where each row's buffer lies in the GBA.
enum Buffers {
    /// At Algorithm 4's prefix sum of the rows' bounds.
    Offsets(CudaSlice<u32>),
    /// Every row gets the step's largest bound: row r's buffer starts at r times it.
    Uniform(usize),
}

impl Buffers {
    fn stride(&self) -> u32 {
        match self {
            Buffers::Offsets(_) => 0,
            Buffers::Uniform(stride) => *stride as u32,
        }
    }
}

/// What one step needs on the device.
struct StepLinks {
    /// Where this step's linking edges (the first edge first) start in `GpuJoin::links`.
    links_from: usize,
    count: u32,
    has_first: bool,
    first: Link,
    /// The largest possible buffer of one row.
    max_bound: usize,
}

pub(crate) struct GpuJoin<'a> {
    device: &'a Device,
    pcsr: &'a DevicePcsr,
    plan: &'a Plan,
    candidates: &'a DeviceCandidates,
    options: &'a MatchOptions,
    sink: &'a mut dyn MatchSink,
    steps: Vec<StepLinks>,
    /// Every step's linking edges, one after another (one copy to the device per query).
    links: CudaSlice<Link>,
    order: CudaSlice<u32>,
    step_budget: usize,
    count: u64,
    status: Status,
    live_bytes: usize,
    peak_bytes: usize,
}

pub(crate) fn run(
    device: &Device,
    pcsr: &DevicePcsr,
    plan: &Plan,
    candidates: &DeviceCandidates,
    options: &MatchOptions,
    budget: usize,
    sink: &mut dyn MatchSink,
) -> Result<JoinOutcome> {
    let width = plan.width();
    let sizes = candidates.sizes();
    let mut steps = Vec::with_capacity(width);
    let mut links = Vec::new();
    for step in &plan.steps {
        let links_from = links.len();
        links.extend(
            step.links()
                .map(|e| pcsr.link(e.column, e.label, e.direction)),
        );
        let max_bound = match step.first {
            Some(e) => pcsr.max_degree(e.label, e.direction),
            None => sizes[step.vertex],
        };
        steps.push(StepLinks {
            links_from,
            count: (links.len() - links_from) as u32,
            has_first: step.first.is_some(),
            first: links.get(links_from).copied().unwrap_or_default(),
            max_bound,
        });
    }
    let links = device.upload(&links, "the join plan")?;
    let mut order = vec![0u32; width];
    for (column, step) in plan.steps.iter().enumerate() {
        order[column] = step.vertex as u32;
    }
    let order = device.upload(&order, "the join order")?;
    let mut join = GpuJoin {
        device,
        pcsr,
        plan,
        candidates,
        options,
        sink,
        steps,
        links,
        order,
        step_budget: budget / width.max(1),
        count: 0,
        status: Status::Complete,
        live_bytes: 0,
        peak_bytes: 0,
    };
    if width > 0 && sizes.iter().all(|&s| s > 0) {
        // Step 0 joins nothing: its table is C(u0) itself (Algorithm 2, line 8).
        let range = candidates.range(plan.steps[0].vertex);
        let rows = range.len();
        let start = candidates.lists.slice(range);
        if width == 1 {
            join.finish(&start, rows)?;
        } else {
            join.extend(1, &start, rows)?;
        }
    }
    Ok(JoinOutcome {
        count: join.count,
        status: join.status,
        peak_bytes: join.peak_bytes,
    })
}

impl GpuJoin<'_> {
    fn stopped(&mut self) -> bool {
        if self.status == Status::Complete {
            if let Some(stop) = self.options.stop() {
                self.status = stop;
            }
        }
        self.status != Status::Complete
    }

    fn track(&mut self, bytes: usize) {
        self.live_bytes += bytes;
        self.peak_bytes = self.peak_bytes.max(self.live_bytes);
    }

    /// Joins step `step` to `table` (`rows` rows of width `step`), then the steps after it.
    fn extend(&mut self, step: usize, table: &CudaView<'_, u32>, rows: usize) -> Result<()> {
        if rows == 0 || self.stopped() {
            return Ok(());
        }
        let width = step;
        if step + 1 == self.plan.width() && !self.sink.wants_matches() {
            let mut start = 0;
            while start < rows && !self.stopped() {
                let end = (start + COUNT_ROWS_PER_LAUNCH).min(rows);
                self.count_last(step, &table.slice(start * width..end * width), end - start)?;
                start = end;
            }
            return Ok(());
        }
        // Parts small enough that every offset fits in u32, whatever the rows' bounds.
        let rows_per_part = (MAX_PART_ENTRIES / self.steps[step].max_bound.max(1)).max(1);
        let mut start = 0;
        while start < rows && !self.stopped() {
            let end = (start + rows_per_part).min(rows);
            self.join_part(step, &table.slice(start * width..end * width), end - start)?;
            start = end;
        }
        Ok(())
    }

    /// Algorithm 4 for `rows` rows; halves the rows until the step's buffers fit the budget.
    fn join_part(&mut self, step: usize, table: &CudaView<'_, u32>, rows: usize) -> Result<()> {
        if self.stopped() {
            return Ok(());
        }
        let width = step;
        let need = |entries: usize| 4 * entries * (width + 2) + 16 * rows;
        // When every row can have the largest buffer, skip the bounds pass and its prefix sum.
        let uniform = rows * self.steps[step].max_bound;
        if need(uniform) <= self.step_budget {
            return self.join_chunk(
                step,
                table,
                rows,
                Buffers::Uniform(self.steps[step].max_bound),
                uniform,
            );
        }
        let (offsets, total) = self.bounds(step, table, rows)?;
        if need(total as usize) > self.step_budget && rows > 1 {
            drop(offsets);
            let half = rows / 2;
            self.join_part(step, &table.slice(0..half * width), half)?;
            return self.join_part(step, &table.slice(half * width..rows * width), rows - half);
        }
        self.join_chunk(step, table, rows, Buffers::Offsets(offsets), total as usize)
    }

    /// Buffer bounds of each row and their exclusive prefix sum F (Algorithm 4).
    fn bounds(
        &mut self,
        step: usize,
        table: &CudaView<'_, u32>,
        rows: usize,
    ) -> Result<(CudaSlice<u32>, u32)> {
        let s = &self.steps[step];
        let mut bounds = self.device.alloc(rows, "buffer bounds")?;
        let (rows32, width32, has_first) = (rows as u32, step as u32, u32::from(s.has_first));
        let candidate_count = self.candidates.range(self.plan.steps[step].vertex).len() as u32;
        // SAFETY: gsi_join_bounds(table[rows*width], rows, width, groups, first, has_first,
        // candidate_count, bounds[rows]); warp per row.
        unsafe {
            self.device
                .stream
                .launch_builder(self.device.kernels.get("gsi_join_bounds"))
                .arg(table)
                .arg(&rows32)
                .arg(&width32)
                .arg(&self.pcsr.groups)
                .arg(&s.first)
                .arg(&has_first)
                .arg(&candidate_count)
                .arg(&mut bounds)
                .launch(warp_per_row(rows32))
        }
        .map_err(gpu_error("launching gsi_join_bounds"))?;
        exclusive_scan(self.device, &bounds.slice(0..rows), rows)
    }

    /// Launches gsi_join_rows: with `gba`, fills each row's buffer and count; without, adds
    /// the rows' match counts to `total`.
    #[allow(clippy::too_many_arguments)]
    fn launch_rows(
        &self,
        step: usize,
        table: &CudaView<'_, u32>,
        rows: usize,
        buffers: Option<&Buffers>,
        gba: Option<&mut CudaSlice<u32>>,
        counts: Option<&mut CudaSlice<u32>>,
        total: Option<&mut CudaSlice<u64>>,
    ) -> Result<()> {
        let s = &self.steps[step];
        let step_links = self
            .links
            .slice(s.links_from..s.links_from + s.count as usize);
        let u = self.plan.steps[step].vertex;
        // Every C(u) is non-empty here: a query with an empty one never reaches the join.
        let range = self.candidates.range(u);
        let candidate_count = range.len() as u32;
        let list = self.candidates.lists.slice(range);
        let words = self.candidates.words;
        let bits = self.candidates.bits.slice(u * words..(u + 1) * words);
        let injective = u32::from(self.options.semantics == Semantics::Isomorphism);
        let (rows32, width32, has_first) = (rows as u32, step as u32, u32::from(s.has_first));
        let device = self.device;
        let mut launch = device
            .stream
            .launch_builder(device.kernels.get("gsi_join_rows"));
        launch
            .arg(table)
            .arg(&rows32)
            .arg(&width32)
            .arg(&self.pcsr.groups)
            .arg(&self.pcsr.column_index)
            .arg(&step_links)
            .arg(&s.count)
            .arg(&has_first)
            .arg(&list)
            .arg(&candidate_count)
            .arg(&bits)
            .arg(&injective);
        let stride = buffers.map_or(0, Buffers::stride);
        match buffers {
            Some(Buffers::Offsets(o)) => launch.arg(o),
            _ => launch.arg(&NULL),
        };
        launch.arg(&stride);
        match gba {
            Some(g) => launch.arg(g),
            None => launch.arg(&NULL),
        };
        match counts {
            Some(c) => launch.arg(c),
            None => launch.arg(&NULL),
        };
        match total {
            Some(t) => launch.arg(t),
            None => launch.arg(&NULL),
        };
        // SAFETY: gsi_join_rows(table[rows*width], rows, width, groups, ci, links[count],
        // count, has_first, candidate_list[|C(u)|], |C(u)|, candidate_bits[words], injective,
        // offsets[rows + 1] | null, stride, gba[F[rows]] | null, counts[rows] | null,
        // total[1] | null): either gba and counts or total are null; offsets is null when the
        // buffers are uniform (stride) or absent. Warp per row.
        unsafe { launch.launch(warp_per_row(rows32)) }
            .map_err(gpu_error("launching gsi_join_rows"))?;
        Ok(())
    }

    /// The last step when only the count is wanted: no GBA, no new table.
    fn count_last(&mut self, step: usize, table: &CudaView<'_, u32>, rows: usize) -> Result<()> {
        let mut total = self
            .device
            .stream
            .alloc_zeros::<u64>(1)
            .map_err(gpu_error("allocating the match counter"))?;
        self.launch_rows(step, table, rows, None, None, None, Some(&mut total))?;
        let found = self
            .device
            .stream
            .clone_dtoh(&total)
            .map_err(gpu_error("reading the match count"))?[0];
        self.count += found;
        if let Some(k) = self.options.limit.filter(|&k| self.count > k) {
            self.count = k;
            self.status = Status::Limit;
        }
        Ok(())
    }

    /// Algorithm 3 for one part: buffers, counts, the new table, then the next step.
    fn join_chunk(
        &mut self,
        step: usize,
        table: &CudaView<'_, u32>,
        rows: usize,
        buffers: Buffers,
        total: usize,
    ) -> Result<()> {
        let width = step;
        let mut gba = self.device.alloc(total, "the buffers (GBA)")?;
        let mut counts = self.device.alloc(rows, "row counts")?;
        let gba_bytes = 4 * total + 8 * rows;
        self.track(gba_bytes);
        self.launch_rows(
            step,
            table,
            rows,
            Some(&buffers),
            Some(&mut gba),
            Some(&mut counts),
            None,
        )?;
        let (new_offsets, new_rows) = exclusive_scan(self.device, &counts.slice(0..rows), rows)?;
        let new_rows = new_rows as usize;
        let new_width = width + 1;
        let mut next = self.device.alloc(new_rows * new_width, "the new table")?;
        let next_bytes = 4 * new_rows * new_width;
        self.track(next_bytes);
        let (rows32, width32) = (rows as u32, width as u32);
        let stride = buffers.stride();
        let mut launch = self
            .device
            .stream
            .launch_builder(self.device.kernels.get("gsi_join_link"));
        launch.arg(table).arg(&rows32).arg(&width32);
        match &buffers {
            Buffers::Offsets(o) => launch.arg(o),
            Buffers::Uniform(_) => launch.arg(&NULL),
        };
        // SAFETY: gsi_join_link(table[rows*width], rows, width, offsets[rows + 1] | null,
        // stride, gba, counts[rows], new_offsets[rows + 1], next[new_rows*(width + 1)]);
        // warp per row.
        unsafe {
            launch
                .arg(&stride)
                .arg(&gba)
                .arg(&counts)
                .arg(&new_offsets)
                .arg(&mut next)
                .launch(warp_per_row(rows32))
        }
        .map_err(gpu_error("launching gsi_join_link"))?;
        drop((gba, counts, buffers, new_offsets));
        self.live_bytes -= gba_bytes;
        let result = if step + 1 == self.plan.width() {
            self.emit(&next, new_rows)
        } else {
            self.extend(
                step + 1,
                &next.slice(0..(new_rows * new_width).max(1)),
                new_rows,
            )
        };
        self.live_bytes -= next_bytes;
        result
    }

    /// A one-vertex query: its matches are C(u0).
    fn finish(&mut self, candidates: &CudaView<'_, u32>, len: usize) -> Result<()> {
        let take = self.options.limit.map_or(len, |k| len.min(k as usize));
        if take < len {
            self.status = Status::Limit;
        }
        self.count = take as u64;
        if self.sink.wants_matches() {
            let host = self
                .device
                .stream
                .clone_dtoh(&candidates.slice(0..take))
                .map_err(gpu_error("reading the matches"))?;
            self.sink.matches(&host, 1)?;
        }
        Ok(())
    }

    /// The final table: permuted into query-vertex order on the device, copied out, handed to
    /// the sink up to the limit.
    fn emit(&mut self, table: &CudaSlice<u32>, rows: usize) -> Result<()> {
        if rows == 0 {
            return Ok(());
        }
        let width = self.plan.width();
        let take = match self.options.limit {
            Some(k) => rows.min(k.saturating_sub(self.count) as usize),
            None => rows,
        };
        let mut permuted = self.device.alloc(rows * width, "the matches")?;
        let (rows32, width32) = (rows as u32, width as u32);
        // SAFETY: gsi_join_permute(table[rows*width], rows, width, order[width],
        // out[rows*width]); thread per entry.
        unsafe {
            self.device
                .stream
                .launch_builder(self.device.kernels.get("gsi_join_permute"))
                .arg(table)
                .arg(&rows32)
                .arg(&width32)
                .arg(&self.order)
                .arg(&mut permuted)
                .launch(per_element((rows * width) as u64))
        }
        .map_err(gpu_error("launching gsi_join_permute"))?;
        let host = self
            .device
            .read(&permuted, 0, take * width, "the matches")?;
        self.sink.matches(&host, width)?;
        self.count += take as u64;
        if take < rows {
            self.status = Status::Limit;
        }
        Ok(())
    }
}
