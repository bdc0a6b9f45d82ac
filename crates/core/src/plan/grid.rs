//! How a query is cut into shares ([`Share`]): the widest table whose rows a cut by rows may
//! deal, or the shape of a grid, how many classes each of the plan's first [`AXES`] vertices
//! is cut into.
//!
//! A grid's share keeps the data vertices of its class in C(u) of each cut vertex, so its
//! steps up to the k-th cut vertex make only part of the whole work: step k of a share makes
//! the whole step's work divided by the classes of the vertices cut *before* it. A grid that
//! cuts the second and third vertices makes each share repeat more of the first steps: on a
//! triangle over an unlabelled graph, where the first two steps are the whole work, the 32
//! shares of a 2 × 4 × 4 grid make 10 times the whole query's work together. Cutting the
//! first vertex alone costs nothing extra, but one vertex of much work (a hub) then makes
//! one share long. The evenest grid whose shares together make little more work than the
//! cheapest grid's is taken.

use std::cmp::Reverse;

use crate::options::{Share, ShareCut, AXES};
use crate::plan::Plan;

/// Extra work the shares may make together, over the cheapest grid's, to be cut more evenly.
const EVENNESS_SLACK: f64 = 0.1;

/// Share counts up to which every grid is weighed: a larger count (only `--partition` asks
/// for one) takes the evenest grid, since its grids may number millions.
const WEIGHED_COUNT_MAX: u32 = 1 << 16;

impl Plan {
    /// The steps whose vertices the grid's axes cut, one per axis: the plan's first [`AXES`]
    /// steps whose vertex has more than one candidate (one of a single candidate, a pinned
    /// vertex or a rare label's, would leave every match in one share); axes beyond them cut
    /// the last of them again, or the plan's last step where none has more. Neither a pair
    /// count's steps nor the leaves where a group of equivalent vertices is among them are
    /// cut: x and y, or the group's members, must draw from one whole extension set (cut
    /// apart by the evenest grid, a plan made ahead with such a group was miscounted over
    /// CPU engines, `tests/spread.rs`).
    pub fn cut_steps(&self) -> [usize; AXES] {
        let whole_leaves =
            self.leaves.pairs.is_some() || self.leaves.groups.iter().any(|g| g.equivalent);
        let cuttable = match whole_leaves {
            true => self.leaves.from,
            false => self.steps.len(),
        };
        let mut cut = self.steps[..cuttable]
            .iter()
            .enumerate()
            .filter(|(_, st)| self.candidate_sizes[st.vertex] > 1)
            .map(|(k, _)| k)
            .take(AXES);
        let mut steps = [cuttable.saturating_sub(1); AXES];
        let mut last = None;
        for step in &mut steps {
            last = cut.next().or(last);
            if let Some(k) = last {
                *step = k;
            }
        }
        steps
    }

    /// The widest table whose rows a query cut by rows may deal to its shares
    /// ([`crate::options::ShareCut::Rows`]): not past the leaf suffix, whose steps are
    /// counted rather than enumerated, nor the last step's (a one-vertex query deals its
    /// candidates).
    pub fn widest_dealt_table(&self) -> usize {
        self.leaves.from.min(self.width() - 1).max(1)
    }

    /// The sides of the grid of `count` shares of this plan's query: under
    /// [`ShareCut::Grid`] and with the walks' estimate per step
    /// ([`crate::plan::PlanChoice::estimated_steps`]), the evenest grid whose shares together
    /// make at most [`EVENNESS_SLACK`] more work than those of the grid making the least;
    /// otherwise the evenest ([`Share::grid`]). The plan is the same in every share, and so
    /// is its grid.
    pub fn share_grid(&self, count: u32, how: ShareCut) -> [u32; AXES] {
        let even = Share::new(0, count).map_or([1; AXES], Share::grid);
        let steps = &self.choice.estimated_steps;
        if how == ShareCut::EvenGrid
            || steps.len() != self.width()
            || steps.len() < 2
            || count > WEIGHED_COUNT_MAX
        {
            return even;
        }
        let grids = grids_of(count);
        let cut = self.cut_steps();
        let work: Vec<f64> = grids.iter().map(|&g| shares_work(steps, cut, g)).collect();
        let least = work.iter().copied().fold(f64::INFINITY, f64::min);
        if !(least.is_finite() && least > 0.0) {
            return even;
        }
        grids
            .iter()
            .zip(&work)
            .filter(|&(_, &w)| w <= least * (1.0 + EVENNESS_SLACK))
            .map(|(&g, _)| g)
            .min_by_key(|g| evenness(*g))
            .unwrap_or(even)
    }
}

