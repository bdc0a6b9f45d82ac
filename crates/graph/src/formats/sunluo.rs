//! The Sun–Luo format of the subgraph-matching benchmarks (Sun and Luo, SIGMOD 2020).
//!
//! ```text
//! t N M              N vertices, M edges
//! v id label degree  one line per vertex, ids 0..N-1
//! e u v [label]      one line per edge; a missing label is 0
//! ```
//! A vertex or an edge may carry several labels, separated by commas (`v 0 3,7 2`, `e 0 1
//! 2,5`); an edge line still counts once, in M and in the degrees. Every count is checked:
//! header against body, each declared degree against the edges.
//!
//! Labels may be names instead of numbers (`v 0 person 1`): where any vertex label of a
//! file is not a number, its vertex labels are names, numbered from 0 in order of first
//! appearance (its edge labels likewise, from 1: an edge without a label keeps 0), as in
//! SNAP label files; a query's names are
//! then looked up in the data graph's ([`crate::formats::LabelNames::translate`]).

use std::path::Path;

use crate::formats::fields::{build_naming_lines, Fields};
use crate::formats::{check_claim, check_counts, empty, LineSizes, Lines, UNDECLARED};
use rayon::prelude::*;

use crate::formats::names::Dictionary;
use crate::formats::LabelNames;
use crate::{Error, Graph, Result, VertexId};

/// Where some label of `bytes` (a Sun–Luo text) is a name, not a number: the text with its
/// names replaced by their numbers (each kind of label in order of first appearance; a kind
/// whose labels are all numbers is kept), and the names. `None` where every label is a
/// number, some label is neither a number nor a name, or the text is not UTF-8.
pub fn number_label_names(bytes: &[u8]) -> Option<(String, LabelNames)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let is_number = |label: &str| !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit());
    // A name starts with a letter or `_` and holds letters, digits and `_-.:/#`: anything
    // else (`-1`, `1.5`, a control character) stays a malformed label.
    let is_name = |label: &str| {
        label.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && label
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.:/#".contains(c))
    };
    let (mut vertex_names, mut edge_names) = (false, false);
    for line in text.lines() {
        let Some((of_vertex, at)) = label_field(line) else {
            continue;
        };
        let Some(field) = line.split_ascii_whitespace().nth(at) else {
            continue;
        };
        for label in field.split(',').filter(|label| !is_number(label)) {
            if !is_name(label) {
                return None;
            }
            *(if of_vertex {
                &mut vertex_names
            } else {
                &mut edge_names
            }) = true;
        }
    }
    if !vertex_names && !edge_names {
        return None;
    }
    // Edge names from 1: an edge line without a label keeps label 0, which names none.
    let (mut vertex, mut edge) = (Dictionary::new(0), Dictionary::new(1));
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let named = match label_field(line) {
            Some((true, at)) if vertex_names => Some((at, &mut vertex)),
            Some((false, at)) if edge_names => Some((at, &mut edge)),
            _ => None,
        };
        let Some((at, names)) = named else {
            out.push_str(line);
            continue;
        };
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            if i == at {
                let numbers: Vec<String> = field
                    .split(',')
                    .map(|name| names.insert(name).to_string())
                    .collect();
                out.push_str(&numbers.join(","));
            } else {
                out.push_str(field);
            }
        }
        out.push('\n');
    }
    let labels = LabelNames {
        vertex: vertex_names.then_some(vertex),
        edge: edge_names.then_some(edge),
    };
    Some((out, labels))
}

/// Of a `v id labels degree` or `e u v labels` line: whether it is a vertex's, and where its
/// label field is.
fn label_field(line: &str) -> Option<(bool, usize)> {
    match line.split_ascii_whitespace().next()? {
        "v" => Some((true, 2)),
        "e" => Some((false, 3)),
        _ => None,
    }
}

/// Parses a Sun–Luo graph from `bytes`; `path` only names the file in errors.
///
/// # Errors
/// [`Error::Parse`] for a malformed line, [`Error::Invalid`] when the file is empty or its
/// counts disagree with its header.
pub fn parse(path: &Path, bytes: &[u8], directed: bool) -> Result<Graph> {
    parse_in_chunks(path, bytes, directed, CHUNK_BYTES, &|| {})
}

