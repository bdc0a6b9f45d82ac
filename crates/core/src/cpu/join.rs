//! The CPU side of the Prealloc-Combine join (the driver is `crate::join`): tables and
//! buffers in host memory, rows in parallel with rayon.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use fixedbitset::FixedBitSet;
use gsi_graph::VertexId;
use portable_atomic::AtomicU128;
use rayon::prelude::*;

use crate::candidates::CandidateSets;
use crate::cpu::cliques::CliqueBitmaps;
use crate::cpu::local::{positions, LocalCandidates};
use crate::error::Result;
use crate::index::DataIndex;
use crate::join::{intersect_in_place, BufferLayout, FilledBuffers, JoinBackend};
use crate::options::{MatchOptions, Share};
use crate::plan::walks::RowExtender;
use crate::plan::{JoinStep, LinkEdge, Plan};
use crate::sink::MatchSink;
use crate::tuning::CpuTuning;

mod leaves;

use leaves::KeptExtensions;

/// Matches handed to the sink at once.
const EMIT_BATCH_ROWS: usize = 1 << 14;
/// Fewest rows worth spreading over threads: below this a hand-off to the pool costs more than
/// the rows' work (measured on hprd 8-vertex queries).
const PARALLEL_MIN_ROWS: usize = 256;
/// Rows between two looks at the clock inside a parallel loop.
const STOP_CHECK_ROWS: usize = 16;
/// Partial matches extended between two looks at the clock in a depth-first search.
const STOP_CHECK_NODES: usize = 1 << 12;
/// The local candidates may take this share of the memory budget (the tables keep the rest).
const LOCAL_BUDGET_SHARE: usize = 4;
/// Rows per worker thread from which a count goes depth-first: enough for rayon to balance
/// rows of uneven work.
const DEPTH_FIRST_ROWS_PER_THREAD: usize = 64;

/// The join's view of one query on the CPU.
pub(crate) struct CpuJoin<'a> {
    plan: &'a Plan,
    candidates: &'a CandidateSets,
    data: &'a DataIndex,
    options: &'a MatchOptions,
    tuning: CpuTuning,
    /// `order[i]`: the query vertex of column i.
    order: Vec<usize>,
    /// The depth-first count's local candidates: built at its first call, `None` inside
    /// when they would not fit the budget (or `tuning.local_candidates` is off).
    local: Option<Option<LocalCandidates>>,
    /// Failing sets: per column, the columns its extensions depend on (itself, its links,
    /// order bounds and absent edges, and theirs in turn), as bits; `None` when failing sets
    /// are off for the query's size or it has more than 64 vertices.
    ancestors: Option<Vec<FailingSet>>,
    /// Per step, whether the depth-first count keeps its extensions while the matches it
    /// reads stay ([`KeptExtensions`]).
    keeps: Vec<bool>,
    /// Extensions skipped by failing sets, over every count.
    skipped: AtomicU64,
    /// First vertices whose clique was counted by bitmaps, over every count.
    by_bitmaps: AtomicU64,
}

/// A set of columns as bits; [`FOUND`] when a subtree found a match (nothing to prune).
type FailingSet = u64;
/// The failing set of a subtree that found a match, or whose failure is not explained.
const FOUND: FailingSet = 0;
/// The failing set that explains nothing: it holds every column, so it prunes nothing.
const UNEXPLAINED: FailingSet = FailingSet::MAX;

