//! Sinks of whole solutions: each match is one row, a data vertex per query vertex.

use gsi_core::MatchSink;
use gsi_graph::VertexId;

/// Takes solutions one row at a time.
pub trait Rows {
    /// Takes one solution.
    ///
    /// # Errors
    /// Whatever the sink fails with; the join stops and passes it on.
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()>;
}

/// The matcher's sink that hands each row of its batches to a [`Rows`].
pub struct RowSink<'r>(pub &'r mut dyn Rows);

impl MatchSink for RowSink<'_> {
    fn wants_matches(&self) -> bool {
        true
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> gsi_core::Result<()> {
        for row in rows.chunks_exact(width.max(1)) {
            self.0.row(row)?;
        }
        Ok(())
    }
}
