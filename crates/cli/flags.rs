//! Command-line flags, as typed (clap derive). Validation happens in `config.rs`.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use gsi_core::NamedSemantics;
use gsi_generate::{Preset, Shape};
use gsi_graph::formats::{Format, UnknownFormat};

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
    ///
    /// Loads and indexes the data graph once, then answers every query. Counts are exact: a
    /// match is an injective map from query vertices to data vertices that keeps vertex labels
    /// and maps every query edge onto a data edge with the same label (and direction, with
    /// --directed). Automorphic copies count separately.
    Match(MatchArgs),
    /// Answer a query on a small built-in graph of drug molecules.
    Demo(DemoArgs),
    /// Time queries: each run several times on a data graph loaded and indexed once.
    ///
    /// Loads, indexes and uploads the data graph once, runs each query W warm-up times and then
    /// R timed times (counting matches only), and reports per query the median and fastest
    /// time and, for the set, the mean, median, 95th percentile, maximum and sum of the
    /// per-query medians. A query that times out is not run again: its one timed run counts,
    /// with status `timeout`, and its time enters the statistics; queries that fail do not.
    /// The summary also gives the median time of each phase over the queries, the load, index
    /// and upload times, the peak memory of the process and of the join, the engines that ran
    /// and the machine.
    Bench(BenchArgs),
    /// Describe a graph file: size, labels, degrees, load and index times, index size.
    ///
    /// Prints `key = value` lines (or one JSON object per graph with --json): vertices, edges,
    /// whether directed, how many vertex and edge labels occur and the five most frequent of
    /// each with their counts, the minimum, mean, median and maximum degree (in and out edges
    /// together for a directed graph), the time to read the file and to build gsi's index,
    /// the index's size, the PCSR partitions and their longest overflow chain, dropped
    /// repeated edges and self-loops, and for RDF the sizes of the term and label
    /// dictionaries. A GSI file of several graphs gets one description per graph.
    Info(InfoArgs),
    /// Save a data graph with its index, to be mapped instead of read and indexed again.
    ///
    /// Reads GRAPH in any format gsi reads, builds the index every engine uses (the
    /// signature table and the PCSR of each edge label) and writes both, with the file's
    /// vertex names and label dictionaries, to one binary file (`.gsidx` by custom). Every
    /// command that takes a graph takes that file in its place, told by its first bytes, and
    /// maps it: no parsing, no indexing. The file is versioned and checksummed: a damaged or
    /// truncated file, one written by another version of the format, or one whose graph file
    /// has changed since (stale) is an error that says so. The index is built with the
    /// PCSR layout of GSI_PCSR_LAYOUT, and keeps it.
    Index(IndexArgs),
    /// Convert a graph file to Sun–Luo or GSI text.
    ///
    /// Reads any format gsi reads and writes the same graph: vertices numbered 0 to N-1 in
    /// the order the reader gave them (for SNAP and RDF, the order of first
    /// appearance), labels as read. The names the numbers stand for (SNAP ids, RDF terms,
    /// label names) go beside the output, to OUTPUT.ids, OUTPUT.vertex-labels and
    /// OUTPUT.edge-labels, `number name` per line. A GSI file of several
    /// graphs converts only to GSI. Reading the output back with the same --directed gives
    /// the same graph, and so the same answers to every query.
    Convert(ConvertArgs),
    /// Generate seeded data graphs and queries.
    ///
    /// `gsi generate graph` makes a labelled data graph, from sizes or shaped like one of the
    /// GSI paper's datasets; `gsi generate queries` draws connected queries from a data graph
    /// by random walks. The same flags and seed give the same files on every machine.
    Generate(GenerateArgs),
    /// Check the GPU engine against the CPU engine, on generated graphs and on given files.
    ///
    /// Without --data, checks generated cases: vertex- and edge-labelled graphs (some of two
    /// labels a vertex), directed and undirected, isomorphism, homomorphism and induced, graphs
    /// that force PCSR overflow chains and memory limits that force chunking. With --data and
    /// --query, checks those queries too.
    /// Prints one line per mismatch and ends with `N passed, M failed`; exits 1 on any
    /// mismatch.
    Verify(VerifyArgs),
    /// Answer a SPARQL query over RDF data (N-Triples, Turtle or a saved index of them).
    ///
    /// The query is one basic graph pattern, with FILTERs of `=`, `!=`, sameTerm, isIRI,
    /// isLiteral, isBlank and LANG, under SELECT (projection, `*`, DISTINCT, REDUCED, ORDER BY
    /// on variables, LIMIT, OFFSET), ASK or `SELECT (COUNT(*) AS ?n)`, matched by homomorphism
    /// with bag semantics; anything else is refused by name. Results are written as they are
    /// found (under ORDER BY, once all are found and sorted).
    Sparql(SparqlArgs),
    /// Serve RDF data over the SPARQL 1.1 Protocol, with a query page, loaded once.
    ///
    /// `GET`/`POST /sparql` answers the fragment `gsi sparql` answers, results chosen by
    /// `Accept` (SPARQL JSON, XML, CSV, TSV); `POST /match` matches a query graph in Sun–Luo
    /// text; `GET /` is a query page; `GET /health` and `GET /metrics` (Prometheus). Read-only;
    /// listens on localhost unless told otherwise; SIGTERM or Ctrl-C cancels the queries under
    /// way and stops.
    Serve(ServeArgs),
    /// Add up the shares of `gsi match --partition I/K --json` runs.
    ///
    /// Reads the JSON Lines of the K runs of one set of queries over one data graph, one file
    /// per share, and prints each query's count over all K shares (the sum, modulo 2^64 as
    /// every count), its gravest status and whether every share was complete, then a summary.
    /// Refuses, naming the file, a set that is not whole or not one: a share missing or given
    /// twice, runs of different K or data files, a run that did not finish (no summary, or
    /// interrupted), a query missing from a share, a line that is not JSON.
    Merge(MergeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    ///
    /// For bash: `gsi completions bash > ~/.local/share/bash-completion/completions/gsi`.
    Completions(CompletionsArgs),
    /// Print gsi's manual page (roff), or a command's: `gsi man > gsi.1; man ./gsi.1`.
    #[command(
        after_help = "Examples:\n  gsi man > gsi.1 && man ./gsi.1\n  gsi man match > gsi-match.1\n  gsi man generate graph > gsi-generate-graph.1"
    )]
    Man(ManArgs),
}