/// The work of one share of a grid of `sides` over the steps `cut` ([`Plan::cut_steps`]),
/// times the number of shares: the shares' work together. Step k's work is the rows it reads
/// and the rows it makes (`steps[k - 1] + steps[k]`), divided by the classes of the axes
/// whose step comes before step k.
fn shares_work(steps: &[f64], cut: [usize; AXES], sides: [u32; AXES]) -> f64 {
    let count: f64 = sides.iter().map(|&s| f64::from(s)).product();
    let per_share: f64 = (1..steps.len())
        .map(|k| {
            let cut_before: f64 = (0..AXES)
                .filter(|&axis| cut[axis] < k)
                .map(|axis| f64::from(sides[axis]))
                .product();
            (steps[k - 1] + steps[k]) / cut_before
        })
        .sum();
    per_share * count
}

/// A key under which the evenest grid is least: the smallest largest side, then the most
/// vertices cut (a hub's work is split again at each), then the largest sides last.
fn evenness(sides: [u32; AXES]) -> (u32, Reverse<usize>, Reverse<[u32; AXES]>) {
    let largest = sides.iter().copied().max().unwrap_or(1);
    let cut = sides.iter().filter(|&&s| s > 1).count();
    let mut last_first = sides;
    last_first.reverse();
    (largest, Reverse(cut), Reverse(last_first))
}

/// Every grid of `count` cells: the ordered tuples of divisors whose product is `count`.
fn grids_of(count: u32) -> Vec<[u32; AXES]> {
    fn fill(
        divisors: &[u32],
        rest: u32,
        axis: usize,
        sides: &mut [u32; AXES],
        out: &mut Vec<[u32; AXES]>,
    ) {
        if axis == AXES - 1 {
            sides[axis] = rest;
            out.push(*sides);
            return;
        }
        for &d in divisors.iter().take_while(|&&d| d <= rest) {
            if rest.is_multiple_of(d) {
                sides[axis] = d;
                fill(divisors, rest / d, axis + 1, sides, out);
            }
        }
    }
    let mut grids = Vec::new();
    if count > 0 {
        fill(&divisors(count), count, 0, &mut [1; AXES], &mut grids);
    }
    grids
}

