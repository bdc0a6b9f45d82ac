//! The leaf suffix's count in the CPU's depth-first search ([`crate::plan::LeafSuffix`]):
//! the product of each label group's injective choices, the pair count, and the extensions
//! of a step kept while the matches it reads stay (a hub's list read once for every row
//! below it).

use gsi_graph::VertexId;

use super::{CpuJoin, DepthFirst};
use crate::join::intersect_in_place;
use crate::plan::{PairCount, Plan, MAX_LEAF_GROUP};

/// A step's extensions under homomorphism for the matches of the columns it reads
/// ([`crate::plan::JoinStep::read_columns`]), kept while they stay: the rows below a hub read
/// and filter its list once, and each then takes out only its own matches (gw12's
/// dense_12_5: a leaf on a hub joined second, its list filtered again for each of ~10^6 rows).
#[derive(Clone, Debug, Default)]
pub(super) struct KeptExtensions {
    /// The matches of the columns read; `None` before the first fill.
    key: Option<Vec<VertexId>>,
    vertices: Vec<VertexId>,
}

impl KeptExtensions {
    /// Per step of `plan`, whether the depth-first count keeps its extensions (where `on`):
    /// a step only counted (the last, or a leaf whose group's value is its count alone, not
    /// a pair count's) that reads no match of the column just before it is counted, which
    /// changes at each count.
    pub(super) fn steps(plan: &Plan, on: bool) -> Vec<bool> {
        let leaves = &plan.leaves;
        let width = plan.width();
        let mut keeps = vec![false; width];
        if !on {
            return keeps;
        }
        // Each step only counted, with the width of the row it extends.
        let counted: Vec<(usize, usize)> = match leaves.from < width {
            true if leaves.pairs.is_some() => Vec::new(),
            true => (leaves.groups.iter())
                .filter(|g| g.equivalent || g.steps.len() == 1)
                .flat_map(|g| g.steps.iter().map(|&step| (step, leaves.from)))
                .collect(),
            false => width
                .checked_sub(1)
                .map(|last| (last, last))
                .into_iter()
                .collect(),
        };
        for (step, at) in counted {
            let st = &plan.steps[step];
            keeps[step] = st.read_columns().all(|c| c + 1 < at);
        }
        keeps
    }
}

