//! The joining phase on the GPU (host side of `join.cu`): one typed wrapper per kernel, then
//! the GPU's side of the join driver (`crate::join`), which keeps tables and buffers in
//! device memory.

use std::cell::OnceCell;
use std::ops::Range;

use cudarc::driver::{CudaSlice, CudaView, DeviceRepr, PushKernelArg};
use gsi_kernels::Kernel;

use super::candidates::DeviceCandidates;
use super::device::Device;
use super::index::{DevicePcsr, Link};
use super::launch::{per_element, warp_per_row, BLOCK_SIZE, MAX_WIDTH, NARROW_MAX_WIDTH};
use super::scan::exclusive_scan;
use crate::error::{driver, Result};
use crate::join::{BufferLayout, FilledBuffers, JoinBackend, SmallEnd, SmallSteps};
use crate::options::{MatchOptions, StepBalance};
use crate::plan::Plan;
use crate::sink::MatchSink;

/// Largest buffer (in u32 entries) one run may pre-allocate: keeps every offset in u32.
const MAX_RUN_ENTRIES: usize = 1 << 31;
/// Rows of a first run under a limit: a few warps' worth, one launch each step.
const FIRST_RUN_ROWS: usize = 256;
/// Threads per multiprocessor of a depth-first launch (the most an H100's keeps resident).
const DEPTH_FIRST_THREADS_PER_SM: u32 = 2048;
/// How long a depth-first launch takes new work when a limit is set.
const LIMITED_SLICE: std::time::Duration = std::time::Duration::from_millis(2);
/// Tasks the depth-first pool holds (levels handed from warp to warp: at the end of a launch
/// every warp hands over each level with work left).
const DEPTH_FIRST_TASKS: u32 = 1 << 17;
/// Words of each of the two tables of the small steps' launch (16 MiB each, less under a
/// small memory budget): a step whose new table would overflow it is left to the
/// breadth-first join.
const SMALL_BUFFER_WORDS: usize = 1 << 22;
/// Most blocks per multiprocessor of the small steps' launch: enough warps for a step of a
/// few thousand rows, few enough that the grid barrier stays short.
const SMALL_BLOCKS_PER_SM: u32 = 4;

// ---------------------------------------------------------------------------------------------
// Typed wrappers of `join.cu`.

/// Where each row's buffer lies in the GBA, as `gsi_join_rows` and `gsi_join_link` read it.
enum Place<'a> {
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
    fn push<'b>(&'b self, launch: &mut cudarc::driver::LaunchArgs<'b>) {
        match self {
            Place::Offsets { offsets, base } => launch.arg(offsets).arg(base).arg(&ZERO),
            Place::Uniform { stride } => launch.arg(&NULL).arg(&ZERO).arg(stride),
        };
    }
}

/// What `gsi_join_rows` does with each row's extensions.
enum RowsOutput<'a> {
    /// Writes them into the row's buffer and their number into `counts`.
    Buffers {
        place: Place<'a>,
        gba: &'a mut CudaSlice<u32>,
        counts: &'a mut CudaSlice<u32>,
    },
    /// Only counts them, adding every row's count to `total[0]`.
    Count { total: &'a mut CudaSlice<u64> },
    /// Only counts them, each row's count into `counts` (the first pass of the two-step
    /// output scheme).
    RowCounts { counts: &'a mut CudaSlice<u32> },
}

/// What every row of one step reads in `gsi_join_rows`.
struct StepArgs<'a> {
    table: CudaView<'a, u32>,
    rows: u32,
    width: u32,
    /// The linking edges, then the absent ones (induced matching).
    links: CudaView<'a, Link>,
    link_count: u32,
    absent_count: u32,
    has_first: u32,
    /// The step's order bounds: a column each, [`ABOVE`] set for "above".
    order_bounds: CudaView<'a, u32>,
    candidate_list: CudaView<'a, u32>,
    candidate_bits: CudaView<'a, u32>,
    injective: u32,
}

/// The flag of an order bound that keeps a step's match above its column's (`ABOVE` in
/// `prelude.cuh`).
const ABOVE: u32 = 1 << 31;

/// A null device pointer, for the arguments a mode does not use.
const NULL: u64 = 0;

