//! What a query reports: its count and status, each phase's time, its plan and join paths,
//! and how a spread query's shares went.

use std::time::Duration;

use crate::options::{JoinPaths, Share, SharesCut, Status};
use crate::plan::Plan;

/// Time spent in each phase of one query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Filtering: candidate sets.
    pub filter: Duration,
    /// Planning: for a heavy query the refinement of the candidate sets and the sampling of
    /// join orders, then the join order and first edges.
    pub plan: Duration,
    /// Joining, output included.
    pub join: Duration,
}

/// The result of one query.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// Matches found.
    pub count: u128,
    /// How the search ended.
    pub status: Status,
    /// Time per phase.
    pub times: PhaseTimes,
    /// The plan that was run.
    pub plan: Plan,
    /// Most bytes the join held at once (device bytes for the GPU engine).
    pub peak_join_bytes: usize,
    /// The plan's estimate of the rows the join produces ([`Plan::expected_rows`]).
    pub estimated_rows: f64,
    /// Which engine joined: `cpu` or `gpu`.
    pub engine: &'static str,
    /// How each step of the join ran.
    pub paths: JoinPaths,
    /// How the query was spread over several engines, when it was ([`crate::spread`]).
    pub spread: Option<SpreadReport>,
}

/// How one query was spread over several engines: how it was cut into shares and what each
/// engine did.
#[derive(Clone, Debug, PartialEq)]
pub struct SpreadReport {
    /// How the shares were cut.
    pub cut: SharesCut,
    /// Each engine's part, the first (which tried the query whole) first.
    pub engines: Vec<EngineShares>,
    /// Every share as it was answered, in the order they were dealt.
    pub shares: Vec<ShareTime>,
}

/// One share of a spread query, as an engine answered it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareTime {
    /// The engine that answered it: its place in [`SpreadReport::engines`].
    pub engine: usize,
    /// The part of the query it is a share of: 0 for a query joined whole, else the quotient
    /// whose homomorphisms it counts.
    pub part: usize,
    /// The share of that part (`None`: the part whole).
    pub share: Option<Share>,
    /// When the engine took it, from the start of the spread query.
    pub began: Duration,
    /// Its cut of the candidate sets and its join.
    pub took: Duration,
}

/// What one engine did with a spread query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EngineShares {
    /// From the start of the spread query until the engine took its first share: its filter
    /// and plan (and, for the first engine, the trial of the whole query).
    pub ready: Duration,
    /// Shares the engine answered.
    pub shares: u32,
    /// Time its shares took together, each share's cut of the candidate sets included.
    pub busy: Duration,
    /// Of that, the cuts.
    pub cutting: Duration,
    /// The longest of its shares.
    pub longest: Duration,
}
