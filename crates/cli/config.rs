//! Raw flags to a validated configuration: every check on flag values happens here.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use gsi_core::options::FilterTests;
use gsi_core::VertexNumbering;
use gsi_core::{
    CpuTuning, EngineConfig, EngineKind, GpuTuning, IndexOptions, JoinOrder, MatchOptions,
    NamedSemantics, PairCounts, PcsrLayout, Semantics, Share, ShareCut, SuffixInterchanges,
    TreeCounts, Tuning,
};
use gsi_graph::formats::{Format, MemoryBound, ReadOptions};

use crate::exit::input_error;
use crate::flags::{
    BenchArgs, EngineArg, EngineArgs, FilterArg, MatchArgs, MatchingArgs, OutputIds, ReadArgs,
    ShareCutArg, SuffixInterchangesArg,
};
use crate::query_files::QueryFiles;

/// Everything `gsi match` needs, checked.
#[derive(Debug)]
pub struct MatchConfig {
    pub data: PathBuf,
    /// Query files, folders expanded.
    pub queries: QueryFiles,
    /// How to read the data graph.
    pub read: ReadOptions,
    /// How to read the query files.
    pub query_read: ReadOptions,
    pub matching: Matching,
    pub engine: EngineChoice,
    pub output: Option<PathBuf>,
    pub output_ids: Option<OutputIds>,
    pub explain: bool,
    pub json: bool,
    pub quiet: bool,
    /// With a GPU, plan each query on the host while the query before joins.
    pub plan_ahead: bool,
}

/// How each query is matched.
#[derive(Debug, Clone)]
pub struct Matching {
    /// Options without a deadline: set per query from `timeout`.
    pub options: MatchOptions,
    pub timeout: Option<Duration>,
    /// Edge isomorphism: the data graph and each query are matched as their line graphs
    /// (induced), and matches name data edges.
    pub edges: bool,
}

impl Matching {
    /// The options for a query started at `started`.
    pub fn options_from(&self, started: std::time::Instant) -> MatchOptions {
        MatchOptions {
            // A deadline past what the clock can hold is no deadline.
            deadline: self.timeout.and_then(|t| started.checked_add(t)),
            ..self.options.clone()
        }
    }
}

/// The engine, how it is set up, and the CPU's worker threads.
#[derive(Debug, Clone)]
pub struct EngineChoice {
    pub kind: EngineKind,
    pub config: EngineConfig,
    /// The GPUs of `--devices`; `None`: the one of `config`.
    pub devices: Option<Devices>,
    pub threads: Option<usize>,
    /// How the data graph is indexed.
    pub index: IndexOptions,
}

impl MatchConfig {
    pub fn from_args(args: MatchArgs) -> Result<MatchConfig> {
        one_standard_input(&args.data, &args.query)?;
        let (mut matching, tuning) = matching(&args.matching)?;
        if args.limit == Some(0) {
            return Err(input_error("--limit 0: expected at least one match".into()));
        }
        matching.options.limit = args.limit;
        let read = read_options(&args.read, budget_bound(&args.matching, &matching))?;
        Ok(MatchConfig {
            query_read: query_read_options(&read, args.query_format),
            engine: engine_choice(&args.engine, tuning)?,
            queries: QueryFiles::expand(&args.query, sniff(args.query_format, &read))?,
            read,
            data: args.data,
            matching,
            output: args.output,
            output_ids: args.output_ids,
            explain: args.explain,
            json: args.json,
            quiet: args.quiet,
            plan_ahead: !args.no_plan_ahead,
        })
    }
}

/// Everything `gsi bench` needs, checked.
#[derive(Debug)]
pub struct BenchConfig {
    pub data: PathBuf,
    pub queries: QueryFiles,
    pub read: ReadOptions,
    pub query_read: ReadOptions,
    pub repeat: usize,
    pub warmup: usize,
    pub matching: Matching,
    pub engine: EngineChoice,
    pub json: bool,
    pub quiet: bool,
}

