//! Which queries run: at most `--max-concurrent` at once, up to `--queue` more waiting for
//! their turn, the rest refused; and the stop flag of each query under way, which the
//! server's stop sets.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

pub struct Admission {
    turns: Arc<Semaphore>,
    /// Requests that may wait for a turn.
    queue: usize,
    waiting: AtomicUsize,
    /// The interrupt flag of each query under way, by number.
    running: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    next: AtomicU64,
    stopping: AtomicBool,
}

/// Why a query was not let in.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The queue is full.
    Busy,
    /// Its deadline passed while it waited.
    Timeout,
    /// The server is stopping.
    Stopping,
}

impl Admission {
    pub fn new(concurrent: usize, queue: usize) -> Admission {
        Admission {
            turns: Arc::new(Semaphore::new(concurrent)),
            queue,
            waiting: AtomicUsize::new(0),
            running: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
        }
    }

    /// A turn to run, waited for until `deadline` in the queue if it has room.
    pub async fn enter(self: &Arc<Self>, deadline: Instant) -> Result<Turn, Refusal> {
        if self.stopping.load(Ordering::Relaxed) {
            return Err(Refusal::Stopping);
        }
        let permit = match Arc::clone(&self.turns).try_acquire_owned() {
            Ok(permit) => permit,
            Err(tokio::sync::TryAcquireError::Closed) => return Err(Refusal::Stopping),
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                let _waiting = Waiting::join(self)?;
                let acquire = Arc::clone(&self.turns).acquire_owned();
                match tokio::time::timeout_at(deadline, acquire).await {
                    Ok(Ok(permit)) => permit,
                    Ok(Err(_closed)) => return Err(Refusal::Stopping),
                    Err(_elapsed) => return Err(Refusal::Timeout),
                }
            }
        };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let interrupt = Arc::new(AtomicBool::new(self.stopping.load(Ordering::Relaxed)));
        self.lock().insert(id, Arc::clone(&interrupt));
        Ok(Turn {
            admission: Arc::clone(self),
            id,
            interrupt,
            _permit: permit,
        })
    }

    /// Queries under way.
    pub fn running(&self) -> usize {
        self.lock().len()
    }

    /// Requests waiting for a turn.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Whether the server is stopping.
    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    /// Interrupts every query under way and refuses the others.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.turns.close();
        for flag in self.lock().values() {
            flag.store(true, Ordering::Relaxed);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<AtomicBool>>> {
        self.running
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// A place in the queue, left when dropped (its request answered or gone).
struct Waiting<'a>(&'a Admission);

impl<'a> Waiting<'a> {
    fn join(admission: &'a Admission) -> Result<Waiting<'a>, Refusal> {
        let ahead = admission.waiting.fetch_add(1, Ordering::Relaxed);
        let place = Waiting(admission);
        if ahead >= admission.queue {
            return Err(Refusal::Busy);
        }
        Ok(place)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A query's turn to run, with its interrupt flag; the turn passes on when dropped.
pub struct Turn {
    admission: Arc<Admission>,
    id: u64,
    interrupt: Arc<AtomicBool>,
    _permit: OwnedSemaphorePermit,
}

impl Turn {
    /// The flag that stops the query: set by the server's stop, or by its client going away.
    pub fn interrupt(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.interrupt)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.admission.lock().remove(&self.id);
    }
}
