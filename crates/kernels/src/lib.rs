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
    pub fn entries(self) -> &'static [&'static str] {
        match self {
            KernelModule::Filter => &[
                "gsi_filter_signatures",
                "gsi_filter_compact",
                "gsi_filter_list_starts",
            ],
            KernelModule::Scan => &["gsi_scan_blocks", "gsi_scan_add"],
            KernelModule::Join => &[
                "gsi_join_bounds",
                "gsi_join_rows",
                "gsi_join_link",
                "gsi_join_permute",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_defined_in_its_file_and_nothing_is_included() {
        for module in KernelModule::ALL {
            for entry in module.entries() {
                assert!(
                    module.body().contains(&format!("__global__ void {entry}(")),
                    "{entry} missing from {}",
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