impl BenchConfig {
    pub fn from_args(args: BenchArgs) -> Result<BenchConfig> {
        if args.repeat == 0 {
            return Err(input_error("--repeat 0: expected at least one run".into()));
        }
        one_standard_input(&args.data, &args.query)?;
        let (matching, tuning) = matching(&args.matching)?;
        let read = read_options(&args.read, budget_bound(&args.matching, &matching))?;
        Ok(BenchConfig {
            query_read: query_read_options(&read, args.query_format),
            queries: QueryFiles::expand(&args.query, sniff(args.query_format, &read))?,
            read,
            matching,
            engine: engine_choice(&args.engine, tuning)?,
            data: args.data,
            repeat: args.repeat,
            warmup: args.warmup,
            json: args.json,
            quiet: args.quiet,
        })
    }
}

/// Refuses standard input (`-`) as both the data graph and a query: it can be read once.
pub fn one_standard_input(data: &std::path::Path, queries: &[PathBuf]) -> Result<()> {
    let stdin = |p: &std::path::Path| p.as_os_str() == "-";
    if stdin(data) && queries.iter().any(|q| stdin(q)) {
        return Err(input_error(
            "--data - and --query -: standard input can be read only once; give one of them as a file".into(),
        ));
    }
    Ok(())
}

/// Checks `--timeout`, `--memory-limit`, the semantics and the hidden switches: how each
/// query is matched, and how the engines' joins are tuned.
pub fn matching(args: &MatchingArgs) -> Result<(Matching, Tuning)> {
    let timeout = match args.timeout {
        None => None,
        Some(s) => Some(seconds("--timeout", s)?),
    };
    let limit = crate::memory::process_limit();
    let memory_budget = match &args.memory_limit {
        Some(text) => {
            let bytes = parse_size("--memory-limit", text)?;
            if bytes as u64 > limit.bytes {
                return Err(input_error(format!(
                    "--memory-limit {text}: more than this process may use, {limit}"
                )));
            }
            bytes
        }
        None => gsi_core::memory::default_budget(),
    };
    let programs_beside_after = millis_or_never(
        "--programs-beside-after",
        args.programs_beside_after.as_deref(),
    )?;
    let light_join_budget =
        millis_or_never("--light-join-budget", args.light_join_budget.as_deref())?;
    let depth_first_rows = match args.depth_first_rows.as_deref() {
        None => None,
        Some("never") => Some(usize::MAX),
        Some(text) => Some(text.parse::<usize>().map_err(|_| {
            input_error(format!(
                "--depth-first-rows {text}: expected a number of rows or `never`"
            ))
        })?),
    };
    // A size (a list's length, unless `what` says otherwise) from which an optimisation
    // applies, `never`, or its default.
    let sized = |flag: &str, what: &str, text: Option<&str>, default: Option<usize>| match text {
        None => Ok(default),
        Some("never") => Ok(None),
        Some(text) => text
            .parse::<usize>()
            .map(Some)
            .map_err(|_| input_error(format!("--{flag} {text}: expected {what} or `never`"))),
    };
    let from = |flag: &str, text: Option<&str>, default: Option<usize>| {
        sized(flag, "a list length", text, default)
    };
    let failing_sets_from = sized(
        "failing-sets-from",
        "a number of query vertices",
        args.failing_sets_from.as_deref(),
        gsi_core::tuning::FAILING_SETS_FROM,
    )?;
    let balance_from = from(
        "balance-from",
        args.balance_from.as_deref(),
        Some(gsi_core::tuning::BALANCE_FROM),
    )?;
    let block_pool_from = from(
        "block-pool-from",
        args.block_pool_from.as_deref(),
        gsi_core::tuning::BLOCK_POOL_FROM,
    )?;
    let leaf_counts_from = from(
        "leaf-counts-from",
        args.leaf_counts_from.as_deref(),
        Some(gsi_core::tuning::LEAF_COUNTS_FROM),
    )?;
    let narrow_rows_up_to = from(
        "narrow-rows-up-to",
        args.narrow_rows_up_to.as_deref(),
        Some(gsi_core::tuning::NARROW_ROWS_UP_TO),
    )?;
    let small_steps_up_to = from(
        "small-steps-up-to",
        args.small_steps_up_to.as_deref(),
        Some(gsi_core::tuning::SMALL_STEPS_UP_TO),
    )?;
    let kept_sets_up_to = from(
        "kept-sets-up-to",
        args.kept_sets_up_to.as_deref(),
        Some(gsi_core::tuning::KEPT_SETS_UP_TO),
    )?;
    let clique_bitmaps_up_to = from(
        "clique-bitmaps-up-to",
        args.clique_bitmaps_up_to.as_deref(),
        Some(gsi_core::tuning::CLIQUE_BITMAPS_UP_TO),
    )?;
    let semantics = match args.homomorphism {
        true => NamedSemantics::Vertices(Semantics::Homomorphism),
        false => args
            .semantics
            .unwrap_or(NamedSemantics::Vertices(Semantics::Isomorphism)),
    };
    let matching = Matching {
        options: MatchOptions {
            filter: match args.filter {
                FilterArg::Signature => FilterTests::Signature,
                FilterArg::LabelDegree => FilterTests::LabelAndDegree,
            },
            semantics: semantics.semantics(),
            absent_labels: semantics.absent_labels(),
            limit: None,
            deadline: None,
            memory_budget,
            interrupt: None,
            enough: None,
            overtaken: None,
            depth_first_rows,
            postpone_leaves: !args.no_leaf_products,
            share: args.partition.as_deref().map(share).transpose()?,
            share_cut: match args.share_cut {
                ShareCutArg::Rows => ShareCut::Rows,
                ShareCutArg::Grid => ShareCut::Grid,
                ShareCutArg::EvenGrid => ShareCut::EvenGrid,
            },
            rows_per_share: args.rows_per_share,
            shares_per_engine: args.shares_per_device,
            refine_rounds: args.refine_rounds,
            join_order: match args.join_order.as_str() {
                "paper" => JoinOrder::Paper,
                "growth" => JoinOrder::Growth,
                "links" => JoinOrder::Links,
                "core" => JoinOrder::Core,
                "triangles" => JoinOrder::Triangles,
                _ => JoinOrder::Sampled,
            },
            symmetry: !args.no_symmetry,
            tree_counts: match (args.no_tree_counts, args.always_tree_counts) {
                (true, _) => TreeCounts::Never,
                (false, true) => TreeCounts::Always,
                (false, false) => TreeCounts::ByEstimate,
            },
            equivalent_vertices: !args.no_equivalent_vertices,
            pinned_cores: !args.no_pinned_cores,
            program_candidate_edges: !args.no_program_candidate_edges,
            narrow_pools: !args.no_narrow_pools,
            pair_counts: match (args.no_pair_counts, args.always_pair_counts) {
                (true, _) => PairCounts::Never,
                (false, true) => PairCounts::Always,
                (false, false) => PairCounts::ByEstimate,
            },
            suffix_interchanges: match args.suffix_interchanges {
                SuffixInterchangesArg::Broken => SuffixInterchanges::Broken,
                SuffixInterchangesArg::ByEstimate => SuffixInterchanges::ByEstimate,
                SuffixInterchangesArg::Counted => SuffixInterchanges::Counted,
            },
            heavy_query_work: args.heavy_work,
            refine_for_programs_from: args.refine_for_programs_from,
            cyclic_quotients_from: args.cyclic_quotients_from,
            programs_beside_after,
            light_join_budget,
            // The engine that joins judges whether planning pays, unless told.
            planning_pays_from: args.planning_pays_from,
            pair_counts_from: None,
            program_cost: None,
            refine_from_share: None,
            pinned: Vec::new(),
        },
        timeout,
        edges: semantics.edges(),
    };
    let tuning = Tuning {
        cpu: CpuTuning {
            local_candidates: !args.no_local_candidates,
            kept_extensions: !args.no_kept_extensions,
            failing_sets_from,
            clique_bitmaps_up_to,
        },
        gpu: GpuTuning {
            depth_first_slice: gsi_core::tuning::DEPTH_FIRST_SLICE,
            balance_from,
            block_pool_from,
            duplicate_removal: args.duplicate_removal,
            write_cache: !args.no_write_cache,
            two_step_output: args.two_step_output,
            naive_set_operations: args.naive_set_operations,
            leaf_counts_from,
            narrow_rows_up_to,
            small_steps_up_to,
            kept_sets_up_to,
            packed_depth_first: !args.no_packed_depth_first,
            packed_rows_at_once: args.packed_rows_at_once,
            clique_bitmaps_up_to: clique_bitmaps_up_to
                .map(|n| n.min(gsi_core::tuning::CLIQUE_BITMAPS_UP_TO)),
            split_lists: !args.whole_lists,
            split_searches: !args.unsplit_searches,
            shortest_source: !args.first_edge_source,
            wide_leaf_products: args.wide_leaf_products,
            classes_on_device: !args.host_classes,
        },
    };
    Ok((matching, tuning))
}

