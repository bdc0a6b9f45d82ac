//! A data graph and its index saved in one file (`gsi index GRAPH -o FILE.gsidx`) and
//! mapped back instead of parsed and built: the graph's sections ([`gsi_graph::saved`]),
//! the file it was read from, then the index: its vertex order, edge-label counts, the
//! signature table (Sec. 3.2) and every PCSR partition (Sec. 4), each checked as it is read.
//! The graph is saved in the index's numbering.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use gsi_graph::saved::{GraphFacts, Reader, SavedGraph, Writer};
use gsi_graph::{Direction, Graph};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::index::{edge_label_counts, DataIndex, IndexOptions};
use crate::pcsr::{Pcsr, PcsrLayout, PcsrSet};
use crate::signature::SignatureTable;
use crate::vertex_order::{VertexNumbering, VertexOrder};

/// A data index with what its graph file said, and which file that was.
#[derive(Debug)]
pub struct SavedIndex {
    /// The graph and its index.
    pub index: DataIndex,
    /// Format, names and dictionaries of the graph's file.
    pub facts: GraphFacts,
    /// The graph file the index was built from, where it was a file.
    pub source: Option<SourceFile>,
}

/// A graph file as it was when an index was built from it: if it later differs, the index
/// is stale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The file, as an absolute path.
    pub path: PathBuf,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its modification time, nanoseconds since the Unix epoch.
    pub modified_ns: u64,
}

impl SourceFile {
    /// `path` as it is now; `None` where it is not a regular file (standard input, a pipe).
    pub fn of(path: &Path) -> Option<SourceFile> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        Some(SourceFile {
            path: std::fs::canonicalize(path).ok()?,
            bytes: meta.len(),
            modified_ns: u64::try_from(modified.as_nanos()).unwrap_or(u64::MAX),
        })
    }
}

const LAYOUTS: [PcsrLayout; 2] = [PcsrLayout::Paper, PcsrLayout::Packed];

impl SavedIndex {
    /// Writes the graph and its index to `path`, which appears only once complete.
    ///
    /// # Errors
    /// The file cannot be created or written.
    pub fn write(&self, path: &Path) -> Result<()> {
        let index = &self.index;
        let mut out = Writer::create(path)?;
        index.graph().save(&self.facts, &mut out)?;
        match &self.source {
            None => out.section::<u64>("source", &[0, 0, 0])?,
            Some(source) => {
                out.section::<u64>("source", &[1, source.bytes, source.modified_ns])?;
                out.section("source.path", source.path.to_string_lossy().as_bytes())?;
            }
        }
        let layout = LAYOUTS
            .iter()
            .position(|&l| l == index.options().pcsr_layout)
            .expect("every layout is listed") as u64;
        let mut counts: Vec<[u64; 2]> = index
            .edge_label_counts()
            .iter()
            .map(|(&l, &c)| [u64::from(l), c as u64])
            .collect();
        counts.sort_unstable();
        out.section::<u64>("index", &[layout])?;
        out.section(
            "order",
            index.vertex_order().map_or(&[][..], VertexOrder::originals),
        )?;
        out.section("edge.counts", &counts)?;
        out.section("signatures", index.signatures().words())?;
        let (keys, partitions): (Vec<_>, Vec<&Pcsr>) = index.pcsr().partitions().unzip();
        let keys: Vec<[u32; 2]> = keys.iter().map(|&(l, d)| [l, d as u32]).collect();
        let hashed: Vec<u32> = partitions.iter().map(|p| p.hashed_groups()).collect();
        out.section("pcsr.keys", &keys)?;
        out.section("pcsr.hashed", &hashed)?;
        for pcsr in partitions {
            out.section("pcsr.groups", pcsr.groups())?;
            out.section("pcsr.columns", pcsr.column_index())?;
        }
        Ok(out.finish()?)
    }

    /// Maps the saved index `path` and checks every section.
    ///
    /// # Errors
    /// The file is not a saved index, is of another version, is damaged or truncated, or is
    /// stale: the graph file it was built from has changed since.
    pub fn open(path: &Path) -> Result<SavedIndex> {
        let mut from = Reader::open(path)?;
        let (graph, facts) = Graph::restore(&mut from)?;
        let source = match from.array::<u64, 3>("source")? {
            [0, _, _] => None,
            [_, bytes, modified_ns] => {
                let path = String::from_utf8(from.vec("source.path")?)
                    .map_err(|_| from.invalid("the saved source path is not UTF-8"))?;
                Some(SourceFile {
                    path: path.into(),
                    bytes,
                    modified_ns,
                })
            }
        };
        if let Some(saved) = &source {
            if let Some(now) = SourceFile::of(&saved.path).filter(|now| now != saved) {
                let what = match now.bytes == saved.bytes {
                    true => format!(
                        "its modification time differs, its size ({} bytes) does not",
                        now.bytes
                    ),
                    false => format!("{} bytes then, {} now", saved.bytes, now.bytes),
                };
                return Err(Error::Saved(from.invalid(&format!(
                    "the saved index is stale: {} has changed since it was indexed ({what}); write it again with `gsi index`",
                    saved.path.display(),
                ))));
            }
        }
        let index = restore_index(graph, &mut from)?;
        from.finish()?;
        Ok(SavedIndex {
            index,
            facts,
            source,
        })
    }
}

