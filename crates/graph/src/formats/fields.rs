//! Pieces shared by the line-based readers: whitespace-separated fields with errors that say
//! what was expected, and graph building that names the line of a repeated edge.

use std::path::Path;

use crate::formats::UNDECLARED;
use crate::{EdgeLabel, Error, Graph, GraphBuilder, Result, VertexId, VertexLabel};

/// The whitespace-separated fields of one line, with errors that say what was expected.
pub(crate) struct Fields<'a> {
    iter: std::iter::Peekable<std::str::SplitAsciiWhitespace<'a>>,
    line: usize,
    path: &'a Path,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(text: &'a str, line: usize, path: &'a Path) -> Fields<'a> {
        Fields {
            iter: text.split_ascii_whitespace().peekable(),
            line,
            path,
        }
    }

    pub(crate) fn error(&self, message: String) -> Error {
        Error::Parse {
            path: self.path.to_path_buf(),
            line: self.line,
            message,
        }
    }

    pub(crate) fn word(&mut self) -> Option<&'a str> {
        self.iter.next()
    }

    pub(crate) fn has_more(&mut self) -> bool {
        self.iter.peek().is_some()
    }

    pub(crate) fn number(&mut self, what: &str) -> Result<u64> {
        let field = self.field(what)?;
        self.parse_number(field, what)
    }

    fn field(&mut self, what: &str) -> Result<&'a str> {
        self.iter
            .next()
            .ok_or_else(|| self.error(format!("missing {what}")))
    }

    fn parse_number(&self, field: &str, what: &str) -> Result<u64> {
        field.parse::<u64>().map_err(|_| {
            if !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit()) {
                return self.error(format!("{what} {field} is too large"));
            }
            let kind = if field.starts_with('-') {
                "a non-negative integer"
            } else {
                "an integer"
            };
            self.error(format!("{what} must be {kind}, found `{field}`"))
        })
    }

    pub(crate) fn label(&mut self, what: &str) -> Result<u32> {
        let field = self.field(what)?;
        self.parse_label(field, what)
    }

    fn parse_label(&self, field: &str, what: &str) -> Result<u32> {
        let value = self.parse_number(field, what)?;
        u32::try_from(value)
            .map_err(|_| self.error(format!("{what} {value} does not fit in 32 bits")))
    }

    /// A vertex label: any 32-bit number but [`UNDECLARED`], which readers reserve, so that
    /// every graph gsi reads can be written in every format it writes.
    pub(crate) fn vertex_label(&mut self, what: &str) -> Result<VertexLabel> {
        let field = self.field(what)?;
        self.parse_vertex_label(field, what)
    }

    fn parse_vertex_label(&self, field: &str, what: &str) -> Result<VertexLabel> {
        let label = self.parse_label(field, what)?;
        if label == UNDECLARED {
            return Err(self.error(format!("{what} {label} is reserved; use a smaller label")));
        }
        Ok(label)
    }

    /// One label or several, separated by commas without spaces (`3,7`: a vertex or edge
    /// that carries both): returns the first and pushes the others to `more`. Readers of
    /// one label per field reject such a field rather than misread it.
    pub(crate) fn labels(
        &mut self,
        what: &str,
        of_vertex: bool,
        more: &mut Vec<u32>,
    ) -> Result<u32> {
        let field = self.field(what)?;
        let parse = |part: &str| match (part.is_empty(), of_vertex) {
            (true, _) => Err(self.error(format!("{what}s `{field}`: an empty entry"))),
            (false, true) => self.parse_vertex_label(part, what),
            (false, false) => self.parse_label(part, what),
        };
        let mut parts = field.split(',');
        let first = parse(parts.next().unwrap_or_default())?;
        for part in parts {
            more.push(parse(part)?);
        }
        Ok(first)
    }

    pub(crate) fn vertex(&mut self, vertex_total: usize, what: &str) -> Result<VertexId> {
        let id = self.number(what)?;
        if id >= vertex_total as u64 {
            return Err(self.error(format!(
                "{what} {id} is out of range: the header declares {vertex_total} vertices (ids 0 to {})",
                vertex_total as i64 - 1
            )));
        }
        Ok(id as VertexId)
    }

    pub(crate) fn end(&mut self, expected: &str) -> Result<()> {
        match self.iter.next() {
            None => Ok(()),
            Some(extra) => Err(self.error(format!("unexpected `{extra}` after {expected}"))),
        }
    }
}

/// Builds a graph from vertex labels (with `more_labels` of vertices that carry several) and
/// edges read from `path`, where `edge_lines[i]` is the line of
/// `edges[i]`; a repeated edge becomes an [`Error::Parse`] on the line that repeats it, with
/// its label shown plus `label_shift` (the file's label where the file's labels are shifted).
pub(crate) fn build_naming_lines(
    path: &Path,
    directed: bool,
    label_shift: u32,
    labels: Vec<VertexLabel>,
    more_labels: Vec<(VertexId, VertexLabel)>,
    edges: Vec<(VertexId, VertexId, EdgeLabel)>,
    edge_lines: &[u32],
) -> Result<Graph> {
    let mut builder = GraphBuilder::with_edges(directed, labels, edges)?;
    for (v, label) in more_labels {
        builder.add_label(v, label)?;
    }
    builder.try_build().map_err(|(err, builder)| match err {
        Error::DuplicateEdge {
            from: source,
            to: target,
            label,
        } => {
            let same = |&(u, v, l): &(u32, u32, u32)| {
                l == label
                    && ((u, v) == (source, target) || (!directed && (v, u) == (source, target)))
            };
            let mut at = builder
                .edges()
                .iter()
                .zip(edge_lines)
                .filter(|(e, _)| same(e));
            let first = at.next().map_or(0, |(_, &l)| l);
            let second = at.next().map_or(0, |(_, &l)| l);
            Error::Parse {
                path: path.to_path_buf(),
                line: second as usize,
                message: format!(
                    "duplicate edge {source} -- {target} (label {}), first given on line {first}",
                    u64::from(label) + u64::from(label_shift)
                ),
            }
        }
        other => other,
    })
}
