// The joining phase: Prealloc-Combine (Sec. 5, Algorithms 3 and 4), one warp per row of the
// intermediate table. Host wrappers: gsi-core cuda/join.rs.
//
// A step joins query vertex u. `links` lists its linking edges, the first edge e0 first when
// has_first is set; otherwise (the first step, or a new component of a disconnected query)
// u's matches come from its candidate list.

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

// Warp per row (grid-stride), Algorithm 3 lines 5-12. The row is kept in shared memory for
// the subtraction; the PCSR ranges of every linking edge are located once per row. The first
// edge's list is read 32 elements at a time; each lane tests its element against C(u)'s
// bitset (one read), the row (subtraction, skipped when !injective) and, by binary search,
// every other linking edge's list — so subtraction and both intersections are fused into one
// pass and the buffer is written once. Survivors are compacted by ballot into a 128-byte
// per-warp write cache in shared memory that is flushed to the row's GBA buffer 32 words at a
// time (one transaction). Row r's buffer starts at offsets[r] - offset_base (Algorithm 4's
// prefix sum, taken over a run of which these rows may be a part) or, when offsets == 0, at
// r * stride (every row given the largest bound, when memory allows:
// it saves the bounds pass and its prefix sum). With gba == 0 nothing is written: the warp
// only counts, and the counts are added to *total (the last step of a count-only query).
extern "C" __global__ void gsi_join_rows(
    const u32* __restrict__ table, u32 rows, u32 width,
    const u32* __restrict__ groups, const u32* __restrict__ ci,
    const Link* __restrict__ links, u32 link_count, u32 has_first,
    const u32* __restrict__ candidate_list, u32 candidate_count,
    const u32* __restrict__ candidate_bits, u32 injective,
    const u32* __restrict__ offsets, u32 offset_base, u32 stride, u32* __restrict__ gba,
    u32* __restrict__ counts, u64* __restrict__ total) {
    __shared__ u32 row_sh[WARPS_PER_BLOCK][MAX_WIDTH];
    __shared__ u32 range_sh[WARPS_PER_BLOCK][2 * MAX_WIDTH];
    __shared__ u32 cache_sh[WARPS_PER_BLOCK][WARP_SIZE];
    u32 lane = threadIdx.x & 31u;
    u32 w = threadIdx.x / WARP_SIZE;
    u32 lanes_before = (1u << lane) - 1u;
    u64 found = 0;
    for (u32 r = global_warp(); r < rows; r += grid_warps()) {
        if (lane < width) {
            row_sh[w][lane] = table[(u64)r * width + lane];
        }
        __syncwarp();
        for (u32 k = 0; k < link_count; ++k) {
            Link link = links[k];
            u32 begin, end;
            pcsr_locate(groups, link, row_sh[w][link.column], lane, &begin, &end);
            if (lane == 0) {
                range_sh[w][2 * k] = begin;
                range_sh[w][2 * k + 1] = end;
            }
        }
        __syncwarp();
        const u32* source = candidate_list;
        u32 source_len = candidate_count;
        u32 first_other = 0;
        if (has_first) {
            source = ci + range_sh[w][0];
            source_len = range_sh[w][1] - range_sh[w][0];
            first_other = 1;
        }
        u64 out_at = !gba ? 0 : offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride;
        u32 cached = 0;
        u32 written = 0;
        for (u32 base = 0; base < source_len; base += WARP_SIZE) {
            u32 i = base + lane;
            bool valid = i < source_len;
            u32 x = valid ? source[i] : 0;
            if (valid) {
                valid = (candidate_bits[x / 32] >> (x % 32)) & 1u;
            }
            if (valid && injective) {
                for (u32 j = 0; j < width; ++j) {
                    if (row_sh[w][j] == x) {
                        valid = false;
                        break;
                    }
                }
            }
            for (u32 k = first_other; valid && k < link_count; ++k) {
                valid = sorted_contains(ci, range_sh[w][2 * k], range_sh[w][2 * k + 1], x);
            }
            u32 mask = __ballot_sync(FULL_MASK, valid);
            if (!gba) {
                cached += __popc(mask);
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
        if (gba) {
            if (lane < cached) {
                gba[out_at + written + lane] = cache_sh[w][lane];
            }
            if (lane == 0) {
                counts[r] = written + cached;
            }
        } else {
            found += cached;
        }
        __syncwarp();
    }
    if (!gba && lane == 0 && found > 0) {
        atomicAdd(total, found);
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
        if (lane < width) {
            row_sh[w][lane] = table[(u64)r * width + lane];
        }
        __syncwarp();
        const u32* buffer = gba + (offsets ? (u64)(offsets[r] - offset_base) : (u64)r * stride);
        u32* out = next + (u64)new_offsets[r] * new_width;
        u64 words = (u64)count * new_width;
        for (u64 t = lane; t < words; t += WARP_SIZE) {
            u32 k = (u32)(t / new_width);
            u32 j = (u32)(t % new_width);
            out[t] = j < width ? row_sh[w][j] : buffer[k];
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