impl<'a> CpuJoin<'a> {
    pub(crate) fn new(
        plan: &'a Plan,
        candidates: &'a CandidateSets,
        data: &'a DataIndex,
        options: &'a MatchOptions,
        tuning: CpuTuning,
    ) -> CpuJoin<'a> {
        CpuJoin {
            plan,
            candidates,
            data,
            options,
            tuning,
            order: plan.order(),
            local: None,
            ancestors: tuning
                .failing_sets_from
                .is_some_and(|from| (from..=FailingSet::BITS as usize).contains(&plan.width()))
                .then(|| ancestors(plan)),
            keeps: KeptExtensions::steps(plan, tuning.kept_extensions),
            skipped: AtomicU64::new(0),
            by_bitmaps: AtomicU64::new(0),
        }
    }

    /// Whether row `i` of a parallel loop should stop: looks at the stop conditions every
    /// `STOP_CHECK_ROWS` rows and tells every worker through `stop`.
    fn should_stop(&self, i: usize, stop: &AtomicBool) -> bool {
        if i.is_multiple_of(STOP_CHECK_ROWS) && self.options.stop().is_some() {
            stop.store(true, Ordering::Relaxed);
        }
        stop.load(Ordering::Relaxed)
    }

    /// The list the first edge reads for `row`: N(v', l0), or C(u) when u has no linking edge;
    /// only its part within the step's order bounds.
    fn source(&self, st: &JoinStep, row: &[VertexId]) -> &[VertexId] {
        let list = match st.first {
            Some(e) => self.link_list(st, row, e),
            None => self.candidates.list(st.vertex),
        };
        st.narrow(row, list)
    }

    /// N(row[column], label) of the link `e`: only its part above row[column] when an order
    /// bound keeps the step's match above that column's (found at once where ids follow
    /// degree: a hub's few higher-ranked neighbours).
    fn link_list(&self, st: &JoinStep, row: &[VertexId], e: LinkEdge) -> &[VertexId] {
        let graph = self.data.graph();
        let v = row[e.column];
        match st.keeps_above(e.column) {
            true => graph.neighbors_above(v, e.label, e.direction),
            false => graph.neighbors(v, e.label, e.direction),
        }
    }

    /// Hints to the processor, while the depth-first count follows the `k`-th of a step's
    /// extensions `matches`, about the lists the next step reads from this column: the
    /// place of the one two ahead's, the start of the next one's (their first reads are
    /// cache misses that the count otherwise waits for, one after the other).
    fn prefetch_ahead(&self, step: usize, matches: &[VertexId], k: usize) {
        let Some(next) = self.plan.steps.get(step + 1) else {
            return;
        };
        let graph = self.data.graph();
        for e in next.links().filter(|e| e.column == step) {
            if let Some(&later) = matches.get(k + 2) {
                graph.prefetch_place(later, e.direction);
            }
            if let Some(&soon) = matches.get(k + 1) {
                graph.prefetch_neighbors(soon, e.label, e.direction, next.keeps_above(step));
            }
        }
    }

    /// Algorithm 3 for one row: fills `buf` with the row's extensions drawn from `source` (the
    /// row's first-edge list, or a window of it) and returns how many; the row's own matches
    /// are left out where `injective`. With `conflicts`, adds to it the columns (with theirs)
    /// whose matches injectivity took from them.
    fn extensions(
        &self,
        st: &JoinStep,
        row: &[VertexId],
        source: &[VertexId],
        buf: &mut [VertexId],
        injective: bool,
        mut conflicts: Option<&mut FailingSet>,
    ) -> usize {
        let mut n = 0;
        // Lines 9-10: subtraction and candidate-bitset intersection, fused.
        for &x in source {
            if !self.candidates.contains(st.vertex, x) {
                continue;
            }
            if injective && row.contains(&x) {
                if let Some(conflicts) = conflicts.as_deref_mut() {
                    *conflicts |= self.column_set(row, x);
                }
                continue;
            }
            buf[n] = x;
            n += 1;
        }
        // Line 12: the other linking edges, each cut to the order bounds' window first.
        for e in &st.others {
            if n == 0 {
                break;
            }
            let other = self.link_list(st, row, *e);
            n = intersect_in_place(&mut buf[..n], st.narrow(row, other));
        }
        if !st.absent.is_empty() {
            let mut kept = 0;
            for k in 0..n {
                if self.has_no_absent_edge(st, row, buf[k]) {
                    buf[kept] = buf[k];
                    kept += 1;
                }
            }
            n = kept;
        }
        n
    }

    /// Induced matching: whether `x` has none of the step's absent edges to `row`'s matches.
    fn has_no_absent_edge(&self, st: &JoinStep, row: &[VertexId], x: VertexId) -> bool {
        st.absent.iter().all(|e| {
            self.data
                .graph()
                .neighbors(row[e.column], e.label, e.direction)
                .binary_search(&x)
                .is_err()
        })
    }

    /// Algorithm 3 for one partial match: the extensions of `row` at `step` into `buf`
    /// (grown as needed); returns how many. `conflicts` as in [`CpuJoin::extensions`].
    fn row_extensions(
        &self,
        step: usize,
        row: &[VertexId],
        buf: &mut Vec<VertexId>,
        conflicts: Option<&mut FailingSet>,
    ) -> usize {
        let st = &self.plan.steps[step];
        let source = self.source(st, row);
        if buf.len() < source.len() {
            buf.resize(source.len(), 0);
        }
        let injective = self.options.semantics.injective();
        self.extensions(st, row, source, buf, injective, conflicts)
    }

    /// Runs `f` on every index of `0..n`, in parallel when there are enough.
    fn map_rows<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        if n < PARALLEL_MIN_ROWS {
            (0..n).map(f).collect()
        } else {
            (0..n).into_par_iter().map(f).collect()
        }
    }
}

