//! Writing graphs as Sun–Luo or GSI text or as gMatch's binary CSR ([`gmatch`](super::gmatch)),
//! and the names readers keep beside them.
//!
//! Both writers give files that the matching reader turns back into the same [`Graph`]
//! (read with the same `directed`). Lines are formatted in parallel, block by block, and
//! written in order, so writing a graph of hundreds of millions of edges needs only a few
//! blocks of text in memory.
//!
//! A vertex of several labels is written `v id l1,l2,...`; an edge of several labels, as
//! one edge line per label.
//!
//! - Sun–Luo: `t N M`, then `v id label degree` for every vertex (for a directed graph the
//!   degree counts edges in both directions, as the reader checks), then `e u v label` for
//!   every edge (an undirected edge once, with `u < v`).
//! - GSI: `t # 0`, `N M maxVertexLabel maxEdgeLabel`, `v id label`, `e u v label`, `t # -1`,
//!   with every label written one higher than gsi's (GSI labels start from 1) and the
//!   maxima computed over the written labels (at least 1, for graphs without vertices or
//!   edges). Several graphs in one file are numbered `t # 0`, `t # 1`, ...

use std::fmt;
use std::io::{self, Write};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::formats::{gmatch, AtomicFile, Dictionary, VertexNames};
use crate::{Direction, Error, Graph, Result, VertexId};

/// Vertices formatted by one task.
const BLOCK: usize = 1 << 14;

/// The formats gsi writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteFormat {
    /// Sun–Luo text, one graph per file.
    SunLuo,
    /// GSI text, one or several graphs per file.
    Gsi,
    /// gMatch's binary CSR, one undirected graph per file ([`gmatch`]).
    GmatchCsr,
}

impl WriteFormat {
    /// The format's name, as gsi's flags spell it.
    pub fn name(self) -> &'static str {
        match self {
            WriteFormat::SunLuo => "sunluo",
            WriteFormat::Gsi => "gsi",
            WriteFormat::GmatchCsr => "gmatch-csr",
        }
    }

    /// Whether a file of this format holds exactly one graph.
    pub fn holds_one_graph(self) -> bool {
        self != WriteFormat::Gsi
    }

    /// Whether the format is binary rather than text.
    pub fn is_binary(self) -> bool {
        self == WriteFormat::GmatchCsr
    }
}

impl fmt::Display for WriteFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Writes `graph` as Sun–Luo text.
///
/// # Errors
/// Whatever `out` reports.
pub fn write_sunluo<W: Write>(graph: &Graph, mut out: W) -> io::Result<()> {
    let n = graph.vertex_count();
    let mut head = Vec::new();
    line(&mut head, b"t", &[n as u64, graph.edge_count() as u64]);
    out.write_all(&head)?;
    blocks(&mut out, n, |range, buf| {
        for v in range {
            let v = v as VertexId;
            let degree = graph.total_degree(v) as u64;
            vertex_line(buf, v, graph.labels_of(v), 0, Some(degree));
        }
    })?;
    write_edges(graph, &mut out, 0)?;
    out.flush()
}

/// Writes `graph` as a GSI file holding one graph.
///
/// # Errors
/// Whatever `out` reports; [`io::ErrorKind::InvalidData`] when a label is `u32::MAX`, which
/// GSI's labels (one higher) cannot hold.
pub fn write_gsi<W: Write>(graph: &Graph, out: W) -> io::Result<()> {
    write_gsi_all([graph], out)
}

/// Writes several graphs into one GSI file, numbered from 0.
///
/// # Errors
/// As [`write_gsi`].
pub fn write_gsi_all<'a, W: Write>(
    graphs: impl IntoIterator<Item = &'a Graph>,
    mut out: W,
) -> io::Result<()> {
    for (number, graph) in graphs.into_iter().enumerate() {
        let n = graph.vertex_count();
        let max_vertex = (0..n as VertexId)
            .into_par_iter()
            .filter_map(|v| graph.labels_of(v).last().copied())
            .max();
        let max_edge = graph.edge_labels().last().copied();
        if max_vertex == Some(u32::MAX) || max_edge == Some(u32::MAX) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "label 4294967295 cannot be written in gsi format, whose labels are one higher",
            ));
        }
        let mut head = Vec::new();
        head.extend_from_slice(b"t # ");
        push_number(&mut head, number as u64);
        head.push(b'\n');
        let max = |m: Option<u32>| u64::from(m.map_or(1, |m| m + 1));
        push_numbers(
            &mut head,
            &[
                n as u64,
                graph.edge_count() as u64,
                max(max_vertex),
                max(max_edge),
            ],
        );
        out.write_all(&head)?;
        blocks(&mut out, n, |range, buf| {
            for v in range {
                let v = v as VertexId;
                vertex_line(buf, v, graph.labels_of(v), 1, None);
            }
        })?;
        write_edges(graph, &mut out, 1)?;
    }
    out.write_all(b"t # -1\n")?;
    out.flush()
}

