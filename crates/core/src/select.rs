//! Choosing an engine: the CPU, the GPU, or `auto` (the GPU where it pays, else the CPU).

use crate::auto::AutoEngine;
use crate::config::EngineConfig;
use crate::cpu::CpuEngine;
use crate::cuda::GpuEngine;
use crate::engine::{Engine, Notice};
use crate::error::Result;

/// Which engine answers queries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The CPU engine.
    Cpu,
    /// The GPU engine.
    Gpu,
    /// Per query, the faster of the two where a GPU is usable, else the CPU.
    Auto,
}

/// An open engine, with what the user should hear of its opening.
pub struct Opened {
    /// The engine.
    pub engine: Box<dyn Engine>,
    /// Why the engine is not the one asked for (`auto` without a GPU), if so.
    pub notice: Option<Notice>,
}

/// Opens the engine of `kind`.
///
/// # Errors
/// [`crate::Error::NoGpu`] when the GPU engine was asked for and cannot run; `auto` never
/// fails for lack of a GPU but says in its notice that it runs on the CPU, and why.
pub fn open(kind: EngineKind, config: &EngineConfig) -> Result<Opened> {
    let (engine, notice): (Box<dyn Engine>, _) = match kind {
        EngineKind::Cpu => (Box::new(CpuEngine::new(config.tuning.cpu)), None),
        EngineKind::Gpu => (Box::new(GpuEngine::open(config)?), None),
        EngineKind::Auto => match GpuEngine::open(config) {
            Ok(gpu) => (Box::new(AutoEngine::new(gpu, config)), None),
            Err(err) => (
                Box::new(CpuEngine::new(config.tuning.cpu)),
                Some(Notice::NoGpu(err)),
            ),
        },
    };
    Ok(Opened { engine, notice })
}
