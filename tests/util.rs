//! Helpers shared by the test modules: running the built `gsi` in a fresh temporary directory,
//! writing graphs as Sun–Luo text, small graph specifications and the shared benchmark data.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gsi_core::cpu::CpuEngine;
use gsi_core::{
    find_matches, Candidates, CountOnly, DataIndex, Engine, JoinOutcome, MatchOptions, MatchReport,
    MatchSink, Plan,
};
use gsi_graph::{Direction, EdgeLabel, Graph, GraphBuilder, VertexId, VertexLabel};
use serde::Deserialize;

/// A graph as plain data: vertex labels and an edge list. Tests generate these, then build a
/// [`Graph`] for gsi and give the same data to the oracles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub directed: bool,
    pub labels: Vec<VertexLabel>,
    /// Further labels of vertices that carry several.
    pub more_labels: Vec<(VertexId, VertexLabel)>,
    /// `(source, target, label)`; for an undirected graph the orientation is irrelevant.
    pub edges: Vec<(VertexId, VertexId, EdgeLabel)>,
}

impl Spec {
    pub fn new(directed: bool, labels: Vec<VertexLabel>) -> Spec {
        Spec {
            directed,
            labels,
            more_labels: Vec::new(),
            edges: Vec::new(),
        }
    }

    pub fn edge(mut self, source: VertexId, target: VertexId, label: EdgeLabel) -> Spec {
        self.edges.push((source, target, label));
        self
    }

    /// The graph gsi sees.
    pub fn graph(&self) -> Graph {
        let mut builder = GraphBuilder::with_vertices(self.directed, self.labels.clone());
        for &(v, l) in &self.more_labels {
            builder.add_label(v, l).expect("valid test graph");
        }
        for &(s, t, l) in &self.edges {
            builder.add_edge(s, t, l).expect("valid test graph");
        }
        builder.build().expect("valid test graph")
    }

    /// The graph as a Sun–Luo file, written from the specification itself.
    pub fn sunluo(&self) -> String {
        let mut degree = vec![0usize; self.labels.len()];
        for &(s, t, _) in &self.edges {
            degree[s as usize] += 1;
            degree[t as usize] += 1;
        }
        let mut text = format!("t {} {}\n", self.labels.len(), self.edges.len());
        for (v, label) in self.labels.iter().enumerate() {
            let more = self.more_labels.iter().filter(|&&(w, _)| w as usize == v);
            let labels: Vec<String> = std::iter::once(*label)
                .chain(more.map(|&(_, l)| l))
                .map(|l| l.to_string())
                .collect();
            text += &format!("v {v} {} {}\n", labels.join(","), degree[v]);
        }
        for &(s, t, l) in &self.edges {
            text += &format!("e {s} {t} {l}\n");
        }
        text
    }

    /// Vertex count.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// The distinct edges, normalized: sorted endpoints when undirected.
    pub fn edge_set(&self) -> BTreeSet<(VertexId, VertexId, EdgeLabel)> {
        self.edges
            .iter()
            .map(|&(s, t, l)| {
                if self.directed {
                    (s, t, l)
                } else {
                    (s.min(t), s.max(t), l)
                }
            })
            .collect()
    }
}

/// Whether every two vertices of `spec` of one label are joined by an edge (either way): its
/// homomorphisms into a graph of one label a vertex are then injective.
pub fn labels_repeat_only_on_neighbours(spec: &Spec) -> bool {
    let joined = |u: usize, w: usize| {
        spec.edges.iter().any(|&(s, t, _)| {
            let (s, t) = (s as usize, t as usize);
            (s, t) == (u, w) || (s, t) == (w, u)
        })
    };
    (0..spec.len()).all(|u| (0..u).all(|w| spec.labels[u] != spec.labels[w] || joined(u, w)))
}

/// The edges of wordnet's query_sparse_8_52: hubs 0 and 1, 2 and 3 on both (interchangeable),
/// 4 on both and on 7, 5 on both and on 6 and 7.
pub const SPARSE_8_52_EDGES: [(VertexId, VertexId); 11] = [
    (0, 2),
    (0, 3),
    (0, 4),
    (0, 5),
    (1, 2),
    (1, 3),
    (1, 4),
    (1, 5),
    (4, 7),
    (5, 6),
    (5, 7),
];

/// A path of six vertices of labels 0 to 5 in the complete 6-partite graph of `m` vertices a
/// label: each query vertex takes any vertex of its label, so the path has m^6 matches, which
/// a join without leaf products enumerates row by row (m^5 rows before its last step).
pub fn path_in_multipartite(m: u32) -> (Spec, Spec) {
    let query = (0..5).fold(Spec::new(false, (0..6).collect()), |q, v| {
        q.edge(v, v + 1, 0)
    });
    (query, complete_multipartite(6, m))
}

