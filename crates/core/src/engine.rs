//! The engine interface: a filter that returns candidate sets, and a join that takes them.
//!
//! Engines keep no state from one call to the next that a caller must know of: the candidate
//! sets travel as a [`Candidates`] value, which says where they live, so the filter of one
//! engine can feed the join of another (as `auto` does). An engine may keep caches, such as
//! the GPU engine's copy of the index on its device.

use std::borrow::Cow;

use gsi_graph::Graph;

use crate::candidates::CandidateSets;
use crate::cuda::candidates::{ClassSets, DeviceCandidates};
use crate::error::{Error, Result};
use crate::index::DataIndex;
use crate::options::{Cut, JoinOutcome, MatchOptions};
use crate::plan::Plan;
use crate::sink::MatchSink;
use crate::tuning::Tuning;

/// Candidate sets where a filter computed them: the value a filter returns and a join takes.
pub enum Candidates {
    /// In host memory (the CPU filter).
    Host(CandidateSets),
    /// In device memory (the GPU filter).
    Device(DeviceCandidates),
}

impl Candidates {
    /// |C(u)| for every u (no copy from the device: the list starts are on the host).
    pub fn sizes(&self) -> Vec<usize> {
        match self {
            Candidates::Host(sets) => sets.sizes(),
            Candidates::Device(sets) => sets.sizes(),
        }
    }

    /// Whether some C(u) is empty, so that the query has no match.
    pub fn any_empty(&self) -> bool {
        self.sizes().contains(&0)
    }

    /// The sets in host memory: these, or a copy read back from the device.
    ///
    /// # Errors
    /// The copy from the device fails.
    pub fn to_host(&self) -> Result<Cow<'_, CandidateSets>> {
        match self {
            Candidates::Host(sets) => Ok(Cow::Borrowed(sets)),
            Candidates::Device(sets) => Ok(Cow::Owned(sets.download()?)),
        }
    }

    /// The sets in host memory, brought there from the device first if they are on one (a
    /// join on the device moves them back).
    ///
    /// # Errors
    /// The copy from the device fails.
    pub(crate) fn on_host(&mut self) -> Result<&mut CandidateSets> {
        if let Candidates::Device(sets) = self {
            *self = Candidates::Host(sets.download()?);
        }
        match self {
            Candidates::Host(sets) => Ok(sets),
            Candidates::Device(_) => unreachable!("brought to the host above"),
        }
    }
}

/// Something an engine did that the user should hear of; its `Display` is the sentence the
/// front ends print.
#[derive(Debug)]
#[non_exhaustive]
pub enum Notice {
    /// `auto` found no usable GPU and runs on the CPU.
    NoGpu(Error),
    /// `auto` could not copy the index to the GPU and runs on the CPU.
    IndexNotOnGpu(Error),
    /// The PCSR does not fit on the GPU beside the join's buffers: each query copies only the
    /// partitions it reads.
    PartitionsPerQuery {
        /// Bytes of the whole PCSR.
        pcsr_bytes: usize,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::NoGpu(err) => write!(f, "no usable GPU ({err}); using the CPU engine"),
            Notice::IndexNotOnGpu(err) => write!(
                f,
                "the GPU cannot hold this graph's index ({err}); using the CPU engine"
            ),
            Notice::PartitionsPerQuery { pcsr_bytes } => write!(
                f,
                "the PCSR index ({} MiB) does not fit on the GPU beside the join's buffers; each query copies only the partitions it reads",
                pcsr_bytes >> 20
            ),
        }
    }
}

/// An engine: the filtering phase and the joining phase of GSI. Engines are `Send`, so that
/// one query may run on several at once ([`crate::spread`]).
pub trait Engine: Send {
    /// Whether the engine's join counts a group of equivalent query vertices from one
    /// extension set, of any size ([`crate::plan::Postpone::Equivalents`]); the GPU's kernels
    /// count groups of at most [`crate::plan::MAX_LEAF_GROUP`] by their intersections.
    fn counts_equivalent_vertices(&self) -> bool {
        false
    }

    /// Estimated partial matches of this engine's join per neighbour-list entry the planner
    /// would read, from which refining and sampling the query pay
    /// ([`MatchOptions::planning_pays_from`]).
    fn planning_pays_from(&self) -> f64 {
        crate::options::GPU_PLANNING_PAYS_FROM
    }

