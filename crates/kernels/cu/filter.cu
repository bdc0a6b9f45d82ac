// The filtering phase (Sec. 3.2): signature containment, the exact label check and the degree
// check, for every query vertex against every data vertex; then the candidate lists.
// Host wrappers: gsi-core cuda/filter.rs.

// How the label is checked (gsi-core cuda/launch.rs, LabelTest): word 0 of both signatures
// equal; or, where vertices carry several labels (the paper's Sec. 7.2), the query vertex's
// sorted labels all among the data vertex's, which are its one label (word 0) or its sorted
// set in `labels` from `label_offsets[v]`: LABEL_TEST_WORD, LABEL_TEST_SETS_IN_ONE and
// LABEL_TEST_SETS_IN_SETS, from the host.

// Whether every one of the `count` sorted labels at `want` is in the sorted `own[0..own_count)`.
__device__ __forceinline__ bool contains_all(const u32* own, u32 own_count, const u32* want,
                                             u32 count) {
    u32 i = 0;
    for (u32 j = 0; j < count; ++j) {
        while (i < own_count && own[i] < want[j]) {
            ++i;
        }
        if (i == own_count || own[i] != want[j]) {
            return false;
        }
    }
    return true;
}

// Thread per data vertex; each thread tests its vertex against every query vertex, so the
// column-first table is read once per query (not once per query vertex) and consecutive threads
// read consecutive words (coalesced). The query signatures sit in shared memory, MAX_WIDTH
// query vertices at a time. For each query vertex u, each warp's ballot is one word of u's
// candidate bitset, written by lane 0 with its population count.
extern "C" __global__ void gsi_filter_signatures(
    const u32* __restrict__ signatures, u32 n,
    const u32* __restrict__ out_degree, const u32* __restrict__ in_degree,
    const u32* __restrict__ query_signatures, const u32* __restrict__ query_degrees,
    u32 query_vertices, u32 words, u32* __restrict__ bits, u32* __restrict__ word_counts,
    u32 label_test, const u32* __restrict__ label_offsets, const u32* __restrict__ labels,
    const u32* __restrict__ query_label_offsets, const u32* __restrict__ query_labels) {
    __shared__ u32 query_sh[MAX_WIDTH * SIGNATURE_WORDS];
    __shared__ u32 degrees_sh[MAX_WIDTH * 2];
    u32 v = blockIdx.x * blockDim.x + threadIdx.x;
    bool in_range = v < n;
    u32 label = in_range ? signatures[v] : 0;
    u32 out_deg = in_range ? out_degree[v] : 0;
    u32 in_deg = in_range ? in_degree[v] : 0;
    u32 word = v / WARP_SIZE;
    const u32* own = &label;
    u32 own_count = 1;
    if (label_test == LABEL_TEST_SETS_IN_SETS && in_range) {
        own = labels + label_offsets[v];
        own_count = label_offsets[v + 1] - label_offsets[v];
    }
    for (u32 chunk = 0; chunk < query_vertices; chunk += MAX_WIDTH) {
        u32 chunk_vertices = min(query_vertices - chunk, (u32)MAX_WIDTH);
        // Every thread is done with the previous chunk before it is overwritten.
        __syncthreads();
        for (u32 i = threadIdx.x; i < chunk_vertices * SIGNATURE_WORDS; i += blockDim.x) {
            query_sh[i] = query_signatures[chunk * SIGNATURE_WORDS + i];
        }
        for (u32 i = threadIdx.x; i < chunk_vertices * 2; i += blockDim.x) {
            degrees_sh[i] = query_degrees[chunk * 2 + i];
        }
        __syncthreads();
        for (u32 c = 0; c < chunk_vertices; ++c) {
            u32 u = chunk + c;
            const u32* q = query_sh + c * SIGNATURE_WORDS;
            bool ok = in_range;
            if (label_test == LABEL_TEST_WORD) {
                ok = ok && label == q[0];
            } else if (ok) {
                const u32* want = query_labels + query_label_offsets[u];
                u32 count = query_label_offsets[u + 1] - query_label_offsets[u];
                ok = contains_all(own, own_count, want, count);
            }
            for (u32 w = 1; ok && w < SIGNATURE_WORDS; ++w) {
                u32 need = q[w];
                ok = need == 0 || (signatures[(u64)w * n + v] & need) == need;
            }
            ok = ok && out_deg >= degrees_sh[2 * c] && in_deg >= degrees_sh[2 * c + 1];
            u32 mask = __ballot_sync(FULL_MASK, ok);
            if ((threadIdx.x & 31u) == 0 && word < words) {
                bits[(u64)u * words + word] = mask;
                word_counts[(u64)u * words + word] = __popc(mask);
            }
        }
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

// Thread per element of one query vertex's candidate list: sets the element's bit in the
// bitset of its class, the class a share's cuts give it on the vertex's axes of the grid:
// on each axis, SplitMix64's finalizer of the vertex plus the axis's seed, modulo the axis's
// classes (gsi-core options.rs, Cut::class_of), the axes' classes combined first axis first
// (options.rs, Cut::combined). `axis_words` holds three words per axis: its seed's low and high words and
// its classes. The classes' sorted lists are then compacted from the bitsets as the
// candidate lists are (gsi_filter_compact).
extern "C" __global__ void gsi_filter_classes(
    const u32* __restrict__ list, u32 n, const u32* __restrict__ axis_words, u32 axes,
    u32 words, u32* __restrict__ bits) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    u32 v = list[i];
    u64 combined = 0;
    for (u32 a = 0; a < axes; ++a) {
        u64 seed = (u64)axis_words[3 * a] | ((u64)axis_words[3 * a + 1] << 32);
        u64 classes = axis_words[3 * a + 2];
        u64 x = (u64)v + seed;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        x ^= x >> 31;
        combined = combined * classes + x % classes;
    }
    atomicOr(&bits[combined * words + v / WARP_SIZE], 1u << (v % WARP_SIZE));
}

// Thread per bitset word: its population count, for the prefix sum that places the lists.
extern "C" __global__ void gsi_filter_word_counts(
    const u32* __restrict__ bits, u64 total_words, u32* __restrict__ counts) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < total_words) {
        counts[i] = __popc(bits[i]);
    }
}
