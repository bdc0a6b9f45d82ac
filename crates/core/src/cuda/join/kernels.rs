//! Typed wrappers of `join.cu`'s kernels: one function per kernel, with the arguments it
//! reads.

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};
use gsi_kernels::Kernel;

use super::device_plan::PlanOnDevice;
use super::layout::{DepthStep, LeafGroupOnDevice, LeafTermOnDevice, Link};
use crate::cuda::buffers::Buffer;
use crate::cuda::candidates::DeviceCandidates;
use crate::cuda::device::Device;
use crate::cuda::index::DevicePcsr;
use crate::cuda::launch::{per_element, warp_per_row, Keep, BLOCK_SIZE};
use crate::error::{driver, Result};

/// Threads per multiprocessor of a depth-first launch (the most an H100's keeps resident).
const DEPTH_FIRST_THREADS_PER_SM: u32 = 2048;
/// Most blocks per multiprocessor of the small steps' launch: enough warps for a step of a
/// few thousand rows, few enough that the grid barrier stays short.
const SMALL_BLOCKS_PER_SM: u32 = 4;

/// Where each row's buffer lies in the GBA, as `gsi_join_rows` and `gsi_join_link` read it.
pub(super) enum Place<'a> {
    /// Row r's buffer starts at `offsets[r] - base` (Algorithm 4's prefix sum over a run of
    /// which the rows are a part).
    Offsets {
        offsets: CudaView<'a, u32>,
        base: u32,
    },
    /// Every row has the step's largest bound: row r's buffer starts at `r * stride`.
    Uniform { stride: u32 },
}

/// A zero kernel argument that outlives any launch.
const ZERO: u32 = 0;

impl Place<'_> {
    /// Pushes the kernel arguments of the place: offsets (or null), offset_base, stride.
    pub(super) fn push<'b>(&'b self, launch: &mut cudarc::driver::LaunchArgs<'b>) {
        match self {
            Place::Offsets { offsets, base } => launch.arg(offsets).arg(base).arg(&ZERO),
            Place::Uniform { stride } => launch.arg(&NULL).arg(&ZERO).arg(stride),
        };
    }
}

/// What `gsi_join_rows` does with each row's extensions.
pub(super) enum RowsOutput<'a> {
    /// Writes them into the row's buffer and their number into `counts`.
    Buffers {
        place: Place<'a>,
        gba: &'a mut Buffer<u32>,
        counts: &'a mut Buffer<u32>,
    },
    /// Only counts them, adding every row's count to `total[0]`.
    Count { total: &'a mut CudaSlice<u64> },
    /// Only counts them, each row's count into `counts` (the first pass of the two-step
    /// output scheme).
    RowCounts { counts: &'a mut Buffer<u32> },
}

/// What every row of one step reads in `gsi_join_rows`.
pub(super) struct StepArgs<'a> {
    pub(super) table: CudaView<'a, u32>,
    pub(super) rows: u32,
    pub(super) width: u32,
    /// The linking edges, then the absent ones (induced matching).
    pub(super) links: CudaView<'a, Link>,
    pub(super) link_count: u32,
    pub(super) absent_count: u32,
    pub(super) has_first: u32,
    /// Lists a row's source is chosen among (the kernels' `row_source`): 1, the first
    /// edge's (the paper's), or the shortest of the first `source_links` links'.
    pub(super) source_links: u32,
    /// The step's order bounds: a column each, [`ABOVE`] set for "above".
    pub(super) order_bounds: CudaView<'a, u32>,
    pub(super) candidate_list: CudaView<'a, u32>,
    pub(super) candidate_bits: CudaView<'a, u32>,
    pub(super) injective: u32,
}

/// A null device pointer, for the arguments a mode does not use.
const NULL: u64 = 0;

/// `gsi_join_bounds`: warp per row; the buffer bound of each of `rows` rows into `bounds`.
#[allow(clippy::too_many_arguments)]
pub(super) fn join_bounds(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    groups: &CudaSlice<u32>,
    first: Link,
    has_first: u32,
    candidate_count: u32,
    bounds: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_join_bounds(table[rows*width], rows, width, groups, first, has_first,
    // candidate_count, bounds[rows]): `table` and `bounds` have those lengths, `first` lies
    // in `groups`.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::JoinBounds)?)
            .arg(table)
            .arg(&rows)
            .arg(&width)
            .arg(groups)
            .arg(&first)
            .arg(&has_first)
            .arg(&candidate_count)
            .arg(bounds)
            .launch(warp_per_row(rows))
    }
    .map_err(driver("launching gsi_join_bounds"))?;
    Ok(())
}

