//! Which of the query's automorphisms a plan breaks. Each broken automorphism becomes an order
//! bound, and a bound on a vertex of the leaf suffix takes it out of the suffix, back into the
//! enumeration: on wordnet's query_sparse_8_52 two leaves on the same two hubs, interchanged,
//! were enumerated pair by pair (over 10 s on one CPU thread) where the suffix's product
//! counts both orders at once (0.3 s). Their interchanges are left to the products where that
//! costs the steps before none of their bounds and breaking them would enumerate pairs.

use gsi_graph::Graph;

use crate::options::{MatchOptions, SuffixInterchanges};
use crate::plan::symmetry::{Symmetry, MAX_IMAGES};
use crate::plan::Plan;

/// Whose interchanges a plan's symmetry leaves unbroken, for the count to make.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unbroken {
    /// The equivalent vertices the leaf suffix counts from one extension set.
    Equivalents,
    /// Every vertex of the leaf suffix.
    Suffix,
}

/// `plan` with the query's symmetry broken ([`symmetry_of`]), and that symmetry. Where
/// breaking it would take vertices out of the leaf suffix, the suffix's interchanges are
/// left to its products instead as `options.suffix_interchanges` says: by estimate, where
/// the steps before the suffix keep every bound they would have had, the bounds given up
/// only interchange suffix vertices, and breaking them would send two steps or more back
/// into the enumeration while a suffix stays after them. There each row before the suffix
/// would enumerate the pairs of interchangeable vertices and compute the suffix's products
/// for each pair: on hubs, pairs by the million (wordnet's query_sparse_8_52 and _174: 14 s
/// → 0.3 s on one CPU thread, 184 → 8 ms on an H200; yeast's query_sparse_32_188 418 → 33
/// ms). One step sent back is one level of rows, and without a suffix after it the last is
/// a count; the products' terms over the larger group cost more there (wordnet's
/// query_sparse_12_77 0.67 → 1.97 s and query_dense_12_54 0.66 → 1.56 s counted:
/// docs/BENCHMARKS.md).
pub(super) fn break_symmetry(
    mut plan: Plan,
    query: &Graph,
    options: &MatchOptions,
    counting: bool,
) -> (Plan, Symmetry) {
    let symmetry = symmetry_of(&plan, query, options, counting, Unbroken::Equivalents);
    let suffix = plan.leaves.from;
    // A bound on a vertex of the suffix takes it, and the steps before it, out of the suffix
    // (`Plan::break_symmetry`); a pair count's suffix keeps its own bounds.
    let takes_out = plan.leaves.pairs.is_none()
        && plan.steps[suffix..]
            .iter()
            .any(|st| symmetry.constrains(st.vertex));
    if !takes_out || options.suffix_interchanges == SuffixInterchanges::Broken {
        plan.break_symmetry(query, symmetry.clone());
        return (plan, symmetry);
    }
    let mut broken = plan.clone();
    broken.break_symmetry(query, symmetry.clone());
    let counted = symmetry_of(&plan, query, options, counting, Unbroken::Suffix);
    let mut in_suffix = vec![false; query.vertex_count()];
    for st in &plan.steps[suffix..] {
        in_suffix[st.vertex] = true;
    }
    plan.break_symmetry(query, counted.clone());
    plan.choice.suffix_interchanges_counted = true;
    let keeps_every_bound = broken.steps[..suffix]
        .iter()
        .zip(&plan.steps)
        .all(|(b, c)| b.order_bounds.iter().all(|x| c.order_bounds.contains(x)));
    let only_suffix_interchanges_left = symmetry
        .constraints
        .iter()
        .filter(|c| !counted.constraints.contains(c))
        .all(|&(a, b)| in_suffix[a] && in_suffix[b]);
    let pairs_before_a_suffix =
        broken.leaves.from >= suffix + 2 && broken.leaves.from < broken.width();
    match options.suffix_interchanges {
        SuffixInterchanges::ByEstimate
            if !(keeps_every_bound && only_suffix_interchanges_left && pairs_before_a_suffix) =>
        {
            (broken, symmetry)
        }
        _ => (plan, counted),
    }
}

/// The query's automorphisms the join breaks (`plan`'s order bounds): none unless matches are
/// injective and all of them wanted (a limit wants the first few, found as well without), and
/// not for a query already out of time (the join stops at once), nor with pins (they tell
/// automorphic vertices apart). The interchanges of the vertices `unbroken` names are left to
/// the count, which multiplies them.
pub(super) fn symmetry_of(
    plan: &Plan,
    query: &Graph,
    options: &MatchOptions,
    counting: bool,
    unbroken: Unbroken,
) -> Symmetry {
    if !(options.symmetry
        && options.semantics.injective()
        && options.limit.is_none()
        && options.pinned.is_empty()
        && options.stop().is_none())
    {
        return Symmetry::none();
    }
    let max_images = if counting { u64::MAX } else { MAX_IMAGES };
    let mut kept = vec![false; query.vertex_count()];
    let groups = plan
        .leaves
        .groups
        .iter()
        .filter(|g| g.equivalent || unbroken == Unbroken::Suffix);
    for group in groups {
        for &step in &group.steps {
            kept[plan.steps[step].vertex] = true;
        }
    }
    // A pair count's plan fixes, in each orbit, the vertex it joins first, so that its bounds
    // fall on the later steps: x and z bounded by the core alone (`PairCount::after_bounds`).
    let n = query.vertex_count();
    let mut rank: Vec<usize> = (0..n).collect();
    if plan.leaves.pairs.is_some() {
        for (column, step) in plan.steps.iter().enumerate() {
            rank[step.vertex] = column;
        }
    }
    Symmetry::of_keeping(query, max_images, &kept, &rank)
}
