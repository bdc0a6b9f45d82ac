//! Launch shapes and the constants the kernels share with the host, in one place: every
//! kernel gets them as NVRTC `-D` options made from the Rust constants below.

use cudarc::driver::LaunchConfig;

use super::join::kept_sets::{KEPT_LEVELS, NO_SLOT};
use super::join::layout::{self, LIST_CUT_ABOVE, LIST_CUT_BELOW, LIST_WHOLE};
use crate::config::ListIndex;
use crate::pcsr::{EMPTY_SLOT, GROUP_WORDS, KEYS_PER_GROUP, NO_GROUP};
use crate::plan::{MAX_LEAF_GROUP, MAX_LEAF_LINKS};
use crate::signature::SIGNATURE_WORDS;

/// Threads per block of every kernel (the paper's W2 for the block-level balance).
pub const BLOCK_SIZE: u32 = 256;
/// Widest intermediate table whose rows the standard build keeps in shared memory, and most
/// edge tests a step of `gsi_join_rows` makes at once; wider plans take the wide build
/// (`WIDE_TABLES`), and a step with more tests makes them one pass each.
pub const MAX_WIDTH: usize = 128;
/// Widest table, and most lists a row reads, of `gsi_join_rows_narrow` (eight lanes per row
/// keep 32 rows of a block in shared memory).
pub const NARROW_MAX_WIDTH: usize = 32;
/// Longest first-edge list that `gsi_join_rows`'s duplicate removal (Sec. 6.2) reads once
/// for its block, into shared memory: the paper's W3, below which a warp joins its row alone.
pub const SHARED_LIST_WORDS: usize = 128;
/// Blocks of a warp-per-row kernel; warps loop over the remaining rows.
const MAX_ROW_BLOCKS: u32 = 1 << 14;

/// The counters of a depth-first count (`gsi_join_depth_first`), words of one device buffer
/// kept between launches: the next row of the table to take, the next task of the pool to
/// take, one past the last task reserved, warps holding work, warps waiting for work, and
/// whether a warp gave up at the deadline.
pub mod depth_first {
    /// Words between two counters: each has a 128-byte line of its own, so that warps
    /// reading one do not queue behind atomics on another.
    const LINE: usize = 32;
    /// The next row of the table to take.
    pub const NEXT_ROW: usize = 0;
    /// The next task of the pool to take.
    pub const HEAD: usize = LINE;
    /// One past the last task reserved.
    pub const TAIL: usize = 2 * LINE;
    /// Warps holding work.
    pub const BUSY: usize = 3 * LINE;
    /// Warps waiting for work.
    pub const HUNGRY: usize = 4 * LINE;
    /// Set when a warp gave up at the deadline.
    pub const ABANDONED: usize = 5 * LINE;
    /// Words of the counters.
    pub const COUNTERS: usize = 6 * LINE;
}

/// The counters of a packed depth-first count (`gsi_count_packed`), words of one device buffer
/// kept between launches, and the widest plan it takes.
pub mod packed {
    /// Words between two counters (a 128-byte line each).
    const LINE: usize = 32;
    /// The next row of the table to take.
    pub const NEXT_ROW: usize = 0;
    /// Warps whose search is suspended until the next launch.
    pub const SUSPENDED: usize = LINE;
    /// Set when a warp gave up at the deadline.
    pub const ABANDONED: usize = 2 * LINE;
    /// Warps that found no row left.
    pub const IDLE: usize = 3 * LINE;
    /// Places of the searches that hold no suspended search, listed before a split.
    pub const FREE: usize = 4 * LINE;
    /// Free places a split claimed.
    pub const CLAIMED: usize = 5 * LINE;
    /// Suspended searches listed before a split.
    pub const DONORS: usize = 6 * LINE;
    /// Words of the counters.
    pub const COUNTERS: usize = 7 * LINE;
    /// Most steps of a plan it counts (a warp keeps 32 lists for each level after the
    /// table's, in shared memory).
    pub const WIDTH: usize = 8;
    /// Words of one warp's search (`struct PackedSearch`): the 32 table rows it took, five
    /// words for each of 32 lists or entries per level, three per level, and two.
    pub const SEARCH_WORDS: usize = 32 + (WIDTH - 1) * (5 * 32 + 3) + 2;
}