impl CpuJoin<'_> {
    /// The matches of the leaf suffix ([`crate::plan::LeafSuffix`]) that extend the partial
    /// match `search.row[..leaves.from]`: over the label groups, the product of each group's
    /// injective choices, from the sizes of its members' extension sets and their
    /// intersections. A group's value (at most the product of its sets' sizes, below 2^128)
    /// is exact in arithmetic modulo 2^128; the product over groups saturates at `u128::MAX`.
    /// `Err` names a step whose extension set is empty, or holds fewer vertices than the
    /// injective members that share it (no match; the failing set is the step's).
    pub(super) fn leaf_product(&self, search: &mut DepthFirst) -> std::result::Result<u128, usize> {
        let leaves = &self.plan.leaves;
        if let Some(pairs) = leaves.pairs {
            return self.pair_count(pairs, search);
        }
        let injective = self.options.semantics.injective();
        let mut product: u128 = 1;
        for group in &leaves.groups {
            // Each member's extension set goes into its own step's buffer (which keeps its
            // length: growing it again would clear it again).
            if group.equivalent || group.steps.len() == 1 {
                // One extension set for every member: |E| (|E| - 1) ... or |E|^k.
                let step = group.steps[0];
                let n = self.extension_count(step, leaves.from, search) as u128;
                let k = group.steps.len() as u128;
                if n == 0 || (injective && n < k) {
                    return Err(step);
                }
                let value = (0..k).fold(1u128, |p, i| match injective {
                    true => p.saturating_mul(n.saturating_sub(i)),
                    false => p.saturating_mul(n),
                });
                product = product.saturating_mul(value);
                if product == 0 {
                    break;
                }
                continue;
            }
            let mut lengths = [0usize; MAX_LEAF_GROUP];
            for (j, &step) in group.steps.iter().enumerate() {
                lengths[j] = self.step_extensions(step, leaves.from, true, search);
                if lengths[j] == 0 {
                    return Err(step);
                }
            }
            let buffers = &search.buffers;
            let set = |j: usize| &buffers[group.steps[j]][..lengths[j]];
            let value = if !injective || group.steps.len() == 1 {
                (0..group.steps.len()).fold(1u128, |p, j| p.saturating_mul(set(j).len() as u128))
            } else {
                let k = group.steps.len();
                let common = &mut search.common;
                let mut size = [0u128; 1 << MAX_LEAF_GROUP];
                for (mask, size) in size.iter_mut().enumerate().take(1 << k).skip(1) {
                    let first = mask.trailing_zeros() as usize;
                    common.clear();
                    common.extend_from_slice(set(first));
                    let mut n = common.len();
                    for j in (first + 1..k).filter(|&j| mask & (1 << j) != 0) {
                        n = intersect_in_place(&mut common[..n], set(j));
                    }
                    *size = n as u128;
                }
                group.terms.iter().fold(0u128, |sum, term| {
                    let blocks = term
                        .blocks
                        .iter()
                        .fold(1u128, |p, &b| p.wrapping_mul(size[b as usize]));
                    sum.wrapping_add((term.coefficient as i128 as u128).wrapping_mul(blocks))
                })
            };
            product = product.saturating_mul(value);
            if product == 0 {
                break;
            }
        }
        Ok(product)
    }

    /// The matches of the pair count's steps x, y, z ([`PairCount`]) that extend the partial
    /// match `search.row[..from]`: with E the extensions of x, each member's list by z's link
    /// is read once, tallying for each data vertex v the members it is linked to, k_v; a
    /// tally that was k when v met one more member adds the k pairs that member makes with
    /// the others (Σ_v C(k_v, 2) in all). v must be a candidate of z outside the row and
    /// within z's window (and is never the member: the data graph has no self-loops). `Err`
    /// names x's step when E holds fewer than two members.
    fn pair_count(
        &self,
        pairs: PairCount,
        search: &mut DepthFirst,
    ) -> std::result::Result<u128, usize> {
        let from = self.plan.leaves.from;
        let n = self.step_extensions(from, from, true, search);
        if n < 2 {
            return Err(from);
        }
        let z = &self.plan.steps[from + 2];
        let scan = z
            .links()
            .find(|e| e.column == from)
            .expect("z is linked to x");
        let graph = self.data.graph();
        let vertices = graph.vertex_count();
        let DepthFirst {
            row,
            buffers,
            tally,
            touched,
            ..
        } = search;
        let row = &row[..from];
        if tally.len() < vertices {
            tally.resize(vertices, 0);
        }
        let mut count: u128 = 0;
        for &e in &buffers[from][..n] {
            for &v in z.narrow(row, graph.neighbors(e, scan.label, scan.direction)) {
                if !self.candidates.contains(z.vertex, v) || row.contains(&v) {
                    continue;
                }
                let k = &mut tally[v as usize];
                if *k == 0 {
                    touched.push(v);
                }
                count += u128::from(*k);
                *k += 1;
            }
        }
        for v in touched.drain(..) {
            tally[v as usize] = 0;
        }
        Ok(match pairs.ordered {
            true => count.saturating_mul(2),
            false => count,
        })
    }

    /// |the extensions of `search.row[..width]` at `step`|, as
    /// [`CpuJoin::step_extensions`] counts them (with the step's failing set), writing no
    /// list: from the step's kept extensions where it keeps them ([`KeptExtensions`]).
    pub(super) fn extension_count(
        &self,
        step: usize,
        width: usize,
        search: &mut DepthFirst,
    ) -> usize {
        if !self.keeps[step] {
            return self.step_extensions(step, width, false, search);
        }
        let st = &self.plan.steps[step];
        let DepthFirst {
            row,
            kept,
            conflicts,
            ..
        } = search;
        let (row, kept) = (&row[..width], &mut kept[step]);
        let read = || st.read_columns().map(|c| row[c]);
        if !(kept.key.as_ref()).is_some_and(|key| read().eq(key.iter().copied())) {
            kept.key = Some(read().collect());
            let source = self.source(st, row);
            kept.vertices.resize(source.len(), 0);
            let n = self.extensions(st, row, source, &mut kept.vertices, false, None);
            kept.vertices.truncate(n);
        }
        let mut n = kept.vertices.len();
        conflicts[step] = 0;
        if self.options.semantics.injective() {
            for &x in row {
                if kept.vertices.binary_search(&x).is_ok() {
                    n -= 1;
                    conflicts[step] |= self.column_set(row, x);
                }
            }
        }
        n
    }
}
