//! `gsi verify`: the GPU engine against the CPU engine, case by case.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use gsi_core::cpu::CpuEngine;
use gsi_core::cuda::GpuEngine;
use gsi_core::options::FilterTests;
use gsi_core::pcsr::group_of;
use gsi_core::verify::is_match;
use gsi_core::VertexNumbering;
use gsi_core::{
    find_matches, CollectMatches, DataIndex, Engine, EngineKind, IndexOptions, JoinOrder,
    MatchOptions, PcsrLayout, Semantics, Status, Tuning,
};
use gsi_generate::{generate_graph, generate_queries, Density, GraphSpec, QuerySpec, Shape};
use gsi_graph::{Graph, GraphBuilder, VertexId};

use crate::config::{
    engine_config, index_options, one_standard_input, process_bound, query_read_options,
    read_options, seconds, sniff, EngineChoice,
};
use crate::exit::Exit;
use crate::flags::VerifyArgs;
use crate::query_files::QueryFiles;
use crate::session::{Session, Show};

/// Matches listed per case: where both engines list them all, the two lists are compared
/// as sets (each engine judges whether refining its sets pays, so their plans, and the order
/// they list in, may differ); where the limit cuts them, each listed match is checked to be
/// one, and beyond it only counts are compared.
const COMPARED_MATCHES: u64 = 20_000;