/// Sec. 6.1's load balance for one query: where `gsi_join_rows` leaves the pieces of long
/// lists for `gsi_join_pieces`.
pub(super) struct Balance {
    /// List length from which a row's list is cut into pieces for whole blocks.
    pub(super) from: u32,
    /// Most elements of one piece (a block's share).
    piece_length: u32,
    /// (row, start) per piece.
    pub(super) pieces: Buffer<u32>,
    /// Pieces taken (may pass the capacity: the pool is then full).
    pub(super) count: Buffer<u32>,
    /// Survivors per piece, when pieces write their rows' buffers in order.
    pub(super) found: Buffer<u32>,
}

/// Pieces the pool holds; a warp that finds it full does its row itself.
const PIECE_CAPACITY: usize = 1 << 16;
/// Blocks of a `gsi_join_pieces` launch; blocks loop over the pieces.
const PIECE_BLOCKS: u32 = 2048;

impl Balance {
    /// The pool for rows whose lists are longer than `from` elements; pieces of 16 times
    /// that (the paper's W1 = 16 W3), at least a warp's 32.
    pub(super) fn new(device: &Device, from: usize) -> Result<Balance> {
        let from = u32::try_from(from).unwrap_or(u32::MAX);
        Ok(Balance {
            from,
            piece_length: from.saturating_mul(16).max(32),
            pieces: device.alloc(2 * PIECE_CAPACITY, "the load-balance pieces")?,
            count: device.alloc(1, "the load-balance counter")?,
            found: device.alloc(PIECE_CAPACITY, "the load-balance pieces' counts")?,
        })
    }
}

/// Which of a step's tests `gsi_join_rows` makes: all of them at once (Sec. 5's GPU-friendly
/// set operations), or only C(u) and the first edge's list, the paper's naive baseline then
/// making each further test a pass of its own (`gsi_join_refilter`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Tests {
    All,
    FirstEdge,
}

/// `gsi_join_refilter`: warp per row; keeps of each row's buffer what `keep` says, against
/// the step's link `link` (unused for [`Keep::Unmatched`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_refilter(
    device: &Device,
    pcsr: &DevicePcsr,
    step: &StepArgs<'_>,
    place: &Place<'_>,
    gba: &mut CudaSlice<u32>,
    counts: &mut CudaSlice<u32>,
    link: u32,
    keep: Keep,
) -> Result<()> {
    let keep = keep as u32;
    let mut launch = device
        .stream
        .launch_builder(device.kernel_for_width(Kernel::JoinRefilter, step.width)?);
    launch
        .arg(&step.table)
        .arg(&step.rows)
        .arg(&step.width)
        .arg(&pcsr.groups)
        .arg(&pcsr.column_index)
        .arg(&step.links)
        .arg(&link)
        .arg(&keep);
    place.push(&mut launch);
    // SAFETY: gsi_join_refilter(table[rows*width], rows, width, groups, ci, links[count +
    // absent], link, keep, offsets | null, offset_base, stride, gba, counts[rows]): the
    // buffers and counts a `gsi_join_rows` call of these rows filled, placed as `place` says;
    // `link` is one of the step's links.
    unsafe { launch.arg(gba).arg(counts).launch(warp_per_row(step.rows)) }
        .map_err(driver("launching gsi_join_refilter"))?;
    Ok(())
}

/// The switchable parts of `gsi_join_rows`: the block's pool for lists longer than
/// `pool_from` (Sec. 6.1's third layer; `NO_POOL`: none), the block's shared reads of short
/// first-edge lists (Sec. 6.2's duplicate removal) and the warp's write cache (Sec. 5); and
/// whether rows cut into pieces keep their extensions in order (`gsi_join_pieces_close`),
/// which listed matches need and which needs each row's buffer as long as its list (not so
/// under the two-step scheme).
pub(super) struct RowPaths {
    pub(super) pool_from: u32,
    pub(super) remove_duplicates: u32,
    pub(super) write_cache: u32,
    pub(super) ordered_pieces: bool,
}

