// The joining phase: Prealloc-Combine (Sec. 5, Algorithms 3 and 4), one warp per row of the
// intermediate table. Host wrappers: gsi-core cuda/join.rs.
//
// A step joins query vertex u. `links` lists its linking edges, the first edge e0 first when
// has_first is set; otherwise (the first step, or a new component of a disconnected query)
// u's matches come from its candidate list.

// Tables wider than MAX_WIDTH are joined by the wide build of this module (WIDE_TABLES = 1,
// loaded by the host for such plans only), whose kernels keep no copy of a row in shared
// memory but read it where it lies in the table; the kernels that build rows in shared memory
// (narrow lanes, depth-first, small steps) are left out of it.
#ifndef WIDE_TABLES
#error "WIDE_TABLES must be defined by the host"
#endif

// Counts. The device's counter is three words: the count modulo 2^128, low word first, then a
// word set once the count (or a product within it) passed 2^128 - 1, which the host reports
// as an error, as the CPU engine does (gsi-core cuda/join/counter.rs). A thread sums in 64
// bits and adds its sum to the counter before it would wrap. A row's leaf product is made in
// 64 bits where the host has shown that none passes 2^64 - 1 (the longest lists' product),
// else in 128 bits by the `_wide` kernel.
typedef unsigned __int128 u128;

// a * b; in 128 bits, noting in *past when the product passes 2^128 - 1.
__device__ __forceinline__ u64 times_count(u64 a, u64 b, bool*) {
    return a * b;
}
__device__ __forceinline__ u128 times_count(u128 a, u128 b, bool* past) {
    if (((a | b) >> 64) != 0 && a != 0 && b > ~(u128)0 / a) {
        *past = true;
    }
    return a * b;
}

// Adds `count` to the counter total[0, 3): the low word by one atomic, its carry
// and the high word by another; `past` (or a carry out of the high word) sets the last.
__device__ __forceinline__ void add_to_total(u64* total, u128 count, bool past) {
    u64 low = (u64)count;
    u64 high = (u64)(count >> 64);
    if (low != 0) {
        u64 before = atomicAdd(&total[0], low);
        if (before + low < before) {
            ++high;
            past |= high == 0;
        }
    }
    if (high != 0) {
        u64 before = atomicAdd(&total[1], high);
        past |= before + high < before;
    }
    if (past) {
        atomicExch(&total[2], 1ull);
    }
}

// Adds x to a thread's running sum (the same in every lane of its row): a 64-bit sum that
// would wrap is first added to the counter by the `leader` lane; a 128-bit one notes in *past
// when it passes 2^128 - 1.
__device__ __forceinline__ void add_to_sum(u64* sum, u64 x, u64* total, bool leader, bool*) {
    if (*sum + x < *sum) {
        if (leader) {
            add_to_total(total, *sum, false);
        }
        *sum = 0;
    }
    *sum += x;
}
__device__ __forceinline__ void add_to_sum(u128* sum, u128 x, u64*, bool, bool* past) {
    u128 before = *sum;
    *sum += x;
    *past |= *sum < before;
}

// Row r of `table` into `space` (MAX_WIDTH words of shared memory), the thread at `first`
// copying every `stride`-th column; nothing in the wide build. The caller synchronises the
// threads that share the row before reading it through kept_row.
__device__ __forceinline__ void copy_row(const u32* __restrict__ table, u32 r, u32 width,
                                         u32* space, u32 first, u32 stride) {
#if !WIDE_TABLES
    for (u32 j = first; j < width; j += stride) {
        space[j] = table[(u64)r * width + j];
    }
#endif
}

// Where row r is read once copy_row has run: `space`, or the table in the wide build.
__device__ __forceinline__ const u32* kept_row(const u32* __restrict__ table, u32 r, u32 width,
                                               const u32* space) {
    return WIDE_TABLES ? table + (u64)r * width : space;
}

// Whether x, an element of the list a row's extensions are drawn from, lies in every linking
// edge's list from `first_other` on but those whose bit is set in `skip` (links the list
// already guarantees: its own, or those of a depth-first level's kept set), by binary search
// in its list, whose ranges are pairs in `ranges`.
__device__ __forceinline__ bool has_links(u32 x, const u32* __restrict__ ci, const u32* ranges,
                                          u32 first_other, u32 link_count, u32 skip) {
    for (u32 k = first_other; k < link_count; ++k) {
        if (k < 32 && ((skip >> k) & 1u)) {
            continue;
        }
        if (!sorted_contains(ci, ranges[2 * k], ranges[2 * k + 1], x)) {
            return false;
        }
    }
    return true;
}

// Algorithm 3's tests (lines 9-12) of x, an element of a row's source list: C(u)'s bitset,
// the subtraction of the row's `width` vertices (when injective), and the linking edges as
// has_links tests them; then, for induced matching, x in none of the `absent_count` lists
// after the links.
__device__ __forceinline__ bool admits(u32 x, const u32* __restrict__ bits, u32 injective,
                                       const u32* row, u32 width, const u32* __restrict__ ci,
                                       const u32* ranges, u32 first_other, u32 link_count,
                                       u32 absent_count, u32 skip) {
    if (!((bits[x / 32] >> (x % 32)) & 1u)) {
        return false;
    }
    if (injective) {
        for (u32 j = 0; j < width; ++j) {
            if (row[j] == x) {
                return false;
            }
        }
    }
    if (!has_links(x, ci, ranges, first_other, link_count, skip)) {
        return false;
    }
    for (u32 k = link_count; k < link_count + absent_count; ++k) {
        if (sorted_contains(ci, ranges[2 * k], ranges[2 * k + 1], x)) {
            return false;
        }
    }
    return true;
}

// Which of a row's first `choose` linking edges has the shortest list once cut to the
// window [lo, hi) (the first of equals): its number, and its cut list in [*begin, *end). A
// list is cut only when its whole length could beat the best so far.
__device__ __forceinline__ u32 shortest_link(const u32* __restrict__ ci, const u32* ranges,
                                             u32 choose, u32 lo, u32 hi, bool cut,
                                             u32* begin, u32* end) {
    u32 best = 0;
    for (u32 k = 0; k < choose; ++k) {
        u32 b = ranges[2 * k];
        u32 e = ranges[2 * k + 1];
        if (k > 0 && e - b >= *end - *begin) {
            continue;
        }
        if (cut) {
            cut_to_window(ci, lo, hi, &b, &e);
        }
        if (k == 0 || e - b < *end - *begin) {
            best = k;
            *begin = b;
            *end = e;
        }
    }
    return best;
}

// The list a row's extensions are drawn from (Algorithm 3, line 5), cut to the step's order
// bounds: with a first edge, the shortest of the lists of its first `source_links` linking
// edges (1: the first edge's, as the paper draws them; their ranges are pairs in `ranges`),
// else C(u). Its length goes to *length; the links its candidates must still pass to
// has_links's `skip` (first_other 0): the list's own link is not tested again.
__device__ __forceinline__ const u32* row_source(const u32* __restrict__ ci, const u32* ranges,
                                                 u32 has_first, u32 source_links,
                                                 const u32* __restrict__ candidate_list,
                                                 u32 candidate_count,
                                                 const u32* __restrict__ order_bounds,
                                                 u32 order_bound_count, const u32* row,
                                                 u32* length, u32* skip) {
    *skip = 0;
    if (!has_first) {
        u32 begin = 0;
        u32 end = candidate_count;
        keep_order_bounds(candidate_list, order_bounds, order_bound_count, row, &begin, &end);
        *length = end - begin;
        return candidate_list + begin;
    }
    u32 lo, hi;
    order_window(order_bounds, order_bound_count, row, &lo, &hi);
    u32 begin = 0;
    u32 end = 0;
    u32 k = shortest_link(ci, ranges, min(max(source_links, 1u), 32u), lo, hi,
                          order_bound_count > 0, &begin, &end);
    *skip = 1u << k;
    *length = end - begin;
    return ci + begin;
}

// Warp per row (grid-stride): the buffer bound |N(v', l0)| of Algorithm 4, or |C(u)|.
extern "C" __global__ void gsi_join_bounds(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, Link first, u32 has_first, u32 candidate_count,
    u32* __restrict__ bounds) {
    u32 lane = threadIdx.x & 31u;
    for (u32 r = global_warp(); r < rows; r += grid_warps()) {
        u32 bound = candidate_count;
        if (has_first) {
            u32 v = table[(u64)r * width + first.column];
            u32 begin, end;
            pcsr_locate(groups, first, v, lane, &begin, &end);
            bound = end - begin;
        }
        if (lane == 0) {
            bounds[r] = bound;
        }
    }
}

// The block's warps share elements [start, end) of row r's list `source` (a piece of Sec.
// 6.1's second layer): warp w tests 32 elements from start + 32 w on, a block's width apart,
// as gsi_join_rows does, and appends the survivors to the row's buffer (at out_at) at places
// taken from counts[r] by one atomic per warp, so that a row cut into pieces has its
// extensions in no fixed order; with gba == 0 it only counts them, adding them to counts[r]
// when counts != 0, else returning the count.
__device__ __forceinline__ u64 join_span(const u32* source, u32 start, u32 end, u32 r,
                                         const u32* __restrict__ bits, u32 injective,
                                         const u32* row, u32 width, const u32* __restrict__ ci,
                                         const u32* ranges, u32 skip, u32 link_count,
                                         u32 absent_count, u64 out_at, u32* __restrict__ gba,
                                         u32* __restrict__ counts) {
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u64 found = 0;
    for (u32 base = start + w * WARP_SIZE; base < end; base += BLOCK_SIZE) {
        u32 i = base + lane;
        u32 x = i < end ? source[i] : 0;
        bool valid = i < end && admits(x, bits, injective, row, width, ci, ranges, 0,
                                       link_count, absent_count, skip);
        u32 mask = __ballot_sync(FULL_MASK, valid);
        if (!gba && !counts) {
            found += __popc(mask);
            continue;
        }
        u32 at = 0;
        if (lane == 0 && mask) {
            at = atomicAdd(&counts[r], __popc(mask));
        }
        if (!gba) {
            continue;
        }
        at = __shfl_sync(FULL_MASK, at, 0);
        if (valid) {
            gba[out_at + at + __popc(mask & ((1u << lane) - 1u))] = x;
        }
    }
    return found;
}

#ifndef SHARED_LIST_WORDS
#error "SHARED_LIST_WORDS must be defined by the host"
#endif

// The block's warps share row r's list `source` of `length` elements (Sec. 6.1's third layer):
// the block tests BLOCK_SIZE elements at a time, warp w the 32 from 32 w on, as gsi_join_rows
// does; the warps' survivors are placed by a scan of their numbers over the block (in
// `found_sh`, a word per warp), so that the row's extensions are written in the list's order,
// and their number goes to counts[r] (when counts != 0). With gba == 0 it only counts them;
// it returns the count.
// Every thread of the block must call it with the same arguments.
__device__ __forceinline__ u64 join_pooled(const u32* source, u32 length, u32 r,
                                           const u32* __restrict__ bits, u32 injective,
                                           const u32* row, u32 width, const u32* __restrict__ ci,
                                           const u32* ranges, u32 skip, u32 link_count,
                                           u32 absent_count, u64 out_at, u32* __restrict__ gba,
                                           u32* __restrict__ counts, u32* found_sh) {
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 written = 0;
    for (u32 base = 0; base < length; base += BLOCK_SIZE) {
        u32 i = base + w * WARP_SIZE + lane;
        u32 x = i < length ? source[i] : 0;
        bool valid = i < length && admits(x, bits, injective, row, width, ci, ranges, 0,
                                          link_count, absent_count, skip);
        u32 mask = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) {
            found_sh[w] = __popc(mask);
        }
        __syncthreads();
        u32 before = 0;
        u32 all = 0;
        for (u32 k = 0; k < WARPS_PER_BLOCK; ++k) {
            before += k < w ? found_sh[k] : 0;
            all += found_sh[k];
        }
        if (gba && valid) {
            gba[out_at + written + before + __popc(mask & ((1u << lane) - 1u))] = x;
        }
        written += all;
        __syncthreads();
    }
    if (counts && threadIdx.x == 0) {
        counts[r] = written;
    }
    return threadIdx.x == 0 ? written : 0;
}

// NO_POOL (gsi_join_rows's pool_from when no list goes to the block's pool) comes from the host.
#ifndef NO_POOL
#error "NO_POOL must be defined by the host"
#endif

