//! `--to gmatch-csr`: gMatch's binary CSR, read back by a reader written here from the
//! format's documented layout, and the graphs the format cannot hold refused.

use std::process::Command;

use gsi_graph::formats::write::{write_graph, WriteFormat};
use gsi_graph::{Graph, VertexId};

use crate::util::{read_sunluo, Spec, TestDir};

/// The arrays of a gMatch CSR file.
#[derive(Debug)]
struct GmatchCsr {
    edges: u32,
    offsets: Vec<u64>,
    labels: Vec<i32>,
    neighbors: Vec<u32>,
}

/// The bytes not read yet.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        assert!(self.0.len() >= N, "the file ends early");
        let (head, tail) = self.0.split_at(N);
        self.0 = tail;
        head.try_into().unwrap()
    }
}

/// Reads `bytes` as the layout says: little-endian u32 |V|, u32 |E|, |V|+1 u64 offsets,
/// |V| i32 labels, 2|E| u32 neighbours, and nothing after.
fn parse_gmatch_csr(bytes: &[u8]) -> GmatchCsr {
    let mut at = Cursor(bytes);
    let vertices = u32::from_le_bytes(at.take()) as usize;
    let edges = u32::from_le_bytes(at.take());
    let offsets = (0..=vertices)
        .map(|_| u64::from_le_bytes(at.take()))
        .collect();
    let labels = (0..vertices)
        .map(|_| i32::from_le_bytes(at.take()))
        .collect();
    let neighbors = (0..2 * edges as usize)
        .map(|_| u32::from_le_bytes(at.take()))
        .collect();
    assert!(at.0.is_empty(), "{} bytes after the neighbours", at.0.len());
    GmatchCsr {
        edges,
        offsets,
        labels,
        neighbors,
    }
}

/// Checks every array of `csr` against `graph`: sizes, offsets, labels and each vertex's
/// neighbours, the list taken from the graph's edges and sorted here.
fn assert_same_graph(csr: &GmatchCsr, graph: &Graph) {
    let n = graph.vertex_count();
    assert_eq!(csr.offsets.len(), n + 1);
    assert_eq!(csr.edges as usize, graph.edge_count());
    assert_eq!(csr.offsets[0], 0);
    assert_eq!(csr.offsets[n], 2 * u64::from(csr.edges));
    let mut adjacency = vec![Vec::new(); n];
    for (s, t, _) in graph.edge_iter() {
        adjacency[s as usize].push(t);
        adjacency[t as usize].push(s);
    }
    for (v, expected) in adjacency.iter_mut().enumerate() {
        expected.sort_unstable();
        let list = &csr.neighbors[csr.offsets[v] as usize..csr.offsets[v + 1] as usize];
        assert_eq!(list, expected.as_slice(), "neighbours of vertex {v}");
        assert_eq!(
            i64::from(csr.labels[v]),
            i64::from(graph.label(v as VertexId))
        );
    }
}

/// A small graph (an isolated vertex, labels other than 0, every edge labelled 2) written by
/// the library reads back as the same graph.
#[test]
fn a_small_graph_reads_back_from_the_documented_layout() {
    let dir = TestDir::new();
    let spec = Spec::new(false, vec![3, 0, 7, 0, 2, i32::MAX as u32])
        .edge(1, 0, 2)
        .edge(0, 3, 2)
        .edge(3, 1, 2)
        .edge(4, 1, 2)
        .edge(2, 5, 2);
    let graph = spec.graph();
    let path = dir.path("g.csr");
    write_graph(&path, &graph, WriteFormat::GmatchCsr).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 8 + 8 * 7 + 4 * 6 + 4 * 10);
    let csr = parse_gmatch_csr(&bytes);
    assert_eq!(csr.offsets, [0, 2, 5, 6, 8, 9, 10]);
    assert_same_graph(&csr, &graph);
}

