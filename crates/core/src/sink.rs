//! Where matches go: the caller's sink, which engines push batches into.

use gsi_graph::VertexId;

use crate::error::Result;
use crate::plan::symmetry::Symmetry;
use crate::vertex_order::VertexOrder;

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

    /// The matches, sorted: to compare listings whose order differs (two engines, or plans).
    pub fn sorted_rows(&self) -> Vec<Vec<VertexId>> {
        let mut rows: Vec<Vec<VertexId>> = self.rows().map(<[VertexId]>::to_vec).collect();
        rows.sort_unstable();
        rows
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

/// A sink that hands on, for each match it takes, every match of its class.
pub(crate) struct Images<'s> {
    symmetry: &'s Symmetry,
    inner: &'s mut dyn MatchSink,
    rows: Vec<VertexId>,
}

impl<'s> Images<'s> {
    pub(crate) fn new(symmetry: &'s Symmetry, inner: &'s mut dyn MatchSink) -> Images<'s> {
        Images {
            symmetry,
            inner,
            rows: Vec::new(),
        }
    }
}

/// Matches handed on at once.
const IMAGE_BATCH_ROWS: usize = 1 << 14;

impl MatchSink for Images<'_> {
    fn wants_matches(&self) -> bool {
        self.inner.wants_matches()
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()> {
        for row in rows.chunks_exact(width.max(1)) {
            self.symmetry.images(row, &mut self.rows);
            if self.rows.len() >= IMAGE_BATCH_ROWS * width {
                self.inner.matches(&self.rows, width)?;
                self.rows.clear();
            }
        }
        if !self.rows.is_empty() {
            self.inner.matches(&self.rows, width)?;
            self.rows.clear();
        }
        Ok(())
    }
}

/// A sink that hands on matches in the graph's own vertex ids, the engines having found
/// them in the index's ([`VertexOrder`]).
pub(crate) struct OriginalIds<'s> {
    order: &'s VertexOrder,
    inner: &'s mut dyn MatchSink,
    rows: Vec<VertexId>,
}

impl<'s> OriginalIds<'s> {
    pub(crate) fn new(order: &'s VertexOrder, inner: &'s mut dyn MatchSink) -> OriginalIds<'s> {
        OriginalIds {
            order,
            inner,
            rows: Vec::new(),
        }
    }
}

impl MatchSink for OriginalIds<'_> {
    fn wants_matches(&self) -> bool {
        self.inner.wants_matches()
    }

    fn matches(&mut self, rows: &[VertexId], width: usize) -> Result<()> {
        self.rows.clear();
        self.rows
            .extend(rows.iter().map(|&v| self.order.original(v)));
        self.inner.matches(&self.rows, width)
    }
}
