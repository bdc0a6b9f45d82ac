//! How one query is run and how it ended: the values that the engines and the join driver
//! share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What counts as a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Semantics {
    /// Injective (Definition 3 of the paper): distinct query vertices, distinct data vertices.
    #[default]
    Isomorphism,
    /// No injectivity: the join skips the set subtraction (Sec. 7, "Extensions").
    Homomorphism,
}

/// How one query is run.
#[derive(Clone, Debug)]
pub struct MatchOptions {
    /// Isomorphism or homomorphism.
    pub semantics: Semantics,
    /// Stop after this many matches.
    pub limit: Option<u64>,
    /// Give up at this instant.
    pub deadline: Option<Instant>,
    /// Bytes the join's tables and buffers may hold at once; larger work is split in chunks.
    pub memory_budget: usize,
    /// Stop as soon as this is set (the caller was asked to stop, say by a signal).
    pub interrupt: Option<Arc<AtomicBool>>,
    /// When only the count is wanted, finish depth-first from a step with at least this many
    /// rows: `None` leaves it to the engine, `Some(0)` goes depth-first at once, `Some(usize::MAX)`
    /// never (a switch for tests and measurements).
    pub depth_first_rows: Option<usize>,
    /// Join leaves and isolated query vertices last, and count them as products
    /// ([`crate::plan::LeafSuffix`]); off for tests and measurements of the plain join.
    pub postpone_leaves: bool,
}

impl Default for MatchOptions {
    fn default() -> MatchOptions {
        MatchOptions {
            semantics: Semantics::Isomorphism,
            limit: None,
            deadline: None,
            memory_budget: 1 << 30,
            interrupt: None,
            depth_first_rows: None,
            postpone_leaves: true,
        }
    }
}

impl MatchOptions {
    /// Why the search must stop now, if it must: [`Status::Interrupted`] when the interrupt
    /// is set, [`Status::Timeout`] when the deadline has passed.
    pub fn stop(&self) -> Option<Status> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            Some(Status::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Status::Timeout)
        } else {
            None
        }
    }
}

/// How a query ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every match was found.
    Complete,
    /// The `limit` was reached.
    Limit,
    /// The deadline passed: the count is of the matches found until then.
    Timeout,
    /// The interrupt was set: the count is of the matches found until then.
    Interrupted,
}

impl Status {
    /// The word used in output: `ok`, `limit`, `timeout` or `interrupted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "ok",
            Status::Limit => "limit",
            Status::Timeout => "timeout",
            Status::Interrupted => "interrupted",
        }
    }

    /// Whether every match was found.
    pub fn is_complete(self) -> bool {
        self == Status::Complete
    }
}

/// What a join found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinOutcome {
    /// Matches found (all of them when `status` is `Complete`).
    pub count: u64,
    /// How the join ended.
    pub status: Status,
    /// Most bytes of tables and buffers held at once.
    pub peak_bytes: usize,
    /// Which engine joined: `cpu` or `gpu`.
    pub engine: &'static str,
}