// Warp per row, a block taking WARPS_PER_BLOCK consecutive rows at a time (grid-stride),
// Algorithm 3 lines 5-12. The row is kept in shared memory for the subtraction; the PCSR
// ranges of every linking edge are located once per row. The row's source (row_source: the
// shortest linking edge's list, or the first edge's as in the paper), cut to the step's order
// bounds (symmetry breaking), is read 32 elements at a time; each lane tests its element
// against C(u)'s bitset (one read), the row (subtraction, skipped when !injective) and, by
// binary search, every other linking edge's list — so subtraction and both
// intersections are fused into one pass and the buffer is written once. Survivors are
// compacted by ballot into a 128-byte per-warp write cache in shared memory that is flushed
// to the row's GBA buffer 32 words at a time (one transaction). Row r's buffer starts at
// offsets[r] - offset_base (Algorithm 4's prefix sum, taken over a run of which these rows
// may be a part) or, when offsets == 0, at r * stride (every row given the largest bound,
// when memory allows: it saves the bounds pass and its prefix sum). With gba == 0 nothing is
// written: the warp only counts, and the counts go to counts[r] (the first pass of the
// two-step output scheme) or, when counts == 0, are added to *total (the last step of a
// count-only query). With write_cache == 0, each lane writes its survivor to the buffer
// itself (the paper's baseline for the write cache).
//
// Sec. 6.1's load balance, its layers by list length: a list longer than balance_from is cut
// into pieces of piece_length for whole blocks (gsi_join_pieces; layers 1 and 2); one longer
// than pool_from goes to the block's pool in shared memory, whose lists all the block's warps
// then share out (layer 3); the warp joins the rest itself (layer 4). With
// remove_duplicates (Sec. 6.2), warps of a block whose rows read the same first-edge list of
// at most SHARED_LIST_WORDS elements read it once, into shared memory.
extern "C" __global__ void gsi_join_rows(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, u32 link_count, u32 absent_count, u32 has_first,
    u32 source_links, const u32* __restrict__ order_bounds, u32 order_bound_count,
    const u32* __restrict__ candidate_list, u32 candidate_count,
    const u32* __restrict__ candidate_bits, u32 injective,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts, u64* __restrict__ total,
    u32 balance_from, u32 piece_length, u32* __restrict__ pieces, u32* __restrict__ piece_count,
    u32 piece_capacity, u32 pool_from, u32 remove_duplicates, u32 write_cache) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 range_sh[WARPS_PER_BLOCK][2 * MAX_WIDTH];
    __shared__ u32 cache_sh[WARPS_PER_BLOCK][WARP_SIZE];
    // The block's pool: each warp's list, when it put it there.
    __shared__ const u32* pool_source_sh[WARPS_PER_BLOCK];
    __shared__ u32 pool_length_sh[WARPS_PER_BLOCK];
    __shared__ u32 pool_found_sh[WARPS_PER_BLOCK];
    __shared__ u32 pool_skip_sh[WARPS_PER_BLOCK];
    // Duplicate removal: each warp's first-edge vertex, whether its list may be shared, and
    // the lists read once for the block.
    __shared__ u32 first_sh[WARPS_PER_BLOCK];
    __shared__ u32 shares_sh[WARPS_PER_BLOCK];
    __shared__ u32 list_sh[WARPS_PER_BLOCK][SHARED_LIST_WORDS];
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 lanes_before = (1u << lane) - 1u;
    u64 found = 0;
    for (u32 first_row = blockIdx.x * WARPS_PER_BLOCK; first_row < rows;
         first_row += gridDim.x * WARPS_PER_BLOCK) {
        u32 r = first_row + w;
        // Whether this warp joins row r itself, from which list, and how much of it.
        bool own = r < rows;
        const u32* source = candidate_list;
        u32 source_len = 0;
        u32 skip = 0;
        const u32* row = kept_row(table, r, width, row_sh[w]);
        if (own) {
            copy_row(table, r, width, row_sh[w], lane, WARP_SIZE);
            __syncwarp();
            for (u32 k = 0; k < link_count + absent_count; ++k) {
                Link link = links[k];
                u32 begin, end;
                pcsr_locate(groups, link, row[link.column], lane, &begin, &end);
                if (lane == 0) {
                    range_sh[w][2 * k] = begin;
                    range_sh[w][2 * k + 1] = end;
                }
            }
            __syncwarp();
            source = row_source(ci, range_sh[w], has_first, source_links, candidate_list,
                                candidate_count, order_bounds, order_bound_count, row,
                                &source_len, &skip);
        }
        if (own && source_len > balance_from) {
            // Layers 1 and 2: a long list is cut into pieces for whole blocks.
            u32 count = (source_len + piece_length - 1) / piece_length;
            u32 at = 0;
            if (lane == 0) {
                at = atomicAdd(piece_count, count);
            }
            at = __shfl_sync(FULL_MASK, at, 0);
            if (at + count <= piece_capacity) {
                for (u32 p = lane; p < count; p += WARP_SIZE) {
                    pieces[2 * (at + p)] = r;
                    pieces[2 * (at + p) + 1] = p * piece_length;
                }
                if (counts && lane == 0) {
                    counts[r] = 0;
                }
                own = false;
            } else {
                // The pool is full: this warp does the row, and marks the slots it took as
                // empty.
                for (u32 p = at + lane; p < piece_capacity; p += WARP_SIZE) {
                    pieces[2 * p] = 0xffffffffu;
                }
            }
        }
        if (pool_from != NO_POOL) {
            // Layer 3: the block's warps share out the lists longer than pool_from.
            bool pooled = own && source_len > pool_from;
            if (lane == 0) {
                pool_length_sh[w] = pooled ? source_len : 0;
                pool_source_sh[w] = source;
                pool_skip_sh[w] = skip;
            }
            if (__syncthreads_or(pooled)) {
                for (u32 t = 0; t < WARPS_PER_BLOCK; ++t) {
                    u32 length = pool_length_sh[t];
                    if (length == 0) {
                        continue;
                    }
                    u32 rt = first_row + t;
                    u64 out_at = !gba       ? 0
                                 : offsets ? (u64)(offsets[rt] - offset_base)
                                           : (u64)rt * stride;
                    found += join_pooled(pool_source_sh[t], length, rt, candidate_bits,
                                         injective, kept_row(table, rt, width, row_sh[t]),
                                         width, ci, range_sh[t],
                                         pool_skip_sh[t], link_count, absent_count, out_at, gba,
                                         counts, pool_found_sh);
                }
                // Every warp has read the pool before any puts its next row there.
                __syncthreads();
            }
            own = own && !pooled;
        }
        if (remove_duplicates) {
            // Sec. 6.2 (Algorithm 5): the first warp of the block whose row reads a short
            // first-edge list reads it into shared memory for every other warp reading it
            // (rows drawing from another link's list keep to their own).
            u32 v = own && has_first ? row[links[0].column] : 0;
            bool shares = own && has_first && skip == 1u &&
                          range_sh[w][1] - range_sh[w][0] <= SHARED_LIST_WORDS;
            if (lane == 0) {
                first_sh[w] = v;
                shares_sh[w] = shares;
            }
            __syncthreads();
            u32 same = __ballot_sync(FULL_MASK, shares && lane < WARPS_PER_BLOCK &&
                                                    shares_sh[lane] && first_sh[lane] == v);
            u32 leader = __ffs(same) - 1;
            bool shared = __popc(same) > 1;
            if (shared && leader == w) {
                for (u32 j = range_sh[w][0] + lane; j < range_sh[w][1]; j += WARP_SIZE) {
                    list_sh[w][j - range_sh[w][0]] = ci[j];
                }
            }
            __syncthreads();
            if (shared) {
                source = list_sh[leader] + (source - (ci + range_sh[w][0]));
            }
        }
        if (!own) {
            continue;
        }
        u64 out_at = !gba ? 0 : offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride;
        u32 cached = 0;
        u32 written = 0;
        for (u32 base = 0; base < source_len; base += WARP_SIZE) {
            u32 i = base + lane;
            u32 x = i < source_len ? source[i] : 0;
            bool valid = i < source_len && admits(x, candidate_bits, injective, row, width, ci,
                                                  range_sh[w], 0, link_count, absent_count,
                                                  skip);
            u32 mask = __ballot_sync(FULL_MASK, valid);
            if (!gba) {
                cached += __popc(mask);
                continue;
            }
            if (!write_cache) {
                if (valid) {
                    gba[out_at + written + __popc(mask & lanes_before)] = x;
                }
                written += __popc(mask);
                continue;
            }
            u32 pos = cached + __popc(mask & lanes_before);
            if (valid && pos < WARP_SIZE) {
                cache_sh[w][pos] = x;
            }
            __syncwarp();
            u32 next = cached + __popc(mask);
            if (next >= WARP_SIZE) {
                gba[out_at + written + lane] = cache_sh[w][lane];
                __syncwarp();
                if (valid && pos >= WARP_SIZE) {
                    cache_sh[w][pos - WARP_SIZE] = x;
                }
                __syncwarp();
                written += WARP_SIZE;
                next -= WARP_SIZE;
            }
            cached = next;
        }
        if (gba && lane < cached) {
            gba[out_at + written + lane] = cache_sh[w][lane];
        }
        if (counts) {
            if (lane == 0) {
                counts[r] = written + cached;
            }
        } else {
            found += cached;
        }
        __syncwarp();
    }
    if (total && lane == 0 && found > 0) {
        add_to_total(total, found, false);
    }
}

// Lanes per row of gsi_join_rows_narrow, and its widest table and most lists per row.
#define NARROW 8
#ifndef NARROW_MAX_WIDTH
#error "NARROW_MAX_WIDTH must be defined by the host"
#endif
#if GROUP_WORDS != 4 * NARROW
#error "gsi_join_rows_narrow reads a PCSR group as one 16-byte word per lane"
#endif

// Word j of a 128-byte PCSR group read by NARROW lanes, lane s holding words 4s..4s+3 in q
// (every lane of the row's lanes, `mask`, must call it with the same j).
__device__ __forceinline__ u32 group_word(uint4 q, u32 j, u32 mask) {
    u32 c = j & 3u;
    u32 mine = c == 0 ? q.x : c == 1 ? q.y : c == 2 ? q.z : q.w;
    return __shfl_sync(mask, mine, j >> 2, NARROW);
}

// pcsr_locate by the NARROW lanes of `mask` (lane `sub` of them): each reads 16 bytes of the
// group, so a group still costs one transaction, and four rows of a warp look theirs up at
// once.
__device__ __forceinline__ void pcsr_locate_narrow(const u32* __restrict__ groups, Link link,
                                                   u32 v, u32 sub, u32 mask, u32* begin,
                                                   u32* end) {
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
        uint4 q = reinterpret_cast<const uint4*>(groups +
                                                 ((u64)link.group_base + g) * GROUP_WORDS)[sub];
        u32 w0 = 4 * sub;
        bool hit0 = w0 < KEY_WORDS && q.x == v;
        bool hit2 = w0 + 2 < KEY_WORDS && q.z == v;
        bool empty = (w0 < KEY_WORDS && q.x == EMPTY_SLOT) ||
                     (w0 + 2 < KEY_WORDS && q.z == EMPTY_SLOT);
        u32 hits = __ballot_sync(mask, hit0 || hit2) & mask;
        u32 empties = __ballot_sync(mask, empty) & mask;
        u32 gid = group_word(q, GID_WORD, mask);
        u32 group_end = group_word(q, END_WORD, mask);
        if (hits) {
            u32 k = __shfl_sync(mask, hit0 ? w0 : w0 + 2, (__ffs(hits) - 1) % NARROW, NARROW);
            u32 start = group_word(q, k + 1, mask);
            u32 next_key = group_word(q, k + 2 < KEY_WORDS ? k + 2 : GID_WORD, mask);
            u32 next_offset = group_word(q, k + 3 < KEY_WORDS ? k + 3 : END_WORD, mask);
            bool has_next = k + 2 < KEY_WORDS && next_key != EMPTY_SLOT;
            *begin = link.ci_base + start;
            *end = link.ci_base + (has_next ? next_offset : group_end);
            return;
        }
        if (empties || gid == NO_GROUP) {
            return;
        }
        g = gid;
    }
}

#if !WIDE_TABLES
// gsi_join_rows for short lists: NARROW lanes per row (grid-stride), so that a warp joins four
// rows at once where most lists are shorter than a warp. The row's lanes locate its linking
// edges' lists, then test NARROW elements of the row's source at a time with admits and
// write the survivors straight to the row's buffer (placed as gsi_join_rows places it), or
// only count them. No long list is given to blocks: the host takes this kernel only for steps
// whose lists are all short, and tables of at most NARROW_MAX_WIDTH columns and lists.
extern "C" __global__ void gsi_join_rows_narrow(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, u32 link_count, u32 absent_count, u32 has_first,
    u32 source_links, const u32* __restrict__ order_bounds, u32 order_bound_count,
    const u32* __restrict__ candidate_list, u32 candidate_count,
    const u32* __restrict__ candidate_bits, u32 injective,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts, u64* __restrict__ total) {
    __shared__ u32 row_sh[BLOCK_SIZE / NARROW][NARROW_MAX_WIDTH];
    __shared__ u32 range_sh[BLOCK_SIZE / NARROW][2 * NARROW_MAX_WIDTH];
    u32 lane = threadIdx.x & 31u;
    u32 sub = lane % NARROW;
    u32 first_lane = lane - sub;
    u32 mask = ((1u << NARROW) - 1u) << first_lane;
    u32 slot = threadIdx.x / NARROW;
    u32* row = row_sh[slot];
    u32* range = range_sh[slot];
    u32 all_rows = gridDim.x * (blockDim.x / NARROW);
    u64 found = 0;
    for (u32 r = blockIdx.x * (blockDim.x / NARROW) + slot; r < rows; r += all_rows) {
        for (u32 j = sub; j < width; j += NARROW) {
            row[j] = table[(u64)r * width + j];
        }
        __syncwarp(mask);
        for (u32 k = 0; k < link_count + absent_count; ++k) {
            Link link = links[k];
            u32 begin, end;
            pcsr_locate_narrow(groups, link, row[link.column], sub, mask, &begin, &end);
            if (sub == 0) {
                range[2 * k] = begin;
                range[2 * k + 1] = end;
            }
        }
        __syncwarp(mask);
        u32 source_len, skip;
        const u32* source = row_source(ci, range, has_first, source_links, candidate_list,
                                       candidate_count, order_bounds, order_bound_count, row,
                                       &source_len, &skip);
        u64 out_at = !gba ? 0 : offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride;
        u32 written = 0;
        for (u32 base = 0; base < source_len; base += NARROW) {
            u32 i = base + sub;
            u32 x = i < source_len ? source[i] : 0;
            bool valid = i < source_len && admits(x, candidate_bits, injective, row, width, ci,
                                                  range, 0, link_count, absent_count, skip);
            u32 ballot = (__ballot_sync(mask, valid) & mask) >> first_lane;
            if (gba && valid) {
                gba[out_at + written + __popc(ballot & ((1u << sub) - 1u))] = x;
            }
            written += __popc(ballot);
        }
        if (sub == 0) {
            if (counts) {
                counts[r] = written;
            } else {
                found += written;
            }
        }
        __syncwarp(mask);
    }
    if (total && sub == 0 && found > 0) {
        add_to_total(total, found, false);
    }
}
#endif

