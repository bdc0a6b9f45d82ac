// Shared definitions of gsi's kernels. NVRTC sees no headers: the host prepends this text to
// every .cu file. Launch shapes, layout constants and codes come from the host as -D options,
// made from the Rust constants they mirror (gsi-core's cuda/launch.rs lists them), so the two
// sides cannot disagree; so do the size and field offsets of every struct the host fills,
// which the static_asserts after each struct check (GSI_<STRUCT>_BYTES and
// GSI_<STRUCT>_<FIELD>_OFFSET, from gsi-core's cuda/join/layout.rs).

typedef unsigned int u32;
typedef unsigned long long u64;

// Launch shape: threads per block, widest table.
#ifndef BLOCK_SIZE
#error "BLOCK_SIZE must be defined by the host"
#endif
#ifndef MAX_WIDTH
#error "MAX_WIDTH must be defined by the host"
#endif
// Signature: N = 512 bits = SIGNATURE_WORDS words; word 0 holds the vertex label (Sec. 3.2).
#ifndef SIGNATURE_WORDS
#error "SIGNATURE_WORDS must be defined by the host"
#endif
// PCSR group: GPN pairs = GROUP_WORDS words (128 bytes); the first KEY_WORDS words are
// (vertex, offset) pairs, then (GID, END) at GID_WORD and END_WORD (Sec. 4, Definition 4).
// EMPTY_SLOT marks an unused pair, NO_GROUP the end of an overflow chain.
#if !defined(GROUP_WORDS) || !defined(KEY_WORDS) || !defined(GID_WORD) || !defined(END_WORD)
#error "the PCSR group layout must be defined by the host"
#endif
#if !defined(EMPTY_SLOT) || !defined(NO_GROUP)
#error "EMPTY_SLOT and NO_GROUP must be defined by the host"
#endif

#define FULL_MASK 0xffffffffu
#define WARP_SIZE 32
#define WARPS_PER_BLOCK (BLOCK_SIZE / WARP_SIZE)

// Where a field of a struct of 32-bit fields lies, in bytes, as a constant expression: the
// word set in the struct that has only this field set (NVRTC has no offsetof).
template <typename T, typename F>
__device__ constexpr u32 field_offset(F T::*field) {
    static_assert(sizeof(T) % 4 == 0, "a struct of 32-bit fields");
    T record{};
    record.*field = 1;
    struct Words {
        u32 w[sizeof(T) / 4];
    };
    const Words words = __builtin_bit_cast(Words, record);
    for (u32 i = 0; i < sizeof(T) / 4; ++i) {
        if (words.w[i] != 0) {
            return 4 * i;
        }
    }
    return ~0u;
}

// One PCSR partition as a step reads it: the matched column whose neighbours are read, where
// the partition's groups start in the concatenated group array, how many groups it has, and
// where its column index starts in the concatenated column-index array.
struct Link {
    u32 column;
    u32 group_base;
    u32 group_count;
    u32 ci_base;
    u32 list_index;
    u32 cut;
};
static_assert(sizeof(Link) == GSI_LINK_BYTES, "struct Link differs from the host's");
static_assert(field_offset(&Link::column) == GSI_LINK_COLUMN_OFFSET, "Link::column is not at the host's offset");
static_assert(field_offset(&Link::group_base) == GSI_LINK_GROUP_BASE_OFFSET, "Link::group_base is not at the host's offset");
static_assert(field_offset(&Link::group_count) == GSI_LINK_GROUP_COUNT_OFFSET, "Link::group_count is not at the host's offset");
static_assert(field_offset(&Link::ci_base) == GSI_LINK_CI_BASE_OFFSET, "Link::ci_base is not at the host's offset");
static_assert(field_offset(&Link::list_index) == GSI_LINK_LIST_INDEX_OFFSET, "Link::list_index is not at the host's offset");
static_assert(field_offset(&Link::cut) == GSI_LINK_CUT_OFFSET, "Link::cut is not at the host's offset");

