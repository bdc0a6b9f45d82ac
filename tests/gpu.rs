//! The GPU engine, when a GPU is usable: its counts against the brute force on random graphs
//! and against the published HPRD counts, and its matches against the CPU engine's.

use std::path::Path;

use gsi_core::cpu::CpuEngine;
use gsi_core::cuda::launch::MAX_WIDTH;
use gsi_core::cuda::GpuEngine;
use gsi_core::VertexNumbering;
use gsi_core::{
    find_matches, CollectMatches, CountOnly, DataIndex, Engine, GpuTuning, IndexOptions, JoinOrder,
    ListIndex, MatchOptions, PairCounts, PcsrLayout, Semantics, Share, ShareCut,
    SuffixInterchanges, TreeCounts, Tuning,
};
use gsi_generate::{
    generate_graph, generate_queries, Density, GraphSpec, Query as GeneratedQuery, QuerySpec, Shape,
};
use gsi_graph::formats::{read_graph, Format};
use gsi_graph::{Graph, GraphBuilder};

use crate::brute;
use crate::hprd::expected_counts;
use crate::util::{
    clique, labelled_clique, path_in_multipartite, star_of_labels, SPARSE_8_52_EDGES,
};

/// `gpu`, its join tuned by `tuning` for the queries that follow.
fn tuned(gpu: &mut GpuEngine, tuning: GpuTuning) -> &mut GpuEngine {
    gpu.tune(&Tuning {
        gpu: tuning,
        ..Tuning::default()
    });
    gpu
}