/// The counters of a clique count (`gsi_count_cliques`), words of one device buffer kept
/// between launches, and the most higher neighbours of a row's vertex it counts by bitmaps.
pub mod cliques {
    /// Words between two counters (a 128-byte line each).
    const LINE: usize = 32;
    /// The next row of the table to take.
    pub const NEXT_ROW: usize = 0;
    /// Set when a warp gave up at the deadline.
    pub const ABANDONED: usize = LINE;
    /// Rows whose vertex has too many higher neighbours, listed for the packed count.
    pub const OVERFLOW: usize = 2 * LINE;
    /// Words of the counters.
    pub const COUNTERS: usize = 3 * LINE;
    /// Most higher neighbours of a row's vertex whose adjacency a warp keeps as bitmaps
    /// (a multiple of 32).
    pub const BITS: usize = crate::tuning::CLIQUE_BITMAPS_UP_TO;
}

/// Where `gsi_join_small` keeps its state, by word.
pub mod small {
    /// The step the launch stopped at; the plan's width when it counted every match.
    pub const STEP: usize = 0;
    /// That step's rows.
    pub const ROWS: usize = 1;
    /// Where that step's table lies: 0 the input, 1 and 2 the scratch buffers.
    pub const WHERE: usize = 2;
    /// Set when a step's new table overflowed its buffer.
    pub const OVERFLOW: usize = 3;
    /// The grid barrier's arrivals and generation.
    pub const ARRIVED: usize = 32;
    /// The grid barrier's generation, on a line of its own.
    pub const GENERATION: usize = 64;
    /// Rows made by each step, from here.
    pub const MADE: usize = 96;
    /// Words of the state, for a plan of `width` steps.
    pub const fn words(width: usize) -> usize {
        MADE + width
    }
}

/// The flag of an order bound that keeps a step's match above its column's (`ABOVE`).
pub(crate) const ABOVE: u32 = 1 << 31;

/// `gsi_join_rows`'s `pool_from` when no list goes to the block's pool (Sec. 6.1's third
/// layer off).
pub(crate) const NO_POOL: u32 = u32::MAX;

/// A leaf group without precomputed counts (`NO_COUNTS`).
pub(crate) const NO_COUNTS: u32 = u32::MAX;

/// What `gsi_join_refilter` keeps of a row's buffer (`KEEP_*`).
#[derive(Clone, Copy)]
pub(crate) enum Keep {
    /// The elements in the list of a linking edge.
    Linked = 0,
    /// Those not in it (an absent edge of induced matching).
    Unlinked = 1,
    /// Those not in the row (the subtraction).
    Unmatched = 2,
}

/// How `gsi_filter_signatures` checks labels (`LABEL_TEST_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LabelTest {
    /// One label a vertex on both sides: the signatures' first words are equal.
    Word = 0,
    /// Query vertices of several labels, data vertices of one.
    SetsInOne = 1,
    /// Data vertices of several labels: each query label among the data vertex's.
    SetsInSets = 2,
}

impl ListIndex {
    /// The kernels' number for it (`LIST_INDEX_*`).
    pub(crate) fn code(self) -> u32 {
        match self {
            ListIndex::Pcsr => 0,
            ListIndex::Csr => 1,
            ListIndex::Cr => 2,
        }
    }
}

