//! Readers and writers for graph files.
//!
//! Each reader takes the file's bytes and reports a malformed line as [`Error::Parse`] with
//! the path, the one-based line number and what was expected. Files are memory-mapped, so
//! large files cost no copy, and readers collect edges in flat vectors.
//!
//! - [`read_graph`] reads one graph and nothing else: what most callers need.
//! - [`read_graphs`] reads every graph of a file (a GSI file may hold several) together with
//!   what the file says beyond the graph: original vertex ids (SNAP), RDF terms and label
//!   dictionaries (N-Triples, Turtle), and how many repeated edges and self-loops were dropped.
//! - [`write`](mod@write) writes graphs as Sun–Luo or GSI text or as gMatch's binary CSR
//!   ([`gmatch`]), through an [`AtomicFile`] that replaces its target only once complete.
//!
//! | format | vertices | labels | direction |
//! | --- | --- | --- | --- |
//! | [`Format::SunLuo`] | ids `0..N` | as in the file | as asked |
//! | [`Format::Gsi`] | ids `0..N` | the file's label minus one (GSI labels start at 1) | as asked |
//! | [`Format::Snap`] | any `u64` ids, renumbered in order of first appearance | vertex labels from an optional second file, else 0; edge label from an optional third column, else 0 | as asked |
//! | [`Format::NTriples`], [`Format::Turtle`] | IRIs, blank nodes and literals in order of first appearance | vertex: 0 for every vertex, and the class of each `rdf:type` triple, numbered from 1; edge: predicate, numbered from 0 | always directed |

mod atomic;
pub(crate) mod fields;
pub mod gmatch;
pub mod gsi;
mod input;
mod labels;
mod names;
pub mod ntriples;
mod rdf;
pub mod snap;
pub mod sunluo;
pub mod turtle;
pub mod write;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use atomic::AtomicFile;
pub use input::MemoryBound;
pub use labels::{LabelKind, LabelNames, TranslatedQuery, UnknownLabel};
pub use names::{Dictionary, VertexName, VertexNames};

use crate::{Error, Graph, Result};
use input::FileBytes;

/// The text formats gsi reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Decide from the file's first meaningful line (see [`detect_format`]).
    #[default]
    Auto,
    /// The subgraph-matching benchmark format of Sun and Luo: `t N M`, `v id label degree`,
    /// `e u v [label]`.
    SunLuo,
    /// The format of the GSI authors' tool: `t # 0`, `N M maxVertexLabel maxEdgeLabel`,
    /// `v id label`, `e u v label`, `t # -1`, with labels from 1; several graphs may follow
    /// each other.
    Gsi,
    /// SNAP edge lists: `u v [label]` per line, `#` comments, vertex ids any `u64`.
    Snap,
    /// RDF N-Triples: `<subject> <predicate> object .` per line.
    NTriples,
    /// RDF Turtle: N-Triples with prefixes, `a`, `;` and `,` lists, `[]` and bare numbers.
    Turtle,
}

impl Format {
    /// The name [`Format::from_str`] accepts and [`fmt::Display`] prints.
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::SunLuo => "sunluo",
            Format::Gsi => "gsi",
            Format::Snap => "snap",
            Format::NTriples => "ntriples",
            Format::Turtle => "turtle",
        }
    }

    /// Every format, [`Format::Auto`] first. Saved indexes store a format by its place here:
    /// new ones go at the end.
    pub const ALL: [Format; 6] = [
        Format::Auto,
        Format::SunLuo,
        Format::Gsi,
        Format::Snap,
        Format::NTriples,
        Format::Turtle,
    ];
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that [`Format::from_str`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown graph format `{0}`: expected auto, sunluo, gsi, snap, ntriples or turtle")]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    /// Accepts `auto`, `sunluo`, `gsi`, `snap`, `ntriples` and `turtle` in any case, and also
    /// `sun-luo`, `n-triples`, `nt` and `ttl`.
    fn from_str(s: &str) -> std::result::Result<Format, UnknownFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Format::Auto),
            "sunluo" | "sun-luo" => Ok(Format::SunLuo),
            "gsi" => Ok(Format::Gsi),
            "snap" => Ok(Format::Snap),
            "ntriples" | "n-triples" | "nt" => Ok(Format::NTriples),
            "turtle" | "ttl" => Ok(Format::Turtle),
            _ => Err(UnknownFormat(s.to_string())),
        }
    }
}