/// `gsi completions` (documented on [`Command::Completions`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi completions bash > ~/.local/share/bash-completion/completions/gsi\n  gsi completions zsh > ~/.zfunc/_gsi\n  gsi completions fish > ~/.config/fish/completions/gsi.fish"
)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `gsi man` (documented on [`Command::Man`]).
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (`match`, `generate graph`); none: gsi's own page.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `gsi info` (documented on [`Command::Info`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi info yeast.graph\n  gsi info soc-Epinions1.txt --format snap --json\n  gsi info watdiv.nt"
)]
pub struct InfoArgs {
    /// The graph file.
    #[arg(value_name = "GRAPH")]
    pub graph: PathBuf,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Print one JSON object per graph instead of `key = value` lines.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Print no progress spinner and no notes on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// `gsi index` (documented on [`Command::Index`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi index watdiv.graph -o watdiv.gsidx\n  gsi match --data watdiv.gsidx --query q.graph\n  gsi index web.txt --format snap --directed -o web.gsidx"
)]
pub struct IndexArgs {
    /// The graph file to index.
    #[arg(value_name = "GRAPH")]
    pub graph: PathBuf,

    #[command(flatten)]
    pub read: ReadArgs,

    /// The index file to write (replaced if it exists, only once complete); a file, since
    /// commands map it (`-` is refused).
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: PathBuf,

    /// Print no progress spinner and no notes or summary on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// `gsi convert` (documented on [`Command::Convert`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi convert yeast.graph --to gsi -o yeast.gsi\n  gsi convert web.txt --vertex-labels labels.txt --to sunluo -o web.graph\n  gsi convert queries.gsi --to gsi -o copy.gsi"
)]
pub struct ConvertArgs {
    /// The graph file to convert.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Format to write: `sunluo` (`t N M`, `v id label degree`, `e u v label`), `gsi`
    /// (`t # 0`, `N M maxVertexLabel maxEdgeLabel`, `v id label`, `e u v label`, `t # -1`,
    /// labels one higher) or `gmatch-csr` (gMatch's binary CSR: one undirected graph, one
    /// label per vertex, no edge labels).
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Output")]
    pub to: WriteFormat,

    /// The file to write (replaced if it exists); `-`: standard output (the names the
    /// numbers stand for are then not written).
    #[arg(long, short = 'o', value_name = "OUTPUT", help_heading = "Output")]
    pub output: PathBuf,

    /// Print no progress spinner and no notes or summary on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// How a query is cut into shares ([`gsi_core::ShareCut`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShareCutArg {
    Rows,
    Grid,
    EvenGrid,
}

/// Whether a count breaks the interchanges of its leaf suffix's vertices
/// ([`gsi_core::SuffixInterchanges`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SuffixInterchangesArg {
    Broken,
    ByEstimate,
    Counted,
}

/// A format gsi writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WriteFormat {
    /// Sun–Luo text, one graph per file.
    Sunluo,
    /// GSI text, one or several graphs per file.
    Gsi,
    /// gMatch's binary CSR, one undirected graph per file.
    GmatchCsr,
}

impl WriteFormat {
    pub fn format(self) -> gsi_graph::formats::write::WriteFormat {
        use gsi_graph::formats::write::WriteFormat as Written;
        match self {
            WriteFormat::Sunluo => Written::SunLuo,
            WriteFormat::Gsi => Written::Gsi,
            WriteFormat::GmatchCsr => Written::GmatchCsr,
        }
    }
}

/// `gsi generate`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi generate graph --like enron --scale 0.1 -o enron.graph\n  gsi generate queries --data enron.graph --size 8 --count 100 -o queries/\n  gsi generate graph --help"
)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub what: GenerateCommand,
}

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Generate a labelled data graph.
    ///
    /// Exactly --edges distinct edges (no self-loops) on --vertices vertices, laid out as
    /// --shape, with vertex and edge labels drawn from Zipf distributions (label 0 the most
    /// frequent). --like takes the sizes, label counts and shape of a dataset of the GSI
    /// paper instead, multiplied by --scale.
    Graph(GenerateGraphArgs),
    /// Generate connected queries from a data graph by random walks.
    ///
    /// Each query walks the data graph from a random vertex until it has visited --size
    /// vertices and keeps them with every edge among them (--dense) or with the walk's
    /// spanning tree and K/4 more edges among them (--sparse), so it has at least one match.
    /// Writes one Sun–Luo file per query, `query_{dense|sparse}_{K}_{i}.graph` with i from 1.
    Queries(GenerateQueriesArgs),
    /// Generate RDF shaped like WatDiv, as N-Triples.
    ///
    /// Typed entities of WatDiv's vocabularies (users, products, reviews, offers, retailers,
    /// purchases, websites, cities, countries, genres, topics...), 86 predicates with
    /// rdf:type, skewed degrees, literals with datatypes and languages: about --triples
    /// triples (within 5 %), the same for the same seed. Compressed with gzip when the
    /// file's name ends in `.gz`. The queries of benches/watdiv have answers on it.
    Rdf(GenerateRdfArgs),
}