/// `--partition I/K`: share I of K.
fn share(text: &str) -> Result<Share> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, k)| Some((i.trim().parse::<u32>().ok()?, k.trim().parse::<u32>().ok()?)));
    parsed.and_then(|(i, k)| Share::new(i, k)).ok_or_else(|| {
        input_error(format!(
            "--partition {text}: expected I/K with 0 <= I < K, such as 0/4"
        ))
    })
}

/// A positive number of seconds given to `flag`; one too large for a clock (`1e300`) is
/// as good as none, and reads as the longest duration.
pub fn seconds(flag: &str, s: f64) -> Result<Duration> {
    if s > 0.0 && s.is_finite() {
        Ok(Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX))
    } else {
        Err(input_error(format!(
            "{flag} {s}: expected a positive number of seconds"
        )))
    }
}

/// More worker threads than this many per logical CPU only cost time.
const THREADS_PER_CPU: usize = 4;

/// Checks `--engine`, `--device` and `--threads`; the engines' joins tuned by `tuning`.
pub fn engine_choice(args: &EngineArgs, tuning: Tuning) -> Result<EngineChoice> {
    if args.threads == Some(0) {
        return Err(input_error(
            "--threads 0: expected at least one thread".into(),
        ));
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if let Some(threads) = args.threads.filter(|&t| t > THREADS_PER_CPU * cpus) {
        return Err(input_error(format!(
            "--threads {threads}: at most {} here ({THREADS_PER_CPU} per logical CPU, of which this machine has {cpus})",
            THREADS_PER_CPU * cpus
        )));
    }
    let devices = args.devices.as_deref().map(Devices::parse).transpose()?;
    if devices.is_some() && args.engine == EngineArg::Cpu {
        return Err(input_error(
            "--devices: the CPU engine uses no GPU; use --engine gpu or auto".into(),
        ));
    }
    let kind = engine_kind(args.engine);
    Ok(EngineChoice {
        kind,
        config: EngineConfig {
            tuning,
            ..engine_config(kind, args.device)?
        },
        devices,
        threads: args.threads,
        index: index_options()?,
    })
}

/// The GPUs of `--devices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Devices {
    /// Every GPU the driver lists.
    All,
    /// These ordinals, in this order (repeats allowed: two engines on one GPU).
    List(Vec<usize>),
}