/// One query on one engine: its candidate sizes, count, status and first matches.
struct Run {
    sizes: Vec<usize>,
    candidates: Vec<Vec<VertexId>>,
    count: u128,
    status: Status,
    /// The count with each join path forced: depth-first at once, breadth-first to the end.
    forced: Vec<(&'static str, u128, Status)>,
    /// The matches listed, sorted.
    matches: Vec<Vec<VertexId>>,
    /// Whether the listing held every match (the limit did not cut it).
    listed_all: bool,
}

/// The paths a count is also checked on: depth-first from the first step (in one launch, or
/// going on from launch to launch every 2 µs; on the GPU packed where the plan allows, a
/// warp taking as many rows as the table's size suggests or always 32, each with neighbour
/// lists read whole rather than from their own vertex on where an order bound allows, the
/// packed searches left with the warps that took them rather than split over idle ones, a
/// clique's plan counted by bitmaps of up to 2 higher neighbours (the rest searched or
/// packed) or without them, and with work stealing: with its kept sets, none, or sets of 3 candidates), breadth-first to
/// the end, with each row's extensions drawn from its
/// first edge's list rather than the shortest, with the GPU's leaf products made in 128 bits,
/// with the leaves enumerated instead of multiplied, with the paper's candidate sets
/// and join order (no refinement, Algorithm 2), without local candidates, with failing sets
/// at every query size or none,
/// with every order sampled, without symmetry breaking, a tree joined rather than counted by
/// dynamic programming and counted so wherever it can be (over its quotients where its
/// labels repeat apart), a query with cycles and trees hanging from its core counted over
/// its quotients wherever the programs look cheaper, every count that programs could make
/// joined with the programs started beside the join at once, with the GPU's load balance on
/// every row or none,
/// with the GPU's lone leaves' counts looked up for every row or never, and with the GPU's
/// rows joined by eight lanes always or never, with every row given a warp and every list put
/// into its block's pool, the block's repeated lists read once, or no write cache, with the
/// GPU's buffers placed by the two-step output scheme or filled by naive set operations, and
/// with the GPU's small
/// steps taking every step or stopping part-way. (Each path but the last two runs without
/// the small steps, which would otherwise take the whole of a light query.)
const FORCED_PATHS: [(&str, ForcePath); 49] = [
    ("depth-first", |o, _| o.depth_first_rows = Some(0)),
    ("depth-first in launches of 2 µs", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.depth_first_slice = std::time::Duration::from_micros(2);
    }),
    (
        "depth-first, packed, 32 rows a warp at once in launches of 2 µs",
        |o, t| {
            o.depth_first_rows = Some(0);
            t.gpu.packed_rows_at_once = Some(32);
            t.gpu.depth_first_slice = std::time::Duration::from_micros(2);
        },
    ),
    (
        "depth-first, cliques by bitmaps of up to 2 higher neighbours",
        |o, t| {
            o.depth_first_rows = Some(0);
            t.cpu.clique_bitmaps_up_to = Some(2);
            t.gpu.clique_bitmaps_up_to = Some(2);
        },
    ),
    ("depth-first without clique bitmaps", |o, t| {
        o.depth_first_rows = Some(0);
        t.cpu.clique_bitmaps_up_to = None;
        t.gpu.clique_bitmaps_up_to = None;
    }),
    ("whole lists, depth-first and packed", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.split_lists = false;
    }),
    ("depth-first, packed, searches left unsplit", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.split_searches = false;
    }),
    ("whole lists, breadth-first", |o, t| {
        o.depth_first_rows = Some(usize::MAX);
        t.gpu.split_lists = false;
    }),
    ("depth-first, work stealing", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.packed_depth_first = false;
    }),
    ("depth-first, work stealing in launches of 2 µs", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.packed_depth_first = false;
        t.gpu.depth_first_slice = std::time::Duration::from_micros(2);
    }),
    ("depth-first without kept sets", |o, t| {
        o.depth_first_rows = Some(0);
        t.gpu.packed_depth_first = false;
        t.gpu.kept_sets_up_to = None;
    }),
    (
        "depth-first, kept sets of 3 and launches of 2 µs",
        |o, t| {
            o.depth_first_rows = Some(0);
            t.gpu.packed_depth_first = false;
            t.gpu.kept_sets_up_to = Some(3);
            t.gpu.depth_first_slice = std::time::Duration::from_micros(2);
        },
    ),
    ("breadth-first", |o, _| {
        o.depth_first_rows = Some(usize::MAX)
    }),
    ("each row's first edge's list", |_, t| {
        t.gpu.shortest_source = false
    }),
    ("leaf products in 128 bits", |_, t| {
        t.gpu.wide_leaf_products = true
    }),
    ("without leaf products", |o, _| o.postpone_leaves = false),
    ("without pair counts", |o, _| {
        o.pair_counts = gsi_core::PairCounts::Never
    }),
    ("with pair counts wherever they apply", |o, _| {
        o.pair_counts = gsi_core::PairCounts::Always
    }),
    ("light plans planned again at once", |o, _| {
        o.heavy_query_work = 1e18;
        o.light_join_budget = Some(std::time::Duration::ZERO);
    }),
    ("the leaf suffix's interchanges broken", |o, _| {
        o.suffix_interchanges = gsi_core::SuffixInterchanges::Broken
    }),
    ("the leaf suffix's interchanges counted", |o, _| {
        o.suffix_interchanges = gsi_core::SuffixInterchanges::Counted
    }),
    ("the paper's sets and order", |o, _| {
        o.refine_rounds = 0;
        o.join_order = JoinOrder::Paper;
    }),
    ("without local candidates", |_, t| {
        t.cpu.local_candidates = false
    }),
    ("without kept extensions", |_, t| {
        t.cpu.kept_extensions = false
    }),
    ("with failing sets at every size", |_, t| {
        t.cpu.failing_sets_from = Some(0)
    }),
    ("without failing sets", |_, t| {
        t.cpu.failing_sets_from = None
    }),
    ("without symmetry breaking", |o, _| o.symmetry = false),
    ("joined rather than counted as a tree", |o, _| {
        o.tree_counts = gsi_core::TreeCounts::Never
    }),
    ("counted as a tree wherever it can be", |o, _| {
        o.tree_counts = gsi_core::TreeCounts::Always
    }),
    (
        "counted as a tree wherever it can be, cores joined",
        |o, _| {
            o.tree_counts = gsi_core::TreeCounts::Always;
            o.pinned_cores = false;
        },
    ),
    (
        "counted as a tree wherever it can be, sets refined for the programs",
        |o, _| {
            o.tree_counts = gsi_core::TreeCounts::Always;
            o.refine_for_programs_from = 0.0;
        },
    ),
    (
        "quotients weighed for every query with trees hanging, programs looking cheap",
        |o, _| {
            o.cyclic_quotients_from = 0.0;
            o.program_cost = Some(1e-9);
        },
    ),
    (
        "programs beside every join they could replace, at once",
        |o, _| {
            o.program_cost = Some(1e9);
            o.programs_beside_after = Some(Duration::ZERO);
        },
    ),
    (
        "counted as a tree wherever it can be, pinned cores reading whole lists",
        |o, _| {
            o.tree_counts = gsi_core::TreeCounts::Always;
            o.program_candidate_edges = false;
        },
    ),
    ("every list balanced over blocks", |_, t| {
        t.gpu.balance_from = Some(0)
    }),
    ("without load balance", |_, t| t.gpu.balance_from = None),
    ("every lone leaf's count looked up", |_, t| {
        t.gpu.leaf_counts_from = Some(0)
    }),
    ("every leaf list scanned", |_, t| {
        t.gpu.leaf_counts_from = None
    }),
    ("every row with eight lanes", |_, t| {
        t.gpu.narrow_rows_up_to = Some(usize::MAX)
    }),
    ("every row with a warp", |_, t| {
        t.gpu.narrow_rows_up_to = None
    }),
    ("every list in its block's pool", |_, t| {
        t.gpu.narrow_rows_up_to = None;
        t.gpu.block_pool_from = Some(0);
    }),
    (
        "every row with a warp, repeated lists read once a block",
        |_, t| {
            t.gpu.narrow_rows_up_to = None;
            t.gpu.duplicate_removal = true;
        },
    ),
    ("every row with a warp, without the write cache", |_, t| {
        t.gpu.narrow_rows_up_to = None;
        t.gpu.write_cache = false;
    }),
    ("the two-step output scheme", |o, t| {
        o.depth_first_rows = Some(usize::MAX);
        t.gpu.two_step_output = true;
    }),
    ("naive set operations", |o, t| {
        o.depth_first_rows = Some(usize::MAX);
        t.gpu.naive_set_operations = true;
    }),
    ("refined and sampled", |o, _| o.heavy_query_work = 0.0),
    ("label and degree filter", |o, _| {
        o.filter = FilterTests::LabelAndDegree
    }),
    ("every step in one launch", |_, t| {
        t.gpu.small_steps_up_to = Some(usize::MAX)
    }),
    ("steps in one launch up to 64 entries", |_, t| {
        t.gpu.small_steps_up_to = Some(64)
    }),
];

