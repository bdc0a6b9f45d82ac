//! Local candidates for the CPU's depth-first count: for every linking edge of every step, the
//! candidate edges from the linked vertex's candidates into the step's ([`CandidateEdgeLists`]).
//! A partial match then extends by intersecting a few short lists of candidates, instead of
//! reading whole neighbour lists and testing each vertex against C(u).
//!
//! Built per query from the candidate sets, when their candidate edges fit the memory budget.

use std::ops::Range;

use gsi_graph::VertexId;

use crate::candidates::{CandidateEdgeLists, CandidateSets};
use crate::index::DataIndex;
use crate::join::intersect_in_place;
use crate::plan::{LinkEdge, Plan};

/// The local candidates of every linking edge of a plan, by step, the first edge first.
pub(crate) struct LocalCandidates {
    links: Vec<Vec<CandidateEdgeLists>>,
}

impl LocalCandidates {
    /// Builds them, unless they would take more than `budget` bytes or the candidate sets
    /// hardly prune ([`CandidateEdgeLists::worth_reading`]).
    pub(crate) fn build(
        plan: &Plan,
        sets: &CandidateSets,
        data: &DataIndex,
        budget: usize,
    ) -> Option<LocalCandidates> {
        let graph = data.graph();
        if plan.steps.iter().all(|st| {
            st.first.is_none() || !CandidateEdgeLists::worth_reading(graph, sets, st.vertex)
        }) {
            return None;
        }
        let order = plan.order();
        let link = |u: usize, e: &LinkEdge| {
            CandidateEdgeLists::between(graph, sets, (order[e.column], u), e.label, e.direction)
        };
        // Bytes first, from the candidates' degrees: a bound on the lists' entries.
        let bound: usize = plan
            .steps
            .iter()
            .flat_map(|st| st.links())
            .map(|e| CandidateEdgeLists::bytes_bound(graph, sets, order[e.column], e.direction))
            .sum();
        if bound > budget {
            return None;
        }
        let links = plan
            .steps
            .iter()
            .map(|st| st.links().map(|e| link(st.vertex, e)).collect())
            .collect();
        Some(LocalCandidates { links })
    }

    /// Into `out` (as positions in C(u) of the step's vertex u, whose vertices `cands` are),
    /// the candidates of `step` adjacent to every linked vertex's match and within `window`
    /// (the vertices its order bounds leave), given the positions `row` of the matches of the
    /// steps before; returns how many. A step without links takes the whole window.
    pub(crate) fn extend(
        &self,
        plan: &Plan,
        step: usize,
        row: &[u32],
        (cands, window): (&[VertexId], Range<VertexId>),
        out: &mut Vec<u32>,
    ) -> usize {
        let st = &plan.steps[step];
        let lists = &self.links[step];
        out.clear();
        // Positions follow their vertices' order, so a window of vertices is a run of each
        // list, found by reading a few of its vertices: under a degree order the window keeps
        // only a hub's few higher-ranked neighbours, before any intersection.
        let within = |list: &[u32]| -> Range<usize> {
            let from = list.partition_point(|&p| cands[p as usize] < window.start);
            let to = list.partition_point(|&p| cands[p as usize] < window.end);
            from..to.max(from)
        };
        let Some(first) = st.first else {
            let from = cands.partition_point(|&v| v < window.start);
            let to = cands.partition_point(|&v| v < window.end).max(from);
            out.extend(from as u32..to as u32);
            return out.len();
        };
        let list = lists[0].of(row[first.column]);
        out.extend_from_slice(&list[within(list)]);
        let mut n = out.len();
        for (e, list) in st.others.iter().zip(&lists[1..]) {
            if n == 0 {
                break;
            }
            let list = list.of(row[e.column]);
            n = intersect_in_place(&mut out[..n], &list[within(list)]);
        }
        out.truncate(n);
        n
    }
}

/// The positions of a row's matches in their candidate lists.
pub(crate) fn positions(plan: &Plan, sets: &CandidateSets, row: &[VertexId], out: &mut [u32]) {
    for (i, (&v, slot)) in row.iter().zip(out.iter_mut()).enumerate() {
        let list = sets.list(plan.steps[i].vertex);
        *slot = list.partition_point(|&y| y < v) as u32;
    }
}