/// How to read a file with [`read_graphs`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The file's format, or [`Format::Auto`] to tell it from the content.
    pub format: Format,
    /// Read edges as directed (RDF is always directed, whatever this says).
    pub directed: bool,
    /// A file of `id label` lines giving vertex labels by original id; only for SNAP.
    pub vertex_labels: Option<PathBuf>,
    /// The most bytes of one input held in memory; `None`: no bound.
    pub memory: Option<MemoryBound>,
}

/// Edges a reader dropped without complaint: repeats and self-loops are common in SNAP and
/// RDF data and mean nothing to subgraph matching.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkippedEdges {
    /// Edges (or triples) given again: same endpoints and label; for an undirected graph in
    /// either orientation.
    pub duplicates: u64,
    /// Edges from a vertex to itself.
    pub self_loops: u64,
}

impl SkippedEdges {
    /// Whether nothing was dropped.
    pub fn is_empty(&self) -> bool {
        self.duplicates == 0 && self.self_loops == 0
    }
}

impl fmt::Display for SkippedEdges {
    /// One line such as `dropped 12 duplicate edges and 3 self-loops`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "dropped {} and {}",
            plural(self.duplicates, "duplicate edge", "duplicate edges"),
            plural(self.self_loops, "self-loop", "self-loops")
        )
    }
}

/// A graph with what its file said beyond the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedGraph {
    /// The graph.
    pub graph: Graph,
    /// The format the file was read as (never [`Format::Auto`]).
    pub format: Format,
    /// Original ids (SNAP) or RDF terms (N-Triples) of the vertices; `None` where vertices
    /// are already numbered `0..N`.
    pub names: Option<VertexNames>,
    /// Names of the labels, where the file named them (N-Triples classes and predicates).
    pub labels: LabelNames,
    /// Repeated edges and self-loops that were dropped (SNAP and N-Triples only; the other
    /// formats reject them as errors).
    pub skipped: SkippedEdges,
}

impl LoadedGraph {
    /// A graph that has nothing besides itself.
    pub fn plain(graph: Graph, format: Format) -> LoadedGraph {
        LoadedGraph {
            graph,
            format,
            names: None,
            labels: LabelNames::default(),
            skipped: SkippedEdges::default(),
        }
    }
}

/// Reads one graph from `path`.
///
/// # Errors
/// The file cannot be read, is not text, does not follow the format, or holds more than one
/// graph; the error names the file and, where there is one, the offending line.
pub fn read_graph(path: &Path, format: Format, directed: bool) -> Result<Graph> {
    let options = ReadOptions {
        format,
        directed,
        vertex_labels: None,
        memory: None,
    };
    load_graph(path, &options).map(|loaded| loaded.graph)
}

/// Reads the one graph of `path` with its names and dictionaries.
///
/// # Errors
/// As [`read_graphs`], and when the file holds more than one graph.
pub fn load_graph(path: &Path, options: &ReadOptions) -> Result<LoadedGraph> {
    let mut graphs = read_graphs(path, options)?;
    if graphs.len() != 1 {
        return Err(Error::Invalid {
            path: path.to_path_buf(),
            message: format!("the file holds {} graphs, expected one", graphs.len()),
        });
    }
    Ok(graphs.pop().expect("one graph"))
}

