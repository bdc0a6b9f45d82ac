//! Local candidates for the CPU's depth-first count: for every linking edge of every step, the
//! candidates of the step's vertex adjacent to each candidate of the linked vertex, as
//! positions in C(u) (the auxiliary structure of CECI, DP-iso and RapidMatch). A partial match
//! then extends by intersecting a few short lists of candidates, instead of reading whole
//! neighbour lists and testing each vertex against C(u).
//!
//! Built per query from the candidate sets, when their candidate edges fit the memory budget.

use std::ops::Range;

use gsi_graph::VertexId;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::join::intersect_in_place;
use crate::plan::{LinkEdge, Plan};

/// A candidate set holding at least this share of the data vertices hardly prunes: its
/// local lists would be nearly whole neighbour lists, read through one more indirection (an
/// unlabelled graph's, measured on a 1 M-vertex scale-free graph: twice the time).
const UNPRUNED_SHARE: f64 = 0.5;

/// The local candidates of one linking edge: for the candidate at position p of the linked
/// vertex, `positions[offsets[p]..offsets[p + 1]]`, ascending.
struct LinkLists {
    offsets: Vec<usize>,
    positions: Vec<u32>,
}

impl LinkLists {
    fn of(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.positions[self.offsets[p]..self.offsets[p + 1]]
    }
}

/// The local candidates of every linking edge of a plan, by step, the first edge first.
pub(crate) struct LocalCandidates {
    links: Vec<Vec<LinkLists>>,
}

impl LocalCandidates {
    /// Builds them, unless they would take more than `budget` bytes or the candidate sets
    /// hardly prune ([`UNPRUNED_SHARE`]).
    pub(crate) fn build(
        plan: &Plan,
        sets: &CandidateSets,
        data: &DataIndex,
        budget: usize,
    ) -> Option<LocalCandidates> {
        let graph = data.graph();
        let unpruned = graph.vertex_count() as f64 * UNPRUNED_SHARE;
        if plan
            .steps
            .iter()
            .all(|st| st.first.is_none() || sets.list(st.vertex).len() as f64 >= unpruned)
        {
            return None;
        }
        let order = plan.order();
        let link = |u: usize, e: &LinkEdge| -> LinkLists {
            let ranks = sets.ranks(u);
            let theirs = sets.list(order[e.column]);
            let mut offsets = Vec::with_capacity(theirs.len() + 1);
            let mut positions = Vec::new();
            offsets.push(0);
            for &v in theirs {
                for &x in graph.neighbors(v, e.label, e.direction) {
                    if sets.contains(u, x) {
                        positions.push(ranks.position(x));
                    }
                }
                offsets.push(positions.len());
            }
            LinkLists { offsets, positions }
        };
        // Bytes first, from the candidates' degrees: a bound on the lists' entries.
        let bound: usize = plan
            .steps
            .iter()
            .flat_map(|st| st.links())
            .map(|e| {
                let theirs = sets.list(order[e.column]);
                theirs
                    .iter()
                    .map(|&v| graph.degree(v, e.direction) + 2)
                    .sum::<usize>()
            })
            .sum();
        if 4 * bound > budget {
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
