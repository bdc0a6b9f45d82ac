//! Whether a plan counts a clique along one chain: every step linked to every step before
//! it by edges of one label and direction, and kept above the step before it (the clique's
//! symmetry broken into one order). Its matches from a first vertex v0 are then chains of
//! v0's higher neighbours, which the engines count by bitmaps of their adjacency.

use super::{LinkEdge, Plan};

impl Plan {
    /// The link every step of a clique's chain reads (see the module), or `None` where the
    /// plan is not one: fewer than three steps, a step without a link to some step before
    /// it, links of another label or direction, absent edges, or an order bound that is not
    /// "above", or no bound above the step before.
    pub fn clique_link(&self) -> Option<LinkEdge> {
        let first = self.steps.get(1)?.first?;
        let chain = self.steps.len() >= 3
            && self.steps.iter().enumerate().skip(1).all(|(k, s)| {
                s.links().count() == k
                    && (0..k).all(|c| s.links().any(|l| l.column == c))
                    && s.links()
                        .all(|l| l.label == first.label && l.direction == first.direction)
                    && s.absent.is_empty()
                    && s.keeps_above(k - 1)
                    && s.order_bounds.iter().all(|b| b.above)
            });
        chain.then_some(first)
    }
}