/// The complete `parts`-partite graph of `m` vertices a part, vertex v of label v mod `parts`:
/// every two vertices of different labels adjacent, by an edge of label 0.
pub fn complete_multipartite(parts: u32, m: u32) -> Spec {
    let n = parts * m;
    let mut data = Spec::new(false, (0..n).map(|v| v % parts).collect());
    for v in 0..n {
        for w in v + 1..n {
            if v % parts != w % parts {
                data = data.edge(v, w, 0);
            }
        }
    }
    data
}

/// The complete graph on `n` vertices, all labelled `label`, edges labelled 0.
pub fn clique(directed: bool, n: u32, label: VertexLabel) -> Spec {
    let mut spec = Spec::new(directed, vec![label; n as usize]);
    for a in 0..n {
        for b in a + 1..n {
            spec.edges.push((a, b, 0));
            if directed {
                spec.edges.push((b, a, 0));
            }
        }
    }
    spec
}

/// K_n with vertex v labelled v mod `labels`.
pub fn labelled_clique(n: u32, labels: u32) -> Spec {
    let mut spec = clique(false, n, 0);
    spec.labels = (0..n).map(|v| v % labels).collect();
    spec
}

/// A centre labelled 0 with `per_label` leaves of each label 1..`labels`.
pub fn star_of_labels(labels: u32, per_label: u32) -> Spec {
    let mut star = Spec::new(false, vec![0]);
    for label in 1..labels {
        for _ in 0..per_label {
            let leaf = star.labels.len() as VertexId;
            star.labels.push(label);
            star = star.edge(0, leaf, 0);
        }
    }
    star
}

/// The path `0 - 1 - ... - (n-1)`, all vertices labelled `label`, edges labelled 0.
pub fn path(directed: bool, n: u32, label: VertexLabel) -> Spec {
    let mut spec = Spec::new(directed, vec![label; n as usize]);
    spec.edges = (1..n).map(|v| (v - 1, v, 0)).collect();
    spec
}

/// A gsi [`Graph`] as Sun–Luo text, read back through the graph's public interface.
pub fn sunluo(graph: &Graph) -> String {
    let n = graph.vertex_count();
    let mut text = format!("t {n} {}\n", graph.edge_count());
    for v in 0..n as VertexId {
        let degree = if graph.is_directed() {
            graph.degree(v, Direction::Out) + graph.degree(v, Direction::In)
        } else {
            graph.degree(v, Direction::Out)
        };
        text += &format!("v {v} {} {degree}\n", graph.label(v));
    }
    for (s, t, l) in graph.edge_iter() {
        text += &format!("e {s} {t} {l}\n");
    }
    text
}

/// What one run of `gsi` did.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when killed by a signal.
    pub code: Option<i32>,
    pub wall: Duration,
    pub args: Vec<String>,
}

impl Run {
    /// Panics with the whole run unless it exited 0.
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code,
            Some(0),
            "gsi {} failed: {self:#?}",
            self.args.join(" ")
        );
        self
    }

    /// Panics if the run panicked or was killed.
    pub fn no_panic(&self) {
        assert!(self.code.is_some(), "gsi was killed: {self:#?}");
        assert!(
            !self.stderr.contains("panicked") && !self.stdout.contains("panicked"),
            "gsi panicked: {self:#?}"
        );
    }

    /// The JSON Lines of a `--json` run, checked against the schema.
    pub fn json(&self) -> JsonRun {
        parse_json_lines(&self.stdout)
    }

    /// The value of a `key = value` line on stdout.
    pub fn value(&self, key: &str) -> Option<String> {
        let prefix = format!("{key} = ");
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .map(str::to_owned)
    }
}

/// A fresh temporary directory to run `gsi` in.
pub struct TestDir {
    dir: tempfile::TempDir,
}

impl TestDir {
    pub fn new() -> TestDir {
        TestDir {
            dir: tempfile::Builder::new()
                .prefix("gsi-test-")
                .tempdir()
                .expect("a temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `contents` to `name` (creating folders on the way) and returns the full path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create folder");
        }
        std::fs::write(&path, contents).expect("write test file");
        path
    }

