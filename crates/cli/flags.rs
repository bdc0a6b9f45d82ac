//! Command-line flags, as typed (clap derive). Validation happens in `config.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exact subgraph matching on the GPU and the CPU (GSI, ICDE 2020).
///
/// gsi finds every embedding of a small labelled query graph in a large labelled data graph.
/// Run `gsi` or `gsi demo` for a worked example, `gsi match --help` for the main command.
#[derive(Debug, Parser)]
#[command(name = "gsi", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find the matches of query graphs in a data graph.
    Match(MatchArgs),
    /// Answer a query on a small built-in graph of drug molecules.
    Demo(DemoArgs),
    /// Check the GPU engine against the CPU engine, on generated graphs and on given files.
    Verify(VerifyArgs),
}

/// `gsi verify`: run every case on both engines and compare candidate sets, counts and matches.
///
/// Without --data, checks generated cases: vertex- and edge-labelled graphs, directed and
/// undirected, isomorphism and homomorphism, graphs that force PCSR overflow chains and memory
/// limits that force chunking. With --data and --query, checks those queries too. Prints one
/// line per mismatch and ends with `N passed, M failed`; exits 1 on any mismatch.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A data graph to check queries on.
    #[arg(long, short = 'd', value_name = "FILE", requires = "query")]
    pub data: Option<PathBuf>,

    /// Query files or directories (with --data).
    #[arg(long, short = 'q', value_name = "PATH", num_args = 1..)]
    pub query: Vec<PathBuf>,

    /// Format of the graph files.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,

    /// Read the given graphs as directed.
    #[arg(long)]
    pub directed: bool,

    /// Also check the given queries under homomorphism.
    #[arg(long)]
    pub homomorphism: bool,

    /// Generated cases to check (default: 48 without --data, 0 with it).
    #[arg(long, value_name = "N")]
    pub generated: Option<usize>,

    /// Seed of the generated cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Seconds the CPU engine may spend on one case; cases it cannot finish are skipped.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,

    /// Which GPU to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Which engine runs the demo.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
}

/// `gsi match`: load and index the data graph once, then answer every query.
///
/// Counts are exact: a match is an injective map from query vertices to data vertices that
/// keeps vertex labels and maps every query edge onto a data edge with the same label (and
/// direction, with --directed). Automorphic copies count separately.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi match --data yeast.graph --query query_dense_8_1.graph\n  gsi match --data hprd.graph --query queries/ --json > results.jsonl\n  gsi match --data g.graph --query q.graph --output matches.txt --limit 1000"
)]
pub struct MatchArgs {
    /// The data graph file.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    /// Query graph files, or directories of them (every file inside, in natural order).
    ///
    /// The data graph is loaded and indexed once for all of them.
    #[arg(long, short = 'q', value_name = "PATH", num_args = 1.., required = true, help_heading = "Input")]
    pub query: Vec<PathBuf>,

    /// Format of the graph files.
    ///
    /// `auto` decides from each file's content.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto, help_heading = "Input")]
    pub format: FormatArg,

    /// Read both graphs as directed: edge `u v` means u -> v.
    ///
    /// A query edge must then map to a data edge of the same direction and label.
    #[arg(long, help_heading = "Input")]
    pub directed: bool,

    /// Match homomorphisms: distinct query vertices may map to the same data vertex.
    #[arg(long, help_heading = "Matching")]
    pub homomorphism: bool,

    /// Stop each query after this many matches (status `limit`).
    #[arg(long, value_name = "K", help_heading = "Matching")]
    pub limit: Option<u64>,

    /// Give up on a query after this many seconds (status `timeout`; the count is then the
    /// number of matches found so far).
    #[arg(long, value_name = "SECONDS", help_heading = "Matching")]
    pub timeout: Option<f64>,

    /// Memory the join's intermediate tables may use, such as `512MiB` or `4GiB`.
    ///
    /// Larger work is split in chunks and processed depth-first, so queries do not fail for
    /// lack of memory. Default: half of the machine's RAM.
    #[arg(long, value_name = "SIZE", help_heading = "Matching")]
    pub memory_limit: Option<String>,

    /// Which engine answers the queries.
    ///
    /// `auto` uses the GPU when one is usable and falls back to the CPU, saying why.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto, help_heading = "Engine")]
    pub engine: EngineArg,

    /// Which GPU to use (with the GPU engine).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Engine")]
    pub device: usize,

    /// Worker threads of the CPU engine. Default: one per core.
    #[arg(long, value_name = "N", help_heading = "Engine")]
    pub threads: Option<usize>,

    /// Write every match to FILE, one line each: the data vertex ids in query-vertex order.
    ///
    /// With several queries, each query's matches follow a line `# QUERY`.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// Print each query's join plan and candidate-set sizes.
    #[arg(long, help_heading = "Output")]
    pub explain: bool,

    /// Print JSON Lines: one object per query, then a summary object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Print no progress bar and no notes on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Decide from the file's content.
    Auto,
    /// `t N M`, `v id label degree`, `e u v [label]` (the subgraph-matching benchmarks).
    Sunluo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The GPU when usable, else the CPU.
    Auto,
    /// The CPU engine.
    Cpu,
    /// The GPU engine; an error when no GPU is usable.
    Gpu,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn flags_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn query_accepts_several_paths() {
        let cli = Cli::try_parse_from(["gsi", "match", "-d", "g", "-q", "a", "b"]).unwrap();
        let Some(Command::Match(args)) = cli.command else {
            panic!()
        };
        assert_eq!(args.query.len(), 2);
    }
}
