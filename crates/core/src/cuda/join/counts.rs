//! The GPU backend's counts without tables: the leaf suffix's products and the depth-first
//! counts (with work stealing, or packed).

use std::ops::Range;

use cudarc::driver::CudaSlice;
use gsi_kernels::Kernel;

use super::backend::{GpuJoin, DEPTH_FIRST_TASKS, LIMITED_SLICE};
use super::counter;
use super::kernels::{
    count_cliques, count_packed, count_pairs, depth_first_grid, join_depth_first,
    join_leaf_product, resident_grid, split_packed, CliqueState, DepthFirstArgs, DepthFirstState,
    LeafLanes, LeafSuffixArgs, PackedState, PairSpace,
};
use super::tables::DeviceTable;
use crate::cuda::launch::{cliques, packed, BLOCK_SIZE};
use crate::error::{driver, Error, Result};
use crate::join::JoinBackend;
use crate::plan::PairCount;
use crate::tuning::{KEPT_SETS_BYTES, PAIR_TALLIES_BYTES};

/// Most steps of a plan that the GPU counts with the packed kernel from its first step by
/// default, where labels hardly prune (`GpuJoin::depth_first_rows`)...
const PACKED_AT_ONCE_UP_TO: usize = 4;
/// ... and of a clique's plan (each step linked to every earlier one, so that every level's
/// lists are cut by all the matches before it): on the unlabelled LiveJournal-sized graph
/// (H100, 2026-11-27) 5-cliques took 71-72 ms packed against 238-274 breadth-first, where the
/// wheel (p7, five steps, not a clique) took 6.9 s against 4.1 s.
const PACKED_CLIQUES_UP_TO: usize = 5;

