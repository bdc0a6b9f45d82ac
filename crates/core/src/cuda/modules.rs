//! Compiling the `.cu` modules with NVRTC straight to CUBIN for the device's own `sm_XY`,
//! cached on disk by a hash of source, architecture, options and NVRTC version (CUBIN, unlike
//! PTX from a newer NVRTC, loads on an older driver), and loading their functions.

use std::ffi::CString;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};
use gsi_kernels::{Kernel, KernelModule};

use super::launch;
use super::libraries::check_nvrtc;
use crate::error::{driver, Error, Result};
use crate::kernel_cache;

/// A build of the kernels: the standard one, or the wide one for plans wider than
/// [`launch::MAX_WIDTH`], whose join kernels read a row where it lies in the table instead of
/// copying it into shared memory (`WIDE_TABLES` in `join.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Build {
    /// Every module, rows of at most `MAX_WIDTH` columns kept in shared memory.
    Standard,
    /// The join module alone, for tables of any width.
    Wide,
}

impl Build {
    /// Both builds.
    pub const ALL: [Build; 2] = [Build::Standard, Build::Wide];

    /// The modules the build compiles.
    pub fn modules(self) -> &'static [KernelModule] {
        match self {
            Build::Standard => &KernelModule::ALL,
            Build::Wide => &[KernelModule::Join],
        }
    }
}

fn compile_error(module: KernelModule, log: String) -> Error {
    Error::Compile {
        module: module.file_name(),
        log,
    }
}

/// NVRTC's version, as (major, minor).
fn nvrtc_version() -> (i32, i32) {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is present (checked by callers); the pointers are valid.
    unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
    (major, minor)
}

/// Compiles `module` to CUBIN for `arch` (such as `sm_90`), as `build` builds it.
///
/// # Errors
/// [`Error::Compile`] with NVRTC's log when the source does not compile.
pub fn compile_cubin(module: KernelModule, arch: &str, build: Build) -> Result<Vec<u8>> {
    check_nvrtc().map_err(|reason| compile_error(module, reason.to_string()))?;
    let source = CString::new(module.source()).expect("kernel sources hold no NUL");
    let name = CString::new(module.file_name()).expect("no NUL");
    let mut options = launch::defines(build == Build::Wide);
    options.push(format!("--gpu-architecture={arch}"));
    options.push("--std=c++17".into());
    // join.cu counts in 128 bits (`unsigned __int128`).
    options.push("--device-int128".into());
    let prog = nvrtc::create_program(&source, Some(&name))
        .map_err(|e| compile_error(module, format!("{e:?}")))?;
    // SAFETY: `prog` was created above and is destroyed once, below.
    let compiled = unsafe { nvrtc::compile_program(prog, &options) };
    let result = match compiled {
        Err(e) => {
            // SAFETY: `prog` is live.
            let log = unsafe { nvrtc::get_program_log(prog) }
                .map(|chars| {
                    let bytes: Vec<u8> = chars
                        .iter()
                        .map(|&c| c as u8)
                        .take_while(|&b| b != 0)
                        .collect();
                    String::from_utf8_lossy(&bytes).into_owned()
                })
                .unwrap_or_default();
            Err(compile_error(module, format!("{e:?}\n{log}")))
        }
        Ok(()) => {
            let mut size = 0usize;
            // SAFETY: `prog` compiled; `size` is a valid out-pointer; the buffer has `size` bytes.
            unsafe {
                nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .map_err(|e| compile_error(module, format!("{e:?}")))?;
                let mut cubin = vec![0u8; size];
                nvrtc_sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast())
                    .result()
                    .map_err(|e| compile_error(module, format!("{e:?}")))?;
                Ok(cubin)
            }
        }
    };
    // SAFETY: `prog` is live and not used after this.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    result
}

/// The CUBIN of `module` for `arch` as `build` builds it, from the disk cache in `cache` or
/// freshly compiled (then cached; a cache that cannot be written only costs the next run a
/// compile).
pub fn cached_cubin(
    module: KernelModule,
    arch: &str,
    cache: Option<&Path>,
    build: Build,
) -> Result<Vec<u8>> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (
        module.source(),
        arch,
        launch::defines(build == Build::Wide),
        nvrtc_version(),
    )
        .hash(&mut hasher);
    let name = format!(
        "{}-{arch}-{:016x}.cubin",
        module.file_name(),
        hasher.finish()
    );
    if let Some(bytes) = cache.and_then(|dir| kernel_cache::read(dir, &name)) {
        return Ok(bytes);
    }
    let cubin = compile_cubin(module, arch, build)?;
    if let Some(dir) = cache {
        let _ = kernel_cache::write(dir, &name, &cubin);
    }
    Ok(cubin)
}

/// Every kernel function of one build, loaded into one context, by [`Kernel`] id.
pub struct Kernels {
    functions: Vec<Option<CudaFunction>>,
}

impl Kernels {
    /// Compiles (or reads from the cache in `cache`) and loads every module of `build` for
    /// `arch`.
    pub fn load(
        ctx: &Arc<CudaContext>,
        arch: &str,
        cache: Option<&Path>,
        build: Build,
    ) -> Result<Kernels> {
        let mut functions = vec![None; Kernel::ALL.len()];
        for &module in build.modules() {
            let cubin = cached_cubin(module, arch, cache, build)?;
            let loaded = ctx
                .load_module(Ptx::from_binary(cubin))
                .map_err(driver(format!("loading {}", module.file_name())))?;
            for kernel in module.kernels() {
                // A kernel the module (or the build) lacks stays `None`: `get` reports it
                // when it is used.
                functions[kernel as usize] = loaded.load_function(kernel.name()).ok();
            }
        }
        Ok(Kernels { functions })
    }

    /// The function of `kernel`.
    ///
    /// # Errors
    /// [`Error::MissingKernel`] when its module did not define it.
    pub fn get(&self, kernel: Kernel) -> Result<&CudaFunction> {
        self.functions[kernel as usize]
            .as_ref()
            .ok_or(Error::MissingKernel {
                name: kernel.name(),
                module: kernel.module().file_name(),
            })
    }
}