impl Devices {
    fn parse(text: &str) -> Result<Devices> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(Devices::All);
        }
        let ordinals: Option<Vec<usize>> = text.split(',').map(|o| o.trim().parse().ok()).collect();
        match ordinals {
            Some(list) if !list.is_empty() => Ok(Devices::List(list)),
            _ => Err(input_error(format!(
                "--devices {text}: expected GPU numbers separated by commas (0,1) or `all`"
            ))),
        }
    }

    /// The ordinals, `all` resolved through the driver.
    pub fn ordinals(&self) -> Result<Vec<usize>> {
        match self {
            Devices::List(list) => Ok(list.clone()),
            Devices::All => {
                let count = gsi_core::cuda::device_count().context("--devices all")?;
                Ok((0..count).collect())
            }
        }
    }
}

/// How data graphs are indexed: the library's measured default, or `GSI_PCSR_LAYOUT` and
/// `GSI_VERTEX_ORDER` (`auto`, `degree`, or `given` to keep the graph's own ids inside the index).
pub fn index_options() -> Result<IndexOptions> {
    let pcsr_layout = match std::env::var("GSI_PCSR_LAYOUT").as_deref() {
        Err(_) => PcsrLayout::default(),
        Ok("paper") => PcsrLayout::Paper,
        Ok("packed") => PcsrLayout::Packed,
        Ok(other) => {
            return Err(input_error(format!(
                "GSI_PCSR_LAYOUT={other}: expected `paper` or `packed`"
            )))
        }
    };
    let numbering = match std::env::var("GSI_VERTEX_ORDER").as_deref() {
        Err(_) | Ok("auto") => VertexNumbering::Auto,
        Ok("degree") => VertexNumbering::Degree,
        Ok("given") => VertexNumbering::Given,
        Ok(other) => {
            return Err(input_error(format!(
                "GSI_VERTEX_ORDER={other}: expected `auto`, `degree` or `given`"
            )))
        }
    };
    Ok(IndexOptions {
        pcsr_layout,
        numbering,
    })
}