impl GpuJoin<'_> {
    /// Whether a depth-first count takes the packed kernel (`gsi_count_packed`): where the
    /// tuning lets it, for plans of at most [`packed::WIDTH`] steps without a leaf suffix
    /// whose steps each test fewer lists than that (a lane keeps its lists' ranges).
    pub(super) fn packs(&self) -> bool {
        let width = self.plan.width();
        self.tuning.packed_depth_first
            && width <= packed::WIDTH
            && self.plan.leaves.from >= width
            && self
                .plan
                .steps
                .iter()
                .all(|s| s.links().count() + s.absent.len() < packed::WIDTH)
    }

    /// Whether a count goes packed from its first step by default: a plan the packed kernel
    /// takes, of at most [`PACKED_AT_ONCE_UP_TO`] steps (a clique's, [`PACKED_CLIQUES_UP_TO`];
    /// the clique count then takes it), whose candidate sets each hold at least half the data
    /// graph's vertices (its candidate bitsets' bits), as on an unlabelled graph. Cliques of
    /// six to eight stay breadth-first: the clique count was not measured on them.
    pub(super) fn packed_at_once(&self) -> bool {
        let vertices = 32 * self.candidates.words;
        let width = self.plan.width();
        let clique = (self.plan.steps.iter().enumerate()).all(|(k, s)| s.links().count() == k);
        self.packs()
            && (width <= PACKED_AT_ONCE_UP_TO || clique && width <= PACKED_CLIQUES_UP_TO)
            && self
                .plan
                .candidate_sizes
                .iter()
                .all(|&size| 2 * size >= vertices)
    }

    /// Whether a count from `step` takes the clique count (`gsi_count_cliques`): where the
    /// tuning lets it and the packed kernel takes the plan (the rows it leaves go there), from
    /// a table of one column, of a clique's chain ([`crate::plan::Plan::clique_link`]).
    pub(super) fn counts_cliques(&self, step: usize) -> bool {
        step == 1
            && self.tuning.clique_bitmaps_up_to.is_some_and(|n| n > 0)
            && self.packs()
            && self.plan.clique_link().is_some()
    }

    /// Counts a clique's plan ([`GpuJoin::counts_cliques`]) from `rows` of a one-column
    /// table: by bitmaps in launches that each take new rows for `tuning.depth_first_slice`
    /// (the stop conditions and `enough` looked at between them), then the rows whose vertex
    /// has too many higher neighbours with the packed count.
    pub(super) fn count_cliques(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        enough: Option<u128>,
    ) -> Result<u128> {
        use cliques::{ABANDONED, COUNTERS, NEXT_ROW, OVERFLOW};
        let up_to = self
            .tuning
            .clique_bitmaps_up_to
            .map_or(0, |n| n.min(cliques::BITS)) as u32;
        let count = rows.len();
        let mut state = CliqueState {
            counters: self.device.zeros(COUNTERS, "the clique count's counters")?,
            overflow: self.device.zeros(count, "the clique count's other rows")?,
            total: counter::zeroed(self.device)?,
        };
        let (total, overflowed) = {
            let view = self.view(table, rows, step);
            let args = self.depth_first_args(step);
            loop {
                let (slice_ns, deadline_ns) = self.launch_times(enough);
                count_cliques(
                    self.device,
                    self.pcsr,
                    &view,
                    count as u32,
                    &args,
                    up_to,
                    &mut state,
                    slice_ns,
                    deadline_ns,
                )?;
                let (counters, total, ends) =
                    self.after_launch(&state.counters, &state.total, ABANDONED, enough)?;
                if ends {
                    return Ok(total);
                }
                // Every row taken was counted or listed: the next launch takes the rest.
                if counters[NEXT_ROW] as usize >= count {
                    break (total, counters[OVERFLOW] as usize);
                }
            }
        };
        self.counted_cliques = true;
        if overflowed == 0 {
            return Ok(total);
        }
        let rest = self.count_packed(
            step,
            &DeviceTable::Owned(state.overflow),
            0..overflowed,
            enough.map(|k| k - total),
        )?;
        Ok(total.saturating_add(rest))
    }

    /// What the depth-first and small-step kernels read of the plan for a count from `step`.
    pub(super) fn depth_first_args(&self, step: usize) -> DepthFirstArgs<'_> {
        let links = self.on_device.links();
        DepthFirstArgs {
            first_step: step as u32,
            width: self.plan.width() as u32,
            leaves_from: self.plan.leaves.from as u32,
            total_links: links.len() as u32,
            links,
            steps: self.on_device.steps(),
            order_bounds: self.on_device.order_bounds(),
            candidates: self.candidates,
            words: self.candidates.words as u32,
            injective: self.injective,
        }
    }

    /// Counts the leaf suffix's matches for `rows` of a table at the suffix's first step.
    pub(super) fn count_leaf_products(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
    ) -> Result<u128> {
        if self.lone_leaves.is_none() {
            self.lone_leaves = self.lone_leaf_counts()?;
        }
        let mut total = counter::zeroed(self.device)?;
        join_leaf_product(
            self.device,
            self.pcsr,
            &self.view(table, rows.clone(), step),
            rows.len() as u32,
            step as u32,
            &self.on_device,
            self.candidates,
            self.injective,
            &LeafSuffixArgs::new(&self.on_device, self.lone_leaves.as_ref()),
            &mut total,
            match self.leaf_products_fit_64_bits() {
                false => LeafLanes::Wide,
                true if self.narrow(step, &(step..self.plan.width())) => LeafLanes::Narrow,
                true => LeafLanes::Warp,
            },
        )?;
        counter::read(&self.device.stream, &total)
    }

    /// Counts the pair count's matches ([`PairCount`]) for `rows` of a table at its first
    /// step (x's): a block per row, as many blocks as stay resident while their tallies (a
    /// word per data vertex each) take at most [`PAIR_TALLIES_BYTES`] and a quarter of the
    /// free device memory, one at least.
    pub(super) fn count_pair_rows(
        &mut self,
        pairs: PairCount,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
    ) -> Result<u128> {
        let stream = &self.device.stream;
        if self.pair_space.is_none() {
            let vertices = 32 * self.candidates.words;
            let member_words = JoinBackend::max_bound(self, step).max(1);
            let resident = self.device.multiprocessors as usize * 8;
            let room = PAIR_TALLIES_BYTES.min(self.device.memory()?.0 / 4);
            let blocks = (room / (4 * vertices.max(1))).clamp(1, resident);
            self.pair_space = Some(PairSpace {
                blocks: blocks as u32,
                members: self
                    .device
                    .zeros(blocks * member_words, "the pair count's members")?,
                member_words: member_words as u32,
                tallies: self
                    .device
                    .zeros(blocks * vertices, "the pair count's tallies")?,
                vertices: vertices as u32,
            });
        }
        let mut total = counter::zeroed(self.device)?;
        let mut space = self.pair_space.take().expect("made above");
        let view = self.view(table, rows.clone(), step);
        let launched = count_pairs(
            self.device,
            self.pcsr,
            &view,
            rows.len() as u32,
            step as u32,
            &self.on_device,
            self.candidates,
            (step + 2) as u32,
            &mut space,
            &mut total,
        );
        self.pair_space = Some(space);
        launched?;
        let count = counter::read(stream, &total)?;
        match pairs.ordered {
            true => count.checked_mul(2).ok_or(Error::CountBeyond128Bits),
            false => Ok(count),
        }
    }

    /// Words of one kept-set slot for a grid of `warps` warps: the tuning's, fewer when the
    /// sets would pass [`KEPT_SETS_BYTES`] (0 when no level keeps a set).
    fn kept_set_words(&self, warps: usize) -> usize {
        match (self.tuning.kept_sets_up_to, self.kept_slots) {
            (Some(up_to), slots) if slots > 0 => {
                let fit = KEPT_SETS_BYTES / 4 / (warps * slots);
                up_to.min(fit - fit % 32)
            }
            _ => 0,
        }
    }

    /// After a launch of a depth-first count: its counters and count, and whether the count
    /// ends there whatever is left (a warp gave up at the deadline, counters[`abandoned`]
    /// set; the stop conditions hold; or it reached `enough`).
    fn after_launch(
        &self,
        counters: &CudaSlice<u32>,
        total: &CudaSlice<u64>,
        abandoned: usize,
        enough: Option<u128>,
    ) -> Result<(Vec<u32>, u128, bool)> {
        let stream = &self.device.stream;
        let counters = stream
            .clone_dtoh(counters)
            .map_err(driver("reading a depth-first count's counters"))?;
        let total = counter::read(stream, total)?;
        let ends = counters[abandoned] != 0
            || self.options.stop().is_some()
            || enough.is_some_and(|k| total >= k);
        Ok((counters, total, ends))
    }

    /// How long the next depth-first launch takes new work, and how long until the deadline,
    /// in ns: with a limit the count is looked at soon (K matches are often found at once).
    fn launch_times(&self, enough: Option<u128>) -> (u64, u64) {
        let deadline_ns = self.options.deadline.map_or(u64::MAX, |d| {
            d.saturating_duration_since(std::time::Instant::now())
                .as_nanos() as u64
        });
        let slice = match enough {
            Some(_) => self.tuning.depth_first_slice.min(LIMITED_SLICE),
            None => self.tuning.depth_first_slice,
        };
        (slice.as_nanos().max(1) as u64, deadline_ns)
    }

    /// Counts the matches extending `rows` through every remaining step, depth-first (the leaf
    /// suffix as products), in launches that each take new work for `tuning.depth_first_slice`;
    /// between launches the stop conditions and `enough` are looked at, and the tasks left in
    /// the pool are moved to its front for the next launch.
    pub(super) fn count_depth_first(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        enough: Option<u128>,
    ) -> Result<u128> {
        use crate::cuda::launch::depth_first::{ABANDONED, COUNTERS, HEAD, NEXT_ROW, TAIL};
        if self.plan.leaves.from < self.plan.width() && self.lone_leaves.is_none() {
            self.lone_leaves = self.lone_leaf_counts()?;
        }
        let grid = depth_first_grid(self.device);
        let warps = grid.grid_dim.0 as usize * (BLOCK_SIZE as usize / 32);
        let (sets, set_words) = match self.kept_sets.take() {
            Some(kept) => kept,
            None => {
                let words = self.kept_set_words(warps);
                (
                    self.device
                        .zeros(warps * self.kept_slots * words, "the depth-first kept sets")?,
                    words as u32,
                )
            }
        };
        let count = rows.len();
        let view = self.view(table, rows, step);
        let args = self.depth_first_args(step);
        let leaves = LeafSuffixArgs::new(&self.on_device, self.lone_leaves.as_ref());
        let width = self.plan.width();
        // A task: its level word, read and mask, then up to `width` columns; whole 128-byte
        // lines.
        let task_words = (3 + width).next_multiple_of(32);
        let capacity = DEPTH_FIRST_TASKS as usize;
        let stream = &self.device.stream;
        let mut state = DepthFirstState {
            ranges: self.device.zeros(
                warps * args.total_links as usize * 2,
                "the depth-first ranges",
            )?,
            sets,
            set_slots: self.kept_slots as u32,
            set_words,
            tasks: self
                .device
                .zeros(capacity * task_words, "the depth-first pool")?,
            spare: None,
            task_words: task_words as u32,
            capacity: capacity as u32,
            counters: self.device.zeros(COUNTERS, "the depth-first counters")?,
            total: counter::zeroed(self.device)?,
        };
        loop {
            let (slice_ns, deadline_ns) = self.launch_times(enough);
            join_depth_first(
                self.device,
                self.pcsr,
                &view,
                count as u32,
                &args,
                &leaves,
                &mut state,
                slice_ns,
                deadline_ns,
            )?;
            let (counters, total, ends) =
                self.after_launch(&state.counters, &state.total, ABANDONED, enough)?;
            let (head, tail) = (counters[HEAD] as usize, counters[TAIL] as usize);
            let rows_left = (counters[NEXT_ROW] as usize) < count;
            if ends || (!rows_left && head >= tail) {
                self.kept_sets = Some((state.sets, state.set_words));
                return Ok(total);
            }
            if head > 0 {
                // The waiting tasks to the front of a spare buffer whose rest is zero (not yet
                // written).
                let spare = match &mut state.spare {
                    Some(spare) => {
                        stream
                            .memset_zeros(spare)
                            .map_err(driver("clearing the depth-first pool"))?;
                        spare
                    }
                    None => state.spare.insert(
                        self.device
                            .zeros(capacity * task_words, "the depth-first pool")?,
                    ),
                };
                if tail > head {
                    stream
                        .memcpy_dtod(
                            &state.tasks.slice(head * task_words..tail * task_words),
                            &mut spare.slice_mut(0..(tail - head) * task_words),
                        )
                        .map_err(driver("moving the depth-first pool"))?;
                }
                std::mem::swap(&mut state.tasks, spare);
            }
            let mut next = [0u32; COUNTERS];
            next[NEXT_ROW] = counters[NEXT_ROW].min(count as u32);
            next[TAIL] = (tail - head) as u32;
            stream
                .memcpy_htod(&next, &mut state.counters)
                .map_err(driver("resetting the depth-first counters"))?;
        }
    }

    /// Counts the matches extending `rows` through every remaining step with the packed
    /// depth-first kernel, in launches that each take new rows for `tuning.depth_first_slice`
    /// (the searches still running then are suspended into device memory and go on in the
    /// next launch); between launches the stop conditions and `enough` are looked at.
    pub(super) fn count_packed(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        enough: Option<u128>,
    ) -> Result<u128> {
        use packed::{ABANDONED, COUNTERS, NEXT_ROW, SUSPENDED};
        let grid = resident_grid(self.device, Kernel::CountPacked)?;
        let warps = grid.grid_dim.0 as usize * (BLOCK_SIZE as usize / 32);
        let count = rows.len();
        let view = self.view(table, rows, step);
        let args = self.depth_first_args(step);
        let stream = &self.device.stream;
        let mut state = PackedState {
            saved: self
                .device
                .zeros(warps * packed::SEARCH_WORDS, "the packed searches")?,
            counters: self.device.zeros(COUNTERS, "the packed count's counters")?,
            total: counter::zeroed(self.device)?,
            places: self.device.zeros(warps, "the packed count's places")?,
        };
        // Searches suspend once half the warps found no row left, and are split over every
        // warp before the next launch, while splits make new searches.
        let mut splitting = self.tuning.split_searches;
        loop {
            let suspend_when_idle = if splitting {
                (warps / 2).max(1) as u32
            } else {
                0
            };
            let (slice_ns, deadline_ns) = self.launch_times(enough);
            count_packed(
                self.device,
                self.pcsr,
                &view,
                count as u32,
                &args,
                &mut state,
                (
                    self.tuning
                        .packed_rows_at_once
                        .map_or(0, |k| k.clamp(1, 32)),
                    suspend_when_idle,
                ),
                slice_ns,
                deadline_ns,
            )?;
            let (counters, total, ends) =
                self.after_launch(&state.counters, &state.total, ABANDONED, enough)?;
            let rows_left = (counters[NEXT_ROW] as usize) < count;
            if ends || (!rows_left && counters[SUSPENDED] == 0) {
                return Ok(total);
            }
            let mut next = [0u32; COUNTERS];
            next[NEXT_ROW] = counters[NEXT_ROW].min(count as u32);
            next[SUSPENDED] = counters[SUSPENDED];
            stream
                .memcpy_htod(&next, &mut state.counters)
                .map_err(driver("resetting the packed count's counters"))?;
            let suspended = counters[SUSPENDED] as usize;
            if splitting && !rows_left && 2 * suspended <= warps {
                // The searches left, few: each split into as many pieces as there are free
                // places for it; no more splits once one fills less than a quarter of the
                // free places (the searches left are then too small to be worth it).
                let pieces = (warps / suspended) as u32;
                split_packed(self.device, &mut state, warps as u32, pieces)?;
                let after = stream
                    .clone_dtoh(&state.counters)
                    .map_err(driver("reading the packed count's counters"))?;
                let made = after[SUSPENDED].saturating_sub(counters[SUSPENDED]) as usize;
                splitting = 4 * made >= warps - suspended;
            }
        }
    }
}
