//! The GPU's side of the join driver (`crate::join`): tables and buffers in device memory.

use std::cell::OnceCell;
use std::ops::Range;

use cudarc::driver::{CudaSlice, CudaView};

use super::counter;
use super::dealt_rows::rows_held;
use super::device_plan::PlanOnDevice;
use super::kept_sets::{kept_sets, KeptSet};
use super::kernels::{
    join_bounds, join_link, join_permute, join_refilter, join_rows, join_small, leaf_counts,
    Balance, LeafSuffixArgs, LoneLeafCounts, PairSpace, Place, RowPaths, RowsOutput, SmallState,
    StepArgs, Tests,
};
use super::layout::{DepthStep, Link};
use super::tables::{DeviceFilled, DeviceLayout, DeviceTable};
use crate::cuda::buffers::Buffer;
use crate::cuda::candidates::DeviceCandidates;
use crate::cuda::device::Device;
use crate::cuda::index::DevicePcsr;
use crate::cuda::launch::{Keep, MAX_WIDTH, NARROW_MAX_WIDTH, NO_COUNTS, NO_POOL};
use crate::cuda::scan::exclusive_scan;
use crate::error::{driver, Result};
use crate::join::{JoinBackend, SmallEnd, SmallSteps};
use crate::options::{MatchOptions, Share, StepBalance};
use crate::plan::{LinkEdge, Plan};
use crate::sink::MatchSink;
use crate::tuning::GpuTuning;

/// Largest buffer (in u32 entries) one run may pre-allocate: keeps every offset in u32.
const MAX_RUN_ENTRIES: usize = 1 << 31;
/// Rows of a first run under a limit: a few warps' worth, one launch each step.
const FIRST_RUN_ROWS: usize = 256;
/// How long a depth-first launch takes new work when a limit is set.
pub(super) const LIMITED_SLICE: std::time::Duration = std::time::Duration::from_millis(2);
/// Tasks the depth-first pool holds (levels handed from warp to warp: at the end of a launch
/// every warp hands over each level with work left).
pub(super) const DEPTH_FIRST_TASKS: u32 = 1 << 17;
/// Words of each of the two tables of the small steps' launch (16 MiB each, less under a
/// small memory budget): a step whose new table would overflow it is left to the
/// breadth-first join.
const SMALL_BUFFER_WORDS: usize = 1 << 22;

/// Lists a row of a step with `links` linking edges draws its extensions from: the shortest
/// of them (as the kernels cut them to the order bounds), or the first edge's alone (the
/// paper's Algorithm 3, line 5) when the tuning says so. The kernels choose among 32 at most.
fn source_links(tuning: GpuTuning, links: u32) -> u32 {
    match tuning.shortest_source {
        true => links.clamp(1, 32),
        false => 1,
    }
}

/// What one step reads on the device.
struct StepLinks {
    /// Where this step's linking edges (the first edge first), then its absent edges, start
    /// in `GpuJoin::links`.
    links_from: usize,
    count: u32,
    absent: u32,
    has_first: bool,
    first: Link,
    /// The largest possible buffer of one row.
    max_bound: usize,
    /// Where this step's order bounds start in the plan's.
    order_bounds: Range<usize>,
}

/// The join's view of one query on the GPU.
pub(crate) struct GpuJoin<'a> {
    pub(super) device: &'a Device,
    pub(super) pcsr: &'a DevicePcsr,
    pub(super) plan: &'a Plan,
    pub(super) candidates: &'a DeviceCandidates,
    pub(super) injective: u32,
    steps: Vec<StepLinks>,
    /// The plan on the device.
    pub(super) on_device: PlanOnDevice,
    pub(super) options: &'a MatchOptions,
    pub(super) tuning: GpuTuning,
    /// The pool of Sec. 6.1's load balance, made when a step's lists can first be long
    /// enough (most queries never need it).
    balance: Option<Balance>,
    /// The lone leaves' counts, made at the first count of the leaf suffix.
    pub(super) lone_leaves: Option<LoneLeafCounts>,
    /// Slots of the depth-first count's kept sets per warp, and their buffer with the words
    /// of one slot, made at the first depth-first count.
    pub(super) kept_slots: usize,
    pub(super) kept_sets: Option<(Buffer<u32>, u32)>,
    /// The pair count's scratch space, made at its first count.
    pub(super) pair_space: Option<PairSpace>,
    /// Whether a count took the clique count ([`GpuJoin::counts_cliques`]).
    pub(super) counted_cliques: bool,
    /// Whether the matches are listed, so that rows cut into pieces keep their extensions
    /// in order (a count does not need it).
    listing: bool,
}