/// `gsi generate graph` (documented on [`GenerateCommand::Graph`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi generate graph --vertices 100000 --edges 1000000 --vertex-labels 10 --edge-labels 4 -o g.graph\n  gsi generate graph --like gowalla --scale 0.1 --seed 7 -o gowalla-0.1.graph\n  gsi generate graph --vertices 4096 --edges 8000 --shape mesh --directed --to gsi -o mesh.gsi"
)]
pub struct GenerateGraphArgs {
    /// Number of vertices, N.
    #[arg(
        long,
        value_name = "N",
        required_unless_present = "like",
        conflicts_with = "like",
        help_heading = "Graph"
    )]
    pub vertices: Option<usize>,

    /// Number of edges, M: exactly this many distinct edges, without self-loops.
    #[arg(
        long,
        value_name = "M",
        required_unless_present = "like",
        conflicts_with = "like",
        help_heading = "Graph"
    )]
    pub edges: Option<usize>,

    /// Number of vertex labels; labels are 0 to A-1, Zipf-distributed. Default: 1.
    #[arg(
        long,
        value_name = "A",
        conflicts_with = "like",
        help_heading = "Graph"
    )]
    pub vertex_labels: Option<u32>,

    /// Number of edge labels; labels are 0 to B-1, Zipf-distributed. Default: 1.
    #[arg(
        long,
        value_name = "B",
        conflicts_with = "like",
        help_heading = "Graph"
    )]
    pub edge_labels: Option<u32>,

    /// How edges are laid out: `scale-free` (power-law degrees, as social, citation and RDF
    /// graphs), `mesh` (a road-network-like grid, degrees at most 8) or `uniform`
    /// (Erdős–Rényi). Default: scale-free.
    #[arg(
        long,
        value_name = "SHAPE",
        value_parser = parse_shape,
        conflicts_with = "like",
        help_heading = "Graph"
    )]
    pub shape: Option<Shape>,

    /// Shape the graph like a dataset of the GSI paper: enron, gowalla, patent, road, watdiv
    /// or dbpedia (sizes, label counts and shape; undirected unless --directed).
    #[arg(long, value_name = "DATASET", value_parser = parse_preset, help_heading = "Graph")]
    pub like: Option<Preset>,

    /// Multiply the --like dataset's vertices and edges by F (label counts are kept).
    /// Default: 1, the full size.
    #[arg(
        long,
        value_name = "F",
        requires = "like",
        conflicts_with_all = ["vertices", "edges", "vertex_labels", "edge_labels", "shape"],
        allow_negative_numbers = true,
        help_heading = "Graph"
    )]
    pub scale: Option<f64>,

    /// Labels drawn for each vertex: with K > 1, each vertex draws K - 1 further labels from
    /// the same distribution and keeps the distinct ones (files then carry label lists,
    /// `v 0 3,7 2`). Default: 1.
    #[arg(long, value_name = "K", default_value_t = 1, help_heading = "Graph")]
    pub labels_per_vertex: u32,

    /// Directed edges.
    #[arg(long, help_heading = "Graph")]
    pub directed: bool,

    /// The seed: the same flags and seed give the same graph.
    #[arg(long, value_name = "S", default_value_t = 0, help_heading = "Graph")]
    pub seed: u64,

    /// The file to write (replaced if it exists); `-` or none: standard output.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// Format to write.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = WriteFormat::Sunluo, help_heading = "Output")]
    pub to: WriteFormat,

    /// Print no progress spinner and no summary on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

fn parse_shape(text: &str) -> Result<Shape, gsi_generate::Error> {
    text.parse()
}

fn parse_preset(text: &str) -> Result<Preset, gsi_generate::Error> {
    text.parse()
}

/// `gsi generate rdf` (documented on [`GenerateCommand::Rdf`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi generate rdf --triples 1000000 -o watdiv-1m.nt\n  gsi generate rdf --triples 10000000 --seed 3 -o watdiv-10m.nt.gz"
)]
pub struct GenerateRdfArgs {
    /// Triples to make, N (at least 10000).
    #[arg(long, value_name = "N", help_heading = "Data")]
    pub triples: u64,

    /// The seed: the same N and seed give the same triples.
    #[arg(long, value_name = "S", default_value_t = 0, help_heading = "Data")]
    pub seed: u64,

    /// The file to write (replaced if it exists; gzip if its name ends in `.gz`); `-` or
    /// none: standard output.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// Print no progress spinner and no summary on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// `gsi generate queries` (documented on [`GenerateCommand::Queries`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi generate queries --data yeast.graph --size 8 --count 100 --dense -o queries/\n  gsi generate queries --data g.graph --size 12 --count 20 --sparse --seed 3 -o q12/"
)]
pub struct GenerateQueriesArgs {
    /// The data graph to draw queries from.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Vertices per query, K.
    #[arg(long, value_name = "K", help_heading = "Queries")]
    pub size: usize,

    /// Number of queries.
    #[arg(long, value_name = "N", default_value_t = 10, help_heading = "Queries")]
    pub count: usize,

    /// Keep every data edge among the walked vertices (the default).
    #[arg(long, conflicts_with = "sparse", help_heading = "Queries")]
    pub dense: bool,

    /// Keep the walk's spanning tree and K/4 more edges among the walked vertices.
    #[arg(long, help_heading = "Queries")]
    pub sparse: bool,

    /// The seed: the same data, flags and seed give the same queries.
    #[arg(long, value_name = "S", default_value_t = 0, help_heading = "Queries")]
    pub seed: u64,

    /// The folder to write the queries into (made if missing; files of the same names are
    /// replaced).
    #[arg(long, short = 'o', value_name = "DIR", help_heading = "Output")]
    pub output: PathBuf,