/// `gsi_join_rows`: warp per row; Algorithm 3 lines 5-12 for every row of `step`; then, with
/// `balance`, `gsi_join_pieces`: a block per piece of the lists the warps left. `narrow`
/// takes `gsi_join_rows_narrow` instead, which has none of the `paths`.
pub(super) fn join_rows(
    device: &Device,
    pcsr: &DevicePcsr,
    step: &StepArgs<'_>,
    output: RowsOutput<'_>,
    mut balance: Option<&mut Balance>,
    narrow: bool,
    paths: &RowPaths,
) -> Result<()> {
    let candidate_count = step.candidate_list.len() as u32;
    let order_bound_count = step.order_bounds.len() as u32;
    // The kernel's optional arguments, from the output mode.
    let (place, gba, counts, total) = match output {
        RowsOutput::Buffers { place, gba, counts } => (Some(place), Some(gba), Some(counts), None),
        RowsOutput::Count { total } => (None, None, None, Some(total)),
        RowsOutput::RowCounts { counts } => (None, None, Some(counts), None),
    };
    if let Some(b) = balance.as_deref_mut() {
        device
            .stream
            .memset_zeros(&mut b.count)
            .map_err(driver("clearing the load-balance counter"))?;
    }
    let (gba, counts) = (gba.map(|g| &*g), counts.map(|c| &*c));
    let total = total.map(|t| &*t);
    // The arguments both kernels take, from the PCSR to the output.
    macro_rules! common {
        ($launch:expr) => {{
            $launch
                .arg(&pcsr.groups)
                .arg(&pcsr.column_index)
                .arg(&step.links)
                .arg(&step.link_count)
                .arg(&step.absent_count)
                .arg(&step.has_first)
                .arg(&step.source_links)
                .arg(&step.order_bounds)
                .arg(&order_bound_count)
                .arg(&step.candidate_list)
                .arg(&candidate_count)
                .arg(&step.candidate_bits)
                .arg(&step.injective);
            match &place {
                Some(place) => place.push(&mut $launch),
                None => {
                    $launch.arg(&NULL).arg(&ZERO).arg(&ZERO);
                }
            };
            match gba {
                Some(g) => $launch.arg(g),
                None => $launch.arg(&NULL),
            };
            match counts {
                Some(c) => $launch.arg(c),
                None => $launch.arg(&NULL),
            };
            match total {
                Some(t) => $launch.arg(t),
                None => $launch.arg(&NULL),
            };
        }};
    }
    if narrow {
        let mut launch = device
            .stream
            .launch_builder(device.kernel(Kernel::JoinRowsNarrow)?);
        launch.arg(&step.table).arg(&step.rows).arg(&step.width);
        common!(launch);
        // SAFETY: gsi_join_rows_narrow(table, rows, width, the arguments of gsi_join_rows
        // from groups to total): as there; the caller keeps the width and the lists of a row
        // within NARROW_MAX_WIDTH.
        unsafe { launch.launch(warp_per_row(step.rows.div_ceil(4))) }
            .map_err(driver("launching gsi_join_rows_narrow"))?;
        return Ok(());
    }
    let (from, piece_length) = balance
        .as_deref()
        .map_or((u32::MAX, 0), |b| (b.from, b.piece_length));
    let capacity = PIECE_CAPACITY as u32;
    let mut launch = device
        .stream
        .launch_builder(device.kernel_for_width(Kernel::JoinRows, step.width)?);
    launch.arg(&step.table).arg(&step.rows).arg(&step.width);
    common!(launch);
    launch.arg(&from).arg(&piece_length);
    match balance.as_deref() {
        Some(b) => launch.arg(&b.pieces).arg(&b.count),
        None => launch.arg(&NULL).arg(&NULL),
    };
    launch
        .arg(&capacity)
        .arg(&paths.pool_from)
        .arg(&paths.remove_duplicates)
        .arg(&paths.write_cache);
    // SAFETY: gsi_join_rows(table[rows*width], rows, width, groups, ci, links[count +
    // absent], count, absent, has_first, source_links, order_bounds[count], count,
    // candidate_list[|C(u)|], |C(u)|,
    // candidate_bits[words], injective, offsets[rows + 1] | null, offset_base, stride,
    // gba | null, counts[rows] | null, total[1] | null, balance_from, piece_length,
    // pieces[2 * capacity] | null, piece_count[1] | null, capacity, pool_from,
    // remove_duplicates, write_cache): the output mode sets either gba and counts (with
    // offsets, or null and a stride), counts alone, or total; gba holds every row's buffer
    // where the place says; without a pool, balance_from is u32::MAX and no list is longer.
    unsafe { launch.launch(warp_per_row(step.rows)) }.map_err(driver("launching gsi_join_rows"))?;
    let Some(b) = balance else {
        return Ok(());
    };
    // The buffers the pieces write in order, when they do.
    let ordered = match (&place, gba, counts) {
        (Some(place), Some(gba), Some(counts)) if paths.ordered_pieces => {
            Some((place, gba, counts))
        }
        _ => None,
    };
    let config = cudarc::driver::LaunchConfig {
        grid_dim: (PIECE_BLOCKS, 1, 1),
        block_dim: (BLOCK_SIZE, 1, 1),
        shared_mem_bytes: 0,
    };
    {
        let mut launch = device
            .stream
            .launch_builder(device.kernel_for_width(Kernel::JoinPieces, step.width)?);
        launch.arg(&step.table).arg(&step.width);
        common!(launch);
        launch
            .arg(&b.piece_length)
            .arg(&b.pieces)
            .arg(&b.count)
            .arg(&capacity);
        if ordered.is_some() {
            launch.arg(&mut b.found);
        } else {
            launch.arg(&NULL);
        }
        // SAFETY: gsi_join_pieces(table, width, the arguments above from groups to total,
        // piece_length, pieces[2 * capacity], piece_count[1], capacity, piece_found[capacity]
        // | null): the pieces are those gsi_join_rows just wrote for these rows, in the same
        // stream; piece_found only where every row's buffer holds its whole list.
        unsafe { launch.launch(config) }.map_err(driver("launching gsi_join_pieces"))?;
    }
    let Some((place, gba, counts)) = ordered else {
        return Ok(());
    };
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::JoinPiecesClose)?);
    place.push(&mut launch);
    launch.arg(gba).arg(counts);
    launch
        .arg(&b.pieces)
        .arg(&b.count)
        .arg(&capacity)
        .arg(&b.found);
    // SAFETY: gsi_join_pieces_close(offsets | null, offset_base, stride, gba, counts[rows],
    // pieces[2 * capacity], piece_count[1], capacity, piece_found[capacity]): the buffers and
    // pieces gsi_join_pieces just filled, in the same stream.
    unsafe { launch.launch(config) }.map_err(driver("launching gsi_join_pieces_close"))?;
    Ok(())
}

