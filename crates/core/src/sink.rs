//! Where matches go: the caller's sink, which engines push batches into.

use gsi_graph::VertexId;

use crate::error::Result;

/// Receives matches as they are found.
pub trait MatchSink {
    /// Whether the sink wants the matches themselves; if not, engines only count.
    fn wants_matches(&self) -> bool;

    /// Takes a batch of matches, `width` data vertices each, in query-vertex order.
    ///
    /// # Errors
    /// Whatever the sink fails with (for example, a write error); the engine stops and
    /// passes it on.
    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()>;
}

/// A sink that only counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountOnly;

impl MatchSink for CountOnly {
    fn wants_matches(&self) -> bool {
        false
    }

    fn matches(&mut self, _rows: &[VertexId], _width: usize) -> Result<()> {
        Ok(())
    }
}

/// A sink that keeps every match, `width` data vertices each, in the order found.
#[derive(Clone, Debug, Default)]
pub struct CollectMatches {
    flat: Vec<VertexId>,
    width: usize,
}

impl CollectMatches {
    /// The matches one after another.
    pub fn flat(&self) -> &[VertexId] {
        &self.flat
    }

    /// The matches, one slice each.
    pub fn rows(&self) -> impl Iterator<Item = &[VertexId]> {
        self.flat.chunks_exact(self.width.max(1))
    }
}

impl MatchSink for CollectMatches {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()> {
        self.width = width;
        self.flat.extend_from_slice(rows);
        Ok(())
    }
}
