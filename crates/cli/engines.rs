//! Opening the engine a command asked for, with the note `auto` leaves when it falls back.

use anyhow::Result;
use gsi_core::cuda::GpuEngine;
use gsi_core::{Engine, EngineKind};

use crate::config::EngineChoice;

/// An open engine.
pub struct Opened {
    pub engine: Box<dyn Engine>,
    /// The GPU's name and architecture, where known (`--engine gpu`).
    pub gpu: Option<String>,
}

/// Opens the engine of `choice` and starts its worker threads; prints the fallback note of
/// `auto` on stderr when `notes`.
pub fn open(choice: &EngineChoice, notes: bool) -> Result<Opened> {
    crate::config::start_threads(choice.threads)?;
    if choice.kind == EngineKind::Gpu {
        // Opened here rather than through `select`, to learn the device's name.
        return match GpuEngine::open(choice.device) {
            Ok(gpu) => Ok(Opened {
                gpu: Some(gpu.describe()),
                engine: Box::new(gpu),
            }),
            Err(gsi_core::Error::NoGpu(reason)) => Err(gsi_core::Error::NoGpu(format!(
                "--engine gpu: {reason}; use --engine cpu or auto"
            ))
            .into()),
            Err(other) => Err(other.into()),
        };
    }
    let selected = gsi_core::engine::select(choice.kind, choice.device)?;
    if let (Some(note), true) = (&selected.note, notes) {
        eprintln!("gsi: {note}");
    }
    Ok(Opened {
        engine: selected.engine,
        gpu: None,
    })
}