/// `gsi_join_link`: warp per row; each row followed by each of its buffer's vertices, into
/// `next` at the row's new offset.
#[allow(clippy::too_many_arguments)]
pub(super) fn join_link(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    place: &Place<'_>,
    gba: &CudaSlice<u32>,
    counts: &CudaSlice<u32>,
    new_offsets: &CudaSlice<u32>,
    next: &mut CudaSlice<u32>,
) -> Result<()> {
    let mut launch = device
        .stream
        .launch_builder(device.kernel_for_width(Kernel::JoinLink, width)?);
    launch.arg(table).arg(&rows).arg(&width);
    place.push(&mut launch);
    // SAFETY: gsi_join_link(table[rows*width], rows, width, offsets[rows + 1] | null,
    // offset_base, stride, gba, counts[rows], new_offsets[rows + 1],
    // next[new_rows*(width + 1)]): the buffers of the `gsi_join_rows` call that filled `gba`.
    unsafe {
        launch
            .arg(gba)
            .arg(counts)
            .arg(new_offsets)
            .arg(next)
            .launch(warp_per_row(rows))
    }
    .map_err(driver("launching gsi_join_link"))?;
    Ok(())
}

/// `gsi_join_permute`: thread per entry; `rows` matches of `table` into query-vertex order.
pub(super) fn join_permute(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    order: &CudaView<'_, u32>,
    out: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_join_permute(table[rows*width], rows, width, order[width],
    // out[rows*width]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::JoinPermute)?)
            .arg(table)
            .arg(&rows)
            .arg(&width)
            .arg(order)
            .arg(out)
            .launch(per_element(u64::from(rows) * u64::from(width)))
    }
    .map_err(driver("launching gsi_join_permute"))?;
    Ok(())
}

/// What `gsi_join_depth_first`, `gsi_count_packed` and `gsi_join_small` read besides the
/// table and the leaf suffix (`GpuJoin::depth_first_args`).
pub(super) struct DepthFirstArgs<'a> {
    pub(super) first_step: u32,
    pub(super) width: u32,
    pub(super) leaves_from: u32,
    pub(super) links: CudaView<'a, Link>,
    pub(super) total_links: u32,
    pub(super) steps: CudaView<'a, DepthStep>,
    pub(super) order_bounds: CudaView<'a, u32>,
    pub(super) candidates: &'a DeviceCandidates,
    /// 32-bit words of one candidate bitset.
    pub(super) words: u32,
    pub(super) injective: u32,
}

impl<'a> DepthFirstArgs<'a> {
    /// Pushes first_step, width, leaves_from, groups, ci, links, steps[width], order_bounds,
    /// candidate_lists, candidate_bits[q*words], words, injective: what the kernels read
    /// after the table and its rows.
    pub(super) fn push<'b>(
        &'b self,
        launch: &mut cudarc::driver::LaunchArgs<'b>,
        pcsr: &'b DevicePcsr,
    ) {
        launch
            .arg(&self.first_step)
            .arg(&self.width)
            .arg(&self.leaves_from)
            .arg(&pcsr.groups)
            .arg(&pcsr.column_index)
            .arg(&self.links)
            .arg(&self.steps)
            .arg(&self.order_bounds)
            .arg(&self.candidates.lists)
            .arg(&self.candidates.bits)
            .arg(&self.words)
            .arg(&self.injective);
    }
}