/// The setup of engines of `kind` for GPU `device`: the library's measured defaults, with
/// the environment's overrides (README, "Environment").
pub fn engine_config(kind: EngineKind, device: usize) -> Result<EngineConfig> {
    // A number in `range`, or an error naming the variable and `expected`.
    let number = |name: &str, range: std::ops::RangeInclusive<f64>, expected: &str| {
        let text = match std::env::var(name) {
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(std::env::VarError::NotUnicode(text)) => text.to_string_lossy().into_owned(),
            Ok(text) => text,
        };
        match text.trim().parse::<f64>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(input_error(format!("{name}={text}: expected {expected}"))),
        }
    };
    let mut config = EngineConfig {
        device,
        kernel_cache: kernel_cache_dir(kind),
        ..EngineConfig::default()
    };
    let any = 0.0..=f64::MAX;
    if let Some(rows) = number(
        "GSI_AUTO_GPU_ROWS",
        any.clone(),
        "a number of rows, 0 or more",
    )? {
        config.auto_gpu_join_min_rows = rows;
    }
    if let Some(bytes) = number("GSI_GPU_PCSR_LIMIT", any, "a number of bytes, 0 or more")? {
        config.resident_index_limit = Some(bytes as usize);
    }
    let stage = 4096.0..=f64::from(u32::MAX);
    if let Some(bytes) = number("GSI_UPLOAD_STAGE_BYTES", stage, "4096 to 4294967295 bytes")? {
        config.upload_stage_bytes = bytes as usize;
    }
    if let Some(text) = std::env::var_os("GSI_GPU_BUFFER_CACHE") {
        config.keep_device_buffers = match text.to_str() {
            Some("on") => true,
            Some("off") => false,
            _ => {
                return Err(input_error(format!(
                    "GSI_GPU_BUFFER_CACHE={}: expected on or off",
                    text.to_string_lossy()
                )))
            }
        };
    }
    if let Some(text) = std::env::var_os("GSI_LIST_INDEX") {
        config.list_index = match text.to_str() {
            Some("auto") => None,
            Some("pcsr") => Some(gsi_core::ListIndex::Pcsr),
            Some("csr") => Some(gsi_core::ListIndex::Csr),
            Some("cr") => Some(gsi_core::ListIndex::Cr),
            _ => {
                return Err(input_error(format!(
                    "GSI_LIST_INDEX={}: expected auto, pcsr, csr or cr",
                    text.to_string_lossy()
                )))
            }
        };
    }
    Ok(config)
}