impl RowExtender for CpuJoin<'_> {
    fn extend_row(&self, step: usize, row: &[VertexId], buf: &mut Vec<VertexId>) -> usize {
        self.row_extensions(step, row, buf, None)
    }

    fn list_read(&self, step: usize, row: &[VertexId]) -> usize {
        self.source(&self.plan.steps[step], row).len()
    }
}

/// Buffer offsets of a run of rows: an exclusive prefix sum of their bounds.
pub(crate) struct HostLayout {
    /// The table row of the run's first row.
    first_row: usize,
    /// `prefix[i]` is where the buffer of the run's row i starts; the last is the total.
    prefix: Vec<usize>,
}

impl HostLayout {
    /// Where table row `row`'s buffer starts.
    fn start(&self, row: usize) -> usize {
        self.prefix[row - self.first_row]
    }
}

impl BufferLayout for HostLayout {
    fn entries(&self, rows: Range<usize>) -> Result<usize> {
        Ok(self.start(rows.end) - self.start(rows.start))
    }

    fn bytes(&self) -> usize {
        8 * self.prefix.len()
    }
}

/// One run's filled buffers: row i's extensions are `gba[starts[i]..starts[i] + counts[i]]`.
pub(crate) struct HostFilled {
    gba: Vec<VertexId>,
    starts: Vec<usize>,
    counts: Vec<usize>,
    new_rows: usize,
}

impl FilledBuffers for HostFilled {
    fn new_rows(&self) -> usize {
        self.new_rows
    }

    fn bytes(&self) -> usize {
        4 * self.gba.len() + 16 * self.counts.len()
    }
}