impl<'a> GpuJoin<'a> {
    /// Copies the plan's linking edges and order to the device.
    pub(crate) fn new(
        device: &'a Device,
        pcsr: &'a DevicePcsr,
        plan: &'a Plan,
        candidates: &'a DeviceCandidates,
        options: &'a MatchOptions,
        tuning: GpuTuning,
        listing: bool,
    ) -> Result<GpuJoin<'a>> {
        let sizes = candidates.sizes();
        let mut steps = Vec::with_capacity(plan.width());
        let mut links = Vec::new();
        let mut order_bounds_from = 0;
        for step in &plan.steps {
            // A list read where the step keeps its match above (below) the list's own vertex
            // holds every candidate among its neighbours above (below) that vertex.
            let link = |e: &LinkEdge| {
                let cut = tuning
                    .split_lists
                    .then(|| step.bound_to(e.column))
                    .flatten();
                pcsr.link(e.column, e.label, e.direction, cut)
            };
            let links_from = links.len();
            links.extend(step.links().map(link));
            let count = links.len() - links_from;
            links.extend(step.absent.iter().map(link));
            let max_bound = match step.first {
                Some(e) => pcsr.max_degree(e.label, e.direction),
                None => sizes[step.vertex],
            };
            steps.push(StepLinks {
                links_from,
                count: count as u32,
                absent: (links.len() - links_from - count) as u32,
                has_first: step.first.is_some(),
                first: links.get(links_from).copied().unwrap_or_default(),
                max_bound,
                order_bounds: order_bounds_from..order_bounds_from + step.order_bounds.len(),
            });
            order_bounds_from += step.order_bounds.len();
        }
        let step_links: Vec<&[Link]> = steps
            .iter()
            .map(|s| &links[s.links_from..s.links_from + s.count as usize])
            .collect();
        let (kept, kept_slots) = match tuning.kept_sets_up_to {
            Some(_) => kept_sets(&step_links, plan.leaves.from),
            None => (vec![KeptSet::NONE; steps.len()], 0),
        };
        let depth_steps: Vec<DepthStep> = plan
            .steps
            .iter()
            .zip(&steps)
            .zip(&kept)
            .map(|((step, s), kept)| DepthStep {
                vertex: step.vertex as u32,
                links_from: s.links_from as u32,
                link_count: s.count,
                absent_count: s.absent,
                has_first: u32::from(s.has_first),
                candidates_from: candidates.range(step.vertex).start as u32,
                candidate_count: sizes[step.vertex] as u32,
                order_bounds_from: s.order_bounds.start as u32,
                order_bound_count: s.order_bounds.len() as u32,
                max_bound: u32::try_from(s.max_bound).unwrap_or(u32::MAX),
                set_slot: kept.set_slot,
                parent_slot: kept.parent_slot,
                inherited: kept.inherited,
                source_links: source_links(tuning, s.count),
            })
            .collect();
        Ok(GpuJoin {
            balance: None,
            kept_slots,
            kept_sets: None,
            pair_space: None,
            counted_cliques: false,
            lone_leaves: None,
            listing,
            on_device: PlanOnDevice::upload(device, plan, &links, &depth_steps)?,
            options,
            tuning,
            device,
            pcsr,
            plan,
            candidates,
            injective: u32::from(options.semantics.injective()),
            steps,
        })
    }

    /// The counts of the leaf suffix's lone leaves of one link, when
    /// `tuning.leaf_counts_from` asks for them and there are any.
    pub(super) fn lone_leaf_counts(&self) -> Result<Option<LoneLeafCounts>> {
        let Some(from) = self.tuning.leaf_counts_from else {
            return Ok(None);
        };
        let groups = &self.plan.leaves.groups;
        let mut at = vec![NO_COUNTS; groups.len()];
        let mut lone = Vec::new();
        let mut total = 0;
        for (g, group) in groups.iter().enumerate() {
            let &[step] = group.steps.as_slice() else {
                continue;
            };
            let st = &self.plan.steps[step];
            let (Some(first), true) = (st.first, st.others.is_empty()) else {
                continue;
            };
            let linked = self.candidates.range(self.plan.steps[first.column].vertex);
            at[g] = total as u32;
            lone.push((step, linked.clone(), total..total + linked.len()));
            total += linked.len();
        }
        if lone.is_empty() {
            return Ok(None);
        }
        let mut counts = self.device.alloc(total, "the lone leaves' counts")?;
        let words = self.candidates.words;
        for (step, linked, into) in lone {
            let u = self.plan.steps[step].vertex;
            leaf_counts(
                self.device,
                self.pcsr,
                self.steps[step].first,
                &self.candidates.lists.slice(linked),
                &self.candidates.bits.slice(u * words..(u + 1) * words),
                &mut counts.slice_mut(into),
            )?;
        }
        Ok(Some(LoneLeafCounts {
            at: self.device.upload(&at, "the lone leaves' places")?,
            counts,
            lookup_from: u32::try_from(from).unwrap_or(u32::MAX),
        }))
    }

    /// `gsi_join_rows` (and `gsi_join_pieces`) over `rows` of `table` at `step`, with the
    /// load-balance pool when the step's lists can be long enough.
    fn rows_on_device(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: &Range<usize>,
        output: RowsOutput<'_>,
        tests: Tests,
    ) -> Result<()> {
        let mut balance = self.take_balance(step)?;
        let narrow = self.narrow_step(step);
        let paths = RowPaths {
            pool_from: self
                .tuning
                .block_pool_from
                .map_or(NO_POOL, |from| u32::try_from(from).unwrap_or(NO_POOL)),
            remove_duplicates: u32::from(self.tuning.duplicate_removal),
            write_cache: u32::from(self.tuning.write_cache),
            ordered_pieces: self.listing && !self.tuning.two_step_output,
        };
        let mut args = self.step_args(step, table, rows);
        if tests == Tests::FirstEdge {
            args.link_count = args.has_first;
            args.source_links = 1;
            args.absent_count = 0;
            args.injective = 0;
        }
        let result = join_rows(
            self.device,
            self.pcsr,
            &args,
            output,
            balance.as_mut(),
            narrow,
            &paths,
        );
        if balance.is_some() {
            self.balance = balance;
        }
        result
    }

    /// Whether rows of width `width` are joined through `steps` with eight lanes each: every
    /// list of those steps short (`tuning.narrow_rows_up_to`), and the row and each step's
    /// lists within what the narrow kernels keep.
    pub(super) fn narrow(&self, width: usize, steps: &Range<usize>) -> bool {
        let Some(up_to) = self.tuning.narrow_rows_up_to else {
            return false;
        };
        width <= NARROW_MAX_WIDTH
            && self.steps[steps.clone()]
                .iter()
                .all(|s| s.max_bound <= up_to && (s.count + s.absent) as usize <= NARROW_MAX_WIDTH)
    }

    /// The tests `gsi_join_rows` makes where it writes `step`'s buffers (and where the
    /// two-step scheme counts what it will write): the first edge's alone under naive set
    /// operations, and where the step has more edge tests than a warp keeps ranges of.
    fn buffer_tests(&self, step: usize) -> Tests {
        if self.tuning.naive_set_operations || !self.tests_fit(step) {
            Tests::FirstEdge
        } else {
            Tests::All
        }
    }

    /// Whether `step`'s edge tests (links, and an induced query's absent edges) fit the
    /// ranges a warp keeps in shared memory (`MAX_WIDTH` of them; only a plan wider than
    /// that can have more).
    fn tests_fit(&self, step: usize) -> bool {
        let s = &self.steps[step];
        (s.count + s.absent) as usize <= MAX_WIDTH
    }

    /// Whether the plan is wider than the standard build of the kernels takes: its rows are
    /// read where they lie in the table (the wide build), and the kernels that build rows in
    /// shared memory (depth-first, small steps) are not used.
    fn wide(&self) -> bool {
        self.plan.width() > MAX_WIDTH
    }

    /// Whether no row's leaf product can pass 2^64 − 1, so that the kernels may make it in 64
    /// bits: the product over the leaf suffix's steps of their longest extension set (the
    /// longest list of the first edge, at most C(u)) stays below. Where not, the products are
    /// made in 128 bits (`gsi_join_leaf_product_wide`), and neither the small steps nor the
    /// depth-first count (whose kernels make them in 64) are taken; so too where the tuning
    /// asks for 128 bits everywhere.
    pub(super) fn leaf_products_fit_64_bits(&self) -> bool {
        let from = self.plan.leaves.from.min(self.plan.width());
        let bound = self.plan.steps[from..]
            .iter()
            .zip(&self.steps[from..])
            .fold(1u128, |product, (step, s)| {
                let longest = s.max_bound.min(self.candidates.range(step.vertex).len());
                product.saturating_mul(longest as u128)
            });
        !self.tuning.wide_leaf_products && bound <= u128::from(u64::MAX)
    }

    /// The naive set operations' further passes over the buffers `gsi_join_rows` filled with
    /// [`Tests::FirstEdge`]: each further linking edge, each absent edge, then the
    /// subtraction, a launch each.
    fn refilter(
        &self,
        step: usize,
        table: &DeviceTable,
        rows: &Range<usize>,
        place: &Place<'_>,
        gba: &mut CudaSlice<u32>,
        counts: &mut CudaSlice<u32>,
    ) -> Result<()> {
        let s = &self.steps[step];
        let args = self.step_args(step, table, rows);
        let links = (u32::from(s.has_first)..s.count).map(|k| (k, Keep::Linked));
        let absent = (s.count..s.count + s.absent).map(|k| (k, Keep::Unlinked));
        let subtraction = (self.injective == 1).then_some((0, Keep::Unmatched));
        for (link, keep) in links.chain(absent).chain(subtraction) {
            join_refilter(
                self.device,
                self.pcsr,
                &args,
                place,
                gba,
                counts,
                link,
                keep,
            )?;
        }
        Ok(())
    }

    /// Whether `step`'s rows are joined with eight lanes each: none of its lists given to
    /// whole blocks, and [`GpuJoin::narrow`] for the step alone.
    fn narrow_step(&self, step: usize) -> bool {
        !self.over_blocks(step) && self.narrow(step, &(step..step + 1))
    }

    /// Whether `step`'s lists can be long enough to be cut into pieces for whole blocks.
    fn over_blocks(&self, step: usize) -> bool {
        self.tuning
            .balance_from
            .is_some_and(|from| self.steps[step].max_bound > from)
    }

    /// Takes the load-balance pool out for `step` (made at first need), when its lists can
    /// be longer than the threshold; it goes back once the step's rows are done.
    fn take_balance(&mut self, step: usize) -> Result<Option<Balance>> {
        let Some(from) = self.tuning.balance_from else {
            return Ok(None);
        };
        if !self.over_blocks(step) {
            return Ok(None);
        }
        match self.balance.take() {
            Some(pool) => Ok(Some(pool)),
            None => Balance::new(self.device, from).map(Some),
        }
    }

    /// Rows `rows` of `table` at width `width`.
    pub(super) fn view<'t>(
        &'t self,
        table: &'t DeviceTable,
        rows: Range<usize>,
        width: usize,
    ) -> CudaView<'t, u32> {
        match table {
            DeviceTable::Candidates { start } => self
                .candidates
                .lists
                .slice(start + rows.start..start + rows.end),
            DeviceTable::Owned(t) => t.slice(rows.start * width..rows.end * width),
        }
    }

    /// What every row of `rows` reads at `step`.
    fn step_args<'t>(
        &'t self,
        step: usize,
        table: &'t DeviceTable,
        rows: &Range<usize>,
    ) -> StepArgs<'t> {
        let s = &self.steps[step];
        let u = self.plan.steps[step].vertex;
        let words = self.candidates.words;
        StepArgs {
            table: self.view(table, rows.clone(), step),
            rows: rows.len() as u32,
            width: step as u32,
            links: self
                .on_device
                .links()
                .slice(s.links_from..s.links_from + (s.count + s.absent) as usize),
            link_count: s.count,
            absent_count: s.absent,
            has_first: u32::from(s.has_first),
            source_links: source_links(self.tuning, s.count),
            order_bounds: self.on_device.order_bounds().slice(s.order_bounds.clone()),
            candidate_list: self.candidates.lists.slice(self.candidates.range(u)),
            candidate_bits: self.candidates.bits.slice(u * words..(u + 1) * words),
            injective: self.injective,
        }
    }

    /// The two-step output scheme's first step for `rows`: each row's extensions (those the
    /// fill writes, [`GpuJoin::buffer_tests`]) counted by a join that writes none, then their
    /// exclusive prefix sum.
    fn exact_offsets(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: &Range<usize>,
    ) -> Result<(Buffer<u32>, u32)> {
        let count = rows.len();
        let mut counts = self.device.alloc(count, "row counts")?;
        self.rows_on_device(
            step,
            table,
            rows,
            RowsOutput::RowCounts {
                counts: &mut counts,
            },
            self.buffer_tests(step),
        )?;
        exclusive_scan(self.device, &counts.slice(0..count), count)
    }

    /// Algorithm 4 for `rows`: each row's bound, then their exclusive prefix sum F.
    fn offsets(
        &self,
        step: usize,
        table: &DeviceTable,
        rows: &Range<usize>,
    ) -> Result<(Buffer<u32>, u32)> {
        let s = &self.steps[step];
        let count = rows.len();
        let mut bounds = self.device.alloc(count, "buffer bounds")?;
        let candidate_count = self.candidates.range(self.plan.steps[step].vertex).len() as u32;
        join_bounds(
            self.device,
            &self.view(table, rows.clone(), step),
            count as u32,
            step as u32,
            &self.pcsr.groups,
            s.first,
            u32::from(s.has_first),
            candidate_count,
            &mut bounds,
        )?;
        exclusive_scan(self.device, &bounds.slice(0..count), count)
    }
}

