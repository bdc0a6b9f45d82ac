//! Readers for graph files.
//!
//! Each reader takes the file's bytes and reports a malformed line as [`Error::Parse`] with
//! the path, the one-based line number and what was expected. [`read_graph`] opens a file
//! (memory-mapped, so large files cost no copy), picks the reader and returns the graph.

pub mod sunluo;

use std::path::Path;

use crate::{Error, Graph, Result};

/// The text formats gsi reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// Decide from the file's first meaningful line.
    Auto,
    /// The subgraph-matching benchmark format of Sun and Luo: `t N M`, `v id label degree`,
    /// `e u v [label]`.
    SunLuo,
}

/// Reads one graph from `path`.
///
/// # Errors
/// The file cannot be read, is not text, or does not follow the format; the error names the
/// file and, where there is one, the offending line.
pub fn read_graph(path: &Path, format: Format, directed: bool) -> Result<Graph> {
    let bytes = FileBytes::open(path)?;
    let format = match format {
        Format::Auto => detect(path, bytes.as_slice())?,
        f => f,
    };
    match format {
        Format::SunLuo | Format::Auto => sunluo::parse(path, bytes.as_slice(), directed),
    }
}

/// Picks the format from the first non-blank line.
fn detect(path: &Path, bytes: &[u8]) -> Result<Format> {
    let mut lines = Lines::new(path, bytes);
    while let Some((line, text)) = lines.next_line()? {
        let first = text.split_ascii_whitespace().next();
        return match first {
            None => continue,
            Some("t") => Ok(Format::SunLuo),
            Some(word) => Err(Error::Parse {
                path: path.to_path_buf(),
                line,
                message: format!(
                    "cannot tell the file's format from `{word}`: a Sun–Luo file starts with `t N M`; name the format with --format"
                ),
            }),
        };
    }
    Err(empty(path))
}

fn empty(path: &Path) -> Error {
    Error::Invalid {
        path: path.to_path_buf(),
        message: "the file is empty: expected a graph header such as `t N M`".into(),
    }
}

/// The bytes of a file: memory-mapped when possible.
enum FileBytes {
    Mapped(memmap2::Mmap),
    Empty,
}

impl FileBytes {
    fn open(path: &Path) -> Result<FileBytes> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(Error::Invalid {
                path: path.to_path_buf(),
                message: "is a directory, expected a graph file".into(),
            });
        }
        if meta.len() == 0 {
            return Ok(FileBytes::Empty);
        }
        // SAFETY: the map is read-only and lives only while the file is parsed; a file changed
        // underneath by another process can give a parse error but not undefined behaviour in
        // safe code that only reads bytes.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(FileBytes::Mapped(map))
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Empty => &[],
        }
    }
}

/// Splits bytes into text lines, accepting `\n` and `\r\n` endings and rejecting binary data.
pub(crate) struct Lines<'a> {
    path: &'a Path,
    rest: &'a [u8],
    line: usize,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(path: &'a Path, bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            path,
            rest: bytes,
            line: 0,
        }
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