impl JoinBackend for CpuJoin<'_> {
    type Table = Vec<VertexId>;
    type Layout = HostLayout;
    type Filled = HostFilled;

    fn first_table(&mut self, vertex: usize) -> Result<Vec<VertexId>> {
        Ok(self.candidates.list(vertex).to_vec())
    }

    fn max_bound(&self, step: usize) -> usize {
        let st = &self.plan.steps[step];
        match st.first {
            Some(e) => self
                .data
                .pcsr()
                .partition_index(e.label, e.direction)
                .map_or(0, |i| self.data.pcsr().partition(i).max_degree()),
            None => self.candidates.list(st.vertex).len(),
        }
    }

    fn max_run_entries(&self) -> usize {
        usize::MAX
    }

    fn windows(&self) -> bool {
        true
    }

    fn first_run_rows(&self) -> usize {
        1
    }

    fn layout(
        &mut self,
        step: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        _budget_entries: usize,
    ) -> Result<HostLayout> {
        // Algorithm 4: the bound of each row's buffer.
        let st = &self.plan.steps[step];
        let this = &*self;
        let bounds = CpuJoin::map_rows(rows.len(), |i| {
            let r = rows.start + i;
            this.source(st, &table[r * step..(r + 1) * step]).len()
        });
        let mut prefix = Vec::with_capacity(bounds.len() + 1);
        let mut total = 0;
        prefix.push(0);
        for b in bounds {
            total += b;
            prefix.push(total);
        }
        Ok(HostLayout {
            first_row: rows.start,
            prefix,
        })
    }

    fn fill(
        &mut self,
        step: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        layout: &HostLayout,
        window: Option<Range<usize>>,
    ) -> Result<HostFilled> {
        let st = &self.plan.steps[step];
        let width = step;
        // Row i of the run starts its buffer at starts[i] in this chunk's GBA.
        let starts: Vec<usize> = match &window {
            Some(_) => vec![0],
            None => rows
                .clone()
                .map(|r| layout.start(r) - layout.start(rows.start))
                .collect(),
        };
        let total = match &window {
            Some(w) => w.len(),
            None => layout.entries(rows.clone())?,
        };
        let mut gba = vec![0 as VertexId; total];
        let mut buffers = Vec::with_capacity(rows.len());
        let mut rest = gba.as_mut_slice();
        for i in 0..rows.len() {
            let end = starts.get(i + 1).copied().unwrap_or(total);
            let (head, tail) = rest.split_at_mut(end - starts[i]);
            buffers.push(head);
            rest = tail;
        }
        let stop = AtomicBool::new(false);
        let this = &*self;
        let injective = self.options.semantics.injective();
        let fill = |(i, buf): (usize, &mut [VertexId])| {
            if this.should_stop(i, &stop) {
                return 0;
            }
            let r = rows.start + i;
            let row = &table[r * width..(r + 1) * width];
            let source = this.source(st, row);
            let source = window.clone().map_or(source, |w| &source[w]);
            this.extensions(st, row, source, buf, injective, None)
        };
        let counts: Vec<usize> = if rows.len() < PARALLEL_MIN_ROWS {
            buffers.into_iter().enumerate().map(fill).collect()
        } else {
            buffers.into_par_iter().enumerate().map(fill).collect()
        };
        let new_rows = counts.iter().sum();
        Ok(HostFilled {
            gba,
            starts,
            counts,
            new_rows,
        })
    }

    fn link(
        &mut self,
        step: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        _layout: &HostLayout,
        filled: &HostFilled,
    ) -> Result<Vec<VertexId>> {
        let width = step;
        let new_width = width + 1;
        let mut next = vec![0 as VertexId; filled.new_rows * new_width];
        let mut pieces = Vec::with_capacity(filled.counts.len());
        let mut rest = next.as_mut_slice();
        for (i, &c) in filled.counts.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(c * new_width);
            pieces.push((i, head));
            rest = tail;
        }
        // A table cut short by the stop conditions is never read: the driver stops first.
        let stop = AtomicBool::new(false);
        let copy = |(i, out): (usize, &mut [VertexId])| {
            if self.should_stop(i, &stop) {
                return;
            }
            let r = rows.start + i;
            let row = &table[r * width..(r + 1) * width];
            let at = filled.starts[i];
            for (k, slot) in out.chunks_exact_mut(new_width).enumerate() {
                slot[..width].copy_from_slice(row);
                slot[width] = filled.gba[at + k];
            }
        };
        if pieces.len() < PARALLEL_MIN_ROWS {
            pieces.into_iter().for_each(copy);
        } else {
            pieces.into_par_iter().for_each(copy);
        }
        Ok(next)
    }

    fn emit(
        &mut self,
        step: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        _layout: &HostLayout,
        filled: &HostFilled,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<usize> {
        let width = step;
        let full = width + 1;
        let mut batch = Vec::with_capacity(take.min(EMIT_BATCH_ROWS) * full);
        let mut left = take;
        let mut emitted = 0;
        for (i, &c) in filled.counts.iter().enumerate() {
            let r = rows.start + i;
            let row = &table[r * width..(r + 1) * width];
            let at = filled.starts[i];
            for &x in &filled.gba[at..at + c.min(left)] {
                let base = batch.len();
                batch.resize(base + full, 0);
                for (column, &v) in row.iter().chain(std::iter::once(&x)).enumerate() {
                    batch[base + self.order[column]] = v;
                }
                if batch.len() >= EMIT_BATCH_ROWS * full {
                    sink.matches(&batch, full)?;
                    emitted += EMIT_BATCH_ROWS;
                    batch.clear();
                    if self.options.stop().is_some() {
                        return Ok(emitted);
                    }
                }
            }
            left -= c.min(left);
            if left == 0 {
                break;
            }
        }
        if !batch.is_empty() {
            sink.matches(&batch, full)?;
            emitted += batch.len() / full;
        }
        Ok(emitted)
    }

    fn keep_rows(
        &mut self,
        width: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        share: Share,
    ) -> Result<(Vec<VertexId>, usize)> {
        let kept = share.rows_held(&table[rows.start * width..rows.end * width], width);
        let count = kept.len() / width;
        Ok((kept, count))
    }

    fn read_rows(
        &self,
        width: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
    ) -> Result<Vec<VertexId>> {
        Ok(table[rows.start * width..rows.end * width].to_vec())
    }

    fn table_of(&mut self, rows: Vec<VertexId>) -> Result<Vec<VertexId>> {
        Ok(rows)
    }

    fn emit_first(
        &mut self,
        table: &Vec<VertexId>,
        take: usize,
        sink: &mut dyn MatchSink,
    ) -> Result<()> {
        for batch in table[..take].chunks(EMIT_BATCH_ROWS) {
            sink.matches(batch, 1)?;
        }
        Ok(())
    }

    fn count(
        &mut self,
        step: usize,
        table: &Vec<VertexId>,
        rows: Range<usize>,
        enough: Option<u128>,
        budget: usize,
    ) -> Result<u128> {
        if self.local.is_none() {
            let wanted = self.tuning.local_candidates;
            self.local = Some(
                wanted
                    .then(|| {
                        LocalCandidates::build(
                            self.plan,
                            self.candidates,
                            self.data,
                            budget / LOCAL_BUDGET_SHARE,
                        )
                    })
                    .flatten(),
            );
        }
        let width = step;
        let found = AtomicU128::new(0);
        let stop = AtomicBool::new(false);
        let shared = Shared {
            found: &found,
            enough,
            stop: &stop,
        };
        let this = &*self;
        // A clique's chain from its first vertex: by bitmaps where that vertex has few
        // enough higher neighbours.
        let cliques = match (step, self.tuning.clique_bitmaps_up_to) {
            (1, Some(up_to)) => self.plan.clique_link().map(|link| (link, up_to)),
            _ => None,
        };
        let count = |search: &mut DepthFirst, i: usize| {
            if this.should_stop(i, &stop) {
                return;
            }
            let r = rows.start + i;
            search.row[..width].copy_from_slice(&table[r * width..(r + 1) * width]);
            if let Some((link, up_to)) = cliques {
                let graph = this.data.graph();
                let (plan, candidates, v0) = (this.plan, this.candidates, search.row[0]);
                let by_bitmaps = search
                    .cliques
                    .count(plan, link, candidates, graph, v0, up_to);
                if let Some(found) = by_bitmaps {
                    this.by_bitmaps.fetch_add(1, Ordering::Relaxed);
                    search.counted = search.counted.saturating_add(found);
                    this.report(search, &shared);
                    return;
                }
            }
            if this.local().is_some() {
                positions(
                    this.plan,
                    this.candidates,
                    &search.row[..width],
                    &mut search.positions,
                );
                search.mark(width, true);
            }
            this.count_from(step, search, &shared);
            if this.local().is_some() {
                search.mark(width, false);
            }
            this.report(search, &shared);
        };
        let vertices = self.data.graph().vertex_count();
        let start = || DepthFirst::new(self.plan.width(), vertices);
        // Few rows of bounded work each (the last step, or the leaves' products) stay on
        // this thread; rows that search depth-first are spread even when few.
        let bounded = step + 1 == self.plan.width() || step == self.plan.leaves.from;
        if rows.len() < PARALLEL_MIN_ROWS && bounded {
            let mut search = start();
            (0..rows.len()).for_each(|i| count(&mut search, i));
        } else {
            (0..rows.len()).into_par_iter().for_each_init(start, count);
        }
        Ok(found.into_inner())
    }

    fn depth_first_rows(&self) -> Option<usize> {
        // Enough rows for every thread to take a share, several times over.
        Some(DEPTH_FIRST_ROWS_PER_THREAD * rayon::current_num_threads())
    }

    fn skipped_by_failing_sets(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }

    fn depth_first_kind(&self) -> Option<&'static str> {
        (self.by_bitmaps.load(Ordering::Relaxed) > 0).then_some("clique bitmaps, the rest searched")
    }
}

