//! Exclusive prefix sums on the device (host side of `scan.cu`): Algorithm 4's offsets F and
//! the new table's row offsets (Algorithm 3, line 13).

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};

use super::device::{gpu_error, Device};
use super::launch::{per_element, BLOCK_SIZE};
use crate::Result;

/// Scans `input` (`n` elements) into a new buffer of `n + 1` elements whose last is the total,
/// and returns it with the total. Every total must fit in u32; callers size their work so.
pub fn exclusive_scan(
    device: &Device,
    input: &CudaView<'_, u32>,
    n: usize,
) -> Result<(CudaSlice<u32>, u32)> {
    let mut out = device.alloc(n + 1, "a prefix sum")?;
    scan_into(device, input, &mut out, n)?;
    let total = device.read(&out, n, 1, "a prefix-sum total")?[0];
    Ok((out, total))
}

fn scan_into(
    device: &Device,
    input: &CudaView<'_, u32>,
    out: &mut CudaSlice<u32>,
    n: usize,
) -> Result<()> {
    if n == 0 {
        device
            .stream
            .memcpy_htod(&[0u32], &mut out.slice_mut(0..1))
            .map_err(gpu_error("clearing an empty prefix sum"))?;
        return Ok(());
    }
    let blocks = n.div_ceil(BLOCK_SIZE as usize);
    let mut block_sums = device.alloc(blocks, "prefix-sum blocks")?;
    let n64 = n as u64;
    // SAFETY: gsi_scan_blocks(in[n], out[n + 1], block_sums[blocks], n) with one thread per
    // element and `blocks` blocks of BLOCK_SIZE threads.
    unsafe {
        device
            .stream
            .launch_builder(device.kernels.get("gsi_scan_blocks"))
            .arg(input)
            .arg(&mut *out)
            .arg(&mut block_sums)
            .arg(&n64)
            .launch(per_element(n64))
    }
    .map_err(gpu_error("launching gsi_scan_blocks"))?;
    if blocks > 1 {
        let mut block_prefix = device.alloc(blocks + 1, "prefix-sum blocks")?;
        scan_into(
            device,
            &block_sums.slice(0..blocks),
            &mut block_prefix,
            blocks,
        )?;
        // SAFETY: gsi_scan_add(out[n + 1], block_prefix[blocks + 1], n), same grid as above.
        unsafe {
            device
                .stream
                .launch_builder(device.kernels.get("gsi_scan_add"))
                .arg(&mut *out)
                .arg(&block_prefix)
                .arg(&n64)
                .launch(per_element(n64))
        }
        .map_err(gpu_error("launching gsi_scan_add"))?;
    }
    Ok(())
}
