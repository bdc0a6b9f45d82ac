//! Launch shapes, in one place. The kernels get the same constants as `-D` options.

use cudarc::driver::LaunchConfig;

/// Threads per block of every kernel (the paper's W2 for the block-level balance).
pub const BLOCK_SIZE: u32 = 256;
/// Widest intermediate table: query vertices the GPU engine handles.
pub const MAX_WIDTH: usize = 32;
/// Blocks of a warp-per-row kernel; warps loop over the remaining rows.
const MAX_ROW_BLOCKS: u32 = 1 << 14;

/// The NVRTC `-D` options that mirror these constants.
pub fn defines() -> Vec<String> {
    vec![
        format!("-DBLOCK_SIZE={BLOCK_SIZE}"),
        format!("-DMAX_WIDTH={MAX_WIDTH}"),
    ]
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