/// Where compiled kernels are kept ([`gsi_core::kernel_cache::kernel_cache_dir`]); when
/// nowhere, an engine that may use a GPU says why.
fn kernel_cache_dir(kind: EngineKind) -> Option<PathBuf> {
    gsi_core::kernel_cache::kernel_cache_dir(
        std::env::var_os("GSI_CACHE_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
    .map_err(|why| {
        if kind != EngineKind::Cpu {
            eprintln!("gsi: {why}");
        }
    })
    .ok()
}

/// How to read the data graph: `--format`, `--directed` and `--vertex-labels`, which only a
/// SNAP edge list can use.
pub fn read_options(args: &ReadArgs, memory: MemoryBound) -> Result<ReadOptions> {
    if let (Some(labels), false) = (
        &args.vertex_labels,
        matches!(args.format, Format::Auto | Format::Snap),
    ) {
        return Err(input_error(format!(
            "--vertex-labels {}: applies only to SNAP edge lists, not to --format {}",
            labels.display(),
            args.format
        )));
    }
    Ok(ReadOptions {
        format: args.format,
        directed: args.directed,
        vertex_labels: args.vertex_labels.clone(),
        memory: Some(memory),
    })
}

/// The most bytes of one input held in memory for a command with `--memory-limit`: the
/// memory budget.
fn budget_bound(args: &MatchingArgs, matching: &Matching) -> MemoryBound {
    MemoryBound {
        bytes: matching.options.memory_budget as u64,
        source: match &args.memory_limit {
            Some(text) => format!("--memory-limit {text}"),
            None => {
                "the memory budget, half of what this process may use; raise it with --memory-limit"
                    .into()
            }
        },
    }
}

/// The most bytes of one input held in memory for a command without a memory budget: half
/// of what this process may use, as the default budget (the graph built needs the rest).
pub fn process_bound() -> MemoryBound {
    let limit = crate::memory::process_limit();
    MemoryBound {
        bytes: limit.bytes / 2,
        source: format!("half of what this process may use, {limit}"),
    }
}

/// The bound within which a folder's files are read to pass over those that fit no format:
/// `None` (not read) where the query format is named.
pub fn sniff(query_format: Option<Format>, read: &ReadOptions) -> Option<&MemoryBound> {
    query_format.map_or(read.memory.as_ref(), |_| None)
}

/// How to read query files: in `--query-format`, by default the data's format where that is
/// one queries come in (Sun–Luo, GSI) and else detected; as directed as the data graph.
pub fn query_read_options(data: &ReadOptions, query_format: Option<Format>) -> ReadOptions {
    let format = query_format.unwrap_or(match data.format {
        Format::SunLuo | Format::Gsi => data.format,
        _ => Format::Auto,
    });
    ReadOptions {
        format,
        directed: data.directed,
        vertex_labels: None,
        memory: data.memory.clone(),
    }
}

/// Starts the worker pool, of `threads` threads where asked (else one a core), each of the
/// stack a query needs ([`gsi_core::config::WORKER_STACK_BYTES`]).
pub fn start_threads(threads: Option<usize>) -> Result<()> {
    let started = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(gsi_core::config::WORKER_STACK_BYTES)
        .build_global();
    match (started, threads) {
        // Started before in this process (`gsi verify` opens a session a case): it serves.
        (Err(_), None) | (Ok(()), _) => Ok(()),
        (Err(err), Some(_)) => Err(err).context("starting the worker threads"),
    }
}

pub fn engine_kind(arg: EngineArg) -> EngineKind {
    match arg {
        EngineArg::Auto => EngineKind::Auto,
        EngineArg::Cpu => EngineKind::Cpu,
        EngineArg::Gpu => EngineKind::Gpu,
    }
}

/// Parses sizes such as `512MiB`, `4GiB`, `1.5G` or `1000000` (bytes), the value of `flag`.
pub fn parse_size(flag: &str, text: &str) -> Result<usize> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| {
            input_error(format!(
                "{flag} {text}: {e}; expected a size such as 512MiB or 4GiB"
            ))
        })?;
    if bytes < 1024 {
        return Err(input_error(format!(
            "{flag} {text}: at least 1KiB is needed"
        )));
    }
    Ok(usize::try_from(bytes).unwrap_or(usize::MAX))
}

