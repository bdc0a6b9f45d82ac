// The filtering phase (Sec. 3.2): signature containment, the exact label check and the degree
// check, for every query vertex against every data vertex; then the candidate lists.
// Host wrappers: gsi-core cuda/filter.rs.

// Thread per data vertex, grid.y per query vertex. The signature table is column-first, so
// consecutive threads read consecutive words (coalesced). Each warp's ballot is one word of
// u's candidate bitset, written by lane 0 with its population count.
extern "C" __global__ void gsi_filter_signatures(
    const u32* __restrict__ signatures, u32 n,
    const u32* __restrict__ out_degree, const u32* __restrict__ in_degree,
    const u32* __restrict__ query_signatures, const u32* __restrict__ query_degrees,
    u32 words, u32* __restrict__ bits, u32* __restrict__ word_counts) {
    u32 u = blockIdx.y;
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    const u32* q = query_signatures + (u64)u * SIGNATURE_WORDS;
    bool ok = v < n && signatures[v] == q[0];
    for (u32 w = 1; ok && w < SIGNATURE_WORDS; ++w) {
        u32 need = q[w];
        ok = (signatures[(u64)w * n + v] & need) == need;
    }
    if (ok) {
        ok = out_degree[v] >= query_degrees[2 * u] && in_degree[v] >= query_degrees[2 * u + 1];
    }
    u32 mask = __ballot_sync(FULL_MASK, ok);
    u32 word = v / WARP_SIZE;
    if ((threadIdx.x & 31u) == 0 && word < words) {
        bits[(u64)u * words + word] = mask;
        word_counts[(u64)u * words + word] = __popc(mask);
    }
}

// Thread per bitset word (over all query vertices): writes the word's vertices, ascending, at
// the word's offset (an exclusive scan of word_counts), giving sorted candidate lists.
extern "C" __global__ void gsi_filter_compact(
    const u32* __restrict__ bits, const u32* __restrict__ word_offsets, u64 total_words,
    u32 words, u32* __restrict__ lists) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total_words) {
        return;
    }
    u32 mask = bits[i];
    u32 at = word_offsets[i];
    u32 base = (u32)(i % words) * WARP_SIZE;
    while (mask) {
        u32 b = __ffs(mask) - 1;
        lists[at++] = base + b;
        mask &= mask - 1;
    }
}

// Thread per query vertex (plus one): where each candidate list starts, so the host reads
// every |C(u)| in one small copy.
extern "C" __global__ void gsi_filter_list_starts(
    const u32* __restrict__ word_offsets, u32 words, u32 query_vertices, u32* __restrict__ starts) {
    u32 u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u <= query_vertices) {
        starts[u] = word_offsets[(u64)u * words];
    }
}
