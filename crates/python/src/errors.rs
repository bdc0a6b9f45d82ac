//! gsi's typed errors as Python exceptions, with the messages the `gsi` command prints.
//!
//! The exception classes live in `gsi.errors` (plain Python, so that they can derive from
//! both `gsi.GsiError` and the built-in class a caller may catch instead, such as
//! `ValueError`); this module builds their instances.

use pyo3::call::PyCallArgs;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError};
use pyo3::prelude::*;

/// An instance of `gsi.errors.<class>` made from `args`, as a `PyErr` to raise.
pub fn raise<'py>(py: Python<'py>, class: &str, args: impl PyCallArgs<'py>) -> PyErr {
    let made = py
        .import("gsi.errors")
        .and_then(|module| module.getattr(class))
        .and_then(|class| class.call1(args));
    match made {
        Ok(value) => PyErr::from_value(value),
        Err(err) => err,
    }
}

/// `gsi.GsiError` with `message`.
pub fn gsi_error(py: Python<'_>, message: String) -> PyErr {
    raise(py, "GsiError", (message,))
}

/// A graph reader's or builder's error: `FormatError` for a malformed file (with its path
/// and line), `OSError` for a file that cannot be read, `MemoryError` for a graph too large
/// to allocate, `GraphError` for an inconsistent graph.
pub fn graph_error(py: Python<'_>, err: gsi_graph::Error) -> PyErr {
    use gsi_graph::Error;
    let message = err.to_string();
    match err {
        Error::Parse { path, line, .. } => raise(
            py,
            "FormatError",
            (message, path.display().to_string(), Some(line)),
        ),
        Error::Invalid { path, .. } => raise(
            py,
            "FormatError",
            (message, path.display().to_string(), None::<usize>),
        ),
        Error::Io { path, source } | Error::Write { path, source } => {
            os_error(&source, &path.display().to_string())
        }
        Error::OutOfMemory { .. } => PyMemoryError::new_err(message),
        _ => raise(py, "GraphError", (message,)),
    }
}

/// An `OSError` of the subclass Python gives `source`'s error number (`FileNotFoundError`,
/// `PermissionError`, ...), naming `path`.
fn os_error(source: &std::io::Error, path: &str) -> PyErr {
    let text = source.to_string();
    match source.raw_os_error() {
        Some(code) => {
            // Rust appends " (os error N)"; Python prints the number itself.
            let suffix = format!(" (os error {code})");
            let text = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
            PyOSError::new_err((code, text, path.to_string()))
        }
        None => PyOSError::new_err(format!("{path}: {text}")),
    }
}

/// An engine's error: `GpuError` for what stops the GPU engine (with the advice the `gsi`
/// command gives, in this package's words), `GraphError` for queries that cannot be matched.
pub fn core_error(py: Python<'_>, err: gsi_core::Error) -> PyErr {
    core_error_in(py, err, "")
}

/// As [`core_error`], the message after `context` (what was being done) where there is one.
pub fn core_error_in(py: Python<'_>, err: gsi_core::Error, context: &str) -> PyErr {
    use gsi_core::{Error, NoGpu};
    let message = match context {
        "" => err.to_string(),
        context => format!("{context}: {err}"),
    };
    let advice = match &err {
        Error::NoGpu(NoGpu::NoSuchDevice { .. }) => Some("choose one with device=N"),
        Error::MemoryLimit { .. } => Some(
            "pass limit=, a larger memory_limit=, or read the matches as they come with matches()",
        ),
        Error::NoGpu(_) | Error::GpuIndexTooLarge { .. } => Some("use engine='cpu' or 'auto'"),
        _ => None,
    };
    let message = match advice {
        Some(advice) => format!("{message}; {advice}"),
        None => message,
    };
    match err {
        Error::Saved(err) => graph_error(py, err),
        Error::EmptyQuery | Error::DirectionMismatch | Error::GraphTooLarge(_) => {
            raise(py, "GraphError", (message,))
        }
        Error::NoGpu(_)
        | Error::GpuIndexTooLarge { .. }
        | Error::Driver { .. }
        | Error::Compile { .. }
        | Error::MissingKernel { .. } => raise(py, "GpuError", (message,)),
        Error::MemoryLimit { budget, .. } => raise(py, "MemoryLimitExceeded", (message, budget)),
        _ => gsi_error(py, message),
    }
}

/// The error for a matching thread that ended without an answer (a panic in the engine).
pub fn lost_worker() -> PyErr {
    PyRuntimeError::new_err(
        "the matching thread stopped without an answer (an internal error; please report it)",
    )
}