/// A hidden flag's milliseconds, `never` as [`Duration::MAX`]; `None` where not given.
fn millis_or_never(flag: &str, value: Option<&str>) -> Result<Option<Duration>> {
    value
        .map(|text| match text {
            "never" => Ok(Duration::MAX),
            _ => text.parse::<u64>().map(Duration::from_millis).map_err(|_| {
                input_error(format!("{flag} {text}: expected milliseconds or `never`"))
            }),
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_args(format: Format, labels: bool) -> ReadArgs {
        ReadArgs {
            format,
            directed: false,
            vertex_labels: labels.then(|| PathBuf::from("labels.txt")),
        }
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        let size = |text| parse_size("--memory-limit", text);
        assert_eq!(size("16MiB").unwrap(), 16 << 20);
        assert_eq!(size("2GiB").unwrap(), 2 << 30);
        assert_eq!(size("4096").unwrap(), 4096);
        assert!(size("lots").is_err());
        assert!(size("10").is_err());
    }

    #[test]
    fn vertex_labels_need_snap_or_auto() {
        for format in [Format::Auto, Format::Snap] {
            let read = read_options(&read_args(format, true), process_bound()).unwrap();
            assert_eq!(read.vertex_labels, Some(PathBuf::from("labels.txt")));
        }
        for format in [Format::SunLuo, Format::Gsi, Format::NTriples] {
            let err = read_options(&read_args(format, true), process_bound()).unwrap_err();
            let text = err.to_string();
            assert!(
                text.contains("--vertex-labels") && text.contains("--format"),
                "{text}"
            );
            assert_eq!(
                crate::exit::Exit::of_error(&err),
                crate::exit::Exit::BadInput
            );
            assert!(read_options(&read_args(format, false), process_bound()).is_ok());
        }
    }

    #[test]
    fn queries_follow_the_data_format_where_queries_come_in_it() {
        let cases = [
            (Format::Auto, None, Format::Auto),
            (Format::SunLuo, None, Format::SunLuo),
            (Format::Gsi, None, Format::Gsi),
            (Format::Snap, None, Format::Auto),
            (Format::NTriples, None, Format::Auto),
            (Format::Snap, Some(Format::Gsi), Format::Gsi),
        ];
        for (data, asked, expected) in cases {
            let read =
                read_options(&read_args(data, data == Format::Snap), process_bound()).unwrap();
            let query = query_read_options(&read, asked);
            assert_eq!(query.format, expected, "{data} {asked:?}");
            assert_eq!(query.vertex_labels, None);
        }
    }

    #[test]
    fn seconds_must_be_positive_and_finite() {
        assert_eq!(
            seconds("--timeout", 1.5).unwrap(),
            Duration::from_millis(1500)
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err = seconds("--timeout", bad).unwrap_err().to_string();
            assert!(err.starts_with("--timeout"), "{err}");
        }
        // Long timeouts are fine, however long.
        assert_eq!(
            seconds("--timeout", 1e9).unwrap(),
            Duration::from_secs(1_000_000_000)
        );
        assert_eq!(seconds("--timeout", 1e300).unwrap(), Duration::MAX);
    }
}