/// What `gsi_join_depth_first` keeps between launches: the warps' ranges when they do not fit
/// shared memory, their kept sets (`set_slots` slots of `set_words` words a warp), the pool of
/// tasks (`task_words` words each; a second buffer to move the waiting ones to the front
/// between launches), the counters (`launch::depth_first`) and the count.
pub(super) struct DepthFirstState {
    pub(super) ranges: Buffer<u32>,
    pub(super) sets: Buffer<u32>,
    pub(super) set_slots: u32,
    pub(super) set_words: u32,
    pub(super) tasks: Buffer<u32>,
    pub(super) spare: Option<Buffer<u32>>,
    pub(super) task_words: u32,
    pub(super) capacity: u32,
    pub(super) counters: Buffer<u32>,
    pub(super) total: Buffer<u64>,
}

/// `gsi_join_depth_first`: counts the matches that extend each of `rows` rows of `table`
/// through the remaining steps, the warps taking rows and each other's work from the pool.
#[allow(clippy::too_many_arguments)]
pub(super) fn join_depth_first(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    args: &DepthFirstArgs<'_>,
    leaves: &LeafSuffixArgs<'_>,
    state: &mut DepthFirstState,
    slice_ns: u64,
    deadline_ns: u64,
) -> Result<()> {
    // SAFETY: gsi_join_depth_first(table[rows*first_step], rows, <DepthFirstArgs::push>,
    // <leaf suffix>, total_links, ranges[grid warps*total_links*2],
    // sets[grid warps*set_slots*set_words], set_slots, set_words, tasks[capacity*task_words], task_words, capacity, counters[COUNTERS], total[1],
    // slice_ns, deadline_ns): `ranges` and `sets` are sized for `depth_first_grid`, the plan
    // and the leaf suffix as their `push` say.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::JoinDepthFirst)?);
    launch.arg(table).arg(&rows);
    args.push(&mut launch, pcsr);
    leaves.push(&mut launch);
    launch
        .arg(&args.total_links)
        .arg(&mut state.ranges)
        .arg(&mut state.sets)
        .arg(&state.set_slots)
        .arg(&state.set_words)
        .arg(&mut state.tasks)
        .arg(&state.task_words)
        .arg(&state.capacity)
        .arg(&mut state.counters)
        .arg(&mut state.total)
        .arg(&slice_ns)
        .arg(&deadline_ns);
    unsafe { launch.launch(depth_first_grid(device)) }
        .map_err(driver("launching gsi_join_depth_first"))?;
    Ok(())
}

/// What `gsi_count_packed` keeps between launches: each warp's suspended search
/// (`packed::SEARCH_WORDS` words a warp of its grid), the counters (`launch::packed`), the
/// count, and the places a split lists (a word a warp).
pub(super) struct PackedState {
    pub(super) saved: Buffer<u32>,
    pub(super) counters: Buffer<u32>,
    pub(super) total: Buffer<u64>,
    pub(super) places: Buffer<u32>,
}

/// `gsi_count_packed`: counts the matches that extend each of `rows` rows of `table` through
/// the remaining steps, each level's candidates drawn across 32 partial matches' lists.
#[allow(clippy::too_many_arguments)]
pub(super) fn count_packed(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    args: &DepthFirstArgs<'_>,
    state: &mut PackedState,
    (rows_at_once, suspend_when_idle): (u32, u32),
    slice_ns: u64,
    deadline_ns: u64,
) -> Result<()> {
    // SAFETY: gsi_count_packed(table[rows*first_step], rows, <DepthFirstArgs::push>,
    // saved[grid warps*packed::SEARCH_WORDS], counters[packed::COUNTERS], total[1],
    // rows_at_once, suspend_when_idle, slice_ns, deadline_ns): `saved` is sized for
    // `resident_grid`, the plan as `push` says.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::CountPacked)?);
    launch.arg(table).arg(&rows);
    args.push(&mut launch, pcsr);
    launch
        .arg(&mut state.saved)
        .arg(&mut state.counters)
        .arg(&mut state.total)
        .arg(&rows_at_once)
        .arg(&suspend_when_idle)
        .arg(&slice_ns)
        .arg(&deadline_ns);
    unsafe { launch.launch(resident_grid(device, Kernel::CountPacked)?) }
        .map_err(driver("launching gsi_count_packed"))?;
    Ok(())
}

