//! Finding and opening a GPU. cudarc panics when libcuda or libnvrtc is missing, so both are
//! probed first and their absence becomes an ordinary error with a reason.

use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{
    sys as driver_sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr,
};
use gsi_kernels::Kernel;

use super::modules::{nvrtc_present, Kernels};
use crate::error::{driver, Error, NoGpu, Result};

/// Why no GPU can be used, or `Ok` when the libraries are there.
///
/// # Errors
/// The library that is missing.
pub fn probe() -> std::result::Result<(), NoGpu> {
    // SAFETY: only tries to open the library.
    if !unsafe { driver_sys::is_culib_present() } {
        return Err(NoGpu::NoDriver);
    }
    if !nvrtc_present() {
        return Err(NoGpu::NoNvrtc);
    }
    Ok(())
}

/// An open GPU with its stream and loaded kernels.
pub struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    kernels: Kernels,
    /// `sm_XY`.
    pub(crate) arch: String,
    /// The device's name.
    pub(crate) name: String,
}

impl Device {
    /// Opens GPU `ordinal` and loads the kernels (compiling them on first use; compiled
    /// kernels are kept in `kernel_cache` when given).
    ///
    /// # Errors
    /// [`Error::NoGpu`] with the reason when there is no usable GPU; kernel compile errors.
    pub fn open(ordinal: usize, kernel_cache: Option<&Path>) -> Result<Device> {
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
        // One stream orders everything, so cudarc's per-buffer events are not needed.
        // SAFETY: no buffer exists yet, and gsi uses only this context's default stream.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("reading the compute capability"))?;
        let arch = format!("sm_{major}{minor}");
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let kernels = Kernels::load(&ctx, &arch, kernel_cache)?;
        let stream = ctx.default_stream();
        Ok(Device {
            ctx,
            stream,
            kernels,
            arch,
            name,
        })
    }

    /// The function of `kernel`, for its typed wrapper.
    pub(crate) fn kernel(&self, kernel: Kernel) -> Result<&CudaFunction> {
        self.kernels.get(kernel)
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.ctx
            .mem_get_info()
            .map_err(driver("reading free memory"))
    }

    /// Copies `data` to a new device buffer (at least one element long).
    pub(crate) fn upload<T: DeviceRepr + Default + Clone>(
        &self,
        data: &[T],
        what: &str,
    ) -> Result<CudaSlice<T>> {
        let err = driver(format!(
            "uploading {what} ({} bytes)",
            std::mem::size_of_val(data)
        ));
        if data.is_empty() {
            return self.stream.clone_htod(&[T::default()]).map_err(err);
        }
        self.stream.clone_htod(data).map_err(err)
    }

    /// A new device buffer of `len` (at least one) elements whose contents are not initialised.
    pub(crate) fn alloc(&self, len: usize, what: &str) -> Result<CudaSlice<u32>> {
        // SAFETY: every caller writes each element it later reads.
        unsafe { self.stream.alloc::<u32>(len.max(1)) }.map_err(driver(format!(
            "allocating {what} ({} bytes)",
            4 * len.max(1)
        )))
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
