//! How the engines' joins are tuned: switches and thresholds that change no answer, only the
//! path a join takes and its speed. An engine takes them when it is opened
//! (`EngineConfig::tuning`); [`crate::Engine::tune`] changes them between queries, so that
//! tests and `gsi verify` can force each path.

/// What the CPU join reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTuning {
    /// The CPU's depth-first count extends rows through local candidates
    /// ([`crate::cpu`]'s auxiliary lists) when they fit; off for tests and measurements.
    pub local_candidates: bool,
    /// The CPU's depth-first count keeps the extensions of a step it only counts while the
    /// matches that step reads stay, each row taking out only its own matches
    /// ([`crate::cpu`]); off for tests and measurements.
    pub kept_extensions: bool,
    /// The CPU's depth-first count skips the other extensions of a column when a failed
    /// subtree's failing set shows they fail alike ([`crate::cpu`]), in queries of this many
    /// vertices or more ([`FAILING_SETS_FROM`]); `None`: never.
    pub failing_sets_from: Option<usize>,
    /// The CPU counts a clique's chain ([`crate::plan::Plan::clique_link`]) from each first
    /// vertex of at most this many higher neighbours by bitmaps of their adjacency, the others
    /// searched; `None` searches every one (a switch for tests and measurements).
    pub clique_bitmaps_up_to: Option<usize>,
}

impl Default for CpuTuning {
    fn default() -> CpuTuning {
        CpuTuning {
            local_candidates: true,
            kept_extensions: true,
            failing_sets_from: FAILING_SETS_FROM,
            clique_bitmaps_up_to: Some(CLIQUE_BITMAPS_UP_TO),
        }
    }
}

