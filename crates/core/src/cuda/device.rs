//! Finding and opening a GPU, once `libraries` found libcuda and libnvrtc usable.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cudarc::driver::{
    sys, CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DeviceRepr, PinnedHostSlice,
    ValidAsZeroBits,
};
use gsi_kernels::Kernel;
use rayon::prelude::*;

use super::buffers::{Buffer, BufferCache};
use super::launch::MAX_WIDTH;
use super::libraries::{check_driver, check_nvrtc};
use super::modules::{Build, Kernels};
use crate::error::{driver, Error, NoGpu, Result};

/// Copies words `start..start + out.len()` of the concatenation of `parts` into `out`, in
/// parallel pieces.
fn gather(parts: &[&[u32]], start: usize, out: &mut [u32]) {
    const PIECE: usize = 1 << 16;
    out.par_chunks_mut(PIECE)
        .enumerate()
        .for_each(|(k, piece)| {
            let mut at = start + k * PIECE;
            let mut filled = 0;
            let mut base = 0;
            for part in parts {
                if filled == piece.len() {
                    break;
                }
                let end = base + part.len();
                if at < end {
                    let take = (end - at).min(piece.len() - filled);
                    piece[filled..filled + take]
                        .copy_from_slice(&part[at - base..at - base + take]);
                    filled += take;
                    at += take;
                }
                base = end;
            }
        });
}

/// Why no GPU can be used, or `Ok` when the libraries are there.
///
/// # Errors
/// The library that is missing or lacks a function gsi calls.
pub fn probe() -> std::result::Result<(), NoGpu> {
    check_driver()?;
    check_nvrtc()
}

/// How many GPUs the driver lists.
///
/// # Errors
/// [`Error::NoGpu`] when the driver or NVRTC is missing or cannot list its devices.
pub fn device_count() -> Result<usize> {
    probe().map_err(Error::NoGpu)?;
    let count =
        CudaContext::device_count().map_err(|e| Error::NoGpu(NoGpu::CannotList(e.to_string())))?;
    Ok(count.max(0) as usize)
}

/// An open GPU with its stream and loaded kernels.
pub struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    kernels: Kernels,
    /// The wide build's kernels, loaded when a table wider than `MAX_WIDTH` first needs them.
    wide_kernels: OnceLock<Kernels>,
    /// Where compiled kernels are kept.
    kernel_cache: Option<PathBuf>,
    /// `sm_XY`.
    pub(crate) arch: String,
    /// The device's name.
    pub(crate) name: String,
    /// Its streaming multiprocessors.
    pub(crate) multiprocessors: u32,
    /// Words per pinned staging buffer of [`Device::upload_buffers`].
    stage_words: usize,
    /// The two pinned staging buffers, once an upload has needed them.
    stages: Mutex<Vec<PinnedHostSlice<u32>>>,
    /// The blocks of this engine's buffers, kept from query to query.
    buffers: Arc<BufferCache>,
}

