//! The Sun–Luo format of the subgraph-matching benchmarks (Sun and Luo, SIGMOD 2020).
//!
//! ```text
//! t N M              N vertices, M edges
//! v id label degree  one line per vertex, ids 0..N-1
//! e u v [label]      one line per edge; a missing label is 0
//! ```
//! Every count is checked: header against body, each declared degree against the edges.

use std::path::Path;

use crate::formats::fields::{build_naming_lines, Fields};
use crate::formats::{check_counts, empty, Lines, UNDECLARED};
use crate::{Error, Graph, Result, VertexId};

/// Parses a Sun–Luo graph from `bytes`; `path` only names the file in errors.
///
/// # Errors
/// [`Error::Parse`] for a malformed line, [`Error::Invalid`] when the file is empty or its
/// counts disagree with its header.
pub fn parse(path: &Path, bytes: &[u8], directed: bool) -> Result<Graph> {
    let parse_error = |line: usize, message: String| Error::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut lines = Lines::new(path, bytes);

    // Header.
    let (header_line, vertex_total, edge_total) = loop {
        let Some((line, text)) = lines.next_line()? else {
            return Err(empty(path, "a graph header such as `t N M`"));
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

    let mut labels = vec![UNDECLARED; vertex_total];
    let mut declared_degree = vec![0u64; vertex_total];
    let mut vertex_lines = vec![0u32; vertex_total];
    let mut edges: Vec<(VertexId, VertexId, u32)> =
        Vec::with_capacity(edge_total.min(1 << 28) as usize);
    let mut edge_lines: Vec<u32> = Vec::with_capacity(edges.capacity());
    let mut vertices_seen = 0usize;

    while let Some((line, text)) = lines.next_line()? {
        let mut fields = Fields::new(text, line, path);
        match fields.word() {
            None => {}
            Some("v") => {
                let id = fields.vertex(vertex_total, "vertex id")?;
                let label = fields.label("vertex label")?;
                let degree = fields.number("vertex degree")?;
                fields.end("`v id label degree`")?;
                if labels[id as usize] != UNDECLARED {
                    return Err(parse_error(
                        line,
                        format!(
                            "vertex {id} is declared twice (first on line {})",
                            vertex_lines[id as usize]
                        ),
                    ));
                }
                if label == UNDECLARED {
                    return Err(parse_error(
                        line,
                        format!("vertex label {label} is reserved; use a smaller label"),
                    ));
                }
                labels[id as usize] = label;
                declared_degree[id as usize] = degree;
                vertex_lines[id as usize] = line as u32;
                vertices_seen += 1;
            }
            Some("e") => {
                let u = fields.vertex(vertex_total, "edge source")?;
                let v = fields.vertex(vertex_total, "edge target")?;
                let label = if fields.has_more() {
                    fields.label("edge label")?
                } else {
                    0
                };
                fields.end("`e u v [label]`")?;
                if u == v {
                    return Err(parse_error(line, format!("self-loop at vertex {u}")));
                }
                edges.push((u, v, label));
                edge_lines.push(line as u32);
            }
            Some("t") => {
                return Err(parse_error(
                    line,
                    "a second `t` header: a Sun–Luo file holds one graph".into(),
                ))
            }
            Some(word) => {
                return Err(parse_error(
                    line,
                    format!("unknown line type `{word}`: expected `v` (vertex) or `e` (edge)"),
                ))
            }
        }
    }

    check_counts(
        path,
        &format!("the header on line {header_line} declares"),
        "the file",
        &labels,
        vertices_seen,
        edge_total,
        edges.len(),
    )?;
    let mut degree = vec![0u64; vertex_total];
    for &(u, v, _) in &edges {
        degree[u as usize] += 1;
        degree[v as usize] += 1;
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

    build_naming_lines(path, directed, 0, labels, edges, &edge_lines)
}

#[cfg(test)]
mod tests {
    use super::*;
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
            ("t 99999999999 0\n", "do not fit in 32-bit vertex ids"),
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