// Block per piece (grid-stride), Sec. 6.1's first two layers: the pieces gsi_join_rows cut from
// lists longer than balance_from (a piece of at most piece_length elements, so that a list
// longer than that is spread over several blocks, each its own share of the launch). Each
// piece is (row, start in the row's list, cut as gsi_join_rows cuts it); the block reads the
// row and the linking edges' ranges once, then its warps share the piece out. With
// piece_found (buffers written, each at least as long as its row's list), piece p writes its
// survivors in order from its own start in the row's buffer and their number to
// piece_found[p], and gsi_join_pieces_close then closes the gaps (join_pooled); without, the
// warps append by atomics, in no fixed order, or only count (join_span).
extern "C" __global__ void gsi_join_pieces(
    const u32* __restrict__ table, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, u32 link_count, u32 absent_count, u32 has_first,
    u32 source_links, const u32* __restrict__ order_bounds, u32 order_bound_count,
    const u32* __restrict__ candidate_list, u32 candidate_count,
    const u32* __restrict__ candidate_bits, u32 injective,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts, u64* __restrict__ total,
    u32 piece_length, const u32* __restrict__ pieces, const u32* __restrict__ piece_count,
    u32 piece_capacity, u32* __restrict__ piece_found) {
    __shared__ u32 row_sh[MAX_WIDTH];
    __shared__ u32 range_sh[2 * MAX_WIDTH];
    __shared__ u32 pieces_sh;
    __shared__ u32 found_sh[WARPS_PER_BLOCK];
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    // One read of the counter a block (most launches find the pool empty).
    if (threadIdx.x == 0) {
        pieces_sh = min(*piece_count, piece_capacity);
    }
    __syncthreads();
    u32 n = pieces_sh;
    u64 found = 0;
    for (u32 p = blockIdx.x; p < n; p += gridDim.x) {
        u32 r = pieces[2 * p];
        if (r == 0xffffffffu) {
            continue;
        }
        u32 start = pieces[2 * p + 1];
        __syncthreads();
        copy_row(table, r, width, row_sh, threadIdx.x, BLOCK_SIZE);
        __syncthreads();
        const u32* row = kept_row(table, r, width, row_sh);
        for (u32 k = w; k < link_count + absent_count; k += WARPS_PER_BLOCK) {
            u32 b, e;
            pcsr_locate(groups, links[k], row[links[k].column], lane, &b, &e);
            if (lane == 0) {
                range_sh[2 * k] = b;
                range_sh[2 * k + 1] = e;
            }
        }
        __syncthreads();
        u32 source_len, skip;
        const u32* source = row_source(ci, range_sh, has_first, source_links, candidate_list,
                                       candidate_count, order_bounds, order_bound_count, row,
                                       &source_len, &skip);
        u32 piece_end = min(source_len, start + piece_length);
        u64 out_at = !gba ? 0 : offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride;
        if (gba && piece_found) {
            join_pooled(source + start, piece_end - start, p, candidate_bits, injective, row,
                        width, ci, range_sh, skip, link_count, absent_count,
                        out_at + start, gba, piece_found, found_sh);
            continue;
        }
        found += join_span(source, start, piece_end, r, candidate_bits, injective, row, width,
                           ci, range_sh, skip, link_count, absent_count, out_at, gba,
                           counts);
    }
    if (total && lane == 0 && found > 0) {
        add_to_total(total, found, false);
    }
}

// Block per row cut into pieces (grid-stride over the pieces, from each row's first): moves
// the survivors of the row's later pieces, each written from its own start by
// gsi_join_pieces, down to follow those of the earlier ones, in order, and sets counts[r] to
// their number. A row's pieces lie side by side in `pieces`, in the order of their starts.
extern "C" __global__ void gsi_join_pieces_close(
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts, const u32* __restrict__ pieces,
    const u32* __restrict__ piece_count, u32 piece_capacity,
    const u32* __restrict__ piece_found) {
    u32 n = min(*piece_count, piece_capacity);
    for (u32 p = blockIdx.x; p < n; p += gridDim.x) {
        u32 r = pieces[2 * p];
        if (r == 0xffffffffu || pieces[2 * p + 1] != 0) {
            continue;
        }
        u64 out_at = offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride;
        u32 closed = piece_found[p];
        for (u32 q = p + 1; q < n && pieces[2 * q] == r; ++q) {
            u32 from = pieces[2 * q + 1];
            u32 length = piece_found[q];
            // Down by at least nothing: each round reads its elements before any is written.
            for (u32 base = 0; base < length; base += BLOCK_SIZE) {
                u32 i = base + threadIdx.x;
                u32 x = i < length ? gba[out_at + from + i] : 0;
                __syncthreads();
                if (i < length) {
                    gba[out_at + closed + i] = x;
                }
                __syncthreads();
            }
            closed += length;
        }
        if (threadIdx.x == 0) {
            counts[r] = closed;
        }
    }
}

// What gsi_join_refilter keeps of a row's buffer: the elements in the list of the row's
// linking edge, those not in it (an absent edge of induced matching), or those not in the row
// (the subtraction of injective semantics): KEEP_LINKED, KEEP_UNLINKED and KEEP_UNMATCHED, from
// the host.

// Warp per row (grid-stride): one set operation of a step done on its own, as the paper's
// naive baseline does (Sec. 5, "GPU-friendly set operations"): the row's buffer (placed as
// gsi_join_rows places it, counts[r] elements long) is read back from global memory, each
// element tested as `keep` says (against links[link]'s list of the row, by binary search, or
// against the row), and the survivors compacted in place; counts[r] becomes their number.
extern "C" __global__ void gsi_join_refilter(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, u32 link, u32 keep,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 lanes_before = (1u << lane) - 1u;
    for (u32 r = global_warp(); r < rows; r += grid_warps()) {
        copy_row(table, r, width, row_sh[w], lane, WARP_SIZE);
        __syncwarp();
        const u32* row = kept_row(table, r, width, row_sh[w]);
        u32 begin = 0, end = 0;
        if (keep != KEEP_UNMATCHED) {
            Link l = links[link];
            pcsr_locate(groups, l, row[l.column], lane, &begin, &end);
        }
        u32* buffer = gba + (offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride);
        u32 n = counts[r];
        u32 kept = 0;
        for (u32 base = 0; base < n; base += WARP_SIZE) {
            u32 i = base + lane;
            u32 x = i < n ? buffer[i] : 0;
            bool stays = false;
            if (i < n) {
                if (keep == KEEP_UNMATCHED) {
                    stays = true;
                    for (u32 j = 0; j < width; ++j) {
                        stays = stays && row[j] != x;
                    }
                } else {
                    stays = sorted_contains(ci, begin, end, x) == (keep == KEEP_LINKED);
                }
            }
            // Every lane has read its element before any writes: the ballot waits for all.
            u32 mask = __ballot_sync(FULL_MASK, stays);
            if (stays) {
                buffer[kept + __popc(mask & lanes_before)] = x;
            }
            kept += __popc(mask);
        }
        if (lane == 0) {
            counts[r] = kept;
        }
        __syncwarp();
    }
}

// Warp per row (grid-stride), Algorithm 3 lines 15-19: copies row r followed by each of its
// buffer's vertices (buffers placed as in gsi_join_rows) into the new table at the row's
// offset (a scan of the counts). Lanes stride over the output words, so the writes are
// coalesced.
extern "C" __global__ void gsi_join_link(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, const u32* __restrict__ gba,
    const u32* __restrict__ counts, const u32* __restrict__ new_offsets, u32* __restrict__ next) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 new_width = width + 1;
    for (u32 r = global_warp(); r < rows; r += grid_warps()) {
        u32 count = counts[r];
        if (count == 0) {
            continue;
        }
        copy_row(table, r, width, row_sh[w], lane, WARP_SIZE);
        __syncwarp();
        const u32* row = kept_row(table, r, width, row_sh[w]);
        const u32* buffer = gba + (offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride);
        u32* out = next + (u64)new_offsets[r] * new_width;
        u64 words = (u64)count * new_width;
        for (u64 t = lane; t < words; t += WARP_SIZE) {
            u32 k = (u32)(t / new_width);
            u32 j = (u32)(t % new_width);
            out[t] = j < width ? row[j] : buffer[k];
        }
        __syncwarp();
    }
}

// Thread per match of the final table: writes it in query-vertex order (order[c] is the query
// vertex of column c), so the host copies matches out as they are.
extern "C" __global__ void gsi_join_permute(
    const u32* __restrict__ table, u32 rows, u32 width, const u32* __restrict__ order,
    u32* __restrict__ out) {
    u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (u64)rows * width) {
        return;
    }
    u64 r = t / width;
    u32 c = (u32)(t % width);
    out[r * width + order[c]] = table[t];
}

// A share cut by rows (gsi-core join/dealing.rs): the rows of a table whose hash falls in the
// share's class. The hash is `Share::holds_row`'s: SplitMix64's finalizer folded over the row's
// vertices from `seed`.
__device__ __forceinline__ u64 row_mix(u64 x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Thread per row of `table` (`rows` rows of `width` columns): held[r] is 1 when row r's hash
// modulo `count` is `index`, else 0.
extern "C" __global__ void gsi_join_held_rows(
    const u32* __restrict__ table, u32 rows, u32 width, u64 seed, u32 count, u32 index,
    u32* __restrict__ held) {
    u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    const u32* row = table + (u64)r * width;
    u64 hash = seed;
    for (u32 c = 0; c < width; ++c) {
        hash = row_mix(hash ^ (u64)row[c]);
    }
    held[r] = hash % count == index;
}

// Thread per entry of `table`: the entries of the held rows to their rows in `out`, row r's
// at places[r] (the exclusive prefix sum of `held`).
extern "C" __global__ void gsi_join_keep_rows(
    const u32* __restrict__ table, u32 rows, u32 width, const u32* __restrict__ held,
    const u32* __restrict__ places, u32* __restrict__ out) {
    u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (u64)rows * width) {
        return;
    }
    u64 r = t / width;
    if (held[r]) {
        out[(u64)places[r] * width + t % width] = table[t];
    }
}

// One step of the query as the depth-first kernel reads it: the query vertex joined, its
// linking edges in `links` (the first edge first, when has_first) followed by its absent edges
// (induced matching), and C(u)'s place in the candidate lists.
struct DepthStep {
    u32 vertex;
    u32 links_from;
    u32 link_count;
    u32 absent_count;
    u32 has_first;
    u32 candidates_from;
    u32 candidate_count;
    u32 order_bounds_from;
    u32 order_bound_count;
    u32 max_bound;  // the longest list a row of the step can draw from
    // Kept sets of the depth-first count (gsi-core cuda/join/kept_sets.rs): the slot where this
    // level keeps its set (NO_SLOT: it keeps none), the slot of the earlier level whose set
    // it draws from (NO_SLOT: none), and which of its links that set guarantees (bit k: link k).
    u32 set_slot;
    u32 parent_slot;
    u32 inherited;
    // Lists the row's source is chosen among (row_source): the first edge's alone (1, the
    // paper's) or the shortest of the first source_links links'.
    u32 source_links;
};
static_assert(sizeof(DepthStep) == GSI_DEPTH_STEP_BYTES, "struct DepthStep differs from the host's");
static_assert(field_offset(&DepthStep::vertex) == GSI_DEPTH_STEP_VERTEX_OFFSET, "DepthStep::vertex is not at the host's offset");
static_assert(field_offset(&DepthStep::links_from) == GSI_DEPTH_STEP_LINKS_FROM_OFFSET, "DepthStep::links_from is not at the host's offset");
static_assert(field_offset(&DepthStep::link_count) == GSI_DEPTH_STEP_LINK_COUNT_OFFSET, "DepthStep::link_count is not at the host's offset");
static_assert(field_offset(&DepthStep::absent_count) == GSI_DEPTH_STEP_ABSENT_COUNT_OFFSET, "DepthStep::absent_count is not at the host's offset");
static_assert(field_offset(&DepthStep::has_first) == GSI_DEPTH_STEP_HAS_FIRST_OFFSET, "DepthStep::has_first is not at the host's offset");
static_assert(field_offset(&DepthStep::candidates_from) == GSI_DEPTH_STEP_CANDIDATES_FROM_OFFSET, "DepthStep::candidates_from is not at the host's offset");
static_assert(field_offset(&DepthStep::candidate_count) == GSI_DEPTH_STEP_CANDIDATE_COUNT_OFFSET, "DepthStep::candidate_count is not at the host's offset");
static_assert(field_offset(&DepthStep::order_bounds_from) == GSI_DEPTH_STEP_ORDER_BOUNDS_FROM_OFFSET, "DepthStep::order_bounds_from is not at the host's offset");
static_assert(field_offset(&DepthStep::order_bound_count) == GSI_DEPTH_STEP_ORDER_BOUND_COUNT_OFFSET, "DepthStep::order_bound_count is not at the host's offset");
static_assert(field_offset(&DepthStep::max_bound) == GSI_DEPTH_STEP_MAX_BOUND_OFFSET, "DepthStep::max_bound is not at the host's offset");
static_assert(field_offset(&DepthStep::set_slot) == GSI_DEPTH_STEP_SET_SLOT_OFFSET, "DepthStep::set_slot is not at the host's offset");
static_assert(field_offset(&DepthStep::parent_slot) == GSI_DEPTH_STEP_PARENT_SLOT_OFFSET, "DepthStep::parent_slot is not at the host's offset");
static_assert(field_offset(&DepthStep::inherited) == GSI_DEPTH_STEP_INHERITED_OFFSET, "DepthStep::inherited is not at the host's offset");
static_assert(field_offset(&DepthStep::source_links) == GSI_DEPTH_STEP_SOURCE_LINKS_OFFSET, "DepthStep::source_links is not at the host's offset");

// Nanoseconds of the GPU's global timer.
__device__ __forceinline__ u64 global_ns() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Links of all steps whose PCSR ranges a warp keeps in shared memory; more go to `ranges`.
#define SHARED_LINKS 64

// A group of leaves of one label (see gsi-core plan.rs, LeafSuffix): its members (step
// numbers) and its terms, each a coefficient and blocks (bitmasks over the members).
struct LeafGroup {
    u32 members_from;
    u32 member_count;
    u32 terms_from;
    u32 term_count;
};
static_assert(sizeof(LeafGroup) == GSI_LEAF_GROUP_BYTES, "struct LeafGroup differs from the host's");
static_assert(field_offset(&LeafGroup::members_from) == GSI_LEAF_GROUP_MEMBERS_FROM_OFFSET, "LeafGroup::members_from is not at the host's offset");
static_assert(field_offset(&LeafGroup::member_count) == GSI_LEAF_GROUP_MEMBER_COUNT_OFFSET, "LeafGroup::member_count is not at the host's offset");
static_assert(field_offset(&LeafGroup::terms_from) == GSI_LEAF_GROUP_TERMS_FROM_OFFSET, "LeafGroup::terms_from is not at the host's offset");
static_assert(field_offset(&LeafGroup::term_count) == GSI_LEAF_GROUP_TERM_COUNT_OFFSET, "LeafGroup::term_count is not at the host's offset");

struct LeafTerm {
    int coefficient;
    u32 blocks_from;
    u32 block_count;
};
static_assert(sizeof(LeafTerm) == GSI_LEAF_TERM_BYTES, "struct LeafTerm differs from the host's");
static_assert(field_offset(&LeafTerm::coefficient) == GSI_LEAF_TERM_COEFFICIENT_OFFSET, "LeafTerm::coefficient is not at the host's offset");
static_assert(field_offset(&LeafTerm::blocks_from) == GSI_LEAF_TERM_BLOCKS_FROM_OFFSET, "LeafTerm::blocks_from is not at the host's offset");
static_assert(field_offset(&LeafTerm::block_count) == GSI_LEAF_TERM_BLOCK_COUNT_OFFSET, "LeafTerm::block_count is not at the host's offset");

#ifndef MAX_LEAF_GROUP
#error "MAX_LEAF_GROUP must be defined by the host"
#endif
#ifndef MAX_LEAF_LINKS
#error "MAX_LEAF_LINKS must be defined by the host"
#endif

