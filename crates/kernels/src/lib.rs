//! gsi-kernels: the CUDA kernels of gsi as self-contained `.cu` sources.
//!
//! NVRTC compiles them at run time (gsi-core's `cuda::modules`), so this crate needs no CUDA
//! toolkit to build. Each module is one paper phase; the host prepends [`PRELUDE`] because
//! NVRTC is handed no headers.
#![deny(missing_docs)]

/// Definitions shared by every module: PCSR lookup by a warp, sorted search, warp indexing.
pub const PRELUDE: &str = include_str!("../cu/prelude.cuh");

/// One `.cu` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelModule {
    /// `filter.cu`: signature filter and candidate lists (Sec. 3.2).
    Filter,
    /// `scan.cu`: exclusive prefix sums.
    Scan,
    /// `join.cu`: the Prealloc-Combine join (Sec. 5).
    Join,
}

impl KernelModule {
    /// Every module.
    pub const ALL: [KernelModule; 3] =
        [KernelModule::Filter, KernelModule::Scan, KernelModule::Join];

    /// The file name, for messages.
    pub fn file_name(self) -> &'static str {
        match self {
            KernelModule::Filter => "filter.cu",
            KernelModule::Scan => "scan.cu",
            KernelModule::Join => "join.cu",
        }
    }

    /// The module's own source (without the prelude).
    pub fn body(self) -> &'static str {
        match self {
            KernelModule::Filter => include_str!("../cu/filter.cu"),
            KernelModule::Scan => include_str!("../cu/scan.cu"),
            KernelModule::Join => include_str!("../cu/join.cu"),
        }
    }

    /// The source NVRTC compiles: the prelude, then the module.
    pub fn source(self) -> String {
        format!("{PRELUDE}\n{}", self.body())
    }

    /// The `extern "C" __global__` entries the module defines.
    pub fn kernels(self) -> impl Iterator<Item = Kernel> {
        Kernel::ALL.into_iter().filter(move |k| k.module() == self)
    }
}

