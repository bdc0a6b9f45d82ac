//! Signals: SIGINT, SIGTERM and SIGHUP ask gsi to stop cleanly, SIGBUS means an input file
//! shrank.
//!
//! - The first SIGINT, SIGTERM or SIGHUP sets the interrupt flag: the query under way stops
//!   at its next check, no other query starts, the summary says `interrupted`, and gsi exits
//!   with 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP). A second one ends gsi at once, with the
//!   same code.
//! - Input files are memory-mapped; when one is truncated while gsi reads it, the kernel
//!   sends SIGBUS. gsi then says which file changed and exits with 2 (bad input), where it
//!   would otherwise die without a word.

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use signal_hook::consts::{SIGBUS, SIGHUP, SIGINT, SIGTERM};

use crate::exit::Exit;

/// The interrupt flag, and which signal set it.
#[derive(Clone)]
pub struct Interrupt {
    flag: Arc<AtomicBool>,
    terminated: Arc<AtomicBool>,
    hung_up: Arc<AtomicBool>,
}

impl Interrupt {
    /// The flag the engines watch.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.flag)
    }

    /// Whether a signal asked gsi to stop.
    pub fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The exit code for a run that was interrupted: 129 after SIGHUP, 143 after SIGTERM,
    /// else 130.
    pub fn exit(&self) -> Exit {
        if self.hung_up.load(Ordering::Relaxed) {
            Exit::HungUp
        } else if self.terminated.load(Ordering::Relaxed) {
            Exit::Terminated
        } else {
            Exit::Interrupted
        }
    }
}

/// Catches SIGINT, SIGTERM and SIGHUP for a command that watches the returned flag (commands that
/// do not keep the default: the first signal ends them).
pub fn interrupt() -> Result<Interrupt> {
    let flag = Arc::new(AtomicBool::new(false));
    let terminated = Arc::new(AtomicBool::new(false));
    let hung_up = Arc::new(AtomicBool::new(false));
    let register = || -> std::io::Result<()> {
        for (signal, code) in [
            (SIGINT, Exit::Interrupted),
            (SIGTERM, Exit::Terminated),
            (SIGHUP, Exit::HungUp),
        ] {
            // A second signal, with the flag already set, ends the process at once.
            signal_hook::flag::register_conditional_shutdown(signal, code as i32, flag.clone())?;
            signal_hook::flag::register(signal, flag.clone())?;
        }
        signal_hook::flag::register(SIGTERM, terminated.clone())?;
        signal_hook::flag::register(SIGHUP, hung_up.clone())?;
        Ok(())
    };
    register().context("installing the signal handlers")?;
    Ok(Interrupt {
        flag,
        terminated,
        hung_up,
    })
}

/// Catches SIGBUS, which a memory-mapped input file that shrinks raises.
pub fn watch_file_changes() -> Result<()> {
    extern "C" fn on_bus(_: libc::c_int) {
        file_changed();
    }
    // SAFETY: the handler only reads an atomic pointer, writes to stderr and calls `_exit`,
    // all async-signal-safe; it never returns, so the faulting read is not retried.
    // SA_NODEFER: a fault taken while SIGBUS is being handled reaches the handler again;
    // blocked, the kernel would kill gsi by SIGBUS instead (seen in 5 of 1,368 runs of
    // `gsi info` on a file truncated while read, on a loaded 2-core machine; 0 of 1,512 with
    // the flag).
    let installed = unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_NODEFER;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(SIGBUS, &action, std::ptr::null_mut())
    };
    if installed != 0 {
        return Err(std::io::Error::last_os_error()).context("installing the signal handlers");
    }
    Ok(())
}

/// The path of the file being read, for the SIGBUS message (a leaked C string: one per
/// file read, a few bytes each).
static READING: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Records that `path` is being read, so that a SIGBUS can name it.
pub fn reading(path: &Path) {
    let text = crate::exit::shown(path);
    if let Ok(c) = CString::new(text) {
        READING.store(c.into_raw(), Ordering::Release);
    }
}

fn file_changed() {
    let write = |bytes: &[u8]| {
        // SAFETY: writes initialised bytes to stderr.
        unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
    };
    write(b"gsi: ");
    let path = READING.load(Ordering::Acquire);
    if !path.is_null() {
        // SAFETY: `path` came from `CString::into_raw` and is never freed.
        let bytes = unsafe { std::ffi::CStr::from_ptr(path) }.to_bytes();
        write(bytes);
        write(b": ");
    }
    write(b"the file shrank while gsi was reading it (another program truncated or replaced it); read a file that stays put\n");
    // SAFETY: ends the process at once, as a signal handler may.
    unsafe { libc::_exit(Exit::BadInput as i32) }
}
