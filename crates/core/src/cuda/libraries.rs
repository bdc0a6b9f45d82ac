//! The CUDA libraries cudarc loads at run time, and the functions gsi needs of each. cudarc
//! panics when a library or one of its functions is missing, so both are checked before first
//! use and their absence becomes an ordinary error with a reason.

use cudarc::driver::sys as driver_sys;
use cudarc::nvrtc::sys as nvrtc_sys;
use libloading::Library;

use crate::error::NoGpu;

/// The driver functions cudarc calls for gsi.
const DRIVER_FUNCTIONS: &[&str] = &[
    "cuInit",
    "cuGetErrorString",
    "cuGetErrorName",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolSetAttribute",
    "cuMemPoolGetAttribute",
    "cuMemPoolTrimTo",
    "cuMemGetInfo_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuLaunchKernel",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy_v2",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventDestroy_v2",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
];

/// The NVRTC functions cudarc calls for gsi.
const NVRTC_FUNCTIONS: &[&str] = &[
    "nvrtcVersion",
    "nvrtcGetErrorString",
    "nvrtcCreateProgram",
    "nvrtcCompileProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
    "nvrtcDestroyProgram",
];

/// The first of `functions` that `library` lacks.
fn first_missing(library: &Library, functions: &[&'static str]) -> Option<&'static str> {
    functions.iter().copied().find(|name| {
        // SAFETY: the symbol is only looked up, never called.
        unsafe { library.get::<*const ()>(name.as_bytes()) }.is_err()
    })
}

/// `Ok` when libcuda loads and has every function gsi calls.
///
/// # Errors
/// [`NoGpu::NoDriver`] or [`NoGpu::MissingFunction`].
pub fn check_driver() -> Result<(), NoGpu> {
    // SAFETY: only opens the library.
    if !unsafe { driver_sys::is_culib_present() } {
        return Err(NoGpu::NoDriver);
    }
    // SAFETY: the library loads (checked above), so `culib` returns it.
    match first_missing(unsafe { driver_sys::culib() }, DRIVER_FUNCTIONS) {
        Some(function) => Err(NoGpu::MissingFunction {
            library: "libcuda",
            function,
        }),
        None => Ok(()),
    }
}

/// `Ok` when libnvrtc loads and has every function gsi calls.
///
/// # Errors
/// [`NoGpu::NoNvrtc`] or [`NoGpu::MissingFunction`].
pub fn check_nvrtc() -> Result<(), NoGpu> {
    // SAFETY: only opens the library.
    if !unsafe { nvrtc_sys::is_culib_present() } {
        return Err(NoGpu::NoNvrtc);
    }
    // SAFETY: the library loads (checked above), so `culib` returns it.
    match first_missing(unsafe { nvrtc_sys::culib() }, NVRTC_FUNCTIONS) {
        Some(function) => Err(NoGpu::MissingFunction {
            library: "libnvrtc",
            function,
        }),
        None => Ok(()),
    }
}
