//! Tests that need what a machine may lack — a GPU, NVRTC, the shared benchmark data — in a
//! harness of their own (libtest-mimic), so that a test that cannot run is reported as
//! ignored, never as passed: `N passed, M ignored`. `GSI_REQUIRE_GPU=1` (on the GPU machine)
//! and `GSI_REQUIRE_NVRTC=1` (in CI) turn a missing GPU or NVRTC into failures instead.
//!
//! - `gpu`: the GPU engine against the brute force and the published counts, and listing
//!   under `--timeout` and SIGINT (`listing.rs`).
//! - `hprd`: the HPRD benchmark queries with their published counts.
//! - `index`: PCSR against CSR on the real benchmark graphs.
//! - `shares`: one query's shares on two engines that plan differently add up.
//! - `wordnet`: few-label queries whose joins once ran into dead ends, on both engines.
//! - `kernels`: every CUDA kernel compiles for Hopper and Ampere.

mod gpu;
mod hprd;
mod index;
mod shares;
mod wordnet;
// Shared with the main test binary, which uses (and runs the unit tests of) the parts this
// one does not.
#[allow(dead_code, unused_imports)]
mod brute;
#[allow(dead_code)]
mod listing;
#[allow(dead_code, unused_imports)]
mod util;

use std::path::{Path, PathBuf};

use gsi_core::cpu::CpuEngine;
use gsi_core::cuda::libraries::check_nvrtc;
use gsi_core::cuda::modules::{compile_cubin, Build};
use gsi_core::cuda::GpuEngine;
use gsi_core::EngineConfig;
use libtest_mimic::{Arguments, Failed, Trial};

/// What a group of tests needs, and why it is missing when it is.
struct Needs {
    missing: Option<String>,
    /// The variable that, set to 1, makes a missing need fail the tests instead of ignoring
    /// them; and whether it is set.
    variable: &'static str,
    required: bool,
}

impl Needs {
    fn new(missing: Option<String>, variable: &'static str) -> Needs {
        Needs {
            missing,
            variable,
            required: std::env::var(variable).as_deref() == Ok("1"),
        }
    }

    /// A trial of `name` running `body` where the need is met; ignored where it is not, or
    /// failing with the reason where it is required.
    fn trial(&self, name: &str, body: impl FnOnce() + Send + 'static) -> Trial {
        match (&self.missing, self.required) {
            (None, _) => Trial::test(name, move || {
                body();
                Ok(())
            }),
            (Some(why), true) => {
                let why = format!("{}=1, but {why}", self.variable);
                Trial::test(name, move || Err(Failed::from(why)))
            }
            (Some(_), false) => Trial::test(name, || Ok(())).with_ignored_flag(true),
        }
    }
}

/// The folder of benchmark data, `<repo>/../shared/data` or `$GSI_SHARED_DATA`, if it is
/// there.
fn shared_data() -> Result<PathBuf, String> {
    let path = match std::env::var_os("GSI_SHARED_DATA") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    };
    if path.is_dir() {
        Ok(path)
    } else {
        Err(format!(
            "the shared benchmark data is not at {} (set GSI_SHARED_DATA to its folder)",
            path.display()
        ))
    }
}

fn gpu() -> GpuEngine {
    GpuEngine::open(&EngineConfig::default()).expect("the GPU opened when probed")
}