fn restore_index(graph: Graph, from: &mut Reader) -> Result<DataIndex> {
    let damaged = |from: &Reader, problem: String| {
        Error::Saved(from.invalid(&format!("the saved index {problem}")))
    };
    let [layout] = from.array::<u64, 1>("index")?;
    let pcsr_layout = usize::try_from(layout)
        .ok()
        .and_then(|l| LAYOUTS.get(l).copied())
        .ok_or_else(|| damaged(from, "names an unknown PCSR layout".into()))?;
    let original = from.vec::<u32>("order")?;
    let order = match original.len() {
        0 => None,
        _ if original.len() != graph.vertex_count() => {
            return Err(damaged(
                from,
                format!(
                    "orders {} vertices of a graph of {}",
                    original.len(),
                    graph.vertex_count()
                ),
            ))
        }
        _ => Some(
            VertexOrder::from_original(original)
                .map_err(|p| damaged(from, format!("has a wrong vertex order: {p}")))?,
        ),
    };
    // What a matcher trusts is checked against the graph, not only against its checksums.
    let counts = from.vec::<[u64; 2]>("edge.counts")?;
    let edge_label_counts = edge_label_counts(&graph);
    let mut expected: Vec<[u64; 2]> = edge_label_counts
        .iter()
        .map(|(&l, &c)| [u64::from(l), c as u64])
        .collect();
    expected.sort_unstable();
    if counts != expected {
        return Err(damaged(
            from,
            "counts the edges of each label otherwise than the graph".into(),
        ));
    }
    let n = graph.vertex_count();
    let signatures = SignatureTable::from_parts(n, from.section("signatures")?)
        .map_err(|p| damaged(from, format!("has a wrong signature table: {p}")))?;
    if signatures.words() != SignatureTable::build(&graph).words() {
        return Err(damaged(
            from,
            "has a signature table that disagrees with its graph".into(),
        ));
    }
    let keys = from.vec::<[u32; 2]>("pcsr.keys")?;
    let hashed = from.vec::<u32>("pcsr.hashed")?;
    if hashed.len() != keys.len() {
        return Err(damaged(
            from,
            "has PCSR keys and partitions that disagree".into(),
        ));
    }
    // The sections are read (and their checksums checked) in file order, then the partitions
    // checked in parallel: each check is a pass over its groups and lists.
    let mut parts = Vec::with_capacity(keys.len());
    for (&[label, direction], &hashed_groups) in keys.iter().zip(&hashed) {
        let direction = match direction {
            0 => Direction::Out,
            1 => Direction::In,
            _ => return Err(damaged(from, "has a PCSR partition of no direction".into())),
        };
        let groups = from.section("pcsr.groups")?;
        let column_index = from.section("pcsr.columns")?;
        parts.push(((label, direction), hashed_groups, groups, column_index));
    }
    let (partition_keys, partitions): (Vec<_>, Vec<_>) = parts
        .into_par_iter()
        .map(|(key, hashed_groups, groups, column_index)| {
            Pcsr::from_parts(hashed_groups, groups, column_index, n)
                .map(|pcsr| (key, pcsr))
                .map_err(|p| format!("has a wrong PCSR partition for edge label {}: {p}", key.0))
        })
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(|p| damaged(from, p))?
        .into_iter()
        .unzip();
    let pcsr = PcsrSet::from_parts(graph.is_directed(), partition_keys, partitions)
        .and_then(|pcsr| pcsr.check(&graph).map(|()| pcsr))
        .map_err(|p| damaged(from, format!("has a wrong PCSR: {p}")))?;
    let options = IndexOptions {
        pcsr_layout,
        numbering: match order {
            Some(_) => VertexNumbering::Degree,
            None => VertexNumbering::Given,
        },
    };
    Ok(DataIndex::from_parts(
        graph,
        order,
        options,
        signatures,
        pcsr,
        edge_label_counts,
    ))
}