/// The NVRTC `-D` options of a build, wide or not: launch shape, signature width, the PCSR
/// group layout, the largest leaf group, the depth-first counters (stealing and packed), the
/// clique count's, the small join's state, whether tables are wide, the codes above, and the
/// layout of every record the kernels read ([`layout::record_defines`]), which the kernels
/// check with `static_assert`s.
pub fn defines(wide_tables: bool) -> Vec<String> {
    let key_words = 2 * KEYS_PER_GROUP;
    [
        ("WIDE_TABLES", u32::from(wide_tables).to_string()),
        ("BLOCK_SIZE", BLOCK_SIZE.to_string()),
        ("MAX_WIDTH", MAX_WIDTH.to_string()),
        ("NARROW_MAX_WIDTH", NARROW_MAX_WIDTH.to_string()),
        ("SHARED_LIST_WORDS", SHARED_LIST_WORDS.to_string()),
        ("SIGNATURE_WORDS", SIGNATURE_WORDS.to_string()),
        ("GROUP_WORDS", GROUP_WORDS.to_string()),
        ("KEY_WORDS", key_words.to_string()),
        ("GID_WORD", key_words.to_string()),
        ("END_WORD", (key_words + 1).to_string()),
        ("EMPTY_SLOT", format!("{EMPTY_SLOT:#x}u")),
        ("NO_GROUP", format!("{NO_GROUP:#x}u")),
        ("MAX_LEAF_GROUP", MAX_LEAF_GROUP.to_string()),
        ("MAX_LEAF_LINKS", MAX_LEAF_LINKS.to_string()),
        ("KEPT_LEVELS", KEPT_LEVELS.to_string()),
        ("NO_SLOT", format!("{NO_SLOT:#x}u")),
        ("DF_NEXT_ROW", depth_first::NEXT_ROW.to_string()),
        ("DF_HEAD", depth_first::HEAD.to_string()),
        ("DF_TAIL", depth_first::TAIL.to_string()),
        ("DF_BUSY", depth_first::BUSY.to_string()),
        ("DF_HUNGRY", depth_first::HUNGRY.to_string()),
        ("DF_ABANDONED", depth_first::ABANDONED.to_string()),
        ("PACKED_WIDTH", packed::WIDTH.to_string()),
        ("PACKED_SEARCH_WORDS", packed::SEARCH_WORDS.to_string()),
        ("PK_NEXT_ROW", packed::NEXT_ROW.to_string()),
        ("PK_SUSPENDED", packed::SUSPENDED.to_string()),
        ("PK_ABANDONED", packed::ABANDONED.to_string()),
        ("PK_IDLE", packed::IDLE.to_string()),
        ("PK_FREE", packed::FREE.to_string()),
        ("PK_CLAIMED", packed::CLAIMED.to_string()),
        ("PK_DONORS", packed::DONORS.to_string()),
        ("CLIQUE_BITS", cliques::BITS.to_string()),
        ("CQ_NEXT_ROW", cliques::NEXT_ROW.to_string()),
        ("CQ_ABANDONED", cliques::ABANDONED.to_string()),
        ("CQ_OVERFLOW", cliques::OVERFLOW.to_string()),
        ("SMALL_STEP", small::STEP.to_string()),
        ("SMALL_ROWS", small::ROWS.to_string()),
        ("SMALL_WHERE", small::WHERE.to_string()),
        ("SMALL_OVERFLOW", small::OVERFLOW.to_string()),
        ("SMALL_ARRIVED", small::ARRIVED.to_string()),
        ("SMALL_GENERATION", small::GENERATION.to_string()),
        ("SMALL_MADE", small::MADE.to_string()),
        ("ABOVE", format!("{ABOVE:#x}u")),
        ("NO_COUNTS", format!("{NO_COUNTS:#x}u")),
        ("NO_POOL", format!("{NO_POOL:#x}u")),
        ("KEEP_LINKED", format!("{}u", Keep::Linked as u32)),
        ("KEEP_UNLINKED", format!("{}u", Keep::Unlinked as u32)),
        ("KEEP_UNMATCHED", format!("{}u", Keep::Unmatched as u32)),
        ("LABEL_TEST_WORD", format!("{}u", LabelTest::Word as u32)),
        (
            "LABEL_TEST_SETS_IN_ONE",
            format!("{}u", LabelTest::SetsInOne as u32),
        ),
        (
            "LABEL_TEST_SETS_IN_SETS",
            format!("{}u", LabelTest::SetsInSets as u32),
        ),
        ("LIST_INDEX_PCSR", format!("{}u", ListIndex::Pcsr.code())),
        ("LIST_INDEX_CSR", format!("{}u", ListIndex::Csr.code())),
        ("LIST_INDEX_CR", format!("{}u", ListIndex::Cr.code())),
        ("LIST_WHOLE", format!("{LIST_WHOLE}u")),
        ("LIST_CUT_ABOVE", format!("{LIST_CUT_ABOVE}u")),
        ("LIST_CUT_BELOW", format!("{LIST_CUT_BELOW}u")),
    ]
    .into_iter()
    .map(|(name, value)| format!("-D{name}={value}"))
    .chain(
        layout::record_defines()
            .into_iter()
            .map(|(name, bytes)| format!("-D{name}={bytes}")),
    )
    .collect()
}

/// One thread per element.
pub fn per_element(n: u64) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (n.div_ceil(u64::from(BLOCK_SIZE)).max(1) as u32, 1, 1),
        block_dim: (BLOCK_SIZE, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// One warp per row of the intermediate table, grid-stride.
pub fn warp_per_row(rows: u32) -> LaunchConfig {
    let warps_per_block = BLOCK_SIZE / 32;
    LaunchConfig {
        grid_dim: (
            rows.div_ceil(warps_per_block).clamp(1, MAX_ROW_BLOCKS),
            1,
            1,
        ),
        block_dim: (BLOCK_SIZE, 1, 1),
        shared_mem_bytes: 0,
    }
}
