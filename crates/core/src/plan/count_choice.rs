//! A count's choice between counting by a program (a tree's, its quotients', its 2-core's)
//! and the join, as `--explain` shows it.

use super::Plan;
use crate::options::{MatchOptions, TreeCounts};

/// A program's estimated work (reads and rows) up to which it counts a query cut into shares
/// whatever a share's join is estimated at: it takes milliseconds on one core, while the
/// join's estimate is the walks' and may be far under. On gw12's dense_12_9 and _8 (programs
/// of 4.7×10^5 and 2.0×10^6), a share's join, estimated at 2.0×10^6 and 6.4×10^5, took up to
/// 807 and 114 ms on the development machine's CPU engine, the programs 7 and 25 ms whole.
const SHARE_PROGRAM_WORK: f64 = (1 << 21) as f64;

/// A count's choice between the tree's dynamic program ([`crate::tree_count`]) and the join.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeCountChoice {
    /// Whether the dynamic program counts the query.
    pub chosen: bool,
    /// Whether the options forced the choice rather than the estimates.
    pub forced: bool,
    /// The program's work ([`crate::tree_count::work`]).
    pub tree_work: f64,
    /// The join's ([`Plan::count_work`]); in a share, the share's part of it.
    pub join_work: f64,
    /// The shares the query is cut into (`--partition I/K`: K), 1 for the whole query. A
    /// share joins its part of the rows, but a program over quotients or a core counts the
    /// whole query: the first share runs it, the others count nothing (a tree's counts over
    /// the share's cut of the candidate sets, at about the whole program's cost).
    pub shares: u32,
    /// Whether `join_work` counts the lists the join reads (the walks ran), or its rows alone.
    pub join_reads: bool,
    /// Where the query's labels repeat, how many quotients the count adds up
    /// ([`crate::quotients`]; `tree_work` is then their work together); 0 where they do not.
    pub quotients: usize,
    /// Where the query has cycles, the vertices of its 2-core, joined while the trees hanging
    /// from it are counted by the program (`tree_work` is then both together); 0 for a tree.
    pub core: usize,
    /// Where the core is counted by programs with one vertex pinned ([`crate::core_count`]),
    /// those query vertices: the root block's first, then the cut vertex of each block that
    /// hangs from another; empty where it is joined.
    pub pinned: Vec<usize>,
}

impl TreeCountChoice {
    /// The choice `options.tree_counts` makes between a count of `tree_work` (over
    /// `quotients` quotients, or none) and the join of `plan`, each of the count's reads
    /// weighing `options.program_cost()` of the join's. In a share (`options.share`), the
    /// program's whole count is weighed against the share's part of the join.
    pub fn by(options: &MatchOptions, tree_work: f64, plan: &Plan, quotients: usize) -> Self {
        let shares = options.share.map_or(1, |share| share.count());
        let join_work = plan.count_work() / f64::from(shares);
        let tree_counts = options.tree_counts;
        TreeCountChoice {
            chosen: match tree_counts {
                TreeCounts::Never => false,
                TreeCounts::ByEstimate => {
                    tree_work * options.program_cost() <= join_work
                        || (shares > 1 && tree_work <= SHARE_PROGRAM_WORK)
                }
                TreeCounts::Always => true,
            },
            forced: tree_counts != TreeCounts::ByEstimate,
            tree_work,
            join_work,
            join_reads: plan.choice.estimated_reads.is_some(),
            shares,
            quotients,
            core: 0,
            pinned: Vec::new(),
        }
    }
}

impl std::fmt::Display for TreeCountChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tree = match (self.quotients, self.core) {
            (0, 0) => format!(
                "dynamic programming over the tree ({:.3e} candidate and list reads estimated)",
                self.tree_work
            ),
            (0, core) => format!(
                "{}, the trees hanging from it counted by dynamic programming ({:.3e} reads \
                 and rows estimated)",
                match self.pinned.as_slice() {
                    [] => format!("the join of its {core}-vertex 2-core"),
                    [u] => format!("its {core}-vertex 2-core counted with u{u} pinned"),
                    [u, cuts @ ..] => format!(
                        "its {core}-vertex 2-core counted block by block, u{u} pinned in the \
                         first and {} where the others hang",
                        cuts.iter()
                            .map(|c| format!("u{c}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                },
                self.tree_work
            ),
            (n, _) => format!(
                "inclusion-exclusion over {n} quotients, each one's homomorphisms counted \
                 ({:.3e} reads and rows estimated)",
                self.tree_work
            ),
        };
        let join = match self.shares {
            1 => "a join".to_string(),
            k => format!("a share's join, 1/{k} of the query's"),
        };
        let join = match self.join_reads {
            true => format!(
                "{join} ({:.3e} rows and list reads estimated)",
                self.join_work
            ),
            false => format!("{join} ({:.3e} rows estimated)", self.join_work),
        };
        let (chosen, other) = match self.chosen {
            true => (tree, join),
            false => (join, tree),
        };
        let why = match self.forced {
            true => "forced",
            false => "the lesser estimate",
        };
        write!(f, "count: {chosen} rather than {other} ({why})")?;
        if self.chosen && self.shares > 1 {
            match (self.quotients, self.core) {
                (0, 0) => write!(f, "; each share counts over its cut of the candidates")?,
                _ => write!(
                    f,
                    "; the first of the {} shares counts it whole",
                    self.shares
                )?,
            }
        }
        Ok(())
    }
}