    /// Writes a graph as a Sun–Luo file.
    pub fn write_spec(&self, name: &str, spec: &Spec) -> PathBuf {
        self.write(name, spec.sunluo())
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).expect("read output file")
    }

    /// Runs the built `gsi` with `args`, in this directory.
    pub fn gsi<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.gsi_env(&[], args)
    }

    /// Runs the built `gsi` with `args` and the environment variables `env` set, in this
    /// directory.
    pub fn gsi_env<I, S>(&self, env: &[(&str, &OsStr)], args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<String> = args
            .into_iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect();
        let started = Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_gsi"))
            .args(&args)
            .envs(env.iter().copied())
            .current_dir(self.dir.path())
            .output()
            .expect("run gsi");
        Run {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code(),
            wall: started.elapsed(),
            args,
        }
    }

    /// `gsi match --data DATA [--engine cpu] EXTRA... --query QUERIES...`: the CPU engine
    /// unless `extra` names one.
    pub fn match_files(&self, data: &str, queries: &[&str], extra: &[&str]) -> Run {
        let mut args = vec!["match", "--data", data];
        if !extra.contains(&"--engine") {
            args.extend(["--engine", "cpu"]);
        }
        args.extend_from_slice(extra);
        args.push("--query");
        args.extend_from_slice(queries);
        self.gsi(args)
    }
}

/// Phase times of one query, in milliseconds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhasesJson {
    pub filter: f64,
    pub plan: f64,
    pub join: f64,
    pub output: f64,
}

/// A count as the JSON output writes it: a number up to 2^53, a string of digits above,
/// never a number past 2^53 nor a string below it.
fn count_of_json<'de, D: serde::Deserializer<'de>>(from: D) -> Result<u128, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Count {
        Number(u64),
        Digits(String),
    }
    const EXACT: u64 = 1 << 53;
    match Count::deserialize(from)? {
        Count::Number(n) if n <= EXACT => Ok(u128::from(n)),
        Count::Digits(digits) => match digits.parse::<u128>() {
            Ok(n) if n > u128::from(EXACT) => Ok(n),
            _ => Err(serde::de::Error::custom(format!(
                "count {digits:?} as a string"
            ))),
        },
        Count::Number(n) => Err(serde::de::Error::custom(format!("count {n} as a number"))),
    }
}

/// One query's JSON object: every key the output may hold, and no other.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueryJson {
    #[serde(rename = "type")]
    pub kind: String,
    pub query: String,
    #[serde(deserialize_with = "count_of_json")]
    pub matches: u128,
    pub status: String,
    /// Whether `matches` is every match.
    pub complete: bool,
    pub elapsed_ms: f64,
    pub engine: Option<String>,
    pub phases_ms: PhasesJson,
    pub candidates: Vec<usize>,
    pub peak_join_bytes: usize,
    /// The plan's estimate of the join's rows.
    pub estimated_rows: f64,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub plan: Option<String>,
    /// How the query was spread over several GPUs (`--devices`); its keys are checked by
    /// the GPU tests, which alone can spread a query.
    #[serde(default)]
    pub spread: Option<serde_json::Value>,
}

/// The summary object that closes a `--json` run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryJson {
    #[serde(rename = "type")]
    pub kind: String,
    pub data: String,
    pub vertices: usize,
    pub edges: usize,
    pub queries: usize,
    #[serde(deserialize_with = "count_of_json")]
    pub matches: u128,
    pub ok: usize,
    pub timeouts: usize,
    pub limits: usize,
    pub errors: usize,
    pub load_ms: f64,
    pub index_ms: f64,
    /// Absent for the CPU engine.
    #[serde(default)]
    pub upload_ms: Option<f64>,
    /// Bytes of the index on each GPU; absent for the CPU engine.
    #[serde(default)]
    pub upload_bytes: Option<usize>,
    /// `I/K` with `--partition`.
    #[serde(default)]
    pub partition: Option<String>,
    pub queries_ms: f64,
    pub median_ms: f64,
    /// `finished`, `interrupted` or `failed`.
    pub status: String,
    /// Whether `matches` adds up exact counts only.
    pub complete: bool,
}

/// A `--json` run: the query objects in order, then the summary.
#[derive(Debug)]
pub struct JsonRun {
    pub queries: Vec<QueryJson>,
    pub summary: SummaryJson,
}

/// Parses `--json` output: every line one object, query objects first, exactly one summary last.
pub fn parse_json_lines(stdout: &str) -> JsonRun {
    let lines: Vec<&str> = stdout.lines().collect();
    let (last, rest) = lines
        .split_last()
        .unwrap_or_else(|| panic!("no JSON output: {stdout:?}"));
    let queries = rest
        .iter()
        .map(|line| {
            let q: QueryJson = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("query line {line:?} does not fit the schema: {e}"));
            assert_eq!(q.kind, "query", "{line}");
            q
        })
        .collect();
    let summary: SummaryJson = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("summary line {last:?} does not fit the schema: {e}"));
    assert_eq!(summary.kind, "summary", "{last}");
    JsonRun { queries, summary }
}