// A group without precomputed counts: NO_COUNTS, from the host.

// The leaf suffix as the kernels that count it read it: its groups, their members and terms,
// and the lone leaves' counts (counts_at null, or per group NO_COUNTS or where its counts
// start in leaf_counts), looked up for a list longer than lookup_from.
struct LeafSuffix {
    const LeafGroup* groups;
    u32 group_count;
    const u32* members;
    const LeafTerm* terms;
    const u32* blocks;
    const u32* counts_at;
    const u32* leaf_counts;
    u32 lookup_from;
};

// What every step reads: the PCSR, the linking edges, the steps, C(u)'s lists and bitsets.
struct Query {
    const u32* groups;
    const u32* ci;
    const Link* links;
    const DepthStep* steps;
    const u32* candidate_lists;
    const u32* candidate_bits;
    u32 words;
    u32 injective;
};

// By `lanes` lanes (a warp, or the NARROW lanes of `lanes_mask`; this one is `sub` of them):
// the number of ways to match the leaf suffix for `row` (width = the suffix's first step): over
// the groups, the product of each group's injective choices, from
// the sizes of the intersections of its members' extension sets (inclusion-exclusion over set
// partitions; without injectivity simply the product of the sets' sizes). `range` holds
// 2 * MAX_LEAF_LINKS words of the warp's own. In `Count`, u64 or u128 (then *past is set where
// a product passes 2^128 - 1). Every lane returns the same value.
template <typename Count>
__device__ Count leaf_product(const Query& q, const LeafSuffix& leaves, const u32* row,
                              u32 width, u32 sub, u32 lanes_mask, u32 lanes, u32* range,
                              bool* past) {
    Count product = 1;
    for (u32 g = 0; g < leaves.group_count && product != 0; ++g) {
        LeafGroup group = leaves.groups[g];
        u32 k = group.member_count;
        // The lists of every linking edge of every member, member after member (at most
        // MAX_LEAF_LINKS in a group, as the plan ensures); link_at[j] is where member j's
        // start. A member without links draws from C(u).
        u32 link_at[MAX_LEAF_GROUP + 1];
        u32 at = 0;
        for (u32 j = 0; j < k; ++j) {
            link_at[j] = at;
            DepthStep st = q.steps[leaves.members[group.members_from + j]];
            for (u32 l = 0; l < st.link_count; ++l) {
                Link link = q.links[st.links_from + l];
                u32 b, e;
                if (lanes == WARP_SIZE) {
                    pcsr_locate(q.groups, link, row[link.column], sub, &b, &e);
                } else {
                    pcsr_locate_narrow(q.groups, link, row[link.column], sub, lanes_mask, &b,
                                       &e);
                }
                if (sub == 0) {
                    range[2 * at] = b;
                    range[2 * at + 1] = e;
                }
                ++at;
            }
        }
        link_at[k] = at;
        __syncwarp(lanes_mask);
        DepthStep s0 = q.steps[leaves.members[group.members_from]];
        u32 length0 = range[1] - range[0];
        if (k == 1 && leaves.counts_at && leaves.counts_at[g] != NO_COUNTS &&
            length0 > leaves.lookup_from) {
            // A lone leaf of one link: |N(v, l) ∩ C(u)| counted once per candidate v
            // (gsi_leaf_counts), less the row's vertices in it.
            Link link = q.links[s0.links_from];
            DepthStep sw = q.steps[link.column];
            u32 v = row[link.column];
            u32 p = sorted_lower_bound(q.candidate_lists, sw.candidates_from,
                                       sw.candidates_from + sw.candidate_count, v) -
                    sw.candidates_from;
            u64 value = leaves.leaf_counts[leaves.counts_at[g] + p];
            if (q.injective) {
                const u32* bits = q.candidate_bits + (u64)s0.vertex * q.words;
                for (u32 base = 0; base < width; base += lanes) {
                    u32 j = base + sub;
                    bool taken = false;
                    if (j < width) {
                        u32 x = row[j];
                        taken = ((bits[x / 32] >> (x % 32)) & 1u) &&
                                sorted_contains(q.ci, range[0], range[1], x);
                    }
                    value -= __popc(__ballot_sync(lanes_mask, taken) & lanes_mask);
                }
            }
            product = times_count(product, (Count)value, past);
            __syncwarp(lanes_mask);
            continue;
        }
        u64 size[1 << MAX_LEAF_GROUP];
        u32 all = (1u << k) - 1u;
        for (u32 mask = 1; mask <= all; ++mask) {
            size[mask] = 0;
            bool single = (mask & (mask - 1u)) == 0;
            if (!single && (k == 1 || !q.injective)) {
                continue;
            }
            // Scan the lowest member's first list (or its C(u)); test every member of the
            // mask against its other lists.
            u32 a = __ffs(mask) - 1;
            DepthStep sa = q.steps[leaves.members[group.members_from + a]];
            const u32* source = sa.has_first ? q.ci : q.candidate_lists;
            u32 begin = sa.has_first ? range[2 * link_at[a]] : sa.candidates_from;
            u32 length = (sa.has_first ? range[2 * link_at[a] + 1]
                                       : sa.candidates_from + sa.candidate_count) - begin;
            u64 count = 0;
            for (u32 base = 0; base < length; base += lanes) {
                u32 i = base + sub;
                bool valid = false;
                if (i < length) {
                    u32 x = source[begin + i];
                    valid = true;
                    for (u32 j = 0; valid && j < k; ++j) {
                        if (!((mask >> j) & 1u)) {
                            continue;
                        }
                        DepthStep sj = q.steps[leaves.members[group.members_from + j]];
                        u32 from = link_at[j] + (j == a && sa.has_first ? 1u : 0u);
                        // x in E_j: member j's extension set (the list x was drawn from not
                        // tested again).
                        valid = admits(x, q.candidate_bits + (u64)sj.vertex * q.words,
                                       q.injective, row, width, q.ci, range, from,
                                       link_at[j + 1], 0, 0);
                    }
                }
                count += __popc(__ballot_sync(lanes_mask, valid) & lanes_mask);
            }
            size[mask] = count;
        }
        Count value = 0;
        if (k == 1 || !q.injective) {
            value = 1;
            for (u32 j = 0; j < k; ++j) {
                value = times_count(value, (Count)size[1u << j], past);
            }
        } else {
            // Signed terms modulo the type's range: exact where the value fits it (it is at
            // most the product of the sizes); in 128 bits a term past it is noted.
            for (u32 t = 0; t < group.term_count; ++t) {
                LeafTerm term = leaves.terms[group.terms_from + t];
                long long coefficient = term.coefficient;
                Count part = (Count)(coefficient < 0 ? -coefficient : coefficient);
                for (u32 b = 0; b < term.block_count; ++b) {
                    part = times_count(part, (Count)size[leaves.blocks[term.blocks_from + b]],
                                       past);
                }
                value = coefficient < 0 ? value - part : value + part;
            }
        }
        product = times_count(product, value, past);
        __syncwarp(lanes_mask);
    }
    return product;
}

// LANES lanes per row (a warp, or NARROW: four rows a warp), grid-stride: leaf_product of
// each row of `table` (width = the suffix's first step, at most MAX_WIDTH for a warp and
// NARROW_MAX_WIDTH for NARROW lanes) in `Count`, added to the counter `total`.
template <u32 LANES, typename Count>
__device__ __forceinline__ void leaf_products(const u32* __restrict__ table, u32 rows, u32 width,
                                              const Query& q, const LeafSuffix& leaves,
                                              u64* __restrict__ total) {
    constexpr u32 ROW_WORDS = LANES == WARP_SIZE ? MAX_WIDTH : NARROW_MAX_WIDTH;
    __shared__ u32 row_sh[BLOCK_SIZE / LANES][ROW_WORDS];
    __shared__ u32 range_sh[BLOCK_SIZE / LANES][2 * MAX_LEAF_LINKS];
    u32 lane = threadIdx.x & 31u;
    u32 sub = lane % LANES;
    u32 lanes_mask = LANES == WARP_SIZE ? FULL_MASK : ((1u << LANES) - 1u) << (lane - sub);
    u32 slot = threadIdx.x / LANES;
    u32 all_rows = gridDim.x * (blockDim.x / LANES);
    Count sum = 0;
    bool past = false;
    for (u32 r = blockIdx.x * (blockDim.x / LANES) + slot; r < rows; r += all_rows) {
        copy_row(table, r, width, row_sh[slot], sub, LANES);
        __syncwarp(lanes_mask);
        Count product = leaf_product<Count>(q, leaves, kept_row(table, r, width, row_sh[slot]),
                                            width, sub, lanes_mask, LANES, range_sh[slot],
                                            &past);
        add_to_sum(&sum, product, total, sub == 0, &past);
        __syncwarp(lanes_mask);
    }
    if (sub == 0 && (sum != 0 || past)) {
        add_to_total(total, sum, past);
    }
}

// leaf_products with a warp per row. Host wrapper: gsi-core cuda/join.rs, `join_leaf_product`.
extern "C" __global__ void gsi_join_leaf_product(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const LeafGroup* __restrict__ leaf_groups, u32 group_count,
    const u32* __restrict__ members, const LeafTerm* __restrict__ terms,
    const u32* __restrict__ blocks, const u32* __restrict__ counts_at,
    const u32* __restrict__ leaf_counts, u32 lookup_from, u64* __restrict__ total) {
    leaf_products<WARP_SIZE, u64>(table, rows, width,
        Query{groups, ci, links, steps, candidate_lists, candidate_bits, words, injective},
        LeafSuffix{leaf_groups, group_count, members, terms, blocks, counts_at, leaf_counts,
                   lookup_from},
        total);
}

// gsi_join_leaf_product in 128 bits, for a leaf suffix whose rows' products could pass
// 2^64 - 1. Host wrapper: the same.
extern "C" __global__ void gsi_join_leaf_product_wide(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const LeafGroup* __restrict__ leaf_groups, u32 group_count,
    const u32* __restrict__ members, const LeafTerm* __restrict__ terms,
    const u32* __restrict__ blocks, const u32* __restrict__ counts_at,
    const u32* __restrict__ leaf_counts, u32 lookup_from, u64* __restrict__ total) {
    leaf_products<WARP_SIZE, u128>(table, rows, width,
        Query{groups, ci, links, steps, candidate_lists, candidate_bits, words, injective},
        LeafSuffix{leaf_groups, group_count, members, terms, blocks, counts_at, leaf_counts,
                   lookup_from},
        total);
}

#if !WIDE_TABLES
// leaf_products with NARROW lanes per row, for rows of at most NARROW_MAX_WIDTH columns whose
// suffix lists are all short.
extern "C" __global__ void gsi_join_leaf_product_narrow(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const LeafGroup* __restrict__ leaf_groups, u32 group_count,
    const u32* __restrict__ members, const LeafTerm* __restrict__ terms,
    const u32* __restrict__ blocks, const u32* __restrict__ counts_at,
    const u32* __restrict__ leaf_counts, u32 lookup_from, u64* __restrict__ total) {
    leaf_products<NARROW, u64>(table, rows, width,
        Query{groups, ci, links, steps, candidate_lists, candidate_bits, words, injective},
        LeafSuffix{leaf_groups, group_count, members, terms, blocks, counts_at, leaf_counts,
                   lookup_from},
        total);
}
#endif

// Warp per candidate v of a lone leaf's linked vertex (list[0, count)): |N(v, l) ∩ C(u)|, the
// leaf's extensions before the row's own vertices are taken out, into counts[p]; read by
// gsi_join_leaf_product for every row whose list is long, instead of scanning the list again.
extern "C" __global__ void gsi_leaf_counts(
    const u32* __restrict__ groups, const u32* __restrict__ ci, Link link,
    const u32* __restrict__ list, u32 count, const u32* __restrict__ bits,
    u32* __restrict__ counts) {
    u32 lane = threadIdx.x & 31u;
    for (u32 p = global_warp(); p < count; p += grid_warps()) {
        u32 b, e;
        pcsr_locate(groups, link, list[p], lane, &b, &e);
        u32 found = 0;
        for (u32 i = b + lane; __any_sync(FULL_MASK, i < e); i += WARP_SIZE) {
            bool valid = false;
            if (i < e) {
                u32 x = ci[i];
                valid = (bits[x / 32] >> (x % 32)) & 1u;
            }
            found += __popc(__ballot_sync(FULL_MASK, valid));
        }
        if (lane == 0) {
            counts[p] = found;
        }
    }
}


// The pair count (gsi-core plan/pairs.rs, cpu/join.rs `pair_count`): a count's last steps x,
// y, z, x and y equivalent, z linked to them alone. A block per row of `table` (width: x's
// step; grid-stride). E, the row's extensions at x (its source list cut to x's order bounds,
// C(x)'s bitset, the row's vertices and x's other links, as gsi_join_rows tests them), goes to
// the block's `members`;
// then each member's list by `scan` (z's link to x) is read once, the block's `tallies`
// (`vertices` words, all 0 between rows) counting per data vertex v the members met so far:
// v's tally before an addition is the pairs that member makes with those before it at v, so
// that the sum is Σ_v C(k_v, 2), over the v that are candidates of z outside the row, within
// z's order bounds (each list cut to them; never the member itself: no self-loops). A warp reads a member's list, or the whole block a list longer than
// PAIR_BLOCK_LIST (PAIR_BLOCK_LISTS of them a row; more stay with their warps). A second
// pass over the same lists sets the tallies back to 0.
#define PAIR_BLOCK_LIST 2048
#define PAIR_BLOCK_LISTS 64