fn main() {
    let arguments = Arguments::from_args();
    let shared = shared_data();
    let data = Needs::new(shared.clone().err(), "GSI_REQUIRE_DATA");
    let gpu_missing = GpuEngine::open(&EngineConfig::default())
        .err()
        .map(|e| format!("the GPU engine cannot run: {e}"));
    let on_gpu = Needs::new(gpu_missing, "GSI_REQUIRE_GPU");
    let nvrtc = Needs::new(
        check_nvrtc().err().map(|reason| reason.to_string()),
        "GSI_REQUIRE_NVRTC",
    );
    for (what, needs) in [("data", &data), ("gpu", &on_gpu), ("kernels", &nvrtc)] {
        if let (Some(why), false) = (&needs.missing, needs.required) {
            eprintln!("{what} tests ignored: {why}");
        }
    }
    let dir = || shared.clone().unwrap_or_default();
    // A missing GPU fails it where one is required; missing data only ignores it.
    let both = match (&on_gpu.missing, &data.missing) {
        (Some(_), _) => Needs::new(on_gpu.missing.clone(), "GSI_REQUIRE_GPU"),
        (None, missing) => Needs::new(missing.clone(), "GSI_REQUIRE_DATA"),
    };
    let trials = vec![
        data.trial("hprd::every_hprd_query_has_its_published_count", {
            let dir = dir();
            move || hprd::every_hprd_query_has_its_published_count(&dir)
        }),
        data.trial("hprd::hprd_matches_written_to_a_file_are_valid", {
            let dir = dir();
            move || hprd::hprd_matches_written_to_a_file_are_valid(&dir)
        }),
        data.trial("wordnet::dead_ends_are_cut_where_labels_do_not_prune", {
            let dir = dir();
            move || wordnet::dead_ends_are_cut_where_labels_do_not_prune(&dir, "cpu")
        }),
        data.trial("wordnet::close_orders_are_walked_again", {
            let dir = dir();
            move || wordnet::close_orders_are_walked_again(&dir)
        }),
        data.trial("wordnet::blind_equivalent_vertices_are_enumerated", {
            let dir = dir();
            move || wordnet::blind_equivalent_vertices_are_enumerated(&dir)
        }),
        both.trial("wordnet::dead_ends_are_cut_on_the_gpu_too", {
            let dir = dir();
            move || wordnet::dead_ends_are_cut_where_labels_do_not_prune(&dir, "gpu")
        }),
        data.trial("shares::shares_on_a_cpu_and_a_gpu_judging_engine_add_up", {
            let dir = dir();
            move || {
                let mut judged_as_gpu = util::JudgedAsGpu(CpuEngine::default());
                shares::shares_on_two_engines_add_up(&dir, &mut judged_as_gpu)
            }
        }),
        both.trial("shares::shares_on_the_cpu_and_the_gpu_add_up", {
            let dir = dir();
            move || shares::shares_on_two_engines_add_up(&dir, &mut gpu())
        }),
        data.trial("index::pcsr_equals_csr_on_the_benchmark_graphs", {
            let dir = dir();
            move || index::pcsr_equals_csr_on_the_benchmark_graphs(&dir)
        }),
        on_gpu.trial(
            "gpu::gpu_counts_equal_the_brute_force_on_random_graphs",
            || {
                // Staging buffers of 64 words: every upload but the smallest goes through them.
                let config = EngineConfig {
                    upload_stage_bytes: 256,
                    ..EngineConfig::default()
                };
                let mut gpu = GpuEngine::open(&config).expect("the GPU opened when probed");
                gpu::gpu_counts_equal_the_brute_force_on_random_graphs(&mut gpu)
            },
        ),
        on_gpu.trial("gpu::gpu_counts_past_64_bits_are_exact", || {
            gpu::gpu_counts_past_64_bits_are_exact(&mut gpu())
        }),
        on_gpu.trial("gpu::programs_beside_a_gpu_join_count_first", || {
            gpu::programs_beside_a_gpu_join_count_first(&mut gpu())
        }),
        on_gpu.trial(
            "gpu::a_query_spread_over_two_gpu_engines_counts_what_the_brute_force_counts",
            gpu::a_query_spread_over_two_gpu_engines_counts_what_the_brute_force_counts,
        ),
        on_gpu.trial(
            "gpu::classes_split_on_the_gpu_hold_each_candidate_once",
            gpu::classes_split_on_the_gpu_hold_each_candidate_once,
        ),
        on_gpu.trial(
            "gpu::engines_of_one_gpu_answer_at_once",
            gpu::engines_of_one_gpu_answer_at_once,
        ),
        on_gpu.trial(
            "gpu::spread_queries_report_their_shares_through_the_cli",
            gpu::spread_queries_report_their_shares_through_the_cli,
        ),
        on_gpu.trial(
            "gpu::queries_wider_than_a_warp_count_as_the_formula_says",
            || gpu::queries_wider_than_a_warp_count_as_the_formula_says(&mut gpu()),
        ),
        on_gpu.trial(
            "gpu::gpu_counts_with_each_list_index_equal_the_brute_force",
            gpu::gpu_counts_with_each_list_index_equal_the_brute_force,
        ),
        on_gpu.trial(
            "gpu::gpu_counts_on_vertices_of_several_labels_equal_the_brute_force",
            || gpu::gpu_counts_on_vertices_of_several_labels_equal_the_brute_force(&mut gpu()),
        ),
        on_gpu.trial("gpu::kept_sets_count_what_the_brute_force_counts", || {
            gpu::kept_sets_count_what_the_brute_force_counts(&mut gpu())
        }),
        on_gpu.trial("gpu::pair_counts_count_what_the_brute_force_counts", || {
            gpu::pair_counts_count_what_the_brute_force_counts(&mut gpu())
        }),
        Trial::test("tmp_cpu_suffix", || {
            gpu::suffix_interchanges_count_what_the_brute_force_counts(&mut CpuEngine::default());
            Ok(())
        }),
        on_gpu.trial(
            "gpu::suffix_interchanges_count_what_the_brute_force_counts",
            || gpu::suffix_interchanges_count_what_the_brute_force_counts(&mut gpu()),
        ),
        on_gpu.trial("gpu::gpu_edge_isomorphisms_equal_the_brute_force", || {
            gpu::gpu_edge_isomorphisms_equal_the_brute_force(&mut gpu())
        }),
        on_gpu.trial(
            "gpu::listing_on_the_gpu_stops_at_its_timeout_with_the_matches_found",
            || listing::heavy_listing("gpu"),
        ),
        on_gpu.trial(
            "gpu::listing_on_the_gpu_streams_and_stops_on_sigint",
            || {
                let took = listing::interrupted_listing("gpu");
                assert!(took < std::time::Duration::from_secs(10), "{took:?}");
            },
        ),
        on_gpu.trial(
            "gpu::staged_uploads_arrive_whole",
            gpu::staged_uploads_arrive_whole,
        ),
        both.trial("gpu::gpu_counts_equal_the_published_hprd_counts", {
            let dir = dir();
            move || gpu::gpu_counts_equal_the_published_hprd_counts(&mut gpu(), &dir)
        }),
        nvrtc.trial(
            "kernels::every_kernel_compiles_for_hopper_and_ampere",
            || {
                for arch in ["sm_90", "sm_80"] {
                    for build in Build::ALL {
                        for &module in build.modules() {
                            let cubin = compile_cubin(module, arch, build)
                                .unwrap_or_else(|e| panic!("{e}"));
                            assert!(
                                cubin.starts_with(b"\x7fELF"),
                                "{} ({build:?}) for {arch} is not an ELF CUBIN",
                                module.file_name()
                            );
                        }
                    }
                }
            },
        ),
    ];
    libtest_mimic::run(&arguments, trials).exit();
}