// How a partition's lists are found (gsi-core's ListIndex): PCSR groups, a plain CSR (from
// word group_base, for each of the group_count vertices of the graph its list's start, where
// its neighbours of higher ids start, and its end) or CR (from word group_base, the
// partition's group_count vertices sorted, then a start and an end for each):
// LIST_INDEX_PCSR, LIST_INDEX_CSR and LIST_INDEX_CR, from the host. Through CSR a link
// reads the whole list (LIST_WHOLE) or, where its step keeps the match above (below) the
// list's own vertex, only the neighbours above it (LIST_CUT_ABOVE; LIST_CUT_BELOW: not above
// it), which every candidate of the step lies among; the other layouts read whole lists.

// N(v, l) through plain CSR or CR, by one lane on its own.
__device__ __forceinline__ void list_locate(const u32* __restrict__ groups, Link link, u32 v,
                                            u32* begin, u32* end) {
    const u32* words = groups + link.group_base;
    if (link.list_index == LIST_INDEX_CSR) {
        if (v >= link.group_count) {
            return;
        }
        const u32* triple = words + 3 * (u64)v;
        *begin = link.ci_base + triple[link.cut == LIST_CUT_ABOVE ? 1 : 0];
        *end = link.ci_base + triple[link.cut == LIST_CUT_BELOW ? 1 : 2];
        return;
    }
    u32 lo = 0;
    u32 hi = link.group_count;
    while (lo < hi) {
        u32 mid = lo + ((hi - lo) >> 1);
        if (words[mid] < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == link.group_count || words[lo] != v) {
        return;
    }
    const u32* pair = words + link.group_count + 2 * (u64)lo;
    *begin = link.ci_base + pair[0];
    *end = link.ci_base + pair[1];
}

// The hash f of Algorithm 1 (murmur3's finaliser); gsi-core's pcsr::group_of is the same.
__device__ __forceinline__ u32 pcsr_group(u32 v, u32 group_count) {
    u32 h = v;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h % group_count;
}

// N(v, l) through PCSR by one warp (Sec. 4): each lane reads one word of the 128-byte group,
// so a group costs one memory transaction; the warp then finds v's pair with a ballot and
// follows the overflow chain. Every lane of the warp must call it with the same arguments.
// Sets [*begin, *end) to v's neighbours in the concatenated column index (empty if none).
__device__ __forceinline__ void pcsr_locate(const u32* __restrict__ groups, Link link, u32 v,
                                            u32 lane, u32* begin, u32* end) {
    *begin = 0;
    *end = 0;
    if (link.group_count == 0) {
        return;
    }
    if (link.list_index != LIST_INDEX_PCSR) {
        list_locate(groups, link, v, begin, end);
        return;
    }
    u32 g = pcsr_group(v, link.group_count);
    while (true) {
        u32 word = groups[((u64)link.group_base + g) * GROUP_WORDS + lane];
        bool key_lane = (lane & 1u) == 0 && lane < KEY_WORDS;
        u32 hit = __ballot_sync(FULL_MASK, key_lane && word == v);
        u32 empty = __ballot_sync(FULL_MASK, key_lane && word == EMPTY_SLOT);
        u32 gid = __shfl_sync(FULL_MASK, word, GID_WORD);
        u32 group_end = __shfl_sync(FULL_MASK, word, END_WORD);
        if (hit) {
            u32 k = __ffs(hit) - 1;
            u32 start = __shfl_sync(FULL_MASK, word, k + 1);
            u32 next_key = __shfl_sync(FULL_MASK, word, k + 2 < KEY_WORDS ? k + 2 : GID_WORD);
            u32 next_offset = __shfl_sync(FULL_MASK, word, k + 3 < KEY_WORDS ? k + 3 : END_WORD);
            bool has_next = k + 2 < KEY_WORDS && next_key != EMPTY_SLOT;
            *begin = link.ci_base + start;
            *end = link.ci_base + (has_next ? next_offset : group_end);
            return;
        }
        if (empty || gid == NO_GROUP) {
            return;
        }
        g = gid;
    }
}

// pcsr_locate by one lane on its own, for kernels whose lanes each look up a list of their
// own: the lane reads the group's pairs one after another (one 128-byte line).
__device__ __forceinline__ void lane_locate(const u32* __restrict__ groups, Link link, u32 v,
                                            u32* begin, u32* end) {
    *begin = 0;
    *end = 0;
    if (link.group_count == 0) {
        return;
    }
    if (link.list_index != LIST_INDEX_PCSR) {
        list_locate(groups, link, v, begin, end);
        return;
    }
    u32 g = pcsr_group(v, link.group_count);
    while (true) {
        const u32* group = groups + ((u64)link.group_base + g) * GROUP_WORDS;
        bool empty = false;
        for (u32 k = 0; k < KEY_WORDS; k += 2) {
            u32 key = group[k];
            if (key == v) {
                bool has_next = k + 2 < KEY_WORDS && group[k + 2] != EMPTY_SLOT;
                *begin = link.ci_base + group[k + 1];
                *end = link.ci_base + (has_next ? group[k + 3] : group[END_WORD]);
                return;
            }
            empty |= key == EMPTY_SLOT;
        }
        u32 gid = group[GID_WORD];
        if (empty || gid == NO_GROUP) {
            return;
        }
        g = gid;
    }
}

// Whether sorted a[lo, hi) holds x.
__device__ __forceinline__ bool sorted_contains(const u32* __restrict__ a, u32 lo, u32 hi, u32 x) {
    while (lo < hi) {
        u32 mid = lo + ((hi - lo) >> 1);
        u32 y = a[mid];
        if (y < x) {
            lo = mid + 1;
        } else if (y > x) {
            hi = mid;
        } else {
            return true;
        }
    }
    return false;
}

// The first index of sorted a[lo, hi) whose element is at least x (hi when none).
__device__ __forceinline__ u32 sorted_lower_bound(const u32* __restrict__ a, u32 lo, u32 hi, u32 x) {
    while (lo < hi) {
        u32 mid = lo + ((hi - lo) >> 1);
        if (a[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Order bounds, from symmetry breaking (gsi-core symmetry.rs): a step's match must lie above
// the matches of some earlier columns and below others'. A bound is a column, with ABOVE (from
// the host) set for "above".

// The window [*lo, *hi) of vertex ids that a step's `count` order bounds leave, given the
// row's earlier matches.
__device__ __forceinline__ void order_window(const u32* __restrict__ bounds, u32 count,
                                             const u32* row, u32* lo, u32* hi) {
    *lo = 0;
    *hi = 0xffffffffu;
    for (u32 k = 0; k < count; ++k) {
        u32 v = row[bounds[k] & ~ABOVE];
        if (bounds[k] & ABOVE) {
            *lo = max(*lo, v + 1u);
        } else {
            *hi = min(*hi, v);
        }
    }
}

// Cuts the sorted list a[*begin, *end) to its part inside the window [lo, hi) (an open side,
// lo 0 or hi 0xffffffff, costs no search).
__device__ __forceinline__ void cut_to_window(const u32* __restrict__ a, u32 lo, u32 hi,
                                              u32* begin, u32* end) {
    u32 from = lo == 0 ? *begin : sorted_lower_bound(a, *begin, *end, lo);
    *end = hi == 0xffffffffu ? max(from, *end) : max(from, sorted_lower_bound(a, from, *end, hi));
    *begin = from;
}

// Cuts the sorted list a[*begin, *end) to its part that keeps a step's `count` order bounds,
// given the row's earlier matches.
__device__ __forceinline__ void keep_order_bounds(const u32* __restrict__ a, const u32* __restrict__ bounds,
                                            u32 count, const u32* row, u32* begin, u32* end) {
    if (count == 0) {
        return;
    }
    u32 lo, hi;
    order_window(bounds, count, row, &lo, &hi);
    cut_to_window(a, lo, hi, begin, end);
}

// The warp this thread belongs to, counted over the grid, and the number of warps in the grid.
__device__ __forceinline__ u32 global_warp() {
    return (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
}

__device__ __forceinline__ u32 grid_warps() {
    return (gridDim.x * blockDim.x) / WARP_SIZE;
}
