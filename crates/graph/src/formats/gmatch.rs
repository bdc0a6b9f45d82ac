//! gMatch's binary CSR, the input of the gMatch GPU matcher: one undirected graph, one label
//! per vertex, no edge labels. Little-endian:
//!
//! ```text
//! u32 |V|, u32 |E|              an undirected edge counts once
//! u64 offsets[|V| + 1]          offsets[0] = 0, offsets[|V|] = 2|E|
//! i32 labels[|V|]
//! u32 neighbours[2|E|]          vertex v's from offsets[v], in ascending order
//! ```

use std::io::{self, Write};

use crate::{Direction, Graph, VertexId};

/// Why `graph` cannot be written as gMatch's CSR, or `None` when it can.
pub fn unfit(graph: &Graph) -> Option<String> {
    if graph.is_directed() {
        return Some("the graph is directed, and gMatch's CSR holds undirected graphs only".into());
    }
    if let Some(reason) = too_large(graph.vertex_count(), graph.edge_count()) {
        return Some(reason);
    }
    (0..graph.vertex_count() as VertexId)
        .find_map(|v| unfit_vertex(graph, v))
        .or_else(|| several_edge_labels(graph))
}

/// Why `vertices` or `edges` overflow the format's u32 counts, if they do.
fn too_large(vertices: usize, edges: usize) -> Option<String> {
    let max = u32::MAX as usize;
    if vertices > max || edges > max {
        return Some(format!(
            "{vertices} vertices and {edges} edges: gMatch's CSR counts each in a u32, at most {max}"
        ));
    }
    None
}

/// Why vertex `v`'s labels do not fit the format's one `i32` label, if they do not.
fn unfit_vertex(graph: &Graph, v: VertexId) -> Option<String> {
    match graph.labels_of(v) {
        [label] if i32::try_from(*label).is_ok() => None,
        [label] => Some(format!(
            "vertex {v} has label {label}, and gMatch's CSR holds labels up to {} (i32)",
            i32::MAX
        )),
        labels => Some(format!(
            "vertex {v} has {} labels, and gMatch's CSR holds one label per vertex",
            labels.len()
        )),
    }
}

/// Why the edges do not fit a format without edge labels: they carry more than one label.
fn several_edge_labels(graph: &Graph) -> Option<String> {
    let mut labels = (0..graph.vertex_count() as VertexId)
        .flat_map(|v| graph.edges(v, Direction::Out).1.iter().copied());
    let first = labels.next()?;
    let other = labels.find(|&l| l != first)?;
    Some(format!(
        "the edges carry several labels ({} and {}), and gMatch's CSR holds edges without labels",
        first.min(other),
        first.max(other)
    ))
}

/// Writes `graph` as gMatch's CSR.
///
/// # Errors
/// [`io::ErrorKind::InvalidData`] with [`unfit`]'s reason, before anything is written;
/// whatever `out` reports.
pub fn write_csr<W: Write>(graph: &Graph, mut out: W) -> io::Result<()> {
    if let Some(reason) = unfit(graph) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, reason));
    }
    let vertices = 0..graph.vertex_count() as VertexId;
    let counts = [graph.vertex_count() as u32, graph.edge_count() as u32];
    write_values(&mut out, counts.into_iter().map(u32::to_le_bytes))?;
    let ends = vertices.clone().scan(0u64, |end, v| {
        *end += graph.degree(v, Direction::Out) as u64;
        Some(*end)
    });
    write_values(
        &mut out,
        std::iter::once(0).chain(ends).map(u64::to_le_bytes),
    )?;
    let labels = vertices.clone().map(|v| graph.label(v) as i32);
    write_values(&mut out, labels.map(i32::to_le_bytes))?;
    // One edge label throughout: the lists, sorted by (label, neighbour), are ascending.
    let neighbors = vertices.flat_map(|v| graph.edges(v, Direction::Out).0.iter().copied());
    write_values(&mut out, neighbors.map(u32::to_le_bytes))?;
    out.flush()
}

/// Writes the bytes of every value, in blocks.
fn write_values<const N: usize>(
    out: &mut impl Write,
    values: impl Iterator<Item = [u8; N]>,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    for bytes in values {
        buf.extend_from_slice(&bytes);
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_beyond_u32_are_refused() {
        let max = u32::MAX as usize;
        assert_eq!(too_large(max, max), None);
        for (vertices, edges) in [(max + 1, 0), (3, max + 1)] {
            let reason = too_large(vertices, edges).unwrap();
            assert!(reason.contains("counts each in a u32"), "{reason}");
        }
    }
}
