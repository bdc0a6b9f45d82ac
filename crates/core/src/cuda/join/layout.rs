//! The records the join kernels read, as their `repr(C)` structs (`Link`, `DepthStep`,
//! `LeafGroup`, `LeafTerm`) packed into 32-bit words, and where their fields lie, which the
//! kernels check against their own structs.

use cudarc::driver::DeviceRepr;

/// A partition as a kernel reads it (`struct Link` in `prelude.cuh`): the table column whose
/// vertex's neighbours are read, and where the partition lies in the concatenated arrays.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// Column of the intermediate table.
    pub column: u32,
    /// First group of the partition (with [`crate::ListIndex::Csr`] or
    /// [`crate::ListIndex::Cr`]: first word).
    pub group_base: u32,
    /// Groups that the partition's vertices hash to (0: no edge has this label); with CSR the
    /// graph's vertices, with CR the partition's.
    pub group_count: u32,
    /// First column-index entry of the partition.
    pub ci_base: u32,
    /// How the partition's lists are found: the kernels' code of its [`crate::ListIndex`].
    pub list_index: u32,
    /// Which part of a list the link reads: [`LIST_WHOLE`], or where the step keeps its match
    /// above (below) the column's and the layout keeps each list's split, the neighbours
    /// above ([`LIST_CUT_ABOVE`]) or not above ([`LIST_CUT_BELOW`]) the list's own vertex.
    pub cut: u32,
}

/// [`Link::cut`]: the whole list.
pub const LIST_WHOLE: u32 = 0;
/// [`Link::cut`]: the neighbours of higher ids than the list's vertex.
pub const LIST_CUT_ABOVE: u32 = 1;
/// [`Link::cut`]: the neighbours of ids up to the list's vertex.
pub const LIST_CUT_BELOW: u32 = 2;

// SAFETY: `Link` is `repr(C)`, six u32, the layout of the kernels' `struct Link`.
unsafe impl DeviceRepr for Link {}

/// 32-bit words of a [`Link`].
const LINK_WORDS: usize = 6;

impl Link {
    /// The link as the kernels read it from a word array: every field, in order.
    pub fn words(&self) -> [u32; LINK_WORDS] {
        [
            self.column,
            self.group_base,
            self.group_count,
            self.ci_base,
            self.list_index,
            self.cut,
        ]
    }
}

// A packed link is the kernels' `struct Link`, field for field.
const _: () = assert!(std::mem::size_of::<Link>() == 4 * LINK_WORDS);

/// One step as `gsi_join_depth_first` and `gsi_join_small` read it (`struct DepthStep` in
/// `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct DepthStep {
    pub(super) vertex: u32,
    pub(super) links_from: u32,
    pub(super) link_count: u32,
    pub(super) absent_count: u32,
    pub(super) has_first: u32,
    pub(super) candidates_from: u32,
    pub(super) candidate_count: u32,
    pub(super) order_bounds_from: u32,
    pub(super) order_bound_count: u32,
    pub(super) max_bound: u32,
    /// The depth-first count's kept sets (`kept_sets.rs`): this level's slot, the slot it
    /// draws from, and the links that slot's set guarantees.
    pub(super) set_slot: u32,
    pub(super) parent_slot: u32,
    pub(super) inherited: u32,
    /// Lists a row's source is chosen among (`row_source`): 1 for the first edge's alone.
    pub(super) source_links: u32,
}

// SAFETY: `DepthStep` is `repr(C)`, fourteen u32, the layout of the kernel's `struct DepthStep`.
unsafe impl DeviceRepr for DepthStep {}

/// 32-bit words of a [`DepthStep`].
const DEPTH_STEP_WORDS: usize = 14;
const _: () = assert!(std::mem::size_of::<DepthStep>() == 4 * DEPTH_STEP_WORDS);

impl DepthStep {
    /// Its fields in order, as the plan's upload lays them out.
    pub(super) fn words(&self) -> [u32; DEPTH_STEP_WORDS] {
        [
            self.vertex,
            self.links_from,
            self.link_count,
            self.absent_count,
            self.has_first,
            self.candidates_from,
            self.candidate_count,
            self.order_bounds_from,
            self.order_bound_count,
            self.max_bound,
            self.set_slot,
            self.parent_slot,
            self.inherited,
            self.source_links,
        ]
    }
}