// One pass of gsi_count_pairs over the lists of the row's `count` members: tallying (adding
// each tally's value before its addition to *sum) or, with `reset`, clearing.
__device__ __forceinline__ void pair_pass(const Query& q, Link scan, const u32* __restrict__ members,
                                          u32 count, const u32* row, u32 width, u32 lo, u32 hi,
                                          const u32* __restrict__ bits_z, u32* __restrict__ tally,
                                          bool reset, u32* block_lists, u32* block_list_count,
                                          u64* sum, u64* total, bool* past) {
    u32 lane = threadIdx.x & 31u;
    u32 warp = threadIdx.x / 32u;
    u32 warps = blockDim.x / 32u;
    // The tests of v; every lane's own.
    auto tally_of = [&](u32 v) {
        if (reset) {
            tally[v] = 0;
            return;
        }
        if (!((bits_z[v / 32] >> (v % 32)) & 1u)) {
            return;
        }
        for (u32 j = 0; j < width; ++j) {
            if (row[j] == v) {
                return;
            }
        }
        add_to_sum(sum, atomicAdd(&tally[v], 1u), total, true, past);
    };
    for (u32 k = warp; k < count; k += warps) {
        u32 member = members[k];
        u32 b, e;
        pcsr_locate(q.groups, scan, member, lane, &b, &e);
        cut_to_window(q.ci, lo, hi, &b, &e);
        if (e - b > PAIR_BLOCK_LIST) {
            u32 at = 0;
            if (lane == 0) {
                at = atomicAdd(block_list_count, 1u);
            }
            if (__shfl_sync(FULL_MASK, at, 0) < PAIR_BLOCK_LISTS) {
                if (lane == 0) {
                    block_lists[at] = member;
                }
                continue;
            }
        }
        for (u32 i = b + lane; i < e; i += WARP_SIZE) {
            tally_of(q.ci[i]);
        }
    }
    __syncthreads();
    u32 long_lists = min(*block_list_count, (u32)PAIR_BLOCK_LISTS);
    for (u32 k = 0; k < long_lists; ++k) {
        u32 member = block_lists[k];
        u32 b, e;
        pcsr_locate(q.groups, scan, member, lane, &b, &e);
        cut_to_window(q.ci, lo, hi, &b, &e);
        for (u32 i = b + threadIdx.x; i < e; i += blockDim.x) {
            tally_of(q.ci[i]);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        *block_list_count = 0;
    }
    __syncthreads();
}

// Host wrapper: gsi-core cuda/join/kernels.rs, `count_pairs`. `members` holds member_words
// words per block, `tallies` `vertices` words per block.
extern "C" __global__ void gsi_count_pairs(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const u32* __restrict__ order_bounds, u32 z_step,
    u32* __restrict__ members, u32 member_words,
    u32* __restrict__ tallies, u32 vertices, u64* __restrict__ total) {
    __shared__ u32 row_sh[WIDE_TABLES ? 1 : MAX_WIDTH];
    __shared__ u32 range_sh[2 * MAX_LEAF_LINKS];
    __shared__ u32 block_lists[PAIR_BLOCK_LISTS];
    __shared__ u32 member_count;
    __shared__ u32 block_list_count;
    Query q{groups, ci, links, steps, candidate_lists, candidate_bits, words, injective};
    DepthStep x = steps[width];
    DepthStep z = steps[z_step];
    Link scan = links[z.links_from];
    for (u32 l = 1; l < z.link_count; ++l) {
        if (scan.column != width) {
            scan = links[z.links_from + l];
        }
    }
    const u32* bits_x = candidate_bits + (u64)x.vertex * words;
    const u32* bits_z = candidate_bits + (u64)z.vertex * words;
    u32* my_members = members + (u64)blockIdx.x * member_words;
    u32* tally = tallies + (u64)blockIdx.x * vertices;
    u32 lane = threadIdx.x & 31u;
    u64 sum = 0;
    bool past = false;
    if (threadIdx.x == 0) {
        member_count = 0;
        block_list_count = 0;
    }
    for (u32 r = blockIdx.x; r < rows; r += gridDim.x) {
        copy_row(table, r, width, row_sh, threadIdx.x, blockDim.x);
        __syncthreads();
        const u32* row = kept_row(table, r, width, row_sh);
        if (threadIdx.x < WARP_SIZE) {
            for (u32 l = 0; l < x.link_count; ++l) {
                Link link = links[x.links_from + l];
                u32 b, e;
                pcsr_locate(groups, link, row[link.column], lane, &b, &e);
                if (lane == 0) {
                    range_sh[2 * l] = b;
                    range_sh[2 * l + 1] = e;
                }
            }
        }
        __syncthreads();
        u32 length, skip;
        const u32* source = row_source(ci, range_sh, x.has_first, x.source_links,
                                       candidate_lists + x.candidates_from, x.candidate_count,
                                       order_bounds + x.order_bounds_from, x.order_bound_count,
                                       row, &length, &skip);
        u32 lo, hi;
        order_window(order_bounds + z.order_bounds_from, z.order_bound_count, row, &lo, &hi);
        for (u32 i = threadIdx.x; i < length; i += blockDim.x) {
            u32 v = source[i];
            if (admits(v, bits_x, injective, row, width, ci, range_sh, 0, x.link_count, 0, skip)) {
                my_members[atomicAdd(&member_count, 1u)] = v;
            }
        }
        __syncthreads();
        u32 count = member_count;
        if (count >= 2) {
            pair_pass(q, scan, my_members, count, row, width, lo, hi, bits_z, tally, false,
                      block_lists, &block_list_count, &sum, total, &past);
            pair_pass(q, scan, my_members, count, row, width, lo, hi, bits_z, tally, true,
                      block_lists, &block_list_count, &sum, total, &past);
        }
        if (threadIdx.x == 0) {
            member_count = 0;
        }
        __syncthreads();
    }
    if (sum != 0 || past) {
        add_to_total(total, sum, past);
    }
}

#if !WIDE_TABLES
// The depth-first count's work pool and counters, kept in device memory between launches
// (gsi-core cuda/join.rs, `count_depth_first`). A task is a level of some warp's search
// handed over: a partial match of `level` columns, how far its level's candidate list was
// read, and which of the last 32 read are still to follow. Task t takes task_words words at
// tasks[t * task_words]: level + 1 (0 until the task is written), read, mask, the row. The
// counters: the next row of the table to take, the next task to take, one past the last task
// reserved, warps holding work, warps waiting for work, and whether a warp gave up at the
// deadline (their places, DF_*, come from the host).
#if !defined(DF_NEXT_ROW) || !defined(DF_HEAD) || !defined(DF_TAIL) || !defined(DF_BUSY) || \
    !defined(DF_HUNGRY) || !defined(DF_ABANDONED)
#error "the depth-first counters must be defined by the host"
#endif
#define TASK_HEADER 3

// Reads a word other warps write, past this multiprocessor's L1 (never a stale line).
__device__ __forceinline__ u32 shared_word(const u32* p) {
    return *(const volatile u32*)p;
}

// By lane 0: takes the next task of the pool; returns its number, or 0xffffffff when empty.
__device__ __forceinline__ u32 take_task(u32* counters) {
    while (true) {
        u32 head = shared_word(&counters[DF_HEAD]);
        u32 tail = shared_word(&counters[DF_TAIL]);
        if (head >= tail) {
            return 0xffffffffu;
        }
        if (atomicCAS(&counters[DF_HEAD], head, head + 1) == head) {
            return head;
        }
    }
}

// The per-warp state of the depth-first search, one entry per level in shared memory: where
// the level's list lies, how far it has been read, and which of the last 32 read passed
// Algorithm 3's tests and are not yet followed.
struct Levels {
    u32* row;
    u32* begin;
    u32* length;
    u32* read;
    u32* mask;
};

// By the whole warp: hands the levels lo..=hi that have work left over to the pool, a task
// each, and marks them spent. Returns false, handing nothing over, when the pool has no room.
__device__ bool hand_over(const Levels& s, u32 lo, u32 hi, u32 lane, u32* tasks,
                          u32 task_words, u32 capacity, u32* counters) {
    u32 k = 0;
    for (u32 l = lo; l <= hi; ++l) {
        k += s.mask[l] != 0 || s.read[l] < s.length[l] ? 1u : 0u;
    }
    if (k == 0) {
        return true;
    }
    u32 at = 0xffffffffu;
    if (lane == 0) {
        while (true) {
            u32 tail = shared_word(&counters[DF_TAIL]);
            if (tail + k > capacity || tail + k < tail) {
                break;
            }
            if (atomicCAS(&counters[DF_TAIL], tail, tail + k) == tail) {
                at = tail;
                break;
            }
        }
    }
    at = __shfl_sync(FULL_MASK, at, 0);
    if (at == 0xffffffffu) {
        return false;
    }
    // Every task but its level word; then, once the rest is visible, the level words.
    u32 t = at;
    for (u32 l = lo; l <= hi; ++l) {
        if (s.mask[l] == 0 && s.read[l] >= s.length[l]) {
            continue;
        }
        u32* task = tasks + (u64)t * task_words;
        for (u32 j = lane; j < l; j += WARP_SIZE) {
            task[TASK_HEADER + j] = s.row[j];
        }
        if (lane == 0) {
            task[1] = s.read[l];
            task[2] = s.mask[l];
        }
        ++t;
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        t = at;
        for (u32 l = lo; l <= hi; ++l) {
            if (s.mask[l] != 0 || s.read[l] < s.length[l]) {
                atomicExch(&tasks[(u64)t * task_words], l + 1);
                ++t;
                s.mask[l] = 0;
                s.read[l] = s.length[l];
            }
        }
    }
    __syncwarp();
    return true;
}

// Loop turns between a warp's looks at the clock and the pool.
#define LOOK_EVERY 64
// What a warp does at its periodic look at the clock and the pool.
#define GO_ON 0u
#define GIVE_UP 1u
#define SLICE_OVER 2u
#define SHARE 3u

// Kept sets: a depth-first level whose links include every link of an earlier level that
// keeps its set draws its candidates from that set (cut to its own order window) and tests
// only the links the set does not guarantee: a clique's level intersects one more list
// instead of all of them again. The sets of a warp lie in `sets`, `set_words` words a slot;
// a level keeps its set only when its list fits. KEPT_LEVELS (from the host) levels at most
// keep or draw from sets; NO_SLOT marks none.
#if !defined(KEPT_LEVELS) || !defined(NO_SLOT)
#error "KEPT_LEVELS and NO_SLOT must be defined by the host"
#endif
// A warp's kept sets: each slot's length (NO_SLOT: not kept for this row) and order window;
// per level (of the first KEPT_LEVELS), the slot its candidates are drawn from (NO_SLOT: a
// list of the PCSR, or C(u)'s) and, when from the PCSR, the bit of the link whose list it is.
struct KeptSets {
    u32* length;
    u32* lo;
    u32* hi;
    u32* from;
    u32* skip;
    u32* base;  // the warp's first slot
    u32 words;
};

// Where a level draws its candidates from: the PCSR's column index (or C(u)'s list), or a
// kept set's slot.
__device__ __forceinline__ const u32* level_source(const KeptSets& k, const DepthStep& st,
                                                   u32 level, const u32* __restrict__ ci,
                                                   const u32* __restrict__ candidate_lists) {
    u32 from = level < KEPT_LEVELS ? k.from[level] : NO_SLOT;
    return from != NO_SLOT ? k.base + (u64)from * k.words
                           : st.has_first ? ci : candidate_lists;
}

// Which of a level's links its candidates are still tested against, as has_links reads them
// (first_other, skip): the PCSR list's own link is skipped, a parent's set skips the links it
// guarantees, and the level's own kept set all of them. A level past KEPT_LEVELS draws from
// its first edge's list.
__device__ __forceinline__ void level_tests(const KeptSets& k, const DepthStep& st, u32 level,
                                            u32* first_other, u32* skip) {
    if (level >= KEPT_LEVELS) {
        *first_other = st.has_first ? 1u : 0u;
        *skip = 0;
        return;
    }
    u32 from = k.from[level];
    bool own = from != NO_SLOT && from == st.set_slot;
    *first_other = own ? st.link_count : 0u;
    *skip = from == NO_SLOT ? k.skip[level] : own ? 0u : st.inherited;
}

// By the whole warp, on entering `level` for the row's current prefix: locates every linking
// edge's list, and cuts the level's source to its order window: the shortest of its links'
// lists (row_source's choice; the first edge's past KEPT_LEVELS) or C(u)'s, or the parent's
// kept set when that covers the window and is no longer. When the level keeps its set and
// the list fits, the candidates that pass its links are written to its slot (in list order,
// so that a level handed to another warp is rebuilt alike) and drawn from there. Leaves the
// list's place in s.begin[level] and s.length[level].
__device__ void open_level(u32 level, const DepthStep& st, const Query& q, const u32* order_bounds,
                           const u32* row, u32* range, const Levels& s, const KeptSets& k,
                           u32 lane) {
    for (u32 j = 0; j < st.link_count + st.absent_count; ++j) {
        Link link = q.links[st.links_from + j];
        u32 b, e;
        pcsr_locate(q.groups, link, row[link.column], lane, &b, &e);
        if (lane == 0) {
            range[2 * (st.links_from + j)] = b;
            range[2 * (st.links_from + j) + 1] = e;
        }
    }
    __syncwarp();
    const u32* ranges = range + 2 * st.links_from;
    const u32* bounds = order_bounds + st.order_bounds_from;
    u32 length, skip;
    const u32* plain = row_source(q.ci, ranges, st.has_first,
                                  level < KEPT_LEVELS ? st.source_links : 1u,
                                  q.candidate_lists + st.candidates_from, st.candidate_count,
                                  bounds, st.order_bound_count, row, &length, &skip);
    u32 b = plain - (st.has_first ? q.ci : q.candidate_lists);
    u32 e = b + length;
    if (level >= KEPT_LEVELS) {
        if (lane == 0) {
            s.begin[level] = b;
            s.length[level] = e - b;
        }
        __syncwarp();
        return;
    }
    u32 lo, hi;
    order_window(bounds, st.order_bound_count, row, &lo, &hi);
    u32 from = NO_SLOT;
    if (st.parent_slot != NO_SLOT) {
        u32 p = st.parent_slot;
        u32 kept = k.length[p];
        if (kept != NO_SLOT && k.lo[p] <= lo && hi <= k.hi[p]) {
            u32 pb = 0, pe = kept;
            cut_to_window(k.base + (u64)p * k.words, lo, hi, &pb, &pe);
            if (pe - pb <= e - b) {
                from = p;
                b = pb;
                e = pe;
            }
        }
    }
    if (lane == 0) {
        k.from[level] = from;
        k.skip[level] = skip;
    }
    __syncwarp();
    if (st.set_slot != NO_SLOT) {
        u32 kept = NO_SLOT;
        if (e - b <= k.words) {
            const u32* source = level_source(k, st, level, q.ci, q.candidate_lists);
            u32 first_other, skipped;
            level_tests(k, st, level, &first_other, &skipped);
            u32* set = k.base + (u64)st.set_slot * k.words;
            kept = 0;
            for (u32 i = b; i < e; i += WARP_SIZE) {
                u32 x = i + lane < e ? source[i + lane] : 0;
                bool in = i + lane < e &&
                          has_links(x, q.ci, ranges, first_other, st.link_count, skipped);
                u32 ballot = __ballot_sync(FULL_MASK, in);
                if (in) {
                    set[kept + __popc(ballot & ((1u << lane) - 1u))] = x;
                }
                kept += __popc(ballot);
            }
            b = 0;
            e = kept;
        }
        __syncwarp();
        if (lane == 0) {
            k.length[st.set_slot] = kept;
            k.lo[st.set_slot] = lo;
            k.hi[st.set_slot] = hi;
            if (kept != NO_SLOT) {
                k.from[level] = st.set_slot;
            }
        }
        __syncwarp();
    }
    if (lane == 0) {
        s.begin[level] = b;
        s.length[level] = e - b;
    }
    __syncwarp();
}

// Counts the matches that extend each row of `table` (width first_step) through the remaining
// steps, depth-first, without writing any table; the leaf suffix (from step leaves_from; the
// plan's width when there is none) is counted as leaf_product for each of its rows. A warp takes
// a row, or a task of the pool, at a time. Each level keeps, in shared memory, where its
// candidate list lies (open_level: a list of the PCSR, or a kept set), how far the warp has
// read it and a 32-bit mask of the candidates of the last 32 read that passed Algorithm 3's
// tests (C(u)'s bitset, the subtraction, every linking edge the list does not guarantee, by
// binary search) and are not yet followed; the warp follows them lowest lane first, and at
// the last level only counts them (popcount of the ballots).
// Work stealing: a warp without work counts itself hungry; a warp with work that sees hungry
// warps hands its shallowest pending level over to the pool (the largest subtrees). Warps take
// new work for slice_ns; after that a warp hands all its pending work over and stops (the host
// launches again while the pool or the table has work), so that the host sees stop conditions
// between launches. A warp that reaches deadline_ns gives up (DF_ABANDONED is set and the
// count is a lower bound). Host wrapper: gsi-core cuda/join.rs, `join_depth_first`.
extern "C" __global__ void gsi_join_depth_first(
    const u32* __restrict__ table, u32 rows, u32 first_step, u32 width, u32 leaves_from,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ order_bounds,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const LeafGroup* __restrict__ leaf_groups, u32 group_count,
    const u32* __restrict__ members, const LeafTerm* __restrict__ terms,
    const u32* __restrict__ blocks, const u32* __restrict__ counts_at,
    const u32* __restrict__ leaf_counts, u32 lookup_from, u32 total_links,
    u32* __restrict__ ranges, u32* __restrict__ sets, u32 set_slots, u32 set_words,
    u32* tasks, u32 task_words, u32 capacity, u32* counters, u64* __restrict__ total,
    u64 slice_ns, u64 deadline_ns) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 begin_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 length_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 read_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 mask_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 range_sh[WARPS_PER_BLOCK][2 * SHARED_LINKS];
    __shared__ u32 leaf_range_sh[WARPS_PER_BLOCK][2 * MAX_LEAF_LINKS];
    __shared__ u32 kept_length_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 kept_lo_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 kept_hi_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 from_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 skip_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    Query q = {groups, ci, links, steps, candidate_lists, candidate_bits, words, injective};
    LeafSuffix leaves = {leaf_groups, group_count, members, terms, blocks,
                         counts_at, leaf_counts, lookup_from};
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    Levels s = {row_sh[w], begin_sh[w], length_sh[w], read_sh[w], mask_sh[w]};
    KeptSets kept = {kept_length_sh[w], kept_lo_sh[w], kept_hi_sh[w], from_sh[w], skip_sh[w],
                     sets + (u64)global_warp() * set_slots * set_words, set_words};
    u32* range = total_links <= SHARED_LINKS
        ? range_sh[w]
        : ranges + (u64)global_warp() * total_links * 2;
    u64 started = global_ns();
    u64 found = 0;
    bool hungry = false;  // lane 0's: whether this warp is counted in DF_HUNGRY
    u32 nap = 128;        // ns a warp without work waits before it looks again, doubling
    bool gave_up = false;
    while (!gave_up) {
        // Take a row of the table, else a task of the pool, while the slice lasts.
        u32 item = 0xffffffffu;
        u32 is_task = 0;
        u32 stop = 0;
        if (lane == 0) {
            u64 now = global_ns() - started;
            if (now < slice_ns && now < deadline_ns) {
                bool rows_left = shared_word(&counters[DF_NEXT_ROW]) < rows;
                if (rows_left || shared_word(&counters[DF_HEAD]) < shared_word(&counters[DF_TAIL])) {
                    // Busy before taking: a warp that finds none busy and nothing left stops.
                    atomicAdd(&counters[DF_BUSY], 1u);
                    if (rows_left) {
                        u32 r = atomicAdd(&counters[DF_NEXT_ROW], 1u);
                        item = r < rows ? r : item;
                    }
                    if (item == 0xffffffffu) {
                        item = take_task(counters);
                        is_task = 1;
                    }
                    if (item == 0xffffffffu) {
                        atomicSub(&counters[DF_BUSY], 1u);
                    }
                }
                if (item == 0xffffffffu) {
                    // Nobody holds work and none is left: the count is done.
                    stop = shared_word(&counters[DF_BUSY]) == 0 &&
                           shared_word(&counters[DF_NEXT_ROW]) >= rows &&
                           shared_word(&counters[DF_HEAD]) >= shared_word(&counters[DF_TAIL]);
                    if (!stop && !hungry) {
                        atomicAdd(&counters[DF_HUNGRY], 1u);
                        hungry = true;
                    }
                }
            } else {
                stop = 1;
            }
            if ((stop || item != 0xffffffffu) && hungry) {
                atomicSub(&counters[DF_HUNGRY], 1u);
                hungry = false;
            }
        }
        stop = __shfl_sync(FULL_MASK, stop, 0);
        item = __shfl_sync(FULL_MASK, item, 0);
        is_task = __shfl_sync(FULL_MASK, is_task, 0);
        if (stop) {
            break;
        }
        if (item == 0xffffffffu) {
            __nanosleep(nap);
            nap = min(2 * nap, 8192u);
            continue;
        }
        nap = 128;
        u32 base = first_step;
        u32 start = 0;
        u32 start_mask = 0;
        if (is_task) {
            u32* task = tasks + (u64)item * task_words;
            u32 level_word = 0;
            if (lane == 0) {
                // Reserved, perhaps not yet written.
                while ((level_word = shared_word(&task[0])) == 0) {
                    __nanosleep(32);
                }
            }
            __threadfence();
            base = __shfl_sync(FULL_MASK, level_word, 0) - 1;
            start = __ldcg(&task[1]);
            start_mask = __ldcg(&task[2]);
            for (u32 j = lane; j < base; j += WARP_SIZE) {
                row_sh[w][j] = __ldcg(&task[TASK_HEADER + j]);
            }
        } else {
            for (u32 j = lane; j < first_step; j += WARP_SIZE) {
                row_sh[w][j] = table[(u64)item * first_step + j];
            }
        }
        // No set is kept for a new item; a task's levels before its own are rebuilt (the
        // level handed over may draw from their sets).
        if (lane < KEPT_LEVELS) {
            kept_length_sh[w][lane] = NO_SLOT;
            from_sh[w][lane] = NO_SLOT;
        }
        __syncwarp();
        for (u32 l = first_step; l < base && l < KEPT_LEVELS; ++l) {
            DepthStep st = steps[l];
            if (st.set_slot != NO_SLOT) {
                open_level(l, st, q, order_bounds, row_sh[w], range, s, kept, lane);
            }
        }
        u32 level = base;
        bool enter = true;
        u32 since_look = 0;
        while (true) {
            DepthStep st = steps[level];
            if (enter) {
                enter = false;
                if (level == leaves_from) {
                    // The leaf suffix: its matches are a product for this row.
                    u64 product = leaf_product<u64>(q, leaves, row_sh[w], level, lane,
                                                    FULL_MASK, WARP_SIZE, leaf_range_sh[w],
                                                    nullptr);
                    add_to_sum(&found, product, total, lane == 0, nullptr);
                    if (level == base) {
                        break;
                    }
                    --level;
                    continue;
                }
                open_level(level, st, q, order_bounds, row_sh[w], range, s, kept, lane);
                if (lane == 0) {
                    read_sh[w][level] = level == base ? start : 0;
                    mask_sh[w][level] = level == base ? start_mask : 0;
                }
                __syncwarp();
            }
            if (++since_look == LOOK_EVERY) {
                since_look = 0;
                u32 look = GO_ON;
                if (lane == 0) {
                    u64 now = global_ns() - started;
                    look = now >= deadline_ns ? GIVE_UP
                         : now >= slice_ns ? SLICE_OVER
                         : shared_word(&counters[DF_HUNGRY]) >
                                   shared_word(&counters[DF_TAIL]) - shared_word(&counters[DF_HEAD])
                             ? SHARE
                             : GO_ON;
                }
                look = __shfl_sync(FULL_MASK, look, 0);
                if (look == GIVE_UP) {
                    gave_up = true;
                    break;
                }
                if (look == SLICE_OVER &&
                    hand_over(s, base, level, lane, tasks, task_words, capacity, counters)) {
                    break;
                }
                if (look == SHARE) {
                    // The shallowest level with work left (the largest subtrees; the last
                    // level's work only counts).
                    u32 l = base;
                    while (l <= level && !(l + 1 < width && (mask_sh[w][l] != 0 ||
                                                            read_sh[w][l] < length_sh[w][l]))) {
                        ++l;
                    }
                    if (l <= level) {
                        hand_over(s, l, l, lane, tasks, task_words, capacity, counters);
                    }
                }
            }
            u32 begin = begin_sh[w][level];
            u32 length = length_sh[w][level];
            const u32* bits = candidate_bits + (u64)st.vertex * words;
            const u32* source = level_source(kept, st, level, ci, candidate_lists);
            u32 first_other, skip;
            level_tests(kept, st, level, &first_other, &skip);
            bool last = level + 1 == width;
            u32 read = read_sh[w][level];
            u32 mask = mask_sh[w][level];
            if (last || mask == 0) {
                if (read >= length) {
                    // This level is spent: back to the one before.
                    if (level == base) {
                        break;
                    }
                    --level;
                    continue;
                }
                // Test the next 32 candidates, one per lane (Algorithm 3, lines 9-12).
                u32 i = read + lane;
                u32 x = i < length ? source[begin + i] : 0;
                bool valid = i < length && admits(x, bits, injective, row_sh[w], level, ci,
                                                  range + 2 * st.links_from, first_other,
                                                  st.link_count, st.absent_count, skip);
                u32 ballot = __ballot_sync(FULL_MASK, valid);
                __syncwarp();
                if (lane == 0) {
                    read_sh[w][level] = read + WARP_SIZE;
                    mask_sh[w][level] = last ? 0u : ballot;
                }
                __syncwarp();
                if (last) {
                    found += __popc(ballot);
                }
                continue;
            }
            // Follow the lowest pending candidate one level deeper.
            u32 b = __ffs(mask) - 1;
            u32 x = source[begin + read - WARP_SIZE + b];
            __syncwarp();
            if (lane == 0) {
                mask_sh[w][level] = mask & (mask - 1u);
                row_sh[w][level] = x;
            }
            __syncwarp();
            ++level;
            enter = true;
        }
        __syncwarp();
        if (lane == 0) {
            // What this warp handed over is visible before it stops counting as busy.
            __threadfence();
            atomicSub(&counters[DF_BUSY], 1u);
        }
    }
    if (lane == 0) {
        if (found > 0) {
            add_to_total(total, found, false);
        }
        if (gave_up) {
            atomicExch(&counters[DF_ABANDONED], 1u);
        }
    }
}