/// [`parse`], calling `done_with_text` once every line is read, before the graph is built:
/// a mapped file's pages can then leave memory.
pub(crate) fn parse_then(
    path: &Path,
    bytes: &[u8],
    directed: bool,
    done_with_text: &dyn Fn(),
) -> Result<Graph> {
    parse_in_chunks(path, bytes, directed, CHUNK_BYTES, done_with_text)
}

/// [`parse_then`] with the body split in chunks of about `chunk_bytes`.
fn parse_in_chunks(
    path: &Path,
    bytes: &[u8],
    directed: bool,
    chunk_bytes: usize,
    done_with_text: &dyn Fn(),
) -> Result<Graph> {
    let parse_error = |line: usize, message: String| Error::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut lines = Lines::new(path, bytes);

    // Header.
    let (header_line, vertex_total, edge_total) = loop {
        let Some((line, text)) = lines.next_line()? else {
            return Err(empty(path, bytes, "a graph header such as `t N M`"));
        };
        let mut fields = Fields::new(text, line, path);
        match fields.word() {
            None => continue,
            Some("t") => {
                let n = fields.number("the vertex count N of `t N M`")?;
                let m = fields.number("the edge count M of `t N M`")?;
                fields.end("`t N M`")?;
                if n >= u64::from(u32::MAX) {
                    return Err(parse_error(
                        line,
                        format!("{n} vertices do not fit in 32-bit vertex ids"),
                    ));
                }
                check_claim(path, line, n, m, lines.rest().len(), LINE_SIZES)?;
                break (line, n as usize, m);
            }
            Some(word) => {
                return Err(parse_error(
                    line,
                    format!("expected the header `t N M`, found `{word}`"),
                ))
            }
        }
    };

    // The body is parsed in parallel, in chunks of whole lines, each numbering its lines from
    // the count of line ends before it; the chunks are then merged in file order, so the
    // error reported is the first in the file, as a line-by-line reading would find.
    let chunks = split_lines(lines.rest(), chunk_bytes);
    let mut first_lines = Vec::with_capacity(chunks.len());
    let mut line = header_line;
    for chunk in &chunks {
        first_lines.push(line);
        line += chunk.iter().filter(|&&b| b == b'\n').count();
    }
    let parse_chunk = |(chunk, line): (&&[u8], usize)| Body::parse(path, chunk, line, vertex_total);
    // A file of one chunk (every query file) stays on this thread: no hand-off to the pool.
    let bodies: Vec<Body> = if chunks.len() == 1 {
        chunks.iter().zip(first_lines).map(parse_chunk).collect()
    } else {
        chunks
            .par_iter()
            .zip(first_lines)
            .map(parse_chunk)
            .collect()
    };
    done_with_text();

    let mut labels = vec![UNDECLARED; vertex_total];
    let mut declared_degree = vec![0u64; vertex_total];
    let mut vertex_lines = vec![0u32; vertex_total];
    let edge_count: usize = bodies.iter().map(|b| b.edges.len()).sum();
    let mut edges: Vec<(VertexId, VertexId, u32)> = Vec::with_capacity(edge_count);
    let mut edge_lines: Vec<u32> = Vec::with_capacity(edge_count);
    let mut more_labels = Vec::new();
    let mut vertices_seen = 0usize;
    for body in bodies {
        for (id, label, degree, line) in body.vertices {
            if labels[id as usize] != UNDECLARED {
                return Err(parse_error(
                    line as usize,
                    format!(
                        "vertex {id} is declared twice (first on line {})",
                        vertex_lines[id as usize]
                    ),
                ));
            }
            labels[id as usize] = label;
            declared_degree[id as usize] = degree;
            vertex_lines[id as usize] = line;
            vertices_seen += 1;
        }
        more_labels.extend(body.more_labels);
        edges.extend(body.edges);
        edge_lines.extend(body.edge_lines);
        if let Some(err) = body.error {
            return Err(err);
        }
    }

    check_counts(
        path,
        &format!("the header on line {header_line} declares"),
        "the file",
        &labels,
        vertices_seen,
        edge_total,
        first_of_line(&edge_lines).filter(|&first| first).count(),
    )?;
    // An edge of several labels is one entry per label, all from its line: it counts once.
    let mut degree = vec![0u64; vertex_total];
    for (&(u, v, _), first) in edges.iter().zip(first_of_line(&edge_lines)) {
        if first {
            degree[u as usize] += 1;
            degree[v as usize] += 1;
        }
    }
    if let Some(v) = (0..vertex_total).find(|&v| degree[v] != declared_degree[v]) {
        return Err(parse_error(
            vertex_lines[v] as usize,
            format!(
                "vertex {v} declares degree {} but {} edges touch it",
                declared_degree[v], degree[v]
            ),
        ));
    }

    build_naming_lines(path, directed, 0, labels, more_labels, edges, &edge_lines)
}