/// Reads a well-formed Sun–Luo file with a reader of the tests' own (not gsi's).
pub fn read_sunluo(path: &Path, directed: bool) -> Graph {
    let text = std::fs::read_to_string(path).expect("read graph file");
    let mut spec = Spec::new(directed, Vec::new());
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| -> u32 { fields[i].parse().expect("a number") };
        match fields.first() {
            Some(&"t") => spec.labels = vec![u32::MAX; number(1) as usize],
            Some(&"v") => {
                // `v id l1,l2,... degree`: a vertex of several labels.
                let v = number(1);
                let mut labels = fields[2].split(',').map(|l| l.parse().expect("a label"));
                spec.labels[v as usize] = labels.next().expect("a label");
                spec.more_labels.extend(labels.map(|l| (v, l)));
            }
            Some(&"e") => {
                let label = if fields.len() > 3 { number(3) } else { 0 };
                spec.edges.push((number(1), number(2), label));
            }
            _ => {}
        }
    }
    assert!(!spec.labels.contains(&u32::MAX), "every vertex declared");
    spec.graph()
}

/// The matches in an `--output` file: one row of data vertex ids per line; `#` lines skipped.
pub fn output_rows(text: &str) -> Vec<Vec<VertexId>> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            l.split(' ')
                .map(|id| {
                    id.parse()
                        .unwrap_or_else(|_| panic!("bad id in line {l:?}"))
                })
                .collect()
        })
        .collect()
}

/// Every row is a match of `query` in `data` (checked by the brute force's checker), and no
/// row appears twice.
pub fn assert_valid_matches(
    query: &Graph,
    data: &Graph,
    rows: &[Vec<VertexId>],
    homomorphism: bool,
) {
    let checker = crate::brute::Checker::new(query, data, homomorphism);
    for row in rows {
        assert!(checker.is_match(row), "not a match: {row:?}");
    }
    let distinct: BTreeSet<&Vec<VertexId>> = rows.iter().collect();
    assert_eq!(distinct.len(), rows.len(), "a match was written twice");
}

/// The report of `query`'s matches in `index` counted under `options`, spread at once over
/// three CPU engines.
pub fn spread_count(query: &Graph, index: &DataIndex, options: &MatchOptions) -> MatchReport {
    let mut engines: Vec<Box<dyn gsi_core::Engine>> = (0..3)
        .map(|_| Box::new(CpuEngine::default()) as Box<dyn gsi_core::Engine>)
        .collect();
    gsi_core::find_matches_spread(
        &mut engines,
        query,
        index,
        options,
        &mut CountOnly,
        None,
        None,
    )
    .expect("counted")
}

/// The CPU engine's report of `query`'s matches in `index`, counted under `options`.
pub fn cpu_count(query: &Graph, index: &DataIndex, options: &MatchOptions) -> MatchReport {
    find_matches(
        &mut gsi_core::cpu::CpuEngine::default(),
        query,
        index,
        options,
        &mut CountOnly,
    )
    .expect("counted")
}

/// The CPU engine, judging what pays before its join as the trait's defaults (a GPU's) do,
/// and filtering as the GPU's filter does (every vertex of a query vertex's label scanned,
/// never the CPU's narrower pools): so that its plans are those a GPU would make, without a
/// GPU.
pub struct JudgedAsGpu(pub CpuEngine);

impl Engine for JudgedAsGpu {
    fn tune(&mut self, tuning: &gsi_core::Tuning) {
        self.0.tune(tuning);
    }

    fn filter(
        &mut self,
        query: &Graph,
        data: &DataIndex,
        options: &MatchOptions,
    ) -> gsi_core::Result<Candidates> {
        let options = MatchOptions {
            narrow_pools: false,
            ..options.clone()
        };
        self.0.filter(query, data, &options)
    }

    fn join(
        &mut self,
        plan: &Plan,
        candidates: &Candidates,
        data: &DataIndex,
        options: &MatchOptions,
        sink: &mut dyn MatchSink,
    ) -> gsi_core::Result<JoinOutcome> {
        self.0.join(plan, candidates, data, options, sink)
    }

    /// Its joins run on the host's threads, as the CPU engine's: no programs beside them.
    fn programs_beside_after(&self, plan: &Plan) -> Option<std::time::Duration> {
        self.0.programs_beside_after(plan)
    }
}

/// A part's shares as (index, count), sorted, from a spread report's records ((0, 1): the part
/// whole).
pub fn shares_of(records: &[gsi_core::ShareTime], part: usize) -> Vec<(u32, u32)> {
    let mut shares: Vec<(u32, u32)> = records
        .iter()
        .filter(|t| t.part == part)
        .map(|t| t.share.map_or((0, 1), |s| (s.index(), s.count())))
        .collect();
    shares.sort_unstable();
    shares
}
