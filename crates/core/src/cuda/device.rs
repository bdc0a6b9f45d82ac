//! Finding and opening a GPU. cudarc panics when libcuda or libnvrtc is missing, so both are
//! probed first and their absence becomes an ordinary error with a reason.

use std::sync::Arc;

use cudarc::driver::{sys as driver_sys, CudaContext, CudaSlice, CudaStream, DeviceRepr};

use super::modules::{nvrtc_present, Kernels};
use crate::{Error, Result};

/// Wraps a driver error with what gsi was doing.
pub(crate) fn gpu_error(
    what: impl Into<String>,
) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    let what = what.into();
    move |e| Error::Gpu {
        what,
        message: e.to_string(),
    }
}

/// Why no GPU can be used, or `Ok` when the libraries are there.
pub fn probe() -> std::result::Result<(), String> {
    // SAFETY: only tries to open the library.
    if !unsafe { driver_sys::is_culib_present() } {
        return Err("no NVIDIA driver found (libcuda.so could not be loaded)".into());
    }
    if !nvrtc_present() {
        return Err("NVRTC not found (libnvrtc.so could not be loaded); install the CUDA runtime compiler, e.g. `pip install nvidia-cuda-nvrtc`, and add its lib folder to LD_LIBRARY_PATH".into());
    }
    Ok(())
}

/// An open GPU with its stream and loaded kernels.
pub struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) kernels: Kernels,
    /// `sm_XY`.
    pub(crate) arch: String,
    /// The device's name.
    pub(crate) name: String,
}

impl Device {
    /// Opens GPU `ordinal` and loads the kernels (compiling them on first use).
    ///
    /// # Errors
    /// [`Error::NoGpu`] with the reason when there is no usable GPU.
    pub fn open(ordinal: usize) -> Result<Device> {
        probe().map_err(Error::NoGpu)?;
        let count = CudaContext::device_count()
            .map_err(|e| Error::NoGpu(format!("the NVIDIA driver cannot list devices: {e}")))?;
        if count <= 0 {
            return Err(Error::NoGpu("the NVIDIA driver reports no GPU".into()));
        }
        if ordinal >= count as usize {
            return Err(Error::NoGpu(format!(
                "--device {ordinal}: this machine has {count} GPU(s), numbered from 0"
            )));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::NoGpu(format!("cannot open GPU {ordinal}: {e}")))?;
        // One stream orders everything, so cudarc's per-buffer events are not needed.
        // SAFETY: no buffer exists yet, and gsi uses only this context's default stream.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(gpu_error("reading the compute capability"))?;
        let arch = format!("sm_{major}{minor}");
        let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
        let kernels = Kernels::load(&ctx, &arch)?;
        let stream = ctx.default_stream();
        Ok(Device {
            ctx,
            stream,
            kernels,
            arch,
            name,
        })
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.ctx
            .mem_get_info()
            .map_err(gpu_error("reading free memory"))
    }

    /// Copies `data` to a new device buffer (at least one element long).
    pub(crate) fn upload<T: DeviceRepr + Default + Clone>(
        &self,
        data: &[T],
        what: &str,
    ) -> Result<CudaSlice<T>> {
        let err = gpu_error(format!(
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
        unsafe { self.stream.alloc::<u32>(len.max(1)) }.map_err(gpu_error(format!(
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
            .map_err(gpu_error(format!("reading {what}")))
    }
}
