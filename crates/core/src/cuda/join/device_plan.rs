//! The plan on the device: every record the join kernels read of one query's plan, packed
//! into one buffer and copied in one transfer.

use std::ops::Range;

use cudarc::driver::CudaView;

use super::layout::{DepthStep, LeafGroupOnDevice, LeafTermOnDevice, Link};
use crate::cuda::buffers::Buffer;
use crate::cuda::device::Device;
use crate::cuda::launch::ABOVE;
use crate::error::Result;
use crate::plan::Plan;

/// The plan on the device, copied in one transfer per query: every step's linking edges
/// (`Link`), the join order, the steps as the depth-first and leaf kernels read them
/// (`DepthStep`), every step's order bounds, and the leaf suffix (`crate::plan::LeafSuffix`) flattened into groups,
/// members, terms and blocks. Every record is made of 32-bit words, so each section is a
/// typed view of one buffer.
pub(super) struct PlanOnDevice {
    pub(super) words: Buffer<u32>,
    pub(super) links: Range<usize>,
    pub(super) order: Range<usize>,
    pub(super) steps: Range<usize>,
    pub(super) order_bounds: Range<usize>,
    pub(super) groups: Range<usize>,
    pub(super) members: Range<usize>,
    pub(super) terms: Range<usize>,
    pub(super) blocks: Range<usize>,
    pub(super) group_count: u32,
}

/// Appends `items` to `words`; returns where they lie.
fn section(words: &mut Vec<u32>, items: impl IntoIterator<Item = u32>) -> Range<usize> {
    let start = words.len();
    words.extend(items);
    start..words.len()
}

impl PlanOnDevice {
    pub(super) fn upload(
        device: &Device,
        plan: &Plan,
        links: &[Link],
        steps: &[DepthStep],
    ) -> Result<PlanOnDevice> {
        let mut words: Vec<u32> = Vec::new();
        let links = section(&mut words, links.iter().flat_map(Link::words));
        let order = section(&mut words, plan.steps.iter().map(|s| s.vertex as u32));
        let steps = section(&mut words, steps.iter().flat_map(DepthStep::words));
        let order_bounds = section(
            &mut words,
            plan.steps
                .iter()
                .flat_map(|s| &s.order_bounds)
                .map(|b| b.column as u32 | if b.above { ABOVE } else { 0 }),
        );
        let (mut leaf_groups, mut members, mut terms, mut blocks) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for group in &plan.leaves.groups {
            leaf_groups.push(LeafGroupOnDevice {
                members_from: members.len() as u32,
                member_count: group.steps.len() as u32,
                terms_from: terms.len() as u32,
                term_count: group.terms.len() as u32,
            });
            members.extend(group.steps.iter().map(|&s| s as u32));
            for term in &group.terms {
                terms.push(LeafTermOnDevice {
                    coefficient: term.coefficient as i32,
                    blocks_from: blocks.len() as u32,
                    block_count: term.blocks.len() as u32,
                });
                blocks.extend_from_slice(&term.blocks);
            }
        }
        let groups = section(
            &mut words,
            leaf_groups.iter().flat_map(LeafGroupOnDevice::words),
        );
        let members = section(&mut words, members);
        let terms = section(&mut words, terms.iter().flat_map(LeafTermOnDevice::words));
        let blocks = section(&mut words, blocks);
        Ok(PlanOnDevice {
            words: device.upload(&words, "the join plan")?,
            links,
            order,
            steps,
            order_bounds,
            groups,
            members,
            terms,
            blocks,
            group_count: plan.leaves.groups.len() as u32,
        })
    }

    /// Section `words` as records of `T`.
    pub(super) fn typed<T>(&self, words: &Range<usize>) -> CudaView<'_, T> {
        let len = 4 * words.len() / std::mem::size_of::<T>();
        // SAFETY: every `T` read through here (u32, `Link`, `DepthStep`, `LeafGroupOnDevice`,
        // `LeafTermOnDevice`) is `repr(C)` of 32-bit fields, and `upload` writes each section
        // as whole records in that field order.
        unsafe { self.words.slice(words.clone()).transmute::<T>(len) }
            .expect("a section holds whole records")
    }

    pub(super) fn links(&self) -> CudaView<'_, Link> {
        self.typed(&self.links)
    }

    pub(super) fn order(&self) -> CudaView<'_, u32> {
        self.typed(&self.order)
    }

    pub(super) fn steps(&self) -> CudaView<'_, DepthStep> {
        self.typed(&self.steps)
    }

    pub(super) fn order_bounds(&self) -> CudaView<'_, u32> {
        self.typed(&self.order_bounds)
    }
}
