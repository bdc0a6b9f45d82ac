//! The format of the GSI authors' tool (Zeng et al., ICDE 2020).
//!
//! ```text
//! t # 0                                    graph 0 begins
//! N M maxVertexLabel maxEdgeLabel          counts; labels are 1..=max
//! v id label                               one line per vertex, ids 0..N-1
//! e u v label                              one line per edge
//! t # 1                                    the next graph, if any, and so on
//! ...
//! t # -1                                   the end of the file
//! ```
//!
//! A vertex or an edge may carry several labels, separated by commas (`v 0 3,7`, `e 0 1
//! 2,5`); an edge line still counts once in M.
//!
//! Labels in these files start from 1 (the authors add 1 to every label so that none is
//! 0). gsi numbers labels from 0, so the reader subtracts 1 from every label and the writer
//! ([`crate::formats::write::write_gsi`]) adds it back: a graph written and read back is the
//! same graph. A label of 0, or one above the maximum the counts line declares, is an error.
//! Every count is checked against the body, as in the Sun–Luo reader.

use std::path::Path;

use crate::formats::fields::{build_naming_lines, Fields};
use crate::formats::{check_claim, check_counts, empty, LineSizes, Lines, UNDECLARED};
use crate::{Error, Graph, Result, VertexId};

/// Parses every graph of a GSI file from `bytes`; `path` only names the file in errors.
///
/// # Errors
/// [`Error::Parse`] for a malformed line, [`Error::Invalid`] when the file is empty, holds no
/// graph, lacks the closing `t # -1`, or its counts disagree with its body.
pub fn parse(path: &Path, bytes: &[u8], directed: bool) -> Result<Vec<Graph>> {
    let mut lines = Lines::new(path, bytes);
    // The first `t # K` line.
    let mut header = loop {
        let Some((line, text)) = lines.next_line()? else {
            return Err(empty(path, bytes, "a graph header such as `t # 0`"));
        };
        let mut fields = Fields::new(text, line, path);
        match fields.word() {
            None => continue,
            Some("t") => {
                let number = graph_number(&mut fields)?;
                if number < 0 {
                    return Err(fields.error(
                        "the closing `t # -1` comes before any graph: expected `t # 0`".into(),
                    ));
                }
                break NextHeader { line, number };
            }
            Some(other) => {
                return Err(
                    fields.error(format!("expected a graph header `t # 0`, found `{other}`"))
                )
            }
        }
    };
    let mut graphs = Vec::new();
    while header.number >= 0 {
        let (graph, next) = parse_graph(path, &mut lines, header.line, directed)?;
        graphs.push(graph);
        header = next.ok_or_else(|| Error::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "the file ends without the closing `t # -1` (the last graph begins on line {})",
                header.line
            ),
        })?;
    }
    while let Some((line, text)) = lines.next_line()? {
        let mut fields = Fields::new(text, line, path);
        if let Some(word) = fields.word() {
            return Err(fields.error(format!(
                "unexpected `{word}` after the closing `t # -1`: nothing may follow it"
            )));
        }
    }
    Ok(graphs)
}

/// The shortest lines: `v 0 1` and `e 0 1 1`, each with its line end.
const LINE_SIZES: LineSizes = LineSizes { vertex: 6, edge: 8 };

/// A `t # K` line that ended a graph's body.
struct NextHeader {
    line: usize,
    number: i64,
}

/// Reads `# K` after a `t`.
fn graph_number(fields: &mut Fields<'_>) -> Result<i64> {
    match fields.word() {
        Some("#") => {}
        Some(other) => {
            return Err(fields.error(format!(
                "expected `t # K` (a graph header), found `t {other}`"
            )))
        }
        None => return Err(fields.error("missing `# K` after `t`: expected `t # K`".into())),
    }
    let Some(k) = fields.word() else {
        return Err(fields.error("missing the graph number K of `t # K`".into()));
    };
    let number = k.parse::<i64>().ok().filter(|&n| n >= -1).ok_or_else(|| {
        fields.error(format!(
            "the graph number of `t # K` must be a non-negative integer or -1, found `{k}`"
        ))
    })?;
    fields.end("`t # K`")?;
    Ok(number)
}

