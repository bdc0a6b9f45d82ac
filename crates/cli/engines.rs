//! Opening the engine a command asked for, with the note `auto` leaves when it falls back.

use anyhow::Result;
use gsi_core::Engine;

use crate::config::EngineChoice;

/// An open engine.
pub struct Opened {
    pub engine: Box<dyn Engine>,
    /// The GPU's name and architecture, when the engine uses one.
    pub gpu: Option<String>,
}

/// Opens the engine of `choice` and starts its worker threads; prints the fallback note of
/// `auto` on stderr when `notes`.
pub fn open(choice: &EngineChoice, notes: bool) -> Result<Opened> {
    crate::config::start_threads(choice.threads)?;
    let selected = gsi_core::engine::select(choice.kind, choice.device)?;
    if let (Some(note), true) = (&selected.note, notes) {
        eprintln!("gsi: {note}");
    }
    Ok(Opened {
        gpu: selected.engine.device(),
        engine: selected.engine,
    })
}