/// Writes `graph` to `path` (replacing it once complete: see [`AtomicFile`]) as `format`.
///
/// # Errors
/// [`Error::Io`] when the file cannot be created or the graph does not fit the format,
/// [`Error::Write`] when writing it fails.
pub fn write_graph(path: &Path, graph: &Graph, format: WriteFormat) -> Result<()> {
    write_graphs(path, [graph], format)
}

/// Writes graphs to `path` (replacing it): as one GSI file, or as a format of one graph when
/// there is exactly one.
///
/// # Errors
/// As [`write_graph`], and [`Error::Invalid`] for several graphs in a format of one.
pub fn write_graphs<'a>(
    path: &Path,
    graphs: impl IntoIterator<Item = &'a Graph>,
    format: WriteFormat,
) -> Result<()> {
    let file = AtomicFile::create(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = io::BufWriter::with_capacity(1 << 16, file);
    write_graphs_to(path, graphs, format, &mut out)?;
    let write = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let file = out.into_inner().map_err(|e| write(e.into_error()))?;
    file.commit().map_err(write)
}

/// Writes graphs to `out` as [`write_graphs`] writes them to a file; `path` names `out` in
/// errors (`-` for standard output).
///
/// # Errors
/// As [`write_graphs`].
pub fn write_graphs_to<'a>(
    path: &Path,
    graphs: impl IntoIterator<Item = &'a Graph>,
    format: WriteFormat,
    out: &mut dyn Write,
) -> Result<()> {
    let graphs: Vec<&Graph> = graphs.into_iter().collect();
    if format.holds_one_graph() && graphs.len() != 1 {
        return Err(Error::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "a {format} file holds one graph, not {}: write several graphs as gsi",
                graphs.len()
            ),
        });
    }
    match format {
        WriteFormat::SunLuo => write_sunluo(graphs[0], &mut *out),
        WriteFormat::Gsi => write_gsi_all(graphs, &mut *out),
        WriteFormat::GmatchCsr => gmatch::write_csr(graphs[0], &mut *out),
    }
    .and_then(|()| out.flush())
    .map_err(|source| match source.kind() {
        // A graph the format cannot hold is the input's matter.
        io::ErrorKind::InvalidData => Error::Io {
            path: path.to_path_buf(),
            source,
        },
        _ => Error::Write {
            path: path.to_path_buf(),
            source,
        },
    })
}

/// Writes one `vertex name` line per vertex: the dense id gsi uses, then the original id or
/// RDF term, so that output in dense ids can be translated back.
///
/// # Errors
/// Whatever `out` reports.
pub fn write_vertex_names<W: Write>(names: &VertexNames, out: W) -> io::Result<()> {
    match names {
        VertexNames::Ids(ids) => write_lines(
            ids.iter()
                .enumerate()
                .map(|(v, &id)| (v as u64, Name::Id(id))),
            out,
        ),
        VertexNames::Terms(terms) => write_dictionary(terms, out),
    }
}

/// Writes one `number name` line per name of a dictionary (label numbers and the class or
/// predicate IRIs they stand for).
///
/// # Errors
/// Whatever `out` reports.
pub fn write_dictionary<W: Write>(dictionary: &Dictionary, out: W) -> io::Result<()> {
    write_lines(
        dictionary
            .iter()
            .map(|(id, name)| (u64::from(id), Name::Term(name))),
        out,
    )
}

/// What follows the number on a line of [`write_lines`].
enum Name<'a> {
    Id(u64),
    Term(&'a str),
}

