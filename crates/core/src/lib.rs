//! gsi-core: GSI, "GPU-friendly Subgraph Isomorphism" (ICDE 2020), on the CPU and the GPU.
//!
//! The pipeline: a data graph is indexed once ([`DataIndex`]: signature table and PCSR); for
//! each query an [`Engine`] computes the candidate sets ([`Candidates`], the filtering phase),
//! a [`Plan`] orders the join, and the engine runs the Prealloc-Combine join (one driver for
//! both engines, `join`), pushing matches into a [`MatchSink`]. [`find_matches`] runs the whole
//! pipeline and times each phase. Every engine gives the same answers; they differ only in
//! speed. The caller sets the engines up with an [`EngineConfig`]; this crate reads no
//! environment variable and prints nothing.
#![deny(missing_docs)]

mod auto;
pub mod candidates;
pub mod config;
mod core_count;
pub mod cpu;
pub mod cuda;
pub mod edges;
pub mod engine;
mod error;
pub mod fit;
pub mod index;
mod join;
pub mod kernel_cache;
pub mod memory;
pub mod options;
pub mod pcsr;
pub mod plan;
pub mod quotients;
mod random;
pub mod report;
pub mod saved;
pub mod search;
pub mod select;
mod shares;
pub mod signature;
pub mod sink;
pub mod spread;
#[cfg(test)]
mod testing;
pub mod tree_count;
pub mod tuning;
pub mod verify;
pub mod vertex_order;

pub use auto::AutoEngine;
pub use candidates::CandidateSets;
pub use config::{EngineConfig, ListIndex};
pub use edges::{DataEdges, NamedSemantics};
pub use engine::{Candidates, Engine, Notice};
pub use error::{Error, NoGpu, Result};
pub use index::{DataIndex, IndexBytes, IndexOptions};
pub use options::{
    JoinOrder, JoinOutcome, MatchOptions, PairCounts, Semantics, Share, ShareCut, SharesCut,
    Status, SuffixInterchanges, TreeCounts,
};
pub use pcsr::PcsrLayout;
pub use plan::Plan;
pub use report::{EngineShares, MatchReport, PhaseTimes, ShareTime, SpreadReport};
pub use saved::{SavedIndex, SourceFile};
pub use search::find_matches;
pub use select::{open, EngineKind, Opened};
pub use sink::{CollectMatches, CountOnly, MatchSink};
pub use spread::find_matches_spread;
pub use tuning::{CpuTuning, GpuTuning, Tuning};
pub use vertex_order::{VertexNumbering, VertexOrder};
