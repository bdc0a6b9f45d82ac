//! Device buffers a query takes and gives back without calling the driver: each engine keeps
//! the blocks its queries freed, by size, for its next ones.
//!
//! The driver's stream-ordered allocations serialise engines that share a GPU: one thread
//! on its own stream made 26,000 "queries" a second of two buffers, one upload, five
//! launches and two reads, and sixteen threads together 27,000; with their buffers made
//! once, 27,000 and 92,000 (one H200, 2026-11-28). `gsi serve`'s GPU engine stopped near
//! 2,600 light queries a second whatever the number of engines, the GPU busy 18% of the
//! time; with the blocks kept, 4,600 (docs/BENCHMARKS.md, twenty-seventh round).
//!
//! A block is handed out again as soon as its buffer is dropped, as the driver's own pool
//! does: the next buffer's work is queued on the same stream, after the work that used it.
//! The one buffer other engines' streams read, the data index, is dropped only once each
//! engine that read it has waited for its own stream (`GpuEngine::release_index`).

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, DriverError,
    LaunchArgs, PushKernelArg, SyncOnDrop,
};

/// Smallest block: smaller buffers take one of these.
const SMALLEST_BLOCK_BYTES: usize = 1 << 10;

/// Largest block kept: a larger buffer is the driver's to make and free (its work outweighs
/// the call).
const LARGEST_BLOCK_BYTES: usize = 64 << 20;

/// Bytes of blocks an engine keeps unused; a block given back beyond them is freed.
const KEEPS_BYTES: usize = 256 << 20;

/// The blocks an engine's queries gave back, one list per power-of-two size.
pub(crate) struct BufferCache {
    stream: Arc<CudaStream>,
    /// Whether buffers come from here (a switch for tests and measurements).
    on: AtomicBool,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Block addresses by size: `blocks[k]` holds blocks of `SMALLEST_BLOCK_BYTES << k`.
    blocks: Vec<Vec<CUdeviceptr>>,
    bytes: usize,
}

/// Whether `err` is the device's lack of memory.
fn out_of_memory(err: &DriverError) -> bool {
    err.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY
}

/// A block's size class and its bytes, for a buffer of `bytes`; `None` beyond
/// [`LARGEST_BLOCK_BYTES`].
fn class_of(bytes: usize) -> Option<(usize, usize)> {
    let block = bytes
        .max(SMALLEST_BLOCK_BYTES)
        .checked_next_power_of_two()?;
    (block <= LARGEST_BLOCK_BYTES).then(|| {
        let class = (block / SMALLEST_BLOCK_BYTES).trailing_zeros() as usize;
        (class, block)
    })
}

impl BufferCache {
    /// An empty cache for the buffers of `stream`.
    pub(crate) fn new(stream: Arc<CudaStream>) -> Arc<BufferCache> {
        Arc::new(BufferCache {
            stream,
            on: AtomicBool::new(true),
            kept: Mutex::new(Kept::default()),
        })
    }

