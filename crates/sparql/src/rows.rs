//! Sinks of whole solutions: each match is one row, a data vertex per query vertex.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gsi_core::{DataIndex, MatchSink};
use gsi_graph::{EdgeLabel, VertexId, VertexLabel};
use oxrdf::Term;

use crate::bgp::{QueryGraph, Terms, Typing};
use crate::error::Error;
use crate::filter::Filter;
use crate::parse::Variable;
use crate::results::parse_term;
use crate::spelling::TermIndex;

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

/// Hands each row on with the predicates of an assignment after its query vertices.
pub struct Assigned<'a> {
    row: Vec<VertexId>,
    /// The query vertices.
    width: usize,
    inner: &'a mut dyn Rows,
}

impl<'a> Assigned<'a> {
    /// Rows of `width` query vertices, extended with `assignment`.
    pub fn new(width: usize, assignment: &[EdgeLabel], inner: &'a mut dyn Rows) -> Assigned<'a> {
        let mut row = vec![0; width];
        row.extend_from_slice(assignment);
        Assigned { row, width, inner }
    }
}

impl Rows for Assigned<'_> {
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()> {
        self.row[..self.width].copy_from_slice(row);
        self.inner.row(&self.row)
    }
}

/// The rows of a query graph matched without its typed triples ([`Typing`]): each extended
/// to every query vertex, kept where its checked vertices are classes of their subjects, and
/// repeated for each class that its class vertices' subjects share.
pub struct Typed<'t> {
    typing: &'t Typing,
    index: &'t DataIndex,
    terms: &'t Terms<'t>,
    /// The row being extended, a place per query vertex.
    row: Vec<VertexId>,
    inner: &'t mut dyn Rows,
}

impl<'t> Typed<'t> {
    /// Rows of `width` query vertices, as `typing` says, over the data of `index` and
    /// `terms`.
    pub fn new(
        typing: &'t Typing,
        width: usize,
        index: &'t DataIndex,
        terms: &'t Terms<'t>,
        inner: &'t mut dyn Rows,
    ) -> Typed<'t> {
        Typed {
            typing,
            index,
            terms,
            row: vec![0; width],
            inner,
        }
    }

    /// The labels of data vertex `v`: its classes, and 0, which every vertex has.
    fn classes(&self, v: VertexId) -> &'t [VertexLabel] {
        let index = self.index;
        index
            .internal_id(v)
            .map_or(&[][..], |i| index.graph().labels_of(i))
    }

    /// Hands on the row once for each class of the class vertices from the `k`-th on.
    fn expand(&mut self, k: usize) -> gsi_core::Result<()> {
        let typing = self.typing;
        let Some((vertex, subjects, constant)) = typing.classes.get(k) else {
            return self.inner.row(&self.row);
        };
        for &class in self
            .classes(self.row[subjects[0]])
            .iter()
            .filter(|&&c| c != 0)
        {
            let shared = subjects[1..]
                .iter()
                .all(|&s| self.classes(self.row[s]).contains(&class));
            if !shared || constant.is_some_and(|c| c != class) {
                continue;
            }
            let Some(id) = self.terms.vertices.after(class) else {
                continue;
            };
            self.row[*vertex] = id;
            self.expand(k + 1)?;
        }
        Ok(())
    }
}

impl Rows for Typed<'_> {
    fn row(&mut self, matched: &[VertexId]) -> gsi_core::Result<()> {
        for (&u, &v) in self.typing.matched.iter().zip(matched) {
            self.row[u] = v;
        }
        for &(s, o) in &self.typing.checks {
            let class = self.terms.vertices.name(self.row[o]);
            let class = class.and_then(|name| self.terms.classes.id(name));
            if !class.is_some_and(|c| self.classes(self.row[s]).contains(&c)) {
                return Ok(());
            }
        }
        self.expand(0)
    }
}

/// Counts rows, and stops the join once it has counted `limit`.
pub struct Tally {
    pub count: u64,
    limit: Option<u64>,
    stop: Arc<AtomicBool>,
}

impl Tally {
    /// No rows yet; `stop` is the join's interrupt flag.
    pub fn new(limit: Option<u64>, stop: Arc<AtomicBool>) -> Tally {
        Tally {
            count: 0,
            limit,
            stop,
        }
    }
}

impl Rows for Tally {
    fn row(&mut self, _row: &[VertexId]) -> gsi_core::Result<()> {
        if self.limit.is_some_and(|limit| self.count >= limit) {
            return Ok(());
        }
        self.count += 1;
        if self.limit == Some(self.count) {
            self.stop.store(true, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Hands on the rows where a filter holds.
pub struct Filtered<'f> {
    filter: &'f Filter,
    /// The query vertex of each variable of the filter that the BGP binds.
    vertices: HashMap<Variable, usize>,
    names: &'f TermIndex<'f>,
    /// The terms of the data vertices met so far.
    terms: HashMap<VertexId, Term>,
    inner: &'f mut dyn Rows,
    /// The error that stopped the join where the filter could not be evaluated.
    pub failed: Option<Error>,
}

impl<'f> Filtered<'f> {
    /// `filter` over the solutions of `bgp`, whose data vertices `names` names.
    pub fn new(
        filter: &'f Filter,
        bgp: &QueryGraph,
        names: &'f TermIndex<'f>,
        inner: &'f mut dyn Rows,
    ) -> Filtered<'f> {
        let vertices = filter
            .variables()
            .into_iter()
            .filter_map(|v| bgp.vertex_of(v).map(|u| (v.clone(), u)))
            .collect();
        Filtered {
            filter,
            vertices,
            names,
            terms: HashMap::new(),
            inner,
            failed: None,
        }
    }
}

impl Rows for Filtered<'_> {
    fn row(&mut self, row: &[VertexId]) -> gsi_core::Result<()> {
        for &u in self.vertices.values() {
            if let (None, Some(name)) = (self.terms.get(&row[u]), self.names.name(row[u])) {
                self.terms.insert(row[u], parse_term(name)?);
            }
        }
        let (vertices, terms) = (&self.vertices, &self.terms);
        let bound = |v: &Variable| vertices.get(v).and_then(|&u| terms.get(&row[u]));
        match self.filter.holds(&bound) {
            Ok(Some(true)) => self.inner.row(row),
            Ok(_) => Ok(()),
            Err(error) => {
                let message = error.to_string();
                self.failed = Some(error);
                Err(io::Error::other(message).into())
            }
        }
    }
}
