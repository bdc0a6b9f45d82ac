//! Integration tests: one binary, one module per area.
//!
//! - `brute`: an obviously correct brute-force matcher, the oracle for small graphs.
//! - `oracle`: property tests on random labelled graphs against the brute force and `vf2`.
//! - `cli`: the `gsi` binary as a user runs it: flags, output, exit codes, error messages.
//! - `gpu`: the GPU engine against the brute force and the published counts (needs a GPU).
//! - `hprd`: the HPRD benchmark queries with their published counts.
//! - `index`: PCSR against CSR on the real benchmark graphs.
//! - `regression`: one test per defect found, named after its issue.

mod brute;
mod cli;
mod gpu;
mod hprd;
mod index;
mod oracle;
mod regression;
mod util;