/// Per column, the columns whose matches decide its extensions: itself, its links, order
/// bounds and absent edges, and (transitively) theirs.
fn ancestors(plan: &Plan) -> Vec<FailingSet> {
    let mut ancestors: Vec<FailingSet> = Vec::with_capacity(plan.width());
    for (column, st) in plan.steps.iter().enumerate() {
        let set = st
            .read_columns()
            .fold(1 << column, |set, c| set | ancestors[c]);
        ancestors.push(set);
    }
    ancestors
}

/// One thread's depth-first search: the partial match, a buffer per step, and the matches
/// counted since it last reported.
struct DepthFirst {
    row: Vec<VertexId>,
    buffers: Vec<Vec<VertexId>>,
    /// With local candidates: the row's matches as positions in their candidate lists, and
    /// each step's extensions as positions beside `buffers`.
    positions: Vec<u32>,
    position_buffers: Vec<Vec<u32>>,
    /// With local candidates: the data vertices of the row, for injectivity in one read.
    used: FixedBitSet,
    /// Scratch for the intersections of a leaf group's extension sets.
    common: Vec<VertexId>,
    /// Per step, its extensions kept ([`CpuJoin::keeps`]).
    kept: Vec<KeptExtensions>,
    /// With failing sets: per step, the columns (with theirs) whose matches injectivity took
    /// from the step's last extensions.
    conflicts: Vec<FailingSet>,
    /// The pair count's tally per data vertex (all 0 between rows; sized at its first use),
    /// and the vertices it touched ([`CpuJoin::pair_count`]).
    tally: Vec<u32>,
    touched: Vec<VertexId>,
    /// The clique count's bitmaps ([`CliqueBitmaps`]).
    cliques: CliqueBitmaps,
    /// Saturated at `u128::MAX`, as every count of the join.
    counted: u128,
    /// Extensions skipped by failing sets since it last reported.
    skipped: u64,
    /// Extensions tried since the stop conditions were last looked at.
    since_check: usize,
}