/// Whether each edge entry is the first of its line (the others are its further labels).
fn first_of_line(edge_lines: &[u32]) -> impl Iterator<Item = bool> + '_ {
    let before = std::iter::once(None).chain(edge_lines.iter().map(Some));
    edge_lines
        .iter()
        .zip(before)
        .map(|(line, before)| before != Some(line))
}

/// The shortest lines: `v 0 0 0` and `e 0 1`, each with its line end.
const LINE_SIZES: LineSizes = LineSizes { vertex: 8, edge: 6 };

/// Bytes of a chunk of the body parsed by one task.
const CHUNK_BYTES: usize = 4 << 20;

/// Splits `bytes` into runs of whole lines of about `size` bytes.
fn split_lines(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + size).min(bytes.len());
        if end < bytes.len() {
            end = bytes[end..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| end + i + 1);
        }
        chunks.push(&bytes[start..end]);
        start = end;
    }
    chunks
}

/// What one chunk of the body holds, up to its first malformed line.
struct Body {
    /// `(id, label, declared degree, line)` per `v` line.
    vertices: Vec<(VertexId, u32, u64, u32)>,
    /// The further labels of vertices that carry several.
    more_labels: Vec<(VertexId, u32)>,
    edges: Vec<(VertexId, VertexId, u32)>,
    edge_lines: Vec<u32>,
    /// The chunk's first malformed line, if any; nothing after it was read.
    error: Option<Error>,
}

impl Body {
    /// Parses the `v` and `e` lines of `bytes`, numbered from `line + 1`.
    fn parse(path: &Path, bytes: &[u8], line: usize, vertex_total: usize) -> Body {
        let mut body = Body {
            vertices: Vec::new(),
            more_labels: Vec::new(),
            edges: Vec::new(),
            edge_lines: Vec::new(),
            error: None,
        };
        let mut lines = Lines::after(path, bytes, line);
        loop {
            match body.line(path, &mut lines, vertex_total) {
                Ok(true) => {}
                Ok(false) => break,
                Err(err) => {
                    body.error = Some(err);
                    break;
                }
            }
        }
        body
    }