/// What the GPU join reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuTuning {
    /// How long one launch of the GPU's depth-first count takes new work before its warps hand
    /// what they hold to the pool and the host looks at the stop conditions (a switch for
    /// tests: a few microseconds make every count go through many launches).
    pub depth_first_slice: std::time::Duration,
    /// The GPU's load balance (the paper's Sec. 6.1): a row whose list is longer than this
    /// is cut into pieces of 16 times that many elements, each taken by a whole block; `None`
    /// leaves every row to one warp (a switch for tests and measurements).
    pub balance_from: Option<usize>,
    /// The third layer of the GPU's load balance (Sec. 6.1): a row whose list is longer than
    /// this, and not given to whole blocks, goes to its block's pool, whose lists the block's
    /// warps share out; `None` (the default, [`BLOCK_POOL_FROM`]) leaves such rows to their
    /// warps.
    pub block_pool_from: Option<usize>,
    /// The GPU's duplicate removal (Sec. 6.2): warps of a block whose rows read the same short
    /// first-edge list read it once, into shared memory (off by default,
    /// [`DUPLICATE_REMOVAL`]).
    pub duplicate_removal: bool,
    /// The GPU's warps gather a row's extensions in a write cache in shared memory and write
    /// them 32 words at a time (Sec. 5); off, each thread writes its own (a switch for tests
    /// and measurements).
    pub write_cache: bool,
    /// The GPU places each row's buffer by the exact count of its extensions, from a first
    /// join that only counts them (the two-step output scheme Sec. 5 compares
    /// Prealloc-Combine with), instead of by the length of its first edge's list (a switch
    /// for tests and measurements).
    pub two_step_output: bool,
    /// The GPU tests a row's candidates against C(u) and its first edge's list only, then
    /// makes each further test (linking edge, absent edge, subtraction) a pass of its own over
    /// the buffers: the naive set operations Sec. 5 compares its fused ones with (a switch
    /// for measurements; it applies where buffers are written, not to counts).
    pub naive_set_operations: bool,
    /// The GPU's leaf products: a lone leaf of one link whose list is longer than this looks
    /// its count up among counts made once per candidate of its linked vertex, instead of
    /// scanning the list; `None` always scans (a switch for tests and measurements).
    pub leaf_counts_from: Option<usize>,
    /// The GPU joins a step's rows with eight lanes each, four rows a warp, when none of its
    /// lists is longer than this; `None` always gives a row a whole warp (a switch for tests
    /// and measurements).
    pub narrow_rows_up_to: Option<usize>,
    /// A count without a limit first joins the steps breadth-first in one go while each
    /// step's rows times its longest list stay at most this (the GPU: one launch, not a few
    /// per step); `None` never does (a switch for tests and measurements).
    pub small_steps_up_to: Option<usize>,
    /// The GPU's depth-first count keeps a level's candidates that pass its linking edges,
    /// up to this many per level and warp, when a later level's edges include the level's,
    /// and draws that later level's candidates from them (`None`: every level intersects
    /// all its lists again; a switch for tests and measurements).
    pub kept_sets_up_to: Option<usize>,
    /// The GPU's depth-first count of a plan of at most eight steps without a leaf suffix
    /// draws each level's next 32 candidates across the lists of up to 32 partial matches at
    /// once (`gsi_count_packed`), so that short lists still fill a warp; off, a warp reads
    /// one partial match's list at a time and hands work to idle warps (a switch for tests
    /// and measurements).
    pub packed_depth_first: bool,
    /// How many rows of the table a warp of the packed count takes at once, each its first
    /// level's list (at most 32): `None`, up to 32 while many rows are left and fewer as the
    /// table runs out, so that the last rows are spread a few to a warp; a number, that many
    /// always (a switch for tests and measurements; 1 was the kernel's first form).
    pub packed_rows_at_once: Option<u32>,
    /// The GPU counts a clique's plan (every step linked to every step before it, its
    /// symmetry broken into one chain) from each candidate of its first vertex with at most
    /// this many higher neighbours by bitmaps of their adjacency (`gsi_count_cliques`), the
    /// others packed; `None` packs every one (a switch for tests and measurements; at most
    /// [`CLIQUE_BITMAPS_UP_TO`]).
    pub clique_bitmaps_up_to: Option<usize>,
    /// Where a step keeps its match above (below) the vertex whose neighbour list it reads,
    /// the GPU reads only the list's part above (below) that vertex, found with the list in
    /// a CSR partition (which keeps where each list's higher ids start): with vertices
    /// numbered by degree, a hub's few higher-ranked neighbours instead of all of them, for
    /// the candidates and for the binary searches that test them; off, whole lists (a switch
    /// for tests and measurements).
    pub split_lists: bool,
    /// The packed count's searches are split over every warp once half the warps found no
    /// row of the table left (a few heavy rows otherwise run on a few warps long after the
    /// others finished); off, each row's search stays with the warp that took it (a switch
    /// for tests and measurements).
    pub split_searches: bool,
    /// The GPU draws a row's extensions from the shortest of its linking edges' lists (cut to
    /// the order bounds) and tests the others; off, from its first edge's list, as the
    /// paper's Algorithm 3 (line 5) does (a switch for tests and measurements).
    pub shortest_source: bool,
    /// The GPU makes every row's leaf product in 128 bits (`gsi_join_leaf_product_wide`), not
    /// only where one could pass 2^64 − 1 (a switch for tests).
    pub wide_leaf_products: bool,
    /// A query joined in shares has each cut vertex's candidates split by class on the GPU
    /// that joins them (`gsi_filter_classes`), where the vertex's axes make at most 64
    /// classes together ([`crate::options::Cut::combined`]); off, they are read back and split on the host, the split shared by
    /// the engines of a spread query (a switch for tests and measurements).
    pub classes_on_device: bool,
}

impl Default for GpuTuning {
    fn default() -> GpuTuning {
        GpuTuning {
            depth_first_slice: DEPTH_FIRST_SLICE,
            balance_from: Some(BALANCE_FROM),
            block_pool_from: BLOCK_POOL_FROM,
            duplicate_removal: DUPLICATE_REMOVAL,
            write_cache: true,
            two_step_output: false,
            naive_set_operations: false,
            leaf_counts_from: Some(LEAF_COUNTS_FROM),
            narrow_rows_up_to: Some(NARROW_ROWS_UP_TO),
            small_steps_up_to: Some(SMALL_STEPS_UP_TO),
            kept_sets_up_to: Some(KEPT_SETS_UP_TO),
            packed_depth_first: true,
            packed_rows_at_once: None,
            clique_bitmaps_up_to: Some(CLIQUE_BITMAPS_UP_TO),
            split_lists: true,
            split_searches: true,
            shortest_source: true,
            wide_leaf_products: false,
            classes_on_device: true,
        }
    }
}

/// The tuning of both joins, as an engine is opened with it (`auto` runs both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// The CPU join's.
    pub cpu: CpuTuning,
    /// The GPU join's.
    pub gpu: GpuTuning,
}