/// Reads every graph of `path` (only GSI files hold more than one) with what the file says
/// beyond the graphs.
///
/// # Errors
/// The file (or the vertex-label file) cannot be read, is not text or does not follow the
/// format; a vertex-label file was given for a format other than SNAP.
pub fn read_graphs(path: &Path, options: &ReadOptions) -> Result<Vec<LoadedGraph>> {
    let file = FileBytes::open(path, options.memory.as_ref())?;
    let bytes = file.as_slice();
    let format = match options.format {
        Format::Auto => match detect(path, bytes) {
            Ok(format) => format,
            Err(err) => {
                cr_line_endings(path, bytes)?;
                return Err(err);
            }
        },
        f => f,
    };
    if let (Some(labels), false) = (&options.vertex_labels, format == Format::Snap) {
        return Err(Error::Invalid {
            path: labels.clone(),
            message: format!(
                "a separate vertex-label file applies only to snap edge lists, but {} is read as {format}",
                path.display()
            ),
        });
    }
    if !matches!(format, Format::NTriples | Format::Turtle) {
        cr_line_endings(path, bytes)?;
    }
    parse_as(&file, path, format, options).map_err(|err| match options.format {
        Format::Auto if format == Format::NTriples => with_turtle_hint(err, path, bytes),
        Format::Auto => err,
        named => with_format_hint(err, path, bytes, named),
    })
}

/// The graphs of `file` (at `path`) read as `format`.
fn parse_as(
    file: &FileBytes,
    path: &Path,
    format: Format,
    options: &ReadOptions,
) -> Result<Vec<LoadedGraph>> {
    let bytes = file.as_slice();
    let directed = options.directed;
    Ok(match format {
        Format::Auto | Format::SunLuo => {
            match sunluo::parse_then(path, bytes, directed, &|| file.release()) {
                Ok(graph) => vec![LoadedGraph::plain(graph, Format::SunLuo)],
                // Labels written as names: numbered, then read as any Sun–Luo file.
                Err(err) => match sunluo::number_label_names(bytes) {
                    Some((text, labels)) => {
                        let graph = sunluo::parse(path, text.as_bytes(), directed)?;
                        vec![LoadedGraph {
                            labels,
                            ..LoadedGraph::plain(graph, Format::SunLuo)
                        }]
                    }
                    None => return Err(err),
                },
            }
        }
        Format::Gsi => gsi::parse(path, bytes, directed)?
            .into_iter()
            .map(|g| LoadedGraph::plain(g, Format::Gsi))
            .collect(),
        Format::Snap => {
            let labels = match &options.vertex_labels {
                Some(p) => Some((p.as_path(), FileBytes::open(p, options.memory.as_ref())?)),
                None => None,
            };
            let labels = labels.as_ref().map(|(p, b)| (*p, b.as_slice()));
            vec![snap::parse(path, bytes, labels, directed)?]
        }
        Format::NTriples => vec![ntriples::parse(path, bytes)?],
        Format::Turtle => vec![turtle::parse(path, bytes)?],
    })
}

/// `err`, the error of reading `path` as the `named` format, with a hint where the file
/// looks like another format.
fn with_format_hint(err: Error, path: &Path, bytes: &[u8], named: Format) -> Error {
    let seen = match detect(path, bytes) {
        Ok(seen) if seen != named => seen,
        _ => return err,
    };
    with_hint(
        err,
        path,
        &format!("the file looks like {seen}: --format auto reads it"),
    )
}

/// `err`, the error of reading `path` as N-Triples, with a hint where a malformed line is
/// Turtle (whose first line may look like N-Triples).
fn with_turtle_hint(err: Error, path: &Path, bytes: &[u8]) -> Error {
    if !matches!(err, Error::Parse { .. }) || turtle::parse(path, bytes).is_err() {
        return err;
    }
    with_hint(
        err,
        path,
        "the file reads as turtle: name it .ttl or pass --format turtle",
    )
}