// The packed depth-first count (gsi_count_packed): a warp's search keeps, per level, up to 32
// lists at once, one for each partial match the level before kept (for its first level, one
// for each of up to 32 rows of the table it took), and tests the next 32 candidates drawn
// across all of them, one per lane, so that short lists (a hub's neighbours cut to its
// higher-ranked ones by symmetry breaking) still fill the warp. Plans of
// at most PACKED_WIDTH steps with no leaf suffix; the host chooses it (gsi-core
// cuda/join/counts.rs, `count_packed`). Its counters, kept in device memory between
// launches: the next row of the table to take, the warps whose search is suspended in
// `saved`, whether a warp gave up at the deadline, the warps that found no row left, and a
// split's free places, those it claimed and its searches to split (PK_*, from the host).
#if !defined(PACKED_WIDTH) || !defined(PACKED_SEARCH_WORDS) || !defined(PK_NEXT_ROW) || \
    !defined(PK_SUSPENDED) || !defined(PK_ABANDONED) || !defined(PK_IDLE) || !defined(PK_FREE) || \
    !defined(PK_CLAIMED) || !defined(PK_DONORS)
#error "PACKED_WIDTH and the packed count's counters must be defined by the host"
#endif
#define PACKED_LEVELS (PACKED_WIDTH - 1)

// One warp's search from up to 32 rows of the table. Level d joins step first_step + d; list i
// of level d descends from entry i of level d - 1, and for d = 0 from the table's row
// table_row[i].
struct PackedSearch {
    u32 table_row[WARP_SIZE];  // the table's rows the first level's lists extend
    // List i of level d: where it starts in the column index (or in C(u)'s lists), its
    // length, and has_links's skip (the link whose list it is).
    u32 begin[PACKED_LEVELS][WARP_SIZE];
    u32 length[PACKED_LEVELS][WARP_SIZE];
    u32 skip[PACKED_LEVELS][WARP_SIZE];
    // Entry j of level d: a candidate that passed, and the list it was drawn from.
    u32 vertex[PACKED_LEVELS][WARP_SIZE];
    u32 parent[PACKED_LEVELS][WARP_SIZE];
    // Per level: its lists, and how far they were read (a list, and a place in it).
    u32 lists[PACKED_LEVELS];
    u32 set[PACKED_LEVELS];
    u32 at[PACKED_LEVELS];
    u32 level;      // where a suspended search goes on
    u32 suspended;  // set in a warp's copy in device memory while it holds a search
};
static_assert(sizeof(PackedSearch) == 4 * PACKED_SEARCH_WORDS,
              "struct PackedSearch differs from the host's");

// The row of list i of level d: the entries it descends from, after the table's row they
// extend.
__device__ __forceinline__ void packed_row(const PackedSearch& s, const u32* __restrict__ table,
                                           u32 first_step, u32 d, u32 i, u32* row) {
    for (u32 e = d; e-- > 0;) {
        row[first_step + e] = s.vertex[e][i];
        i = s.parent[e][i];
    }
    const u32* prefix = table + (u64)s.table_row[i] * first_step;
    for (u32 j = 0; j < first_step; ++j) {
        row[j] = prefix[j];
    }
}

// A warp suspends its search for a split only after running this long in a launch, so that
// each launch's work outweighs the split's.
#define SPLIT_AFTER_NS 100000ull

