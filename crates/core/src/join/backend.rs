//! What each engine gives the join driver ([`crate::join`]): its tables, buffers and kernels in
//! its own memory, behind [`JoinBackend`]; the driver decides when each runs.

use std::ops::Range;

use gsi_graph::VertexId;

use crate::error::Result;
use crate::options::{Share, StepBalance};
use crate::sink::MatchSink;

/// Where each row's buffer lies in the GBA, over a run of rows (Algorithm 4's prefix sum).
pub(crate) trait BufferLayout {
    /// Buffer entries of table rows `rows`, within the run the layout was made for.
    ///
    /// # Errors
    /// Reading the offsets back from the device fails.
    fn entries(&self, rows: Range<usize>) -> Result<usize>;
    /// Bytes the layout itself holds.
    fn bytes(&self) -> usize;
}

/// The buffers of a run of rows once filled: how many extensions each row kept.
pub(crate) trait FilledBuffers {
    /// Rows of the new table: the extensions of every row together.
    fn new_rows(&self) -> usize;
    /// Bytes held (GBA and counts).
    fn bytes(&self) -> usize;
}

/// One engine's side of the join: tables, buffers and kernels in its own memory.
///
/// A table is passed with the run of its rows to work on; its width is the step's number.
pub(crate) trait JoinBackend {
    /// An intermediate table, rows of data vertices in join order.
    type Table;
    /// Algorithm 4's buffer placement for a run of rows.
    type Layout: BufferLayout;
    /// The filled buffers of a run of rows.
    type Filled: FilledBuffers;

    /// The first table: C(u) itself, one row per candidate.
    fn first_table(&mut self, vertex: usize) -> Result<Self::Table>;

    /// The longest buffer a row of `step` can need (the first edge's largest list, or |C(u)|).
    fn max_bound(&self, step: usize) -> usize;

    /// The most buffer entries one run may have (the width of the backend's offsets).
    fn max_run_entries(&self) -> usize;

    /// Whether a single row's first-edge list can be taken a window at a time.
    fn windows(&self) -> bool;

    /// Rows of the first run of each step when a limit is set (runs then double).
    fn first_run_rows(&self) -> usize;

    /// Places the buffers of `rows` of `table` at `step`. `budget_entries` is how many buffer
    /// entries fit the step's budget: a backend may use it to skip the bounds pass when every
    /// row can have the largest buffer.
    fn layout(
        &mut self,
        step: usize,
        table: &Self::Table,
        rows: Range<usize>,
        budget_entries: usize,
    ) -> Result<Self::Layout>;

    /// Fills the buffers of `rows` (Algorithm 3, lines 5-12), restricted to `window` of the
    /// first-edge list when given (then `rows` is one row).
    fn fill(
        &mut self,
        step: usize,
        table: &Self::Table,
        rows: Range<usize>,
        layout: &Self::Layout,
        window: Option<Range<usize>>,
    ) -> Result<Self::Filled>;

    /// The new table of `rows` (lines 13-19).
    fn link(
        &mut self,
        step: usize,
        table: &Self::Table,
        rows: Range<usize>,
        layout: &Self::Layout,
        filled: &Self::Filled,
    ) -> Result<Self::Table>;

    /// The last step when matches are wanted: hands the first `take` extensions of `rows`, as
    /// full matches in query-vertex order, to `sink`; returns how many it handed over (fewer
    /// when the stop conditions cut it short).
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        step: usize,
        table: &Self::Table,
        rows: Range<usize>,
        layout: &Self::Layout,
        filled: &Self::Filled,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<usize>;

    /// Hands the first `take` rows of a one-column `table` to `sink`.
    fn emit_first(
        &mut self,
        table: &Self::Table,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<()>;

    /// The rows of `rows` of `table` (of `width` columns) that `share` holds
    /// ([`Share::holds_row`]), as a new table, and how many.
    ///
    /// # Errors
    /// Device failures.
    fn keep_rows(
        &mut self,
        width: usize,
        table: &Self::Table,
        rows: Range<usize>,
        share: Share,
    ) -> Result<(Self::Table, usize)>;

    /// Rows `rows` of `table` (of `width` columns) in host memory, one after another.
    ///
    /// # Errors
    /// Device failures.
    fn read_rows(
        &self,
        width: usize,
        table: &Self::Table,
        rows: Range<usize>,
    ) -> Result<Vec<VertexId>>;

    /// A table of the rows `rows` (of `width` columns, one after another) holds.
    ///
    /// # Errors
    /// Device failures.
    fn table_of(&mut self, rows: Vec<VertexId>) -> Result<Self::Table>;

    /// When only the count is wanted: the matches that extend `rows` of `table`, counted
    /// without a table — at the last step the rows' extensions, at the plan's leaf suffix the
    /// products of [`crate::plan::LeafSuffix`], before them depth-first through every
    /// remaining step (where [`JoinBackend::depth_first_rows`] allows). May stop once it has
    /// counted `enough`. What it holds besides the tables (say, local candidate lists) takes
    /// a part of `budget`, the driver's bytes. A count that reaches `u128::MAX` stays there.
    fn count(
        &mut self,
        step: usize,
        table: &Self::Table,
        rows: Range<usize>,
        enough: Option<u128>,
        budget: usize,
    ) -> Result<u128>;

    /// Whether [`JoinBackend::count`] counts the last step's extensions as they are found;
    /// where not, a count fills the last step's buffers and adds up what they hold.
    fn counts_last_step(&self) -> bool {
        true
    }

    /// From how many rows of a step on the backend counts the rest depth-first
    /// ([`JoinBackend::count`] before the last step); `None` when it cannot.
    fn depth_first_rows(&self) -> Option<usize>;

    /// How the backend's depth-first count goes, for `--explain` (the GPU: packed, or with
    /// work stealing); `None` when it has one way only.
    fn depth_first_kind(&self) -> Option<&'static str> {
        None
    }

    /// How the backend spreads the lists of `step` over its threads (the GPU's Sec. 6.1 and
    /// 6.2).
    fn balance(&self, _step: usize) -> StepBalance {
        StepBalance::default()
    }

    /// Extensions the backend's depth-first counts skipped by failing sets, so far.
    fn skipped_by_failing_sets(&self) -> u64 {
        0
    }

    /// When only the count is wanted: joins `rows` rows of `table` breadth-first through
    /// every step from `step` on while the steps stay small, in one go (the GPU: one launch
    /// instead of a few per step), and counts at the last step or the leaf suffix. `None`
    /// when the backend has no such path or it is switched off
    /// ([`crate::tuning::GpuTuning::small_steps_up_to`]). Its tables take a part of `budget`,
    /// the driver's bytes.
    fn join_small(
        &mut self,
        _step: usize,
        _table: &Self::Table,
        _rows: usize,
        _budget: usize,
    ) -> Result<Option<SmallSteps<Self::Table>>> {
        Ok(None)
    }
}

/// How far [`JoinBackend::join_small`] went.
pub(crate) struct SmallSteps<T> {
    /// Rows into each step it took, from the first.
    pub rows_in: Vec<u64>,
    /// Where it ended.
    pub end: SmallEnd<T>,
}

/// The end of [`JoinBackend::join_small`].
pub(crate) enum SmallEnd<T> {
    /// Every match counted (at the last step it took).
    Counted(u128),
    /// Stopped before a step too large for it: the breadth-first join goes on from `step`,
    /// with `rows` rows of `table` (`None`: the table it was given).
    Stopped {
        step: usize,
        table: Option<T>,
        rows: usize,
        bytes: usize,
    },
}
