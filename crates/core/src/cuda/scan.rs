//! Exclusive prefix sums on the device (host side of `scan.cu`): Algorithm 4's offsets F and
//! the new table's row offsets (Algorithm 3, line 13).

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};
use gsi_kernels::Kernel;

use super::device::Device;
use super::launch::{per_element, BLOCK_SIZE};
use crate::cuda::buffers::Buffer;
use crate::error::{driver, Result};

/// `gsi_scan_blocks`: per block of BLOCK_SIZE elements, the exclusive prefix sum of `input`
/// into `out`, and each block's total into `block_sums`. Thread per element.
fn scan_blocks(
    device: &Device,
    input: &CudaView<'_, u32>,
    out: &mut CudaSlice<u32>,
    block_sums: &mut CudaSlice<u32>,
    n: u64,
) -> Result<()> {
    // SAFETY: gsi_scan_blocks(in[n], out[n + 1], block_sums[n / BLOCK_SIZE rounded up], n):
    // the buffers have those lengths (callers allocate them so).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::ScanBlocks)?)
            .arg(input)
            .arg(out)
            .arg(block_sums)
            .arg(&n)
            .launch(per_element(n))
    }
    .map_err(driver("launching gsi_scan_blocks"))?;
    Ok(())
}

/// `gsi_scan_add`: adds block b's prefix `block_prefix[b]` to every element of block b of
/// `out`. Thread per element.
fn scan_add(
    device: &Device,
    out: &mut CudaSlice<u32>,
    block_prefix: &CudaSlice<u32>,
    n: u64,
) -> Result<()> {
    // SAFETY: gsi_scan_add(out[n + 1], block_prefix[blocks + 1], n): the lengths of the
    // buffers of `scan_blocks` above.
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::ScanAdd)?)
            .arg(out)
            .arg(block_prefix)
            .arg(&n)
            .launch(per_element(n))
    }
    .map_err(driver("launching gsi_scan_add"))?;
    Ok(())
}

/// Scans `input` (`n` elements) into a new buffer of `n + 1` elements whose last is the total,
/// and returns it with the total. Every total must fit in u32; callers size their work so.
pub fn exclusive_scan(
    device: &Device,
    input: &CudaView<'_, u32>,
    n: usize,
) -> Result<(Buffer<u32>, u32)> {
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
            .map_err(driver("clearing an empty prefix sum"))?;
        return Ok(());
    }
    let blocks = n.div_ceil(BLOCK_SIZE as usize);
    let mut block_sums = device.alloc(blocks, "prefix-sum blocks")?;
    scan_blocks(device, input, out, &mut block_sums, n as u64)?;
    if blocks > 1 {
        let mut block_prefix = device.alloc(blocks + 1, "prefix-sum blocks")?;
        scan_into(
            device,
            &block_sums.slice(0..blocks),
            &mut block_prefix,
            blocks,
        )?;
        scan_add(device, out, &block_prefix, n as u64)?;
    }
    Ok(())
}
