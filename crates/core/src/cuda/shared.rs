//! What the GPU engines of one process that open the same GPU share (`gsi serve`'s engines,
//! the Python package's threads, `--devices 0,0`): the data index, uploaded once and only
//! read after, so that N engines do not hold N copies; and how many of them are joining at
//! once, so that each plans with its part of the free memory rather than all of it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::index::DeviceIndex;
use crate::config::ListIndex;
use crate::error::Result;

/// Which upload of a data index engines may share: the data index's id, and the options
/// that shape its upload (the list layout asked for, the resident bytes asked for).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexKey {
    pub data: u64,
    pub list_index: Option<ListIndex>,
    pub resident_limit: Option<usize>,
}

/// One GPU's shared state.
#[derive(Default)]
pub(crate) struct SharedGpu {
    /// The indexes uploaded, held by the engines that use them (gone with the last).
    indexes: Mutex<Vec<(IndexKey, Weak<DeviceIndex>)>>,
    /// Engines of this GPU in a join now.
    joining: AtomicUsize,
}

/// The GPUs opened by this process, by ordinal.
static GPUS: Mutex<Vec<(usize, Weak<SharedGpu>)>> = Mutex::new(Vec::new());

impl SharedGpu {
    /// GPU `ordinal`'s shared state, made by its first engine.
    pub(crate) fn of(ordinal: usize) -> Arc<SharedGpu> {
        let mut gpus = GPUS.lock().unwrap_or_else(PoisonError::into_inner);
        gpus.retain(|(_, gpu)| gpu.strong_count() > 0);
        if let Some(gpu) = gpus
            .iter()
            .find(|(o, _)| *o == ordinal)
            .and_then(|(_, gpu)| gpu.upgrade())
        {
            return gpu;
        }
        let gpu = Arc::new(SharedGpu::default());
        gpus.push((ordinal, Arc::downgrade(&gpu)));
        gpu
    }

    /// The index `key` names, made by `upload` unless another engine of this GPU holds it
    /// already; an engine asking while another uploads waits for that upload. `upload` must
    /// return an index whose copies have finished, so that any stream may read it.
    pub(crate) fn index(
        &self,
        key: IndexKey,
        upload: impl FnOnce() -> Result<DeviceIndex>,
    ) -> Result<Arc<DeviceIndex>> {
        let mut indexes = self.indexes.lock().unwrap_or_else(PoisonError::into_inner);
        indexes.retain(|(_, index)| index.strong_count() > 0);
        if let Some(index) = indexes
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, index)| index.upgrade())
        {
            return Ok(index);
        }
        let index = Arc::new(upload()?);
        indexes.push((key, Arc::downgrade(&index)));
        Ok(index)
    }

    /// Counts a join under way on this GPU until the guard drops.
    pub(crate) fn join_begins(&self) -> Joining<'_> {
        self.joining.fetch_add(1, Ordering::Relaxed);
        Joining(&self.joining)
    }
}

/// A join counted in [`SharedGpu::join_begins`].
pub(crate) struct Joining<'g>(&'g AtomicUsize);

impl Joining<'_> {
    /// The engines of this GPU in a join now, this one included.
    pub(crate) fn at_once(&self) -> usize {
        self.0.load(Ordering::Relaxed).max(1)
    }
}

impl Drop for Joining<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