/// Writes `number name` lines.
fn write_lines<'a, W: Write>(
    lines: impl Iterator<Item = (u64, Name<'a>)>,
    mut out: W,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    for (number, name) in lines {
        push_number(&mut buf, number);
        buf.push(b' ');
        match name {
            Name::Id(id) => push_number(&mut buf, id),
            Name::Term(term) => buf.extend_from_slice(term.as_bytes()),
        }
        buf.push(b'\n');
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()
}

/// Writes `e u v label` for every edge, adding `shift` to each label.
fn write_edges<W: Write>(graph: &Graph, out: &mut W, shift: u64) -> io::Result<()> {
    blocks(out, graph.vertex_count(), |range, buf| {
        for v in range {
            let v = v as VertexId;
            let (neighbors, labels) = graph.edges(v, Direction::Out);
            for (&w, &l) in neighbors.iter().zip(labels) {
                if graph.is_directed() || v < w {
                    line(buf, b"e", &[v.into(), w.into(), u64::from(l) + shift]);
                }
            }
        }
    })
}

/// Formats vertices `0..n` in blocks in parallel and writes the blocks in order.
fn blocks<W: Write>(
    out: &mut W,
    n: usize,
    format: impl Fn(Range<usize>, &mut Vec<u8>) + Sync,
) -> io::Result<()> {
    let group = rayon::current_num_threads().max(1) * 4 * BLOCK;
    let mut start = 0;
    while start < n {
        let end = (start + group).min(n);
        let texts: Vec<Vec<u8>> = (start..end)
            .step_by(BLOCK)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|s| {
                let mut buf = Vec::with_capacity(BLOCK * 16);
                format(s..(s + BLOCK).min(end), &mut buf);
                buf
            })
            .collect();
        for text in texts {
            out.write_all(&text)?;
        }
        start = end;
    }
    Ok(())
}

/// Appends `tag n1 n2 ...\n`.
fn line(buf: &mut Vec<u8>, tag: &[u8], numbers: &[u64]) {
    buf.extend_from_slice(tag);
    buf.push(b' ');
    push_numbers(buf, numbers);
}

/// Appends `v id l1,l2,... [degree]`, each label plus `shift`, and a newline.
fn vertex_line(buf: &mut Vec<u8>, v: VertexId, labels: &[u32], shift: u64, degree: Option<u64>) {
    buf.extend_from_slice(b"v ");
    push_number(buf, v.into());
    for (i, &label) in labels.iter().enumerate() {
        buf.push(if i == 0 { b' ' } else { b',' });
        push_number(buf, u64::from(label) + shift);
    }
    if let Some(degree) = degree {
        buf.push(b' ');
        push_number(buf, degree);
    }
    buf.push(b'\n');
}

/// Appends the numbers separated by spaces, and a newline.
fn push_numbers(buf: &mut Vec<u8>, numbers: &[u64]) {
    for (i, &x) in numbers.iter().enumerate() {
        if i > 0 {
            buf.push(b' ');
        }
        push_number(buf, x);
    }
    buf.push(b'\n');
}