/// `gsi_join_bounds`: warp per row; the buffer bound of each of `rows` rows into `bounds`.
#[allow(clippy::too_many_arguments)]
fn join_bounds(
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
struct Balance {
    /// List length from which a row's list is cut into pieces for whole blocks.
    from: u32,
    /// Most elements of one piece (a block's share).
    piece_length: u32,
    /// (row, start) per piece.
    pieces: CudaSlice<u32>,
    /// Pieces taken (may pass the capacity: the pool is then full).
    count: CudaSlice<u32>,
    /// Survivors per piece, when pieces write their rows' buffers in order.
    found: CudaSlice<u32>,
}

/// Pieces the pool holds; a warp that finds it full does its row itself.
const PIECE_CAPACITY: usize = 1 << 16;
/// Blocks of a `gsi_join_pieces` launch; blocks loop over the pieces.
const PIECE_BLOCKS: u32 = 2048;

impl Balance {
    /// The pool for rows whose lists are longer than `from` elements; pieces of 16 times
    /// that (the paper's W1 = 16 W3), at least a warp's 32.
    fn new(device: &Device, from: usize) -> Result<Balance> {
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
enum Tests {
    All,
    FirstEdge,
}

/// What `gsi_join_refilter` keeps of a row's buffer (`KEEP_*` in `join.cu`).
#[derive(Clone, Copy)]
enum Keep {
    /// The elements in the list of a linking edge.
    Linked = 0,
    /// Those not in it (an absent edge of induced matching).
    Unlinked = 1,
    /// Those not in the row (the subtraction).
    Unmatched = 2,
}

/// `gsi_join_refilter`: warp per row; keeps of each row's buffer what `keep` says, against
/// the step's link `link` (unused for [`Keep::Unmatched`]).
#[allow(clippy::too_many_arguments)]
fn join_refilter(
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
/// `pool_from` (Sec. 6.1's third layer; `u32::MAX`: none), the block's shared reads of short
/// first-edge lists (Sec. 6.2's duplicate removal) and the warp's write cache (Sec. 5); and
/// whether rows cut into pieces keep their extensions in order (`gsi_join_pieces_close`),
/// which listed matches need and which needs each row's buffer as long as its list (not so
/// under the two-step scheme).
struct RowPaths {
    pool_from: u32,
    remove_duplicates: u32,
    write_cache: u32,
    ordered_pieces: bool,
}

/// `gsi_join_rows`: warp per row; Algorithm 3 lines 5-12 for every row of `step`; then, with
/// `balance`, `gsi_join_pieces`: a block per piece of the lists the warps left. `narrow`
/// takes `gsi_join_rows_narrow` instead, which has none of the `paths`.
fn join_rows(
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
    // absent], count, absent, has_first, order_bounds[count], count, candidate_list[|C(u)|], |C(u)|,
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
fn join_link(
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
fn join_permute(
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

/// One step as `gsi_join_depth_first` and `gsi_join_small` read it (`struct DepthStep` in
/// `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DepthStep {
    vertex: u32,
    links_from: u32,
    link_count: u32,
    absent_count: u32,
    has_first: u32,
    candidates_from: u32,
    candidate_count: u32,
    order_bounds_from: u32,
    order_bound_count: u32,
    max_bound: u32,
}

// SAFETY: `DepthStep` is `repr(C)`, ten u32, the layout of the kernel's `struct DepthStep`.
unsafe impl DeviceRepr for DepthStep {}

/// 32-bit words of a [`DepthStep`].
const DEPTH_STEP_WORDS: usize = 10;
const _: () = assert!(std::mem::size_of::<DepthStep>() == 4 * DEPTH_STEP_WORDS);

impl DepthStep {
    /// Its fields in order, as the plan's upload lays them out.
    fn words(&self) -> [u32; DEPTH_STEP_WORDS] {
        [
            self.vertex,
            self.links_from,
            self.link_count,
            self.absent_count,
            self.has_first,
            self.candidates_from,
            self.candidate_count,
            self.order_bounds_from,
            self.order_bound_count,
            self.max_bound,
        ]
    }
}

/// What `gsi_join_depth_first` and `gsi_join_small` read besides the table and the leaf
/// suffix.
struct DepthFirstArgs<'a> {
    first_step: u32,
    width: u32,
    leaves_from: u32,
    links: &'a CudaView<'a, Link>,
    total_links: u32,
    steps: &'a CudaView<'a, DepthStep>,
    order_bounds: &'a CudaView<'a, u32>,
    candidates: &'a DeviceCandidates,
    /// 32-bit words of one candidate bitset.
    words: u32,
    injective: u32,
}

impl<'a> DepthFirstArgs<'a> {
    /// Pushes first_step, width, leaves_from, groups, ci, links, steps[width], order_bounds,
    /// candidate_lists, candidate_bits[q*words], words, injective: what both kernels read
    /// after the table and its rows.
    fn push<'b>(&'b self, launch: &mut cudarc::driver::LaunchArgs<'b>, pcsr: &'b DevicePcsr) {
        launch
            .arg(&self.first_step)
            .arg(&self.width)
            .arg(&self.leaves_from)
            .arg(&pcsr.groups)
            .arg(&pcsr.column_index)
            .arg(self.links)
            .arg(self.steps)
            .arg(self.order_bounds)
            .arg(&self.candidates.lists)
            .arg(&self.candidates.bits)
            .arg(&self.words)
            .arg(&self.injective);
    }
}

/// What `gsi_join_depth_first` keeps between launches: the warps' ranges when they do not fit
/// shared memory, the pool of tasks (`task_words` words each; a second buffer to move the
/// waiting ones to the front between launches), the counters (`launch::depth_first`) and the
/// count.
struct DepthFirstState {
    ranges: CudaSlice<u32>,
    tasks: CudaSlice<u32>,
    spare: Option<CudaSlice<u32>>,
    task_words: u32,
    capacity: u32,
    counters: CudaSlice<u32>,
    total: CudaSlice<u64>,
}

/// `gsi_join_depth_first`: counts the matches that extend each of `rows` rows of `table`
/// through the remaining steps, the warps taking rows and each other's work from the pool.
#[allow(clippy::too_many_arguments)]
fn join_depth_first(
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
    // tasks[capacity*task_words], task_words, capacity, counters[COUNTERS], total[1],
    // slice_ns, deadline_ns): `ranges` is sized for `depth_first_grid`, the plan and the leaf
    // suffix as their `push` say.
    let mut launch = device
        .stream
        .launch_builder(device.kernel(Kernel::JoinDepthFirst)?);
    launch.arg(table).arg(&rows);
    args.push(&mut launch, pcsr);
    leaves.push(&mut launch);
    launch
        .arg(&args.total_links)
        .arg(&mut state.ranges)
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

/// What `gsi_join_small` reads besides the plan: its scratch buffers, state and count.
struct SmallState {
    buffers: [CudaSlice<u32>; 2],
    capacity_words: u32,
    state: CudaSlice<u32>,
    total: CudaSlice<u64>,
}

/// `gsi_join_small`: joins `rows` rows of `table` breadth-first through every small step in
/// one cooperative launch (every block resident at once, as its grid barrier needs).
#[allow(clippy::too_many_arguments)]
fn join_small(
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
fn depth_first_grid(device: &Device) -> cudarc::driver::LaunchConfig {
    let mut config = warp_per_row(0);
    config.grid_dim.0 = device.multiprocessors * (DEPTH_FIRST_THREADS_PER_SM / BLOCK_SIZE);
    config
}

/// A leaf group as `gsi_join_leaf_product` reads it (`struct LeafGroup` in `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LeafGroupOnDevice {
    members_from: u32,
    member_count: u32,
    terms_from: u32,
    term_count: u32,
}

// SAFETY: `repr(C)`, four u32, the layout of the kernel's `struct LeafGroup`.
unsafe impl DeviceRepr for LeafGroupOnDevice {}

const _: () = assert!(std::mem::size_of::<LeafGroupOnDevice>() == 4 * 4);

impl LeafGroupOnDevice {
    /// Its fields in order, as the plan's upload lays them out.
    fn words(&self) -> [u32; 4] {
        [
            self.members_from,
            self.member_count,
            self.terms_from,
            self.term_count,
        ]
    }
}

/// A term of a leaf group (`struct LeafTerm` in `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LeafTermOnDevice {
    coefficient: i32,
    blocks_from: u32,
    block_count: u32,
}

// SAFETY: `repr(C)`, an i32 and two u32, the layout of the kernel's `struct LeafTerm`.
unsafe impl DeviceRepr for LeafTermOnDevice {}

const _: () = assert!(std::mem::size_of::<LeafTermOnDevice>() == 4 * 3);

impl LeafTermOnDevice {
    /// Its fields in order (the coefficient as its two's complement), as the plan's upload
    /// lays them out.
    fn words(&self) -> [u32; 3] {
        [self.coefficient as u32, self.blocks_from, self.block_count]
    }
}

/// The plan on the device, copied in one transfer per query: every step's linking edges
/// (`Link`), the join order, the steps as the depth-first and leaf kernels read them
/// (`DepthStep`), every step's order bounds, and the leaf suffix (`crate::plan::LeafSuffix`) flattened into groups,
/// members, terms and blocks. Every record is made of 32-bit words, so each section is a
/// typed view of one buffer.
struct PlanOnDevice {
    words: CudaSlice<u32>,
    links: Range<usize>,
    order: Range<usize>,
    steps: Range<usize>,
    order_bounds: Range<usize>,
    groups: Range<usize>,
    members: Range<usize>,
    terms: Range<usize>,
    blocks: Range<usize>,
    group_count: u32,
}

/// Appends `items` to `words`; returns where they lie.
fn section(words: &mut Vec<u32>, items: impl IntoIterator<Item = u32>) -> Range<usize> {
    let start = words.len();
    words.extend(items);
    start..words.len()
}

impl PlanOnDevice {
    fn upload(
        device: &Device,
        plan: &Plan,
        links: &[Link],
        steps: &[DepthStep],
    ) -> Result<PlanOnDevice> {
        let mut words: Vec<u32> = Vec::new();
        let links = section(&mut words, links.iter().flat_map(Link::words));
        let order = section(&mut words, plan.steps.iter().map(|s| s.vertex as u32));
        let steps = section(&mut words, steps.iter().flat_map(DepthStep::words));
        let order_bounds = section(
            &mut words,
            plan.steps
                .iter()
                .flat_map(|s| &s.order_bounds)
                .map(|b| b.column as u32 | if b.above { ABOVE } else { 0 }),
        );
        let (mut leaf_groups, mut members, mut terms, mut blocks) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for group in &plan.leaves.groups {
            leaf_groups.push(LeafGroupOnDevice {
                members_from: members.len() as u32,
                member_count: group.steps.len() as u32,
                terms_from: terms.len() as u32,
                term_count: group.terms.len() as u32,
            });
            members.extend(group.steps.iter().map(|&s| s as u32));
            for term in &group.terms {
                terms.push(LeafTermOnDevice {
                    coefficient: term.coefficient as i32,
                    blocks_from: blocks.len() as u32,
                    block_count: term.blocks.len() as u32,
                });
                blocks.extend_from_slice(&term.blocks);
            }
        }
        let groups = section(
            &mut words,
            leaf_groups.iter().flat_map(LeafGroupOnDevice::words),
        );
        let members = section(&mut words, members);
        let terms = section(&mut words, terms.iter().flat_map(LeafTermOnDevice::words));
        let blocks = section(&mut words, blocks);
        Ok(PlanOnDevice {
            words: device.upload(&words, "the join plan")?,
            links,
            order,
            steps,
            order_bounds,
            groups,
            members,
            terms,
            blocks,
            group_count: plan.leaves.groups.len() as u32,
        })
    }

    /// Section `words` as records of `T`.
    fn typed<T>(&self, words: &Range<usize>) -> CudaView<'_, T> {
        let len = 4 * words.len() / std::mem::size_of::<T>();
        // SAFETY: every `T` read through here (u32, `Link`, `DepthStep`, `LeafGroupOnDevice`,
        // `LeafTermOnDevice`) is `repr(C)` of 32-bit fields, and `upload` writes each section
        // as whole records in that field order.
        unsafe { self.words.slice(words.clone()).transmute::<T>(len) }
            .expect("a section holds whole records")
    }

    fn links(&self) -> CudaView<'_, Link> {
        self.typed(&self.links)
    }

    fn order(&self) -> CudaView<'_, u32> {
        self.typed(&self.order)
    }

    fn steps(&self) -> CudaView<'_, DepthStep> {
        self.typed(&self.steps)
    }

    fn order_bounds(&self) -> CudaView<'_, u32> {
        self.typed(&self.order_bounds)
    }
}