impl Device {
    /// Opens GPU `ordinal` and loads the kernels (compiling them on first use; compiled
    /// kernels are kept in `kernel_cache` when given); uploads go through staging buffers of
    /// `stage_bytes`.
    ///
    /// # Errors
    /// [`Error::NoGpu`] with the reason when there is no usable GPU; kernel compile errors.
    pub fn open(ordinal: usize, kernel_cache: Option<&Path>, stage_bytes: usize) -> Result<Device> {
        probe().map_err(Error::NoGpu)?;
        let count = CudaContext::device_count()
            .map_err(|e| Error::NoGpu(NoGpu::CannotList(e.to_string())))?;
        if count <= 0 {
            return Err(Error::NoGpu(NoGpu::NoDevice));
        }
        if ordinal >= count as usize {
            return Err(Error::NoGpu(NoGpu::NoSuchDevice {
                ordinal,
                count: count as usize,
            }));
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| {
            Error::NoGpu(NoGpu::CannotOpen {
                ordinal,
                message: e.to_string(),
            })
        })?;
        // One stream orders everything an engine does, so cudarc's per-buffer events are not
        // needed; the one thing engines share, the data index, is read only once its upload
        // has finished (`shared.rs`).
        // SAFETY: no buffer of this context object exists yet.
        unsafe { ctx.disable_event_tracking() };
        keep_freed_memory(&ctx);
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("reading the compute capability"))?;
        let arch = format!("sm_{major}{minor}");
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let multiprocessors = ctx
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map_err(driver("reading the number of multiprocessors"))?
            .max(1) as u32;
        let kernels = Kernels::load(&ctx, &arch, kernel_cache, Build::Standard)?;
        // An engine's own stream, not the context's default one: the default stream runs the
        // work of every engine of the process on this GPU one after another.
        let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
        let buffers = BufferCache::new(Arc::clone(&stream));
        Ok(Device {
            ctx,
            stream,
            kernels,
            wide_kernels: OnceLock::new(),
            kernel_cache: kernel_cache.map(Path::to_path_buf),
            arch,
            name,
            multiprocessors,
            stage_words: (stage_bytes / 4).max(1),
            stages: Mutex::new(Vec::new()),
            buffers,
        })
    }

    /// The function of `kernel`, for its typed wrapper.
    pub(crate) fn kernel(&self, kernel: Kernel) -> Result<&CudaFunction> {
        self.kernels.get(kernel)
    }

    /// The function of `kernel` for tables of `width` columns: the wide build's beyond
    /// `MAX_WIDTH` (compiled or read from the cache at its first use).
    pub(crate) fn kernel_for_width(&self, kernel: Kernel, width: u32) -> Result<&CudaFunction> {
        if width as usize <= MAX_WIDTH {
            return self.kernel(kernel);
        }
        if self.wide_kernels.get().is_none() {
            let wide = Kernels::load(
                &self.ctx,
                &self.arch,
                self.kernel_cache.as_deref(),
                Build::Wide,
            )?;
            // Another thread may have loaded it first: either copy serves.
            let _ = self.wide_kernels.set(wide);
        }
        self.wide_kernels.get().expect("loaded above").get(kernel)
    }

    /// Makes this device's context the calling thread's current one.
    ///
    /// # Errors
    /// The driver's.
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(driver("making the GPU's context current"))
    }

    /// Waits for everything queued on this device's stream.
    ///
    /// # Errors
    /// The driver's, with `what` was being done.
    pub(crate) fn synchronize(&self, what: &str) -> Result<()> {
        self.stream.synchronize().map_err(driver(what))
    }

    /// Free and total device memory in bytes; free counts what the pool keeps unused.
    pub fn memory(&self) -> Result<(usize, usize)> {
        let (free, total) = self
            .ctx
            .mem_get_info()
            .map_err(driver("reading free memory"))?;
        Ok((free + self.pool_spare() + self.buffers.spare_bytes(), total))
    }

    /// Copies `data` to a new device buffer (at least one element long).
    pub(crate) fn upload<T: DeviceRepr + Default + Clone>(
        &self,
        data: &[T],
        what: &str,
    ) -> Result<Buffer<T>> {
        let err = driver(format!(
            "uploading {what} ({} bytes)",
            std::mem::size_of_val(data)
        ));
        let one = [T::default()];
        let data = if data.is_empty() { &one[..] } else { data };
        // SAFETY: written whole by the copy.
        let made = unsafe { self.buffers.alloc::<T>(data.len()) }.and_then(|mut buffer| {
            self.stream.memcpy_htod(data, &mut *buffer)?;
            Ok(buffer)
        });
        made.map_err(err)
    }

    /// Copies each of `buffers` (the concatenation of its parts, and what it is, for
    /// messages) to a new device buffer (at least one element long), without concatenating
    /// anything on the host: small uploads are copied straight; large ones go through two
    /// pinned staging buffers in turn, one pipeline for all the buffers, the host gathering
    /// the next stage (in parallel) while the DMA engine copies the last one at the bus's
    /// speed.
    pub(crate) fn upload_buffers(&self, buffers: &[(&[&[u32]], &str)]) -> Result<Vec<Buffer<u32>>> {
        let lengths: Vec<usize> = buffers
            .iter()
            .map(|(parts, _)| parts.iter().map(|p| p.len()).sum())
            .collect();
        let total: usize = lengths.iter().sum();
        if total <= self.stage_words / 8 {
            return buffers
                .iter()
                .map(|(parts, what)| self.upload(&parts.concat(), what))
                .collect();
        }
        let what = buffers
            .iter()
            .map(|(_, w)| *w)
            .collect::<Vec<_>>()
            .join(", ");
        let err = || driver(format!("uploading {what} ({} bytes)", 4 * total));
        let mut dsts = buffers
            .iter()
            .zip(&lengths)
            .map(|((_, what), &len)| self.alloc(len, what))
            .collect::<Result<Vec<_>>>()?;
        // Where each buffer starts in the concatenation of them all.
        let starts: Vec<usize> = lengths
            .iter()
            .scan(0, |at, &len| {
                *at += len;
                Some(*at - len)
            })
            .collect();
        let parts: Vec<&[u32]> = buffers
            .iter()
            .flat_map(|(p, _)| p.iter().copied())
            .collect();
        // Kept from upload to upload: pinning them takes milliseconds.
        let mut stages = self.stages.lock().unwrap_or_else(PoisonError::into_inner);
        while stages.len() < 2 {
            // SAFETY: a staging buffer is written only after the copy that last read it has
            // finished (`copied` below, or the synchronisation that ends every upload), and
            // before a copy reads it.
            stages.push(unsafe { self.ctx.alloc_pinned::<u32>(self.stage_words) }.map_err(err())?);
        }
        // The copy that last read each staging buffer. (The engine turns cudarc's own event
        // tracking off, so a pinned buffer does not know when its copy is done.)
        let mut copied: [Option<CudaEvent>; 2] = [None, None];
        let mut copy_stages = || -> Result<()> {
            for (i, start) in (0..total).step_by(self.stage_words).enumerate() {
                let end = (start + self.stage_words).min(total);
                if let Some(done) = copied[i % 2].take() {
                    done.synchronize().map_err(err())?;
                }
                let stage = &mut stages[i % 2].as_mut_slice().map_err(err())?[..end - start];
                gather(&parts, start, stage);
                // The stage's share of each buffer it covers. Pinned memory, so each copy is
                // asynchronous whatever cudarc takes it for.
                for ((dst, &from), &len) in dsts.iter_mut().zip(&starts).zip(&lengths) {
                    let (lo, hi) = (from.max(start), (from + len).min(end));
                    if lo < hi {
                        self.stream
                            .memcpy_htod(
                                &stage[lo - start..hi - start],
                                &mut dst.slice_mut(lo - from..hi - from),
                            )
                            .map_err(err())?;
                    }
                }
                copied[i % 2] = Some(self.stream.record_event(None).map_err(err())?);
            }
            Ok(())
        };
        let copied_all = copy_stages();
        // Whatever happened, no copy may still read a staging buffer when it is next written.
        let synced = self.stream.synchronize().map_err(err());
        copied_all?;
        synced?;
        Ok(dsts)
    }

    /// A new device buffer of `len` (at least one) elements whose contents are not initialised.
    pub(crate) fn alloc(&self, len: usize, what: &str) -> Result<Buffer<u32>> {
        // SAFETY: every caller writes each element it later reads.
        unsafe { self.buffers.alloc::<u32>(len) }.map_err(driver(format!(
            "allocating {what} ({} bytes)",
            4 * len.max(1)
        )))
    }

    /// A new device buffer of `len` (at least one) zeros.
    pub(crate) fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
        what: &str,
    ) -> Result<Buffer<T>> {
        // SAFETY: zeroed whole below.
        let made = unsafe { self.buffers.alloc::<T>(len) }.and_then(|mut buffer| {
            self.stream.memset_zeros(&mut *buffer)?;
            Ok(buffer)
        });
        made.map_err(driver(format!("allocating {what}")))
    }

    /// Turns the engine's cache of buffers on or off ([`BufferCache`]).
    pub(crate) fn keep_buffers(&self, on: bool) {
        self.buffers.set_on(on);
    }

    /// Frees the blocks the engine's cache keeps, and keeps none after ([`BufferCache::close`]).
    pub(crate) fn close_buffers(&self) {
        self.buffers.close();
    }

    /// Reads `len` elements of `buffer` starting at `start` back to the host.
    pub(crate) fn read(
        &self,
        buffer: &CudaSlice<u32>,
        start: usize,
        len: usize,
        what: &str,
    ) -> Result<Vec<u32>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        self.stream
            .clone_dtoh(&buffer.slice(start..start + len))
            .map_err(driver(format!("reading {what}")))
    }
}

