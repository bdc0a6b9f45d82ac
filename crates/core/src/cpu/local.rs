//! Local candidates for the CPU's depth-first count: for every linking edge of every step, the
//! candidates of the step's vertex adjacent to each candidate of the linked vertex, as
//! positions in C(u) (the auxiliary structure of CECI, DP-iso and RapidMatch). A partial match
//! then extends by intersecting a few short lists of candidates, instead of reading whole
//! neighbour lists and testing each vertex against C(u).
//!
//! Built per query from the candidate sets, when their candidate edges fit the memory budget.

use gsi_graph::VertexId;

use crate::candidates::CandidateSets;
use crate::index::DataIndex;
use crate::join::intersect_in_place;
use crate::plan::{LinkEdge, Plan};

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
    /// Builds them, unless they would take more than `budget` bytes.
    pub(crate) fn build(
        plan: &Plan,
        sets: &CandidateSets,
        data: &DataIndex,
        budget: usize,
    ) -> Option<LocalCandidates> {
        let graph = data.graph();
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

    /// Into `out` (as positions in C(u) of the step's vertex u), the candidates of `step`
    /// adjacent to every linked vertex's match, given the positions `row` of the matches of
    /// the steps before; returns how many. A step without links takes all of C(u), of size
    /// `all`.
    pub(crate) fn extend(
        &self,
        plan: &Plan,
        step: usize,
        row: &[u32],
        all: usize,
        out: &mut Vec<u32>,
    ) -> usize {
        let st = &plan.steps[step];
        let lists = &self.links[step];
        out.clear();
        let Some(first) = st.first else {
            out.extend(0..all as u32);
            return all;
        };
        out.extend_from_slice(lists[0].of(row[first.column]));
        let mut n = out.len();
        for (e, list) in st.others.iter().zip(&lists[1..]) {
            if n == 0 {
                break;
            }
            n = intersect_in_place(&mut out[..n], list.of(row[e.column]));
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