    /// Reads one line; `Ok(false)` at the end.
    fn line(&mut self, path: &Path, lines: &mut Lines, vertex_total: usize) -> Result<bool> {
        let Some((line, text)) = lines.next_line()? else {
            return Ok(false);
        };
        let parse_error = |message: String| Error::Parse {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut fields = Fields::new(text, line, path);
        match fields.word() {
            None => {}
            Some("v") => {
                let id = fields.vertex(vertex_total, "vertex id")?;
                let mut more = Vec::new();
                let label = fields.labels("vertex label", true, &mut more)?;
                let degree = fields.number("vertex degree")?;
                fields.end("`v id label degree`")?;
                self.vertices.push((id, label, degree, line as u32));
                self.more_labels.extend(more.into_iter().map(|l| (id, l)));
            }
            Some("e") => {
                let u = fields.vertex(vertex_total, "edge source")?;
                let v = fields.vertex(vertex_total, "edge target")?;
                let mut more = Vec::new();
                let label = if fields.has_more() {
                    fields.labels("edge label", false, &mut more)?
                } else {
                    0
                };
                fields.end("`e u v [label]`")?;
                if u == v {
                    return Err(parse_error(format!("self-loop at vertex {u}")));
                }
                for label in std::iter::once(label).chain(more) {
                    self.edges.push((u, v, label));
                    self.edge_lines.push(line as u32);
                }
            }
            Some("t") => {
                return Err(parse_error(
                    "a second `t` header: a Sun–Luo file holds one graph".into(),
                ))
            }
            Some(word) => {
                return Err(parse_error(format!(
                    "unknown line type `{word}`: expected `v` (vertex) or `e` (edge)"
                )))
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_written_as_names_are_numbered_in_order_of_first_appearance() {
        let text = "t 3 2\nv 0 person 1\nv 1 robot,person 2\nv 2 person 1\ne 0 1 knows\ne 1 2\n";
        let (numbered, labels) = number_label_names(text.as_bytes()).unwrap();
        assert_eq!(
            numbered,
            "t 3 2\nv 0 0 1\nv 1 1,0 2\nv 2 0 1\ne 0 1 1\ne 1 2\n"
        );
        let vertex = labels.vertex.unwrap();
        assert_eq!(
            (vertex.id("person"), vertex.id("robot")),
            (Some(0), Some(1))
        );
        assert_eq!(labels.edge.unwrap().id("knows"), Some(1));
        let g = parse(Path::new("g"), numbered.as_bytes(), false).unwrap();
        assert_eq!(g.labels_of(1), &[0, 1]);
        // Numbers alone: nothing to do; a label neither number nor name stays malformed.
        assert!(number_label_names(b"t 1 0\nv 0 7 0\n").is_none());
        assert!(number_label_names(b"t 2 0\nv 0 a 0\nv 1 -1 0\n").is_none());
    }
    use crate::Direction;

    fn parse_str(text: &str) -> Result<Graph> {
        parse(Path::new("g.graph"), text.as_bytes(), false)
    }

    fn message(text: &str) -> String {
        parse_str(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_a_triangle_with_crlf_and_edge_labels() {
        let g =
            parse_str("t 3 3\r\nv 0 1 2\r\nv 1 1 2\r\nv 2 2 2\r\ne 0 1\r\ne 1 2 7\r\ne 0 2 7\r\n")
                .unwrap();
        assert_eq!(g.vertex_count(), 3);
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.label(2), 2);
        assert_eq!(g.neighbors(2, 7, Direction::Out), &[0, 1]);
        assert_eq!(g.neighbors(0, 0, Direction::Out), &[1]);
    }

    #[test]
    fn vertices_and_edges_may_carry_several_labels() {
        let text = "t 3 2\nv 0 4,1 1\nv 1 2 2\nv 2 3,3,0 1\ne 0 1 5,2\ne 1 2\n";
        let g = parse_str(text).unwrap();
        assert!(g.has_label_sets());
        assert_eq!(g.labels_of(0), &[1, 4]);
        assert_eq!(g.label(0), 1);
        assert_eq!(g.labels_of(1), &[2]);
        assert_eq!(g.labels_of(2), &[0, 3]);
        // An edge line of two labels is two edges, counted once in M and in the degrees.
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.neighbors(0, 5, Direction::Out), &[1]);
        assert_eq!(g.neighbors(0, 2, Direction::Out), &[1]);
        // Written and read back, the same graph.
        let mut written = Vec::new();
        crate::formats::write::write_sunluo(&g, &mut written).unwrap();
        assert_eq!(parse(Path::new("w.graph"), &written, false).unwrap(), g);
        let single = parse_str("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 1\n").unwrap();
        assert!(!single.has_label_sets());
        assert_eq!(single.labels_of(1), &[1]);
    }

    #[test]
    fn malformed_label_lists_are_refused() {
        let cases = [
            (
                "t 1 0\nv 0 1,,2 0\n",
                "g.graph:2: vertex labels `1,,2`: an empty entry",
            ),
            (
                "t 1 0\nv 0 1, 0\n",
                "g.graph:2: vertex labels `1,`: an empty entry",
            ),
            (
                "t 1 0\nv 0 1,x 0\n",
                "g.graph:2: vertex label must be an integer, found `x`",
            ),
            (
                "t 1 0\nv 0 2,4294967295 0\n",
                "g.graph:2: vertex label 4294967295 is reserved",
            ),
            (
                "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1 3,3\n",
                "g.graph:4: duplicate edge 0 -- 1 (label 3), first given on line 4",
            ),
            (
                "t 2 1\nv 0 0 2\nv 1 0 2\ne 0 1 3,4\n",
                "g.graph:2: vertex 0 declares degree 2 but 1 edges touch it",
            ),
        ];
        for (text, expected) in cases {
            let got = message(text);
            assert!(got.contains(expected), "{text:?}: {got}");
        }
    }

    #[test]
    fn each_malformed_file_names_its_line() {
        let cases = [
            ("", "the file is empty"),
            ("\n\n", "the file is empty"),
            ("x 1 2\n", "g.graph:1: expected the header"),
            ("t 2\n", "g.graph:1: missing the edge count"),
            ("t 2 0\nv 0 0 0\nq 1\n", "g.graph:3: unknown line type `q`"),
            (
                "t 2 0\nv 0 a 0\n",
                "g.graph:2: vertex label must be an integer, found `a`",
            ),
            (
                "t 2 0\nv -1 0 0\n",
                "g.graph:2: vertex id must be a non-negative integer",
            ),
            ("t 2 0\nv 2 0 0\n", "g.graph:2: vertex id 2 is out of range"),
            (
                "t 2 0\nv 0 0 0\nv 0 0 0\n",
                "g.graph:3: vertex 0 is declared twice",
            ),
            (
                "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 5\n",
                "g.graph:4: edge target 5 is out of range",
            ),
            (
                "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 0\n",
                "g.graph:4: self-loop at vertex 0",
            ),
            (
                "t 2 0\nv 0 0 0\n",
                "declares 2 vertices but the file has 1 `v` lines",
            ),
            (
                "t 2 2\nv 0 0 1\nv 1 0 1\ne 0 1\n",
                "declares 2 edges but the file has 1",
            ),
            (
                "t 2 1\nv 0 0 1\nv 1 0 2\ne 0 1\n",
                "g.graph:3: vertex 1 declares degree 2",
            ),
            (
                "t 2 2\nv 0 0 2\nv 1 0 2\ne 0 1\ne 1 0\n",
                "g.graph:5: duplicate edge 0 -- 1 (label 0), first given on line 4",
            ),
            ("t 2 0\nv 0 0 0 9\n", "g.graph:2: unexpected `9`"),
            ("t 1 0\nv 0 99999999999 0\n", "does not fit in 32 bits"),
            (
                "t 1 0\nv 99999999999999999999 0 0\n",
                "g.graph:2: vertex id 99999999999999999999 is too large",
            ),
            ("t 99999999999 0\n", "do not fit in 32-bit vertex ids"),
            // Found by fuzzing: a header claim the body cannot hold, refused before any
            // allocation for it (it once asked for 2.4 GB).
            (
                "t 600000000 0\n",
                "g.graph:1: 600000000 vertices and 0 edges are declared",
            ),
            ("t 1 0\nt 1 0\n", "a second `t` header"),
            ("t 1 0\nv 0 \u{0} 0\n", "g.graph:2: this line is not text"),
        ];
        for (text, expected) in cases {
            let msg = message(text);
            assert!(
                msg.contains(expected),
                "{text:?}: got `{msg}`, expected `{expected}`"
            );
        }
    }

    #[test]
    fn chunked_parsing_reports_the_first_error_and_reads_the_same_graph() {
        let valid = "t 4 4\nv 0 1 2\nv 1 1 2\nv 2 2 2\nv 3 0 2\ne 0 1\ne 1 2 7\ne 2 3\ne 3 0 1\n";
        let cases = [
            valid,
            "t 3 1\nv 0 0 1\nv 1 0 1\nv 0 0 0\nx 1\ne 0 1\n",
            "t 3 1\nv 0 0 1\nx 1\nv 0 0 0\ne 0 1\n",
            "t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\ne 1 1\n",
            "t 2 1\nv 0 0 1\r\nv 1 0 1\r\ne 0 5\r\n",
        ];
        for text in cases {
            let whole = parse(Path::new("g"), text.as_bytes(), false).map_err(|e| e.to_string());
            for chunk in 1..12 {
                let parts = parse_in_chunks(Path::new("g"), text.as_bytes(), false, chunk, &|| {})
                    .map_err(|e| e.to_string());
                assert_eq!(parts, whole, "{text:?} in chunks of {chunk}");
            }
        }
        assert!(parse(Path::new("g"), valid.as_bytes(), false).is_ok());
    }

    #[test]
    fn invalid_utf8_is_reported_as_binary() {
        let err = parse(Path::new("g.graph"), b"t 1 0\n\xff\xfe\n", false).unwrap_err();
        assert!(err.to_string().contains("g.graph:2: this line is not text"));
    }

    #[test]
    fn directed_reading_keeps_direction() {
        let g = parse(Path::new("g"), b"t 2 1\nv 0 0 1\nv 1 0 1\ne 1 0\n", true).unwrap();
        assert_eq!(g.neighbors(1, 0, Direction::Out), &[0]);
        assert!(g.neighbors(0, 0, Direction::Out).is_empty());
    }
}