    /// Print no progress spinner and no summary on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// `gsi bench` (documented on [`Command::Bench`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi bench --data hprd.graph --query queries/ --engine cpu --repeat 5\n  gsi bench --data enron.graph --query q/ --engine gpu --repeat 10 --warmup 2 --timeout 60 --json > bench.jsonl"
)]
pub struct BenchArgs {
    /// The data graph file.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    /// Query graph files, or directories of them (every file inside, in natural order); a
    /// GSI file holding several graphs gives one query each, named `FILE#INDEX`.
    #[arg(long, short = 'q', value_name = "PATH", num_args = 1.., required = true, help_heading = "Input")]
    pub query: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Format of the query files. Default: --format when that is sunluo or gsi, else auto.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = "Input")]
    pub query_format: Option<Format>,

    /// Timed runs of each query; the median and the fastest are reported.
    #[arg(
        long,
        short = 'r',
        value_name = "R",
        default_value_t = 5,
        help_heading = "Runs"
    )]
    pub repeat: usize,

    /// Untimed runs of each query before the timed ones (caches, device warm-up).
    #[arg(long, value_name = "W", default_value_t = 1, help_heading = "Runs")]
    pub warmup: usize,

    #[command(flatten)]
    pub matching: MatchingArgs,

    #[command(flatten)]
    pub engine: EngineArgs,

    /// Print JSON Lines: one object per query, then a summary object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Print no progress bar and no notes on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// How to read graph files: shared by every command that reads them.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Format of the graph files: auto, sunluo, gsi, snap, ntriples or turtle.
    ///
    /// `auto` reads a file named `.ttl` (or `.ttl.gz`, `.ttl.bz2`, `.ttl.xz`, `.ttl.zst`) as
    /// RDF Turtle, and else decides from its first meaningful line: `t N M` is Sun–Luo,
    /// `t # 0` is GSI (which may hold several graphs), `u v [label]` is a SNAP edge list,
    /// `@prefix` or `PREFIX` is Turtle and `<s> <p> <o> .` is RDF N-Triples.
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "auto",
        value_parser = parse_format,
        help_heading = "Input"
    )]
    pub format: Format,

    /// Read the graphs as directed: edge `u v` means u -> v.
    ///
    /// A query edge must then map to a data edge of the same direction and label.
    /// RDF graphs are always directed, and queries are read as directed as the data
    /// graph.
    #[arg(long, help_heading = "Input")]
    pub directed: bool,

    /// Vertex labels of a SNAP edge list: a file of `id label` lines, by original id.
    ///
    /// Vertices it does not name get label 0. Only for SNAP data graphs.
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    pub vertex_labels: Option<PathBuf>,
}

fn parse_format(text: &str) -> Result<Format, UnknownFormat> {
    text.parse()
}

/// Engine choice: shared by `gsi match` and `gsi bench`.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Which engine answers the queries.
    ///
    /// `auto` uses the GPU when one is usable and falls back to the CPU, saying why; per
    /// query it runs each phase where it is expected to be faster.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto, help_heading = "Engine")]
    pub engine: EngineArg,

    /// Which GPU to use (with the GPU engine).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Engine")]
    pub device: usize,

    /// Use several GPUs: `0,1`, `all`, or one GPU more than once (`0,0`).
    ///
    /// Each GPU gets the whole index. A counted query (no --output, no --limit) whose plan
    /// expects many rows, or that the first GPU has not finished in 10 ms, is cut into 8
    /// shares per GPU, as --partition cuts it, dealt to the GPUs as they come free; its count
    /// is the sum. Other queries run on the first GPU.
    #[arg(
        long,
        value_name = "LIST",
        conflicts_with = "device",
        help_heading = "Engine"
    )]
    pub devices: Option<String>,

    /// Worker threads of the CPU engine. Default: one per core.
    #[arg(long, value_name = "N", help_heading = "Engine")]
    pub threads: Option<usize>,
}

/// `gsi merge` (documented on [`Command::Merge`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  for i in 0 1 2 3; do gsi match --data g.gsidx --query q/ --partition $i/4 --json > share-$i.jsonl; done\n  gsi merge share-*.jsonl\n  gsi merge --json share-*.jsonl"
)]
pub struct MergeArgs {
    /// The JSON Lines of each share's run, one file per share, in any order.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,

    /// Print JSON Lines (one object per query, then a summary) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `gsi verify` (documented on [`Command::Verify`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi verify\n  gsi verify --data hprd.graph --query queries/ --homomorphism"
)]
pub struct VerifyArgs {
    /// A data graph to check queries on.
    #[arg(
        long,
        short = 'd',
        value_name = "FILE",
        requires = "query",
        help_heading = "Input"
    )]
    pub data: Option<PathBuf>,

    /// Query files or directories (with --data); every graph of a GSI file is checked.
    #[arg(long, short = 'q', value_name = "PATH", num_args = 1.., help_heading = "Input")]
    pub query: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Format of the query files. Default: --format when that is sunluo or gsi, else auto
    /// (queries of a SNAP or N-Triples data graph are usually Sun–Luo or GSI files).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = "Input")]
    pub query_format: Option<Format>,

    /// Also check the given queries under homomorphism.
    #[arg(long)]
    pub homomorphism: bool,

    /// Also check the given queries as induced matches.
    #[arg(long)]
    pub induced: bool,

    /// Generated cases to check (default: 48 without --data, 0 with it).
    #[arg(long, value_name = "N")]
    pub generated: Option<usize>,

    /// Seed of the generated cases.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Seconds the CPU engine may spend on one case; cases it cannot finish are skipped.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    pub timeout: f64,

    /// Which GPU to use.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub device: usize,
}

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  gsi demo\n  gsi demo --engine cpu")]
pub struct DemoArgs {
    /// Which engine runs the demo.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
}

/// `gsi match` (documented on [`Command::Match`]).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi match --data yeast.graph --query query_dense_8_1.graph\n  gsi match --data hprd.graph --query queries/ --json > results.jsonl\n  gsi match --data g.graph --query q.graph --output matches.txt --limit 1000\n  gsi match --data web.txt --format snap --vertex-labels labels.txt --query q.graph -o m.txt"
)]
pub struct MatchArgs {
    /// The data graph file.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    /// Query graph files, or directories of them (every file inside, in natural order).
    ///
    /// The data graph is loaded and indexed once for all of them. A GSI file holding
    /// several graphs gives several queries, named `FILE#0`, `FILE#1`, ...
    #[arg(long, short = 'q', value_name = "PATH", num_args = 1.., required = true, help_heading = "Input")]
    pub query: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Format of the query files. Default: --format when that is sunluo or gsi, else auto
    /// (queries of a SNAP or N-Triples data graph are usually Sun–Luo or GSI files).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format, help_heading = "Input")]
    pub query_format: Option<Format>,

    #[command(flatten)]
    pub matching: MatchingArgs,