/// Splits the suspended searches of `state` (of `warps` places) into up to `pieces` each, the
/// pieces going to the places that hold none: `gsi_packed_places` lists both, then
/// `gsi_packed_split` splits the one over the other (its counters `FREE`, `CLAIMED` and
/// `DONORS` zeroed by the caller).
pub(super) fn split_packed(
    device: &Device,
    state: &mut PackedState,
    warps: u32,
    pieces: u32,
) -> Result<()> {
    // SAFETY: gsi_packed_places(saved[warps*packed::SEARCH_WORDS], warps, places[warps],
    // counters[packed::COUNTERS]), a thread per place.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::PackedPlaces)?);
    launch
        .arg(&state.saved)
        .arg(&warps)
        .arg(&mut state.places)
        .arg(&mut state.counters);
    unsafe { launch.launch(per_element(u64::from(warps))) }
        .map_err(driver("launching gsi_packed_places"))?;
    // SAFETY: gsi_packed_split(saved[warps*packed::SEARCH_WORDS], warps, places[warps],
    // counters[packed::COUNTERS], pieces), a warp per listed search.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::PackedSplit)?);
    launch
        .arg(&mut state.saved)
        .arg(&warps)
        .arg(&state.places)
        .arg(&mut state.counters)
        .arg(&pieces);
    unsafe { launch.launch(warp_per_row(warps)) }.map_err(driver("launching gsi_packed_split"))?;
    Ok(())
}

/// Blocks of a launch of `kernel`: as many as stay resident at once (the packed count's
/// searches and the clique count's bitmaps fill much of a multiprocessor's shared memory),
/// so that every warp that suspends a search is one the next launch starts again.
pub(super) fn resident_grid(
    device: &Device,
    kernel: Kernel,
) -> Result<cudarc::driver::LaunchConfig> {
    let resident = device
        .kernel(kernel)?
        .occupancy_max_active_blocks_per_multiprocessor(BLOCK_SIZE, 0, None)
        .map_err(driver(format!("reading {}'s occupancy", kernel.name())))?;
    let mut config = warp_per_row(0);
    config.grid_dim.0 = device.multiprocessors * resident.max(1);
    Ok(config)
}

/// What `gsi_count_cliques` keeps between launches: its counters, the rows it leaves to the
/// packed count, and its count.
pub(super) struct CliqueState {
    pub(super) counters: Buffer<u32>,
    pub(super) overflow: Buffer<u32>,
    pub(super) total: Buffer<u64>,
}

/// `gsi_count_cliques`: counts the matches of a clique's plan that extend each of `rows` rows
/// of a one-column `table` by bitmaps of the row's vertex's higher neighbours, where it has at
/// most `up_to`; the others' vertices go to `state.overflow`.
#[allow(clippy::too_many_arguments)]
pub(super) fn count_cliques(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    args: &DepthFirstArgs<'_>,
    up_to: u32,
    state: &mut CliqueState,
    slice_ns: u64,
    deadline_ns: u64,
) -> Result<()> {
    // SAFETY: gsi_count_cliques(table[rows], rows, <DepthFirstArgs::push>, up_to,
    // counters[cliques::COUNTERS], overflow[rows], total[1], slice_ns, deadline_ns): the
    // caller sizes `overflow` for every row, the plan as `push` says.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::CountCliques)?);
    launch.arg(table).arg(&rows);
    args.push(&mut launch, pcsr);
    launch
        .arg(&up_to)
        .arg(&mut state.counters)
        .arg(&mut state.overflow)
        .arg(&mut state.total)
        .arg(&slice_ns)
        .arg(&deadline_ns);
    unsafe { launch.launch(resident_grid(device, Kernel::CountCliques)?) }
        .map_err(driver("launching gsi_count_cliques"))?;
    Ok(())
}

/// What `gsi_join_small` reads besides the plan: its scratch buffers, state and count.
pub(super) struct SmallState {
    pub(super) buffers: [Buffer<u32>; 2],
    pub(super) capacity_words: u32,
    pub(super) state: Buffer<u32>,
    pub(super) total: Buffer<u64>,
}

/// `gsi_join_small`: joins `rows` rows of `table` breadth-first through every small step in
/// one cooperative launch (every block resident at once, as its grid barrier needs).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_small(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    args: &DepthFirstArgs<'_>,
    leaves: &LeafSuffixArgs<'_>,
    (budget, leaf_bound): (u64, u64),
    small: &mut SmallState,
) -> Result<()> {
    // SAFETY: gsi_join_small(table[rows*first_step], rows, <DepthFirstArgs::push>, <leaf
    // suffix>, budget, leaf_bound, buffer_a, buffer_b [capacity_words each], capacity_words,
    // total[1], state[small::words(width)]): the plan and the leaf suffix as their `push`
    // say; the state zeroed by the caller.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::JoinSmall)?);
    launch.arg(table).arg(&rows);
    args.push(&mut launch, pcsr);
    leaves.push(&mut launch);
    let [a, b] = &mut small.buffers;
    launch
        .arg(&budget)
        .arg(&leaf_bound)
        .arg(a)
        .arg(b)
        .arg(&small.capacity_words)
        .arg(&mut small.total)
        .arg(&mut small.state);
    // As many blocks as stay resident together, up to SMALL_BLOCKS_PER_SM a multiprocessor.
    let resident = device
        .kernel(Kernel::JoinSmall)?
        .occupancy_max_active_blocks_per_multiprocessor(BLOCK_SIZE, 0, None)
        .map_err(driver("reading gsi_join_small's occupancy"))?;
    let mut config = warp_per_row(0);
    config.grid_dim.0 = device.multiprocessors * resident.clamp(1, SMALL_BLOCKS_PER_SM);
    unsafe { launch.launch_cooperative(config) }.map_err(driver("launching gsi_join_small"))?;
    Ok(())
}