/// Reads one graph after its `t # K` line (on line `start`), up to the next `t` line, which
/// it returns, or the end of the file.
fn parse_graph(
    path: &Path,
    lines: &mut Lines<'_>,
    start: usize,
    directed: bool,
) -> Result<(Graph, Option<NextHeader>)> {
    let parse_error = |line: usize, message: String| Error::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };

    // Counts line.
    let (header_line, vertex_total, edge_total, max_vertex_label, max_edge_label) = loop {
        let Some((line, text)) = lines.next_line()? else {
            return Err(Error::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "the file ends after `t # K` on line {start}: expected the counts line `N M maxVertexLabel maxEdgeLabel`"
                ),
            });
        };
        let mut fields = Fields::new(text, line, path);
        if !fields.has_more() {
            continue;
        }
        let what = "of the counts line `N M maxVertexLabel maxEdgeLabel`";
        let n = fields.number(&format!("the vertex count N {what}"))?;
        let m = fields.number(&format!("the edge count M {what}"))?;
        let max_v = fields.label(&format!("the maximum vertex label {what}"))?;
        let max_e = fields.label(&format!("the maximum edge label {what}"))?;
        fields.end("`N M maxVertexLabel maxEdgeLabel`")?;
        if n >= u64::from(u32::MAX) {
            return Err(parse_error(
                line,
                format!("{n} vertices do not fit in 32-bit vertex ids"),
            ));
        }
        check_claim(path, line, n, m, lines.rest().len(), LINE_SIZES)?;
        break (line, n as usize, m, max_v, max_e);
    };

    let mut labels = vec![UNDECLARED; vertex_total];
    let mut vertex_lines = vec![0u32; vertex_total];
    let mut edges: Vec<(VertexId, VertexId, u32)> = Vec::with_capacity(edge_total as usize);
    let mut edge_lines: Vec<u32> = Vec::with_capacity(edges.capacity());
    let mut more_labels = Vec::new();
    let mut edge_lines_read = 0usize;
    let mut vertices_seen = 0usize;
    let mut next = None;

    while let Some((line, text)) = lines.next_line()? {
        let mut fields = Fields::new(text, line, path);
        match fields.word() {
            None => {}
            Some("v") => {
                let id = fields.vertex(vertex_total, "vertex id")?;
                let mut more = Vec::new();
                let label = gsi_labels(
                    &mut fields,
                    "vertex label",
                    max_vertex_label,
                    header_line,
                    &mut more,
                )?;
                fields.end("`v id label`")?;
                more_labels.extend(more.into_iter().map(|l| (id, l)));
                if labels[id as usize] != UNDECLARED {
                    return Err(parse_error(
                        line,
                        format!(
                            "vertex {id} is declared twice (first on line {})",
                            vertex_lines[id as usize]
                        ),
                    ));
                }
                labels[id as usize] = label;
                vertex_lines[id as usize] = line as u32;
                vertices_seen += 1;
            }
            Some("e") => {
                let u = fields.vertex(vertex_total, "edge source")?;
                let v = fields.vertex(vertex_total, "edge target")?;
                let mut more = Vec::new();
                let label =
                    gsi_labels(&mut fields, "edge label", max_edge_label, header_line, &mut more)?;
                fields.end("`e u v label`")?;
                if u == v {
                    return Err(parse_error(line, format!("self-loop at vertex {u}")));
                }
                for label in std::iter::once(label).chain(more) {
                    edges.push((u, v, label));
                    edge_lines.push(line as u32);
                }
                edge_lines_read += 1;
            }
            Some("t") => {
                let number = graph_number(&mut fields)?;
                next = Some(NextHeader { line, number });
                break;
            }
            Some(word) => {
                return Err(parse_error(
                    line,
                    format!(
                        "unknown line type `{word}`: expected `v` (vertex), `e` (edge) or `t` (graph header)"
                    ),
                ))
            }
        }
    }

    check_counts(
        path,
        &format!("the counts on line {header_line} declare"),
        "the graph",
        &labels,
        vertices_seen,
        edge_total,
        edge_lines_read,
    )?;
    drop(vertex_lines);
    let graph = build_naming_lines(path, directed, 1, labels, more_labels, edges, &edge_lines)?;
    Ok((graph, next))
}