    /// Stop each query after this many matches (status `limit`).
    #[arg(
        long,
        value_name = "K",
        allow_negative_numbers = true,
        help_heading = "Matching"
    )]
    pub limit: Option<u64>,

    #[command(flatten)]
    pub engine: EngineArgs,

    /// Write every match to FILE (`-`: standard output), one line each: the data vertices in
    /// query-vertex order.
    ///
    /// With several queries, each query's matches follow a line `# QUERY`. The file replaces
    /// FILE only once complete; with `-`, the table and summary go to standard error. A run
    /// stopped by a signal ends the file with `# incomplete: ...`, and a query stopped by
    /// `--timeout` ends its matches with such a line. Matches stream out as they are found.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// How --output names data vertices: `original` (the SNAP ids or RDF terms of the file)
    /// or `dense` (gsi's vertex numbers, 0 to N-1).
    ///
    /// Default: original where the data file names its vertices (SNAP, RDF), else
    /// dense (Sun–Luo and GSI vertices are already numbered densely).
    #[arg(
        long,
        value_enum,
        value_name = "IDS",
        requires = "output",
        help_heading = "Output"
    )]
    pub output_ids: Option<OutputIds>,

    /// Print each query's join plan and candidate-set sizes.
    #[arg(long, help_heading = "Output")]
    pub explain: bool,

    /// Print JSON Lines: one object per query, then a summary object.
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Print no progress bar and no notes on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,

    /// For tests and measurements: with a GPU, each query is filtered and planned by its
    /// engine after the one before has ended, not on the host ahead of time.
    #[arg(long, hide = true)]
    pub no_plan_ahead: bool,
}

/// How queries are matched: shared by `gsi match` and `gsi bench`.
#[derive(Debug, Args)]
pub struct MatchingArgs {
    /// Match homomorphisms: distinct query vertices may map to the same data vertex (the
    /// same as `--semantics homomorphism`).
    #[arg(long, help_heading = "Matching", conflicts_with = "semantics")]
    pub homomorphism: bool,

