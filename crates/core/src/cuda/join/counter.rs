//! The device's match counter, as `join.cu`'s `add_to_total` keeps it: a count modulo 2^128
//! in two words, low first, then a word the kernels set once the count, or a product within
//! it, passed 2^128 − 1.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use crate::cuda::buffers::Buffer;
use crate::cuda::device::Device;
use crate::error::{driver, Error, Result};

const WORDS: usize = 3;

/// A zeroed counter.
pub(super) fn zeroed(device: &Device) -> Result<Buffer<u64>> {
    device.zeros(WORDS, "the match counter")
}

/// The count in `counter`.
///
/// # Errors
/// [`Error::CountBeyond128Bits`] when it passed 2^128 − 1; driver failures.
pub(super) fn read(stream: &Arc<CudaStream>, counter: &CudaSlice<u64>) -> Result<u128> {
    let words = stream
        .clone_dtoh(counter)
        .map_err(driver("reading the match count"))?;
    if words[2] != 0 {
        return Err(Error::CountBeyond128Bits);
    }
    Ok(u128::from(words[1]) << 64 | u128::from(words[0]))
}