// How many rows a warp takes at once, when `left` rows are left for `warps` warps: the host's
// `rows_at_once` where it sets one (1 to 32), else up to 32, fewer as the table runs out (each
// warp taking about a ROW_SHARES-th of its share of what is left), so that the last rows,
// often the heaviest, are spread one to a warp.
#define ROW_SHARES 4u
__device__ __forceinline__ u32 rows_to_take(u32 left, u32 warps, u32 rows_at_once) {
    if (rows_at_once != 0) {
        return rows_at_once;
    }
    return max(1u, min((u32)WARP_SIZE, left / (warps * ROW_SHARES)));
}

// By one lane: the lists of a step's first `count` links for `row`, as pairs in `ranges`
// (the link of `skip`'s bit, whose list the candidates come from, left empty).
__device__ __forceinline__ void lane_ranges(const Query& q, const DepthStep& st, const u32* row,
                                            u32 count, u32 skip, u32* ranges) {
    for (u32 k = 0; k < count; ++k) {
        u32 b = 0, e = 0;
        if (k >= 32 || !((skip >> k) & 1u)) {
            Link link = q.links[st.links_from + k];
            lane_locate(q.groups, link, row[link.column], &b, &e);
        }
        ranges[2 * k] = b;
        ranges[2 * k + 1] = e;
    }
}

// By one lane: the list a row's extensions at step st are drawn from (row_source's choice),
// its start (in the column index, or C(u)'s lists), length and skip.
__device__ __forceinline__ void packed_list(const Query& q, const DepthStep& st,
                                            const u32* order_bounds, const u32* row, u32* begin,
                                            u32* length, u32* skip) {
    u32 ranges[2 * PACKED_LEVELS];
    u32 choose = st.has_first ? min(min(max(st.source_links, 1u), 32u), st.link_count) : 0u;
    lane_ranges(q, st, row, choose, 0, ranges);
    const u32* list = row_source(q.ci, ranges, st.has_first, choose,
                                 q.candidate_lists + st.candidates_from, st.candidate_count,
                                 order_bounds + st.order_bounds_from, st.order_bound_count, row,
                                 length, skip);
    *begin = list - (st.has_first ? q.ci : q.candidate_lists);
}

// The cursor (*set, *at) of a level moved on by `by` candidates, past empty lists: it then
// names a candidate, or *set is the level's number of lists (the level is spent).
__device__ __forceinline__ void packed_advance(const PackedSearch& s, u32 d, u32 by, u32* set,
                                               u32* at) {
    u32 i = *set;
    u32 off = *at + by;
    while (i < s.lists[d] && off >= s.length[d][i]) {
        off -= s.length[d][i];
        ++i;
    }
    *set = i;
    *at = off;
}

// By the whole warp: the search in shared memory to or from the warp's copy in device memory
// (written by a launch before this one).
__device__ __forceinline__ void packed_copy(u32* to, const u32* from, u32 lane) {
    for (u32 j = lane; j < PACKED_SEARCH_WORDS; j += WARP_SIZE) {
        to[j] = from[j];
    }
    __syncwarp();
}

// Counts the matches that extend each row of `table` (width first_step) through the remaining
// steps (leaves_from = width: no leaf suffix), depth-first, a warp taking up to 32 rows at a
// time (rows_to_take), each the first level's list of its own.
// Each level's next 32 candidates are read across its lists, a lane each, and tested as
// Algorithm 3 does (C(u)'s bitset, the subtraction, every linking edge but the list's own
// by binary search, the absent edges; the order bounds are kept by cutting each list to
// its window); at the last level they are only counted, elsewhere the survivors become the
// level's entries and their lists the next level's. Warps take rows for slice_ns; a warp
// still searching then copies its search to `saved` (PACKED_SEARCH_WORDS words a warp) and the
// next launch's warp of the same number goes on with it, so that the host sees the stop
// conditions between launches. A warp that reaches deadline_ns gives up (PK_ABANDONED is
// set and the count is a lower bound). With suspend_when_idle set, a warp also suspends its
// search once that many warps found no row left, so that the host can split the searches
// left (gsi_packed_split) over every warp.
extern "C" __global__ void gsi_count_packed(
    const u32* __restrict__ table, u32 rows, u32 first_step, u32 width, u32 leaves_from,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ order_bounds,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, u32* __restrict__ saved, u32* counters, u64* __restrict__ total,
    u32 rows_at_once, u32 suspend_when_idle, u64 slice_ns, u64 deadline_ns) {
    __shared__ PackedSearch searches[WARPS_PER_BLOCK];
    Query q = {groups, ci, links, steps, candidate_lists, candidate_bits, words, injective};
    u32 lane = threadIdx.x & 31u;
    PackedSearch& s = searches[threadIdx.x / WARP_SIZE];
    u32* mine = saved + (u64)global_warp() * PACKED_SEARCH_WORDS;
    const u32 suspended_word = field_offset(&PackedSearch::suspended) / 4;
    u64 started = global_ns();
    u64 found = 0;
    bool resume = __ldcg(&mine[suspended_word]) != 0;
    bool gave_up = false;
    bool suspended = false;
    u32 since_look = 0;
    while (!gave_up && !suspended) {
        u32 d = 0;
        if (resume) {
            // The search this warp's number suspended at the launch before goes on.
            resume = false;
            packed_copy(reinterpret_cast<u32*>(&s), mine, lane);
            if (lane == 0) {
                mine[suspended_word] = 0;
                atomicSub(&counters[PK_SUSPENDED], 1u);
            }
            d = s.level;
        } else {
            u32 r = 0xffffffffu;
            u32 take = 0;
            if (lane == 0) {
                u64 now = global_ns() - started;
                if (now < slice_ns && now < deadline_ns) {
                    u32 taken = min(__ldcg(&counters[PK_NEXT_ROW]), rows);
                    take = rows_to_take(rows - taken, gridDim.x * (blockDim.x / WARP_SIZE),
                                        rows_at_once);
                    r = atomicAdd(&counters[PK_NEXT_ROW], take);
                }
            }
            r = __shfl_sync(FULL_MASK, r, 0);
            take = __shfl_sync(FULL_MASK, take, 0);
            if (r >= rows) {
                if (lane == 0 && take != 0) {
                    atomicAdd(&counters[PK_IDLE], 1u);
                }
                break;
            }
            u32 lists = min(take, rows - r);
            if (lane < lists) {
                // Each lane makes the first level's list of one row.
                s.table_row[lane] = r + lane;
                u32 row[PACKED_WIDTH];
                const u32* prefix = table + (u64)(r + lane) * first_step;
                for (u32 j = 0; j < first_step; ++j) {
                    row[j] = prefix[j];
                }
                packed_list(q, steps[first_step], order_bounds, row, &s.begin[0][lane],
                            &s.length[0][lane], &s.skip[0][lane]);
            }
            if (lane == 0) {
                s.lists[0] = lists;
                s.set[0] = 0;
                s.at[0] = 0;
            }
            __syncwarp();
        }
        while (true) {
            if (s.set[d] >= s.lists[d]) {
                // This level is spent: back to the one before.
                if (d == 0) {
                    break;
                }
                --d;
                continue;
            }
            if (++since_look == LOOK_EVERY) {
                since_look = 0;
                u32 look = GO_ON;
                if (lane == 0) {
                    u64 now = global_ns() - started;
                    bool idle = suspend_when_idle != 0 && now >= SPLIT_AFTER_NS &&
                                __ldcg(&counters[PK_IDLE]) >= suspend_when_idle;
                    look = now >= deadline_ns            ? GIVE_UP
                           : now >= slice_ns || idle ? SLICE_OVER
                                                         : GO_ON;
                }
                look = __shfl_sync(FULL_MASK, look, 0);
                if (look == GIVE_UP) {
                    gave_up = true;
                    break;
                }
                if (look == SLICE_OVER) {
                    if (lane == 0) {
                        s.level = d;
                        s.suspended = 1;
                    }
                    __syncwarp();
                    packed_copy(mine, reinterpret_cast<const u32*>(&s), lane);
                    if (lane == 0) {
                        atomicAdd(&counters[PK_SUSPENDED], 1u);
                    }
                    suspended = true;
                    break;
                }
            }
            u32 level = first_step + d;
            DepthStep st = steps[level];
            u32 set = s.set[d];
            u32 at = s.at[d];
            // This lane's candidate: the lane-th from the cursor, across the level's lists.
            u32 i = set;
            u32 off = at;
            packed_advance(s, d, lane, &i, &off);
            bool valid = i < s.lists[d];
            u32 x = 0;
            u32 row[PACKED_WIDTH];
            if (valid) {
                x = (st.has_first ? ci : candidate_lists)[s.begin[d][i] + off];
                packed_row(s, table, first_step, d, i, row);
                u32 ranges[2 * PACKED_LEVELS];
                u32 skip = s.skip[d][i];
                lane_ranges(q, st, row, st.link_count + st.absent_count, skip, ranges);
                valid = admits(x, candidate_bits + (u64)st.vertex * words, injective, row,
                               level, ci, ranges, 0, st.link_count, st.absent_count, skip);
                row[level] = x;
            }
            u32 ballot = __ballot_sync(FULL_MASK, valid);
            __syncwarp();
            if (lane == 0) {
                packed_advance(s, d, WARP_SIZE, &set, &at);
                s.set[d] = set;
                s.at[d] = at;
            }
            __syncwarp();
            if (level + 1 == width) {
                found += __popc(ballot);
                continue;
            }
            if (ballot == 0) {
                continue;
            }
            // The survivors become this level's entries, and their lists the next level's.
            if (valid) {
                u32 j = __popc(ballot & ((1u << lane) - 1u));
                s.vertex[d][j] = x;
                s.parent[d][j] = i;
                packed_list(q, steps[level + 1], order_bounds, row, &s.begin[d + 1][j],
                            &s.length[d + 1][j], &s.skip[d + 1][j]);
            }
            __syncwarp();
            if (lane == 0) {
                s.lists[d + 1] = __popc(ballot);
                s.set[d + 1] = 0;
                s.at[d + 1] = 0;
            }
            __syncwarp();
            ++d;
        }
    }
    if (lane == 0) {
        if (found > 0) {
            add_to_total(total, found, false);
        }
        if (gave_up) {
            atomicExch(&counters[PK_ABANDONED], 1u);
        }
    }
}

// Lists the places of `saved` (one per warp of gsi_count_packed's grid), a thread per place:
// those that hold no suspended search from the front of `places` (counters[PK_FREE] of them),
// those that hold one from its back (counters[PK_DONORS]).
extern "C" __global__ void gsi_packed_places(const u32* __restrict__ saved, u32 warps,
                                             u32* __restrict__ places, u32* counters) {
    const u32 suspended_word = field_offset(&PackedSearch::suspended) / 4;
    for (u32 w = blockIdx.x * blockDim.x + threadIdx.x; w < warps; w += gridDim.x * blockDim.x) {
        if (saved[(u64)w * PACKED_SEARCH_WORDS + suspended_word] == 0) {
            places[atomicAdd(&counters[PK_FREE], 1u)] = w;
        } else {
            places[warps - 1 - atomicAdd(&counters[PK_DONORS], 1u)] = w;
        }
    }
}

// A level's candidates not yet drawn: from its cursor to the end of its lists.
__device__ __forceinline__ u32 packed_left(const PackedSearch& s, u32 d) {
    u32 left = 0;
    for (u32 i = s.set[d]; i < s.lists[d]; ++i) {
        left += s.length[d][i];
    }
    return s.set[d] < s.lists[d] ? left - s.at[d] : 0u;
}

// Level d of search s ends `by` candidates past its cursor.
__device__ __forceinline__ void packed_end_at(PackedSearch& s, u32 d, u32 by) {
    u32 i = s.set[d];
    u32 at = s.at[d];
    packed_advance(s, d, by, &i, &at);
    if (i < s.lists[d]) {
        s.lists[d] = at > 0 ? i + 1 : i;
        if (at > 0) {
            s.length[d][i] = at;
        }
    }
}

// Splits each suspended search that gsi_packed_places listed into up to `pieces` searches, a
// warp per search: the candidates not yet drawn at its shallowest level that has at least two
// are cut into pieces of about equal count; the search keeps the first, and each other piece
// goes to a free place (claimed through counters[PK_CLAIMED]) as a search of its own that
// holds the levels above it as spent and resumes at that level. The matches counted are the
// same: every candidate left stays in exactly one search.
extern "C" __global__ void gsi_packed_split(u32* __restrict__ saved, u32 warps,
                                            const u32* __restrict__ places, u32* counters,
                                            u32 pieces) {
    u32 lane = threadIdx.x & 31u;
    u32 donors = __ldcg(&counters[PK_DONORS]);
    for (u32 k = global_warp(); k < donors; k += grid_warps()) {
        u32 w = places[warps - 1 - k];
        PackedSearch& s = *reinterpret_cast<PackedSearch*>(saved + (u64)w * PACKED_SEARCH_WORDS);
        u32 level = 0, left = 0, claim = 0, made = 0;
        if (lane == 0) {
            for (level = 0; level <= s.level; ++level) {
                left = packed_left(s, level);
                if (left >= 2) {
                    break;
                }
            }
            if (level <= s.level) {
                u32 want = min(pieces, left) - 1;
                claim = atomicAdd(&counters[PK_CLAIMED], want);
                u32 free = __ldcg(&counters[PK_FREE]);
                made = claim < free ? min(want, free - claim) : 0u;
            }
        }
        level = __shfl_sync(FULL_MASK, level, 0);
        left = __shfl_sync(FULL_MASK, left, 0);
        claim = __shfl_sync(FULL_MASK, claim, 0);
        made = __shfl_sync(FULL_MASK, made, 0);
        // Piece j holds the candidates [j left / (made + 1), (j + 1) left / (made + 1)) past
        // the cursor of `level`.
        for (u32 j = 1; j <= made; ++j) {
            u32* to = saved + (u64)places[claim + j - 1] * PACKED_SEARCH_WORDS;
            packed_copy(to, reinterpret_cast<const u32*>(&s), lane);
            if (lane == 0) {
                PackedSearch& piece = *reinterpret_cast<PackedSearch*>(to);
                u64 from = (u64)left * j / (made + 1);
                u64 until = (u64)left * (j + 1) / (made + 1);
                for (u32 e = 0; e < level; ++e) {
                    piece.set[e] = piece.lists[e];
                    piece.at[e] = 0;
                }
                packed_end_at(piece, level, (u32)until);
                packed_advance(piece, level, (u32)from, &piece.set[level], &piece.at[level]);
                piece.level = level;
                piece.suspended = 1;
            }
            __syncwarp();
        }
        if (lane == 0 && made > 0) {
            packed_end_at(s, level, (u32)((u64)left / (made + 1)));
            atomicAdd(&counters[PK_SUSPENDED], made);
        }
        __syncwarp();
    }
}