impl GpuJoin<'_> {
    /// The place of `rows`' buffers in a GBA of their own, which starts at `base` of the
    /// run's prefix sum.
    fn place<'l>(layout: &'l DeviceLayout, rows: &Range<usize>, base: u32) -> Place<'l> {
        match layout {
            DeviceLayout::Uniform { stride, .. } => Place::Uniform {
                stride: *stride as u32,
            },
            DeviceLayout::Offsets {
                first_row, offsets, ..
            } => {
                let from = rows.start - first_row;
                Place::Offsets {
                    offsets: offsets.slice(from..from + rows.len() + 1),
                    base,
                }
            }
        }
    }

    /// The new table of `rows` from their filled buffers.
    fn build_table(
        &self,
        step: usize,
        table: &DeviceTable,
        rows: &Range<usize>,
        layout: &DeviceLayout,
        filled: &DeviceFilled,
    ) -> Result<Buffer<u32>> {
        let mut next = self
            .device
            .alloc(filled.new_rows * (step + 1), "the new table")?;
        let place = GpuJoin::place(layout, rows, filled.base);
        join_link(
            self.device,
            &self.view(table, rows.clone(), step),
            rows.len() as u32,
            step as u32,
            &place,
            &filled.gba,
            &filled.counts,
            &filled.new_offsets,
            &mut next,
        )?;
        Ok(next)
    }

    /// Permutes the first `take` rows of a full-width table into query-vertex order and hands
    /// them to `sink`.
    fn emit_table(
        &self,
        table: &CudaView<'_, u32>,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<()> {
        if take == 0 {
            return Ok(());
        }
        let width = self.plan.width();
        let mut permuted = self.device.alloc(take * width, "the matches")?;
        join_permute(
            self.device,
            &table.slice(0..take * width),
            take as u32,
            width as u32,
            &self.on_device.order(),
            &mut permuted,
        )?;
        let host = self
            .device
            .read(&permuted, 0, take * width, "the matches")?;
        sink.matches(&host, width)
    }
}