/// Blocks of a depth-first launch: as many as the device keeps resident at once, whatever the
/// rows (warps without a row take work from the others).
pub(super) fn depth_first_grid(device: &Device) -> cudarc::driver::LaunchConfig {
    let mut config = warp_per_row(0);
    config.grid_dim.0 = device.multiprocessors * (DEPTH_FIRST_THREADS_PER_SM / BLOCK_SIZE);
    config
}

/// The leaf suffix as the kernels that count it read it (`struct LeafSuffix` in `join.cu`).
pub(super) struct LeafSuffixArgs<'a> {
    pub(super) groups: CudaView<'a, LeafGroupOnDevice>,
    pub(super) group_count: u32,
    pub(super) members: CudaView<'a, u32>,
    pub(super) terms: CudaView<'a, LeafTermOnDevice>,
    pub(super) blocks: CudaView<'a, u32>,
    pub(super) lone: Option<&'a LoneLeafCounts>,
    pub(super) lookup_from: u32,
}

impl<'a> LeafSuffixArgs<'a> {
    pub(super) fn new(
        plan: &'a PlanOnDevice,
        lone: Option<&'a LoneLeafCounts>,
    ) -> LeafSuffixArgs<'a> {
        LeafSuffixArgs {
            groups: plan.typed(&plan.groups),
            group_count: plan.group_count,
            members: plan.typed(&plan.members),
            terms: plan.typed(&plan.terms),
            blocks: plan.typed(&plan.blocks),
            lone,
            lookup_from: lone.map_or(u32::MAX, |l| l.lookup_from),
        }
    }

    /// Pushes leaf_groups[group_count], group_count, members, terms, blocks, counts_at
    /// [group_count] | null, leaf_counts | null, lookup_from: the leaf tables index each other
    /// as `PlanOnDevice::upload` lays them out; counts_at[g] is NO_COUNTS or where group g's
    /// counts start, one per candidate of its member's linked vertex.
    pub(super) fn push<'b>(&'b self, launch: &mut cudarc::driver::LaunchArgs<'b>) {
        launch
            .arg(&self.groups)
            .arg(&self.group_count)
            .arg(&self.members)
            .arg(&self.terms)
            .arg(&self.blocks);
        match self.lone {
            Some(l) => launch.arg(&l.at).arg(&l.counts),
            None => launch.arg(&NULL).arg(&NULL),
        };
        launch.arg(&self.lookup_from);
    }
}

/// Which kernel counts a leaf suffix's products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LeafLanes {
    /// Eight lanes per row, in 64 bits: for short lists.
    Narrow,
    /// A warp per row, in 64 bits.
    Warp,
    /// A warp per row, in 128 bits: where a row's product could pass 2^64 − 1.
    Wide,
}

/// `gsi_join_leaf_product` (or its `_narrow` or `_wide` twin, as `lanes` says): adds to the
/// counter `total` the leaf suffix's matches of each of `rows` rows of `table` (width: the
/// suffix's first step).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_leaf_product(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    plan: &PlanOnDevice,
    candidates: &DeviceCandidates,
    injective: u32,
    leaves: &LeafSuffixArgs<'_>,
    total: &mut CudaSlice<u64>,
    lanes: LeafLanes,
) -> Result<()> {
    let words = candidates.words as u32;
    let (links, steps) = (plan.links(), plan.steps());
    let (kernel, config) = match lanes {
        LeafLanes::Narrow => (
            Kernel::JoinLeafProductNarrow,
            warp_per_row(rows.div_ceil(4)),
        ),
        LeafLanes::Warp => (Kernel::JoinLeafProduct, warp_per_row(rows)),
        LeafLanes::Wide => (Kernel::JoinLeafProductWide, warp_per_row(rows)),
    };
    // SAFETY: gsi_join_leaf_product[_narrow|_wide](table[rows*width], rows, width, groups,
    // ci, links, steps[query width], candidate_lists, candidate_bits[q*words], words,
    // injective, <leaf suffix>, total[3]): the leaf suffix as `LeafSuffixArgs::push` says;
    // the narrow one only for width <= NARROW_MAX_WIDTH.
    let mut launch = device
        .stream
        .launch_builder(device.kernel_for_width(kernel, width)?);
    launch
        .arg(table)
        .arg(&rows)
        .arg(&width)
        .arg(&pcsr.groups)
        .arg(&pcsr.column_index)
        .arg(&links)
        .arg(&steps)
        .arg(&candidates.lists)
        .arg(&candidates.bits)
        .arg(&words)
        .arg(&injective);
    leaves.push(&mut launch);
    launch.arg(total);
    unsafe { launch.launch(config) }.map_err(driver("launching gsi_join_leaf_product"))?;
    Ok(())
}