    /// What a match is: `isomorphism` (distinct data vertices, every query edge kept; the
    /// default), `homomorphism` (data vertices may repeat), `induced` (isomorphism, and no
    /// data edge between two matched vertices that the query does not have between theirs) or
    /// `edge-isomorphism` (query edges to distinct data edges of the same labels and endpoint
    /// labels, two sharing as many endpoints as their images, of the same labels;
    /// undirected graphs; `--output` lists data edges `a-b`, in the order of the query's edges
    /// by lower endpoint, then higher, then label).
    #[arg(
        long,
        value_name = "SEMANTICS",
        value_parser = semantics_names(),
        help_heading = "Matching"
    )]
    pub semantics: Option<NamedSemantics>,

    /// Give up on a query after this many seconds (status `timeout`; the count is then the
    /// number of matches found so far).
    #[arg(
        long,
        value_name = "SECONDS",
        allow_negative_numbers = true,
        help_heading = "Matching"
    )]
    pub timeout: Option<f64>,

    /// Memory the join's intermediate tables may use, such as `512MiB` or `4GiB`.
    ///
    /// Larger work is split in chunks and processed depth-first, so queries do not fail for
    /// lack of memory. Default: half of what this process may use, the least of the machine's
    /// RAM, the address-space limit (ulimit -v) and its control group's memory limit; a
    /// larger value is refused.
    #[arg(
        long,
        value_name = "SIZE",
        allow_hyphen_values = true,
        help_heading = "Matching"
    )]
    pub memory_limit: Option<String>,

    /// Answer only share I of K disjoint shares of each query's matches (0 <= I < K), to
    /// spread one query over processes or machines: the counts of the K shares add up to the
    /// whole count and their matches are disjoint. `--limit` applies to each share.
    #[arg(long, value_name = "I/K", help_heading = "Matching")]
    pub partition: Option<String>,

    /// For tests and measurements: when counting, finish depth-first from a step with at
    /// least N rows (`0`: at once; `never`: breadth-first to the last step). Default: the
    /// engine's own threshold.
    #[arg(long, value_name = "N|never", hide = true)]
    pub depth_first_rows: Option<String>,

    /// For tests and measurements: the GPU gives a row whose list is longer than N to whole
    /// blocks, in pieces of 16 N (`never`: every row to one warp). Default: 1024.
    #[arg(long, value_name = "N|never", hide = true)]
    pub balance_from: Option<String>,

    /// For tests and measurements: the GPU's warps of a block share out the lists longer than
    /// N that are not given to whole blocks, the paper's third balance layer (`never`: each
    /// warp joins its own row). Default: never.
    #[arg(long, value_name = "N|never", hide = true)]
    pub block_pool_from: Option<String>,

    /// For tests and measurements: the GPU's warps of a block whose rows read the same short
    /// list read it once, into shared memory (the paper's duplicate removal).
    #[arg(long, hide = true)]
    pub duplicate_removal: bool,

    /// For tests and measurements: the GPU's threads write each extension to its row's
    /// buffer themselves, instead of gathering 32 in the warp's write cache first.
    #[arg(long, hide = true)]
    pub no_write_cache: bool,

    /// For tests and measurements: the GPU places each row's buffer by the exact count of its
    /// extensions, counted by a first join that writes nothing (the two-step output scheme),
    /// instead of by its first edge's list (Prealloc-Combine).
    #[arg(long, hide = true)]
    pub two_step_output: bool,

    /// For tests and measurements: the GPU tests each row's candidates against its first
    /// edge's list only, then makes each further edge test and the subtraction a pass of its
    /// own over the buffers (the paper's naive set operations; where buffers are written).
    #[arg(long, hide = true)]
    pub naive_set_operations: bool,

    /// For tests and measurements: the GPU's leaf products look the count of a lone leaf up
    /// when its list is longer than N (`never`: always scan the list). Default: 32.
    #[arg(long, value_name = "N|never", hide = true)]
    pub leaf_counts_from: Option<String>,

    /// For tests and measurements: the GPU joins a step's rows with eight lanes each when no
    /// list of the step is longer than N (`never`: a warp per row). Default: 256.
    #[arg(long, value_name = "N|never", hide = true)]
    pub narrow_rows_up_to: Option<String>,

    /// For tests and measurements: what the filter tests a candidate on, `signature` (the
    /// paper's, Sec. 3.2) or `label-degree` (GpSM's and GunrockSM's).
    #[arg(
        long,
        value_name = "TESTS",
        value_enum,
        hide = true,
        default_value = "signature"
    )]
    pub filter: FilterArg,

    /// For tests and measurements: a count first joins the steps breadth-first in one GPU
    /// launch while each step's rows times its longest list are at most N (`never`: a few
    /// launches per step from the first). Default: 1048576.
    #[arg(long, value_name = "N|never", hide = true)]
    pub small_steps_up_to: Option<String>,

    /// For tests and measurements: the GPU's depth-first count keeps up to N candidates of a
    /// level per warp for the later levels whose edges include the level's (`never`: every
    /// level intersects all its lists again). Default: 4096.
    #[arg(long, value_name = "N|never", hide = true)]
    pub kept_sets_up_to: Option<String>,

    /// For tests and measurements: the GPU's depth-first count reads one partial match's
    /// list at a time (with work stealing) instead of 32 partial matches' lists at once.
    #[arg(long, hide = true)]
    pub no_packed_depth_first: bool,

    /// For tests and measurements: the engines count a clique's plan by bitmaps from the
    /// first vertex's candidates of at most N higher neighbours (the GPU at most 128), the
    /// others searched (`never`: every one).
    #[arg(long, value_name = "N|never", hide = true)]
    pub clique_bitmaps_up_to: Option<String>,

    /// For tests and measurements: a warp of the GPU's packed count takes N rows of the table
    /// at once (1 to 32). Default: up to 32, fewer as the table runs out.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=32), hide = true)]
    pub packed_rows_at_once: Option<u32>,

    /// For tests and measurements: the GPU reads whole neighbour lists even where a step's
    /// order bound lets it read only the part above (or below) the list's own vertex.
    #[arg(long, hide = true)]
    pub whole_lists: bool,

    /// For tests and measurements: the GPU's packed count leaves each row's search with the
    /// warp that took it, instead of splitting the searches left over every warp.
    #[arg(long, hide = true)]
    pub unsplit_searches: bool,

    /// For tests and measurements: a query joined in shares has its cut vertices'
    /// candidates read back from the GPU and split by class on the host, not on the GPU.
    #[arg(long, hide = true)]
    pub host_classes: bool,

    /// For tests and measurements: the GPU draws a row's extensions from its first edge's
    /// list, as the paper does, rather than from the shortest of its linking edges' lists.
    #[arg(long, hide = true)]
    pub first_edge_source: bool,

    /// For tests and measurements: the GPU makes every row's leaf product in 128 bits, not
    /// only where one could pass 2^64 - 1.
    #[arg(long, hide = true)]
    pub wide_leaf_products: bool,

    /// For tests and measurements: join leaves in Algorithm 2's order and enumerate them,
    /// instead of joining them last and counting them as products.
    #[arg(long, hide = true)]
    pub no_leaf_products: bool,

    /// For tests and measurements: rounds of neighbourhood refinement of the candidate sets
    /// after the signature filter (`0`: the paper's sets).
    #[arg(long, value_name = "N", hide = true, default_value_t = gsi_core::options::REFINE_ROUNDS)]
    pub refine_rounds: usize,

    /// For tests and measurements: the join order, `sampled` (Algorithm 2's, or for a heavy
    /// query the best of the others by sampling), `paper` (Algorithm 2), `growth` (least
    /// estimated growth from candidate edges), `links` (most edges to the vertices joined),
    /// `core` (the query's innermost core first) or `triangles` (as `core`, its triangles
    /// first).
    #[arg(long, value_name = "ORDER", hide = true, default_value = "sampled", value_parser = ["sampled", "paper", "growth", "links", "core", "triangles"])]
    pub join_order: String,

    /// For tests and measurements: the CPU's depth-first count reads whole neighbour lists
    /// instead of its local candidates.
    #[arg(long, hide = true)]
    pub no_local_candidates: bool,

    /// For tests and measurements: the CPU's depth-first count reads and filters the lists of
    /// a step it only counts for every row, instead of keeping them while the matches they
    /// depend on stay.
    #[arg(long, hide = true)]
    pub no_kept_extensions: bool,

    /// For tests and measurements: the CPU's depth-first count skips the extensions a failed
    /// sibling's failing set rules out in queries of N vertices or more (`never`: it tries
    /// every extension). Default: 12.
    #[arg(long, value_name = "N|never", hide = true)]
    pub failing_sets_from: Option<String>,

    /// For tests and measurements: counts every match instead of one per class of the
    /// query's automorphisms.
    #[arg(long, hide = true)]
    pub no_symmetry: bool,

    /// For tests and measurements: joins a tree-shaped query instead of counting it by
    /// dynamic programming (or over its quotients, where its labels repeat apart).
    #[arg(long, hide = true)]
    pub no_tree_counts: bool,

    /// For tests and measurements: counts a tree-shaped query by dynamic programming where
    /// its homomorphisms are its matches, and over its quotients where its labels repeat
    /// apart, whatever the estimates say.
    #[arg(long, hide = true, conflicts_with = "no_tree_counts")]
    pub always_tree_counts: bool,

    /// For tests and measurements: joins the 2-core of a query counted over its core (the
    /// trees hanging from it counted by dynamic programming) even where one of its vertices,
    /// pinned, would let a program count it.
    #[arg(long, hide = true)]
    pub no_pinned_cores: bool,

    /// For tests and measurements: a pinned core's program reads whole neighbour lists for
    /// each candidate of its pinned vertex instead of the candidate edges it finds once.
    #[arg(long, hide = true)]
    pub no_program_candidate_edges: bool,

    /// For tests and measurements: the estimated work of a count over a query's quotients
    /// from which its sets, where the engine left them unrefined, are refined for the
    /// programs (`inf`: never).
    #[arg(long, value_name = "WORK", hide = true, default_value_t = gsi_core::options::REFINE_FOR_PROGRAMS_FROM)]
    pub refine_for_programs_from: f64,

    /// For tests and measurements: the estimated work of a join from which a query with
    /// cycles and trees hanging from its core has its quotients weighed (`inf`: only where
    /// forced).
    #[arg(long, value_name = "WORK", hide = true, default_value_t = gsi_core::options::CYCLIC_QUOTIENTS_FROM)]
    pub cyclic_quotients_from: f64,

    /// For tests and measurements: where the estimates chose the join of a count that
    /// programs could make, the milliseconds the join runs before they start on the host
    /// beside it (`never`: not at all). Default: 250 on a GPU, never on the CPU.
    #[arg(long, value_name = "MS|never", hide = true)]
    pub programs_beside_after: Option<String>,

    /// For tests and measurements: the milliseconds the join of a count judged light runs
    /// before the query is planned again by sampling (`never`: it runs to its end). Default:
    /// 64 on the CPU, never on a GPU.
    #[arg(long, value_name = "MS|never", hide = true)]
    pub light_join_budget: Option<String>,

    /// For tests and measurements: the CPU filter scans every vertex of a query vertex's
    /// label, not the fewer vertices of a pinned neighbour's list or of one of its edges'
    /// labels.
    #[arg(long, hide = true)]
    pub no_narrow_pools: bool,

    /// For tests and measurements: enumerates equivalent query vertices (same labels, same
    /// neighbours by the same edges) instead of counting them from one extension set.
    #[arg(long, hide = true)]
    pub no_equivalent_vertices: bool,

    /// For tests and measurements: enumerates the last three query vertices where they could
    /// be counted by their pairs (two equivalent vertices and a third linked to them alone).
    #[arg(long, hide = true)]
    pub no_pair_counts: bool,

    /// For tests and measurements: counts the last three query vertices by their pairs
    /// wherever they can be, whatever the estimates say.
    #[arg(long, hide = true, conflicts_with = "no_pair_counts")]
    pub always_pair_counts: bool,

    /// For tests and measurements: whether a count breaks the automorphisms that move
    /// vertices of its leaf suffix (`broken`: enumerated again), leaves them to the suffix's
    /// products (`counted`), or chooses (`by-estimate`, the default).
    #[arg(long, hide = true, value_enum, default_value = "by-estimate")]
    pub suffix_interchanges: SuffixInterchangesArg,

    /// For tests and measurements: how each query is cut into shares (`--partition`,
    /// `--devices`): `rows` (the default) deals the rows of its plan's first steps, `grid`
    /// cuts its first vertices' candidates as its plan's estimated work says, `even-grid`
    /// into the evenest grid over its first three vertices. Every share of one query must be
    /// answered with the same choice.
    #[arg(long, hide = true, value_enum, default_value = "rows")]
    pub share_cut: ShareCutArg,

    /// For tests and measurements: rows each share of a query cut by rows is expected to
    /// keep of the table they are dealt from (0: the first table's).
    #[arg(long, hide = true, default_value_t = gsi_core::options::ROWS_PER_SHARE)]
    pub rows_per_share: f64,

    /// For measurements: shares per GPU of a query spread over several (`--devices`).
    #[arg(long, hide = true, default_value_t = gsi_core::options::SHARES_PER_ENGINE,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub shares_per_device: u32,

    /// For tests and measurements: estimated partial matches from which a query's join order
    /// is chosen by sampling (`0`: every query).
    #[arg(long, value_name = "N", hide = true, default_value_t = gsi_core::options::HEAVY_QUERY_WORK)]
    pub heavy_work: f64,

    /// For tests and measurements: estimated partial matches per neighbour-list entry read
    /// from which refining the sets and sampling orders are judged to pay (default: the joining
    /// engine's, 1 for the CPU, 100 for a GPU; at most 1 where the lists to read are short).
    #[arg(long, value_name = "N", hide = true, value_parser = non_negative)]
    pub planning_pays_from: Option<f64>,
}