/// `err` with `hint` after its message where it is about `path` itself.
fn with_hint(err: Error, path: &Path, hint: &str) -> Error {
    match err {
        Error::Parse {
            path: at,
            line,
            message,
        } if at == path => Error::Parse {
            path: at,
            line,
            message: format!("{message} ({hint})"),
        },
        Error::Invalid { path: at, message } if at == path => Error::Invalid {
            path: at,
            message: format!("{message} ({hint})"),
        },
        err => err,
    }
}

/// An error naming CR line endings when the first line is text with a carriage return before
/// its end: the readers other than RDF's (which take any run of CR and LF) end lines at LF.
fn cr_line_endings(path: &Path, bytes: &[u8]) -> Result<()> {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_suffix(b"\r").unwrap_or(first);
    let text = std::str::from_utf8(first).is_ok_and(|t| !t.contains('\0'));
    if text && first.contains(&b'\r') {
        return Err(Error::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: "the lines end in a carriage return alone (CR line endings): convert them to LF, e.g. with `tr '\\r' '\\n'`".into(),
        });
    }
    Ok(())
}

/// Tells the format of `path`: a name ending in `.ttl` (before any `.gz`, `.bz2`, `.xz` or
/// `.zst`) is Turtle; else its first line that is neither blank nor a `#` comment tells:
/// `t N M` is Sun–Luo, `t # K` is GSI, `@prefix`, `@base`, `PREFIX` or `BASE` is Turtle, a
/// line starting with `<` or `_:` is N-Triples, and two words (ids or names) with an optional
/// integer label are a SNAP edge.
///
/// # Errors
/// The file cannot be read (within `memory`), is empty, or its first line fits no format.
pub fn detect_format(path: &Path, memory: Option<&MemoryBound>) -> Result<Format> {
    let bytes = FileBytes::open(path, memory)?;
    detect(path, bytes.as_slice())
}

fn detect(path: &Path, bytes: &[u8]) -> Result<Format> {
    if named_turtle(path) {
        return Ok(Format::Turtle);
    }
    let mut lines = Lines::new(path, bytes);
    while let Some((line, text)) = lines.next_line()? {
        let text = text.trim_start();
        if text.is_empty() || text.starts_with('#') || text.starts_with('%') {
            continue;
        }
        let words: Vec<&str> = text.split_ascii_whitespace().collect();
        let first = words.first().copied().unwrap_or_default();
        // SNAP: `u v [label]`, the ids numbers or names, the label a number.
        let snap =
            matches!(words.len(), 2 | 3) && words.get(2).is_none_or(|l| l.parse::<u32>().is_ok());
        return match first {
            "t" if words.get(1) == Some(&"#") => Ok(Format::Gsi),
            "t" => Ok(Format::SunLuo),
            _ if turtle_directive(first) => Ok(Format::Turtle),
            _ if first.starts_with('<') || first.starts_with("_:") => Ok(Format::NTriples),
            _ if snap => Ok(Format::Snap),
            _ => {
                let shown: String = text.chars().take(40).collect();
                Err(Error::Parse {
                    path: path.to_path_buf(),
                    line,
                    message: format!(
                        "cannot tell the file's format from `{shown}`: expected `t N M` (sun–luo), `t # 0` (gsi), `u v [label]` (snap), `<s> <p> <o> .` (n-triples) or `@prefix` (turtle); name the format with --format"
                    ),
                })
            }
        };
    }
    Err(empty(path, bytes, "a graph"))
}