/// Reads the labels of a GSI file's vertex or edge (1..=max; several separated by commas)
/// and returns the first as gsi's label (one less), pushing the others to `more` so.
fn gsi_labels(
    fields: &mut Fields<'_>,
    what: &str,
    max: u32,
    header_line: usize,
    more: &mut Vec<u32>,
) -> Result<u32> {
    let first = fields.labels(what, false, more)?;
    let shift = |label: u32| {
        if label == 0 {
            return Err(fields.error(format!(
                "{what} 0 is not allowed: labels in gsi files start from 1"
            )));
        }
        if label > max {
            return Err(fields.error(format!(
                "{what} {label} is above the maximum {max} declared on line {header_line}"
            )));
        }
        Ok(label - 1)
    };
    for label in more.iter_mut() {
        *label = shift(*label)?;
    }
    shift(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Direction;

    fn parse_str(text: &str) -> Result<Vec<Graph>> {
        parse(Path::new("g.gsi"), text.as_bytes(), false)
    }

    fn message(text: &str) -> String {
        parse_str(text).unwrap_err().to_string()
    }

    const TRIANGLE: &str =
        "t # 0\n3 3 2 5\nv 0 1\nv 1 1\nv 2 2\ne 0 1 1\ne 1 2 5\ne 2 0 5\nt # -1\n";

    #[test]
    fn vertices_and_edges_may_carry_several_labels() {
        let text = "t # 0\n3 2 4 5\nv 0 1,3\nv 1 2\nv 2 4,1\ne 0 1 1,5\ne 1 2 2\nt # -1\n";
        let graphs = parse_str(text).unwrap();
        let g = &graphs[0];
        assert_eq!(g.labels_of(0), &[0, 2]);
        assert_eq!(g.labels_of(2), &[0, 3]);
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.neighbors(1, 4, Direction::Out), &[0]);
        let mut written = Vec::new();
        crate::formats::write::write_gsi(g, &mut written).unwrap();
        assert_eq!(&parse(Path::new("w.gsi"), &written, false).unwrap()[0], g);
        for (text, expected) in [
            (
                "t # 0\n1 0 4 1\nv 0 1,0\nt # -1\n",
                "vertex label 0 is not allowed",
            ),
            (
                "t # 0\n1 0 4 1\nv 0 1,5\nt # -1\n",
                "vertex label 5 is above the maximum 4",
            ),
        ] {
            let got = message(text);
            assert!(got.contains(expected), "{text:?}: {got}");
        }
    }

    #[test]
    fn reads_the_authors_example_with_labels_shifted_to_zero() {
        let graphs = parse_str(TRIANGLE).unwrap();
        assert_eq!(graphs.len(), 1);
        let g = &graphs[0];
        assert_eq!((g.vertex_count(), g.edge_count()), (3, 3));
        assert_eq!(g.vertex_labels(), &[0, 0, 1]);
        assert_eq!(g.neighbors(2, 4, Direction::Out), &[0, 1]);
        assert_eq!(g.neighbors(0, 0, Direction::Out), &[1]);
        assert!(!g.is_directed());
    }

    #[test]
    fn reads_several_graphs_and_crlf() {
        let text = "t # 0\r\n2 1 1 1\r\nv 0 1\r\nv 1 1\r\ne 0 1 1\r\n\r\nt # 1\r\n1 0 3 1\r\nv 0 3\r\nt # 2\r\n0 0 1 1\r\nt # -1\r\n\r\n";
        let graphs = parse_str(text).unwrap();
        assert_eq!(graphs.len(), 3);
        assert_eq!(graphs[0].edge_count(), 1);
        assert_eq!(graphs[1].vertex_labels(), &[2]);
        assert_eq!(graphs[2].vertex_count(), 0);
    }

    #[test]
    fn directed_reading_keeps_direction() {
        let g = parse(Path::new("g"), TRIANGLE.as_bytes(), true).unwrap();
        let g = &g[0];
        assert!(g.is_directed());
        assert_eq!(g.neighbors(2, 4, Direction::Out), &[0]);
        assert_eq!(g.neighbors(2, 4, Direction::In), &[1]);
    }

    #[test]
    fn each_malformed_file_names_its_line() {
        let cases = [
            ("", "the file is empty"),
            ("\n \n", "the file is empty"),
            ("x\n", "g.gsi:1: expected a graph header `t # 0`, found `x`"),
            (
                "t 3 2\n",
                "g.gsi:1: expected `t # K` (a graph header), found `t 3`",
            ),
            ("t\n", "g.gsi:1: missing `# K` after `t`"),
            ("t #\n", "g.gsi:1: missing the graph number"),
            ("t # x\n", "g.gsi:1: the graph number of `t # K` must be"),
            ("t # -2\n", "g.gsi:1: the graph number of `t # K` must be"),
            ("t # 0 7\n", "g.gsi:1: unexpected `7` after `t # K`"),
            (
                "t # -1\n",
                "g.gsi:1: the closing `t # -1` comes before any graph",
            ),
            ("t # 0\n", "the file ends after `t # K` on line 1"),
            ("t # 0\n1 0 1\n", "g.gsi:2: missing the maximum edge label"),
            // The fuzzed Sun–Luo header claim, on a GSI counts line.
            (
                "t # 0\n600000000 0 1 1\n",
                "g.gsi:2: 600000000 vertices and 0 edges are declared",
            ),
            ("t # 0\n1 0 1 1 1\n", "g.gsi:2: unexpected `1` after `N M"),
            (
                "t # 0\na 0 1 1\n",
                "g.gsi:2: the vertex count N of the counts line",
            ),
            (
                "t # 0\n99999999999 0 1 1\n",
                "g.gsi:2: 99999999999 vertices do not fit",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 0\nt # -1\n",
                "g.gsi:3: vertex label 0 is not allowed",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 2\nt # -1\n",
                "g.gsi:3: vertex label 2 is above the maximum 1 declared on line 2",
            ),
            (
                "t # 0\n1 0 1 1\nv 1 1\n",
                "g.gsi:3: vertex id 1 is out of range",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1 4\n",
                "g.gsi:3: unexpected `4` after `v id label`",
            ),
            ("t # 0\n1 0 1 1\nv 0\n", "g.gsi:3: missing vertex label"),
            (
                "t # 0\n2 0 1 1\nv 0 1\nv 0 1\n",
                "g.gsi:4: vertex 0 is declared twice (first on line 3)",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1\n",
                "g.gsi:5: missing edge label",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 2\n",
                "g.gsi:5: edge label 2 is above the maximum 1",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 0\n",
                "g.gsi:5: edge label 0 is not allowed",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 1 1 1\n",
                "g.gsi:5: self-loop at vertex 1",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 2 1\n",
                "g.gsi:5: edge target 2 is out of range",
            ),
            (
                "t # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1 1\n",
                "g.gsi:5: unexpected `1` after `e u v label`",
            ),
            (
                "t # 0\n2 0 1 1\nv 0 1\nq\n",
                "g.gsi:4: unknown line type `q`",
            ),
            (
                "t # 0\n2 0 1 1\nv 0 1\nt # -1\n",
                "declare 2 vertices but the graph has 1 `v` lines (vertex 1 is missing)",
            ),
            (
                "t # 0\n2 2 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n",
                "declare 2 edges but the graph has 1 `e` lines",
            ),
            (
                "t # 0\n2 2 1 1\nv 0 1\nv 1 1\ne 0 1 1\ne 1 0 1\nt # -1\n",
                "g.gsi:6: duplicate edge 0 -- 1 (label 1), first given on line 5",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1\n",
                "the file ends without the closing `t # -1` (the last graph begins on line 1)",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1\nt # 1\n1 0 1 1\nv 0 1\n",
                "the last graph begins on line 4",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1\nt # -1\nv 0 1\n",
                "g.gsi:5: unexpected `v` after the closing `t # -1`",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1\nt # 1\nx\n",
                "g.gsi:5: the vertex count N of the counts line",
            ),
            (
                "t # 0\n1 0 1 1\nv 0 1\nt 5\n",
                "g.gsi:4: expected `t # K` (a graph header), found `t 5`",
            ),
            (
                "t # 0\n1 0 1 1\nv \u{0}\n",
                "g.gsi:3: this line is not text",
            ),
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
    fn duplicate_antiparallel_edges_are_fine_when_directed() {
        let text = "t # 0\n2 2 1 1\nv 0 1\nv 1 1\ne 0 1 1\ne 1 0 1\nt # -1\n";
        let g = parse(Path::new("g"), text.as_bytes(), true).unwrap();
        assert_eq!(g[0].edge_count(), 2);
    }
}