/// Query vertices from which the CPU's depth-first count uses failing sets. On the 2-core
/// development machine (one thread, 2026-11-23, yeast, the queries both ways finished within
/// 3 s, two rounds): 9 `dense_24` queries 189-223 ms against 1,340-1,390 without, 11
/// `dense_32` 369-414 against 1,225-1,536, 6 `sparse_24` 1,526-1,714 against 1,797-3,632;
/// 16-vertex queries within the noise (12 `dense_16` 2,599-2,629 against 2,391-2,398; 11
/// `sparse_16` 70-74 against 72-73); but the 40 `dense_8` and 40 `sparse_8` anchors 0-12 %
/// slower (the sets
/// skipped under 1 % of their nodes, and every failed node pays for its set). From 12 since
/// wordnet's few-label 12-vertex queries (2026-11-27, one thread): query_dense_12_14 525 ms
/// against over 3 s without, query_dense_12_65 433 ms against over 3 s, query_dense_12_109
/// 676 against 1,307 (the sets skip the rows a counted group of equivalent vertices rules out).
pub const FAILING_SETS_FROM: Option<usize> = Some(12);

/// How long one launch of the GPU's depth-first count takes new work by default, so that a
/// deadline or an interrupt is seen within about that long.
pub const DEPTH_FIRST_SLICE: std::time::Duration = std::time::Duration::from_millis(100);

/// List length from which the GPU gives a row to whole blocks by default (the paper's W2; the
/// pieces, 16 times that, are its W1). On gw12 (H100), 1,024 made the ten queries gMatch
/// finishes 3 % faster than no balance, 256 1 %, and 64 2 % slower.
pub const BALANCE_FROM: usize = 1024;

/// List length from which the GPU puts a row into its block's pool by default: none. The
/// paper's W3 = 128 made gw12's ten queries that gMatch finishes 7 % slower on the H100
/// (2026-11-23: 701 against 654 ms; yeast's 1,458 within the noise), since every block's warps
/// must then wait for each other at every row.
pub const BLOCK_POOL_FROM: Option<usize> = None;

/// Whether the GPU removes duplicate list reads within a block by default (Sec. 6.2): no. On
/// the H100 (2026-11-23) it made gw12's ten queries 5 % slower (690 against 654 ms) and
/// yeast's 1,458 no faster: the repeated reads it saves hit the cache, and its two waits per
/// row cost more.
pub const DUPLICATE_REMOVAL: bool = false;

/// List length from which the GPU's leaf products look a lone leaf's count up by default: a
/// list of a warp's 32 elements or fewer takes one pass to scan.
pub const LEAF_COUNTS_FROM: usize = 32;

/// Candidates a level of the GPU's depth-first count keeps for later levels by default, per
/// warp (a level whose list, cut to its order bounds, is longer keeps none). The sets take
/// at most [`KEPT_SETS_BYTES`] of device memory: fewer per level when the grid's warps and
/// the plan's kept levels need more.
pub const KEPT_SETS_UP_TO: usize = 4096;

/// Device memory the kept sets of one depth-first count take at most.
pub const KEPT_SETS_BYTES: usize = 512 << 20;

/// Device memory the pair count's tallies take at most (a word per data vertex for each block
/// of its grid; one block's at least).
pub const PAIR_TALLIES_BYTES: usize = 8 << 30;

/// Most higher neighbours of a clique's first vertex whose adjacency the GPU keeps as bitmaps
/// (a warp's 2 KiB of shared memory; a multiple of 32). On the unlabelled LiveJournal-sized
/// graph numbered by degree no vertex has more than 106.
pub const CLIQUE_BITMAPS_UP_TO: usize = 128;

/// Longest list of a step whose rows the GPU joins with eight lanes each by default.
pub const NARROW_ROWS_UP_TO: usize = 256;

/// Entries (rows times longest list) up to which a step is joined in the one launch of the
/// GPU's small steps by default. On yeast (H100, 2026-11-23), where each breadth-first step of
/// a light query cost about 44 µs of launches and copies, the median join of the light 8-,
/// 16-, 24- and 32-vertex queries fell from 0.38, 0.69, 0.97 and 1.29 ms to 0.18, 0.26, 0.33
/// and 0.44 ms.
pub const SMALL_STEPS_UP_TO: usize = 1 << 20;