/// Sets the options and the tuning that force one path.
type ForcePath = fn(&mut MatchOptions, &mut Tuning);

/// Runs `query` (counting on every path, then listing the first matches), each run with
/// `timeout`.
fn run_engine(
    engine: &mut dyn Engine,
    query: &Graph,
    data: &DataIndex,
    options: &MatchOptions,
    timeout: Option<Duration>,
) -> Result<Run> {
    let deadline = || timeout.and_then(|t| Instant::now().checked_add(t));
    let options = &MatchOptions {
        deadline: deadline(),
        ..options.clone()
    };
    // The filters' own sets, compared between the engines before any refinement.
    let filtered = engine.filter(query, data, options)?;
    let sizes = filtered.sizes();
    let sets = filtered.to_host()?;
    let candidates = (0..query.vertex_count())
        .map(|u| sets.list(u).to_vec())
        .collect();
    let counted = find_matches(engine, query, data, options, &mut gsi_core::CountOnly)?;
    let mut forced = Vec::new();
    for (path, force) in FORCED_PATHS {
        let mut options = MatchOptions {
            deadline: deadline(),
            ..options.clone()
        };
        let mut tuning = Tuning::default();
        tuning.gpu.small_steps_up_to = None;
        force(&mut options, &mut tuning);
        engine.tune(&tuning);
        let run = find_matches(engine, query, data, &options, &mut gsi_core::CountOnly);
        engine.tune(&Tuning::default());
        let run = run?;
        forced.push((path, run.count, run.status));
    }
    let mut collect = CollectMatches::default();
    let listed_options = MatchOptions {
        limit: Some(COMPARED_MATCHES),
        deadline: deadline(),
        ..options.clone()
    };
    let listed = find_matches(engine, query, data, &listed_options, &mut collect)?;
    // A listing cut short by the clock is not comparable: report it as a timeout.
    let status = match listed.status {
        Status::Timeout => Status::Timeout,
        _ => counted.status,
    };
    Ok(Run {
        sizes,
        candidates,
        count: counted.count,
        status,
        forced,
        matches: collect.sorted_rows(),
        listed_all: listed.status == Status::Complete,
    })
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Tally {
    /// Runs `query` on both engines and reports any difference.
    fn check(
        &mut self,
        name: &str,
        gpu: &mut GpuEngine,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
        timeout: Duration,
    ) -> Result<()> {
        let cpu = run_engine(
            &mut CpuEngine::default(),
            query,
            data,
            options,
            Some(timeout),
        )?;
        if cpu.status == Status::Timeout {
            self.skipped += 1;
            println!("skipped {name}: the CPU engine did not finish in {timeout:?}");
            return Ok(());
        }
        let gpu = match run_engine(gpu, query, data, options, None) {
            Ok(run) => run,
            Err(err) => {
                self.failed += 1;
                println!(
                    "FAILED {name}: the GPU engine failed: {}",
                    crate::exit::message(&err)
                );
                return Ok(());
            }
        };
        let mut problems = Vec::new();
        if cpu.sizes != gpu.sizes || cpu.candidates != gpu.candidates {
            problems.push(format!(
                "candidate sizes cpu {:?} gpu {:?}",
                cpu.sizes, gpu.sizes
            ));
        }
        if cpu.count != gpu.count || cpu.status != gpu.status {
            problems.push(format!(
                "count cpu {} ({}) gpu {} ({})",
                cpu.count,
                cpu.status.as_str(),
                gpu.count,
                gpu.status.as_str()
            ));
        }
        for (path, count, status) in cpu.forced.iter().chain(&gpu.forced) {
            if *status == Status::Complete && *count != cpu.count {
                problems.push(format!("count {path}: {count}, expected {}", cpu.count));
            }
        }
        if cpu.listed_all && gpu.listed_all {
            if cpu.matches != gpu.matches {
                problems.push(format!(
                    "matches differ ({} on cpu, {} on gpu)",
                    cpu.matches.len(),
                    gpu.matches.len()
                ));
            }
        } else {
            // Matches come in the graph's own vertex ids.
            let graph = data.original_graph();
            for (engine, run) in [("cpu", &cpu), ("gpu", &gpu)] {
                let wrong = run
                    .matches
                    .iter()
                    .filter(|m| !is_match(query, &graph, m, options.semantics))
                    .count();
                let repeated = run.matches.windows(2).filter(|w| w[0] == w[1]).count();
                if wrong + repeated > 0 {
                    problems.push(format!(
                        "{engine} listed {wrong} non-matches and {repeated} repeats"
                    ));
                }
            }
        }
        if problems.is_empty() {
            self.passed += 1;
        } else {
            self.failed += 1;
            println!("MISMATCH {name}: {}", problems.join("; "));
        }
        Ok(())
    }
}

/// A data graph whose vertices mostly hash to one PCSR group of `layout`: 64 leaves of a star
/// whose ids collide, among many isolated vertices, so lookups follow overflow chains.
fn overflow_graph(seed: u64, layout: PcsrLayout) -> Graph {
    let n = 50_000u32;
    let groups = layout.hashed_groups(65) as u32;
    let colliding: Vec<u32> = (1..n)
        .filter(|&v| group_of(v, groups) == (seed % u64::from(groups)) as u32)
        .take(64)
        .collect();
    let labels = (0..n).map(|v| v % 3).collect();
    let mut builder = GraphBuilder::with_vertices(false, labels);
    for (i, &v) in colliding.iter().enumerate() {
        builder.add_edge(0, v, 1).expect("distinct ids");
        if i > 0 {
            builder
                .add_edge(colliding[i - 1], v, 1)
                .expect("distinct ids");
        }
    }
    builder.build().expect("valid graph")
}

fn generated_cases(
    tally: &mut Tally,
    gpu: &mut GpuEngine,
    count: usize,
    seed: u64,
    timeout: Duration,
) -> Result<()> {
    let shapes = [Shape::ScaleFree, Shape::Uniform, Shape::Mesh];
    for case in 0..count {
        let case_seed = seed.wrapping_mul(1_000_003).wrapping_add(case as u64);
        let directed = case % 2 == 1;
        let semantics = match (case / 2) % 3 {
            0 => Semantics::Isomorphism,
            1 => Semantics::Homomorphism,
            _ => Semantics::Induced,
        };
        let chunked = case % 3 == 2;
        // Both PCSR layouts, each with its overflow chains.
        let layout = if (case / 12) % 2 == 0 {
            PcsrLayout::Packed
        } else {
            PcsrLayout::Paper
        };
        let data = if case % 12 == 11 {
            overflow_graph(case_seed, layout)
        } else {
            let vertices = 40 + (case_seed as usize * 7919) % 3000;
            let mut spec = GraphSpec::new(vertices, vertices * (2 + case % 4), shapes[case % 3]);
            spec.vertex_labels = 1 + (case % 5) as u32;
            spec.edge_labels = 1 + (case % 3) as u32;
            // Where labels are several, every seventh case's vertices draw two (the GPU
            // filter's label sets; with fewer labels nearly every vertex would carry all).
            spec.labels_per_vertex = if case % 7 == 5 && spec.vertex_labels >= 4 {
                2
            } else {
                1
            };
            spec.directed = directed;
            spec.seed = case_seed;
            spec.edges = spec.edges.min(spec.max_edges() as usize);
            generate_graph(&spec).context("generating a data graph")?
        };
        let size = 3 + case % 6;
        let queries = generate_queries(
            &data,
            &QuerySpec {
                vertices: size,
                count: 3,
                density: if case % 4 < 2 {
                    Density::Dense
                } else {
                    Density::Sparse
                },
                seed: case_seed,
            },
        );
        let Ok(queries) = queries else {
            continue;
        };
        let index = DataIndex::build_with(
            data,
            IndexOptions {
                pcsr_layout: layout,
                // Both numberings: the degree order's and the graph's own.
                numbering: if case % 2 == 0 {
                    VertexNumbering::Degree
                } else {
                    VertexNumbering::Given
                },
            },
        )?;
        let options = MatchOptions {
            semantics,
            memory_budget: if chunked { 64 << 10 } else { 1 << 30 },
            ..MatchOptions::default()
        };
        for (q, query) in queries.iter().enumerate() {
            let name = format!(
                "generated case {case} query {q} ({} vertices, {}, {:?}, {layout:?} PCSR{}{})",
                query.graph.vertex_count(),
                if directed { "directed" } else { "undirected" },
                semantics,
                if chunked { ", 64KiB budget" } else { "" },
                if index.graph().has_label_sets() {
                    ", label sets"
                } else {
                    ""
                }
            );
            tally.check(&name, gpu, &query.graph, &index, &options, timeout)?;
        }
    }
    Ok(())
}

pub fn run(args: VerifyArgs) -> Result<Exit> {
    let timeout = seconds("--timeout", args.timeout)?;
    // The engine's advice (another --engine) does not apply: verify has no such flag.
    let mut gpu =
        GpuEngine::open(&engine_config(EngineKind::Gpu, args.device)?).map_err(|err| {
            anyhow!(
                "gsi verify needs a GPU, whose answers it checks against the CPU engine's: {err}; \
                 without one, `gsi match --engine cpu` answers queries"
            )
        })?;
    println!("gsi verify: GPU {}", gpu.describe());
    let mut tally = Tally::default();
    let generated = args
        .generated
        .unwrap_or(if args.data.is_some() { 0 } else { 48 });
    generated_cases(&mut tally, &mut gpu, generated, args.seed, timeout)?;
    if let Some(data_path) = &args.data {
        one_standard_input(data_path, &args.query)?;
        let read = read_options(&args.read, process_bound())?;
        // The data graph on the CPU engine; the GPU engine above is checked against it.
        let cpu_only = EngineChoice {
            kind: EngineKind::Cpu,
            config: engine_config(EngineKind::Cpu, args.device)?,
            devices: None,
            threads: None,
            index: index_options()?,
        };
        let show = Show {
            progress: false,
            notes: true,
        };
        let session = Session::open(data_path, &read, &cpu_only, show, false)?;
        let index = &session.index;
        let queries = QueryFiles::expand(&args.query, sniff(args.query_format, &read))?;
        let files = queries.files;
        let mut semantics = vec![Semantics::Isomorphism];
        if args.homomorphism {
            semantics.push(Semantics::Homomorphism);
        }
        if args.induced {
            semantics.push(Semantics::Induced);
        }
        let query_read = query_read_options(&read, args.query_format);
        let queries = files.iter().flat_map(|f| session.queries(f, &query_read));
        for query in queries {
            let graph = query.graph?;
            for &s in &semantics {
                let options = MatchOptions {
                    semantics: s,
                    ..MatchOptions::default()
                };
                tally.check(
                    &format!("{} ({s:?})", query.name),
                    &mut gpu,
                    &graph,
                    index,
                    &options,
                    timeout,
                )?;
            }
        }
    }
    println!("{} skipped (the CPU engine timed out)", tally.skipped);
    println!("{} passed, {} failed", tally.passed, tally.failed);
    Ok(if tally.failed == 0 {
        Exit::Success
    } else {
        Exit::Failure
    })
}