/// A finite number of zero or more.
fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("expected a number of zero or more, not {text:?}")),
    }
}

/// The values of `--semantics`: gsi-core's names, each with what it means.
fn semantics_names() -> impl TypedValueParser<Value = NamedSemantics> {
    let names = NamedSemantics::NAMES.map(|(name, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(names).try_map(|name| name.parse::<NamedSemantics>())
}

/// What the filter tests (`--filter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FilterArg {
    /// Label, degrees and the neighbourhood signature.
    Signature,
    /// Label and degrees only.
    LabelDegree,
}

/// How `--output` names data vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputIds {
    /// gsi's vertex numbers, 0 to N-1.
    Dense,
    /// The file's own names: SNAP ids, RDF terms.
    Original,
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

    /// Every command has examples and every option says what it does.
    #[test]
    fn every_command_explains_itself() {
        fn check(command: &clap::Command, path: &str) {
            if command.get_name() == "help" {
                return;
            }
            let after = command.get_after_help().map(|h| h.to_string());
            assert!(
                after.as_deref().is_some_and(|h| h.starts_with("Examples:")),
                "{path} has no examples"
            );
            assert!(command.get_about().is_some(), "{path} has no description");
            for arg in command.get_arguments() {
                assert!(
                    arg.get_help().is_some(),
                    "{path} {} has no help",
                    arg.get_id()
                );
            }
            for sub in command.get_subcommands() {
                check(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        let mut cli = Cli::command();
        cli.build();
        for sub in cli.get_subcommands() {
            check(sub, &format!("gsi {}", sub.get_name()));
        }
    }

    #[test]
    fn query_accepts_several_paths() {
        let cli = Cli::try_parse_from(["gsi", "match", "-d", "g", "-q", "a", "b"]).unwrap();
        let Some(Command::Match(args)) = cli.command else {
            panic!()
        };
        assert_eq!(args.query.len(), 2);
    }

    fn match_args(extra: &[&str]) -> Result<MatchArgs, clap::Error> {
        let mut argv = vec!["gsi", "match", "-d", "g", "-q", "q"];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).map(|cli| match cli.command {
            Some(Command::Match(args)) => args,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!(match_args(&[]).unwrap().read.format, Format::Auto);
        for (name, format) in [
            ("sunluo", Format::SunLuo),
            ("gsi", Format::Gsi),
            ("snap", Format::Snap),
            ("ntriples", Format::NTriples),
            ("NT", Format::NTriples),
            ("turtle", Format::Turtle),
            ("ttl", Format::Turtle),
        ] {
            let args = match_args(&["--format", name]).unwrap();
            assert_eq!(args.read.format, format);
            let args = match_args(&["--query-format", name]).unwrap();
            assert_eq!(args.query_format, Some(format));
        }
        let err = match_args(&["--format", "xml"]).unwrap_err().to_string();
        assert!(
            err.contains("--format") && err.contains("unknown graph format"),
            "{err}"
        );
    }

    #[test]
    fn output_ids_need_an_output_file() {
        assert!(match_args(&["--output-ids", "dense"]).is_err());
        let args = match_args(&["-o", "m.txt", "--output-ids", "original"]).unwrap();
        assert_eq!(args.output_ids, Some(OutputIds::Original));
        assert_eq!(match_args(&["-o", "m.txt"]).unwrap().output_ids, None);
    }

    #[test]
    fn negative_numbers_reach_validation() {
        let args = match_args(&["--timeout", "-1", "--memory-limit", "-5MiB"]).unwrap();
        assert_eq!(args.matching.timeout, Some(-1.0));
        assert_eq!(args.matching.memory_limit.as_deref(), Some("-5MiB"));
        let err = match_args(&["--limit", "-3"]).unwrap_err().to_string();
        assert!(err.contains("--limit"), "{err}");
    }
}

/// `gsi sparql` (documented on `Command::Sparql`).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi sparql --data people.nt -e 'SELECT ?x ?y WHERE { ?x <http://ex/knows> ?y }'\n  gsi sparql --data people.gsidx --query q.rq --results tsv\n  gsi sparql --data people.ttl.gz -e 'ASK { ?x a <http://ex/Person> }' --results xml\n  gsi sparql --data people.nt -e 'SELECT ?x ?n { ?x <http://ex/name> ?n FILTER(LANG(?n) = \"en\") } ORDER BY ?n'"
)]
#[command(group = clap::ArgGroup::new("text").required(true).args(["query", "expression"]))]
pub struct SparqlArgs {
    /// The data: N-Triples or Turtle (plain or compressed) or a saved index of them.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    /// A file holding the query.
    #[arg(long, short = 'q', value_name = "FILE", help_heading = "Input")]
    pub query: Option<PathBuf>,

    /// The query itself.
    #[arg(
        short = 'e',
        long = "expression",
        value_name = "QUERY",
        help_heading = "Input"
    )]
    pub expression: Option<String>,

    /// The results' format: the W3C's SPARQL 1.1 Query Results JSON, XML, TSV or CSV.
    #[arg(long, value_enum, default_value_t = ResultsArg::Json, help_heading = "Output")]
    pub results: ResultsArg,

    /// Print only the number: of solutions for SELECT, the count for COUNT(*), 1 or 0 for ASK.
    #[arg(long, help_heading = "Output")]
    pub count: bool,

    /// After the results, print on stderr the BGP as the query graph gsi matched (one per
    /// assignment of predicate variables): its vertices with their terms and classes, its
    /// edges with their predicates, the vertices pinned to a data vertex, then the join plan
    /// and the engine that ran it, as `gsi match --explain` does.
    #[arg(long, help_heading = "Output")]
    pub explain: bool,

    #[command(flatten)]
    pub engine: EngineArgs,

    /// Print no progress and no notes on stderr.
    #[arg(long, help_heading = "Output")]
    pub quiet: bool,
}

