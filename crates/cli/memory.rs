//! What happens when an allocation fails: gsi ends with a message and exit code 1, not an
//! abort. How much memory the process may use is gsi-core's (`gsi_core::memory`).

use std::alloc::{GlobalAlloc, Layout, System};

pub use gsi_core::memory::process_limit;

/// The system allocator, ending gsi with a message instead of an abort when it fails.
pub struct ReportingAllocator;

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl GlobalAlloc for ReportingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is the system allocator's.
        let ptr = unsafe { System.alloc(layout) };
        if ptr.is_null() {
            out_of_memory(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if ptr.is_null() {
            out_of_memory(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if new.is_null() {
            out_of_memory(new_size);
        }
        new
    }
}

/// Says that `bytes` could not be allocated and ends the process with exit code 1. Nothing
/// here allocates or takes a lock: the message is put together on the stack and written
/// with one system call.
fn out_of_memory(bytes: usize) -> ! {
    let mut message = [0u8; 200];
    let mut len = 0;
    let mut put = |part: &[u8]| {
        let n = part.len().min(message.len() - len);
        message[len..len + n].copy_from_slice(&part[..n]);
        len += n;
    };
    put(b"gsi: out of memory: an allocation of ");
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = bytes;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    put(&digits[at..]);
    put(b" bytes failed; give a smaller --memory-limit or free memory\n");
    // SAFETY: writes `len` initialised bytes to stderr, then ends the process without
    // running anything else (no destructor, no handler that might allocate).
    unsafe {
        libc::write(2, message.as_ptr().cast(), len);
        libc::_exit(1)
    }
}