/// GPU counts against the brute force on random graphs, on every join path; GPU matches
/// against the CPU engine's.
pub fn gpu_counts_equal_the_brute_force_on_random_graphs(gpu: &mut GpuEngine) {
    let shapes = [Shape::ScaleFree, Shape::Uniform, Shape::Mesh];
    let mut checked = 0;
    for case in 0..60u64 {
        let directed = case % 2 == 1;
        let homomorphism = case % 4 >= 2;
        let vertices = 12 + (case as usize * 7) % 20;
        let mut spec = GraphSpec::new(vertices, vertices * 2, shapes[case as usize % 3]);
        spec.vertex_labels = 1 + (case % 3) as u32;
        spec.edge_labels = 1 + (case % 2) as u32;
        spec.directed = directed;
        spec.seed = case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let Ok(queries) = generate_queries(
            &data,
            &QuerySpec {
                vertices: 3 + (case as usize % 3),
                count: 2,
                density: if case % 3 == 0 {
                    Density::Sparse
                } else {
                    Density::Dense
                },
                seed: case,
            },
        ) else {
            continue;
        };
        // Both PCSR layouts.
        let pcsr_layout = if (case / 4) % 2 == 0 {
            PcsrLayout::Packed
        } else {
            PcsrLayout::Paper
        };
        // Both numberings inside the index: by degree, and the graph's own.
        let degree_order = case % 2 == 0;
        let index = DataIndex::build_with(
            data,
            IndexOptions {
                pcsr_layout,
                numbering: if degree_order {
                    VertexNumbering::Degree
                } else {
                    VertexNumbering::Given
                },
            },
        )
        .expect("index");
        let options = MatchOptions {
            semantics: if homomorphism {
                Semantics::Homomorphism
            } else {
                Semantics::Isomorphism
            },
            // Every third case with a budget small enough to force chunking (and to
            // overflow the small steps' tables).
            memory_budget: if case % 3 == 1 { 2048 } else { 1 << 30 },
            ..MatchOptions::default()
        };
        // The small steps would take the whole of these light queries: off but where tested
        // below.
        let tuning = GpuTuning {
            small_steps_up_to: None,
            ..GpuTuning::default()
        };
        for query in &queries {
            let expected = brute::count(&query.graph, index.graph(), homomorphism);
            // As the engine chooses, depth-first at once, and breadth-first to the end.
            // Every list balanced over blocks in pieces of 32 (`Some(0)`), or none.
            let paths = [
                (None, true, tuning.balance_from),
                (Some(0), true, tuning.balance_from),
                (Some(usize::MAX), true, tuning.balance_from),
                (None, false, tuning.balance_from),
                (Some(usize::MAX), true, Some(0)),
                (None, false, Some(0)),
                (Some(usize::MAX), true, None),
            ];
            for (depth_first_rows, postpone_leaves, balance_from) in paths {
                // Lone leaves' counts looked up for every row, by default, or never.
                for leaf_counts_from in [Some(0), tuning.leaf_counts_from, None] {
                    let options = MatchOptions {
                        depth_first_rows,
                        postpone_leaves,
                        ..options.clone()
                    };
                    let tuning = GpuTuning {
                        balance_from,
                        leaf_counts_from,
                        ..tuning
                    };
                    let report = find_matches(
                        tuned(gpu, tuning),
                        &query.graph,
                        &index,
                        &options,
                        &mut CountOnly,
                    )
                    .expect("GPU engine");
                    assert_eq!(
                        report.count, expected,
                        "case {case}: GPU count, depth-first from {depth_first_rows:?} rows, \
                         leaf products {postpone_leaves}, balanced from {balance_from:?}, \
                         leaf counts from {leaf_counts_from:?}"
                    );
                }
            }
            // Every row with eight lanes (where the row fits them), or with a warp; counted
            // and listed.
            for narrow_rows_up_to in [Some(usize::MAX), None] {
                let narrow = GpuTuning {
                    narrow_rows_up_to,
                    balance_from: None,
                    ..tuning
                };
                for postpone_leaves in [true, false] {
                    let options = MatchOptions {
                        postpone_leaves,
                        ..options.clone()
                    };
                    let report = find_matches(
                        tuned(gpu, narrow),
                        &query.graph,
                        &index,
                        &options,
                        &mut CountOnly,
                    )
                    .expect("GPU engine");
                    assert_eq!(
                        report.count, expected,
                        "case {case}: GPU count, narrow rows up to {narrow_rows_up_to:?}, leaf \
                         products {postpone_leaves}"
                    );
                }
                let mut on_gpu = CollectMatches::default();
                let mut on_cpu = CollectMatches::default();
                find_matches(
                    tuned(gpu, narrow),
                    &query.graph,
                    &index,
                    &options,
                    &mut on_gpu,
                )
                .expect("GPU");
                find_matches(
                    &mut CpuEngine::default(),
                    &query.graph,
                    &index,
                    &options,
                    &mut on_cpu,
                )
                .expect("CPU");
                assert_eq!(
                    on_gpu.sorted_rows(),
                    on_cpu.sorted_rows(),
                    "case {case}: matches, narrow rows up to {narrow_rows_up_to:?}"
                );
            }
            // The small steps in one launch: every step, or stopping part-way where a step
            // reads more than 64 entries (or its table overflows under the small budget); the
            // breadth-first join goes on from there.
            for small_steps_up_to in [Some(usize::MAX), Some(64), Some(8)] {
                for postpone_leaves in [true, false] {
                    let options = MatchOptions {
                        postpone_leaves,
                        ..options.clone()
                    };
                    let tuning = GpuTuning {
                        small_steps_up_to,
                        ..tuning
                    };
                    let report = find_matches(
                        tuned(gpu, tuning),
                        &query.graph,
                        &index,
                        &options,
                        &mut CountOnly,
                    )
                    .expect("GPU engine");
                    assert_eq!(
                        report.count, expected,
                        "case {case}: GPU count, small steps up to {small_steps_up_to:?}, leaf \
                         products {postpone_leaves}"
                    );
                }
            }
            // Depth-first at once in launches of 2 µs: the warps hand their work over to the
            // pool at the end of each, and the next launch takes it up.
            for postpone_leaves in [true, false] {
                let options = MatchOptions {
                    depth_first_rows: Some(0),
                    postpone_leaves,
                    ..options.clone()
                };
                let tuning = GpuTuning {
                    depth_first_slice: std::time::Duration::from_micros(2),
                    ..tuning
                };
                let report = find_matches(
                    tuned(gpu, tuning),
                    &query.graph,
                    &index,
                    &options,
                    &mut CountOnly,
                )
                .expect("GPU engine");
                assert_eq!(
                    report.count, expected,
                    "case {case}: GPU count, depth-first in launches of 2 µs, leaf products \
                     {postpone_leaves}"
                );
            }
            // Refined and planned by sampling (candidate sets from the host), each order.
            for join_order in [
                JoinOrder::Sampled,
                JoinOrder::Growth,
                JoinOrder::Links,
                JoinOrder::Core,
                JoinOrder::Triangles,
            ] {
                let options = MatchOptions {
                    heavy_query_work: 0.0,
                    join_order,
                    ..options.clone()
                };
                let report = find_matches(
                    tuned(gpu, tuning),
                    &query.graph,
                    &index,
                    &options,
                    &mut CountOnly,
                )
                .expect("GPU engine");
                assert_eq!(
                    report.count, expected,
                    "case {case}: GPU count, {join_order:?}"
                );
            }
            let shares: u128 = (0..3)
                .map(|i| {
                    let options = MatchOptions {
                        share: Share::new(i, 3),
                        ..options.clone()
                    };
                    find_matches(
                        tuned(gpu, tuning),
                        &query.graph,
                        &index,
                        &options,
                        &mut CountOnly,
                    )
                    .expect("GPU engine")
                    .count
                })
                .sum::<u128>();
            assert_eq!(shares, expected, "case {case}: three shares' counts");
            let mut on_gpu = CollectMatches::default();
            let mut on_cpu = CollectMatches::default();
            find_matches(
                tuned(gpu, tuning),
                &query.graph,
                &index,
                &options,
                &mut on_gpu,
            )
            .expect("GPU");
            find_matches(
                &mut CpuEngine::default(),
                &query.graph,
                &index,
                &options,
                &mut on_cpu,
            )
            .expect("CPU");
            assert_eq!(
                on_gpu.sorted_rows(),
                on_cpu.sorted_rows(),
                "case {case}: matches"
            );
            // Every list cut into pieces for whole blocks: the same matches, in the same order.
            let balanced = GpuTuning {
                balance_from: Some(0),
                ..tuning
            };
            let mut on_blocks = CollectMatches::default();
            find_matches(
                tuned(gpu, balanced),
                &query.graph,
                &index,
                &options,
                &mut on_blocks,
            )
            .expect("GPU");
            assert_eq!(
                on_blocks.sorted_rows(),
                on_cpu.sorted_rows(),
                "case {case}: balanced matches"
            );
            // Every row with a warp, breadth-first to the end, counted and listed (the CPU's
            // matches, compared as sets): every list in its block's pool, every short list
            // read once per block, both, and the three balance layers at once (pieces from 8 elements, the
            // pool from 2); without the write cache; with the two-step output scheme (each
            // row's buffer placed by a first join that counts its extensions) and with naive
            // set operations (a pass per test), with long lists in pieces (from 4) or none.
            let warp_rows = MatchOptions {
                depth_first_rows: Some(usize::MAX),
                ..options.clone()
            };
            let with = |f: fn(&mut GpuTuning)| {
                let mut o = GpuTuning {
                    narrow_rows_up_to: None,
                    balance_from: None,
                    ..tuning
                };
                f(&mut o);
                o
            };
            let variants = [
                ("every list pooled", with(|o| o.block_pool_from = Some(0))),
                ("duplicate removal", with(|o| o.duplicate_removal = true)),
                (
                    "every list pooled, duplicate removal",
                    with(|o| {
                        o.block_pool_from = Some(0);
                        o.duplicate_removal = true;
                    }),
                ),
                (
                    "three balance layers, duplicate removal",
                    with(|o| {
                        o.balance_from = Some(8);
                        o.block_pool_from = Some(2);
                        o.duplicate_removal = true;
                    }),
                ),
                ("no write cache", with(|o| o.write_cache = false)),
                ("two-step output", with(|o| o.two_step_output = true)),
                (
                    "two-step output, no write cache, pieces",
                    with(|o| {
                        o.two_step_output = true;
                        o.write_cache = false;
                        o.balance_from = Some(4);
                    }),
                ),
                (
                    "two-step output, pieces",
                    with(|o| {
                        o.two_step_output = true;
                        o.balance_from = Some(4);
                    }),
                ),
                (
                    "naive set operations",
                    with(|o| o.naive_set_operations = true),
                ),
                (
                    "naive set operations, two-step output, pieces",
                    with(|o| {
                        o.naive_set_operations = true;
                        o.two_step_output = true;
                        o.balance_from = Some(4);
                    }),
                ),
            ];
            for &(what, switched) in &variants {
                let report = find_matches(
                    tuned(gpu, switched),
                    &query.graph,
                    &index,
                    &warp_rows,
                    &mut CountOnly,
                )
                .expect("GPU engine");
                assert_eq!(report.count, expected, "case {case}: GPU count, {what}");
                let mut on_gpu = CollectMatches::default();
                let mut on_cpu = CollectMatches::default();
                find_matches(
                    tuned(gpu, switched),
                    &query.graph,
                    &index,
                    &warp_rows,
                    &mut on_gpu,
                )
                .expect("GPU");
                find_matches(
                    &mut CpuEngine::default(),
                    &query.graph,
                    &index,
                    &warp_rows,
                    &mut on_cpu,
                )
                .expect("CPU");
                // The two-step scheme lists in no fixed order, and the engines may plan apart.
                assert_eq!(
                    on_gpu.sorted_rows(),
                    on_cpu.sorted_rows(),
                    "case {case}: matches, {what}"
                );
            }
            if !homomorphism {
                // Induced: counted on each path, and listed as the CPU lists them.
                let expected = brute::induced_matches(&query.graph, index.graph()).len() as u128;
                let induced = MatchOptions {
                    semantics: Semantics::Induced,
                    ..options.clone()
                };
                let paths = [
                    (None, tuning.balance_from, None),
                    (Some(0), tuning.balance_from, None),
                    (Some(usize::MAX), Some(0), None),
                    (None, tuning.balance_from, Some(usize::MAX)),
                    (None, tuning.balance_from, Some(64)),
                ];
                for (depth_first_rows, balance_from, small_steps_up_to) in paths {
                    let options = MatchOptions {
                        depth_first_rows,
                        ..induced.clone()
                    };
                    let tuning = GpuTuning {
                        balance_from,
                        small_steps_up_to,
                        ..tuning
                    };
                    let report = find_matches(
                        tuned(gpu, tuning),
                        &query.graph,
                        &index,
                        &options,
                        &mut CountOnly,
                    )
                    .expect("GPU engine");
                    assert_eq!(
                        report.count, expected,
                        "case {case}: induced GPU count, depth-first from {depth_first_rows:?} \
                         rows, balanced from {balance_from:?}, small steps up to \
                         {small_steps_up_to:?}"
                    );
                }
                let mut on_gpu = CollectMatches::default();
                let mut on_cpu = CollectMatches::default();
                find_matches(
                    tuned(gpu, tuning),
                    &query.graph,
                    &index,
                    &induced,
                    &mut on_gpu,
                )
                .expect("GPU");
                find_matches(
                    &mut CpuEngine::default(),
                    &query.graph,
                    &index,
                    &induced,
                    &mut on_cpu,
                )
                .expect("CPU");
                assert_eq!(
                    on_gpu.sorted_rows(),
                    on_cpu.sorted_rows(),
                    "case {case}: induced matches"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} queries checked");
}

/// Queries wider than a warp (a row no longer fits one lane per column) and wider than the
/// standard build's rows (`MAX_WIDTH`: the wide build reads rows where they lie): paths of 40
/// to 300 vertices in a cycle of 400 have 2 × 400 matches each (a start and a direction),
/// counted and listed, on every join path; induced, a path of 200 makes steps with more edge
/// tests than a warp keeps (one pass each); a limit stops early. A star of 140 leaves, each
/// of its own label, in one of 150 has one match, found through the leaf products and listed.
pub fn queries_wider_than_a_warp_count_as_the_formula_says(gpu: &mut GpuEngine) {
    let n = 400u32;
    let mut cycle = GraphBuilder::with_vertices(false, vec![0; n as usize]);
    for v in 0..n {
        cycle.add_edge(v, (v + 1) % n, 0).expect("edge");
    }
    let index = DataIndex::build(cycle.build().expect("cycle")).expect("index");
    let path = |k: u32| {
        let mut b = GraphBuilder::with_vertices(false, vec![0; k as usize]);
        for v in 1..k {
            b.add_edge(v - 1, v, 0).expect("edge");
        }
        b.build().expect("path")
    };
    let is_path = |row: &[u32]| {
        row.windows(2)
            .all(|w| (w[0] + 1) % n == w[1] || (w[1] + 1) % n == w[0])
    };
    for k in [40, 100, MAX_WIDTH as u32, MAX_WIDTH as u32 + 1, 200, 300] {
        for (depth_first_rows, naive_set_operations) in [
            (None, false),
            (Some(0), false),
            (Some(usize::MAX), false),
            (None, true),
        ] {
            let options = MatchOptions {
                depth_first_rows,
                ..MatchOptions::default()
            };
            let tuning = GpuTuning {
                naive_set_operations,
                ..GpuTuning::default()
            };
            let report = find_matches(
                tuned(gpu, tuning),
                &path(k),
                &index,
                &options,
                &mut CountOnly,
            )
            .expect("GPU engine");
            assert_eq!(
                report.count,
                2 * u128::from(n),
                "path of {k}, {depth_first_rows:?}, naive {naive_set_operations}"
            );
        }
        let mut listed = CollectMatches::default();
        let gpu_default = tuned(gpu, GpuTuning::default());
        let report = find_matches(
            gpu_default,
            &path(k),
            &index,
            &MatchOptions::default(),
            &mut listed,
        )
        .expect("GPU engine");
        assert_eq!(report.count, 2 * u128::from(n), "path of {k}, listed");
        let rows: Vec<&[u32]> = listed.flat().chunks(k as usize).collect();
        assert_eq!(rows.len(), 2 * n as usize, "path of {k}, rows listed");
        assert!(
            rows.iter().all(|row| is_path(row)),
            "path of {k}: a row is no path"
        );
    }
    let induced = MatchOptions {
        semantics: Semantics::Induced,
        ..MatchOptions::default()
    };
    let report =
        find_matches(gpu, &path(200), &index, &induced, &mut CountOnly).expect("GPU engine");
    assert_eq!(report.count, 2 * u128::from(n), "induced path of 200");
    let mut listed = CollectMatches::default();
    find_matches(gpu, &path(200), &index, &induced, &mut listed).expect("GPU engine");
    assert_eq!(
        listed.flat().len(),
        2 * n as usize * 200,
        "induced path of 200, listed"
    );
    let limited = MatchOptions {
        limit: Some(10),
        ..MatchOptions::default()
    };
    let report =
        find_matches(gpu, &path(300), &index, &limited, &mut CountOnly).expect("GPU engine");
    assert_eq!(report.count, 10, "path of 300, limit 10");
    assert_eq!(report.status, gsi_core::Status::Limit);

    let star = |leaves: u32| {
        let mut labels = vec![0];
        labels.extend(1..=leaves);
        let mut b = GraphBuilder::with_vertices(false, labels);
        for v in 1..=leaves {
            b.add_edge(0, v, 0).expect("edge");
        }
        b.build().expect("star")
    };
    let data = star(150);
    let expected = brute::count(&star(140), &data, false);
    assert_eq!(expected, 1, "the brute force on the star");
    let index = DataIndex::build(data).expect("index");
    let report = find_matches(
        gpu,
        &star(140),
        &index,
        &MatchOptions::default(),
        &mut CountOnly,
    )
    .expect("GPU engine");
    assert_eq!(report.count, expected, "star of 140");
    let mut listed = CollectMatches::default();
    find_matches(
        gpu,
        &star(140),
        &index,
        &MatchOptions::default(),
        &mut listed,
    )
    .expect("GPU engine");
    let identity: Vec<u32> = (0..=140).collect();
    assert_eq!(listed.flat(), identity, "star of 140, listed");
}

/// GPU counts of the HPRD test set against the published ones.
pub fn gpu_counts_equal_the_published_hprd_counts(gpu: &mut GpuEngine, shared: &Path) {
    let set = shared.join("hprd-test");
    let expected = expected_counts(&set.join("expected_output.res"));
    let data = read_graph(&set.join("data_graph/HPRD.graph"), Format::Auto, false).expect("HPRD");
    let index = DataIndex::build(data).expect("index");
    for (name, &count) in &expected {
        let path = set.join("query_graph").join(format!("{name}.graph"));
        let query = read_graph(&path, Format::Auto, false).expect("query");
        let report = find_matches(
            gpu,
            &query,
            &index,
            &MatchOptions::default(),
            &mut CountOnly,
        )
        .expect("GPU engine");
        assert_eq!(report.count, u128::from(count), "{name}");
    }
}

/// The index upload path: many parts, through staging buffers of the default size and of
/// 4 KiB (thousands of stages, each reused while the copies run), read back whole.
pub fn staged_uploads_arrive_whole() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut word = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    };
    let parts: Vec<Vec<u32>> = [5_000_000, 0, 7_000_003, 1, 2_500_000]
        .iter()
        .map(|&n| (0..n).map(|_| word()).collect())
        .collect();
    let views: Vec<&[u32]> = parts.iter().map(Vec::as_slice).collect();
    // One buffer of every part; then several buffers (one empty) in one pipeline, stages
    // spanning their seams; then buffers small enough to be copied straight.
    let small = [views[3], views[3]];
    let uploads: [Vec<&[&[u32]]>; 3] = [
        vec![&views[..]],
        vec![&views[..2], &views[2..3], &[], &views[3..]],
        vec![&small[..], &small[..1]],
    ];
    for stage_bytes in [gsi_core::config::UPLOAD_STAGE_BYTES, 4096] {
        let config = gsi_core::EngineConfig {
            upload_stage_bytes: stage_bytes,
            ..gsi_core::EngineConfig::default()
        };
        let gpu = GpuEngine::open(&config).expect("the GPU opened when probed");
        for buffers in &uploads {
            let back = gpu
                .upload_round_trip(buffers)
                .expect("uploaded and read back");
            assert_eq!(back.len(), buffers.len(), "stages of {stage_bytes} bytes");
            for (k, (got, parts)) in back.iter().zip(buffers).enumerate() {
                let whole = parts.concat();
                let first_wrong = got.iter().zip(&whole).position(|(a, b)| a != b);
                assert_eq!(
                    got.len(),
                    whole.len(),
                    "buffer {k}, stages of {stage_bytes} bytes"
                );
                assert_eq!(
                    first_wrong, None,
                    "buffer {k}, stages of {stage_bytes} bytes"
                );
            }
        }
    }
}

/// The GPU's lists found through PCSR, plain CSR or CR in every partition (the paper's
/// comparison) and through each partition's own layout, the partitions resident or copied per
/// query, CSR's lists read whole or split at their own vertex where an order bound allows: counts against the brute force on random
/// graphs, as the engine chooses, depth-first, breadth-first, and with every row joined by
/// eight lanes (which look lists up lane by lane).
pub fn gpu_counts_with_each_list_index_equal_the_brute_force() {
    let mut checked = 0;
    // Each layout for every partition, and each partition's own (the default: CSR where it
    // costs no more than PCSR, which the graphs of 2-3 edge labels below mix).
    let layouts = [
        Some(ListIndex::Pcsr),
        Some(ListIndex::Csr),
        Some(ListIndex::Cr),
        None,
    ];
    for list_index in layouts {
        for resident_index_limit in [None, Some(0)] {
            let config = gsi_core::EngineConfig {
                list_index,
                resident_index_limit,
                ..gsi_core::EngineConfig::default()
            };
            let mut gpu = GpuEngine::open(&config).expect("the GPU opened");
            for case in 0..12u64 {
                let mut spec = GraphSpec::new(16 + case as usize * 3, 60, Shape::ScaleFree);
                spec.vertex_labels = 1 + (case % 2) as u32;
                spec.edge_labels = 1 + (case % 3) as u32;
                spec.directed = case % 2 == 1;
                spec.seed = 100 + case;
                spec.edges = spec.edges.min(spec.max_edges() as usize);
                let data = generate_graph(&spec).expect("graph");
                let Some(queries) = dense_queries(&data, 3 + case as usize % 3, case) else {
                    continue;
                };
                let index = DataIndex::build(data).expect("index");
                for query in &queries {
                    let expected = brute::count(&query.graph, index.graph(), false);
                    for (depth_first_rows, narrow_rows_up_to, split_lists) in [
                        (None, GpuTuning::default().narrow_rows_up_to, true),
                        (None, GpuTuning::default().narrow_rows_up_to, false),
                        (Some(0), None, true),
                        (Some(0), None, false),
                        (Some(usize::MAX), None, true),
                        (Some(usize::MAX), Some(usize::MAX), true),
                        (Some(usize::MAX), Some(usize::MAX), false),
                    ] {
                        let options = MatchOptions {
                            depth_first_rows,
                            ..MatchOptions::default()
                        };
                        let tuning = GpuTuning {
                            narrow_rows_up_to,
                            split_lists,
                            ..GpuTuning::default()
                        };
                        let report = find_matches(
                            tuned(&mut gpu, tuning),
                            &query.graph,
                            &index,
                            &options,
                            &mut CountOnly,
                        )
                        .expect("GPU");
                        assert_eq!(
                            report.count, expected,
                            "{list_index:?}, resident {resident_index_limit:?}, case {case}, \
                             depth-first from {depth_first_rows:?}, narrow {narrow_rows_up_to:?}, \
                             split lists {split_lists}"
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} queries checked");
}

/// Vertices of several labels (the GPU filter checks label containment): random graphs whose
/// vertices get up to two further labels, queries walked from them whose vertices keep some
/// of their origin's labels; counts against the brute force, depth-first and breadth-first,
/// with leaves multiplied (in one group: leaves of different labels may share a match) and
/// joined, listings against the CPU engine's, and counts of the same queries against the
/// graph before it got further labels.
pub fn gpu_counts_on_vertices_of_several_labels_equal_the_brute_force(gpu: &mut GpuEngine) {
    let (mut checked, mut sets_in_one) = (0, 0);
    for case in 0..24u64 {
        let mut spec = GraphSpec::new(14 + case as usize % 10, 40, Shape::Uniform);
        spec.vertex_labels = 3;
        spec.directed = case % 2 == 1;
        spec.seed = case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let plain = generate_graph(&spec).expect("graph");
        // Vertex v also gets labels (v + case) % 3 and, every third vertex, (v + 1) % 3.
        let mut builder = GraphBuilder::with_edges(
            plain.is_directed(),
            plain.vertex_labels().to_vec(),
            plain.edge_iter().collect(),
        )
        .expect("the same graph");
        for v in 0..plain.vertex_count() as u32 {
            builder
                .add_label(v, (v + case as u32) % 3)
                .expect("a vertex");
            if v % 3 == 0 {
                builder.add_label(v, (v + 1) % 3).expect("a vertex");
            }
        }
        let data = builder.build().expect("graph");
        let Ok(queries) = generate_queries(
            &plain,
            &QuerySpec {
                vertices: 3 + case as usize % 3,
                count: 2,
                density: Density::Sparse,
                seed: case,
            },
        ) else {
            continue;
        };
        let index = DataIndex::build(data).expect("index");
        let plain_index = DataIndex::build(plain.clone()).expect("index");
        for generated in &queries {
            // Query vertex u keeps its origin's first label and, for odd u, its largest.
            let q = &generated.graph;
            let mut builder = GraphBuilder::with_edges(
                q.is_directed(),
                q.vertex_labels().to_vec(),
                q.edge_iter().collect(),
            )
            .expect("the same query");
            for u in (1..q.vertex_count() as u32).step_by(2) {
                let origin = generated.origin[u as usize];
                let largest = *index.graph().labels_of(origin).last().expect("a label");
                builder.add_label(u, largest).expect("a vertex");
            }
            let query = builder.build().expect("query");
            let expected = brute::count(&query, index.graph(), false);
            for (depth_first_rows, postpone_leaves) in
                [(None, true), (Some(0), true), (Some(usize::MAX), false)]
            {
                let options = MatchOptions {
                    depth_first_rows,
                    postpone_leaves,
                    ..MatchOptions::default()
                };
                let report =
                    find_matches(gpu, &query, &index, &options, &mut CountOnly).expect("GPU");
                assert_eq!(report.count, expected, "case {case}, {depth_first_rows:?}");
            }
            let mut on_gpu = CollectMatches::default();
            let mut on_cpu = CollectMatches::default();
            let options = MatchOptions::default();
            find_matches(gpu, &query, &index, &options, &mut on_gpu).expect("GPU");
            find_matches(
                &mut CpuEngine::default(),
                &query,
                &index,
                &options,
                &mut on_cpu,
            )
            .expect("CPU");
            let rows = [on_gpu, on_cpu].map(|c| c.sorted_rows());
            assert_eq!(rows[0].len() as u128, expected, "case {case}: listed");
            assert!(
                rows[0] == rows[1],
                "case {case}: GPU and CPU listings differ"
            );
            // The same query against the graph of one label a vertex (the filter's other
            // label test).
            let expected = brute::count(&query, plain_index.graph(), false);
            let report =
                find_matches(gpu, &query, &plain_index, &options, &mut CountOnly).expect("GPU");
            assert_eq!(
                report.count, expected,
                "case {case}, one label a data vertex"
            );
            sets_in_one += usize::from(query.has_label_sets());
            checked += 1;
        }
    }
    assert!(checked >= 24, "only {checked} queries checked");
    assert!(
        sets_in_one >= 12,
        "only {sets_in_one} queries of label sets"
    );
}

/// The kernels count in 128 bits: counts past 2^64 are exact, against formulas, and a count
/// past 2^128 − 1 is an error, as on the CPU. A centre with leaves of four labels in K_200 of
/// five labels: 40^9 homomorphisms with two leaves per label, 40^17 with four; in K_200 of ten
/// labels, 20^37 with four leaves of each of nine labels, 20^26 with three of eight and one.
pub fn gpu_counts_past_64_bits_are_exact(gpu: &mut GpuEngine) {
    let data = DataIndex::build(labelled_clique(200, 5).graph()).expect("index");
    let falling = |n: u128, k: u128| (0..k).map(|i| n - i).product::<u128>();
    for semantics in [Semantics::Homomorphism, Semantics::Isomorphism] {
        let options = MatchOptions {
            semantics,
            tree_counts: gsi_core::TreeCounts::Never,
            ..MatchOptions::default()
        };
        for per_label in [2, 4] {
            let report = find_matches(
                gpu,
                &star_of_labels(5, per_label).graph(),
                &data,
                &options,
                &mut CountOnly,
            )
            .expect("GPU engine");
            let expected = match semantics {
                Semantics::Homomorphism => 40u128.pow(4 * per_label + 1),
                _ => 40 * falling(40, per_label.into()).pow(4),
            };
            assert_eq!(
                report.count, expected,
                "{semantics:?}, {per_label} per label"
            );
        }
    }
    let data = DataIndex::build(labelled_clique(200, 10).graph()).expect("index");
    let homomorphism = MatchOptions {
        semantics: Semantics::Homomorphism,
        tree_counts: gsi_core::TreeCounts::Never,
        ..MatchOptions::default()
    };
    let past = find_matches(
        gpu,
        &star_of_labels(10, 4).graph(),
        &data,
        &homomorphism,
        &mut CountOnly,
    );
    assert!(
        matches!(past, Err(gsi_core::Error::CountBeyond128Bits)),
        "{:?}",
        past.map(|r| r.count)
    );
    let mut star = star_of_labels(9, 3);
    star.labels.push(9);
    let leaf = (star.labels.len() - 1) as gsi_graph::VertexId;
    star = star.edge(0, leaf, 0);
    let below =
        find_matches(gpu, &star.graph(), &data, &homomorphism, &mut CountOnly).expect("GPU engine");
    assert_eq!(below.count, 20u128.pow(26));
}

/// A count whose programs the estimates passed over, on the GPU: the programs started beside
/// its join at once count first (the join enumerates 80^5 rows, the tree's program takes a
/// millisecond on the host) and the join stops; with no programs beside, the join counts the
/// same. A six-vertex path of distinct labels in the complete 6-partite graph, 80^6 matches.
pub fn programs_beside_a_gpu_join_count_first(gpu: &mut GpuEngine) {
    let (query, data) = path_in_multipartite(80);
    let index = DataIndex::build(data.graph()).expect("index");
    let expected = 80u128.pow(6);
    for after in [std::time::Duration::ZERO, std::time::Duration::MAX] {
        let options = MatchOptions {
            program_cost: Some(1e9),
            postpone_leaves: false,
            programs_beside_after: Some(after),
            ..MatchOptions::default()
        };
        let report = find_matches(gpu, &query.graph(), &index, &options, &mut CountOnly)
            .expect("GPU engine");
        assert_eq!(report.count, expected, "{after:?}");
        assert_eq!(report.status, gsi_core::Status::Complete, "{after:?}");
        assert_eq!(
            report.paths.programs_beside,
            after.is_zero(),
            "{after:?}: {}",
            report.paths
        );
    }
}

/// One query over two engines on one GPU (`--devices 0,0`), spread even when small, and on
/// one engine, each planning the query itself or joining a plan made ahead on the host (as
/// `gsi match` does while the query before joins): counts against the brute force on random
/// graphs.
pub fn a_query_spread_over_two_gpu_engines_counts_what_the_brute_force_counts() {
    // The cut vertices' classes split on the GPUs, and on the host; the evenest grid cuts
    // the first three steps, which in a short plan cuts a vertex on several axes.
    for (classes_on_device, cut) in [
        (true, ShareCut::Rows),
        (true, ShareCut::Grid),
        (true, ShareCut::EvenGrid),
        (false, ShareCut::EvenGrid),
    ] {
        let open = || {
            let mut config = gsi_core::EngineConfig::default();
            config.tuning.gpu.classes_on_device = classes_on_device;
            Box::new(GpuEngine::open(&config).expect("the GPU opened")) as Box<dyn gsi_core::Engine>
        };
        spread_over_two_engines_counts_what_the_brute_force_counts(&mut [open(), open()], cut);
    }
}

/// [`a_query_spread_over_two_gpu_engines_counts_what_the_brute_force_counts`] on `engines`.
fn spread_over_two_engines_counts_what_the_brute_force_counts(
    engines: &mut [Box<dyn gsi_core::Engine>; 2],
    share_cut: ShareCut,
) {
    let mut checked = 0;
    for case in 0..24u64 {
        let mut spec = GraphSpec::new(20 + case as usize, 60 + 3 * case as usize, Shape::ScaleFree);
        spec.vertex_labels = 1 + (case % 3) as u32;
        spec.directed = case % 2 == 1;
        spec.seed = case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let Some(queries) = dense_queries(&data, 3 + (case as usize % 3), case) else {
            continue;
        };
        let index = DataIndex::build(data).expect("index");
        let options = MatchOptions {
            share_cut,
            ..MatchOptions::default()
        };
        for query in &queries {
            let expected = brute::count(&query.graph, index.graph(), false);
            for (used, ahead) in [(2, false), (2, true), (1, true)] {
                let planned = ahead
                    .then(|| gsi_core::search::plan_ahead(&query.graph, &index, &options, true))
                    .flatten()
                    .map(|planned| planned.expect("planned"));
                assert_eq!(planned.is_some(), ahead, "a small graph is planned ahead");
                let report = gsi_core::find_matches_spread(
                    &mut engines[..used],
                    &query.graph,
                    &index,
                    &options,
                    &mut CountOnly,
                    None,
                    planned,
                )
                .expect("matched");
                assert_eq!(
                    report.count, expected,
                    "case {case}, {used} engines, ahead {ahead}, {share_cut:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 24, "only {checked} queries checked");
}

/// A cut vertex's candidates split by class on the GPU (`gsi_filter_classes`), on one axis
/// or several: each class's list is the candidates the shares' hashes put in it, in order,
/// and its bitset holds the same vertices; with the switch off the engine leaves the split
/// to the host.
pub fn classes_split_on_the_gpu_hold_each_candidate_once() {
    let mut gpu = GpuEngine::open(&gsi_core::EngineConfig::default()).expect("the GPU opened");
    // A list with gaps, ending at the last vertex, beside an empty one.
    let vertices = 100_003;
    let list: Vec<u32> = (0..vertices as u32).filter(|v| v % 3 != 1).collect();
    let sets = gsi_core::CandidateSets::from_lists(vec![Vec::new(), list.clone()], vertices);
    let Ok(gsi_core::Candidates::Device(on_device)) = gpu.adopt(&sets) else {
        panic!("the GPU engine keeps adopted sets on its device");
    };
    // Grids, and the axes the vertex is cut on.
    let grids: [([u32; 5], &[usize]); 7] = [
        ([1, 1, 1, 1, 1], &[0]),
        ([2, 1, 1, 1, 1], &[0]),
        ([1, 1, 7, 1, 1], &[2]),
        ([32, 1, 1, 1, 1], &[0]),
        ([1, 1, 1, 1, 64], &[4]),
        ([2, 4, 4, 1, 1], &[1, 2]),
        ([2, 2, 3, 1, 5], &[0, 2, 4]),
    ];
    for (sides, axes) in grids {
        let count = sides.iter().product();
        let cuts: Vec<_> = axes
            .iter()
            .map(|&a| Share::new(0, count).expect("a share").cut(sides, a))
            .collect();
        let classes: u64 = axes.iter().map(|&a| u64::from(sides[a])).product();
        // The class of v: its class on each axis, the first axis's the most significant.
        let class_of = |v: u32| {
            cuts.iter().zip(axes).fold(0, |class, (cut, &a)| {
                class * u64::from(sides[a]) + cut.class_of(v)
            })
        };
        for (u, whole) in [(0, &Vec::new()), (1, &list)] {
            let split = gpu
                .classes_on_device(&on_device, u, &cuts)
                .expect("split")
                .expect("split on the device");
            let split = on_device.download_classes(&split).expect("read back");
            assert_eq!(split.len() as u64, classes);
            for (class, (class_list, held)) in split.iter().enumerate() {
                let expected: Vec<u32> = whole
                    .iter()
                    .copied()
                    .filter(|&v| class_of(v) == class as u64)
                    .collect();
                let what = format!("grid {sides:?}, axes {axes:?}, vertex {u}, class {class}");
                assert_eq!(class_list, &expected, "{what}: list");
                assert_eq!(held, &expected, "{what}: bitset");
            }
        }
    }
    let off = GpuTuning {
        classes_on_device: false,
        ..GpuTuning::default()
    };
    let cut = Share::new(0, 4).expect("a share").cut([4, 1, 1, 1, 1], 0);
    let split = tuned(&mut gpu, off).classes_on_device(&on_device, 1, &[cut]);
    assert!(split.expect("no device work").is_none());
}

/// Four engines of one GPU in four threads at once, each on its own stream, reading one
/// copy of the data index: every count against the brute force, each thread taking the
/// queries in another order (so that different joins overlap on the device).
pub fn engines_of_one_gpu_answer_at_once() {
    let mut spec = GraphSpec::new(300, 2_400, Shape::ScaleFree);
    spec.vertex_labels = 2;
    spec.seed = 7;
    let data = generate_graph(&spec).expect("graph");
    let queries: Vec<GeneratedQuery> = (0..6)
        .filter_map(|seed| dense_queries(&data, 4 + seed as usize % 2, seed))
        .flatten()
        .collect();
    assert!(
        queries.len() >= 8,
        "only {} queries generated",
        queries.len()
    );
    let index = DataIndex::build(data).expect("index");
    let expected: Vec<u128> = queries
        .iter()
        .map(|q| brute::count(&q.graph, index.graph(), false))
        .collect();
    // Engines that keep their device buffers from query to query (the default) and engines
    // whose every buffer is the driver's, side by side.
    let mut engines: Vec<GpuEngine> = (0..4)
        .map(|e| {
            let config = gsi_core::EngineConfig {
                keep_device_buffers: e % 2 == 0,
                ..gsi_core::EngineConfig::default()
            };
            GpuEngine::open(&config).expect("the GPU opened")
        })
        .collect();
    for engine in &mut engines {
        engine.prepare(&index).expect("prepared");
    }
    assert!(
        engines.iter().all(|e| e.shares_index_with(&engines[0])),
        "the engines of one GPU hold one copy of the index"
    );
    std::thread::scope(|threads| {
        for (t, engine) in engines.iter_mut().enumerate() {
            let (queries, expected, index) = (&queries, &expected, &index);
            threads.spawn(move || {
                for round in 0..3 {
                    for k in 0..queries.len() {
                        let i = (k * (2 * t + 1) + round + t) % queries.len();
                        let report = find_matches(
                            engine,
                            &queries[i].graph,
                            index,
                            &MatchOptions::default(),
                            &mut CountOnly,
                        )
                        .expect("matched");
                        assert_eq!(report.count, expected[i], "engine {t}, query {i}");
                    }
                }
            });
        }
    });
}

/// Edge isomorphism on the GPU (line graphs matched induced, every count path) against the
/// brute force from the definition, on random undirected graphs.
pub fn gpu_edge_isomorphisms_equal_the_brute_force(gpu: &mut GpuEngine) {
    use gsi_core::{DataEdges, NamedSemantics};
    let mut matched = 0;
    for case in 0..24u64 {
        let mut spec = GraphSpec::new(10 + case as usize % 6, 16, Shape::Uniform);
        spec.vertex_labels = 1 + (case % 2) as u32;
        spec.edge_labels = 1 + (case % 3 == 0) as u32;
        spec.seed = case;
        let data = generate_graph(&spec).expect("graph");
        let Some(queries) = dense_queries(&data, 3 + (case as usize % 2), case) else {
            continue;
        };
        let data = DataIndex::build(data).expect("index");
        let (edges, line) = DataEdges::of(&data).expect("line");
        let index = DataIndex::build(line).expect("index");
        for query in &queries {
            let expected = brute::edge_isomorphism_count(&query.graph, data.graph());
            let q = edges.query(&query.graph).expect("a connected query");
            for (depth_first_rows, small_steps_up_to) in [
                (None, None),
                (None, Some(usize::MAX)),
                (Some(0), None),
                (Some(usize::MAX), None),
            ] {
                let options = MatchOptions {
                    semantics: NamedSemantics::EdgeIsomorphism.semantics(),
                    absent_labels: NamedSemantics::EdgeIsomorphism.absent_labels(),
                    depth_first_rows,
                    ..MatchOptions::default()
                };
                let tuning = GpuTuning {
                    small_steps_up_to,
                    ..GpuTuning::default()
                };
                let report = find_matches(
                    tuned(gpu, tuning),
                    &q.graph,
                    &index,
                    &options,
                    &mut CountOnly,
                )
                .expect("GPU");
                assert_eq!(
                    report.count, expected,
                    "case {case}: edge isomorphisms, depth-first from {depth_first_rows:?}, \
                     small steps up to {small_steps_up_to:?}"
                );
            }
            matched += u64::from(expected > 0);
        }
    }
    assert!(
        matched >= 10,
        "only {matched} queries had an edge isomorphism"
    );
}

/// The depth-first counts against the brute force: the work-stealing kernel's kept sets (a
/// level drawing its candidates from an earlier level's intersection) and the rows' sources
/// (the shortest of their lists, or the first edge's), and the packed kernel (each level's
/// candidates drawn across 32 partial matches' lists; a warp taking as many of the table's
/// rows at once as their number suggests, or 1, 3 or 32 always), and the clique count (by
/// bitmaps of a vertex's higher neighbours, up to 128 of them or 2, the rest packed; checked
/// to have been taken): cliques of 3 to 6 vertices and dense
/// generated queries, on graphs with hubs, with sets of the default size, of a few candidates
/// (most lists do not fit, and the level intersects all its lists again), or none; in one
/// launch and in launches of 2 µs (levels handed to other warps rebuild their sets; packed
/// searches are suspended and go on in the next launch); breadth-first too; both numberings;
/// every semantics.
pub fn kept_sets_count_what_the_brute_force_counts(gpu: &mut GpuEngine) {
    let mut checked = 0;
    let mut by_bitmaps = 0;
    for case in 0..12u64 {
        let mut spec = GraphSpec::new(36 + case as usize, 260, Shape::ScaleFree);
        spec.vertex_labels = 1 + (case % 2) as u32;
        spec.edge_labels = 1 + (case % 3 == 2) as u32;
        spec.seed = 100 + case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let numbering = if case % 2 == 0 {
            VertexNumbering::Degree
        } else {
            VertexNumbering::Given
        };
        let index = DataIndex::build_with(
            data,
            IndexOptions {
                numbering,
                ..IndexOptions::default()
            },
        )
        .expect("index");
        let mut queries: Vec<Graph> = (3..=6).map(|n| clique(false, n, 0).graph()).collect();
        queries.extend(
            dense_queries(index.graph(), 4 + (case as usize % 3), case)
                .into_iter()
                .flatten()
                .map(|q| q.graph),
        );
        for query in &queries {
            for semantics in [
                Semantics::Isomorphism,
                Semantics::Homomorphism,
                Semantics::Induced,
            ] {
                let expected = match semantics {
                    Semantics::Induced => {
                        brute::induced_matches(query, index.graph()).len() as u128
                    }
                    s => brute::count(query, index.graph(), s == Semantics::Homomorphism),
                };
                let default = GpuTuning::default().kept_sets_up_to;
                // (depth-first from, packed with this many rows a warp at once (None: as the
                // table's size suggests), kept sets up to, shortest source, launches of µs)
                let paths = [
                    (Some(0), None, default, true, 100_000),
                    (Some(0), None, default, true, 2),
                    (Some(0), None, Some(3), true, 100_000),
                    (Some(0), None, Some(3), true, 2),
                    (Some(0), None, None, true, 2),
                    (Some(0), None, default, false, 2),
                    (Some(0), Some(None), default, true, 100_000),
                    (Some(0), Some(None), default, true, 2),
                    (Some(0), Some(None), default, false, 2),
                    (Some(0), Some(Some(1)), default, true, 2),
                    (Some(0), Some(Some(3)), default, true, 2),
                    (Some(0), Some(Some(32)), default, true, 100_000),
                    (Some(0), Some(Some(32)), default, false, 2),
                    (Some(1), Some(None), default, true, 100_000),
                    (Some(1), Some(Some(32)), default, true, 2),
                    (Some(usize::MAX), Some(None), default, true, 100_000),
                    (Some(usize::MAX), Some(None), default, false, 100_000),
                ];
                // Each path with lists split at their own vertex and the packed searches split
                // over idle warps (the defaults), cliques counted by bitmaps where a vertex
                // has at most 128 higher neighbours (every one here); the first, packed and
                // breadth-first ones with whole lists too, and two packed ones with searches
                // left unsplit; two packed ones with bitmaps up to 2 higher neighbours (most
                // rows left to the packed count) and the first without clique bitmaps.
                let bitmaps = GpuTuning::default().clique_bitmaps_up_to;
                let whole = [0, 6, 15].map(|k| (paths[k], false, true, bitmaps));
                let unsplit = [7, 11].map(|k| (paths[k], true, false, bitmaps));
                let few_bits = [0, 1].map(|k| (paths[k], true, true, Some(2)));
                let packed_only = [0].map(|k| (paths[k], true, true, None));
                let paths = paths
                    .map(|p| (p, true, true, bitmaps))
                    .into_iter()
                    .chain(whole)
                    .chain(unsplit)
                    .chain(few_bits)
                    .chain(packed_only);
                for (
                    (depth_first_rows, packed, kept_sets_up_to, shortest_source, slice_us),
                    split,
                    split_searches,
                    clique_bitmaps_up_to,
                ) in paths
                {
                    let options = MatchOptions {
                        semantics,
                        depth_first_rows,
                        ..MatchOptions::default()
                    };
                    let tuning = GpuTuning {
                        kept_sets_up_to,
                        packed_depth_first: packed.is_some(),
                        packed_rows_at_once: packed.flatten(),
                        split_lists: split,
                        split_searches,
                        clique_bitmaps_up_to,
                        shortest_source,
                        small_steps_up_to: None,
                        depth_first_slice: std::time::Duration::from_micros(slice_us),
                        ..GpuTuning::default()
                    };
                    let report =
                        find_matches(tuned(gpu, tuning), query, &index, &options, &mut CountOnly)
                            .expect("GPU engine");
                    assert_eq!(
                        report.count,
                        expected,
                        "case {case}, {semantics:?}, depth-first from {depth_first_rows:?}, \
                         packed {packed:?}, kept sets up to {kept_sets_up_to:?}, shortest source \
                         {shortest_source}, split lists {split}, split searches {split_searches}, \
                         clique bitmaps up to {clique_bitmaps_up_to:?}, launches of {slice_us} µs, \
                         query of {} vertices",
                        query.vertex_count()
                    );
                    checked += u64::from(expected > 0);
                    by_bitmaps += u64::from(
                        report.paths.depth_first_kind == Some("clique bitmaps, the rest packed"),
                    );
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} counts were not zero");
    assert!(
        by_bitmaps > 100,
        "only {by_bitmaps} counts took the clique bitmaps"
    );
}

/// Two dense random-walk queries of `vertices` vertices from `data`, when it has them.
fn dense_queries(data: &Graph, vertices: usize, seed: u64) -> Option<Vec<GeneratedQuery>> {
    let spec = QuerySpec {
        vertices,
        count: 2,
        density: Density::Dense,
        seed,
    };
    generate_queries(data, &spec).ok()
}

/// `gsi match --devices 0,0,0,0 --json` from a saved index: four engines on one GPU share
/// a 4-clique and a 5-clique of a generated unlabelled graph (heavy enough to be spread at
/// once: their plans expect 1.4×10^6 and 1.8×10^6 rows), count what the brute force counts,
/// and report how they were cut (by rows, the default) and each engine's part; `--share-cut
/// even-grid` counts the same over the evenest grid.
pub fn spread_queries_report_their_shares_through_the_cli() {
    let dir = crate::util::TestDir::new();
    let made = dir.gsi([
        "generate",
        "graph",
        "--vertices",
        "8000",
        "--edges",
        "80000",
        "--shape",
        "scale-free",
        "--seed",
        "4",
        "-o",
        "g.graph",
    ]);
    assert_eq!(made.code, Some(0), "{made:#?}");
    let indexed = dir.gsi(["index", "g.graph", "-o", "g.gsidx"]);
    assert_eq!(indexed.code, Some(0), "{indexed:#?}");
    let data = read_graph(&dir.path("g.graph"), Format::SunLuo, false).expect("read");
    let mut expected = Vec::new();
    for n in [4, 5] {
        let spec = crate::util::clique(false, n, 0);
        dir.write_spec(&format!("queries/k{n}.graph"), &spec);
        expected.push(brute::count(&spec.graph(), &data, false));
    }
    for extra in [&[][..], &["--share-cut", "even-grid"][..]] {
        let mut args = vec!["--engine", "gpu", "--devices", "0,0,0,0", "--json"];
        args.extend_from_slice(extra);
        let run = dir.match_files("g.gsidx", &["queries"], &args);
        assert_eq!(run.code, Some(0), "{run:#?}");
        let out = run.json();
        for (query, &count) in out.queries.iter().zip(&expected) {
            assert_eq!(query.matches, count, "{extra:?}: {query:#?}");
            let spread: SpreadJson =
                serde_json::from_value(query.spread.clone().expect("spread at once"))
                    .expect("the spread object's keys");
            match extra.is_empty() {
                true => assert!(spread.grid.is_none() && spread.rows_width.is_some()),
                false => assert_eq!(spread.grid, Some(vec![2, 4, 4, 1, 1])),
            }
            assert_eq!(spread.engines.len(), 4);
            assert_eq!(spread.engines.iter().map(|e| e.shares).sum::<u32>(), 32);
            for e in &spread.engines {
                assert!(e.ready_ms >= 0.0 && e.cutting_ms >= 0.0, "{e:?}");
                assert!(
                    e.longest_ms <= e.busy_ms && e.cutting_ms <= e.busy_ms,
                    "{e:?}"
                );
                assert_eq!(e.shares == 0, e.busy_ms == 0.0, "{e:?}");
            }
            // One record a share, each of the query's one part, the 32 shares each once;
            // an engine's records add up to its busy time.
            let mut taken: Vec<String> = spread
                .shares
                .iter()
                .filter_map(|s| s.share.clone())
                .collect();
            taken.sort();
            let mut dealt: Vec<String> = (0..32).map(|i| format!("{i}/32")).collect();
            dealt.sort();
            assert_eq!(taken, dealt, "{:?}", spread.shares);
            for (at, e) in spread.engines.iter().enumerate() {
                let mine: Vec<_> = spread.shares.iter().filter(|s| s.engine == at).collect();
                assert_eq!(mine.len() as u32, e.shares, "{mine:?}");
                let busy: f64 = mine.iter().map(|s| s.ms).sum();
                assert!(
                    (busy - e.busy_ms).abs() < 0.01 * e.busy_ms + 0.01,
                    "{mine:?} {e:?}"
                );
                assert!(mine
                    .iter()
                    .all(|s| s.part == 0 && s.began_ms >= e.ready_ms - 0.01));
            }
        }
        assert!(out.summary.upload_bytes.is_some_and(|b| b > 0));
    }
}

/// How a spread query was cut (the width whose rows were dealt, or the grid) and each
/// engine's part.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpreadJson {
    pub rows_width: Option<usize>,
    pub grid: Option<Vec<u32>>,
    pub engines: Vec<EngineSharesJson>,
    pub shares: Vec<ShareTimeJson>,
}

/// One share of a spread query: its engine, part, `i/n`, start and time in milliseconds.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareTimeJson {
    pub engine: usize,
    pub part: usize,
    pub share: Option<String>,
    pub began_ms: f64,
    pub ms: f64,
}

/// One engine's part of a spread query, in milliseconds.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSharesJson {
    pub ready_ms: f64,
    pub shares: u32,
    pub busy_ms: f64,
    pub cutting_ms: f64,
    pub longest_ms: f64,
}

/// A small query as its vertex labels and its edges.
type QueryShape = (Vec<u32>, Vec<(u32, u32)>);

/// The pair count on the GPU ([`gsi_core::plan::PairCount`]) against the brute force: gMatch's
/// p5 and other queries ending in two equivalent vertices and a third linked to them alone,
/// on random scale-free graphs, directed and undirected, of one or two labels; each with the
/// pair count and without, and p5 shown to take it.
pub fn pair_counts_count_what_the_brute_force_counts(gpu: &mut GpuEngine) {
    let mut checked = 0;
    for case in 0..8u64 {
        let directed = case % 4 == 3;
        let mut spec = GraphSpec::new(30 + case as usize, 240, Shape::ScaleFree);
        spec.vertex_labels = 1 + (case % 2) as u32;
        spec.directed = directed;
        spec.seed = 300 + case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let index = DataIndex::build(data).expect("index");
        // (vertex labels, edges): x and y are the last two but one, z the last.
        let shapes: [QueryShape; 4] = [
            // p5: x, y on both ends of the edge 0-1.
            (
                vec![0; 5],
                vec![(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 4), (3, 4)],
            ),
            // x, y on the ends of the path 0-1-2 (a 4-cycle with a tail of two).
            (
                vec![0; 6],
                vec![
                    (0, 1),
                    (1, 2),
                    (0, 3),
                    (2, 3),
                    (0, 4),
                    (2, 4),
                    (3, 5),
                    (4, 5),
                ],
            ),
            // x, y on one vertex of a triangle, z of another label.
            (
                vec![0, 0, 0, 0, 0, 1],
                vec![(0, 1), (1, 2), (0, 2), (2, 3), (2, 4), (3, 5), (4, 5)],
            ),
            // x, y of label 1 on vertex 0 of an edge.
            (
                vec![0, 0, 1, 1, 0],
                vec![(0, 1), (0, 2), (0, 3), (2, 4), (3, 4)],
            ),
        ];
        for (k, (labels, edges)) in shapes.iter().enumerate() {
            let mut builder = GraphBuilder::new(directed);
            for &label in labels {
                builder.add_vertex(label);
            }
            for &(a, b) in edges {
                builder.add_edge(a, b, 0).expect("edge");
            }
            let query = builder.build().expect("query");
            let expected = brute::count(&query, index.graph(), false);
            for pair_counts in [PairCounts::Always, PairCounts::Never] {
                let options = MatchOptions {
                    pair_counts,
                    ..MatchOptions::default()
                };
                let report = find_matches(gpu, &query, &index, &options, &mut CountOnly)
                    .expect("GPU engine");
                assert_eq!(
                    report.count, expected,
                    "case {case}, shape {k}, pair counts {pair_counts:?}\n{}",
                    report.plan
                );
                if k == 0 && pair_counts == PairCounts::Always && !directed {
                    assert!(report.plan.leaves.pairs.is_some(), "{}", report.plan);
                }
                checked += u64::from(expected > 0);
            }
        }
    }
    assert!(checked > 20, "only {checked} counts were not zero");
}

/// Automorphisms that move vertices of the leaf suffix, broken (those vertices enumerated
/// again), left to the suffix's products, or chosen between, on the GPU against the brute
/// force: wordnet's query_sparse_8_52 (two hubs, two interchangeable vertices on both) and
/// its kin, on random scale-free graphs of one or two labels; the counted setting shown to
/// keep vertices in the suffix that the broken one enumerates.
pub fn suffix_interchanges_count_what_the_brute_force_counts(gpu: &mut dyn Engine) {
    let shapes: [QueryShape; 3] = [
        // query_sparse_8_52's shape, its labels folded onto two.
        (vec![1, 1, 0, 0, 1, 1, 0, 0], SPARSE_8_52_EDGES.to_vec()),
        // K_{2,3} with a pendant on one member: two members still interchange.
        (
            vec![0; 6],
            vec![(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (4, 5)],
        ),
        // Two hubs joined, three members on both, one of another label.
        (
            vec![0, 0, 0, 0, 1],
            vec![(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)],
        ),
    ];
    let mut checked = 0;
    let mut kept = 0;
    for case in 0..4u64 {
        let mut spec = GraphSpec::new(18 + case as usize, 110, Shape::ScaleFree);
        spec.vertex_labels = 1 + (case % 2) as u32;
        spec.seed = 500 + case;
        spec.edges = spec.edges.min(spec.max_edges() as usize);
        let data = generate_graph(&spec).expect("graph");
        let index = DataIndex::build(data).expect("index");
        for (k, (labels, edges)) in shapes.iter().enumerate() {
            let mut builder = GraphBuilder::new(false);
            for &label in labels {
                builder.add_vertex(label.min(spec.vertex_labels - 1));
            }
            for &(a, b) in edges {
                builder.add_edge(a, b, 0).expect("edge");
            }
            let query = builder.build().expect("query");
            let expected = brute::count(&query, index.graph(), false);
            let mut suffix = Vec::new();
            for suffix_interchanges in [
                SuffixInterchanges::Broken,
                SuffixInterchanges::ByEstimate,
                SuffixInterchanges::Counted,
            ] {
                for depth_first_rows in [None, Some(0)] {
                    let options = MatchOptions {
                        suffix_interchanges,
                        depth_first_rows,
                        tree_counts: TreeCounts::Never,
                        ..MatchOptions::default()
                    };
                    let report = find_matches(gpu, &query, &index, &options, &mut CountOnly)
                        .expect("GPU engine");
                    assert_eq!(
                        report.count, expected,
                        "case {case}, shape {k}, {suffix_interchanges:?}, depth-first from \
                         {depth_first_rows:?}\n{}",
                        report.plan
                    );
                    suffix.push(report.plan.leaves.from);
                }
                checked += u64::from(expected > 0);
            }
            // Broken first, counted last: the counted suffix starts no later.
            kept += u64::from(suffix[0] > suffix[suffix.len() - 1]);
        }
    }
    assert!(checked > 20, "only {checked} counts were not zero");
    assert!(
        kept >= 6,
        "the counted suffix kept vertices in only {kept} plans"
    );
}