/// Appends `x` in decimal.
fn push_number(buf: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{gsi, sunluo, Format};
    use crate::GraphBuilder;

    /// A small deterministic generator, so the tests need no random-number crate.
    struct SplitMix(u64);

    impl SplitMix {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % below
        }
    }

    fn random_graph(directed: bool, seed: u64) -> Graph {
        let mut rng = SplitMix(seed);
        let n = 300;
        let labels = (0..n).map(|_| rng.next(7) as u32).collect();
        let mut b = GraphBuilder::with_vertices(directed, labels);
        let mut seen = std::collections::HashSet::new();
        while seen.len() < 2000 {
            let (u, v, l) = (rng.next(n) as u32, rng.next(n) as u32, rng.next(5) as u32);
            let key = if directed {
                (u, v, l)
            } else {
                (u.min(v), u.max(v), l)
            };
            if u != v && seen.insert(key) {
                b.add_edge(u, v, l).unwrap();
            }
        }
        b.build().unwrap()
    }

    fn to_sunluo(g: &Graph) -> Vec<u8> {
        let mut out = Vec::new();
        write_sunluo(g, &mut out).unwrap();
        out
    }

    fn to_gsi(g: &Graph) -> Vec<u8> {
        let mut out = Vec::new();
        write_gsi(g, &mut out).unwrap();
        out
    }

    #[test]
    fn writes_the_expected_text() {
        let mut b = GraphBuilder::with_vertices(false, vec![0, 3, 1]);
        b.add_edge(1, 0, 2).unwrap();
        b.add_edge(1, 2, 0).unwrap();
        let g = b.build().unwrap();
        assert_eq!(
            String::from_utf8(to_sunluo(&g)).unwrap(),
            "t 3 2\nv 0 0 1\nv 1 3 2\nv 2 1 1\ne 0 1 2\ne 1 2 0\n"
        );
        assert_eq!(
            String::from_utf8(to_gsi(&g)).unwrap(),
            "t # 0\n3 2 4 3\nv 0 1\nv 1 4\nv 2 2\ne 0 1 3\ne 1 2 1\nt # -1\n"
        );
    }

    #[test]
    fn round_trip_sunluo_gsi_sunluo_gives_the_same_graph() {
        for (directed, seed) in [(false, 1), (true, 2), (false, 3)] {
            let original = random_graph(directed, seed);
            let first = sunluo::parse(Path::new("a"), &to_sunluo(&original), directed).unwrap();
            assert_eq!(first, original);
            let via_gsi = gsi::parse(Path::new("b"), &to_gsi(&first), directed).unwrap();
            assert_eq!(via_gsi, vec![original.clone()]);
            let back = sunluo::parse(Path::new("c"), &to_sunluo(&via_gsi[0]), directed).unwrap();
            assert_eq!(back, original);
            assert_eq!(to_sunluo(&back), to_sunluo(&original));
        }
    }

    #[test]
    fn several_graphs_share_one_gsi_file() {
        let a = random_graph(false, 4);
        let empty = GraphBuilder::new(false).build().unwrap();
        let mut out = Vec::new();
        write_gsi_all([&a, &empty, &a], &mut out).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains("\nt # 1\n0 0 1 1\nt # 2\n"));
        let back = gsi::parse(Path::new("x"), &out, false).unwrap();
        assert_eq!(back, vec![a.clone(), empty, a]);
    }

    #[test]
    fn graphs_larger_than_one_block_are_written_in_order() {
        let n = BLOCK * 3 + 17;
        let mut b = GraphBuilder::with_vertices(false, (0..n as u32).map(|v| v % 3).collect());
        for v in 1..n as u32 {
            b.add_edge(v - 1, v, v % 2).unwrap();
        }
        let g = b.build().unwrap();
        assert_eq!(
            sunluo::parse(Path::new("a"), &to_sunluo(&g), false).unwrap(),
            g
        );
        assert_eq!(
            gsi::parse(Path::new("a"), &to_gsi(&g), false).unwrap()[0],
            g
        );
    }

    #[test]
    fn names_and_dictionaries_are_written_one_per_line() {
        let mut out = Vec::new();
        write_vertex_names(&VertexNames::Ids(vec![42, 7]), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 42\n1 7\n");
        let mut d = Dictionary::new(1);
        d.insert("<http://ex/A>");
        d.insert("<http://ex/B>");
        let mut out = Vec::new();
        write_dictionary(&d, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "1 <http://ex/A>\n2 <http://ex/B>\n"
        );
        let mut terms = Dictionary::new(0);
        terms.insert("_:b");
        terms.insert("\"x\"@en");
        let mut out = Vec::new();
        write_vertex_names(&VertexNames::Terms(terms), &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 _:b\n1 \"x\"@en\n");
        let many = VertexNames::Ids((0..20_000).collect());
        let mut out = Vec::new();
        write_vertex_names(&many, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 20_000);
    }

    #[test]
    fn the_largest_label_cannot_be_written_as_gsi() {
        let g = GraphBuilder::with_vertices(false, vec![u32::MAX])
            .build()
            .unwrap();
        let err = write_gsi(&g, Vec::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn write_graph_to_files_and_reject_what_it_cannot_write() {
        let dir = tempfile::tempdir().unwrap();
        let g = random_graph(true, 5);
        for (format, read) in [
            (WriteFormat::SunLuo, Format::SunLuo),
            (WriteFormat::Gsi, Format::Gsi),
        ] {
            let path = dir.path().join(format!("g.{format}"));
            write_graph(&path, &g, format).unwrap();
            assert_eq!(crate::formats::read_graph(&path, read, true).unwrap(), g);
            assert_eq!(
                crate::formats::read_graph(&path, Format::Auto, true).unwrap(),
                g
            );
        }
        let path = dir.path().join("g.graph");
        for format in [WriteFormat::SunLuo, WriteFormat::GmatchCsr] {
            let err = write_graphs(&path, [&g, &g], format).unwrap_err();
            assert!(err.to_string().contains("holds one graph, not 2"));
        }
        let err = write_graph(&dir.path().join("no/such/dir"), &g, WriteFormat::Gsi).unwrap_err();
        assert!(matches!(err, Error::Io { .. }));
        let many = dir.path().join("many.gsi");
        write_graphs(&many, [&g, &g], WriteFormat::Gsi).unwrap();
        let err = crate::formats::read_graph(&many, Format::Auto, true).unwrap_err();
        assert!(err.to_string().contains("holds 2 graphs, expected one"));
    }
}