// Where gsi_join_small leaves its state (their places, SMALL_*, come from the host): the step
// it stopped at (the plan's width when it counted every match), that step's rows, where its
// table lies (0: the input; 1, 2: the scratch buffers), whether a step overflowed its buffer,
// the grid barrier's arrivals and generation, then the rows made by each step.
#if !defined(SMALL_STEP) || !defined(SMALL_ROWS) || !defined(SMALL_WHERE) || \
    !defined(SMALL_OVERFLOW) || !defined(SMALL_ARRIVED) || !defined(SMALL_GENERATION) || \
    !defined(SMALL_MADE)
#error "gsi_join_small's state words must be defined by the host"
#endif

// Every block of a cooperative launch waits here for all the others.
__device__ __forceinline__ void grid_barrier(u32* state) {
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 generation = shared_word(&state[SMALL_GENERATION]);
        __threadfence();
        if (atomicAdd(&state[SMALL_ARRIVED], 1u) == gridDim.x - 1) {
            atomicExch(&state[SMALL_ARRIVED], 0u);
            __threadfence();
            atomicAdd(&state[SMALL_GENERATION], 1u);
        } else {
            while (shared_word(&state[SMALL_GENERATION]) == generation) {
                __nanosleep(32);
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Counts the matches that extend `rows` rows of `table` (width first_step) breadth-first, all
// remaining steps in one cooperative launch, while the steps stay small: a query whose tables
// hold a few thousand rows pays one launch instead of the few (and a copy back) of each step.
// A step of n rows is joined by the warps of the whole grid (a warp per row, Algorithm 3's
// tests as gsi_join_rows makes them), each surviving extension appended as a new row to a
// scratch buffer at a place taken by atomic addition (the rows' order is lost: counts only);
// the grid then waits at a barrier and goes on with the new table. At the last step the
// extensions are only counted, at the leaf suffix (leaves_from) leaf_product is counted per
// row. The launch stops before a step whose rows times the step's largest list (at the leaf
// suffix, leaf_bound: its members' largest lists together) exceed `budget`, or whose new table
// overflows `capacity_words`: `state` then says where the
// breadth-first join goes on, and *total is untouched (only the last step counts).
extern "C" __global__ void gsi_join_small(
    const u32* __restrict__ table, u32 rows, u32 first_step, u32 width, u32 leaves_from,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ order_bounds,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, const LeafGroup* __restrict__ leaf_groups, u32 group_count,
    const u32* __restrict__ members, const LeafTerm* __restrict__ terms,
    const u32* __restrict__ blocks, const u32* __restrict__ counts_at,
    const u32* __restrict__ leaf_counts, u32 lookup_from, u64 budget, u64 leaf_bound,
    u32* __restrict__ buffer_a, u32* __restrict__ buffer_b, u32 capacity_words,
    u64* __restrict__ total, u32* state) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 range_sh[WARPS_PER_BLOCK][2 * MAX_WIDTH];
    __shared__ u32 leaf_range_sh[WARPS_PER_BLOCK][2 * MAX_LEAF_LINKS];
    __shared__ u32 kept_length_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 kept_lo_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 kept_hi_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 from_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    __shared__ u32 skip_sh[WARPS_PER_BLOCK][KEPT_LEVELS];
    Query q = {groups, ci, links, steps, candidate_lists, candidate_bits, words, injective};
    LeafSuffix leaves = {leaf_groups, group_count, members, terms, blocks,
                         counts_at, leaf_counts, lookup_from};
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 lanes_before = (1u << lane) - 1u;
    bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const u32* current = table;
    u32 where = 0;
    u32 n = rows;
    for (u32 step = first_step;; ++step) {
        DepthStep st = steps[step];
        if (n == 0) {
            if (leader) {
                state[SMALL_STEP] = width;
            }
            return;
        }
        // The leaf suffix reads every member's lists for each row.
        u64 bound = step == leaves_from ? leaf_bound : st.max_bound;
        if ((u64)n * bound > budget) {
            if (leader) {
                state[SMALL_STEP] = step;
                state[SMALL_ROWS] = n;
                state[SMALL_WHERE] = where;
            }
            return;
        }
        bool leaf = step == leaves_from;
        bool last = step + 1 == width;
        u32* out = where == 1 ? buffer_b : buffer_a;
        u32 capacity = capacity_words / (step + 1);
        u64 found = 0;
        for (u32 r = global_warp(); r < n; r += grid_warps()) {
            // Past L1: the buffer may hold this multiprocessor's lines of two steps ago.
            for (u32 j = lane; j < step; j += WARP_SIZE) {
                row_sh[w][j] = __ldcg(&current[(u64)r * step + j]);
            }
            __syncwarp();
            if (leaf) {
                u64 product = leaf_product<u64>(q, leaves, row_sh[w], step, lane, FULL_MASK,
                                                WARP_SIZE, leaf_range_sh[w], nullptr);
                add_to_sum(&found, product, total, lane == 0, nullptr);
                __syncwarp();
                continue;
            }
            for (u32 k = 0; k < st.link_count + st.absent_count; ++k) {
                Link link = links[st.links_from + k];
                u32 b, e;
                pcsr_locate(groups, link, row_sh[w][link.column], lane, &b, &e);
                if (lane == 0) {
                    range_sh[w][2 * k] = b;
                    range_sh[w][2 * k + 1] = e;
                }
            }
            __syncwarp();
            u32 length, skip;
            const u32* source = row_source(ci, range_sh[w], st.has_first, st.source_links,
                                           candidate_lists + st.candidates_from,
                                           st.candidate_count,
                                           order_bounds + st.order_bounds_from,
                                           st.order_bound_count, row_sh[w], &length, &skip);
            const u32* bits = candidate_bits + (u64)st.vertex * words;
            for (u32 base = 0; base < length; base += WARP_SIZE) {
                u32 i = base + lane;
                u32 x = i < length ? source[i] : 0;
                bool valid = i < length && admits(x, bits, injective, row_sh[w], step, ci,
                                                  range_sh[w], 0, st.link_count,
                                                  st.absent_count, skip);
                u32 ballot = __ballot_sync(FULL_MASK, valid);
                if (last) {
                    found += __popc(ballot);
                    continue;
                }
                u32 at = 0;
                if (lane == 0 && ballot != 0) {
                    at = atomicAdd(&state[SMALL_MADE + step], __popc(ballot));
                }
                at = __shfl_sync(FULL_MASK, at, 0);
                if (at + __popc(ballot) > capacity) {
                    if (lane == 0) {
                        atomicExch(&state[SMALL_OVERFLOW], 1u);
                    }
                    break;
                }
                if (valid) {
                    u32* made = out + (u64)(at + __popc(ballot & lanes_before)) * (step + 1);
                    for (u32 j = 0; j < step; ++j) {
                        made[j] = row_sh[w][j];
                    }
                    made[step] = x;
                }
            }
            __syncwarp();
        }
        if (leaf || last) {
            if (lane == 0 && found > 0) {
                add_to_total(total, found, false);
            }
            if (leader) {
                state[SMALL_STEP] = width;
            }
            return;
        }
        grid_barrier(state);
        if (shared_word(&state[SMALL_OVERFLOW])) {
            if (leader) {
                state[SMALL_STEP] = step;
                state[SMALL_ROWS] = n;
                state[SMALL_WHERE] = where;
            }
            return;
        }
        n = shared_word(&state[SMALL_MADE + step]);
        current = out;
        where = where == 1 ? 2 : 1;
    }
}

// The clique count (gsi_count_cliques): a plan whose every step links to every step before
// it through one partition and keeps its match above the step before's (a clique's plan with
// its symmetry broken into one chain), counted from a table of one column. A warp takes a
// row's vertex v0; its higher neighbours S (the tail of its sorted list above v0) hold every
// later match of the row. Where S has at most `up_to` (at most CLIQUE_BITS) vertices the warp
// writes S's adjacency upwards as bitmaps in shared memory, a lane a vertex, and counts the
// rest of the clique by ANDs and population counts, its lanes over the second step's match;
// a row with more goes to `overflow` (counters[CQ_OVERFLOW] of them) for the packed count.
// Rows are taken for slice_ns; a warp that reaches deadline_ns gives up (CQ_ABANDONED set:
// the count is a lower bound).
#if !defined(CLIQUE_BITS) || !defined(CQ_NEXT_ROW) || !defined(CQ_ABANDONED) || \
    !defined(CQ_OVERFLOW)
#error "CLIQUE_BITS and the clique count's counters must be defined by the host"
#endif
#define CLIQUE_WORDS (CLIQUE_BITS / 32)

struct CliqueWarp {
    u32 members[CLIQUE_BITS];
    // Row i: the members above member i that are its neighbours.
    u32 up[CLIQUE_BITS][CLIQUE_WORDS];
    // Per step: the members in its vertex's C(u).
    u32 allowed[PACKED_WIDTH][CLIQUE_WORDS];
};

extern "C" __global__ void gsi_count_cliques(
    const u32* __restrict__ table, u32 rows, u32 first_step, u32 width, u32 leaves_from,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, const DepthStep* __restrict__ steps,
    const u32* __restrict__ order_bounds,
    const u32* __restrict__ candidate_lists, const u32* __restrict__ candidate_bits, u32 words,
    u32 injective, u32 up_to, u32* counters, u32* __restrict__ overflow,
    u64* __restrict__ total, u64 slice_ns, u64 deadline_ns) {
    __shared__ CliqueWarp warps[WARPS_PER_BLOCK];
    CliqueWarp& w = warps[threadIdx.x / WARP_SIZE];
    u32 lane = threadIdx.x & 31u;
    Link link = links[steps[1].links_from];
    u64 started = global_ns();
    u64 found = 0;
    while (true) {
        u32 r = rows;
        if (lane == 0) {
            u64 now = global_ns() - started;
            if (now >= deadline_ns) {
                atomicExch(&counters[CQ_ABANDONED], 1u);
            } else if (now < slice_ns) {
                r = atomicAdd(&counters[CQ_NEXT_ROW], 1u);
            }
        }
        r = __shfl_sync(FULL_MASK, r, 0);
        if (r >= rows) {
            break;
        }
        u32 v0 = table[r];
        u32 begin, end;
        lane_locate(groups, link, v0, &begin, &end);
        begin = sorted_lower_bound(ci, begin, end, v0 + 1u);
        u32 m = end - begin;
        if (m + 1u < width) {
            continue;  // too few higher neighbours for the rest of a clique
        }
        if (m > up_to) {
            if (lane == 0) {
                overflow[atomicAdd(&counters[CQ_OVERFLOW], 1u)] = v0;
            }
            continue;
        }
        u32 used_words = (m + 31u) / 32u;
        for (u32 j = lane; j < m; j += WARP_SIZE) {
            w.members[j] = ci[begin + j];
        }
        __syncwarp();
        // Which members each step's C(u) holds, a word (32 members) at a time.
        for (u32 k = 1; k < width; ++k) {
            const u32* bits = candidate_bits + (u64)steps[k].vertex * words;
            for (u32 word = 0; word < used_words; ++word) {
                u32 j = word * 32u + lane;
                bool in = j < m && ((bits[w.members[j] / 32] >> (w.members[j] % 32)) & 1u);
                u32 ballot = __ballot_sync(FULL_MASK, in);
                if (lane == 0) {
                    w.allowed[k][word] = ballot;
                }
            }
        }
        // Each member's neighbours among the members above it: its own sorted list above
        // it, merged with the members after it.
        for (u32 i = lane; i < m; i += WARP_SIZE) {
            u32 up[CLIQUE_WORDS];
            for (u32 word = 0; word < CLIQUE_WORDS; ++word) {
                up[word] = 0;
            }
            u32 x = w.members[i];
            u32 b, e;
            lane_locate(groups, link, x, &b, &e);
            b = sorted_lower_bound(ci, b, e, x + 1u);
            for (u32 j = i + 1; j < m && b < e; ++j) {
                u32 y = w.members[j];
                while (b < e && ci[b] < y) {
                    ++b;
                }
                if (b < e && ci[b] == y) {
                    up[j / 32] |= 1u << (j % 32);
                }
            }
            for (u32 word = 0; word < CLIQUE_WORDS; ++word) {
                w.up[i][word] = up[word];
            }
        }
        __syncwarp();
        // A lane per match i of step 1; the steps after it depth-first over the bitmaps:
        // common[d] holds the members above every match so far, next[d] those of them step
        // d may still take.
        u32 levels = width - 1;
        for (u32 i = lane; i < m; i += WARP_SIZE) {
            if (!((w.allowed[1][i / 32] >> (i % 32)) & 1u)) {
                continue;
            }
            if (levels == 1) {
                found += 1;
                continue;
            }
            u32 common[PACKED_WIDTH][CLIQUE_WORDS];
            u32 next[PACKED_WIDTH][CLIQUE_WORDS];
            for (u32 word = 0; word < used_words; ++word) {
                common[2][word] = w.up[i][word];
                next[2][word] = w.up[i][word] & w.allowed[2][word];
            }
            if (levels == 2) {
                for (u32 word = 0; word < used_words; ++word) {
                    found += __popc(next[2][word]);
                }
                continue;
            }
            u32 d = 2;
            while (true) {
                // The lowest member step d may still take, taken off its set.
                u32 j = CLIQUE_BITS;
                for (u32 word = 0; word < used_words; ++word) {
                    if (next[d][word] != 0) {
                        j = word * 32u + (__ffs(next[d][word]) - 1u);
                        next[d][word] &= next[d][word] - 1u;
                        break;
                    }
                }
                if (j == CLIQUE_BITS) {
                    if (d == 2) {
                        break;
                    }
                    --d;
                    continue;
                }
                if (d + 1 == levels) {
                    for (u32 word = 0; word < used_words; ++word) {
                        found += __popc(common[d][word] & w.up[j][word] & w.allowed[d + 1][word]);
                    }
                    continue;
                }
                for (u32 word = 0; word < used_words; ++word) {
                    common[d + 1][word] = common[d][word] & w.up[j][word];
                    next[d + 1][word] = common[d + 1][word] & w.allowed[d + 1][word];
                }
                ++d;
            }
        }
        __syncwarp();
    }
    for (u32 offset = 16; offset > 0; offset /= 2) {
        found += __shfl_down_sync(FULL_MASK, found, offset);
    }
    if (lane == 0 && found > 0) {
        add_to_total(total, found, false);
    }
}
#endif  // !WIDE_TABLES
