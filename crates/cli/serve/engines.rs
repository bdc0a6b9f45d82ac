//! The engines queries run on: one per query under way, opened as queries need them (each
//! readied on the index) and kept for the next; admission bounds how many.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use gsi_core::{DataIndex, Engine, EngineConfig, EngineKind};

use crate::config::EngineChoice;

pub struct Engines {
    kind: EngineKind,
    config: EngineConfig,
    idle: Mutex<Vec<Box<dyn Engine>>>,
    /// Bytes of the index on the device: one copy, which the engines of one GPU share.
    device_bytes: AtomicUsize,
}

impl Engines {
    /// The pool of `opened` (readied already), growing with engines of `choice`.
    pub fn new(opened: Vec<Box<dyn Engine>>, choice: &EngineChoice) -> Engines {
        let device_bytes = opened.iter().map(|e| e.device_index_bytes()).max();
        Engines {
            kind: choice.kind,
            config: choice.config.clone(),
            idle: Mutex::new(opened),
            device_bytes: AtomicUsize::new(device_bytes.unwrap_or(0)),
        }
    }

    /// An idle engine, or a new one readied on `index`; it goes back when dropped.
    ///
    /// # Errors
    /// Opening or readying a new engine failed.
    pub fn take(&self, index: &DataIndex) -> gsi_core::Result<Lent<'_>> {
        let idle = self.lock().pop();
        let engine = match idle {
            Some(engine) => engine,
            None => {
                let mut engine = gsi_core::open(self.kind, &self.config)?.engine;
                engine.prepare(index)?;
                let bytes = engine.device_index_bytes();
                self.device_bytes.fetch_max(bytes, Ordering::Relaxed);
                engine
            }
        };
        Ok(Lent {
            pool: self,
            engine: Some(engine),
        })
    }

    /// Bytes of the index on the device (0 on the CPU).
    pub fn device_bytes(&self) -> usize {
        self.device_bytes.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Box<dyn Engine>>> {
        self.idle
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// An engine out of the pool.
pub struct Lent<'p> {
    pool: &'p Engines,
    engine: Option<Box<dyn Engine>>,
}

impl Lent<'_> {
    pub fn engine(&mut self) -> &mut dyn Engine {
        self.engine.as_mut().expect("a lent engine").as_mut()
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(engine) = self.engine.take() {
            self.pool.lock().push(engine);
        }
    }
}