/// Whether the file name ends in `.ttl`, compressed or not (in any case).
fn named_turtle(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = [".gz", ".bz2", ".xz", ".zst"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(&name);
    name.ends_with(".ttl")
}

/// Whether `word` starts a Turtle directive: `@prefix`, `@base`, or SPARQL's `PREFIX` and
/// `BASE` in any case.
fn turtle_directive(word: &str) -> bool {
    word == "@prefix"
        || word == "@base"
        || word.eq_ignore_ascii_case("prefix")
        || word.eq_ignore_ascii_case("base")
}

/// The label slot of a vertex no `v` line has declared yet.
pub(crate) const UNDECLARED: u32 = u32::MAX;

/// Checks the vertex and edge counts a graph declared (`declared`, such as "the header on line
/// 1 declares") against what its body (`body`, such as "the file") gave: `labels` with
/// [`UNDECLARED`] for missing vertices, and the number of edges.
pub(crate) fn check_counts(
    path: &Path,
    declared: &str,
    body: &str,
    labels: &[u32],
    vertices_seen: usize,
    edge_total: u64,
    edges_seen: usize,
) -> Result<()> {
    let invalid = |message: String| Error::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if vertices_seen != labels.len() {
        let missing = labels.iter().position(|&l| l == UNDECLARED).unwrap_or(0);
        return Err(invalid(format!(
            "{declared} {} vertices but {body} has {vertices_seen} `v` lines (vertex {missing} is missing)",
            labels.len()
        )));
    }
    if edges_seen as u64 != edge_total {
        return Err(invalid(format!(
            "{declared} {edge_total} edges but {body} has {edges_seen} `e` lines"
        )));
    }
    Ok(())
}

/// The fewest bytes a format's vertex and edge lines take, line end included.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineSizes {
    /// A `v` line.
    pub(crate) vertex: u64,
    /// An `e` line.
    pub(crate) edge: u64,
}

/// Claims of fewer lines than this cost little memory; for them, the checks of the body say
/// more precisely what is wrong than [`check_claim`] would.
const SMALL_CLAIM: u64 = 1 << 20;

/// Checks a header's claim of `vertices` and `edges` against the `rest` bytes that follow it,
/// before anything is allocated for it: a header is a claim, and the body must be able to
/// hold the lines it declares. (The last line may lack its line end: one byte less.)
pub(crate) fn check_claim(
    path: &Path,
    line: usize,
    vertices: u64,
    edges: u64,
    rest: usize,
    sizes: LineSizes,
) -> Result<()> {
    let needed = u128::from(vertices) * u128::from(sizes.vertex)
        + u128::from(edges) * u128::from(sizes.edge);
    if needed > rest as u128 + 1 && vertices.saturating_add(edges) > SMALL_CLAIM {
        return Err(Error::Parse {
            path: path.to_path_buf(),
            line,
            message: format!(
                "{vertices} vertices and {edges} edges are declared, but the {rest} bytes that follow cannot hold that many lines"
            ),
        });
    }
    Ok(())
}

/// The error for a file (`bytes`) with nothing but blank lines (and comments where allowed).
pub(crate) fn empty(path: &Path, bytes: &[u8], expected: &str) -> Error {
    let what = if bytes.iter().all(u8::is_ascii_whitespace) {
        "the file is empty"
    } else {
        "the file holds only comments and blank lines"
    };
    Error::Invalid {
        path: path.to_path_buf(),
        message: format!("{what}: expected {expected}"),
    }
}

/// Splits bytes into text lines, accepting `\n` and `\r\n` endings and rejecting binary data.
pub(crate) struct Lines<'a> {
    path: &'a Path,
    rest: &'a [u8],
    line: usize,
}