/// The divisors of `n`, ascending (none of 0).
fn divisors(n: u32) -> Vec<u32> {
    let mut low = Vec::new();
    let mut high = Vec::new();
    let mut d = 1u32;
    while u64::from(d) * u64::from(d) <= u64::from(n) {
        if n.is_multiple_of(d) {
            low.push(d);
            if d != n / d {
                high.push(n / d);
            }
        }
        d += 1;
    }
    low.extend(high.into_iter().rev());
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::DataIndex;
    use crate::testing::graph;

    /// A plan of a path of `n` vertices, without the walks' estimate.
    fn path_plan(n: u32) -> Plan {
        let edges: Vec<(u32, u32, u32)> = (1..n).map(|v| (v - 1, v, 0)).collect();
        let query = graph(false, &vec![0; n as usize], &edges);
        let data = DataIndex::build(graph(false, &[0; 2], &[(0, 1, 0)])).unwrap();
        Plan::build(&query, &vec![2; n as usize], &data, false)
    }

    fn grid(steps: &[f64], count: u32) -> [u32; AXES] {
        let mut plan = path_plan(steps.len() as u32);
        plan.choice.estimated_steps = steps.to_vec();
        plan.share_grid(count, ShareCut::Grid)
    }

    #[test]
    fn rows_are_dealt_before_the_counted_steps() {
        let mut plan = path_plan(6);
        assert_eq!(plan.widest_dealt_table(), 5);
        plan.leaves.from = 2;
        assert_eq!(plan.widest_dealt_table(), 2);
        assert_eq!(path_plan(1).widest_dealt_table(), 1);
        assert_eq!(path_plan(2).widest_dealt_table(), 1);
    }

    #[test]
    fn every_grid_of_a_count_is_listed_once() {
        for count in [1, 2, 12, 32, 64, 97] {
            let grids = grids_of(count);
            assert!(grids.iter().all(|g| g.iter().product::<u32>() == count));
            let mut distinct = grids.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), grids.len());
            // Ordered tuples of five divisors: 32 = 2^5 has C(9, 4) = 126 of them.
            if count == 32 {
                assert_eq!(grids.len(), 126);
            }
        }
        assert_eq!(divisors(36), [1, 2, 3, 4, 6, 9, 12, 18, 36]);
        assert_eq!(divisors(0), Vec::<u32>::new());
    }

    #[test]
    fn a_plan_whose_first_steps_are_its_work_is_cut_on_its_first_vertex() {
        // A triangle on an unlabelled graph: 4.8 M candidates, 21 M edges, 6.5 M triangles.
        assert_eq!(grid(&[4.8e6, 2.1e7, 6.5e6], 32), [32, 1, 1, 1, 1]);
        // A two-vertex query: its second step is all of it.
        assert_eq!(grid(&[1e3, 1e6], 8), [8, 1, 1, 1, 1]);
    }

    #[test]
    fn a_plan_whose_work_comes_late_is_cut_evenly() {
        // A 12-vertex query whose rows grow tenfold a step to 10^9: its first five vertices
        // are cut alike.
        let steps: Vec<f64> = (0..12).map(|k| 10f64.powi(k.min(9))).collect();
        assert_eq!(grid(&steps, 32), [2, 2, 2, 2, 2]);
        assert_eq!(grid(&steps, 64), [2, 2, 2, 2, 4]);
    }

    #[test]
    fn between_the_two_the_first_vertex_takes_what_the_later_steps_cannot() {
        // The third step's work is 30 times the second's: cutting the second vertex in two
        // costs 1/30 more, within the slack; cutting it in four costs 3/30, also within;
        // the third vertex cannot be cut without repeating the third step.
        let steps = [1.0, 1e6, 3e7, 1.0];
        let sides = grid(&steps, 32);
        assert_eq!(sides.iter().product::<u32>(), 32);
        let cut = [0, 1, 2, 3, 3];
        let least = grids_of(32)
            .into_iter()
            .map(|g| shares_work(&steps, cut, g))
            .fold(f64::INFINITY, f64::min);
        assert!(shares_work(&steps, cut, sides) <= least * (1.0 + EVENNESS_SLACK));
        assert!(
            sides[0] < 32,
            "{sides:?}: cut more evenly than the first vertex alone"
        );
    }

    #[test]
    fn the_axes_cut_the_first_vertices_of_more_than_one_candidate() {
        let mut plan = path_plan(8);
        assert_eq!(plan.cut_steps(), [0, 1, 2, 3, 4]);
        // A path whose first three vertices have one candidate each (pinned, or of a rare
        // label) is cut from its fourth on, the axes past its last vertex on that one.
        for step in &plan.steps[..3] {
            plan.candidate_sizes[step.vertex] = 1;
        }
        assert_eq!(plan.cut_steps(), [3, 4, 5, 6, 7]);
        for step in &plan.steps[5..] {
            plan.candidate_sizes[step.vertex] = 1;
        }
        assert_eq!(plan.cut_steps(), [3, 4, 4, 4, 4]);
        // None of more than one: the last step.
        for step in &plan.steps {
            plan.candidate_sizes[step.vertex] = 1;
        }
        assert_eq!(plan.cut_steps(), [7; AXES]);
        // A plan shorter than the grid: its last vertex again.
        assert_eq!(path_plan(3).cut_steps(), [0, 1, 2, 2, 2]);
    }

    #[test]
    fn without_walks_or_when_asked_the_grid_is_the_evenest() {
        let even = [2, 4, 4, 1, 1];
        let mut plan = path_plan(3);
        assert_eq!(plan.share_grid(32, ShareCut::Grid), even);
        plan.choice.estimated_steps = vec![4.8e6, 2.1e7, 6.5e6];
        assert_eq!(plan.share_grid(32, ShareCut::EvenGrid), even);
        assert_eq!(
            plan.share_grid(1 << 20, ShareCut::Grid),
            Share::new(0, 1 << 20).unwrap().grid()
        );
        plan.choice.estimated_steps = vec![0.0; 3];
        assert_eq!(plan.share_grid(32, ShareCut::Grid), even);
    }
}
