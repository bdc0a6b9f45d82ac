//! One step of a plan: the query vertex it joins, its linking edges, its order bounds and,
//! under induced matching, its absent edges.

use std::ops::Range;

use gsi_graph::{Direction, EdgeLabel, VertexId};

/// An edge from an already joined query vertex to the one being joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkEdge {
    /// Column of the intermediate table that holds the joined vertex's match.
    pub column: usize,
    /// The query edge's label.
    pub label: EdgeLabel,
    /// Read N(row[column], label) in this direction to reach the new vertex.
    pub direction: Direction,
}

/// One iteration of Algorithm 2: join query vertex `vertex` to the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinStep {
    /// The query vertex joined at this step; it becomes the table's next column.
    pub vertex: usize,
    /// The first edge e0 (Algorithm 4), or `None` when the vertex has no edge to the vertices
    /// before it (the first step, or a new component of a disconnected query): its matches
    /// then come from C(vertex) itself.
    pub first: Option<LinkEdge>,
    /// The other linking edges, intersected after the first.
    pub others: Vec<LinkEdge>,
    /// Orders the vertex's match keeps with earlier columns' ([`crate::plan::symmetry`]).
    pub order_bounds: Vec<OrderBound>,
    /// Induced matching: edges the vertex's match must not have to earlier columns' matches,
    /// read as the links are (the match must not be in N(row[column], label, direction)).
    pub absent: Vec<LinkEdge>,
}

/// A symmetry-breaking constraint as a step reads it: the step's match must be above (or
/// below) the match in an earlier column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderBound {
    /// The earlier column.
    pub column: usize,
    /// Whether the step's match is above that column's; otherwise below.
    pub above: bool,
}

impl JoinStep {
    /// Every linking edge, the first one first.
    pub fn links(&self) -> impl Iterator<Item = &LinkEdge> {
        self.first.iter().chain(&self.others)
    }

    /// The earlier columns whose matches decide the step's extensions: its links', its order
    /// bounds' and its absent edges'.
    pub fn read_columns(&self) -> impl Iterator<Item = usize> + '_ {
        (self.links().chain(&self.absent))
            .map(|e| e.column)
            .chain(self.order_bounds.iter().map(|b| b.column))
    }

    /// Whether an order bound keeps the step's match above column `column`'s.
    pub fn keeps_above(&self, column: usize) -> bool {
        self.bound_to(column) == Some(true)
    }

    /// Whether an order bound keeps the step's match above (`Some(true)`) or below
    /// (`Some(false)`) column `column`'s; `None` where none bounds it by that column.
    pub fn bound_to(&self, column: usize) -> Option<bool> {
        self.order_bounds
            .iter()
            .find(|b| b.column == column)
            .map(|b| b.above)
    }

    /// The data vertices the step's match may be, given the earlier columns `row`: above
    /// every `above` bound's vertex and below every other's (empty when none can).
    pub fn window(&self, row: &[VertexId]) -> Range<VertexId> {
        self.order_bounds
            .iter()
            .fold(0..VertexId::MAX, |w, b| match b.above {
                true => w.start.max(row[b.column].saturating_add(1))..w.end,
                false => w.start..w.end.min(row[b.column]),
            })
    }

    /// The part of the sorted `list` in [`JoinStep::window`].
    pub fn narrow<'l>(&self, row: &[VertexId], list: &'l [VertexId]) -> &'l [VertexId] {
        if self.order_bounds.is_empty() {
            return list;
        }
        let window = self.window(row);
        // Symmetry breaking mostly bounds one side: the other needs no search.
        let from = match list.first() {
            Some(&first) if first < window.start => list.partition_point(|&x| x < window.start),
            _ => 0,
        };
        let to = match window.end {
            VertexId::MAX => list.len(),
            end => list.partition_point(|&x| x < end),
        };
        &list[from..to.max(from)]
    }
}