/// `gsi serve` (documented on `Command::Serve`).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  gsi serve --data people.nt\n  gsi serve --data people.gsidx --bind 0.0.0.0:7878 --engine gpu --max-concurrent 4\n  curl -H 'Accept: text/csv' --data-urlencode 'query=SELECT * { ?s ?p ?o } LIMIT 5' http://127.0.0.1:7878/sparql"
)]
pub struct ServeArgs {
    /// The data: N-Triples or Turtle (plain or compressed), a graph in another format gsi
    /// reads (then `/match` alone answers), or a saved index of them.
    #[arg(long, short = 'd', value_name = "FILE", help_heading = "Input")]
    pub data: PathBuf,

    /// The address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDRESS", default_value = "127.0.0.1:7878")]
    pub bind: std::net::SocketAddr,

    /// Read a text graph's edges as directed (RDF data always is).
    #[arg(long, help_heading = "Input")]
    pub directed: bool,

    /// The longest a query may run, in seconds; a request's `timeout` parameter may ask for
    /// less.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60.0,
        allow_negative_numbers = true
    )]
    pub timeout: f64,

    /// Queries answered at once, each on an engine of its own. Default: as many as the
    /// machine has processors, at most 16 where a GPU may answer (the engines of one GPU
    /// share its copy of the index and each take their part of its memory).
    #[arg(long, value_name = "N")]
    pub max_concurrent: Option<usize>,

    /// Requests that may wait for an engine; more are answered 503.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub queue: usize,

    /// The largest request (its body, or its URL's query), such as `64KiB`.
    #[arg(long, value_name = "SIZE", default_value = "1MiB")]
    pub max_request: String,

    /// The largest response a query may give, such as `1GiB`.
    #[arg(long, value_name = "SIZE", default_value = "256MiB")]
    pub max_response: String,

    #[command(flatten)]
    pub engine: EngineArgs,

    /// Print nothing on stderr but the address listened on and errors.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResultsArg {
    /// SPARQL 1.1 Query Results JSON.
    Json,
    /// SPARQL 1.1 Query Results XML.
    Xml,
    /// Tab-separated, terms in N-Triples syntax.
    Tsv,
    /// Comma-separated, IRIs and literals' values bare.
    Csv,
}