/// `gsi generate graph --to gmatch-csr` writes the graph that the same flags write as Sun–Luo
/// text, to a file and to a pipe; `gsi convert --to gmatch-csr` of that text writes the
/// same bytes.
#[test]
fn generated_and_converted_graphs_read_back_from_the_documented_layout() {
    let dir = TestDir::new();
    let flags = [
        "generate",
        "graph",
        "--vertices",
        "300",
        "--edges",
        "1500",
        "--vertex-labels",
        "3",
        "--seed",
        "7",
        "--quiet",
    ];
    dir.gsi(flags.iter().chain(&["-o", "g.graph"])).ok();
    dir.gsi(flags.iter().chain(&["--to", "gmatch-csr", "-o", "g.csr"]))
        .ok();
    let bytes = std::fs::read(dir.path("g.csr")).unwrap();
    assert_same_graph(
        &parse_gmatch_csr(&bytes),
        &read_sunluo(&dir.path("g.graph"), false),
    );
    let piped = Command::new(env!("CARGO_BIN_EXE_gsi"))
        .args(flags.iter().chain(&["--to", "gmatch-csr"]))
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(piped.stdout, bytes);
    dir.gsi([
        "convert",
        "g.graph",
        "--to",
        "gmatch-csr",
        "-o",
        "c.csr",
        "--quiet",
    ])
    .ok();
    assert_eq!(std::fs::read(dir.path("c.csr")).unwrap(), bytes);
}

/// What the format cannot hold is refused with its reason and exit code 2, and no file is
/// left behind.
#[test]
fn graphs_the_format_cannot_hold_are_refused() {
    let dir = TestDir::new();
    dir.write(
        "edge-labels.graph",
        "t 3 2\nv 0 0 1\nv 1 0 2\nv 2 0 1\ne 0 1 0\ne 1 2 4\n",
    );
    dir.write("label-sets.graph", "t 2 1\nv 0 0,3 1\nv 1 0 1\ne 0 1 0\n");
    dir.write(
        "large-label.graph",
        "t 2 1\nv 0 0 1\nv 1 2147483648 1\ne 0 1 0\n",
    );
    dir.write(
        "two.gsi",
        "t # 0\n1 0 1 1\nv 0 1\nt # 1\n1 0 1 1\nv 0 1\nt # -1\n",
    );
    dir.write("path.graph", "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 0\n");
    let convert = |input: &str, extra: &[&str]| {
        let mut args = vec!["convert", input, "--to", "gmatch-csr", "-o", "out.csr"];
        args.extend_from_slice(extra);
        dir.gsi(args)
    };
    for (run, reason) in [
        (
            convert("edge-labels.graph", &[]),
            "the edges carry several labels (0 and 4)",
        ),
        (
            convert("label-sets.graph", &[]),
            "vertex 0 has 2 labels, and gMatch's CSR holds one label per vertex",
        ),
        (
            convert("large-label.graph", &[]),
            "vertex 1 has label 2147483648, and gMatch's CSR holds labels up to 2147483647",
        ),
        (
            convert("two.gsi", &[]),
            "two.gsi holds 2 graphs, but a gmatch-csr file holds one",
        ),
        (
            convert("path.graph", &["--directed"]),
            "the graph is directed, and gMatch's CSR holds undirected graphs only",
        ),
        (
            dir.gsi([
                "generate",
                "graph",
                "--vertices",
                "10",
                "--edges",
                "20",
                "--directed",
                "--to",
                "gmatch-csr",
                "-o",
                "out.csr",
            ]),
            "the graph is directed",
        ),
    ] {
        run.no_panic();
        assert_eq!(run.code, Some(2), "{run:#?}");
        assert!(run.stderr.contains(reason), "{reason}: {run:#?}");
        assert!(!dir.path("out.csr").exists(), "{run:#?}");
    }
}

/// Binary output is refused on a terminal (`script` gives the command one) before the graph
/// is made.
#[test]
fn binary_output_to_a_terminal_is_refused() {
    let gsi = env!("CARGO_BIN_EXE_gsi");
    let command = format!("{gsi} generate graph --vertices 10 --edges 20 --to gmatch-csr");
    let run = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output();
    let Ok(run) = run else {
        eprintln!("skipped: script (util-linux) is not available to give gsi a terminal");
        return;
    };
    let said = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(2), "{said}");
    assert!(
        said.contains("gmatch-csr is binary and standard output is a terminal"),
        "{said}"
    );
}