/// A leaf group as `gsi_join_leaf_product` reads it (`struct LeafGroup` in `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LeafGroupOnDevice {
    pub(super) members_from: u32,
    pub(super) member_count: u32,
    pub(super) terms_from: u32,
    pub(super) term_count: u32,
}

// SAFETY: `repr(C)`, four u32, the layout of the kernel's `struct LeafGroup`.
unsafe impl DeviceRepr for LeafGroupOnDevice {}

const _: () = assert!(std::mem::size_of::<LeafGroupOnDevice>() == 4 * 4);

impl LeafGroupOnDevice {
    /// Its fields in order, as the plan's upload lays them out.
    pub(super) fn words(&self) -> [u32; 4] {
        [
            self.members_from,
            self.member_count,
            self.terms_from,
            self.term_count,
        ]
    }
}

/// A term of a leaf group (`struct LeafTerm` in `join.cu`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct LeafTermOnDevice {
    pub(super) coefficient: i32,
    pub(super) blocks_from: u32,
    pub(super) block_count: u32,
}

// SAFETY: `repr(C)`, an i32 and two u32, the layout of the kernel's `struct LeafTerm`.
unsafe impl DeviceRepr for LeafTermOnDevice {}

const _: () = assert!(std::mem::size_of::<LeafTermOnDevice>() == 4 * 3);

impl LeafTermOnDevice {
    /// Its fields in order (the coefficient as its two's complement), as the plan's upload
    /// lays them out.
    pub(super) fn words(&self) -> [u32; 3] {
        [self.coefficient as u32, self.blocks_from, self.block_count]
    }
}

/// The `-D` names and values of a record's layout: `GSI_<RECORD>_BYTES`, then
/// `GSI_<RECORD>_<FIELD>_OFFSET` for each of `fields`, which must be all of them in order.
macro_rules! record_layout {
    ($record:literal, $type:ty, [$($field:ident),+]) => {
        std::iter::once((
            format!("GSI_{}_BYTES", $record),
            std::mem::size_of::<$type>(),
        ))
        .chain([$((
            format!("GSI_{}_{}_OFFSET", $record, stringify!($field).to_uppercase()),
            std::mem::offset_of!($type, $field),
        )),+])
    };
}

/// The size and field offsets of every record the kernels read, as `-D` names (with the
/// kernels' struct names) and values in bytes: the kernels' `static_assert`s compare them with
/// their structs, so that a record changed on one side only fails to compile.
pub(in crate::cuda) fn record_defines() -> Vec<(String, usize)> {
    record_layout!(
        "LINK",
        Link,
        [column, group_base, group_count, ci_base, list_index, cut]
    )
    .chain(record_layout!(
        "DEPTH_STEP",
        DepthStep,
        [
            vertex,
            links_from,
            link_count,
            absent_count,
            has_first,
            candidates_from,
            candidate_count,
            order_bounds_from,
            order_bound_count,
            max_bound,
            set_slot,
            parent_slot,
            inherited,
            source_links
        ]
    ))
    .chain(record_layout!(
        "LEAF_GROUP",
        LeafGroupOnDevice,
        [members_from, member_count, terms_from, term_count]
    ))
    .chain(record_layout!(
        "LEAF_TERM",
        LeafTermOnDevice,
        [coefficient, blocks_from, block_count]
    ))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_every_record_is_told_to_the_kernels() {
        // Records of 32-bit fields: the offsets told must be 0, 4, 8, ... up to the size, so
        // that a field added to a struct but not to `record_defines` fails here.
        let defines = record_defines();
        let sizes: Vec<&(String, usize)> = defines
            .iter()
            .filter(|(n, _)| n.ends_with("_BYTES"))
            .collect();
        assert_eq!(sizes.len(), 4);
        for (size_name, bytes) in sizes {
            let record = size_name.trim_end_matches("BYTES");
            let offsets: Vec<usize> = defines
                .iter()
                .filter(|(n, _)| n.starts_with(record) && n.ends_with("_OFFSET"))
                .map(|&(_, at)| at)
                .collect();
            let expected: Vec<usize> = (0..*bytes).step_by(4).collect();
            assert_eq!(offsets, expected, "{size_name}");
        }
    }

    #[test]
    fn a_depth_step_is_uploaded_whole() {
        // A field added to the struct but not to `words` would shift every later step.
        assert_eq!(
            std::mem::size_of::<DepthStep>(),
            4 * DepthStep::default().words().len()
        );
    }
}
