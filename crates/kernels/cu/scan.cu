// Exclusive prefix sum of u32 (Algorithm 4's offsets F and the new table's layout, Alg. 3
// line 13). Host wrapper: gsi-core cuda/scan.rs, which recurses over the block sums.

// Thread per element, BLOCK_SIZE elements per block: out[i] = sum of in[block start .. i),
// block_sums[b] = the block's total. With a single block, out[n] = the total.
extern "C" __global__ void gsi_scan_blocks(const u32* __restrict__ in, u32* __restrict__ out,
                                           u32* __restrict__ block_sums, u64 n) {
    __shared__ u32 warp_sums[WARPS_PER_BLOCK];
    u64 i = (u64)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    u32 lane = threadIdx.x & 31u;
    u32 warp = threadIdx.x / WARP_SIZE;
    u32 x = i < n ? in[i] : 0;
    u32 inclusive = x;
    for (u32 d = 1; d < WARP_SIZE; d <<= 1) {
        u32 y = __shfl_up_sync(FULL_MASK, inclusive, d);
        if (lane >= d) {
            inclusive += y;
        }
    }
    if (lane == WARP_SIZE - 1) {
        warp_sums[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        u32 s = lane < WARPS_PER_BLOCK ? warp_sums[lane] : 0;
        for (u32 d = 1; d < WARP_SIZE; d <<= 1) {
            u32 y = __shfl_up_sync(FULL_MASK, s, d);
            if (lane >= d) {
                s += y;
            }
        }
        if (lane < WARPS_PER_BLOCK) {
            warp_sums[lane] = s;
        }
    }
    __syncthreads();
    u32 before = warp > 0 ? warp_sums[warp - 1] : 0;
    if (i < n) {
        out[i] = before + inclusive - x;
    }
    if (threadIdx.x == BLOCK_SIZE - 1) {
        u32 total = before + inclusive;
        block_sums[blockIdx.x] = total;
        if (gridDim.x == 1) {
            out[n] = total;
        }
    }
}

// Thread per element: adds the block's exclusive prefix; thread 0 also writes the total,
// block_prefix[gridDim.x], to out[n].
extern "C" __global__ void gsi_scan_add(u32* __restrict__ out, const u32* __restrict__ block_prefix,
                                        u64 n) {
    u64 i = (u64)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n) {
        out[i] += block_prefix[blockIdx.x];
    }
    if (i == 0) {
        out[n] = block_prefix[gridDim.x];
    }
}
