//! The rows of a table a share cut by rows holds ([`Share::holds_row`]), picked on the
//! device: a flag per row (`gsi_join_held_rows`, hashing as the host does), their prefix sum,
//! and the flagged rows moved together (`gsi_join_keep_rows`).

use cudarc::driver::{CudaSlice, CudaView, PushKernelArg};
use gsi_kernels::Kernel;

use crate::cuda::buffers::Buffer;
use crate::cuda::device::Device;
use crate::cuda::launch::per_element;
use crate::cuda::scan::exclusive_scan;
use crate::error::{driver, Result};
use crate::options::Share;

/// The rows of `table` (`rows` rows of `width` columns) that `share` holds, together in a new
/// buffer, and how many.
///
/// # Errors
/// Device failures.
pub(super) fn rows_held(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: usize,
    width: usize,
    share: Share,
) -> Result<(Buffer<u32>, usize)> {
    let mut held = device.alloc(rows, "the rows a share holds")?;
    join_held_rows(device, table, rows as u32, width as u32, share, &mut held)?;
    let (places, kept) = exclusive_scan(device, &held.slice(0..rows), rows)?;
    let mut out = device.alloc(kept as usize * width, "a share's rows")?;
    join_keep_rows(
        device,
        table,
        rows as u32,
        width as u32,
        &held.slice(0..rows),
        &places.slice(0..rows),
        &mut out,
    )?;
    Ok((out, kept as usize))
}

/// `gsi_join_held_rows`: thread per row; `held[r]` is whether `share` holds row r of the
/// `rows` rows of `table` ([`Share::holds_row`]).
fn join_held_rows(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    share: Share,
    held: &mut CudaSlice<u32>,
) -> Result<()> {
    let (count, index) = (share.count(), share.index());
    // SAFETY: gsi_join_held_rows(table[rows*width], rows, width, seed, count, index,
    // held[rows]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::JoinHeldRows)?)
            .arg(table)
            .arg(&rows)
            .arg(&width)
            .arg(&Share::ROW_SEED)
            .arg(&count)
            .arg(&index)
            .arg(held)
            .launch(per_element(u64::from(rows)))
    }
    .map_err(driver("launching gsi_join_held_rows"))?;
    Ok(())
}

/// `gsi_join_keep_rows`: thread per entry; the held rows of `table` together in `out`, each
/// at its place (the exclusive prefix sum of `held`).
fn join_keep_rows(
    device: &Device,
    table: &CudaView<'_, u32>,
    rows: u32,
    width: u32,
    held: &CudaView<'_, u32>,
    places: &CudaView<'_, u32>,
    out: &mut CudaSlice<u32>,
) -> Result<()> {
    // SAFETY: gsi_join_keep_rows(table[rows*width], rows, width, held[rows], places[rows],
    // out[kept*width]).
    unsafe {
        device
            .stream
            .launch_builder(device.kernel(Kernel::JoinKeepRows)?)
            .arg(table)
            .arg(&rows)
            .arg(&width)
            .arg(held)
            .arg(places)
            .arg(out)
            .launch(per_element(u64::from(rows) * u64::from(width)))
    }
    .map_err(driver("launching gsi_join_keep_rows"))?;
    Ok(())
}
