//! The joining phase on the GPU, the host side of `join.cu`: typed wrappers of its kernels
//! (`kernels.rs`), the records they read (`layout.rs`) and the plan made of them on the
//! device (`device_plan.rs`, with the depth-first count's kept sets from `kept_sets.rs`),
//! and the GPU's side of the join driver (`crate::join`), which
//! keeps tables and buffers in device memory (`backend.rs`, with its counts in `counts.rs`,
//! their 128-bit counter in `counter.rs`, its tables and buffers in `tables.rs`, and the rows
//! a share cut by rows keeps picked in `dealt_rows.rs`).

mod backend;
mod counter;
mod counts;
mod dealt_rows;
mod device_plan;
pub(super) mod kept_sets;
mod kernels;
pub(super) mod layout;
mod tables;

pub(crate) use backend::GpuJoin;