/// The leaf suffix as the kernels that count it read it (`struct LeafSuffix` in `join.cu`).
struct LeafSuffixArgs<'a> {
    groups: CudaView<'a, LeafGroupOnDevice>,
    group_count: u32,
    members: CudaView<'a, u32>,
    terms: CudaView<'a, LeafTermOnDevice>,
    blocks: CudaView<'a, u32>,
    lone: Option<&'a LoneLeafCounts>,
    lookup_from: u32,
}

impl<'a> LeafSuffixArgs<'a> {
    fn new(plan: &'a PlanOnDevice, lone: Option<&'a LoneLeafCounts>) -> LeafSuffixArgs<'a> {
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
    fn push<'b>(&'b self, launch: &mut cudarc::driver::LaunchArgs<'b>) {
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

/// `gsi_join_leaf_product`: warp per row (`gsi_join_leaf_product_narrow`: eight lanes per
/// row, when `narrow`); adds to `total` the leaf suffix's matches of each of `rows` rows of
/// `table` (width: the suffix's first step).
#[allow(clippy::too_many_arguments)]
fn join_leaf_product(
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
    narrow: bool,
) -> Result<()> {
    let words = candidates.words as u32;
    let (links, steps) = (plan.links(), plan.steps());
    let (kernel, config) = match narrow {
        true => (
            Kernel::JoinLeafProductNarrow,
            warp_per_row(rows.div_ceil(4)),
        ),
        false => (Kernel::JoinLeafProduct, warp_per_row(rows)),
    };
    // SAFETY: gsi_join_leaf_product[_narrow](table[rows*width], rows, width, groups, ci,
    // links, steps[query width], candidate_lists, candidate_bits[q*words], words, injective,
    // <leaf suffix>, total[1]): the leaf suffix as `LeafSuffixArgs::push` says; the narrow
    // one only for width <= NARROW_MAX_WIDTH.
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

/// A group without precomputed counts (`NO_COUNTS` in `join.cu`).
const NO_COUNTS: u32 = u32::MAX;

/// For the lone leaves of one link in a plan's leaf suffix, |N(v, l) ∩ C(u)| per candidate v
/// of the linked vertex (`gsi_leaf_counts`), so that a row whose list is longer than
/// `lookup_from` looks its leaf's count up instead of scanning the list.
struct LoneLeafCounts {
    /// Per leaf group, where its counts start in `counts`, or `NO_COUNTS`.
    at: CudaSlice<u32>,
    counts: CudaSlice<u32>,
    lookup_from: u32,
}

/// `gsi_leaf_counts`: warp per candidate of `list`; `count` of them into `counts`.
fn leaf_counts(
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

// ---------------------------------------------------------------------------------------------
// The GPU's side of the join driver.

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
    device: &'a Device,
    pcsr: &'a DevicePcsr,
    plan: &'a Plan,
    candidates: &'a DeviceCandidates,
    injective: u32,
    steps: Vec<StepLinks>,
    /// The plan on the device.
    on_device: PlanOnDevice,
    options: &'a MatchOptions,
    /// The pool of Sec. 6.1's load balance, made when a step's lists can first be long
    /// enough (most queries never need it).
    balance: Option<Balance>,
    /// The lone leaves' counts, made at the first count of the leaf suffix.
    lone_leaves: Option<LoneLeafCounts>,
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
        listing: bool,
    ) -> Result<GpuJoin<'a>> {
        let sizes = candidates.sizes();
        let mut steps = Vec::with_capacity(plan.width());
        let mut links = Vec::new();
        let mut order_bounds_from = 0;
        for step in &plan.steps {
            let links_from = links.len();
            links.extend(
                step.links()
                    .map(|e| pcsr.link(e.column, e.label, e.direction)),
            );
            let count = links.len() - links_from;
            links.extend(
                step.absent
                    .iter()
                    .map(|e| pcsr.link(e.column, e.label, e.direction)),
            );
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
        let depth_steps: Vec<DepthStep> = plan
            .steps
            .iter()
            .zip(&steps)
            .map(|(step, s)| DepthStep {
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
            })
            .collect();
        Ok(GpuJoin {
            balance: None,
            lone_leaves: None,
            listing,
            on_device: PlanOnDevice::upload(device, plan, &links, &depth_steps)?,
            options,
            device,
            pcsr,
            plan,
            candidates,
            injective: u32::from(options.semantics.injective()),
            steps,
        })
    }

    /// The counts of the leaf suffix's lone leaves of one link, when
    /// `options.leaf_counts_from` asks for them and there are any.
    fn lone_leaf_counts(&self) -> Result<Option<LoneLeafCounts>> {
        let Some(from) = self.options.leaf_counts_from else {
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
                .options
                .block_pool_from
                .map_or(u32::MAX, |from| u32::try_from(from).unwrap_or(u32::MAX)),
            remove_duplicates: u32::from(self.options.duplicate_removal),
            write_cache: u32::from(self.options.write_cache),
            ordered_pieces: self.listing && !self.options.two_step_output,
        };
        let mut args = self.step_args(step, table, rows);
        if tests == Tests::FirstEdge {
            args.link_count = args.has_first;
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
    /// list of those steps short (`options.narrow_rows_up_to`), and the row and each step's
    /// lists within what the narrow kernels keep.
    fn narrow(&self, width: usize, steps: &Range<usize>) -> bool {
        let Some(up_to) = self.options.narrow_rows_up_to else {
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
        if self.options.naive_set_operations || !self.tests_fit(step) {
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
        self.options
            .balance_from
            .is_some_and(|from| self.steps[step].max_bound > from)
    }

    /// Takes the load-balance pool out for `step` (made at first need), when its lists can
    /// be longer than the threshold; it goes back once the step's rows are done.
    fn take_balance(&mut self, step: usize) -> Result<Option<Balance>> {
        let Some(from) = self.options.balance_from else {
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
    fn view<'t>(
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
    ) -> Result<(CudaSlice<u32>, u32)> {
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
    ) -> Result<(CudaSlice<u32>, u32)> {
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

/// A table on the device.
pub(crate) enum DeviceTable {
    /// The first table: C(u0), in place in the candidate lists from `start`.
    Candidates { start: usize },
    /// A table the join built.
    Owned(CudaSlice<u32>),
}

/// Algorithm 4's placement of a run's buffers.
pub(crate) enum DeviceLayout {
    /// Every row gets the step's largest bound.
    Uniform { first_row: usize, stride: usize },
    /// The prefix sum of the rows' bounds, and its host copy once a part of the run asks.
    Offsets {
        first_row: usize,
        rows: usize,
        offsets: CudaSlice<u32>,
        total: u32,
        host: OnceCell<Vec<u32>>,
    },
}

impl DeviceLayout {
    /// The offsets of table rows `rows` on the host (copied from the device once).
    fn host_offsets(&self, rows: &Range<usize>) -> Result<(u32, u32)> {
        match self {
            DeviceLayout::Uniform { first_row, stride } => Ok((
                ((rows.start - first_row) * stride) as u32,
                ((rows.end - first_row) * stride) as u32,
            )),
            DeviceLayout::Offsets {
                first_row,
                rows: run,
                offsets,
                total,
                host,
            } => {
                if rows.start == *first_row && rows.len() == *run {
                    return Ok((0, *total));
                }
                let host = match host.get() {
                    Some(h) => h,
                    None => {
                        let copied = offsets
                            .stream()
                            .clone_dtoh(offsets)
                            .map_err(driver("reading buffer offsets"))?;
                        host.get_or_init(|| copied)
                    }
                };
                Ok((host[rows.start - first_row], host[rows.end - first_row]))
            }
        }
    }
}

impl BufferLayout for DeviceLayout {
    fn entries(&self, rows: Range<usize>) -> Result<usize> {
        let (from, to) = self.host_offsets(&rows)?;
        Ok((to - from) as usize)
    }

    fn bytes(&self) -> usize {
        match self {
            DeviceLayout::Uniform { .. } => 0,
            DeviceLayout::Offsets { rows, .. } => 4 * (rows + 1),
        }
    }
}

/// A run's filled buffers on the device, with where they were placed.
pub(crate) struct DeviceFilled {
    gba: CudaSlice<u32>,
    counts: CudaSlice<u32>,
    /// Exclusive prefix sum of `counts`: each row's first row in the new table.
    new_offsets: CudaSlice<u32>,
    new_rows: usize,
    /// The rows' first offset in their run's prefix sum (with offsets), else 0.
    base: u32,
    bytes: usize,
}

impl FilledBuffers for DeviceFilled {
    fn new_rows(&self) -> usize {
        self.new_rows
    }

    fn bytes(&self) -> usize {
        self.bytes
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
    ) -> Result<CudaSlice<u32>> {
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

impl GpuJoin<'_> {
    /// Counts the leaf suffix's matches for `rows` of a table at the suffix's first step.
    fn count_leaf_products(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
    ) -> Result<u64> {
        if self.lone_leaves.is_none() {
            self.lone_leaves = self.lone_leaf_counts()?;
        }
        let mut total = self
            .device
            .stream
            .alloc_zeros::<u64>(1)
            .map_err(driver("allocating the match counter"))?;
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
            self.narrow(step, &(step..self.plan.width())),
        )?;
        let found = self
            .device
            .stream
            .clone_dtoh(&total)
            .map_err(driver("reading the match count"))?;
        Ok(found[0])
    }

    /// Counts the matches extending `rows` through every remaining step, depth-first (the leaf
    /// suffix as products), in launches that each take new work for `options.depth_first_slice`;
    /// between launches the stop conditions and `enough` are looked at, and the tasks left in
    /// the pool are moved to its front for the next launch.
    fn count_depth_first(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: Range<usize>,
        enough: Option<u64>,
    ) -> Result<u64> {
        use super::launch::depth_first::{ABANDONED, COUNTERS, HEAD, NEXT_ROW, TAIL};
        if self.plan.leaves.from < self.plan.width() && self.lone_leaves.is_none() {
            self.lone_leaves = self.lone_leaf_counts()?;
        }
        let count = rows.len();
        let view = self.view(table, rows, step);
        let links = self.on_device.links();
        let steps = self.on_device.steps();
        let order_bounds = self.on_device.order_bounds();
        let leaves = LeafSuffixArgs::new(&self.on_device, self.lone_leaves.as_ref());
        let total_links = links.len() as u32;
        let grid = depth_first_grid(self.device);
        let warps = grid.grid_dim.0 as usize * (BLOCK_SIZE as usize / 32);
        let width = self.plan.width();
        // A task: its level word, read and mask, then up to `width` columns; whole 128-byte
        // lines.
        let task_words = (3 + width).next_multiple_of(32);
        let capacity = DEPTH_FIRST_TASKS as usize;
        let stream = &self.device.stream;
        let zeros = |what: &str, n: usize| {
            stream
                .alloc_zeros::<u32>(n.max(1))
                .map_err(driver(format!("allocating {what}")))
        };
        let mut state = DepthFirstState {
            ranges: zeros("the depth-first ranges", warps * total_links as usize * 2)?,
            tasks: zeros("the depth-first pool", capacity * task_words)?,
            spare: None,
            task_words: task_words as u32,
            capacity: capacity as u32,
            counters: zeros("the depth-first counters", COUNTERS)?,
            total: stream
                .alloc_zeros::<u64>(1)
                .map_err(driver("allocating the match counter"))?,
        };
        let args = DepthFirstArgs {
            first_step: step as u32,
            width: width as u32,
            leaves_from: self.plan.leaves.from as u32,
            links: &links,
            total_links,
            steps: &steps,
            order_bounds: &order_bounds,
            candidates: self.candidates,
            words: self.candidates.words as u32,
            injective: self.injective,
        };
        loop {
            let deadline_ns = self.options.deadline.map_or(u64::MAX, |d| {
                d.saturating_duration_since(std::time::Instant::now())
                    .as_nanos() as u64
            });
            // With a limit, the count is looked at soon: K matches are often found at once.
            let slice = match enough {
                Some(_) => self.options.depth_first_slice.min(LIMITED_SLICE),
                None => self.options.depth_first_slice,
            };
            let slice_ns = slice.as_nanos().max(1) as u64;
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
            let counters = stream
                .clone_dtoh(&state.counters)
                .map_err(driver("reading the depth-first counters"))?;
            let total = stream
                .clone_dtoh(&state.total)
                .map_err(driver("reading the match count"))?[0];
            let (head, tail) = (counters[HEAD] as usize, counters[TAIL] as usize);
            let rows_left = (counters[NEXT_ROW] as usize) < count;
            if counters[ABANDONED] != 0
                || (!rows_left && head >= tail)
                || self.options.stop().is_some()
                || enough.is_some_and(|k| total >= k)
            {
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
                    None => state
                        .spare
                        .insert(zeros("the depth-first pool", capacity * task_words)?),
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
        let (offsets, total) = if self.options.two_step_output {
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
                    .options
                    .block_pool_from
                    .is_some_and(|from| s.max_bound > from),
            duplicates_removed: warp_per_row && self.options.duplicate_removal && s.has_first,
        }
    }

    fn join_small(
        &mut self,
        step: usize,
        table: &DeviceTable,
        rows: usize,
    ) -> Result<Option<SmallSteps<DeviceTable>>> {
        use super::launch::small;
        let Some(budget) = self.options.small_steps_up_to.filter(|_| !self.wide()) else {
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
        if rows.saturating_mul(bound) > budget {
            return Ok(None);
        }
        let stream = &self.device.stream;
        // Both tables within half the memory budget.
        let capacity_words = SMALL_BUFFER_WORDS.min(self.options.memory_budget / 16);
        let mut state = SmallState {
            buffers: [
                self.device
                    .alloc(capacity_words, "the small steps' tables")?,
                self.device
                    .alloc(capacity_words, "the small steps' tables")?,
            ],
            capacity_words: capacity_words as u32,
            state: stream
                .alloc_zeros::<u32>(small::words(width))
                .map_err(driver("allocating the small steps' state"))?,
            total: stream
                .alloc_zeros::<u64>(1)
                .map_err(driver("allocating the match counter"))?,
        };
        let links = self.on_device.links();
        let steps = self.on_device.steps();
        let order_bounds = self.on_device.order_bounds();
        let args = DepthFirstArgs {
            first_step: step as u32,
            width: width as u32,
            leaves_from: self.plan.leaves.from as u32,
            links: &links,
            total_links: links.len() as u32,
            steps: &steps,
            order_bounds: &order_bounds,
            candidates: self.candidates,
            words: self.candidates.words as u32,
            injective: self.injective,
        };
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
            let found = stream
                .clone_dtoh(&state.total)
                .map_err(driver("reading the match count"))?[0];
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
        // Even with work stealing, measured slower than breadth-first on yeast's 1,458 and on
        // gw12 from every threshold tried (H100, 2026-11-23, docs/BENCHMARKS.md). Taken only
        // when asked for (`MatchOptions::depth_first_rows`).
        (!self.wide()).then_some(usize::MAX)
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
        enough: Option<u64>,
    ) -> Result<u64> {
        if step == self.plan.leaves.from {
            return self.count_leaf_products(step, table, rows);
        }
        if step + 1 < self.plan.width() {
            return self.count_depth_first(step, table, rows, enough);
        }
        let mut total = self
            .device
            .stream
            .alloc_zeros::<u64>(1)
            .map_err(driver("allocating the match counter"))?;
        self.rows_on_device(
            step,
            table,
            &rows,
            RowsOutput::Count { total: &mut total },
            Tests::All,
        )?;
        let found = self
            .device
            .stream
            .clone_dtoh(&total)
            .map_err(driver("reading the match count"))?;
        Ok(found[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_step_is_uploaded_whole() {
        // A field added to the struct but not to `words` would shift every later step.
        assert_eq!(
            std::mem::size_of::<DepthStep>(),
            4 * DepthStep::default().words().len()
        );
    }
}