    /// The share of candidates lacking a candidate neighbour from which refining the sets
    /// pays before this engine's join ([`MatchOptions::refine_from_share`]).
    fn refine_from_share(&self) -> f64 {
        crate::options::GPU_REFINE_FROM_SHARE
    }

    /// Fewest query vertices from which this engine's count takes the pair count
    /// ([`crate::plan::PairCount`], [`MatchOptions::pair_counts_from`]).
    fn pair_counts_from(&self) -> usize {
        crate::options::GPU_PAIR_COUNTS_FROM
    }

    /// How long this engine's join of `plan`, a count, runs before the programs that could
    /// make the count instead start beside it on the host
    /// ([`MatchOptions::programs_beside_after`]); `None`: never, where the join itself runs on
    /// the host's threads.
    fn programs_beside_after(&self, _plan: &Plan) -> Option<std::time::Duration> {
        Some(crate::options::GPU_PROGRAMS_BESIDE_AFTER)
    }

    /// How long this engine's join of a count judged light runs before the query is planned
    /// again by sampling and joined anew ([`MatchOptions::light_join_budget`]); `None`: it
    /// runs to its end.
    fn light_join_budget(&self) -> Option<std::time::Duration> {
        None
    }

    /// How many of this engine's join's estimated reads cost as much as one read of a
    /// counting program on the host ([`MatchOptions::program_cost`]).
    fn program_cost(&self) -> f64 {
        crate::options::GPU_PROGRAM_COST
    }

    /// A copy of this engine for another thread, where copies cost nothing and share no
    /// device (the CPU engine): independent plans are then made on threads of their own.
    fn on_another_thread(&self) -> Option<Box<dyn Engine>> {
        None
    }

    /// The GPU the engine uses, by name and architecture (`None` for the CPU engine).
    fn device(&self) -> Option<String> {
        None
    }

    /// Bytes of the data index the engine holds on its device (0 for the CPU engine, or
    /// before the upload).
    fn device_index_bytes(&self) -> usize {
        0
    }

    /// Sets how the engine's joins go about the next queries (opened with
    /// `EngineConfig::tuning`): tests and `gsi verify` force each path so.
    fn tune(&mut self, tuning: &Tuning);

    /// Readies the engine for queries on `data` (the GPU engine uploads the index); the
    /// first query does it otherwise. Returns what the user should hear of, if anything.
    ///
    /// # Errors
    /// Device failures.
    fn prepare(&mut self, _data: &DataIndex) -> Result<Option<Notice>> {
        Ok(None)
    }

    /// Called once a query is answered and its candidate sets are dropped: hands back what
    /// the engine kept only for that query's joins (the GPU engine: the device memory its
    /// pool holds unused).
    fn query_answered(&mut self) {}

    /// Candidate sets made elsewhere (by another engine's filter), where this engine's joins
    /// read them best: the GPU engine copies them to its device once, for many joins.
    ///
    /// # Errors
    /// Device failures.
    fn adopt(&mut self, sets: &CandidateSets) -> Result<Candidates> {
        Ok(Candidates::Host(sets.clone()))
    }

    /// C(u) of `sets` (on this engine's device) split there by the classes of `cuts`, the
    /// vertex's on its axes of a grid, combined ([`Cut::combined`]), for a
    /// query joined in shares; `None` where the engine leaves the split to the host.
    ///
    /// # Errors
    /// Device failures.
    fn classes_on_device(
        &mut self,
        _sets: &DeviceCandidates,
        _u: usize,
        _cuts: &[Cut],
    ) -> Result<Option<ClassSets>> {
        Ok(None)
    }

    /// The filtering phase: C(u) for every vertex of `query`, under `options`' semantics and
    /// filter tests.
    ///
    /// # Errors
    /// Device failures, or a query the engine cannot run; [`Error::FilterStopped`] where the
    /// search must stop before every query vertex is filtered (the CPU engine's filter reads
    /// the clock).
    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> Result<Candidates>;

    /// The joining phase: every match of `plan` over `candidates` (wherever they live),
    /// pushed into `sink`.
    ///
    /// # Errors
    /// Sink and device failures.
    fn join(
        &mut self,
        plan: &Plan,
        candidates: &Candidates,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> Result<JoinOutcome>;
}