/// For the lone leaves of one link in a plan's leaf suffix, |N(v, l) ∩ C(u)| per candidate v
/// of the linked vertex (`gsi_leaf_counts`), so that a row whose list is longer than
/// `lookup_from` looks its leaf's count up instead of scanning the list.
pub(super) struct LoneLeafCounts {
    /// Per leaf group, where its counts start in `counts`, or `NO_COUNTS`.
    pub(super) at: Buffer<u32>,
    pub(super) counts: Buffer<u32>,
    pub(super) lookup_from: u32,
}

/// `gsi_leaf_counts`: warp per candidate of `list`; `count` of them into `counts`.
pub(super) fn leaf_counts(
    device: &Device,
    pcsr: &DevicePcsr,
    link: Link,
    list: &CudaView<'_, u32>,
    bits: &CudaView<'_, u32>,
    counts: &mut cudarc::driver::CudaViewMut<'_, u32>,
) -> Result<()> {
    let count = list.len() as u32;
    // SAFETY: gsi_leaf_counts(groups, ci, link, list[count], count, bits[words], counts[count]):
    // `counts` has one element per element of `list`, `link` lies in the PCSR.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::LeafCounts)?)
            .arg(&pcsr.groups)
            .arg(&pcsr.column_index)
            .arg(&link)
            .arg(list)
            .arg(&count)
            .arg(bits)
            .arg(counts)
            .launch(warp_per_row(count))
    }
    .map_err(driver("launching gsi_leaf_counts"))?;
    Ok(())
}

/// The pair count's scratch space, one part per block of its grid: each block's members (E)
/// and its tallies, one word per data vertex (zero between launches).
pub(super) struct PairSpace {
    pub(super) blocks: u32,
    pub(super) members: Buffer<u32>,
    pub(super) member_words: u32,
    pub(super) tallies: Buffer<u32>,
    pub(super) vertices: u32,
}

/// `gsi_count_pairs`: a block per row of `table` (width: x's step), in `space.blocks` blocks;
/// the pairs of x and y at z, `z_step`, added to `total`.
#[allow(clippy::too_many_arguments)]
pub(super) fn count_pairs(
    device: &Device,
    pcsr: &DevicePcsr,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    plan: &PlanOnDevice,
    candidates: &DeviceCandidates,
    z_step: u32,
    space: &mut PairSpace,
    total: &mut CudaSlice<u64>,
) -> Result<()> {
    let words = candidates.words as u32;
    let injective = 1u32;
    let (links, steps, order_bounds) = (plan.links(), plan.steps(), plan.order_bounds());
    let mut config = warp_per_row(0);
    config.grid_dim.0 = space.blocks.min(rows).max(1);
    // SAFETY: gsi_count_pairs(table[rows*width], rows, width, groups, ci, links, steps[query
    // width], candidate_lists, candidate_bits[q*words], words, injective, order_bounds, z_step,
    // members[blocks*member_words], member_words, tallies[blocks*vertices], vertices,
    // total[3]): member_words is at least x's longest source list, the grid at most
    // `blocks`, and the tallies are zero.
    let mut launch = device
        .stream
        .launch_builder(device.kernel_for_width(Kernel::CountPairs, width)?);
    launch
        .arg(table)
        .arg(&rows)
        .arg(&width)
        .arg(&pcsr.groups)
        .arg(&pcsr.column_index)
        .arg(&links)
        .arg(&steps)
        .arg(&candidates.lists)
        .arg(&candidates.bits)
        .arg(&words)
        .arg(&injective)
        .arg(&order_bounds)
        .arg(&z_step)
        .arg(&mut space.members)
        .arg(&space.member_words)
        .arg(&mut space.tallies)
        .arg(&space.vertices)
        .arg(total);
    unsafe { launch.launch(config) }.map_err(driver("launching gsi_count_pairs"))?;
    Ok(())
}
