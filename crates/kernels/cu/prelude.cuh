// Shared definitions of gsi's kernels. NVRTC sees no headers: the host prepends this text to
// every .cu file. BLOCK_SIZE and MAX_WIDTH come from the host as -D options (gsi-core's
// cuda/launch.rs holds the Rust constants they are derived from).

typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef BLOCK_SIZE
#error "BLOCK_SIZE must be defined by the host"
#endif
#ifndef MAX_WIDTH
#error "MAX_WIDTH must be defined by the host"
#endif

#define FULL_MASK 0xffffffffu
#define WARP_SIZE 32
#define WARPS_PER_BLOCK (BLOCK_SIZE / WARP_SIZE)

// Signature: N = 512 bits = 16 words; word 0 holds the vertex label (Sec. 3.2).
#define SIGNATURE_WORDS 16

// PCSR group: GPN = 16 pairs = 32 words (128 bytes); pairs 0..14 are (vertex, offset),
// pair 15 is (GID, END) (Sec. 4, Definition 4).
#define GROUP_WORDS 32
#define KEY_WORDS 30
#define GID_WORD 30
#define END_WORD 31
#define EMPTY_SLOT 0xffffffffu
#define NO_GROUP 0xffffffffu

// One PCSR partition as a step reads it: the matched column whose neighbours are read, where
// the partition's groups start in the concatenated group array, how many groups it has, and
// where its column index starts in the concatenated column-index array.
struct Link {
    u32 column;
    u32 group_base;
    u32 group_count;
    u32 ci_base;
};

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

// The warp this thread belongs to, counted over the grid, and the number of warps in the grid.
__device__ __forceinline__ u32 global_warp() {
    return (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
}

__device__ __forceinline__ u32 grid_warps() {
    return (gridDim.x * blockDim.x) / WARP_SIZE;
}