/// Bytes of freed buffers the stream-ordered pool keeps from one query to the next
/// ([`Device::trim_pool`]).
const POOL_KEEPS_BYTES: u64 = 256 << 20;

/// The device's default stream-ordered memory pool; `None` for a driver without one (every
/// buffer is then a fresh one).
fn default_pool(ctx: &CudaContext) -> Option<sys::CUmemoryPool> {
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: `pool` is a valid out-pointer.
    let found = unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, ctx.cu_device()) };
    (found == sys::CUresult::CUDA_SUCCESS).then_some(pool)
}

/// Makes the device's pool keep every buffer freed for the next allocations, until
/// [`Device::trim_pool`]. A join allocates and frees buffers at every step; by default the
/// pool hands them back to the driver at each synchronisation, and the driver unmaps and
/// maps the memory again each time, slower the more GPUs of the host do it at once: on four
/// H100s, each of a triangle count's 32 shares spent 69 ms (median) against 3 ms with the
/// pool keeping its memory (2026-11-26). Best effort, as the pool is.
fn keep_freed_memory(ctx: &CudaContext) {
    let Some(pool) = default_pool(ctx) else {
        return;
    };
    let mut keep = u64::MAX;
    // SAFETY: the release threshold attribute takes a u64, and `keep` is one.
    let _ = unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut keep as *mut u64).cast(),
        )
    };
}

