//! A clique's chain ([`crate::plan::Plan::clique_link`]) counted from one first vertex v0 by
//! bitmaps: v0's higher neighbours S, each one's neighbours above it among S as a row of bits,
//! and the clique's later steps chosen depth-first over the rows (their ANDs hold the members
//! adjacent to every vertex chosen so far), the last step counted by population counts. The
//! GPU's `gsi_count_cliques` does the same in shared memory.

use gsi_graph::{Graph, VertexId};

use crate::candidates::CandidateSets;
use crate::plan::{LinkEdge, Plan};

/// Bits of one word of a row.
const BITS: usize = u64::BITS as usize;

/// One thread's rows and masks, kept from one first vertex to the next.
#[derive(Default)]
pub(crate) struct CliqueBitmaps {
    /// Row i (`words` words): the members above member i adjacent to it.
    up: Vec<u64>,
    /// Per step k (`words` words each): the members in C(u_k).
    allowed: Vec<u64>,
    /// Per depth, the members adjacent to every vertex chosen, and those the step there may
    /// still take.
    common: Vec<u64>,
    next: Vec<u64>,
}

impl CliqueBitmaps {
    /// The matches of `plan` (a clique's chain reading `link`) whose first vertex is `v0`,
    /// or `None` where v0 has more than `up_to` higher neighbours (the caller searches
    /// those as any other row).
    pub(crate) fn count(
        &mut self,
        plan: &Plan,
        link: LinkEdge,
        candidates: &CandidateSets,
        graph: &Graph,
        v0: VertexId,
        up_to: usize,
    ) -> Option<u128> {
        let members = graph.neighbors_above(v0, link.label, link.direction);
        let m = members.len();
        let width = plan.width();
        if m > up_to {
            return None;
        }
        if m + 1 < width {
            return Some(0);
        }
        let words = m.div_ceil(BITS);
        self.allowed.clear();
        self.allowed.resize(width * words, 0);
        for (k, step) in plan.steps.iter().enumerate().skip(1) {
            let allowed = &mut self.allowed[k * words..(k + 1) * words];
            for (j, &x) in members.iter().enumerate() {
                if candidates.contains(step.vertex, x) {
                    allowed[j / BITS] |= 1 << (j % BITS);
                }
            }
        }
        self.up.clear();
        self.up.resize(m * words, 0);
        for (i, &x) in members.iter().enumerate() {
            // x's neighbours above it, merged with the members after it.
            let row = &mut self.up[i * words..(i + 1) * words];
            let mut theirs = graph
                .neighbors_above(x, link.label, link.direction)
                .iter()
                .peekable();
            for (j, &y) in members.iter().enumerate().skip(i + 1) {
                while theirs.next_if(|&&z| z < y).is_some() {}
                if theirs.peek() == Some(&&y) {
                    row[j / BITS] |= 1 << (j % BITS);
                }
            }
        }
        Some(self.count_chains(width - 1, m, words))
    }

    /// The chains of `levels` members (steps 1 to `levels`), each adjacent to all before it
    /// and in its step's C(u), over the rows made for `m` members.
    fn count_chains(&mut self, levels: usize, m: usize, words: usize) -> u128 {
        // The words of row, step or depth k.
        let at = |k: usize| k * words..(k + 1) * words;
        let ones = |a: &[u64], b: &[u64], c: &[u64]| -> u128 {
            let pairs = a.iter().zip(b).zip(c);
            pairs
                .map(|((x, y), z)| u128::from((x & y & z).count_ones()))
                .sum()
        };
        let mut found = 0u128;
        self.common.clear();
        self.common.resize((levels + 1) * words, 0);
        self.next.clear();
        self.next.resize((levels + 1) * words, 0);
        for i in 0..m {
            if self.allowed[at(1)][i / BITS] >> (i % BITS) & 1 == 0 {
                continue;
            }
            if levels == 1 {
                found += 1;
                continue;
            }
            let up_i = &self.up[at(i)];
            if levels == 2 {
                found += ones(up_i, up_i, &self.allowed[at(2)]);
                continue;
            }
            self.common[at(2)].copy_from_slice(up_i);
            let allowed = &self.allowed[at(2)];
            for ((next, &up), &ok) in self.next[at(2)].iter_mut().zip(up_i).zip(allowed) {
                *next = up & ok;
            }
            let mut d = 2;
            loop {
                // The lowest member step d may still take, taken off its set.
                let taken = (0..words).find_map(|w| {
                    let word = &mut self.next[d * words + w];
                    (*word != 0).then(|| {
                        let j = w * BITS + word.trailing_zeros() as usize;
                        *word &= *word - 1;
                        j
                    })
                });
                let Some(j) = taken else {
                    if d == 2 {
                        break;
                    }
                    d -= 1;
                    continue;
                };
                let (common, up_j) = (&self.common[at(d)], &self.up[at(j)]);
                if d + 1 == levels {
                    found += ones(common, up_j, &self.allowed[at(levels)]);
                    continue;
                }
                for w in 0..words {
                    let both = self.common[d * words + w] & self.up[j * words + w];
                    self.common[(d + 1) * words + w] = both;
                    self.next[(d + 1) * words + w] = both & self.allowed[(d + 1) * words + w];
                }
                d += 1;
            }
        }
        found
    }
}