/// One `extern "C" __global__` entry of a module. The host fetches kernels by this id only,
/// through one typed wrapper each (gsi-core's `cuda/<module>.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `gsi_filter_signatures`: tests every data vertex against every query vertex.
    FilterSignatures,
    /// `gsi_filter_compact`: bitset words to sorted candidate lists.
    FilterCompact,
    /// `gsi_filter_list_starts`: where each query vertex's list starts.
    FilterListStarts,
    /// `gsi_filter_classes`: one candidate list's bitsets by the classes of a share's cuts.
    FilterClasses,
    /// `gsi_filter_word_counts`: each bitset word's population count.
    FilterWordCounts,
    /// `gsi_scan_blocks`: per-block exclusive prefix sums.
    ScanBlocks,
    /// `gsi_scan_add`: adds the blocks' prefix to every element.
    ScanAdd,
    /// `gsi_join_bounds`: Algorithm 4's buffer bound of each row.
    JoinBounds,
    /// `gsi_join_rows`: Algorithm 3, filling (or counting) each row's buffer.
    JoinRows,
    /// `gsi_join_rows_narrow`: the same with eight lanes per row, for short lists.
    JoinRowsNarrow,
    /// `gsi_join_pieces`: the long rows' lists, a block per piece (Sec. 6.1).
    JoinPieces,
    /// `gsi_join_pieces_close`: a cut row's pieces' survivors moved together, in order.
    JoinPiecesClose,
    /// `gsi_join_refilter`: one set operation on each row's buffer (the naive baseline).
    JoinRefilter,
    /// `gsi_join_link`: the new table from the buffers.
    JoinLink,
    /// `gsi_join_permute`: matches into query-vertex order.
    JoinPermute,
    /// `gsi_join_held_rows`: which rows of a table a share cut by rows holds.
    JoinHeldRows,
    /// `gsi_join_keep_rows`: the rows a share holds, together.
    JoinKeepRows,
    /// `gsi_join_depth_first`: counts the matches extending each row, depth-first.
    JoinDepthFirst,
    /// `gsi_count_packed`: the same, each level's candidates drawn across 32 partial matches'
    /// lists at once.
    CountPacked,
    /// `gsi_packed_places`: the packed count's places, with and without a suspended search.
    PackedPlaces,
    /// `gsi_packed_split`: the packed count's suspended searches split over free places.
    PackedSplit,
    /// `gsi_join_small`: counts breadth-first through every small step in one launch.
    JoinSmall,
    /// `gsi_join_leaf_product`: counts the leaf suffix of each row as a product.
    JoinLeafProduct,
    /// `gsi_join_leaf_product_narrow`: the same with eight lanes per row, for short lists.
    JoinLeafProductNarrow,
    /// `gsi_join_leaf_product_wide`: the same in 128 bits, where a row's product could pass
    /// 2^64 − 1.
    JoinLeafProductWide,
    /// `gsi_leaf_counts`: a lone leaf's extensions per candidate of its linked vertex.
    LeafCounts,
    /// `gsi_count_pairs`: counts the last three steps of each row by their pairs.
    CountPairs,
    /// `gsi_count_cliques`: counts a clique's plan from each row by bitmaps of its vertex's
    /// higher neighbours.
    CountCliques,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 28] = [
        Kernel::FilterSignatures,
        Kernel::FilterCompact,
        Kernel::FilterListStarts,
        Kernel::FilterClasses,
        Kernel::FilterWordCounts,
        Kernel::ScanBlocks,
        Kernel::ScanAdd,
        Kernel::JoinBounds,
        Kernel::JoinRows,
        Kernel::JoinRowsNarrow,
        Kernel::JoinPieces,
        Kernel::JoinPiecesClose,
        Kernel::JoinRefilter,
        Kernel::JoinLink,
        Kernel::JoinPermute,
        Kernel::JoinHeldRows,
        Kernel::JoinKeepRows,
        Kernel::JoinDepthFirst,
        Kernel::CountPacked,
        Kernel::PackedPlaces,
        Kernel::PackedSplit,
        Kernel::JoinSmall,
        Kernel::JoinLeafProduct,
        Kernel::JoinLeafProductNarrow,
        Kernel::JoinLeafProductWide,
        Kernel::LeafCounts,
        Kernel::CountPairs,
        Kernel::CountCliques,
    ];

    /// The entry's name in its `.cu` file.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::FilterSignatures => "gsi_filter_signatures",
            Kernel::FilterCompact => "gsi_filter_compact",
            Kernel::FilterListStarts => "gsi_filter_list_starts",
            Kernel::FilterClasses => "gsi_filter_classes",
            Kernel::FilterWordCounts => "gsi_filter_word_counts",
            Kernel::ScanBlocks => "gsi_scan_blocks",
            Kernel::ScanAdd => "gsi_scan_add",
            Kernel::JoinBounds => "gsi_join_bounds",
            Kernel::JoinRows => "gsi_join_rows",
            Kernel::JoinRowsNarrow => "gsi_join_rows_narrow",
            Kernel::JoinPieces => "gsi_join_pieces",
            Kernel::JoinPiecesClose => "gsi_join_pieces_close",
            Kernel::JoinRefilter => "gsi_join_refilter",
            Kernel::JoinLink => "gsi_join_link",
            Kernel::JoinPermute => "gsi_join_permute",
            Kernel::JoinHeldRows => "gsi_join_held_rows",
            Kernel::JoinKeepRows => "gsi_join_keep_rows",
            Kernel::JoinDepthFirst => "gsi_join_depth_first",
            Kernel::CountPacked => "gsi_count_packed",
            Kernel::PackedPlaces => "gsi_packed_places",
            Kernel::PackedSplit => "gsi_packed_split",
            Kernel::JoinSmall => "gsi_join_small",
            Kernel::JoinLeafProduct => "gsi_join_leaf_product",
            Kernel::JoinLeafProductNarrow => "gsi_join_leaf_product_narrow",
            Kernel::JoinLeafProductWide => "gsi_join_leaf_product_wide",
            Kernel::LeafCounts => "gsi_leaf_counts",
            Kernel::CountPairs => "gsi_count_pairs",
            Kernel::CountCliques => "gsi_count_cliques",
        }
    }

    /// The module that defines it.
    pub fn module(self) -> KernelModule {
        match self {
            Kernel::FilterSignatures
            | Kernel::FilterCompact
            | Kernel::FilterListStarts
            | Kernel::FilterClasses
            | Kernel::FilterWordCounts => KernelModule::Filter,
            Kernel::ScanBlocks | Kernel::ScanAdd => KernelModule::Scan,
            Kernel::JoinBounds
            | Kernel::JoinRows
            | Kernel::JoinRowsNarrow
            | Kernel::JoinPieces
            | Kernel::JoinPiecesClose
            | Kernel::JoinRefilter
            | Kernel::JoinLink
            | Kernel::JoinPermute
            | Kernel::JoinHeldRows
            | Kernel::JoinKeepRows
            | Kernel::JoinDepthFirst
            | Kernel::CountPacked
            | Kernel::PackedPlaces
            | Kernel::PackedSplit
            | Kernel::JoinSmall
            | Kernel::JoinLeafProduct
            | Kernel::JoinLeafProductNarrow
            | Kernel::JoinLeafProductWide
            | Kernel::LeafCounts
            | Kernel::CountPairs
            | Kernel::CountCliques => KernelModule::Join,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_defined_in_its_file_and_nothing_is_included() {
        for module in KernelModule::ALL {
            let defined = module.body().matches("__global__ void gsi_").count();
            assert_eq!(defined, module.kernels().count(), "{}", module.file_name());
            for kernel in module.kernels() {
                assert!(
                    module
                        .body()
                        .contains(&format!("__global__ void {}(", kernel.name())),
                    "{} missing from {}",
                    kernel.name(),
                    module.file_name()
                );
            }
            assert!(
                !module.source().contains("#include"),
                "{} includes a header",
                module.file_name()
            );
        }
    }
}