impl<'a> Lines<'a> {
    /// The lines of a whole file; a UTF-8 byte-order mark before the first is skipped.
    pub(crate) fn new(path: &'a Path, bytes: &'a [u8]) -> Lines<'a> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        Lines::after(path, bytes, 0)
    }

    /// Lines of `bytes` numbered from `line + 1`.
    pub(crate) fn after(path: &'a Path, bytes: &'a [u8], line: usize) -> Lines<'a> {
        Lines {
            path,
            rest: bytes,
            line,
        }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// The next line as (line number, text without its ending), or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(usize, &'a str)>> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        let end = self
            .rest
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(self.rest.len());
        let mut raw = &self.rest[..end];
        self.rest = self.rest.get(end + 1..).unwrap_or(&[]);
        if let [head @ .., b'\r'] = raw {
            raw = head;
        }
        let text = std::str::from_utf8(raw)
            .ok()
            .filter(|t| !t.contains('\0'))
            .ok_or_else(|| Error::Parse {
                path: self.path.to_path_buf(),
                line: self.line,
                message: "this line is not text: is this a binary file?".into(),
            })?;
        Ok(Some((self.line, text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn formats_parse_and_print_by_name() {
        for format in Format::ALL {
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        assert_eq!("N-Triples".parse::<Format>(), Ok(Format::NTriples));
        assert_eq!(" SunLuo ".parse::<Format>(), Ok(Format::SunLuo));
        assert_eq!("nt".parse::<Format>(), Ok(Format::NTriples));
        assert_eq!("TTL".parse::<Format>(), Ok(Format::Turtle));
        let err = "csv".parse::<Format>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown graph format `csv`: expected auto, sunluo, gsi, snap, ntriples or turtle"
        );
        assert_eq!(Format::default(), Format::Auto);
    }

    #[test]
    fn detects_each_format_from_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("t 2 1\nv 0 0 1\nv 1 0 1\ne 0 1\n", Format::SunLuo, 1),
            (
                "\nt # 0\n2 1 1 1\nv 0 1\nv 1 1\ne 0 1 1\nt # -1\n",
                Format::Gsi,
                1,
            ),
            ("# SNAP\n% konect\n5\t9\n9 7 2\n", Format::Snap, 2),
            ("# rdf\n<a> <p> <b> .\n", Format::NTriples, 1),
            ("_:x <p> \"v\" .\n", Format::NTriples, 1),
            ("# names\nalice bob\nbob carol 2\n", Format::Snap, 2),
            (
                "# rdf\n@prefix : <http://ex/> .\n:a :p :b, :c .\n",
                Format::Turtle,
                2,
            ),
            ("prefix : <http://ex/>\n:a :p :b .\n", Format::Turtle, 1),
            ("@base <http://ex/> .\n<a> <p> <b> .\n", Format::Turtle, 1),
        ];
        for (i, (text, format, edges)) in cases.into_iter().enumerate() {
            let path = file(&dir, &format!("g{i}"), text);
            assert_eq!(detect_format(&path, None).unwrap(), format, "{text:?}");
            let loaded = load_graph(&path, &ReadOptions::default()).unwrap();
            assert_eq!(loaded.format, format);
            assert_eq!(loaded.graph.edge_count(), edges);
            assert_eq!(
                read_graph(&path, Format::Auto, false).unwrap(),
                loaded.graph
            );
        }
        for (text, expected) in [
            ("", "the file is empty: expected a graph"),
            (
                "# only a comment\n\n",
                "the file holds only comments and blank lines: expected a graph",
            ),
            (
                "1 2 3 4\n",
                ":1: cannot tell the file's format from `1 2 3 4`",
            ),
            (
                "\nhello big world\n",
                ":2: cannot tell the file's format from `hello big world`",
            ),
            ("7\n", "cannot tell the file's format"),
        ] {
            let path = file(&dir, "bad", text);
            let msg = detect_format(&path, None).unwrap_err().to_string();
            assert!(msg.contains(expected), "{text:?}: got `{msg}`");
            let msg = read_graph(&path, Format::Auto, false)
                .unwrap_err()
                .to_string();
            assert!(msg.contains(expected), "{text:?}: got `{msg}`");
        }
    }

    #[test]
    fn a_ttl_name_is_turtle_compressed_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let text = "<http://ex/a> <http://ex/p> <http://ex/b> ; <http://ex/q> 1 .\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        std::fs::write(dir.path().join("G.TTL.gz"), gz.finish().unwrap()).unwrap();
        for name in ["g.ttl", "G.TTL.gz"] {
            let path = dir.path().join(name);
            if !path.exists() {
                std::fs::write(&path, text).unwrap();
            }
            assert_eq!(
                detect_format(&path, None).unwrap(),
                Format::Turtle,
                "{name}"
            );
            let loaded = load_graph(&path, &ReadOptions::default()).unwrap();
            assert_eq!(loaded.format, Format::Turtle);
            assert_eq!(loaded.graph.edge_count(), 2);
        }
        // Named otherwise, its first line looks like N-Triples: the error says it is Turtle.
        let path = file(&dir, "g.rdf", text);
        let msg = read_graph(&path, Format::Auto, false)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("g.rdf:1: expected `.` to end the triple")
                && msg.contains("(the file reads as turtle: name it .ttl or pass --format turtle)"),
            "{msg}"
        );
        assert_eq!(
            read_graph(&path, Format::Turtle, false)
                .unwrap()
                .edge_count(),
            2
        );
        // N-Triples that is not Turtle either gets no hint.
        let path = file(&dir, "bad.nt", "<a> <p> <b> ;\n");
        let msg = read_graph(&path, Format::Auto, false)
            .unwrap_err()
            .to_string();
        assert!(!msg.contains("turtle"), "{msg}");
    }

    #[test]
    fn a_named_format_is_used_as_named() {
        let dir = tempfile::tempdir().unwrap();
        // Two integers per line look like SNAP, but the caller says Sun–Luo.
        let path = file(&dir, "g", "1 2\n");
        let err = read_graph(&path, Format::SunLuo, false).unwrap_err();
        assert!(err.to_string().contains("expected the header `t N M`"));
        assert_eq!(
            read_graph(&path, Format::Snap, false).unwrap().edge_count(),
            1
        );
    }

    #[test]
    fn reads_several_gsi_graphs_and_snap_labels() {
        let dir = tempfile::tempdir().unwrap();
        let gsi = file(
            &dir,
            "q.gsi",
            "t # 0\n1 0 1 1\nv 0 1\nt # 1\n2 1 2 1\nv 0 2\nv 1 1\ne 0 1 1\nt # -1\n",
        );
        let graphs = read_graphs(&gsi, &ReadOptions::default()).unwrap();
        assert_eq!(graphs.len(), 2);
        assert_eq!(graphs[1].graph.vertex_labels(), &[1, 0]);
        assert!(graphs
            .iter()
            .all(|g| g.format == Format::Gsi && g.names.is_none()));

        let labels = file(&dir, "labels", "100 4\n");
        let snap = file(&dir, "g.txt", "100 200\n200 100\n");
        let options = ReadOptions {
            format: Format::Auto,
            directed: false,
            vertex_labels: Some(labels.clone()),
            memory: None,
        };
        let loaded = load_graph(&snap, &options).unwrap();
        assert_eq!(loaded.graph.vertex_labels(), &[4, 0]);
        assert_eq!(loaded.skipped.duplicates, 1);
        assert_eq!(loaded.names.as_ref().and_then(|n| n.find("200")), Some(1));

        let err = read_graphs(&gsi, &options).unwrap_err().to_string();
        assert!(
            err.contains("labels: a separate vertex-label file applies only to snap"),
            "{err}"
        );
        let missing = ReadOptions {
            vertex_labels: Some(dir.path().join("nope")),
            ..options
        };
        assert!(matches!(
            read_graphs(&snap, &missing),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn ntriples_ignore_the_directed_flag() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "g.nt", "<a> <p> <b> .\n");
        assert!(read_graph(&path, Format::Auto, false)
            .unwrap()
            .is_directed());
    }

    #[test]
    fn unreadable_paths_are_io_errors() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_graph(&dir.path().join("none"), Format::Auto, false).unwrap_err();
        assert!(matches!(err, Error::Io { .. }));
        let err = read_graph(dir.path(), Format::Auto, false).unwrap_err();
        assert!(err.to_string().contains("is a directory"));
    }

    #[test]
    fn skipped_edges_print_one_line() {
        let one = SkippedEdges {
            duplicates: 1,
            self_loops: 0,
        };
        assert_eq!(one.to_string(), "dropped 1 duplicate edge and 0 self-loops");
        assert!(!one.is_empty());
        assert!(SkippedEdges::default().is_empty());
    }
}
