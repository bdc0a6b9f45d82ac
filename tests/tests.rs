//! Integration tests: one binary, one module per area.
//!
//! - `brute`: an obviously correct brute-force matcher, the oracle for small graphs.
//! - `oracle`: property tests on random labelled graphs against the brute force and `vf2`.
//! - `pinned`: query vertices pinned to one data vertex each, against the brute force.
//! - `sparql`: `gsi sparql` as a user runs it.
//! - `serve`: `gsi serve` as HTTP clients reach it, hostile ones included.
//! - `turtle`: Turtle data read as its triples written as N-Triples.
//! - `equivalents`: equivalent query vertices counted from one extension set, against the
//!   brute force and against enumerating them.
//! - `trees`: tree-shaped queries counted by dynamic programming, against the brute force.
//! - `cores`: queries with cycles counted over their 2-core, the trees hanging from it by
//!   dynamic programming, against the brute force.
//! - `beside`: a count's programs run beside the join the estimates chose, the first to
//!   finish answering.
//! - `wide_counts`: counts beyond 64 bits against formulas, and past 128 bits refused.
//! - `cli`: the `gsi` binary as a user runs it: flags, output, exit codes, error messages.
//! - `gmatch`: graphs written as gMatch's binary CSR, read back from its documented layout.
//! - `patterns`: the query files of `benches/patterns` hold their patterns and count right.
//! - `regression`: one test per defect found, named after its issue.
//! - `docs`: the names the code maps of `docs/` give exist.
//! - `listing`: listing matches of heavy queries streams, and stops at its timeout or SIGINT.
//!
//! Tests that need a GPU, NVRTC or the shared benchmark data are in `conditional.rs`, a
//! harness that reports them as ignored where they cannot run.

mod beside;
mod brute;
mod cli;
mod cliques;
mod cores;
mod docs;
mod equivalents;
mod gmatch;
mod light;
mod listing;
mod oracle;
mod pairs;
mod patterns;
mod pinned;
mod regression;
mod saved;
mod serve;
mod sparql;
mod spread;
mod suffix_interchanges;
mod trees;
mod turtle;
mod util;
mod wide_counts;