impl Device {
    /// Bytes the pool holds for this device that no buffer uses: free for its next
    /// allocations, though the driver counts them as used.
    fn pool_spare(&self) -> usize {
        let Some(pool) = default_pool(&self.ctx) else {
            return 0;
        };
        let read = |attribute| {
            let mut value = 0u64;
            // SAFETY: both attributes read here are u64s.
            let read = unsafe {
                sys::cuMemPoolGetAttribute(pool, attribute, (&mut value as *mut u64).cast())
            };
            (read == sys::CUresult::CUDA_SUCCESS).then_some(value)
        };
        match (
            read(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
            read(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT),
        ) {
            (Some(reserved), Some(used)) => reserved.saturating_sub(used) as usize,
            _ => 0,
        }
    }

    /// Hands what the pool keeps beyond [`POOL_KEEPS_BYTES`] back to the driver, once a
    /// query is answered: an idle engine does not hold the memory of its last join.
    pub(crate) fn trim_pool(&self) {
        // The query's last buffers are freed on the stream: done only once it has run.
        if self.stream.synchronize().is_err() {
            return;
        }
        if let Some(pool) = default_pool(&self.ctx) {
            // SAFETY: `pool` is the device's default pool; trimming frees no buffer in use.
            let _ = unsafe { sys::cuMemPoolTrimTo(pool, POOL_KEEPS_BYTES as usize) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_copies_any_window_of_the_concatenation() {
        let lengths = [0, 5, 300_000, 0, 1, 262_144, 70_001];
        let mut next = 0u32;
        let parts: Vec<Vec<u32>> = lengths
            .iter()
            .map(|&n| {
                next += n as u32;
                (next - n as u32..next).collect()
            })
            .collect();
        let views: Vec<&[u32]> = parts.iter().map(Vec::as_slice).collect();
        let whole = parts.concat();
        for (start, len) in [
            (0, whole.len()),
            (3, 262_145),
            (299_990, 300_000),
            (whole.len() - 1, 1),
        ] {
            let mut out = vec![u32::MAX; len];
            gather(&views, start, &mut out);
            assert_eq!(out, whole[start..start + len], "{start}+{len}");
        }
    }
}
