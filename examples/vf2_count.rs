//! An independent CPU matcher for comparison: counts embeddings with the `vf2` crate.
//!
//! Usage: `cargo run --release --example vf2_count -- DATA QUERY...`
//!
//! DATA and every QUERY are graph files gsi reads (Sun–Luo, GSI with one graph, ...); a QUERY
//! that is a directory stands for every file inside it, in natural order (`q_2` before `q_10`).
//! Prints one JSON line per query: `{"query": ..., "matches": ..., "elapsed_ms": ...}`.
//!
//! Semantics: non-induced subgraph isomorphism (`vf2::subgraph_isomorphisms`), injective on
//! vertices, with vertex labels and edge labels compared for equality by the `node_eq` and
//! `edge_eq` closures. Every embedding is counted, so automorphic copies of one match count
//! separately, as in gsi. Graphs are undirected unless `--directed` is given first. The `vf2`
//! graph model holds one label per vertex pair: where a file has several edges with different
//! labels between the same two vertices, only the smallest label is seen.
//!
//! `elapsed_ms` covers reading the query file and the enumeration; the data graph is read and
//! converted once, before the first query. There is no time limit: wrap the program in
//! `timeout` to bound it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use gsi_graph::formats::{read_graph, Format};
use gsi_graph::{Direction, Graph};

/// A gsi graph seen through the `vf2::Graph` trait: per vertex, the neighbours sorted by id
/// (with their edge labels), so that an edge is found by binary search.
struct Vf2View {
    directed: bool,
    labels: Vec<u32>,
    out: Adjacency,
    inc: Adjacency,
}

#[derive(Default)]
struct Adjacency {
    offsets: Vec<usize>,
    neighbors: Vec<usize>,
    labels: Vec<u32>,
}

impl Adjacency {
    fn new(graph: &Graph, direction: Direction) -> Adjacency {
        let mut adjacency = Adjacency {
            offsets: Vec::with_capacity(graph.vertex_count() + 1),
            ..Adjacency::default()
        };
        adjacency.offsets.push(0);
        let mut pairs: Vec<(usize, u32)> = Vec::new();
        for v in 0..graph.vertex_count() as u32 {
            let (neighbors, labels) = graph.edges(v, direction);
            pairs.clear();
            pairs.extend(
                neighbors
                    .iter()
                    .map(|&w| w as usize)
                    .zip(labels.iter().copied()),
            );
            // Sorted by (neighbour, label): the first of a run of equal neighbours has the
            // smallest label; keep only that one.
            pairs.sort_unstable();
            pairs.dedup_by_key(|pair| pair.0);
            for &(w, l) in &pairs {
                adjacency.neighbors.push(w);
                adjacency.labels.push(l);
            }
            adjacency.offsets.push(adjacency.neighbors.len());
        }
        adjacency
    }

    fn slice(&self, v: usize) -> &[usize] {
        &self.neighbors[self.offsets[v]..self.offsets[v + 1]]
    }

    fn find(&self, source: usize, target: usize) -> Option<usize> {
        let start = self.offsets[source];
        self.slice(source)
            .binary_search(&target)
            .ok()
            .map(|i| start + i)
    }
}

impl Vf2View {
    fn new(graph: &Graph) -> Vf2View {
        let directed = graph.is_directed();
        Vf2View {
            directed,
            labels: graph.vertex_labels().to_vec(),
            out: Adjacency::new(graph, Direction::Out),
            inc: if directed {
                Adjacency::new(graph, Direction::In)
            } else {
                Adjacency::default()
            },
        }
    }
}

impl vf2::Graph for Vf2View {
    type NodeLabel = u32;
    type EdgeLabel = u32;

    fn is_directed(&self) -> bool {
        self.directed
    }

    fn node_count(&self) -> usize {
        self.labels.len()
    }

    fn node_label(&self, node: vf2::NodeIndex) -> Option<&u32> {
        self.labels.get(node)
    }

    fn neighbors(
        &self,
        node: vf2::NodeIndex,
        direction: vf2::Direction,
    ) -> impl Iterator<Item = vf2::NodeIndex> {
        let adjacency = match direction {
            vf2::Direction::Incoming if self.directed => &self.inc,
            _ => &self.out,
        };
        adjacency.slice(node).iter().copied()
    }

    fn contains_edge(&self, source: vf2::NodeIndex, target: vf2::NodeIndex) -> bool {
        self.out.find(source, target).is_some()
    }

    fn edge_label(&self, source: vf2::NodeIndex, target: vf2::NodeIndex) -> Option<&u32> {
        self.out.find(source, target).map(|i| &self.out.labels[i])
    }
}

/// Splits a file name into text and number runs so that `q_2` sorts before `q_10`.
fn natural_key(path: &Path) -> Vec<(String, u64)> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = c.to_digit(10).unwrap() as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                number = number.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            key.push((std::mem::take(&mut text), number));
        } else {
            text.push(c);
        }
    }
    key.push((text, u64::MAX));
    key
}

fn expand(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort_by_key(|p| natural_key(p));
    Ok(files)
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let directed = if args.first().map(String::as_str) == Some("--directed") {
        args.remove(0);
        true
    } else {
        false
    };
    if args.len() < 2 || args.iter().any(|a| a == "-h" || a == "--help") {
        return Err("usage: vf2_count [--directed] DATA QUERY...".into());
    }
    let data_path = Path::new(&args[0]);
    let data = read_graph(data_path, Format::Auto, directed).map_err(|e| e.to_string())?;
    let data = Vf2View::new(&data);

    let mut queries = Vec::new();
    for arg in &args[1..] {
        queries.extend(expand(Path::new(arg)).map_err(|e| format!("{arg}: {e}"))?);
    }
    for path in queries {
        let start = Instant::now();
        let query = read_graph(&path, Format::Auto, directed).map_err(|e| e.to_string())?;
        let query = Vf2View::new(&query);
        let matches: u64 = if query.labels.is_empty() || query.labels.len() > data.labels.len() {
            0
        } else {
            let mut iter = vf2::subgraph_isomorphisms(&query, &data)
                .node_eq(|q: &u32, d: &u32| q == d)
                .edge_eq(|q: &u32, d: &u32| q == d)
                .iter();
            let mut n = 0u64;
            while iter.next_ref().is_some() {
                n += 1;
            }
            n
        };
        let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
        println!(
            "{{\"query\":{},\"matches\":{},\"elapsed_ms\":{:.3}}}",
            json_string(&path.display().to_string()),
            matches,
            elapsed_ms
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("vf2_count: {message}");
            ExitCode::FAILURE
        }
    }
}