    /// Turns the cache on or off; blocks kept stay until given out or freed.
    pub(crate) fn set_on(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes of blocks kept unused (free for this engine, used as the driver counts them).
    pub(crate) fn spare_bytes(&self) -> usize {
        self.kept().bytes
    }

    /// A buffer of `len` elements, not initialised: from a kept block where one of its size
    /// is, else a new block (or, beyond the largest block or with the cache off, the
    /// driver's buffer of exactly `len`).
    ///
    /// # Safety
    /// The caller writes each element before reading it.
    pub(crate) unsafe fn alloc<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<Buffer<T>, DriverError> {
        let bytes = len.max(1).saturating_mul(std::mem::size_of::<T>().max(1));
        let class = class_of(bytes).filter(|_| self.on.load(Ordering::Relaxed));
        // SAFETY: as the caller promises.
        let exact = || unsafe { self.stream.alloc::<T>(len.max(1)) };
        let Some((class, block)) = class else {
            return self.or_freeing_kept(exact).map(Buffer::from);
        };
        let reused = {
            let mut kept = self.kept();
            let found = kept.blocks.get_mut(class).and_then(Vec::pop);
            if found.is_some() {
                kept.bytes -= block;
            }
            found
        };
        let address = match reused {
            Some(address) => address,
            // SAFETY: a block of bytes; its users write before they read.
            None => match self.or_freeing_kept(|| unsafe { self.stream.alloc::<u8>(block) }) {
                Ok(made) => made.leak(),
                // A block is up to twice the buffer: where the device cannot hold it, the
                // buffer alone, as the driver makes it.
                Err(err) if out_of_memory(&err) => return exact().map(Buffer::from),
                Err(err) => return Err(err),
            },
        };
        // SAFETY: the block holds `block >= len * size_of::<T>()` bytes and is this
        // stream's; the caller initialises what it reads.
        let slice = unsafe { self.stream.upgrade_device_ptr::<T>(address, len.max(1)) };
        Ok(Buffer {
            slice: ManuallyDrop::new(slice),
            kept: Some((Arc::clone(self), class, block)),
        })
    }

    /// What `alloc` makes, or where the device is out of memory, what it makes once every
    /// kept block is freed.
    fn or_freeing_kept<S>(
        &self,
        alloc: impl Fn() -> Result<S, DriverError>,
    ) -> Result<S, DriverError> {
        match alloc() {
            Err(err) if out_of_memory(&err) && self.spare_bytes() > 0 => {
                self.free_kept();
                alloc()
            }
            made => made,
        }
    }

    /// Frees every kept block, in stream order, and keeps none from now on: for an engine
    /// that goes while buffers of its cache live on (the data index, which other engines of
    /// its GPU may still read).
    pub(crate) fn close(&self) {
        self.set_on(false);
        self.free_kept();
    }

    /// Frees every kept block, in stream order.
    fn free_kept(&self) {
        let kept = std::mem::take(&mut *self.kept());
        for (class, blocks) in kept.blocks.into_iter().enumerate() {
            for address in blocks {
                // SAFETY: as in `give_back`.
                drop(unsafe {
                    self.stream
                        .upgrade_device_ptr::<u8>(address, SMALLEST_BLOCK_BYTES << class)
                });
            }
        }
    }

    /// Keeps block `address` of `class` for the next buffer of its size, or frees it when
    /// the cache holds [`KEEPS_BYTES`] already or is off.
    fn give_back(&self, address: CUdeviceptr, class: usize, block: usize) {
        if self.on.load(Ordering::Relaxed) {
            let mut kept = self.kept();
            if kept.bytes + block <= KEEPS_BYTES {
                if kept.blocks.len() <= class {
                    kept.blocks.resize_with(class + 1, Vec::new);
                }
                kept.blocks[class].push(address);
                kept.bytes += block;
                return;
            }
        }
        // SAFETY: the block was made on this stream with `block` bytes; dropping it frees it
        // in stream order, after the work that used it.
        drop(unsafe { self.stream.upgrade_device_ptr::<u8>(address, block) });
    }
}

impl Drop for BufferCache {
    fn drop(&mut self) {
        self.free_kept();
    }
}

/// A device buffer of an engine: a [`CudaSlice`] whose block goes back to the engine's
/// [`BufferCache`] when dropped.
pub(crate) struct Buffer<T> {
    slice: ManuallyDrop<CudaSlice<T>>,
    /// The cache, size class and bytes of its block; `None`: the driver's own buffer.
    kept: Option<(Arc<BufferCache>, usize, usize)>,
}

/// The driver's own buffer, freed when dropped.
impl<T> From<CudaSlice<T>> for Buffer<T> {
    fn from(slice: CudaSlice<T>) -> Buffer<T> {
        Buffer {
            slice: ManuallyDrop::new(slice),
            kept: None,
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = CudaSlice<T>;

    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> DerefMut for Buffer<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // SAFETY: the slice is taken once, here, and not used after.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        match self.kept.take() {
            Some((cache, class, block)) => cache.give_back(slice.leak(), class, block),
            None => drop(slice),
        }
    }
}

impl<T> DeviceSlice<T> for Buffer<T> {
    fn len(&self) -> usize {
        self.slice.len()
    }

    fn stream(&self) -> &Arc<CudaStream> {
        self.slice.stream()
    }
}

impl<T> DevicePtr<T> for Buffer<T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        self.slice.device_ptr(stream)
    }
}

impl<T> DevicePtrMut<T> for Buffer<T> {
    fn device_ptr_mut<'a>(&'a mut self, stream: &'a CudaStream) -> (CUdeviceptr, SyncOnDrop<'a>) {
        self.slice.device_ptr_mut(stream)
    }
}

// SAFETY: a buffer is passed to a kernel as its slice is, which lives as long.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b Buffer<T>> for LaunchArgs<'a> {
    fn arg(&mut self, arg: &'b Buffer<T>) -> &mut Self {
        self.arg(&*arg.slice)
    }
}

// SAFETY: as above.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut Buffer<T>> for LaunchArgs<'a> {
    fn arg(&mut self, arg: &'b mut Buffer<T>) -> &mut Self {
        self.arg(&mut *arg.slice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_fall_in_power_of_two_blocks_up_to_the_largest() {
        assert_eq!(class_of(1), Some((0, SMALLEST_BLOCK_BYTES)));
        assert_eq!(
            class_of(SMALLEST_BLOCK_BYTES),
            Some((0, SMALLEST_BLOCK_BYTES))
        );
        assert_eq!(
            class_of(SMALLEST_BLOCK_BYTES + 1),
            Some((1, 2 * SMALLEST_BLOCK_BYTES))
        );
        assert_eq!(
            class_of(LARGEST_BLOCK_BYTES),
            Some((16, LARGEST_BLOCK_BYTES))
        );
        assert_eq!(class_of(LARGEST_BLOCK_BYTES + 1), None);
        assert_eq!(class_of(usize::MAX), None);
    }
}