impl DepthFirst {
    fn new(width: usize, vertices: usize) -> DepthFirst {
        DepthFirst {
            row: vec![0; width],
            buffers: vec![Vec::new(); width],
            positions: vec![0; width],
            position_buffers: vec![Vec::new(); width],
            used: FixedBitSet::with_capacity(vertices),
            common: Vec::new(),
            kept: vec![KeptExtensions::default(); width],
            conflicts: vec![0; width],
            tally: Vec::new(),
            touched: Vec::new(),
            cliques: CliqueBitmaps::default(),
            counted: 0,
            skipped: 0,
            since_check: 0,
        }
    }

    /// Marks (or unmarks) the first `width` vertices of the row as used.
    fn mark(&mut self, width: usize, used: bool) {
        for &v in &self.row[..width] {
            self.used.set(v as usize, used);
        }
    }
}

/// What the threads of one depth-first count share: the matches reported (saturated at
/// `u128::MAX`), how many are enough (a limit), and the flag that stops them all.
struct Shared<'s> {
    found: &'s AtomicU128,
    enough: Option<u128>,
    stop: &'s AtomicBool,
}

impl CpuJoin<'_> {
    /// Adds the matches `search` counted (and the extensions it skipped) to the totals, and
    /// stops every thread when the stop conditions hold or the total is enough.
    fn report(&self, search: &mut DepthFirst, shared: &Shared<'_>) {
        let counted = std::mem::take(&mut search.counted);
        let add = |found: u128| Some(found.saturating_add(counted));
        let total = match shared
            .found
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, add)
        {
            Ok(before) | Err(before) => before.saturating_add(counted),
        };
        self.skipped
            .fetch_add(std::mem::take(&mut search.skipped), Ordering::Relaxed);
        if self.options.stop().is_some()
            || total == u128::MAX
            || shared.enough.is_some_and(|k| total >= k)
        {
            shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Counts into `search.counted` the matches that extend `search.row[..step]` through
    /// steps `step..`, depth-first: at each step the row's extensions (Algorithm 3 for one
    /// row) are computed into that step's buffer and each is followed in turn; the last step
    /// only counts them, and the leaf suffix multiplies. Returns the subtree's failing set
    /// (DAF's, Han et al. 2019): when it found no match, columns whose matches explain why;
    /// an extension whose subtree fails without its own column in that set shows that its
    /// siblings fail alike, and they are skipped.
    fn count_from(&self, step: usize, search: &mut DepthFirst, shared: &Shared<'_>) -> FailingSet {
        if step == self.plan.leaves.from {
            return match self.leaf_product(search) {
                Ok(product) => {
                    search.counted = search.counted.saturating_add(product);
                    // A product of 0 from sets none of which is empty (injectivity) is not
                    // explained.
                    if product == 0 {
                        UNEXPLAINED
                    } else {
                        FOUND
                    }
                }
                Err(empty) => self.empty_extensions(empty, search),
            };
        }
        let last = step + 1 == self.plan.width();
        let n = match last {
            true => self.extension_count(step, step, search),
            false => self.step_extensions(step, step, true, search),
        };
        if n == 0 {
            return self.empty_extensions(step, search);
        }
        if last {
            search.counted = search.counted.saturating_add(n as u128);
            return FOUND;
        }
        let buf = std::mem::take(&mut search.buffers[step]);
        let at = std::mem::take(&mut search.position_buffers[step]);
        let column = 1 << step;
        // The union of the failed extensions' sets, until one finds a match.
        let mut failing = Some(0);
        for (k, &x) in buf[..n].iter().enumerate() {
            self.prefetch_ahead(step, &buf[..n], k);
            search.since_check += 1;
            if search.since_check >= STOP_CHECK_NODES {
                search.since_check = 0;
                self.report(search, shared);
            }
            if shared.stop.load(Ordering::Relaxed) {
                failing = None;
                break;
            }
            search.row[step] = x;
            let below = if let Some(&p) = at.get(k) {
                search.positions[step] = p;
                search.used.insert(x as usize);
                let below = self.count_from(step + 1, search, shared);
                search.used.set(x as usize, false);
                below
            } else {
                self.count_from(step + 1, search, shared)
            };
            failing = match failing {
                _ if below == FOUND => None,
                // The failure does not depend on this column's match: skip the others.
                Some(_) if below & column == 0 => {
                    search.skipped += (n - k - 1) as u64;
                    search.buffers[step] = buf;
                    search.position_buffers[step] = at;
                    return below;
                }
                Some(union) => Some(union | below),
                None => None,
            };
        }
        search.buffers[step] = buf;
        search.position_buffers[step] = at;
        match failing {
            Some(union) => union | self.conflicts(step, search),
            None => FOUND,
        }
    }

    /// The failing set of a step that found no extension: what its extensions
    /// depend on, with the columns whose matches injectivity took from them.
    fn empty_extensions(&self, step: usize, search: &DepthFirst) -> FailingSet {
        match &self.ancestors {
            Some(ancestors) => ancestors[step] | self.conflicts(step, search),
            None => FOUND,
        }
    }

    /// The columns (with theirs) whose matches injectivity took from the step's last
    /// extensions, as they recorded them: a failure below the step may depend on them.
    fn conflicts(&self, step: usize, search: &DepthFirst) -> FailingSet {
        match self.ancestors {
            Some(_) => search.conflicts[step],
            None => FOUND,
        }
    }

    /// The column of `row` that holds `x`, with its ancestors (none when failing sets are off).
    fn column_set(&self, row: &[VertexId], x: VertexId) -> FailingSet {
        let Some(ancestors) = &self.ancestors else {
            return 0;
        };
        row.iter().position(|&y| y == x).map_or(0, |j| ancestors[j])
    }

    /// The local candidates, when the depth-first count has them.
    fn local(&self) -> Option<&LocalCandidates> {
        self.local.as_ref().and_then(Option::as_ref)
    }

    /// Fills `search.buffers[step]` with the extensions of `search.row[..width]` at `step`
    /// (its links all within the row) and returns how many; with local candidates, their
    /// positions go to `search.position_buffers[step]`, and the vertices only when `vertices`
    /// asks for them.
    fn step_extensions(
        &self,
        step: usize,
        width: usize,
        vertices: bool,
        search: &mut DepthFirst,
    ) -> usize {
        let st = &self.plan.steps[step];
        let Some(local) = self.local() else {
            let mut conflicts = 0;
            let row = &search.row[..width];
            let n = self.row_extensions(step, row, &mut search.buffers[step], Some(&mut conflicts));
            search.conflicts[step] = conflicts;
            return n;
        };
        let list = self.candidates.list(st.vertex);
        let at = &mut search.position_buffers[step];
        let window = st.window(&search.row[..width]);
        local.extend(
            self.plan,
            step,
            &search.positions[..width],
            (list, window),
            at,
        );
        if self.options.semantics.injective() {
            let (used, row) = (&search.used, &search.row[..width]);
            let mut conflicts = 0;
            at.retain(|&p| {
                let x = list[p as usize];
                let free = !used.contains(x as usize);
                if !free {
                    conflicts |= self.column_set(row, x);
                }
                free
            });
            search.conflicts[step] = conflicts;
        }
        if !st.absent.is_empty() {
            let row = &search.row[..width];
            at.retain(|&p| self.has_no_absent_edge(st, row, list[p as usize]));
        }
        if vertices {
            let buf = &mut search.buffers[step];
            buf.clear();
            buf.extend(at.iter().map(|&p| list[p as usize]));
        }
        at.len()
    }
}