impl JoinBackend for GpuJoin<'_> {
    type Table = DeviceTable;
    type Layout = DeviceLayout;
    type Filled = DeviceFilled;

    fn first_table(&mut self, vertex: usize) -> Result<DeviceTable> {
        Ok(DeviceTable::Candidates {
            start: self.candidates.range(vertex).start,
        })
    }

    fn max_bound(&self, step: usize) -> usize {
        self.steps[step].max_bound
    }

    fn max_run_entries(&self) -> usize {
        MAX_RUN_ENTRIES
    }

    fn windows(&self) -> bool {
        false
    }

    fn first_run_rows(&self) -> usize {
        FIRST_RUN_ROWS
    }

    fn layout(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        budget_entries: usize,
    ) -> Result<DeviceLayout> {
        // When every row can have the largest buffer, skip the bounds pass and its prefix sum.
        let stride = self.steps[step].max_bound;
        let (offsets, total) = if self.tuning.two_step_output {
            self.exact_offsets(step, table, &rows)?
        } else if rows.len().saturating_mul(stride) <= budget_entries {
            return Ok(DeviceLayout::Uniform {
                first_row: rows.start,
                stride,
            });
        } else {
            self.offsets(step, table, &rows)?
        };
        Ok(DeviceLayout::Offsets {
            first_row: rows.start,
            rows: rows.len(),
            offsets,
            total,
            host: OnceCell::new(),
        })
    }

    fn fill(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        layout: &DeviceLayout,
        _window: Option<Range<usize>>,
    ) -> Result<DeviceFilled> {
        let (from, to) = layout.host_offsets(&rows)?;
        let entries = (to - from) as usize;
        // Uniform buffers are placed by row from 0; offsets are rebased to the rows' first.
        let base = match layout {
            DeviceLayout::Uniform { .. } => 0,
            DeviceLayout::Offsets { .. } => from,
        };
        let count = rows.len();
        let mut gba = self.device.alloc(entries, "the buffers (GBA)")?;
        let mut counts = self.device.alloc(count, "row counts")?;
        let place = GpuJoin::place(layout, &rows, base);
        let tests = self.buffer_tests(step);
        self.rows_on_device(
            step,
            table,
            &rows,
            RowsOutput::Buffers {
                place,
                gba: &mut gba,
                counts: &mut counts,
            },
            tests,
        )?;
        if tests == Tests::FirstEdge {
            let place = GpuJoin::place(layout, &rows, base);
            self.refilter(step, table, &rows, &place, &mut gba, &mut counts)?;
        }
        let (new_offsets, new_rows) = exclusive_scan(self.device, &counts.slice(0..count), count)?;
        Ok(DeviceFilled {
            gba,
            counts,
            new_offsets,
            new_rows: new_rows as usize,
            base,
            bytes: 4 * entries + 8 * count,
        })
    }

    fn link(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        layout: &DeviceLayout,
        filled: &DeviceFilled,
    ) -> Result<DeviceTable> {
        Ok(DeviceTable::Owned(
            self.build_table(step, table, &rows, layout, filled)?,
        ))
    }

    fn emit(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        layout: &DeviceLayout,
        filled: &DeviceFilled,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<usize> {
        if take == 0 {
            return Ok(0);
        }
        let next = self.build_table(step, table, &rows, layout, filled)?;
        self.emit_table(&next.slice(..), take, sink)?;
        Ok(take)
    }

    fn keep_rows(
        &mut self,
        width: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        share: Share,
    ) -> Result<(DeviceTable, usize)> {
        let count = rows.len();
        let (kept, rows) = rows_held(
            self.device,
            &self.view(table, rows, width),
            count,
            width,
            share,
        )?;
        Ok((DeviceTable::Owned(kept), rows))
    }

    fn read_rows(&self, width: usize, table: &DeviceTable, rows: Range<usize>) -> Result<Vec<u32>> {
        self.device
            .stream
            .clone_dtoh(&self.view(table, rows, width))
            .map_err(driver("reading a table's rows"))
    }

    fn table_of(&mut self, rows: Vec<u32>) -> Result<DeviceTable> {
        Ok(DeviceTable::Owned(
            self.device.upload(&rows, "a table's rows")?,
        ))
    }

    fn emit_first(
        &mut self,
        table: &DeviceTable,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<()> {
        if take == 0 {
            return Ok(());
        }
        let first = self.view(table, 0..take, 1);
        let host = self
            .device
            .stream
            .clone_dtoh(&first)
            .map_err(driver("reading the matches"))?;
        sink.matches(&host, 1)
    }

    fn balance(&self, step: usize) -> StepBalance {
        let warp_per_row = !self.narrow_step(step);
        let s = &self.steps[step];
        StepBalance {
            over_blocks: self.over_blocks(step),
            within_blocks: warp_per_row
                && self
                    .tuning
                    .block_pool_from
                    .is_some_and(|from| s.max_bound > from),
            duplicates_removed: warp_per_row && self.tuning.duplicate_removal && s.has_first,
        }
    }

    fn join_small(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: usize,
        budget: usize,
    ) -> Result<Option<SmallSteps<DeviceTable>>> {
        use crate::cuda::launch::small;
        let Some(up_to) = self.tuning.small_steps_up_to.filter(|_| {
            !self.wide() && self.leaf_products_fit_64_bits() && self.plan.leaves.pairs.is_none()
        }) else {
            return Ok(None);
        };
        let width = self.plan.width();
        // The leaf suffix reads every member's lists for each row.
        let leaf_bound = self.steps[self.plan.leaves.from.min(width)..]
            .iter()
            .fold(0usize, |sum, s| sum.saturating_add(s.max_bound));
        let bound = if step == self.plan.leaves.from {
            leaf_bound
        } else {
            self.steps[step].max_bound
        };
        if rows.saturating_mul(bound) > up_to {
            return Ok(None);
        }
        let stream = &self.device.stream;
        // Both tables within half the memory budget.
        let capacity_words = SMALL_BUFFER_WORDS.min(budget / 16);
        let mut state = SmallState {
            buffers: [
                self.device
                    .alloc(capacity_words, "the small steps' tables")?,
                self.device
                    .alloc(capacity_words, "the small steps' tables")?,
            ],
            capacity_words: capacity_words as u32,
            state: self
                .device
                .zeros(small::words(width), "the small steps' state")?,
            total: counter::zeroed(self.device)?,
        };
        let args = self.depth_first_args(step);
        // No lone-leaf counts: made for long lists, and these are short.
        let leaves = LeafSuffixArgs::new(&self.on_device, None);
        join_small(
            self.device,
            self.pcsr,
            &self.view(table, 0..rows, step),
            rows as u32,
            &args,
            &leaves,
            (budget as u64, leaf_bound as u64),
            &mut state,
        )?;
        let words = stream
            .clone_dtoh(&state.state)
            .map_err(driver("reading the small steps' state"))?;
        let stopped_at = words[small::STEP] as usize;
        // Rows into each step: the input's, then what each step before made.
        let rows_into = |s: usize| {
            if s == step {
                rows as u64
            } else {
                u64::from(words[small::MADE + s - 1])
            }
        };
        if stopped_at >= width {
            // Counted at the leaf suffix or the last step, unless the rows ran out before.
            let counted_at = self.plan.leaves.from.min(width - 1);
            let rows_in: Vec<u64> = (step..=counted_at)
                .map(rows_into)
                .take_while(|&r| r > 0)
                .collect();
            let found = counter::read(stream, &state.total)?;
            return Ok(Some(SmallSteps {
                rows_in,
                end: SmallEnd::Counted(found),
            }));
        }
        // Stopped before step `stopped_at`, whose rows lie where the state says.
        let rows_in = (step..stopped_at).map(rows_into).collect();
        let [a, b] = state.buffers;
        let table = match words[small::WHERE] {
            0 => None,
            1 => Some(DeviceTable::Owned(a)),
            _ => Some(DeviceTable::Owned(b)),
        };
        Ok(Some(SmallSteps {
            rows_in,
            end: SmallEnd::Stopped {
                step: stopped_at,
                table,
                rows: words[small::ROWS] as usize,
                bytes: 4 * capacity_words,
            },
        }))
    }

    fn depth_first_rows(&self) -> Option<usize> {
        // The pair count has no depth-first kernel: its core is joined breadth-first.
        if self.wide() || !self.leaf_products_fit_64_bits() || self.plan.leaves.pairs.is_some() {
            return None;
        }
        // Packed from the first step where labels hardly prune and the pattern is small: on
        // the unlabelled LiveJournal-sized graph (H100, 2026-11-26, docs/BENCHMARKS.md)
        // triangles took 64-66 ms against 106-116 breadth-first, 4-cliques 95-96 against
        // 184-187, 4-cycles 3.3 s against 14.4 s; 5-cliques, once the searches left were
        // split over idle warps, 71-75 ms against 261-276 (2026-11-27; larger patterns than
        // cliques of five stay breadth-first, `PACKED_CLIQUES_UP_TO`).
        // Otherwise breadth-first: with work stealing, depth-first was slower on yeast's
        // 1,458, on gw12 from every threshold tried (H100, 2026-11-23) and on the unlabelled
        // patterns with equivalent vertices (p3, p7, p8); taken there only when asked for
        // (`MatchOptions::depth_first_rows`).
        Some(if self.packed_at_once() { 0 } else { usize::MAX })
    }

    fn depth_first_kind(&self) -> Option<&'static str> {
        Some(match (self.counted_cliques, self.packs()) {
            (true, _) => "clique bitmaps, the rest packed",
            (false, true) => "packed",
            (false, false) => "with work stealing",
        })
    }

    fn counts_last_step(&self) -> bool {
        self.plan
            .width()
            .checked_sub(1)
            .is_none_or(|last| self.tests_fit(last))
    }

    fn count(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        enough: Option<u128>,
        _budget: usize,
    ) -> Result<u128> {
        if step == self.plan.leaves.from {
            return match self.plan.leaves.pairs {
                Some(pairs) => self.count_pair_rows(pairs, step, table, rows),
                None => self.count_leaf_products(step, table, rows),
            };
        }
        if step + 1 < self.plan.width() {
            if self.counts_cliques(step) {
                return self.count_cliques(step, table, rows, enough);
            }
            return match self.packs() {
                true => self.count_packed(step, table, rows, enough),
                false => self.count_depth_first(step, table, rows, enough),
            };
        }
        let mut total = counter::zeroed(self.device)?;
        self.rows_on_device(
            step,
            table,
            &rows,
            RowsOutput::Count { total: &mut total },
            Tests::All,
        )?;
        counter::read(&self.device.stream, &total)
    }
}
